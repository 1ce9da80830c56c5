"""The compiled core of the rules (``nardtools._core``), and how Python talks to it.

The core implements the rules once, in C, for every fast path; the readable
Python reference (:mod:`nardtools.engine`, :mod:`nardtools.game`) is the
specification it follows and the fallback when it was not built.  ``CORE`` is
the extension module, or ``None`` when it is absent or
``NARDTOOLS_ENGINE=reference`` asks for the reference alone.

>>> from nardtools.rules import find_ruleset
>>> len(pack_rules(find_ruleset("long").rules))
120
"""

from __future__ import annotations

import contextlib
import functools
import os
import struct
from collections.abc import Iterator
from types import ModuleType

from .outcome import BACKGAMMON_KINDS, LONG_KINDS, points_for
from .rules import Rules

CORE: ModuleType | None = None
if os.environ.get("NARDTOOLS_ENGINE", "") != "reference":
    try:
        from . import _core as CORE
    except ImportError:  # pragma: no cover - built without a C compiler
        CORE = None

_IN_USE = [True]  # False within reference_engine()


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


#: The most threads a batch is split over: the compiled core's limit, and
#: 16 without the core (whose passes all run in one thread).
MOST_THREADS: int = CORE.MOST_THREADS if CORE is not None else 16


def forward_threads(n: int) -> int:
    """Split the networks' large forward passes (a thousand positions or
    more: a match's luck, a look-ahead) and the rolls' results of many
    boards over up to ``n`` threads, 1 to 16; the number before.  The
    outputs are the same whatever ``n`` is.  A process uses every CPU it may
    (:func:`usable_cpus`) or ``NARDTOOLS_THREADS`` (:func:`threads_setting`),
    a worker of a process pool one (:func:`single_threaded`): the pool has
    already spread the work.

    >>> before = forward_threads(1); forward_threads(before)
    1
    """
    if CORE is None:
        return 1
    return int(CORE.net_threads(n))


def single_threaded() -> None:
    """A process pool's initializer: its worker's forward passes stay in one thread."""
    forward_threads(1)


def threads_setting(text: str | None) -> tuple[int, str | None]:
    """The threads a process splits its large batches over: ``text`` (the
    ``NARDTOOLS_THREADS`` variable: a whole number from 1 to 16) where it is
    set, else every CPU it may use (up to 16); and what is wrong with
    ``text``, if anything (then the default stands, and every command
    refuses to run with that line).

    >>> threads_setting("1"), threads_setting(" 3 ")[0], threads_setting("0")[1]
    ((1, None), 3, 'NARDTOOLS_THREADS=0: expected a whole number of threads from 1 to 16')
    """
    default = max(1, min(usable_cpus(), MOST_THREADS))
    if text is None or not text.strip():
        return default, None
    try:
        n = int(text.strip())
    except ValueError:
        n = 0
    if not 1 <= n <= MOST_THREADS:
        return default, f"NARDTOOLS_THREADS={text}: expected a whole number of threads from 1 to {MOST_THREADS}"
    return n, None


#: What is wrong with this process's ``NARDTOOLS_THREADS``, if anything
#: (:func:`threads_setting`), with the compiled core or without.
THREADS_PROBLEM: str | None
_THREADS, THREADS_PROBLEM = threads_setting(os.environ.get("NARDTOOLS_THREADS"))
if CORE is not None:
    CORE.net_threads(_THREADS)


def compiled() -> ModuleType | None:
    """The compiled core for the rules' fast paths (legal plays, judgements,
    records, playouts, self-play): ``CORE``, or ``None`` within
    :func:`reference_engine` as where it was not built."""
    return CORE if _IN_USE[0] else None


@contextlib.contextmanager
def reference_engine() -> Iterator[None]:
    """Within it, every path that would ask the compiled core about the rules
    asks the readable reference instead, even where the core is built (for
    checking the core): legal plays, judgements, ``validate``'s and
    ``stats``' compiled check of records, playouts and self-play.

    >>> from nardtools import Position, Roll, legal_plays
    >>> with reference_engine():
    ...     len(legal_plays(Position.start(), Roll(3, 1), "backgammon")), compiled()
    (16, None)
    """
    before = _IN_USE[0]
    _IN_USE[0] = False
    try:
        yield
    finally:
        _IN_USE[0] = before

_HEAD = {"general": 0, "doubles-list": 1, "none": 2}
_BLOCK = {"none": 0, "ahead": 1, "opponent-in-home": 2}
_KOKS = {"start-quarter": 0, "head": 1, "none": 2}
_START = {"backgammon": 0, "nackgammon": 1, "hypergammon": 2, "tricktrack": 3, "long": 4}
_CRAZY = {"none": 0, "twice": 2, "four-times": 4}


@functools.lru_cache(maxsize=256)
def pack_rules(rules: Rules) -> bytes:
    """The options as the core reads them (``core.h``: the R_* order), int32 each."""
    kinds = LONG_KINDS if rules.is_long else BACKGAMMON_KINDS + BACKGAMMON_KINDS[-1:]
    values = [
        rules.is_long, rules.hitting, rules.hit_after_home, rules.bar_first, rules.move_inside_home,
        rules.remainder == "opponent", rules.double_reroll, _CRAZY[rules.crazy_doubles], rules.head_limit,
        _HEAD[rules.head], _BLOCK[rules.block], rules.block_check == "every-step", rules.block_path == "mover",
        rules.caucasian, rules.bear_off == "exact", rules.opening == "reroll", _KOKS[rules.koks], rules.cube,
        rules.cube_limit, rules.beaver, rules.jacoby, rules.crawford, rules.auto_doubles, rules.dead_cube,
        rules.condone_illegal, _START[rules.start], *(points_for(k, rules) for k in kinds),
    ]
    return struct.pack(f"<{len(values)}i", *(int(v) for v in values))
