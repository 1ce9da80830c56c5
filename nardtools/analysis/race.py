"""Race odds from one-sided distributions (RACE.md section 2).

Each side's distribution of rolls to bear off (and to its first checker off,
and until all its checkers are home) comes from the bear-off database when the
side fits it (the smallest cached database both sides fit, else the 6-point one,
built on first use) — then the odds are
*exact* under the one-sided formula — and otherwise from one-sided rollouts
(the side plays alone, bringing checkers home as fast as it can, then by the
database), which is an estimate reported with its standard error.

The side on roll (index 0) rolls first, so it wins when it needs no more rolls
than the other side::

    P(win)        = sum_i Pm(i) * sum_{j >= i} Po(j)
    P(gammon)     = sum_i Pm(i) * sum_{j >= i} Go(j)     (the other side has all 15)
    P(lose gammon)= sum_i Po(i) * sum_{j >= i+1} Gm(j)   (the side on roll has all 15)

Long Nardy's home mars (домашний марс: the loser has no checker off but all 15
home) needs the loser's rolls until all are home, H: since H comes before the
first checker off, P(H <= m < G) = P(G > m) - P(H > m), and

    P(home mars)  = sum_i Pm(i) * (sum_{j >= i} Go(j) - sum_{j >= i} Ho(j))

(a heuristic in the same way as gnubg's gammons: each distribution comes from
its own minimising policy).  ``expected_points`` values every outcome by the
ruleset's scoring table, at cube 1.

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

from ..errors import AnalysisError
from ..position import BAR, OFF, GameKind, Position
from .bearoff import MAX_ROLLS, BearoffDatabase
from .pips import is_race


class NotARaceError(AnalysisError):
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
    all_home: np.ndarray = field(default_factory=lambda: _point_mass())  # P(all home after exactly n rolls)

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
    p_home_mars: float = 0.0  # Long Nardy: a win in which the loser has all 15 home, none off
    p_lose_home_mars: float = 0.0
    expected_points: float | None = None  # under the ruleset's scoring table, cube 1
    db_points: int = 6

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``nardtools race --format json``."""
        return {"exact": self.exact, "p_win": self.p_win, "p_gammon": self.p_gammon,
                "p_lose_gammon": self.p_lose_gammon, "p_home_mars": self.p_home_mars,
                "p_lose_home_mars": self.p_lose_home_mars, "expected_points": self.expected_points,
                "method": self.method, "stderr": self.stderr, "trials": self.trials,
                "database_points": self.db_points, "notes": self.notes,
                "sides": [s.as_dict() for s in self.sides]}


def fits(side: tuple[int, ...], points: int) -> bool:
    """Whether one side (own numbering) fits a ``points``-point bear-off database."""
    return not side[BAR] and not any(side[points + 1:25])


def _side_exact(side: tuple[int, ...], db: BearoffDatabase) -> SideRace:
    i = db.index(side[1:db.points + 1])
    pips = sum(p * side[p] for p in range(1, 25))
    mean = float(db.mean[i])
    full = side[OFF] == 0  # nothing off yet: a gammon (mars) can still happen, whatever the checkers
    first = _padded(db.gammon_dist[i]) if full else _point_mass()
    home = _padded(db.home_dist[i]) if full else _point_mass()
    return SideRace(pips, mean, mean * 49 / 6, _padded(db.dist[i]), first, True, home)


def _point_mass() -> np.ndarray:
    a = np.zeros(MAX_ROLLS)
    a[0] = 1.0
    return a


