"""Race counting rules (RACE.md section 4), each showing its inputs, formula and
verdict.  The side on roll is the *leader* ``L``, the other side the trailer
``T``, as GNU Backgammon names them.

>>> from nardtools import Position
>>> k = kleinman(Position.start())
>>> round(k.value, 4), round(k.p_win, 4)
(0.1101, 0.5619)
>>> print(thorp(Position.start()))
Thorp: L = 196 (x1.1 = 215.6), T = 196: no double
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..position import OFF, Position


@dataclass(frozen=True)
class Count:
    """One counting rule applied to a position."""

    name: str
    leader: float
    trailer: float
    value: float  # the rule's own number (K, %, adjusted count, ...)
    verdict: str
    formula: str
    inputs: dict[str, float] = field(default_factory=dict)
    p_win: float | None = None

    def __str__(self) -> str:
        return f"{self.name}: {self.formula}: {self.verdict}"


def _pips(side: tuple[int, ...]) -> int:
    return sum(i * n for i, n in enumerate(side))


def _ladder(drop: bool, redouble: bool, double: bool) -> str:
    """The verdict of a rule's thresholds, strongest first."""
    if drop:
        return "double, drop"
    if redouble:
        return "redouble, take"
    return "double, take" if double else "no double"


def kleinman(position: Position) -> Count:
    """Kleinman's count: K = (D + 4) / (2 sqrt(S - 4)), P(on roll wins) = (1 + erf K) / 2,
    with D the trailer's pips minus the leader's and S their sum."""
    lead, trail = _pips(position.mover), _pips(position.opponent)
    d, s = trail - lead, trail + lead
    if s <= 4:
        k, p = math.inf, 1.0
    else:
        k = (d + 4) / (2 * math.sqrt(s - 4))
        p = 0.5 * (1 + math.erf(k))
    return Count("Kleinman", lead, trail, k, f"P(on roll wins) = {p:.4f}",
                 f"K = (D+4)/(2 sqrt(S-4)) = ({d}+4)/(2 sqrt({s}-4)) = {k:.4f}",
                 {"D": d, "S": s}, p)


def thorp_count(side: tuple[int, ...]) -> int:
    """Pips + 2 per checker left + 1 per checker on the 1-point - 1 per home point held."""
    return _pips(side) + 2 * (15 - side[OFF]) + side[1] - sum(1 for p in range(1, 7) if side[p])


def thorp(position: Position) -> Count:
    """Thorp's count: the leader's count x1.1 when above 30; T >= L+2: double, drop;
    T >= L-1: redouble, take; T >= L-2: double, take; else no double."""
    lead, trail = thorp_count(position.mover), thorp_count(position.opponent)
    adj = lead * 1.1 if lead > 30 else float(lead)
    verdict = _ladder(trail >= adj + 2, trail >= adj - 1, trail >= adj - 2)
    shown = f"L = {lead} (x1.1 = {adj:.1f})" if lead > 30 else f"L = {lead}"
    return Count("Thorp", lead, trail, adj, verdict, f"{shown}, T = {trail}", {"L": lead, "T": trail})


def keith_count(side: tuple[int, ...]) -> int:
    """Pips + 2 per checker beyond one on the 1-point + 1 per checker beyond one on
    the 2-point + 1 per checker beyond three on the 3-point + 1 per empty 4-, 5-, 6-point."""
    return (_pips(side) + 2 * max(0, side[1] - 1) + max(0, side[2] - 1) + max(0, side[3] - 3)
            + sum(1 for p in (4, 5, 6) if not side[p]))


def keith(position: Position, *, rounding: str = "published") -> Count:
    """Keith's count: the leader adds a seventh, rounded down (``published``;
    GNU Backgammon 1.07 adds it unrounded: ``gnubg-1.07``).  Double when the
    leader's count exceeds the trailer's by at most 4, redouble by at most 3; the
    trailer drops when its count exceeds the leader's minus 2 (1.07: or equals it)."""
    lead, trail = keith_count(position.mover), keith_count(position.opponent)
    adj = float(lead + lead // 7) if rounding == "published" else lead * 8 / 7
    excess = adj - trail
    drop = trail > adj - 2 if rounding == "published" else trail >= adj - 2
    if excess > 4:
        verdict = "no double"
    else:
        verdict = ("double" if excess > 3 else "double (and redouble)") + (", drop" if drop else ", take")
    return Count("Keith", lead, trail, adj, verdict, f"L = {lead} (+1/7 = {adj:.1f}), T = {trail}",
                 {"L": lead, "T": trail})


def eight_nine_twelve(position: Position) -> Count:
    """Woodhead's 8-9-12: the leader's lead as a percentage of its pip count;
    8 % double, 9 % redouble, above 12 % the trailer drops."""
    lead, trail = _pips(position.mover), _pips(position.opponent)
    pct = (trail - lead) / lead * 100 if lead else math.inf
    verdict = _ladder(pct > 12, pct >= 9, pct >= 8)
    return Count("8-9-12", lead, trail, pct, verdict,
                 f"lead = (T-L)/L = ({trail}-{lead})/{lead} = {pct:.1f} %", {"L": lead, "T": trail})


def trice(position: Position) -> Count:
    """Trice's point of last take for a leader's count X: X + X//10 + 2 from 62 pips,
    else X + (X-5)//7; doubling point PLT - 3, redoubling point PLT - 2."""
    x, t = _pips(position.mover), _pips(position.opponent)
    plt = x + x // 10 + 2 if x >= 62 else x + (x - 5) // 7
    verdict = _ladder(t > plt, t >= plt - 2, t >= plt - 3)
    rule = "X + X/10 + 2" if x >= 62 else "X + (X-5)/7"
    return Count("Trice", x, t, plt, verdict, f"point of last take = {rule} = {plt}, T = {t}",
                 {"X": x, "T": t, "PLT": plt})


COUNTS = (kleinman, thorp, keith, eight_nine_twelve, trice)


def all_counts(position: Position) -> list[Count]:
    """Every counting rule for the side on roll."""
    return [rule(position) for rule in COUNTS]
