"""Match IDs, XGIDs and a position with its game state (:class:`Setup`).

A :class:`Setup` is a position plus what a Match ID or XGID carries: dice,
cube, score, match length, Crawford, who must act.  :func:`parse_setup`
accepts every notation a command may be given: our position text, a gnubg
Position ID (optionally ``ID:MatchID``), or an XGID.

Players are numbered as in gnubg: player 1 is the XGID's bottom (upper-case)
player, player 0 the top one.  ``Position.player`` uses the same numbers.

>>> s = parse_setup("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
>>> str(s.position), s.dice, s.match_length
('backgammon O 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5', (5, 2), 7)
>>> s.position_id, s.match_id
('4HPwATDgc/ABMA', 'cInqAAAAAAAE')
>>> xgid(s)
'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10'
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re

from ..errors import InvalidPositionError
from ..gnubg_id import _FIELDS, match_id, position_from_id, position_id  # noqa: F401 - part of this module
from ..position import BAR, PLAYER_NAMES, GameKind, Position
from ..setup import MAX_CUBE_LOG
from ..setup import Setup as Setup  # its home is nardtools.setup (the core); read and written here

# ---------------------------------------------------------------------------
# gnubg Match ID (FORMATS.md section 3)

def read_match_id(text: str, position: Position) -> Setup:
    """Decode a Match ID for ``position`` (whose ``player`` is set from it)."""
    try:
        if len(text) != 12:
            raise ValueError
        bits = int.from_bytes(base64.b64decode(text, validate=True), "little")
    except (ValueError, binascii.Error):
        raise InvalidPositionError(f"bad Match ID {text!r}: expected 12 Base64 characters") from None
    v = {name: (bits >> first) & ((1 << width) - 1) for name, first, width in _FIELDS}
    if v["die1"] > 6 or v["die2"] > 6 or v["owner"] == 2:
        raise InvalidPositionError(f"bad Match ID {text!r}: impossible dice or cube owner")
    if position.player != v["move"]:
        position = dataclasses.replace(position, player=v["move"])
    return Setup(
        position, (v["die1"], v["die2"]) if v["die1"] else None, 1 << v["cube_log"],
        None if v["owner"] == 3 else v["owner"], v["length"], (v["score0"], v["score1"]),
        bool(v["crawford"]), not v["no_jacoby"], False, bool(v["double"]), v["resign"], v["state"])


# ---------------------------------------------------------------------------
# Snowie text positions (the ``Illegal play (...)`` cells of FORMATS.md 1.2)

def read_snowie(text: str) -> tuple[Setup, tuple[str, str]]:
    """Read a Snowie text position: 40 ``;``-separated fields (a trailing
    ``;`` allowed), returning the setup and the names (on roll first).

    Fields: 0 match length; 1 Jacoby; 2, 3 unknown; 4 player on roll; 5, 6 the
    names (on roll first); 7 Crawford game; 8, 9 scores (on roll first);
    10 cube; 11 cube owner (1 on roll, -1 the other side, 0 centred); 12 the
    checkers of the side on roll on the bar; 13..36 points 1..24 from the view
    of the side on roll, positive for its checkers, negative for the other
    side's; 37 the other side's bar; 38, 39 the dice (0 0: not rolled).
    The position's ``player`` is 0 (the side on roll); callers set it.

    >>> setup, names = read_snowie("0;1;0;1;0;a;b;0;0;0;1;0;0;" + "-2;0;0;0;0;5;0;3;0;0;0;-5;5;0;0;0;-3;0;-5;0;0;0;0;2;" + "0;0;0")
    >>> setup.position == Position.start(), names
    (True, ('a', 'b'))
    """
    fields = text.strip().rstrip(";").split(";")
    if len(fields) != 40:
        raise InvalidPositionError(f"bad Snowie position: {len(fields)} fields, expected 40")
    try:
        n = [0 if i in (5, 6) else int(f) for i, f in enumerate(fields)]
    except ValueError:
        raise InvalidPositionError("bad Snowie position: a numeric field is not a number") from None
    mine, theirs = [0] * 26, [0] * 26
    mine[BAR], theirs[BAR] = abs(n[12]), abs(n[37])
    for point in range(1, 25):
        v = n[12 + point]
        if v > 0:
            mine[point] = v
        elif v < 0:
            theirs[25 - point] = -v
    for side in (mine, theirs):
        side[0] = 15 - sum(side)
        if side[0] < 0:
            raise InvalidPositionError("bad Snowie position: more than 15 checkers on a side")
    position = Position(GameKind.BACKGAMMON, tuple(mine), tuple(theirs), 0)
    owner = {1: 0, -1: 1}.get(n[11])
    setup = Setup(position, (n[38], n[39]) if n[38] else None, max(1, n[10]), owner, n[0], (n[8], n[9]),
                  crawford=bool(n[7]), jacoby=bool(n[1]))
    return setup, (fields[5], fields[6])


def snowie(setup: Setup, names: tuple[str, str] = ("", "")) -> str:
    """Write a Snowie text position for ``setup`` from the view of its side on
    roll (the inverse of :func:`read_snowie`; ``names`` on roll first)."""
    p = setup.position
    points = []
    for point in range(1, 25):
        points.append(p.mover[point] - p.opponent[25 - point])
    owner = 0 if setup.cube_owner is None else (1 if setup.cube_owner == p.player else -1)
    dice = setup.dice or (0, 0)
    fields = [setup.match_length, int(setup.jacoby and not setup.match_length), 0, 0, p.player, names[0],
              names[1], int(setup.crawford), setup.score[0], setup.score[1], setup.cube, owner,
              p.mover[BAR], *points, p.opponent[BAR], dice[0], dice[1]]
    return ";".join(map(str, fields)) + ";"


# ---------------------------------------------------------------------------
# XGID (FORMATS.md section 4)

def _xg_char(n: int, upper: bool) -> str:
    if n == 0:
        return "-"
    if n > 16:
        raise InvalidPositionError(f"{n} checkers on one point do not fit an XGID")
    return chr((ord("A") if upper else ord("a")) + n - 1)


def xgid(setup: Setup) -> str:
    """Write an XGID (backgammon geometry)."""
    p = setup.position
    bottom_on_roll = p.player == 1
    bottom, top = (p.mover, p.opponent) if bottom_on_roll else (p.opponent, p.mover)
    chars = [_xg_char(top[BAR], False)]
    for i in range(1, 25):
        if bottom[i]:
            chars.append(_xg_char(bottom[i], True))
        else:
            chars.append(_xg_char(top[25 - i], False))
    chars.append(_xg_char(bottom[BAR], True))
    cube_pos = 0 if setup.cube_owner is None else (1 if setup.cube_owner == 1 else -1)
    turn = 1 if bottom_on_roll else -1
    if setup.double_offered:
        dice = "D"
    else:
        dice = f"{setup.dice[0]}{setup.dice[1]}" if setup.dice else "00"
    if setup.match_length:
        rules = int(setup.crawford)
    else:
        rules = int(setup.jacoby) | 2 * int(setup.beaver)
    return (f"XGID={''.join(chars)}:{setup.cube.bit_length() - 1}:{cube_pos}:{turn}:{dice}:"
            f"{setup.score[1]}:{setup.score[0]}:{rules}:{setup.match_length}:10")


def xg_position(setup: Setup) -> str:
    """The 26-character position of an XGID (as ``; Set Pos=`` lines write it)."""
    return xgid(setup)[5:31]


_XGID = re.compile(r"(?:XGID=)?([-a-pA-P]{26}):(-?\d{1,6}):(-?\d{1,6}):(-?\d{1,6}):(\d\d|D|B|R):(\d{1,6}):(\d{1,6}):"
                   r"(\d{1,6}):(\d{1,6})(?::(\d{1,6}))?")
#: Position notation longer than this is refused before it is read.
MAX_NOTATION = 500


def read_xgid(text: str) -> Setup:
    """Read an XGID."""
    m = _XGID.fullmatch(text.strip())
    if not m:
        raise InvalidPositionError(f"bad XGID {text!r}: expected XGID=<26 characters>:cube:owner:turn:dice:...")
    pos, cube_log, cube_pos, turn, dice, s_bottom, s_top, rules, length = m.groups()[:9]
    if dice in ("B", "R"):
        raise InvalidPositionError(f"bad XGID {text!r}: beaver/raccoon states are not supported")
    if not 0 <= int(cube_log) <= MAX_CUBE_LOG:
        raise InvalidPositionError(f"bad XGID {text!r}: the cube field is the cube's power of two, "
                                   f"0 to {MAX_CUBE_LOG}, not {cube_log}")
    if int(cube_pos) not in (-1, 0, 1):
        raise InvalidPositionError(f"bad XGID {text!r}: the cube owner field is -1, 0 or 1, not {cube_pos}")
    if int(turn) not in (-1, 1):
        raise InvalidPositionError(f"bad XGID {text!r}: the turn field is 1 or -1, not {turn}")
    if dice not in ("00", "D") and not ("1" <= dice[0] <= "6" and "1" <= dice[1] <= "6"):
        raise InvalidPositionError(f"bad XGID {text!r}: dice are two digits 1-6, 00 or D, not {dice}")
    bottom, top = [0] * 26, [0] * 26
    for i, ch in enumerate(pos):
        if ch == "-":
            continue
        n = ord(ch.lower()) - ord("a") + 1
        if ch.isupper():
            if i == 0:
                raise InvalidPositionError(f"bad XGID {text!r}: bottom checkers on the top bar")
            bottom[i] += n
        else:
            if i == 25:
                raise InvalidPositionError(f"bad XGID {text!r}: top checkers on the bottom bar")
            top[BAR if i == 0 else 25 - i] += n
    for side in (bottom, top):
        side[0] = 15 - sum(side)
        if side[0] < 0:
            raise InvalidPositionError(f"bad XGID {text!r}: more than 15 checkers on a side")
    offered = dice == "D"  # then ``turn`` names the doubler, who keeps the roll
    bottom_on_roll = int(turn) == 1
    player = 1 if bottom_on_roll else 0
    mover, opponent = (bottom, top) if bottom_on_roll else (top, bottom)
    try:
        position = Position(GameKind.BACKGAMMON, tuple(mover), tuple(opponent), player)
    except InvalidPositionError as e:
        raise InvalidPositionError(f"bad XGID {text!r}: {e}", status=e.status) from None
    length_n = int(length)
    rules_n = int(rules)
    owner = {0: None, 1: 1, -1: 0}.get(int(cube_pos))
    return Setup(
        position, None if dice in ("00", "D") else (int(dice[0]), int(dice[1])), 1 << int(cube_log),
        owner, length_n, (int(s_top), int(s_bottom)),
        crawford=bool(rules_n & 1) if length_n else False,
        jacoby=bool(rules_n & 1) if not length_n else True,
        beaver=bool(rules_n & 2) if not length_n else False,
        double_offered=offered)


# ---------------------------------------------------------------------------

_FIELD = re.compile(r"(dice) ([1-6])([1-6])|(cube) (\d{1,6}) (X|O|centre)|(score) (\d{1,6})-(\d{1,6})/(\d{1,6})"
                    r"|(crawford)|(doubled)")


def _read_fields(position: Position, fields: list[str], whole: str) -> Setup:
    setup = Setup(position)
    for field in fields:
        m = _FIELD.fullmatch(field.strip())
        if not m:
            raise InvalidPositionError(
                f"bad field {field.strip()!r} in {whole!r}: expected 'dice 31', 'cube 2 X', "
                f"'score 3-5/7', 'crawford' or 'doubled'")
        if m[1]:
            setup = dataclasses.replace(setup, dice=(int(m[2]), int(m[3])))
        elif m[4]:
            cube = int(m[5])
            owner = None if m[6] == "centre" else PLAYER_NAMES.index(m[6])
            setup = dataclasses.replace(setup, cube=cube, cube_owner=owner)
        elif m[7]:
            setup = dataclasses.replace(setup, score=(int(m[8]), int(m[9])), match_length=int(m[10]))
        elif m[11]:
            setup = dataclasses.replace(setup, crawford=True)
        else:
            setup = dataclasses.replace(setup, double_offered=True)
    return setup


def parse_setup(text: str, kind: GameKind | str | None = None) -> Setup:
    """Read any position notation: our text (with ``; dice 31; cube 2 X; ...``
    fields), ``PositionID[:MatchID]``, or an XGID.

    A Position ID does not say its game: ``kind`` does (backgammon, gnubg's
    game, when it is ``None``), or a ``long:`` prefix, which the Long Nardy
    diagram writes before its IDs.

    >>> parse_setup("4HPwATDgc/ABMA:MIEFAAAAAAAA").dice
    (3, 1)
    >>> s = parse_setup("long O 24:15 / 24:14,4:1; dice 62; score 0-2/5")
    >>> s.dice, s.score, str(s) == "long O 24:15 / 24:14,4:1; dice 62; score 0-2/5"
    ((6, 2), (0, 2), True)
    >>> parse_setup("long:AACA/z8AAID/Pw").position == Position.start("long")
    True
    """
    try:
        return _parse_setup(text.strip(), kind)
    except InvalidPositionError as e:
        if text.strip()[:60] in str(e):
            raise
        raise InvalidPositionError(f"{text.strip()[:60]!r}: {e}", status=e.status) from None


def _parse_setup(text: str, kind: GameKind | str | None) -> Setup:
    if len(text) > MAX_NOTATION:
        raise InvalidPositionError(f"position notation of {len(text)} characters is too long to be one "
                                   f"(at most {MAX_NOTATION}): {text[:40]!r}...")
    if ";" in text:
        head, *fields = text.split(";")
        return _read_fields(_parse_setup(head.strip(), kind).position, fields, text)
    if text.upper().startswith("XGID=") or _XGID.fullmatch(text):
        return read_xgid(text)
    prefix, colon, rest = text.partition(":")
    if colon and prefix.lower() in _GAME_PREFIXES:
        if kind is not None and GameKind(kind) is not _GAME_PREFIXES[prefix.lower()]:
            raise InvalidPositionError(f"{text!r} is a {prefix.lower()} Position ID, but the rules are for {kind}")
        kind, text = _GAME_PREFIXES[prefix.lower()], rest
    head, _, tail = text.partition(":")
    if re.fullmatch(r"[A-Za-z0-9+/]{14}", head) and (not tail or re.fullmatch(r"[A-Za-z0-9+/]{12}", tail)):
        position = position_from_id(head, kind or GameKind.BACKGAMMON)
        return read_match_id(tail, position) if tail else Setup(position)
    return Setup(Position.parse(text))


_GAME_PREFIXES = {"long": GameKind.LONG, "backgammon": GameKind.BACKGAMMON}


def game_id(setup: Setup) -> str:
    """The Position ID as our diagrams print it: gnubg's for backgammon, with
    the ``long:`` prefix for Long Nardy (so that reading it back gives the
    same game).

    >>> game_id(Setup(Position.start("long")))
    'long:AACA/z8AAID/Pw'
    """
    prefix = "long:" if setup.position.kind is GameKind.LONG else ""
    return prefix + setup.position_id
