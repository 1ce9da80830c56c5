"""Race odds from one-sided distributions (RACE.md section 2).

Each side's distribution of rolls to bear off (and to its first checker off)
comes from the bear-off database when the side fits it — then the odds are
*exact* under the one-sided formula — and otherwise from one-sided rollouts
(the side plays alone, bringing checkers home as fast as it can, then by the
database), which is an estimate reported with its standard error.

The side on roll (index 0) rolls first, so it wins when it needs no more rolls
than the other side::

    P(win)        = sum_i Pm(i) * sum_{j >= i} Po(j)
    P(gammon)     = sum_i Pm(i) * sum_{j >= i} Go(j)     (the other side has all 15)
    P(lose gammon)= sum_i Po(i) * sum_{j >= i+1} Gm(j)   (the side on roll has all 15)

>>> from nardtools import Position
>>> odds = race_odds(Position.parse("backgammon X 6:1 / 6:15"))
>>> odds.exact, round(odds.p_gammon, 6) == round(127 / 144, 6)
(True, True)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import NardtoolsError
from ..position import BAR, GameKind, Position
from .bearoff import MAX_ROLLS, BearoffDatabase
from .pips import is_race


class NotARaceError(NardtoolsError, ValueError):
    """Race odds were asked for a position with contact."""


@dataclass
class SideRace:
    """One side's race figures."""

    pips: int
    expected_rolls: float
    epc: float
    distribution: np.ndarray  # P(all off in exactly n rolls)
    first_off: np.ndarray  # P(first checker off in exactly n rolls)
    exact: bool

    def as_dict(self) -> dict[str, Any]:
        last = int(np.nonzero(self.distribution)[0].max()) + 1 if self.distribution.any() else 1
        return {"pips": self.pips, "expected_rolls": self.expected_rolls, "epc": self.epc,
                "exact": self.exact, "distribution": [float(x) for x in self.distribution[:last]]}


@dataclass
class RaceOdds:
    """Odds of a race for the side on roll (``sides[0]``) and its opponent."""

    exact: bool
    p_win: float
    p_gammon: float
    p_lose_gammon: float
    sides: list[SideRace]
    method: str
    stderr: float | None = None  # of p_win, for an estimate
    trials: int = 0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``nardtools race --format json``."""
        return {"exact": self.exact, "p_win": self.p_win, "p_gammon": self.p_gammon,
                "p_lose_gammon": self.p_lose_gammon, "method": self.method, "stderr": self.stderr,
                "trials": self.trials, "sides": [s.as_dict() for s in self.sides]}


def _fits(side: tuple[int, ...], points: int) -> bool:
    return not side[BAR] and not any(side[points + 1:25])


def _side_exact(side: tuple[int, ...], db: BearoffDatabase) -> SideRace:
    i = db.index(side[1:db.points + 1])
    pips = sum(p * side[p] for p in range(1, 25))
    mean = float(db.mean[i])
    first = db.gammon_dist[i] if sum(side[1:25]) == 15 else _point_mass()
    first = first.astype(np.float64)
    return SideRace(pips, mean, mean * 49 / 6, db.dist[i], first, True)


def _point_mass() -> np.ndarray:
    a = np.zeros(MAX_ROLLS)
    a[0] = 1.0
    return a


def _rollout(side: tuple[int, ...], kind: GameKind, db: BearoffDatabase, trials: int,
             rng: random.Random) -> SideRace:
    """The side alone: each roll brings checkers home as fast as possible (least
    pips still outside the home), then plays by the database."""
    from ..dice import Roll
    from ..engine import legal_plays
    from ..rules import find_ruleset

    rules = find_ruleset("backgammon" if kind is GameKind.BACKGAMMON else "long").rules.with_options(
        {"block": "none", "head-limit": "0"} if kind is GameKind.LONG else {})
    empty = tuple([15] + [0] * 25)
    counts = np.zeros(MAX_ROLLS)
    first = np.zeros(MAX_ROLLS)
    full = sum(side[1:26]) == 15
    for _ in range(trials):
        me = side
        rolls = 0
        first_off = 0 if not full else -1
        while sum(me[1:26]):
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(Position(kind, me, empty), roll, rules, first_turn=False)
            me = min((lp.result.opponent for lp in plays), key=lambda s: _heuristic(s, db))
            rolls += 1
            if first_off < 0 and me[0] > side[0]:
                first_off = rolls
        counts[min(rolls, MAX_ROLLS - 1)] += 1
        first[min(max(first_off, 0), MAX_ROLLS - 1)] += 1
    dist = counts / trials
    mean = float((dist * np.arange(MAX_ROLLS)).sum())
    pips = sum(p * side[p] for p in range(1, 26))
    return SideRace(pips, mean, mean * 49 / 6, dist, first / trials, False)


def _heuristic(side: tuple[int, ...], db: BearoffDatabase) -> tuple[float, float]:
    outside = sum((p - 6) * side[p] for p in range(7, 26))
    if outside == 0 and _fits(side, db.points):
        return (0.0, float(db.mean[db.index(side[1:db.points + 1])]))
    return (float(outside), float(sum(p * side[p] for p in range(1, 26))))


def _padded(a: np.ndarray) -> np.ndarray:
    out = np.zeros(MAX_ROLLS)
    out[:len(a)] = a
    return out


def race_odds(position: Position, *, db_points: int = 6, trials: int = 2000, seed: int = 1) -> RaceOdds:
    """Race odds for the side on roll; raises :class:`NotARaceError` with contact."""
    if not is_race(position):
        raise NotARaceError(f"not a race: the sides can still meet in {position}")
    db = BearoffDatabase.cached(db_points)
    rng = random.Random(seed)
    sides = []
    for side in (position.mover, position.opponent):
        if _fits(side, db.points):
            sides.append(_side_exact(side, db))
        else:
            sides.append(_rollout(side, position.kind, db, trials, rng))
    pm, po, gm, go = (_padded(a) for a in (sides[0].distribution, sides[1].distribution,
                                           sides[0].first_off, sides[1].first_off))
    tail_o = po[::-1].cumsum()[::-1]  # P(opponent needs >= j)
    tail_go = go[::-1].cumsum()[::-1]
    tail_gm = gm[::-1].cumsum()[::-1]
    p_win = float((pm * tail_o).sum())
    p_gammon = float((pm * tail_go).sum()) if sum(position.opponent[1:26]) == 15 else 0.0
    p_lose_gammon = float((po[:-1] * tail_gm[1:]).sum()) if sum(position.mover[1:26]) == 15 else 0.0
    exact = all(s.exact for s in sides)
    stderr = None if exact else math.sqrt(max(p_win * (1 - p_win), 1e-12) / trials)
    method = ("exact one-sided formula, both sides in the "
              f"{db.points}-point database" if exact else
              f"estimate: one-sided rollouts ({trials} trials) for the side(s) outside the "
              f"{db.points}-point database")
    return RaceOdds(exact, p_win, p_gammon, p_lose_gammon, sides, method, stderr,
                    0 if exact else trials)
