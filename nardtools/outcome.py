"""How a game ends and what it scores.

Long Nardy outcomes, by the loser's state when the winner bears off the last
checker: **oin** (оин: the loser has borne off a checker), **mars** (марс: none
off), **home mars** (домашний марс: none off, all fifteen home) and **koks**
(кокс: none off and a checker still in the starting quarter, or on the head,
as the ``koks`` option says).  Backgammon: single, gammon, backgammon.

>>> from nardtools import Position, find_ruleset
>>> loser = Position.from_points("long", {5: 15}, {}).mover
>>> classify(loser, find_ruleset("nardionline").rules)
<OutcomeKind.HOME_MARS: 'home-mars'>
>>> points_for(OutcomeKind.HOME_MARS, find_ruleset("long").rules)
2
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from .position import BAR, HEAD, OFF, PLAYER_NAMES
from .rules import SCORING_TABLES, Rules

if TYPE_CHECKING:
    from .position import Position


class OutcomeKind(str, enum.Enum):
    """The kind of a win; ``value`` is the name used in scoring tables."""

    OIN = "oin"
    MARS = "mars"
    HOME_MARS = "home-mars"
    KOKS = "koks"
    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"

    def __str__(self) -> str:
        return self.value


#: The resignation levels and cube-free wins of each geometry, weakest first.
LONG_KINDS = (OutcomeKind.OIN, OutcomeKind.MARS, OutcomeKind.HOME_MARS, OutcomeKind.KOKS)
BACKGAMMON_KINDS = (OutcomeKind.SINGLE, OutcomeKind.GAMMON, OutcomeKind.BACKGAMMON)

# What a kind scores as when a table does not list it.
_FALLBACK = {
    OutcomeKind.KOKS: OutcomeKind.MARS,
    OutcomeKind.HOME_MARS: OutcomeKind.MARS,
    OutcomeKind.BACKGAMMON: OutcomeKind.GAMMON,
    OutcomeKind.GAMMON: OutcomeKind.SINGLE,
    OutcomeKind.MARS: OutcomeKind.OIN,
}


def classify(loser: Sequence[int], rules: Rules) -> OutcomeKind:
    """The kind of win, from the loser's checkers (own numbering, 26 entries)."""
    if rules.is_long:
        if loser[OFF] > 0:
            return OutcomeKind.OIN
        if rules.koks == "start-quarter" and any(loser[19:25]):
            return OutcomeKind.KOKS
        if rules.koks == "head" and loser[HEAD] > 0:
            return OutcomeKind.KOKS
        if sum(loser[7:26]) == 0:
            return OutcomeKind.HOME_MARS
        return OutcomeKind.MARS
    if loser[OFF] > 0:
        return OutcomeKind.SINGLE
    if loser[BAR] or any(loser[19:25]):
        return OutcomeKind.BACKGAMMON
    return OutcomeKind.GAMMON


def points_for(kind: OutcomeKind, rules: Rules) -> int:
    """Points of one win of ``kind`` at cube 1 under the ruleset's scoring table.

    >>> from nardtools import find_ruleset
    >>> [points_for(k, find_ruleset("nardionline").rules) for k in LONG_KINDS]
    [1, 2, 3, 4]
    >>> [points_for(k, find_ruleset("long-classic").rules) for k in LONG_KINDS]
    [1, 2, 2, 2]
    """
    table = SCORING_TABLES[rules.scoring]
    k: OutcomeKind | None = kind
    while k is not None and k.value not in table:
        k = _FALLBACK.get(k)
    if k is None:
        # a table of the other geometry: count by rank (1, 2, 3...)
        kinds = LONG_KINDS if kind in LONG_KINDS else BACKGAMMON_KINDS
        return min(kinds.index(kind) + 1, 3)
    return table[k.value]


class Ending(str, enum.Enum):
    """Why a game ended."""

    BEAR_OFF = "bear-off"
    DROP = "drop"
    RESIGN = "resign"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: who won, how, and for how many points.

    ``str`` reads like a .mat result: ``"X wins 2 points (mars)"``.
    """

    winner: int
    kind: OutcomeKind
    cube: int
    points: int
    ending: Ending = Ending.BEAR_OFF

    def __repr__(self) -> str:
        return (f"Outcome({self.winner}, OutcomeKind.{self.kind.name}, {self.cube}, {self.points}, "
                f"Ending.{self.ending.name})")

    def __str__(self) -> str:
        unit = "point" if self.points == 1 else "points"
        how = self.kind.value if self.ending is Ending.BEAR_OFF else f"{self.kind.value}, {self.ending.value}"
        return f"{PLAYER_NAMES[self.winner]} wins {self.points} {unit} ({how})"


def finished(position: Position, rules: Rules, cube: int = 1) -> Outcome | None:
    """The outcome of a position where a side has borne off every checker
    (at ``cube``), else ``None``.

    >>> from nardtools import Position, find_ruleset
    >>> str(finished(Position.parse("backgammon X off:15 / 6:2,off:13"), find_ruleset("backgammon").rules))
    'X wins 1 point (single)'
    """
    if not position.is_finished():
        return None
    side = 0 if sum(position.mover[1:26]) == 0 else 1
    winner = position.player if side == 0 else 1 - position.player
    kind = classify(position.opponent if side == 0 else position.mover, rules)
    return Outcome(winner, kind, cube, cube * points_for(kind, rules))