def _rollout(side: tuple[int, ...], kind: GameKind, db: BearoffDatabase, trials: int,
             rng: random.Random) -> SideRace:
    """The side alone, until it fits the database: each roll brings checkers
    home as fast as possible (least pips still outside the home, then least
    pips); from there the database's distributions take over (database leaves)."""
    from ..dice import Roll
    from ..engine import legal_plays
    from ..rules import find_ruleset

    rules = find_ruleset("backgammon" if kind is GameKind.BACKGAMMON else "long").rules.with_options(
        {"block": "none", "head-limit": "0"} if kind is GameKind.LONG else {})
    empty = tuple([15] + [0] * 25)
    dist, first, home = np.zeros(MAX_ROLLS), np.zeros(MAX_ROLLS), np.zeros(MAX_ROLLS)
    full = side[OFF] == 0
    for _ in range(trials):
        me = side
        rolls = 0
        home_at = 0 if _all_home(me) else -1
        while not fits(me, db.points):
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(Position(kind, me, empty), roll, rules, first_turn=False)
            me = min((lp.result.opponent for lp in plays), key=lambda s: _heuristic(s, db))
            rolls += 1
            if home_at < 0 and _all_home(me):
                home_at = rolls
        i = db.index(me[1:db.points + 1])
        _add_shifted(dist, db.dist[i], rolls)
        if full:  # nothing comes off before the side is home, so it still has 15 here
            _add_shifted(first, db.gammon_dist[i], rolls)
            if home_at >= 0:
                home[min(home_at, MAX_ROLLS - 1)] += 1
            else:
                _add_shifted(home, db.home_dist[i], rolls)
    dist /= trials
    mean = float((dist * np.arange(MAX_ROLLS)).sum())
    pips = sum(p * side[p] for p in range(1, 26))
    if not full:  # a checker is already off: no mars, no home mars
        return SideRace(pips, mean, mean * 49 / 6, dist, _point_mass(), False, _point_mass())
    return SideRace(pips, mean, mean * 49 / 6, dist, first / trials, False, home / trials)


def _add_shifted(total: np.ndarray, row: np.ndarray, by: int) -> None:
    """``total[by + n] += row[n]`` (the last cell collects any overflow)."""
    row = np.asarray(row, np.float64)
    width = min(len(row), MAX_ROLLS - by)
    total[by:by + width] += row[:width]
    total[-1] += row[width:].sum()


def _all_home(side: tuple[int, ...]) -> bool:
    return not side[BAR] and not any(side[7:25])


def _heuristic(side: tuple[int, ...], db: BearoffDatabase) -> tuple[float, float]:
    outside = sum((p - 6) * side[p] for p in range(7, 26))
    if outside == 0 and fits(side, db.points):
        return (0.0, float(db.mean[db.index(side[1:db.points + 1])]))
    return (float(outside), float(sum(p * side[p] for p in range(1, 26))))


def _padded(a: np.ndarray) -> np.ndarray:
    out = np.zeros(MAX_ROLLS)
    out[:len(a)] = a
    return out


def choose_database(position: Position, db_points: int | None = None) -> int:
    """The database size for ``position``: ``db_points`` when given, else the
    smallest cached database both sides fit, else the largest cached one, else 6."""
    from .bearoff import cached_points

    if db_points:
        return db_points
    cached = [p for p in cached_points() if p >= 6]
    fitting = [p for p in cached if fits(position.mover, p) and fits(position.opponent, p)]
    return min(fitting) if fitting else max(cached, default=6)


