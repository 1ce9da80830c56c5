"""The compiled core of the rules (``nardtools._core``), and how Python talks to it.

The core implements the rules once, in C, for every fast path; the readable
Python reference (:mod:`nardtools.turn`, :mod:`nardtools.engine`,
:mod:`nardtools.judge`, :mod:`nardtools.game`) is the specification it
follows and the fallback when it was not built.  ``CORE`` is
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

#: The rules' options in the order the core reads them (``core.h``:
#: ``RULE_FIELDS``), each by the name :func:`pack_rules` gives it.
RULE_FIELDS = (
    "long", "hitting", "hit_after_home", "bar_first", "move_inside_home", "remainder_opponent", "double_reroll",
    "crazy_doubles", "head_limit", "head", "block", "block_every_step", "block_mover_path", "caucasian",
    "exact_bear_off", "opening_reroll", "koks", "cube", "cube_limit", "beaver", "jacoby", "crawford",
    "auto_doubles", "dead_cube", "condone_illegal", "start", "points_1", "points_2", "points_3", "points_4",
)

CORE: ModuleType | None = None
if os.environ.get("NARDTOOLS_ENGINE", "") != "reference":
    try:
        from . import _core as CORE
    except ImportError:  # pragma: no cover - built without a C compiler
        CORE = None
if CORE is not None and getattr(CORE, "RULE_FIELDS", None) != RULE_FIELDS:  # pragma: no cover - a stale build
    import warnings

    warnings.warn(f"nardtools._core reads the rules as {getattr(CORE, 'RULE_FIELDS', 'unnamed numbers')}, "
                  f"not as nardtools.core.RULE_FIELDS: a build of other sources; the readable reference is used "
                  f"(rebuild with `python -m pip install -e .`)", RuntimeWarning, stacklevel=1)
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
    """The options as the core reads them, int32 each, in the order of
    :data:`RULE_FIELDS` (``core.h``'s, checked when the core is loaded)."""
    kinds = LONG_KINDS if rules.is_long else BACKGAMMON_KINDS + BACKGAMMON_KINDS[-1:]
    named = {
        "long": rules.is_long, "hitting": rules.hitting, "hit_after_home": rules.hit_after_home,
        "bar_first": rules.bar_first, "move_inside_home": rules.move_inside_home,
        "remainder_opponent": rules.remainder == "opponent", "double_reroll": rules.double_reroll,
        "crazy_doubles": _CRAZY[rules.crazy_doubles], "head_limit": rules.head_limit, "head": _HEAD[rules.head],
        "block": _BLOCK[rules.block], "block_every_step": rules.block_check == "every-step",
        "block_mover_path": rules.block_path == "mover", "caucasian": rules.caucasian,
        "exact_bear_off": rules.bear_off == "exact", "opening_reroll": rules.opening == "reroll",
        "koks": _KOKS[rules.koks], "cube": rules.cube, "cube_limit": rules.cube_limit, "beaver": rules.beaver,
        "jacoby": rules.jacoby, "crawford": rules.crawford, "auto_doubles": rules.auto_doubles,
        "dead_cube": rules.dead_cube, "condone_illegal": rules.condone_illegal, "start": _START[rules.start],
        **{f"points_{i}": points_for(k, rules) for i, k in enumerate(kinds, 1)},
    }
    values = [named[field] for field in RULE_FIELDS]
    return struct.pack(f"<{len(values)}i", *(int(v) for v in values))
