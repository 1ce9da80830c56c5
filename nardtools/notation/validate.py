"""Validation of record files: read, replay, report — one file at a time.

:func:`validate_paths` walks files and directories, detects each file's format,
replays every game and yields one :class:`FileReport` per file, in order; a
file that cannot be read is reported, never fatal.  With ``jobs > 1`` files are
validated in worker processes.  A file is read and replayed one game at a
time, so memory is bounded by its largest game, not by its size.

A ``.mat`` file of either game is first shown to the compiled core
(``nardtools._core``, when it was built): it reads the file's tags (the rules
come from them, as for the replay), then reads and replays every game in C,
and vouches for the file only when it sees that the replay would report
nothing, giving the same counts; any other file, and any file it is unsure
of, is replayed here.  The replay is the reference; ``NARDTOOLS_ENGINE=reference``
replays every file.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import NardtoolsError
from .reading import RECORD_SUFFIXES, expand_paths, open_record, read_record
from .sniff import check_encoding

if TYPE_CHECKING:
    from .replay import Problem

from ..core import compiled, pack_rules
from .vouch import mat_files

__all__ = ["RECORD_SUFFIXES", "FileReport", "expand_paths", "read_record", "replay_file", "validate_file",
           "validate_paths", "vouched"]

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
    encoding: str = ""  # the encoding the file was read in ("" when it could not be read)
    encoding_why: str = ""  # detected from what, or given

    @property
    def errors(self) -> list[Problem]:
        """Problems of severity ``error``."""
        return [p for p in self.problems if p.severity == "error"]

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``nardtools validate --format json``."""
        return {"path": self.path, "format": self.format, "encoding": self.encoding or None,
                "games": self.games, "complete_games": self.complete_games, "turns": self.turns,
                "unreadable": self.unreadable or None,
                "errors": [p.as_dict() for p in self.errors],
                "warnings": [p.as_dict() for p in self.problems if p.severity != "error"]}


def vouched(path: str, rules: str | None = None, options: Mapping[str, str] | None = None,
            lenient: bool = False, encoding: str | None = None, data: bytes | None = None) -> FileReport | None:
    """The report of a file the compiled core vouches for (clean under the
    rules it is replayed by: the file's own, or ``rules`` and ``options`` on
    top of its tags), else ``None``: the file must be replayed.  A clean
    file's lenient replay is its strict one, so ``lenient`` changes nothing
    here; with an ``encoding`` only a plain ASCII file is vouched for
    (:func:`~nardtools.notation.vouch.mat_file`)."""
    return vouched_many([(path, data)], rules, options, encoding)[0]


def vouched_many(files: Sequence[tuple[str, bytes | None]], rules: str | None = None,
                 options: Mapping[str, str] | None = None, encoding: str | None = None) -> list[FileReport | None]:
    """:func:`vouched` of each ``(path, data)``, the core reading the files
    and then looking at them in calls that free the interpreter (threads
    looking at other files meanwhile)."""
    core = compiled()
    if core is None:
        return [None] * len(files)
    reads = mat_files(files, rules, options, encoding)
    looked = iter(core.mat_vouch_many([(read[0], pack_rules(read[1].rules)) for read in reads if read is not None]))
    out: list[FileReport | None] = []
    for (path, _), read in zip(files, reads):
        counts = next(looked) if read is not None else None
        if counts is None:
            out.append(None)
            continue
        games, complete, turns = counts
        named = (check_encoding(encoding), "given") if encoding else ("utf-8", "ASCII")
        out.append(FileReport(path, "mat", games=games, complete_games=complete, turns=turns, encoding=named[0],
                              encoding_why=named[1]))
    return out


def validate_file(path: str, rules: str | None = None, options: Mapping[str, str] | None = None,
                  lenient: bool = False, encoding: str | None = None, data: bytes | None = None) -> FileReport:
    """Validate one file: the compiled check's word for it, or its replay."""
    quick = vouched(path, rules, options, lenient, encoding, data)
    return quick or replay_file(path, rules, options, lenient, encoding, data)