def race_odds(position: Position, *, db_points: int | None = None, trials: int = 2000, seed: int = 1,
              rules: Any = None) -> RaceOdds:
    """Race odds for the side on roll; raises :class:`NotARaceError` with contact.

    ``db_points`` picks the bear-off database (see :func:`choose_database`);
    ``rules`` (a :class:`~nardtools.rules.Rules`) values the outcomes for
    ``expected_points`` (default: the game's usual table)."""
    if not is_race(position):
        raise NotARaceError(f"not a race: the sides can still meet in {position}")
    points = choose_database(position, db_points)
    db = BearoffDatabase.cached(points)
    rng = random.Random(seed)
    sides = []
    for side in (position.mover, position.opponent):
        if fits(side, db.points):
            sides.append(_side_exact(side, db))
        else:
            sides.append(_rollout(side, position.kind, db, trials, rng))
    pm, po, gm, go, hm, ho = (_padded(a) for a in (sides[0].distribution, sides[1].distribution,
                                                   sides[0].first_off, sides[1].first_off,
                                                   sides[0].all_home, sides[1].all_home))
    tail = {name: a[::-1].cumsum()[::-1] for name, a in
            (("po", po), ("go", go), ("gm", gm), ("ho", ho), ("hm", hm))}  # P(needs >= j)
    p_win = float((pm * tail["po"]).sum())
    opponent_full = position.opponent[OFF] == 0  # (a gammon needs no checker off: hypergammon has three)
    mover_full = position.mover[OFF] == 0
    p_gammon = float((pm * tail["go"]).sum()) if opponent_full else 0.0
    p_lose_gammon = float((po[:-1] * tail["gm"][1:]).sum()) if mover_full else 0.0
    p_home_mars = p_lose_home_mars = 0.0
    if position.kind is GameKind.LONG:
        if opponent_full:
            p_home_mars = max(0.0, float((pm * (tail["go"] - tail["ho"])).sum()))
        if mover_full:
            p_lose_home_mars = max(0.0, float((po[:-1] * (tail["gm"][1:] - tail["hm"][1:])).sum()))
    exact = all(s.exact for s in sides)
    stderr = None if exact else math.sqrt(max(p_win * (1 - p_win), 1e-12) / trials)
    method = ("exact one-sided formula, both sides in the "
              f"{db.points}-point database" if exact else
              f"estimate: one-sided rollouts ({trials} trials, database leaves) for the side(s) outside "
              f"the {db.points}-point database")
    odds = RaceOdds(exact, p_win, p_gammon, p_lose_gammon, sides, method, stderr,
                    0 if exact else trials, p_home_mars=p_home_mars, p_lose_home_mars=p_lose_home_mars,
                    db_points=db.points)
    if not exact and position.kind is GameKind.LONG and db.points < 12:
        odds.notes.append("`nardtools bearoff build --points 12` makes every Long Nardy race exact")
    if _block_binds(position, rules):
        odds.exact = False
        odds.notes.append("block=opponent-in-home: a side may not build six points in a row while the "
                          "other has no checker home or off; the one-sided tables ignore that restriction, "
                          "so these odds are an approximation until both sides have a checker home")
    odds.expected_points = expected_points(odds, position, rules)
    return odds


def _block_binds(position: Position, rules: Any) -> bool:
    """Whether the ``opponent-in-home`` six-block reading can still restrict a
    side of this Long Nardy race (the other side has nothing home and nothing off)."""
    if rules is None or position.kind is not GameKind.LONG or getattr(rules, "block", "") != "opponent-in-home":
        return False
    return any(sum(side[0:7]) == 0 for side in (position.mover, position.opponent))


def outcome_values(rules: Any) -> tuple[int, int, int]:
    """Points of a single win (oin), a gammon or mars, and a home mars at cube 1
    under the scoring table of ``rules`` (backgammon has no home mars: a gammon)."""
    from ..outcome import OutcomeKind, points_for

    if rules.is_long:
        return (points_for(OutcomeKind.OIN, rules), points_for(OutcomeKind.MARS, rules),
                points_for(OutcomeKind.HOME_MARS, rules))
    gammon = points_for(OutcomeKind.GAMMON, rules)
    return points_for(OutcomeKind.SINGLE, rules), gammon, gammon


def valued_outcomes(odds: RaceOdds, values: tuple[float, float, float]) -> tuple[float, float]:
    """Expected points won and lost by the side on roll at cube 1, a single, a
    gammon/mars and a home mars worth ``values``."""
    single, gammon, home = values
    p, q = odds.p_win, 1 - odds.p_win
    won = (p - odds.p_gammon) * single + (odds.p_gammon - odds.p_home_mars) * gammon + odds.p_home_mars * home
    lost = ((q - odds.p_lose_gammon) * single + (odds.p_lose_gammon - odds.p_lose_home_mars) * gammon
            + odds.p_lose_home_mars * home)
    return won, lost


def expected_points(odds: RaceOdds, position: Position, rules: Any = None) -> float:
    """Points the side on roll expects at cube 1, every outcome valued by the
    scoring table of ``rules`` (default: the game's usual ruleset)."""
    from ..rules import find_ruleset

    if rules is None:
        rules = find_ruleset("long" if position.kind is GameKind.LONG else "backgammon").rules
    won, lost = valued_outcomes(odds, outcome_values(rules))
    return won - lost
