"""GNU Backgammon's Position ID, and the same scheme for Long Nardy.

The ID packs, for the side not on roll and then the side on roll, each of the
25 slots (own points 1..24, then the bar) as one ``1`` bit per checker and a
``0``; the 80 bits are packed least significant bit first into 10 bytes and
written as 14 characters of standard Base64 (FORMATS.md section 2).  The same
unary scheme serves Long Nardy positions (the bar slot is always empty); the
game is not part of the ID, so reading one needs the game.

>>> from nardtools import Position
>>> position_id(Position.start())
'4HPwATDgc/ABMA'
>>> position_from_id("4HPwATDgc/ABMA") == Position.start()
True
>>> position_id(Position.start("long"))
'AACA/z8AAID/Pw'
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING

from .errors import InvalidPositionError
from .position import GameKind, Position

if TYPE_CHECKING:
    from .setup import Setup


def position_id(position: Position) -> str:
    """The 14-character Position ID, the side on roll as gnubg's player on roll."""
    bits: list[int] = []
    for side in (position.opponent, position.mover):
        for slot in range(1, 26):
            bits.extend([1] * side[slot])
            bits.append(0)
    if len(bits) > 80:
        raise InvalidPositionError(f"too many checkers for a Position ID: {position}")
    key = bytearray(10)
    for i, bit in enumerate(bits):
        if bit:
            key[i // 8] |= 1 << (i % 8)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def position_from_id(text: str, kind: GameKind | str = GameKind.BACKGAMMON, *, player: int = 0) -> Position:
    """Read a Position ID (the side on roll becomes the mover).

    >>> position_from_id("not an id!")
    Traceback (most recent call last):
    ...
    nardtools.errors.InvalidPositionError: bad Position ID 'not an id!': expected 14 Base64 characters
    """
    text = text.strip()
    try:
        if len(text) != 14:
            raise ValueError
        key = base64.b64decode(text + "==", validate=True)
    except (ValueError, binascii.Error):
        raise InvalidPositionError(f"bad Position ID {text!r}: expected 14 Base64 characters") from None
    sides: list[list[int]] = [[0] * 26, [0] * 26]
    side, slot = 0, 1
    for i in range(80):
        if side > 1:
            break
        if key[i // 8] >> (i % 8) & 1:
            sides[side][slot] += 1
        else:
            slot += 1
            if slot > 25:
                side, slot = side + 1, 1
    for s in sides:
        total = sum(s)
        if total > 15:
            raise InvalidPositionError(f"bad Position ID {text!r}: a side has {total} checkers")
        s[0] = 15 - total
    try:
        return Position(GameKind(kind), tuple(sides[1]), tuple(sides[0]), player)
    except InvalidPositionError as e:
        raise InvalidPositionError(f"bad Position ID {text!r}: {e}", status=e.status) from None


# ---------------------------------------------------------------------------
# gnubg Match ID (FORMATS.md section 3; read by nardtools.notation.ids)

_FIELDS = [  # (name, first bit, width)
    ("cube_log", 0, 4), ("owner", 4, 2), ("move", 6, 1), ("crawford", 7, 1), ("state", 8, 3),
    ("turn", 11, 1), ("double", 12, 1), ("resign", 13, 2), ("die1", 15, 3), ("die2", 18, 3),
    ("length", 21, 15), ("score0", 36, 15), ("score1", 51, 15), ("no_jacoby", 66, 1),
]


def match_id(setup: Setup) -> str:
    """Encode a setup's game state as a 12-character gnubg Match ID."""
    values = {
        "cube_log": setup.cube.bit_length() - 1,
        "owner": 3 if setup.cube_owner is None else setup.cube_owner,
        "move": setup.on_roll,
        "crawford": int(setup.crawford),
        "state": setup.game_state,
        "turn": 1 - setup.on_roll if (setup.double_offered or setup.resigned) else setup.on_roll,
        "double": int(setup.double_offered),
        "resign": setup.resigned,
        "die1": max(setup.dice) if setup.dice else 0,  # gnubg stores the larger die first
        "die2": min(setup.dice) if setup.dice else 0,
        "length": setup.match_length,
        "score0": setup.score[0],
        "score1": setup.score[1],
        "no_jacoby": int(setup.match_length > 0 or not setup.jacoby),
    }
    bits = 0
    for name, first, width in _FIELDS:
        bits |= (values[name] & ((1 << width) - 1)) << first
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")
