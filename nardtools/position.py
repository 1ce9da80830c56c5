"""Positions of the nardy family: Long Nardy (длинные нарды) and backgammon.

A :class:`Position` stores each side's checkers **from that side's own view**:
point 24 is farthest from bearing off, point 1 the last one, index 0 counts the
checkers borne off and index 25 the bar (backgammon only).  The first side is the
one on roll (the *mover*), the second its *opponent*; :meth:`Position.flip` swaps
them.  ``player`` only labels which player (0 = ``X``, 1 = ``O``) is on roll.

The canonical text lists the mover's checkers, then the opponent's::

    >>> p = Position.start("backgammon")
    >>> str(p)
    'backgammon X 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5'
    >>> Position.parse(str(p)) == p
    True
    >>> p.pips()
    (167, 167)
    >>> Position.start("long").pips()
    (360, 360)

Only possible positions can be built: at most fifteen checkers a side, no
negative counts, no point held by both sides, no bar in Long Nardy, not both
sides borne off.  Anything else is refused where it is made, with the reason
(:func:`position_status` names the problems of raw arrays as flags)::

    >>> Position.parse("backgammon X 6:16 / 6:1")
    Traceback (most recent call last):
    ...
    nardtools.errors.InvalidPositionError: impossible position: X (on roll) has 16 checkers, at most 15
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .errors import InvalidPositionError

OFF = 0
BAR = 25
HEAD = 24
NPOINTS = 24
PLAYER_NAMES = ("X", "O")
_SET = object.__setattr__


class GameKind(str, enum.Enum):
    """The board geometry a game is played on.

    ``backgammon`` (короткие нарды): opposite directions, hitting, a bar;
    ``long`` (длинные нарды): both sides travel the same way round, no hitting.
    """

    BACKGAMMON = "backgammon"
    LONG = "long"

    def __str__(self) -> str:
        return self.value

    def opponent_point(self, point: int) -> int:
        """The opponent's number for my point ``point`` (1..24).

        >>> GameKind.BACKGAMMON.opponent_point(6)
        19
        >>> GameKind.LONG.opponent_point(24), GameKind.LONG.opponent_point(1)
        (12, 13)
        """
        if self is GameKind.BACKGAMMON:
            return 25 - point
        return point + 12 if point <= 12 else point - 12


#: Starting layouts by name: own point -> checkers.  Checkers not placed are
#: borne off (hypergammon) or, for layouts starting off the board, on the bar.
LAYOUTS: dict[str, tuple[GameKind, Mapping[int, int]]] = {
    "backgammon": (GameKind.BACKGAMMON, {24: 2, 13: 5, 8: 3, 6: 5}),
    "nackgammon": (GameKind.BACKGAMMON, {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}),
    "hypergammon": (GameKind.BACKGAMMON, {24: 1, 23: 1, 22: 1}),
    "tricktrack": (GameKind.BACKGAMMON, {BAR: 15}),
    "long": (GameKind.LONG, {HEAD: 15}),
}


class Status(enum.IntFlag):
    """Problems :func:`position_status` can report (python-chess style flags)."""

    VALID = 0
    BAD_LENGTH = enum.auto()
    NEGATIVE_COUNT = enum.auto()
    TOO_MANY_CHECKERS = enum.auto()
    SHARED_POINT = enum.auto()
    BAR_IN_LONG_NARDY = enum.auto()
    BOTH_FINISHED = enum.auto()
    BAD_PLAYER = enum.auto()


def position_status(kind: GameKind, mover: Sequence[int], opponent: Sequence[int], player: int = 0) -> Status:
    """Every problem of a would-be position as :class:`Status` flags
    (``Status.VALID`` when there is none).

    >>> position_status(GameKind.BACKGAMMON, [0] * 6 + [2] + [0] * 19, [0] * 19 + [1] + [0] * 6)
    <Status.SHARED_POINT: 8>
    """
    return _problems(kind, mover, opponent, player)[0]


def _problems(kind: GameKind, mover: Sequence[int], opponent: Sequence[int], player: int) -> tuple[Status, list[str]]:
    """The flags and one sentence per problem (sides named from ``player``)."""
    flags, reasons = Status.VALID, []
    if player not in (0, 1):
        flags |= Status.BAD_PLAYER
        reasons.append(f"the player on roll is 0 (X) or 1 (O), not {player!r}")
        player = 0
    names = (f"{PLAYER_NAMES[player]} (on roll)", PLAYER_NAMES[1 - player])
    for name, side in zip(names, (mover, opponent)):
        if len(side) != 26 or not all(type(n) is int for n in side):
            return Status.BAD_LENGTH, [f"a side is 26 whole counts (off, points 1-24, bar), not {len(side)} values"]
        if min(side) < 0:
            flags |= Status.NEGATIVE_COUNT
            reasons.append(f"{name} has a negative count on {_point_name(side.index(min(side)))}")
        elif sum(side) > 15:
            flags |= Status.TOO_MANY_CHECKERS
            reasons.append(f"{name} has {sum(side)} checkers, at most 15")
        if kind is GameKind.LONG and side[BAR]:
            flags |= Status.BAR_IN_LONG_NARDY
            reasons.append(f"{name} has checkers on the bar, which Long Nardy does not have")
    if flags & Status.BAD_PLAYER == flags:  # counts are sane: look at the board
        shared = [p for p in range(1, 25) if mover[p] > 0 and opponent[kind.opponent_point(p)] > 0]
        if shared:
            flags |= Status.SHARED_POINT
            reasons.append(f"both sides have checkers on {names[0]}'s point {shared[0]} "
                           f"({names[1]}'s {kind.opponent_point(shared[0])})")
        if sum(mover[1:26]) == 0 and sum(opponent[1:26]) == 0:
            flags |= Status.BOTH_FINISHED
            reasons.append("both sides have borne off every checker")
    return flags, reasons


def _point_name(index: int) -> str:
    return "off" if index == OFF else "the bar" if index == BAR else f"point {index}"


def _side_from_mapping(counts: Mapping[int, int]) -> tuple[int, ...]:
    side = [0] * 26
    for point, n in counts.items():
        side[point] += n
    return tuple(side)


@dataclass(frozen=True, slots=True)
class Position:
    """A position of any game of the family; see the module docstring.

    ``mover`` and ``opponent`` are 26-tuples: ``[off, point 1, ..., point 24, bar]``.
    """

    kind: GameKind
    mover: tuple[int, ...]
    opponent: tuple[int, ...]
    player: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.kind, GameKind):
            raise InvalidPositionError(f"the game of a position is a GameKind, not {self.kind!r}")
        flags, reasons = _problems(self.kind, self.mover, self.opponent, self.player)
        if flags:
            raise InvalidPositionError(f"impossible position: {'; '.join(reasons)}", status=flags)

    @classmethod
    def _trusted(cls, kind: GameKind, mover: tuple[int, ...], opponent: tuple[int, ...], player: int) -> Position:
        """A position known to be possible (made by the rules from one that
        is): built without the checks, on the engine's hot paths."""
        made = object.__new__(cls)
        _SET(made, "kind", kind)
        _SET(made, "mover", mover)
        _SET(made, "opponent", opponent)
        _SET(made, "player", player)
        return made

    # ----------------------------------------------------------------- building
    @classmethod
    def start(cls, layout: str = "backgammon", *, player: int = 0) -> Position:
        """The starting position of a named layout (see :data:`LAYOUTS`).

        >>> Position.start("long").mover[24]
        15
        >>> Position.start("hypergammon").mover[0]
        0
        """
        try:
            kind, counts = LAYOUTS[layout]
        except KeyError:
            raise InvalidPositionError(
                f"unknown starting layout {layout!r}; known: {', '.join(LAYOUTS)}"
            ) from None
        side = _side_from_mapping(counts)
        return cls(GameKind(kind), side, side, player)

    @classmethod
    def from_points(
        cls,
        kind: GameKind | str,
        mover: Mapping[int, int],
        opponent: Mapping[int, int],
        *,
        player: int = 0,
        checkers: int = 15,
    ) -> Position:
        """Build a position from ``{point: count}`` maps; missing checkers are off.

        Point 25 is the bar.

        >>> Position.from_points("long", {24: 14, 18: 1}, {24: 15}).pips()
        (354, 360)
        """
        kind = GameKind(kind)
        sides = []
        for counts in (mover, opponent):
            side = list(_side_from_mapping(counts))
            side[OFF] = max(0, checkers - sum(side))
            sides.append(tuple(side))
        return cls(kind, sides[0], sides[1], player)

    # -------------------------------------------------------------- properties
    def flip(self) -> Position:
        """The same checkers with the other side on roll.

        >>> p = Position.from_points("backgammon", {6: 15}, {1: 15})
        >>> p.flip().mover[1], p.flip().flip() == p
        (15, True)
        """
        return Position._trusted(self.kind, self.opponent, self.mover, 1 - self.player)

    def pips(self) -> tuple[int, int]:
        """Pip counts ``(mover, opponent)``; a checker on the bar counts 25."""
        return _pips(self.mover), _pips(self.opponent)

    def side(self, which: int) -> tuple[int, ...]:
        """``side(0)`` is the mover's array, ``side(1)`` the opponent's."""
        return self.mover if which == 0 else self.opponent

    def side_of(self, player: int) -> tuple[int, ...]:
        """Player ``player``'s checkers (0 = ``X``, 1 = ``O``) in its own
        numbering, whichever side is on roll.

        >>> Position.parse("long O 24:15 / 24:14,4:1").side_of(0)[4]
        1
        """
        return self.mover if player == self.player else self.opponent

    def checkers_in_home(self, which: int = 0) -> int:
        """Checkers on points 1..6 of one side (0 = mover)."""
        return sum(self.side(which)[1:7])

    def all_home(self, which: int = 0) -> bool:
        """True when every checker still in play is on points 1..6."""
        return sum(self.side(which)[7:26]) == 0

    def is_finished(self) -> bool:
        """True when either side has no checker left in play."""
        return sum(self.mover[1:26]) == 0 or sum(self.opponent[1:26]) == 0

    # ------------------------------------------------------------------ text
    def __str__(self) -> str:
        return (
            f"{self.kind.value} {PLAYER_NAMES[self.player]} "
            f"{_side_text(self.mover)} / {_side_text(self.opponent)}"
        )

    def __repr__(self) -> str:
        return f"Position.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read the canonical text (see :meth:`__str__`).

        Sides list ``point:count`` pairs; ``bar`` and ``off`` name 25 and 0.
        Checkers not listed of the 15 are borne off unless ``off`` is given.

        >>> Position.parse("long O 24:15 / 24:14,1:1").player
        1
        >>> Position.parse("chess X 1:1 / 1:1")
        Traceback (most recent call last):
        ...
        nardtools.errors.InvalidPositionError: unknown game 'chess' in position 'chess X 1:1 / 1:1'; expected backgammon or long
        """
        m = _POSITION_RE.fullmatch(text.strip())
        if not m:
            raise InvalidPositionError(
                f"cannot read position {text!r}; expected e.g. "
                f"'backgammon X 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5'"
            )
        try:
            kind = GameKind(m["kind"])
        except ValueError:
            raise InvalidPositionError(
                f"unknown game {m['kind']!r} in position {text!r}; expected backgammon or long"
            ) from None
        player = PLAYER_NAMES.index(m["player"].upper())
        sides = (_parse_side(m["mover"], text), _parse_side(m["opponent"], text))
        return cls(kind, sides[0], sides[1], player)


_POSITION_RE = re.compile(
    r"(?P<kind>\w+)\s+(?P<player>[XOxo])\s+(?P<mover>[^/]*?)\s*/\s*(?P<opponent>[^/]*)"
)
_POINT_NAMES = {"bar": BAR, "off": OFF}


def _parse_side(text: str, whole: str) -> tuple[int, ...]:
    side = [0] * 26
    explicit_off = False
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, _, count = item.partition(":")
        try:
            point = _POINT_NAMES[name] if name in _POINT_NAMES else int(name)
            n = int(count)
        except ValueError:
            raise InvalidPositionError(
                f"bad item {item!r} in position {whole!r}; expected POINT:COUNT"
            ) from None
        if not 0 <= point <= 25 or n < 0:
            raise InvalidPositionError(f"bad item {item!r} in position {whole!r}")
        explicit_off |= point == OFF
        side[point] += n
    if not explicit_off:
        side[OFF] = max(0, 15 - sum(side))
    return tuple(side)


def _side_text(side: tuple[int, ...]) -> str:
    items = []
    if side[BAR]:
        items.append(f"bar:{side[BAR]}")
    items += [f"{p}:{side[p]}" for p in range(24, 0, -1) if side[p]]
    total = sum(side)
    if total != 15:
        items.append(f"off:{side[OFF]}")
    return ",".join(items) if items else f"off:{side[OFF]}"


def _pips(side: Iterable[int]) -> int:
    return sum(i * n for i, n in enumerate(side))
