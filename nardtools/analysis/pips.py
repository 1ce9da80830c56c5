"""Pip counts (пипсы) and race detection for both games.

>>> from nardtools import Position
>>> mover, opponent = count(Position.start())
>>> mover.pips, mover.home, opponent.pips
(167, 5, 167)
>>> is_race(Position.start())
False
"""

from __future__ import annotations

from dataclasses import dataclass

from ..position import BAR, OFF, GameKind, Position


@dataclass(frozen=True, slots=True)
class SideCount:
    """One side's pips and where its checkers are."""

    pips: int
    on_board: int
    home: int
    off: int
    bar: int

    def __str__(self) -> str:
        return f"{self.pips} pips ({self.on_board} on the board, {self.home} home, {self.off} off)"


def _side(side: tuple[int, ...]) -> SideCount:
    return SideCount(
        pips=sum(i * n for i, n in enumerate(side)),
        on_board=sum(side[1:26]),
        home=sum(side[1:7]),
        off=side[OFF],
        bar=side[BAR],
    )


def count(position: Position) -> tuple[SideCount, SideCount]:
    """``(mover, opponent)`` counts; a checker on the bar counts 25 pips."""
    return _side(position.mover), _side(position.opponent)


def is_race(position: Position) -> bool:
    """True when no checker of either side can ever meet one of the other.

    Backgammon: contact is broken when every checker of each side has passed
    every checker of the other (the sides' rearmost points add up to less
    than 25; a checker on the bar is in contact).

    Long Nardy: both sides travel the same way round.  My checker on my p will
    still stand on my points p..1; an opponent checker on its q on its points
    q..1, which are my 12+q..13 for q <= 12 and include my q-12..1 for q > 12.
    The two sets meet exactly when p >= 13 or q >= 13, so the race starts when
    both sides have every checker on their own points 1-12.  It does not
    depend on the six-block reading: once the paths are apart no block can
    stand in anyone's way.

    >>> is_race(Position.parse("long X 12:5,3:10 / 11:15"))
    True
    >>> is_race(Position.parse("long X 13:1,3:14 / 11:15"))
    False
    """
    me, opp = position.mover, position.opponent
    rear_me = max((p for p in range(1, 26) if me[p]), default=0)
    rear_opp = max((p for p in range(1, 26) if opp[p]), default=0)
    if rear_me == 0 or rear_opp == 0:
        return True
    if position.kind is GameKind.BACKGAMMON:
        return rear_me + rear_opp < 25
    return rear_me <= 12 and rear_opp <= 12
