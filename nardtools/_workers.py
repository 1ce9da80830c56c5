"""Worker processes for the commands that spread files over every core.

Workers ignore Ctrl-C: the terminal sends SIGINT to the whole process group,
and only the parent should answer it (by cancelling what is left and exiting
with one line), not every worker with a traceback of its own.
"""

from __future__ import annotations

import signal
from concurrent.futures import ProcessPoolExecutor


def _quiet_worker() -> None:
    """A worker: no Ctrl-C of its own, and its forward passes in one thread (the pool spreads the work)."""
    from .core import single_threaded

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    single_threaded()


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    """A process pool of ``jobs`` workers that leave interruptions to the parent."""
    return ProcessPoolExecutor(jobs, initializer=_quiet_worker)
