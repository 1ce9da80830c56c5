"""The Jellyfish ``.mat`` match format, in every dialect producers write.

Lines are split into *cells* by tokens (dice ``64:`` and the keywords), not by
columns, since the right column wanders from 33 to 46 between producers
(FORMATS.md 1.6-1.8).  The reader only tokenises; legality is the replay's job.

>>> text = '''
...  3 point match
...
...  Game 1
...  alice : 0                      bob : 0
...   1)                             64: 24/18 18/14
...   2) 62: 13/11* 24/18            31: 25/22 8/7*
... '''
>>> m = read_mat(text)
>>> m.length, m.players, [(a.player, str(a.roll), a.play) for a in m.games[0].actions]
(3, ('alice', 'bob'), [(1, '64', '24/18 18/14'), (0, '62', '13/11* 24/18'), (1, '31', '25/22 8/7*')])
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

from ..dice import Roll
from ..errors import ConversionError, InvalidPositionError
from ..play import Play
from .ids import Setup, read_snowie, read_xgid, snowie, xg_position
from .record import AUTO_DOUBLES, MAX_ERRORS, Action, ActionKind, GameRecord, MatchRecord, RecordError

if TYPE_CHECKING:
    from .replay import ReplayedMatch
from .sniff import MAT_HEADER as _HEADER
from .sniff import decode, looks_like_mat, read_limited  # noqa: F401 - part of this module's interface
from .source import MAX_LINE, Overlong
from .tags import MAT_TAG

_GAME = re.compile(r"^\s*Game\s+(\d{1,9})\s*$", re.IGNORECASE)
# (names are stripped after the match: spaces both beside a name and in it made this cubic on long lines)
_SCORE = re.compile(r"^(?P<n1>.*?):\s*(?P<s1>\d{1,9})\s+(?P<n2>.*):\s*(?P<s2>\d{1,9})\s*$")
_MOVE = re.compile(r"^\s*(\d{1,9})\)")
_CELL_START = re.compile(
    r"(?<!\S)(?:[1-6][1-6]:|(?:doubles|beavers|raccoons|takes|drops|passes|wins|losses|resigns)\b)",
    re.IGNORECASE,
)
_REPEATED_NUMBER = re.compile(r"(?<!\S)\d+\)(?!\S)")
_DICE_CELL = re.compile(r"([1-6])([1-6]):\s*(.*)$")
_CUBE_CELL = re.compile(r"(doubles|beavers|raccoons)\s*=>\s*(\d{1,9})\s*$", re.IGNORECASE)
_RESULT_CELL = re.compile(r"(wins|losses)\s+(\d{1,9})\s+points?\b\s*(and\s+the\s+match)?\s*$", re.IGNORECASE)
_RATING = re.compile(r",\s*\d+$")
_SNOWIE = re.compile(r"illegal\s+play\b[^(]{0,20}\(([^)]*)\)\s*$", re.IGNORECASE)
_SET_POS = re.compile(r";\s*Set\s+Pos\s*=\s*([-a-pA-P]{26})(?:\s*/\s*(\d+))?\s*$", re.IGNORECASE)
_RIGHT_GAP = 8  # a lone cell this far after ")" is in the right column
_RIGHT_INDENT = 20  # a result line without a number this far in belongs to the right player


def read_mat_file(path: str | Path) -> MatchRecord:
    """Read a ``.mat`` file (see :func:`read_mat`)."""
    path = Path(path)
    return read_mat(decode(read_limited(path)), str(path))


def read_mat(text: str, path: str = "") -> MatchRecord:
    """Read ``.mat`` text.  Syntax problems are collected in ``record.errors``
    (with line and column) and reading goes on; a file with no ``N point match``
    header raises :class:`RecordError`."""
    record = MatchRecord(path=path)
    record.games = list(mat_games(text.split("\n"), record))
    return record


def mat_tags(lines: Iterable[str], record: MatchRecord) -> None:
    """Gather a file's comments and tags into ``record`` (they may stand
    anywhere, and a ``Variation`` tag decides every game's rules): the first
    pass of a streaming read, before :func:`mat_games` with ``comments=False``."""
    for raw in lines:
        stripped = raw.strip()
        if stripped and stripped[0] in ";#" and not _SET_POS.match(stripped):
            _comment(stripped, record, None)


def _comment(stripped: str, record: MatchRecord, game: GameRecord | None) -> None:
    """A comment line: its tags are the match's, but for a game's own
    (:data:`~nardtools.notation.record.AUTO_DOUBLES`), which belong to ``game``."""
    tags = MAT_TAG.findall(stripped)
    own = [t for t in tags if t[0] == AUTO_DOUBLES]
    if game is not None:
        game.tags += own
    if own and len(own) == len(tags):
        return
    record.comments.append(stripped[1:].strip())
    record.tags += [t for t in tags if t[0] != AUTO_DOUBLES]


def mat_games(lines: Iterable[str], record: MatchRecord, *, comments: bool = True) -> Iterator[GameRecord]:
    """The games of ``.mat`` lines, each as soon as it has been read.  The
    header's match length and the players' names go into ``record`` before the
    first game comes out; so do the comments and tags unless ``comments`` is
    false (see :func:`mat_tags`).  Syntax problems go to ``record.errors``; after
    :data:`MAX_ERRORS` of them the rest of the file is not read."""
    path = record.path
    game: GameRecord | None = None
    expect_score = False
    header_seen = False

    def error(message: str, lineno: int, col: int, line: str) -> None:
        record.errors.append(RecordError(message, path=path, line=lineno, col=col, source_line=line))

    for lineno, raw in enumerate(lines, 1):
        if len(record.errors) >= MAX_ERRORS:
            error(f"more than {MAX_ERRORS} problems: the rest of the file is not read", lineno, 1, "")
            break
        if isinstance(raw, Overlong):
            error(f"a line of {raw.length:,} characters: no line of a record is longer than {MAX_LINE:,}",
                  lineno, 1, "")
            continue
        line = raw.lstrip("\ufeff").rstrip()
        stripped = line.strip()
        if not stripped:
            continue
        if game is not None and _SET_POS.match(stripped):
            _set_position(stripped, lineno, game, record, line)
            continue
        if stripped[0] in ";#":
            if comments:
                _comment(stripped, record, game)
            elif game is not None:
                game.tags += [t for t in MAT_TAG.findall(stripped) if t[0] == AUTO_DOUBLES]
            continue
        if not header_seen:
            m = _HEADER.match(line)
            if m:
                record.length = int(m[1])
                header_seen = True
                continue
            error("expected the 'N point match' header", lineno, 1, line)
            continue
        m = _GAME.match(line)
        if m:
            if game is not None:
                _settle_boards(game)
                yield game
            game = GameRecord(int(m[1]), (0, 0), lineno)
            expect_score = True
            continue
        if game is None:
            error("expected 'Game N' before moves", lineno, 1, line)
            continue
        if expect_score:
            expect_score = False
            s = _SCORE.match(line)
            if s:
                names = (_RATING.sub("", s["n1"].strip()).strip(), _RATING.sub("", s["n2"].strip()).strip())
                game.score = (int(s["s1"]), int(s["s2"]))
                if record.players == ("", ""):
                    record.players = names
                continue
            error("expected the score line 'name : score   name : score'", lineno, 1, line)
        _read_line(line, lineno, game, record)
    if game is not None:
        _settle_boards(game)
        yield game
    if not header_seen:
        raise RecordError("not a .mat file: no 'N point match' header", path=path, line=1, col=1)


def _read_line(line: str, lineno: int, game: GameRecord, record: MatchRecord) -> None:
    m = _MOVE.match(line)
    number = int(m[1]) if m else 0
    body_start = m.end() if m else 0
    body = line[:body_start] + _REPEATED_NUMBER.sub(lambda x: " " * len(x[0]), line[body_start:])
    starts = [c.start() for c in _CELL_START.finditer(body, body_start)]
    if not starts:
        if body[body_start:].strip():
            col = body_start + len(body[body_start:]) - len(body[body_start:].lstrip()) + 1
            record.errors.append(RecordError(
                f"unrecognised text {body[body_start:].strip()!r}: expected dice such as '64:' "
                f"or a cube or result word", path=record.path, line=lineno, col=col, source_line=line))
        return
    cells = [(s, body[s:e].strip()) for s, e in zip(starts, [*starts[1:], len(body)])]
    kinds = [_cell_kind(text) for _, text in cells]
    for i, ((start, text), kind) in enumerate(zip(cells, kinds)):
        if i == 0 and len(cells) >= 2:
            player = 0
        elif i == 1:
            player = 1
        elif i >= 2:  # a third slot (Galaxy): the winner is whoever did not lose
            losers = [p for p, k in zip((0, 1), kinds[:2]) if k is ActionKind.LOSE]
            player = 1 - losers[0] if losers else 1
        elif m:
            player = 1 if start - body_start >= _RIGHT_GAP else 0
        else:
            player = 1 if start >= _RIGHT_INDENT else 0
        action = _read_cell(text, kind, player, lineno, start + 1, number, record, line)
        if action is not None:
            game.actions.append(action)


def _illegal_play(rest: str, player: int, lineno: int, col: int, number: int, roll: Roll,
                  order: tuple[int, int], error: Any) -> Action | None:
    """``dd: Illegal play (<Snowie position>)``: the player rolled ``dd`` and
    played something illegal; the record gives the board after it, from the view
    of the side to roll next (the other player), as gnubg reads it."""
    m = _SNOWIE.match(rest)
    if not m:
        error("cannot read the Snowie position: expected 'Illegal play (n;n;...)' with 40 fields")
        return None
    try:
        setup, _ = read_snowie(m[1])
    except InvalidPositionError as e:
        error(f"cannot read the Snowie position: {e}")
        return None
    board = dataclasses.replace(setup.position, player=1 - player)
    return Action(player, ActionKind.SET_BOARD, lineno, col, number, roll, dice_order=order, board=board)


def _set_position(stripped: str, lineno: int, game: GameRecord, record: MatchRecord, line: str) -> None:
    """``; Set Pos=<XG position>/<cube>`` (XG): the board from here on.  Who
    rolls next is the player of the next action (fixed in :func:`_settle_boards`)."""
    m = _SET_POS.match(stripped)
    assert m is not None
    try:
        setup = read_xgid(f"XGID={m[1]}:0:0:1:00:0:0:0:0:10")
    except InvalidPositionError as e:
        record.errors.append(RecordError(f"cannot read the XG position: {e}", path=record.path, line=lineno,
                                         col=line.find("=") + 2, source_line=line))
        return
    game.actions.append(Action(0, ActionKind.SET_BOARD, lineno, line.find(";") + 1, 0,
                               value=int(m[2]) if m[2] else 0, board=setup.position))


def _settle_boards(game: GameRecord) -> None:
    """A ``Set Pos`` board is to be played by whoever acts next in the game."""
    for i, a in enumerate(game.actions):
        if a.kind is ActionKind.SET_BOARD and a.roll is None and a.board is not None:
            nxt = next((b for b in game.actions[i + 1:] if b.kind is not ActionKind.SET_BOARD), None)
            player = nxt.player if nxt is not None else 0
            board = a.board if a.board.player == player else a.board.flip()
            game.actions[i] = dataclasses.replace(a, player=player, board=board)


_CELL_WORDS = {
    "doub": ActionKind.DOUBLE, "beav": ActionKind.BEAVER, "racc": ActionKind.BEAVER,
    "take": ActionKind.TAKE, "drop": ActionKind.DROP, "pass": ActionKind.DROP,
    "wins": ActionKind.WIN, "loss": ActionKind.LOSE, "resi": ActionKind.RESIGN,
}


def _cell_kind(text: str) -> ActionKind:
    """What a cell holds, by its first word (dice otherwise)."""
    return _CELL_WORDS.get(text[:4].lower(), ActionKind.ROLL)


def _read_cell(text: str, kind: ActionKind, player: int, lineno: int, col: int, number: int,
          record: MatchRecord, line: str) -> Action | None:
    def error(message: str) -> None:
        record.errors.append(RecordError(message, path=record.path, line=lineno, col=col, source_line=line))

    if kind is ActionKind.ROLL:
        m = _DICE_CELL.match(text)
        if not m:
            error(f"cannot read {text!r}: expected dice such as '64:' and a play")
            return None
        d1, d2 = int(m[1]), int(m[2])
        rest = m[3].strip()
        play_col = col + m.start(3)
        if rest.startswith("?"):
            return Action(player, ActionKind.RESIGN, lineno, col, number, Roll(d1, d2),
                          dice_order=(d1, d2))
        if rest.lower().startswith("illegal play"):
            return _illegal_play(rest, player, lineno, col, number, Roll(d1, d2), (d1, d2), error)
        if rest.lower() == "cannot move":
            rest = ""
        return Action(player, ActionKind.ROLL, lineno, col, number, Roll(d1, d2), rest, play_col,
                      dice_order=(d1, d2))
    if kind in (ActionKind.DOUBLE, ActionKind.BEAVER):
        m = _CUBE_CELL.match(text)
        if not m:
            error(f"cannot read {text!r}: expected 'Doubles => N'")
            return None
        return Action(player, kind, lineno, col, number, value=int(m[2]))
    if kind in (ActionKind.WIN, ActionKind.LOSE):
        m = _RESULT_CELL.match(text)
        if not m:
            error(f"cannot read {text!r}: expected 'Wins N points'")
            return None
        return Action(player, kind, lineno, col, number, value=int(m[2]), match_won=bool(m[3]))
    return Action(player, kind, lineno, col, number)


# ---------------------------------------------------------------------------
# Writing

def gnubg_play(play: Play) -> str:
    """A play as GNU Backgammon exports it: one ``from/to`` per die, bar 25,
    off 0, ``*`` after a hit, each followed by a space.

    >>> gnubg_play(Play.parse("bar/22* 24/18(2)"))
    '25/22* 24/18 24/18 '
    """
    return "".join(f"{s.source}/{s.target}{'*' if s.hit else ''} " for s in play.steps)


def _write_cell(action: Action, play_text: str | None) -> str:
    kind = action.kind
    if kind is ActionKind.SET_BOARD and action.board is not None:
        return f"{action.roll}: Illegal play ({snowie(Setup(action.board))})"
    if kind is ActionKind.ROLL or (kind is ActionKind.RESIGN and action.roll):
        assert action.roll is not None
        if kind is ActionKind.RESIGN:
            return f"{action.roll}: ????"
        return f"{action.roll}: {play_text if play_text is not None else action.play or ''}"
    if kind is ActionKind.DOUBLE:
        return f" Doubles => {action.value}"
    if kind is ActionKind.BEAVER:
        return f" Beavers => {action.value}"
    return {ActionKind.TAKE: " Takes", ActionKind.DROP: " Drops", ActionKind.RESIGN: " Resigns"}[kind]


def mat_text(text: str) -> str:
    """A name or tag value as a ``.mat`` line can hold it: the format has no
    escapes, so a line break or other control character becomes a space.
    Every name and tag the writer puts out goes through here.

    >>> mat_text("Ann\\nSmith")
    'Ann Smith'
    """
    return "".join(" " if not c.isprintable() else c for c in text).strip()


def mat_name(name: str) -> str:
    """A player's name as the score line can hold it (:func:`mat_text`, and
    what would make the line read otherwise changed: a colon, which ends a
    name there, becomes a full stop; a leading ``;`` or ``#``, which would
    make the line a comment, and a trailing ``, 1500``, which readers take
    for a rating, lose their sign).

    >>> mat_name("Ann: the 2nd")
    'Ann. the 2nd'
    """
    text = mat_text(name).replace(":", ".")
    if text[:1] in (";", "#"):
        text = "_" + text[1:]
    return _RATING.sub(lambda m: m[0].replace(",", " ", 1), text)


def write_mat(record: MatchRecord, plays: Mapping[int, str] | None = None) -> str:
    """``.mat`` text for a record, laid out as GNU Backgammon writes it.

    ``plays`` maps ``id(action)`` to the text to write for that play (the
    replay's canonical plays: see :func:`export_mat`); other plays are written
    as read.  Results come from each game's ``Wins`` action.
    """
    out: list[str] = []
    for key, value in record.tags:
        out.append(f'; [{mat_text(key)} "{mat_text(value).replace(chr(34), chr(39))}"]')
    out += [f"; {c}" if c else ";" for c in record.comments if not MAT_TAG.search(c)]
    if record.tags or record.comments:
        out.append("")
    out += [f" {record.length} point match", ""]
    names = [mat_name(name) for name in record.players]
    for game in record.games:
        out.append(f" Game {game.number}")
        left = f"{names[0]} : {game.score[0]}"
        out.append(f" {left:<30} {names[1]} : {game.score[1]}")
        out += [f'; [{k} "{v}"]' for k, v in game.tags if k == AUTO_DOUBLES]
        for number, left_action, right_action in game.rows():
            if number == 0 and left_action is not None and left_action.board is not None:
                out.append(f"; Set Pos={xg_position(Setup(left_action.board))}/{left_action.value or 1}")
                continue
            cells = [_write_cell(a, (plays or {}).get(id(a))) if a else "" for a in (left_action, right_action)]
            out.append(_row(number, cells))
        result = game.result
        if result is not None:
            unit = "point" if result.value == 1 else "points"
            tail = " and the match" if result.match_won else ""
            out.append(" " * (6 if result.player == 0 else 34) + f"Wins {result.value} {unit}{tail}")
        out.append("")
    return "\n".join(out) + "\n"


def _row(number: int, cells: list[str]) -> str:
    left = cells[0]
    right = cells[1] if len(cells) > 1 else ""
    if right and len(left) >= 28 and not left.endswith(" "):
        left += " "  # a long left cell (a Snowie board edit) still ends before the right one
    return f"{number:>3}) {left:<28}{right}".rstrip()


def export_mat(replayed: Any) -> str:
    """``.mat`` text for a replayed match (:class:`~nardtools.notation.replay.ReplayedMatch`):
    backgammon plays as GNU Backgammon writes them, Long Nardy plays in
    canonical notation under ``; [Variation "LongNardy"]`` and a ``Ruleset`` tag.

    The ``.mat`` layout has no place for dice carried over (gul-bara): such a
    record raises :class:`~nardtools.errors.ConversionError`; what
    else it cannot hold (comments in the movetext, glyphs, variations) is left
    out, and :func:`~nardtools.notation.convert.convert` says so."""
    from .replay import with_offers

    record = replayed.record
    long = replayed.ruleset.rules.is_long
    for g in replayed.games:
        carried = next((a for a in g.record.actions if a.part), None)
        if carried is not None:
            raise ConversionError(
                f"game {g.record.number}, turn {carried.number}: the .mat format has no way to write dice "
                f"carried over (+{''.join(map(str, carried.part))}: gul-bara's remainder or crazy gul-bara's "
                "doubles); keep this record in the native format (.nrd)")
    plays = {id(t.action): (str(t.play) if long else gnubg_play(t.play))
             for g in replayed.games for t in g.turns}
    games = [with_offers(g, plays) for g in replayed.games]
    # match-level tags only (a native record's first game carries per-game ones too)
    skip = {"variation", "ruleset", "ruleoptions", "options", "game", "x", "o", "matchlength",
            "score", "gamenumber", "result"}
    tags = [("EventDate" if k == "Date" else k, v) for k, v in record.tags if k.lower() not in skip]
    rules = replayed.ruleset.rules
    if long:
        tags.append(("Variation", "LongNardy"))
    else:
        tags.append(("Variation", {"nackgammon": "NackGammon", "hypergammon": "HyperGammon"}.get(
            rules.start, "Backgammon")))
    ruleset = replayed.ruleset
    if long or ruleset.base_name != "backgammon":
        tags.append(("Ruleset", ruleset.base_name))
    overrides = ruleset.overrides()
    changed = [f"{k}={v}" for k, v in overrides.items()
               if k not in ("start", "cube-limit", "crawford", "cube")]  # said by Variation, CubeLimit, Crawford
    if changed:
        tags.append(("RuleOptions", ";".join(changed)))
    if {"cube", "cube-limit"} & set(overrides):
        tags = [(k, v) for k, v in tags if k.lower() != "cubelimit"] + [
            ("CubeLimit", str(rules.cube_limit if rules.cube else 1))]
    if "crawford" in overrides:
        tags = [(k, v) for k, v in tags if k.lower() != "crawford"] + [("Crawford", "On" if rules.crawford else "Off")]
    notes = [c for c in record.comments if not MAT_TAG.search(c)]
    copy = MatchRecord(record.path, "mat", record.length, record.players, tags, notes, games)
    return write_mat(copy, plays)


def replay_text(text: str, *, path: str = "", **kw: Any) -> ReplayedMatch:
    """Read and replay ``.mat`` text (a convenience for tests and the REPL)."""
    from .replay import replay_match

    return replay_match(read_mat(text, path), **kw)
