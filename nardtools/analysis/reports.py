"""What ``nardtools pips`` and ``nardtools race`` report, built in one call.

Each report is a value with ``as_dict()`` (the JSON form); the command line
only renders it.  A report says when part of it does not apply instead of
printing a verdict anyway: the counting rules are for races, the cube
verdicts for rulesets with a cube.

>>> from nardtools.notation.ids import parse_setup
>>> r = pip_report(parse_setup("backgammon X 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5"), epc=False)
>>> [s["pips"] for s in r.as_dict()["sides"]], r.counts, r.counts_note
([167, 167], [], 'the counting rules are for races; this position has contact')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..position import GameKind
from .counts import Count, all_counts
from .pips import SideCount, count, is_race

if TYPE_CHECKING:
    from ..rules import Ruleset
    from ..setup import Setup
    from .cube import CubeHint, MatchEquityTable
    from .race import RaceOdds

_CONTACT = "the counting rules are for races; this position has contact"
_LONG_COUNTS = "the counting rules are backgammon's; Long Nardy has none of its own"


@dataclass
class PipReport:
    """Pip counts of both sides (the side on roll first), effective pip counts
    of sides with every checker home, and the counting rules in a backgammon race."""

    setup: Setup
    sides: tuple[SideCount, SideCount]
    epc: tuple[float | None, float | None]
    counts: list[Count]
    counts_note: str = ""  # why there are no counts

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``nardtools pips --format json``."""
        return {
            "position": str(self.setup.position), "race": is_race(self.setup.position),
            "sides": [{"pips": s.pips, "epc": _round(e), "wastage": _round(e - s.pips) if e is not None else None,
                       "on_board": s.on_board, "home": s.home, "off": s.off, "bar": s.bar}
                      for s, e in zip(self.sides, self.epc)],
            "counts": [{"name": c.name, "leader": c.leader, "trailer": c.trailer, "value": _round(c.value),
                        "verdict": c.verdict, "formula": c.formula} for c in self.counts],
            "counts_note": self.counts_note or None,
        }


def pip_report(setup: Setup, *, epc: bool = True) -> PipReport:
    """The pips report of a position (``epc``: look up effective pip counts in
    the 6-point bear-off database, built on first use)."""
    position = setup.position
    epcs: tuple[float | None, float | None] = (None, None)
    if epc:
        from .bearoff import effective_pips

        epcs = effective_pips(position)
    counts: list[Count] = []
    note = ""
    if position.kind is GameKind.LONG:
        note = _LONG_COUNTS
    elif not is_race(position):
        note = _CONTACT
    else:
        counts = all_counts(position)
    return PipReport(setup, count(position), epcs, counts, note)


@dataclass
class RaceReport:
    """Race odds, the cube verdicts they give, and the counting rules."""

    setup: Setup
    ruleset: Ruleset
    odds: RaceOdds
    cube: list[CubeHint]
    counts: list[Count]
    two_sided_p_win: float | None = None
    cube_note: str = ""  # why there is no cube verdict
    counts_note: str = ""
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``nardtools race --format json``."""
        report = self.odds.as_dict()
        report.update(position=str(self.setup.position), ruleset=self.ruleset.name,
                      cube=[h.as_dict() for h in self.cube], cube_note=self.cube_note or None,
                      counts=[{"name": c.name, "verdict": c.verdict, "formula": c.formula} for c in self.counts],
                      counts_note=self.counts_note or None, two_sided_p_win=self.two_sided_p_win)
        return report


def race_report(setup: Setup, ruleset: Ruleset, *, trials: int = 2000, db_points: int | None = None,
                cube_owner: str | None = None, x: float | None = None, met: MatchEquityTable | None = None,
                two_sided: bool = False) -> RaceReport:
    """The race report of a position under ``ruleset`` (whose scoring table
    values the outcomes, and whose cube, if any, the verdicts are for).
    Raises :class:`~nardtools.analysis.race.NotARaceError` with contact."""
    from .cube import RACE_CUBE_EFFICIENCY, cube_hints
    from .race import race_odds

    position = setup.position
    rules = ruleset.rules
    odds = race_odds(position, db_points=db_points, trials=trials, rules=rules)
    hints: list[CubeHint] = []
    cube_note = ""
    if not rules.cube:
        cube_note = f"no cube verdict: the ruleset {ruleset.name} plays without the doubling cube"
    else:
        hints = cube_hints(odds, setup, rules, cube_owner=cube_owner,
                           x=RACE_CUBE_EFFICIENCY if x is None else x, met=met)
        if not hints:
            cube_note = "no cube verdict: the cube belongs to the other side"
    counts: list[Count] = []
    counts_note = _LONG_COUNTS if position.kind is GameKind.LONG else ""
    if not counts_note:
        counts = all_counts(position)
    exact_two_sided = None
    if two_sided:
        from .twosided import exact_p_win

        exact_two_sided = exact_p_win(position)
    return RaceReport(setup, ruleset, odds, hints, counts, exact_two_sided, cube_note, counts_note)


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)
