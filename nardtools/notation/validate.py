"""Validation of record files: read, replay, report — one file at a time.

:func:`validate_paths` walks files and directories, detects each file's format,
replays every game and yields one :class:`FileReport` per file, in order; a
file that cannot be read is reported, never fatal.  With ``jobs > 1`` files are
validated in worker processes.

A plain backgammon ``.mat`` file is first shown to the compiled check
(``nardtools._fastmat``, when it was built): it vouches for a file only when it
sees that the replay would report nothing, and then gives the same counts; any
other file, and any file it is unsure of, is replayed here.  The replay is the
reference; ``NARDTOOLS_ENGINE=reference`` replays every file.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import NardtoolsError
from .sniff import decode, detect_format

if TYPE_CHECKING:
    from .record import MatchRecord
    from .replay import Problem

_vouch: Callable[[bytes], tuple[int, int, int] | None] | None = None
if os.environ.get("NARDTOOLS_ENGINE", "") != "reference":
    try:
        from .._fastmat import vouch as _vouch
    except ImportError:  # pragma: no cover - built without a C compiler
        pass

#: File endings looked at inside directories.
RECORD_SUFFIXES = (".mat", ".txt", ".nrd")
#: Readers by format name (module, function), imported when first needed.
READERS = {"mat": ("mat", "read_mat"), "nrd": ("native", "read_native")}


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


def read_record(path: str | Path, data: bytes | None = None) -> MatchRecord:
    """Read a record file of any known format (``data``: its bytes, if already read).

    Raises :class:`RecordError` when the file cannot be read or its format is unknown."""
    from .record import RecordError

    try:
        text = decode(Path(path).read_bytes() if data is None else data)
    except OSError as e:
        raise RecordError(f"cannot read: {e.strerror or e}", path=str(path)) from None
    fmt = detect_format(text)
    if fmt is None:
        raise RecordError("unknown format: neither a native record nor a .mat file", path=str(path))
    module, reader = READERS[fmt]
    read: Callable[[str, str], MatchRecord] = getattr(import_module(f".{module}", __package__), reader)
    return read(text, str(path))


def vouched(path: str, rules: str | None = None, options: Mapping[str, str] | None = None,
            lenient: bool = False, data: bytes | None = None) -> FileReport | None:
    """The report of a file the compiled check vouches for (clean, and read
    under the file's own rules), else ``None``: the file must be replayed."""
    if _vouch is None or rules is not None or options or lenient:
        return None
    try:
        counts = _vouch(Path(path).read_bytes() if data is None else data)
    except OSError:
        return None  # the replay reports it
    if counts is None:
        return None
    games, complete, turns = counts
    return FileReport(path, "mat", games=games, complete_games=complete, turns=turns)


def validate_file(path: str, rules: str | None = None, options: Mapping[str, str] | None = None,
                  lenient: bool = False) -> FileReport:
    """Validate one file: the compiled check's word for it, or its replay."""
    try:
        data: bytes | None = Path(path).read_bytes()
    except OSError:
        data = None  # the replay's reader says why
    quick = vouched(path, rules, options, lenient, data) if data is not None else None
    return quick or replay_file(path, rules, options, lenient, data)


def replay_file(path: str, rules: str | None = None, options: Mapping[str, str] | None = None,
                lenient: bool = False, data: bytes | None = None) -> FileReport:
    """Read and replay one file (``data``: its bytes, if already read)."""
    from .record import RecordError
    from .replay import replay_match

    try:
        record = read_record(path, data)
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


def _replay_job(args: tuple[str, str | None, Mapping[str, str] | None, bool]) -> FileReport:
    return replay_file(*args)


def validate_paths(files: list[str], rules: str | None = None, options: Mapping[str, str] | None = None,
                   lenient: bool = False, jobs: int = 1) -> Iterator[FileReport]:
    """Validate ``files`` (see :func:`expand_paths`), yielding reports in order.

    Files the compiled check vouches for are settled here at once; the others
    are replayed, in ``jobs`` worker processes when there are several."""
    work = [(f, rules, dict(options or {}), lenient) for f in files]
    jobs = max(1, min(jobs, len(work), os.cpu_count() or 1))
    if jobs == 1:
        yield from (validate_file(*w) for w in work)
        return
    pool = None  # started at the first file that needs the replay
    pending: deque[Any] = deque()  # reports and futures of reports, in file order
    try:
        for w in work:
            quick = vouched(*w)
            if quick is not None:
                pending.append(quick)
            else:
                if pool is None:
                    from concurrent.futures import ProcessPoolExecutor

                    pool = ProcessPoolExecutor(jobs)
                pending.append(pool.submit(_replay_job, w))
            while pending and (isinstance(pending[0], FileReport) or pending[0].done()):
                first = pending.popleft()
                yield first if isinstance(first, FileReport) else first.result()
        for left in pending:
            yield left if isinstance(left, FileReport) else left.result()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