def replay_file(path: str, rules: str | None = None, options: Mapping[str, str] | None = None,
                lenient: bool = False, encoding: str | None = None, data: bytes | None = None) -> FileReport:
    """Read and replay one file, a game at a time (``data``: its bytes, if already read)."""
    from .record import RecordError
    from .replay import replay_games

    try:
        record, games = open_record(path, data, encoding)
    except RecordError as e:
        return FileReport(path, "?", unreadable=e.bare_message)
    report = FileReport(path, record.format, encoding=record.encoding, encoding_why=record.encoding_why)
    problems: list[Problem] = []
    try:
        for replayed in replay_games(record, games, rules=rules, options=options, lenient=lenient):
            report.games += 1
            report.complete_games += replayed.complete
            report.turns += len(replayed.turns)
            problems += replayed.problems
    except RecordError as e:  # the text stopped being readable part of the way
        report.unreadable = e.bare_message
    except NardtoolsError as e:  # e.g. an unknown ruleset named in the file
        report.unreadable = str(e)
    from .replay import reading_problems

    report.problems = reading_problems(record) + problems
    return report


def _replay_job(args: tuple[Any, ...]) -> FileReport:
    return replay_file(*args)


#: Archives smaller than this (bytes) are validated on one thread (see :func:`validate_paths`).
SMALL_ARCHIVE = 4 << 20


#: Files a thread looks at in one task (see :func:`validate_paths`).
LOOK_RUN = 32


def _total_size(files: list[str]) -> int:
    total = 0
    for f in files:
        try:
            total += os.path.getsize(f) if f != "-" else SMALL_ARCHIVE
        except OSError:
            pass
    return total


def validate_paths(files: list[str], rules: str | None = None, options: Mapping[str, str] | None = None,
                   lenient: bool = False, jobs: int = 1, encoding: str | None = None,
                   stdin: bytes | None = None) -> Iterator[FileReport]:
    """Validate ``files`` (see :func:`expand_paths`; ``-`` is ``stdin``),
    yielding reports in order.

    The compiled core looks at the files first, on ``jobs`` threads (it
    releases the interpreter while it reads); the files it does not vouch for
    are replayed, in ``jobs`` worker processes when there are several.  An
    archive under :data:`SMALL_ARCHIVE` bytes is done on one thread: starting
    more costs more than they save."""
    work = [(f, rules, dict(options or {}), lenient, encoding, stdin if f == "-" else None) for f in files]
    jobs = max(1, min(jobs, len(work), os.cpu_count() or 1))
    if jobs > 1 and _total_size(files) < SMALL_ARCHIVE:
        jobs = 1
    runs = [work[i:i + LOOK_RUN] for i in range(0, len(work), LOOK_RUN)]
    if jobs == 1:
        for run in runs:
            for w, quick in zip(run, vouched_many([(w[0], w[5]) for w in run], rules, options, encoding)):
                yield quick or replay_file(*w)
        return
    from concurrent.futures import Future, ThreadPoolExecutor

    pool = None  # started at the first file that needs the replay
    pending: deque[Future[FileReport]] = deque()  # reports, in file order
    try:
        with ThreadPoolExecutor(jobs) as threads:
            # files looked at in runs of LOOK_RUN a thread: a file's own task costs more than its look
            looks = deque((run, threads.submit(vouched_many, [(w[0], w[5]) for w in run], rules, options, encoding))
                          for run in runs)
            while looks or pending:
                while looks and looks[0][1].done():
                    run, look = looks.popleft()
                    for w, quick in zip(run, look.result()):
                        if quick is None:
                            if pool is None:
                                from .._workers import worker_pool  # (a process pool only when asked for)

                                pool = worker_pool(jobs)
                            pending.append(pool.submit(_replay_job, w))
                        else:
                            done: Future[FileReport] = Future()
                            done.set_result(quick)
                            pending.append(done)
                while pending and pending[0].done():
                    yield pending.popleft().result()
                if pending and not looks:
                    yield pending.popleft().result()
                elif looks:
                    looks[0][1].result()  # wait for the next run of looks
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
