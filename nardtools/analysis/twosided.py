"""Exact two-sided race odds for small bear-offs, and how far the one-sided
formula is from them.

The one-sided formula (:mod:`.race`) treats the two sides as independent: each
plays to minimise its own expected rolls.  The exact answer lets each side
play to maximise its chance of winning against the other's actual position.
:func:`two_sided_table` computes that exactly (cubeless, no gammons) for every
pair of positions with at most ``checkers`` checkers each on points 1..6, by
dynamic programming over pip totals (a play always lowers the total), in the
compiled core (or its readable reference, ``_bearoff_reference``).

>>> table = two_sided_table(2)
>>> round(table.p_win((0, 0, 0, 0, 0, 2), (0, 1, 0, 0, 0, 0)), 6)  # 6-6 alone: 4 doubles bear off 2 from the 6
0.111111
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Sequence

import numpy as np

from ..errors import AnalysisError
from ..position import Position
from .bearoff import _kernel, boards, position_index

#: The largest table computed on request (pairs of positions of up to 6 checkers: 853,776 states).
MAX_CHECKERS = 6


@dataclass(frozen=True)
class TwoSidedTable:
    """Exact P(win) for the side on roll, for positions of up to ``checkers``
    checkers each on the six home points."""

    checkers: int
    boards: np.ndarray
    win: np.ndarray

    def index(self, counts: Sequence[int]) -> int:
        counts = tuple(counts) + (0,) * (6 - len(counts))
        if len(counts) > 6 or sum(counts) > self.checkers:
            raise AnalysisError(f"{counts} does not fit the {self.checkers}-checker two-sided table")
        return position_index(counts, 6)

    def p_win(self, mover: Sequence[int], opponent: Sequence[int]) -> float:
        return float(self.win[self.index(mover), self.index(opponent)])


@lru_cache(None)
def two_sided_table(checkers: int) -> TwoSidedTable:
    """The exact table for up to ``checkers`` checkers a side (at most
    :data:`MAX_CHECKERS`)."""
    if not 1 <= checkers <= MAX_CHECKERS:
        raise AnalysisError(f"two-sided tables cover 1 to {MAX_CHECKERS} checkers a side")
    m = comb(6 + checkers, checkers)
    rows = np.ascontiguousarray(boards(6)[:m])  # index order: fewer checkers first
    pips = (rows * np.arange(1, 7)).sum(axis=1)
    totals = (pips[:, None] + pips[None, :]).ravel()
    order = np.argsort(totals, kind="stable").astype(np.int64)
    win = np.zeros((m, m))
    _kernel().bearoff_two_sided(rows, order, win)
    return TwoSidedTable(checkers, rows, win)


def one_sided_error(checkers: int) -> tuple[float, tuple[int, ...], tuple[int, ...], float, float]:
    """The largest |one-sided − two-sided| P(win) over every pair of positions
    of up to ``checkers`` checkers: (difference, mover, opponent, one-sided, exact)."""
    from .bearoff import BearoffDatabase

    table = two_sided_table(checkers)
    db = BearoffDatabase.build(6)
    m = table.boards.shape[0]
    dist = np.asarray(db.dist[:m], np.float64)
    tails = dist[:, ::-1].cumsum(axis=1)[:, ::-1]  # P(needs >= n)
    one = dist @ tails.T  # one[i, j] = sum_n P_i(n) P_j(>= n)
    diff = np.abs(one - table.win)
    diff[0, :] = diff[:, 0] = 0.0
    i, j = np.unravel_index(int(diff.argmax()), diff.shape)
    return (float(diff[i, j]), tuple(int(x) for x in table.boards[i]), tuple(int(x) for x in table.boards[j]),
            float(one[i, j]), float(table.win[i, j]))


def exact_p_win(position: Position) -> float:
    """Exact two-sided P(win) for the side on roll of ``position`` (both sides
    home, at most :data:`MAX_CHECKERS` checkers each; ValueError otherwise)."""
    sides = [position.mover, position.opponent]
    if any(side[25] or any(side[7:25]) for side in sides):
        raise AnalysisError("the exact two-sided table needs both sides home (points 1-6)")
    n = max(sum(side[1:7]) for side in sides)
    if n > MAX_CHECKERS:
        raise AnalysisError(f"the exact two-sided table covers at most {MAX_CHECKERS} checkers a side, not {n}")
    return two_sided_table(max(n, 1)).p_win(position.mover[1:7], position.opponent[1:7])
