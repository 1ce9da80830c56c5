"""Board rows: positions as the (n, 52) int8 arrays the look-ahead,
self-play, rollouts and training step, and what is known of a row without a
network (each side's furthest checker, a finished game, a race's reach)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..position import Position

def boards_of(positions: Iterable[Position]) -> np.ndarray:
    """Positions as the (n, 52) int8 rows the encoder reads: the side on roll's
    26 counts, then the other side's (0 off, 1-24, 25 bar; own numbering)."""
    return np.array([tuple(p.mover) + tuple(p.opponent) for p in positions], np.int8).reshape(-1, 52)


def furthest(rows: np.ndarray) -> np.ndarray:
    """Each side's furthest checker from home in board rows (n, 52): the
    highest point 1-25 (25 the bar) that holds one, 0 when the side has none
    left in play; (n, 2) int8, by the compiled core where it is in use.

    >>> furthest(np.array([[0, 0, 3] + [0] * 23 + [15] + [0] * 25], np.int8)).tolist()
    [[2, 0]]
    """
    from ..core import compiled

    rows = np.ascontiguousarray(rows, np.int8).reshape(-1, 52)
    core = compiled()
    if core is not None:
        out = np.empty((len(rows), 2), np.int8)
        core.furthest(rows, out)
        return out
    held = rows.reshape(-1, 2, 26)[:, :, :0:-1] != 0   # points 25 down to 1
    return np.where(held.any(axis=2), 25 - held.argmax(axis=2), 0).astype(np.int8)


def finished(rows: np.ndarray) -> np.ndarray:
    """Which rows (n, 52) are finished games: a side has no checker left in
    play (whatever the ruleset's number of checkers: hypergammon has three)."""
    return (furthest(rows) == 0).any(axis=1)  # type: ignore[no-any-return]


def mover_won(rows: np.ndarray) -> Any:
    """Whether the side that just played (each row's second half) has borne
    off its last checker: for one row (52) or many (n, 52)."""
    rows = np.asarray(rows)
    won = furthest(rows)[:, 1] == 0
    return won[0] if rows.ndim == 1 else won


def in_domain(rows: np.ndarray, points: int) -> np.ndarray:
    """Which board rows (n, 52) are unfinished races with both sides within
    ``points`` points (none beyond, none on the bar); for ``points`` <= 12
    such sides can never meet again, in either game.

    >>> rows = np.zeros((2, 52), np.int8)
    >>> rows[0, 6], rows[0, 26 + 3] = 15, 15        # both sides home: a race within 6 points
    >>> rows[1, 24], rows[1, 26 + 3] = 15, 15       # one side still on its 24-point
    >>> in_domain(rows, 6).tolist()
    [True, False]
    """
    reach = race_reach(rows)
    return (reach > 0) & (reach <= points)


def race_reach(rows: np.ndarray) -> np.ndarray:
    """The furthest point either side of each row (n, 52) still holds (25:
    the bar), 0 for a finished game: a row is in :func:`in_domain` of
    ``points`` when its reach is 1 to ``points``."""
    far = furthest(rows)
    return np.where((far > 0).all(axis=1), far.max(axis=1), 0)
