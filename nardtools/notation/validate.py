"""Validation of record files: read, replay, report — one file at a time.

:func:`validate_paths` walks files and directories, detects each file's format,
replays every game and yields one :class:`FileReport` per file, in order; a
file that cannot be read is reported, never fatal.  With ``jobs > 1`` files are
validated in worker processes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from ..errors import NardtoolsError
from .mat import decode, looks_like_mat, read_mat
from .native import looks_native, read_native
from .record import MatchRecord, RecordError
from .replay import Problem, replay_match

#: File endings looked at inside directories.
RECORD_SUFFIXES = (".mat", ".txt", ".nrd")
#: Readers by format name.
READERS = {"mat": read_mat, "nrd": read_native}


@dataclass
class FileReport:
    """What validation found in one file."""

    path: str
    format: str
    games: int = 0
    complete_games: int = 0
    turns: int = 0
    problems: list[Problem] = field(default_factory=list)
    unreadable: str = ""  # why the file could not be read at all

    @property
    def errors(self) -> list[Problem]:
        """Problems of severity ``error``."""
        return [p for p in self.problems if p.severity == "error"]

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``nardtools validate --format json``."""
        return {"path": self.path, "format": self.format, "games": self.games,
                "complete_games": self.complete_games, "turns": self.turns,
                "unreadable": self.unreadable or None,
                "errors": [p.as_dict() for p in self.errors],
                "warnings": [p.as_dict() for p in self.problems if p.severity != "error"]}


def detect_format(text: str) -> str | None:
    """``"nrd"`` for the native format (it starts with a tag), ``"mat"`` when
    the text has a ``N point match`` header, else ``None``."""
    if looks_native(text):
        return "nrd"
    return "mat" if looks_like_mat(text) else None


def read_record(path: str | Path) -> MatchRecord:
    """Read a record file of any known format.

    Raises :class:`RecordError` when the file cannot be read or its format is unknown."""
    try:
        text = decode(Path(path).read_bytes())
    except OSError as e:
        raise RecordError(f"cannot read: {e.strerror or e}", path=str(path)) from None
    fmt = detect_format(text)
    if fmt is None:
        raise RecordError("unknown format: neither a native record nor a .mat file", path=str(path))
    return READERS[fmt](text, str(path))


def validate_file(path: str, rules: str | None = None, options: Mapping[str, str] | None = None,
                  lenient: bool = False) -> FileReport:
    """Read and replay one file."""
    try:
        record = read_record(path)
    except RecordError as e:
        return FileReport(path, "?", unreadable=e.bare_message)
    fmt = record.format
    try:
        replayed = replay_match(record, rules=rules, options=options, lenient=lenient)
    except NardtoolsError as e:  # e.g. an unknown ruleset named in the file
        return FileReport(path, fmt, unreadable=str(e))
    return FileReport(path, fmt, games=len(replayed.games),
                      complete_games=sum(g.complete for g in replayed.games),
                      turns=replayed.turns, problems=replayed.problems)


def _looks_like_record(path: Path) -> bool:
    if path.suffix.lower() == ".mat":
        return True
    try:
        with path.open("rb") as f:
            head = f.read(8192)
    except OSError:
        return True  # let validation report it
    return detect_format(decode(head)) is not None


def expand_paths(paths: Iterable[str | Path]) -> list[str]:
    """Files named, and record files found below directories named, sorted.
    Inside directories ``.mat`` files are taken, and ``.txt`` files that hold a
    ``N point match`` header."""
    files: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(str(f) for f in p.rglob("*") if f.is_file()
                                and f.suffix.lower() in RECORD_SUFFIXES and _looks_like_record(f)))
        else:
            files.append(str(p))
    return files


def _job(args: tuple[str, str | None, Mapping[str, str] | None, bool]) -> FileReport:
    return validate_file(*args)


def validate_paths(files: list[str], rules: str | None = None, options: Mapping[str, str] | None = None,
                   lenient: bool = False, jobs: int = 1) -> Iterator[FileReport]:
    """Validate ``files`` (see :func:`expand_paths`), yielding reports in order."""
    work = [(f, rules, dict(options or {}), lenient) for f in files]
    jobs = max(1, min(jobs, len(work), os.cpu_count() or 1))
    if jobs == 1:
        yield from map(_job, work)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(_job, work, chunksize=max(1, len(work) // (jobs * 8)))
