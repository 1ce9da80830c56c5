"""Running a collection over many files: local worker processes or a Dask
cluster (:func:`collect`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from ...errors import AnalysisError, NardtoolsError
from .collection import Archive, FileStats, Names, file_stats
from .schema import TurnColumns
from .sinks import GroupSink, RowSink, TableSink

#: Seconds to wait for a Dask scheduler named by ``--scheduler``.
SCHEDULER_TIMEOUT = 5

def run_local(files: Sequence[str], *, turns: bool = False, race_points: int = 6, jobs: int = 1,
              encoding: str | None = None, on_turns: Callable[[TurnColumns], None] | None = None,
              stdin: bytes | None = None, analyse: int | None = None,
              on_game: Callable[[], None] | None = None) -> Iterator[FileStats]:
    """:func:`file_stats` of every file, in order, on ``jobs`` processes.
    A file too large to read at once is replayed here, its turn rows going to
    ``on_turns`` game by game, so that no process holds a whole large file's rows;
    ``on_game`` is called after each game replayed in this process."""
    from collections import deque
    from functools import partial

    from ..._workers import worker_pool

    work = partial(file_stats, turns=turns, race_points=race_points, encoding=encoding, analyse=analyse)
    jobs = max(1, min(jobs, len(files), os.cpu_count() or 1))
    pool = worker_pool(jobs) if jobs > 1 else None
    pending: deque[Any] = deque()   # each a run of files' results: a worker's future, or work for here
    run: list[str] = []   # files for the next worker task: a task of one small file costs more than its work
    size = STATS_RUN if analyse is None else 1

    def here(path: str, data: bytes | None = None) -> Callable[[], list[FileStats]]:
        return lambda: [work(path, on_turns=on_turns, data=data, on_game=on_game)]

    try:
        for k, path in enumerate(files):
            if pool is not None and path != "-" and not _large(path):
                run.append(path)
                if len(run) == size or k == len(files) - 1:
                    pending.append(pool.submit(_file_stats_many, work, run))
                    run = []
            else:
                if run:
                    pending.append(pool.submit(_file_stats_many, work, run))  # type: ignore[union-attr]
                    run = []
                pending.append(here(path, stdin if path == "-" else None))
            while pending and (len(pending) > 2 * jobs or (not callable(pending[0]) and pending[0].done())):
                first = pending.popleft()
                yield from first() if callable(first) else first.result()
        for left in pending:
            yield from left() if callable(left) else left.result()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


#: Small files a worker task of ``stats`` takes at once (one each with ``--analyse``, whose files are slow).
STATS_RUN = 8


def _file_stats_many(work: Callable[[str], FileStats], paths: list[str]) -> list[FileStats]:
    return [work(path) for path in paths]


def _large(path: str) -> bool:
    from ...notation.source import IN_MEMORY

    try:
        return os.path.getsize(path) > IN_MEMORY
    except OSError:
        return False


class ClusterError(NardtoolsError):
    """The Dask scheduler named cannot be reached."""


def run_dask(files: Sequence[str], *, turns: bool = False, race_points: int = 6,
             scheduler: str | None = None, client: Any = None, encoding: str | None = None,
             analyse: int | None = None) -> Iterator[FileStats]:
    """The same on a Dask cluster (one task per file), yielding results as
    they complete: ``scheduler`` is a scheduler address, or a local cluster
    is started; an existing ``client`` may be given instead."""
    from dask.distributed import Client, LocalCluster, as_completed

    own = client is None
    cluster = None
    if own:
        if scheduler:
            try:
                client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)  # type: ignore[no-untyped-call]
            except (OSError, TimeoutError) as e:
                raise ClusterError(f"cannot reach the Dask scheduler at {scheduler} within "
                                   f"{SCHEDULER_TIMEOUT} s ({type(e).__name__}: {e})") from None
        else:
            cluster = LocalCluster(processes=True, n_workers=min(os.cpu_count() or 1, 4),  # type: ignore[no-untyped-call]
                                   threads_per_worker=1, dashboard_address=None)
            client = Client(cluster)  # type: ignore[no-untyped-call]
    try:
        futures = client.map(_file_stats_in_one_thread, list(files), turns=turns, race_points=race_points,
                             encoding=encoding, analyse=analyse, pure=False)
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            yield future.result()
            future.release()
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


def _file_stats_in_one_thread(path: str, **options: Any) -> FileStats:
    """:func:`file_stats` on a Dask worker, its forward passes in one thread:
    the cluster already spreads the files over its workers' threads."""
    from ...core import single_threaded

    single_threaded()
    return file_stats(path, **options)


def collect(paths: Iterable[str | Path], *, turns: bool = False, race_points: int = 6, jobs: int = 1,
            engine: str = "local", scheduler: str | None = None, sink: TableSink | GroupSink | None = None,
            progress: Callable[[FileStats], None] | None = None, encoding: str | None = None,
            names: Names | None = None, stdin: bytes | None = None, analyse: int | None = None,
            on_game: Callable[[], None] | None = None, keep_games: bool = True,
            games_sink: RowSink | None = None) -> Archive:
    """Replay every record under ``paths`` and fold the results into an
    :class:`Archive`.  With ``turns`` the turn rows go to ``sink`` (or are
    kept in memory without one); with ``analyse`` (a ply) the evaluator's
    figures are added (:func:`file_stats`).  ``progress`` is called after
    each file, ``on_game`` after each game replayed in this process.
    Without ``keep_games`` the games' rows are folded into the players'
    results and dropped, so that memory does not grow with the archive; with
    ``games_sink`` they go there as they come (local runs: a Dask cluster
    delivers files out of order, and the table is sorted in memory)."""
    from ...notation.reading import expand_paths

    # each file once (a folder and a file in it, given both, however written, are not counted twice), in
    # the order the tables are sorted in (by the file the rows name): rows streamed as they come are the table's
    once: dict[str, str] = {}
    for f in expand_paths(paths):
        once.setdefault(f if f == "-" else os.path.realpath(f), f)
    files = sorted(once.values(), key=lambda f: "<stdin>" if f == "-" else str(f))
    if games_sink is not None and engine == "dask":
        raise AnalysisError("the games table streams from local runs only (Dask delivers files out of order)")
    archive = Archive(sink=sink, keep_turns=turns and sink is None, keep_games=keep_games, games_sink=games_sink,
                      names=names or Names())
    if engine == "dask":
        stream = run_dask(files, turns=turns, race_points=race_points, scheduler=scheduler, encoding=encoding,
                          analyse=analyse)
    elif engine == "local":
        stream = run_local(files, turns=turns, race_points=race_points, jobs=jobs, encoding=encoding,
                           on_turns=archive.add_turns, stdin=stdin, analyse=analyse, on_game=on_game)
    else:
        raise AnalysisError(f"unknown engine {engine!r}: local or dask")
    for stats in stream:
        archive.add(stats)
        if progress is not None:
            progress(stats)
    archive.games.sort(key=lambda g: (g["file"], g["game"]))  # (dask delivers in completion order)
    return archive
