"""A position with the state of its game and match (:class:`Setup`): our
FEN.  The notations that carry one (position text with its game state, gnubg
Position and Match IDs, XGID) are read and written by
:mod:`nardtools.notation.ids`; analysis and teaching work on setups.

>>> from nardtools.position import Position
>>> str(Setup(Position.start(), dice=(3, 1), cube=2, cube_owner=1, match_length=7, score=(3, 5)))
'backgammon X 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5; dice 31; cube 2 O; score 3-5/7'
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InvalidPositionError
from .position import PLAYER_NAMES, Position

#: The highest cube a position may carry (2**MAX_CUBE_LOG), as gnubg's Match ID allows.
MAX_CUBE_LOG = 15
#: The longest match a position may name (15 bits, as gnubg's Match ID allows).
MAX_MATCH_LENGTH = 2**15 - 1


@dataclass(frozen=True)
class Setup:
    """A position with the state of its game and match."""

    position: Position
    dice: tuple[int, int] | None = None  # as rolled, die 1 first
    cube: int = 1
    cube_owner: int | None = None  # None: centred
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = True
    beaver: bool = False
    double_offered: bool = False
    resigned: int = 0  # resignation on offer: 0 none, 1 single, 2 gammon, 3 backgammon
    game_state: int = 1  # gnubg: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped

    def __post_init__(self) -> None:
        """Refuse a state no game can be in (the position checks itself)."""
        problem = _setup_problem(self)
        if problem:
            raise InvalidPositionError(f"impossible game state for {self.position}: {problem}")

    @property
    def on_roll(self) -> int:
        """The player whose turn it is (who rolled, or must roll)."""
        return self.position.player

    @property
    def position_id(self) -> str:
        """The gnubg Position ID."""
        from .gnubg_id import position_id

        return position_id(self.position)

    @property
    def match_id(self) -> str:
        """The gnubg Match ID (bit 66 set in match play, as gnubg 1.07 does)."""
        from .gnubg_id import match_id

        return match_id(self)

    def __str__(self) -> str:
        """The position text, then what is known of the game, ``;``-separated::

            backgammon X 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5; dice 31; cube 2 O; score 3-5/7; crawford
        """
        parts = [str(self.position)]
        if self.dice:
            parts.append(f"dice {self.dice[0]}{self.dice[1]}")
        if self.cube != 1 or self.cube_owner is not None:
            owner = "centre" if self.cube_owner is None else PLAYER_NAMES[self.cube_owner]
            parts.append(f"cube {self.cube} {owner}")
        if self.double_offered:
            parts.append("doubled")
        if self.match_length or self.score != (0, 0):
            parts.append(f"score {self.score[0]}-{self.score[1]}/{self.match_length}")
        if self.crawford:
            parts.append("crawford")
        return "; ".join(parts)


def _setup_problem(setup: Setup) -> str:
    """Why a setup cannot be, or ``""``."""
    cube, length, score = setup.cube, setup.match_length, setup.score
    if type(cube) is not int or cube < 1 or cube & (cube - 1) or cube > 2**MAX_CUBE_LOG:
        return f"the cube is a power of two from 1 to {2**MAX_CUBE_LOG}, not {cube}"
    if setup.cube_owner not in (None, 0, 1):
        return f"the cube belongs to 0 (X), 1 (O) or nobody, not {setup.cube_owner!r}"
    if setup.dice is not None and not (len(setup.dice) == 2 and all(1 <= d <= 6 for d in setup.dice)):
        return f"dice are two numbers 1-6, not {setup.dice}"
    if not 0 <= length <= MAX_MATCH_LENGTH:
        return f"a match is 0 (money) to {MAX_MATCH_LENGTH} points, not {length}"
    if min(score) < 0 or max(score) > MAX_MATCH_LENGTH:
        return f"scores are 0 to {MAX_MATCH_LENGTH}, not {score[0]}-{score[1]}"
    if length and max(score) >= length:
        return (f"the score {score[0]}-{score[1]} has already won the {length}-point match "
                f"(scores before a game are below the length)")
    return ""
