"""Reading and writing the native record format (docs/format.md).

The file is cut into games at tag blocks and each game is parsed on its own, so
a syntax error is reported at its line and column and the other games are
still read.  The writer emits one canonical text: reading and writing again
gives the same text.

>>> text = '''[Game "long"]
... [X "white"]
... [O "black"]
... [Result "*"]
...
... 1. X 64: 24/18/14 {fine} O 51: 24/19/18 ?!
... *
... '''
>>> m = read_native(text)
>>> a = m.games[0].actions[1]
>>> (m.players, str(a.roll), a.play, a.glyphs), write_native(m) == text
((('white', 'black'), '51', '24/19/18', ('?!',)), True)
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any, Sequence

from ..dice import Roll
from ..errors import InvalidPositionError
from ..position import Position
from .record import Action, ActionKind, GameRecord, MatchRecord, RecordError
from .sniff import looks_native  # noqa: F401 - part of this module's interface

if TYPE_CHECKING:
    import pyparsing as pp
# pyparsing and the grammar are imported on first read, so that sniffing a
# format (and validating .mat archives) does not pay for building the grammar.

_SIDES = {"X": 0, "O": 1}
_CUBE = {"double": ActionKind.DOUBLE, "take": ActionKind.TAKE, "drop": ActionKind.DROP,
         "beaver": ActionKind.BEAVER, "resign": ActionKind.RESIGN}
#: Tags in the order the writer puts them; others follow in their own order, Result last.
TAG_ORDER = ("Game", "Ruleset", "Options", "Event", "Site", "Date", "Round", "X", "O",
             "MatchLength", "Score", "GameNumber")
_TAG_START = re.compile(r"^\s*\[")


def _chunks(text: str) -> list[tuple[int, str]]:
    """``(first line number, text)`` of each game: a game starts at a tag line
    that follows movetext."""
    lines = text.split("\n")
    chunks: list[tuple[int, list[str]]] = []
    in_tags = False
    for i, line in enumerate(lines, 1):
        is_tag = bool(_TAG_START.match(line))
        if is_tag and not in_tags:
            chunks.append((i, []))
        in_tags = is_tag or (in_tags and not line.strip())
        if not chunks:
            chunks.append((i, []))
        chunks[-1][1].append(line)
    return [(start, "\n".join(body)) for start, body in chunks if "\n".join(body).strip()]


def read_native(text: str, path: str = "") -> MatchRecord:
    """Read native text into a record (syntax only; replay judges legality)."""
    import pyparsing as pp

    from .native_grammar import GAME

    record = MatchRecord(path=path, format="nrd")
    for first_line, chunk in _chunks(text):
        try:
            nodes = GAME.parse_string(chunk, parse_all=True)
        except pp.ParseBaseException as e:
            record.errors.append(RecordError(
                f"expected {_expected(e)}, found {e.line[e.col - 1:e.col + 11].strip()!r}" if e.line.strip()
                else f"expected {_expected(e)}", path=path, line=first_line + e.lineno - 1,
                col=e.col, source_line=e.line))
            continue
        game = _build(list(nodes), chunk, first_line, len(record.games) + 1, record)
        record.games.append(game)
    if record.games:
        first = dict(record.games[0].tags)
        record.tags = list(record.games[0].tags)
        record.players = (first.get("X", ""), first.get("O", ""))
        record.length = int(first.get("MatchLength", "0") or 0)
    return record


def _expected(e: pp.ParseBaseException) -> str:
    msg = str(e.msg)
    return msg[len("Expected "):] if msg.startswith("Expected ") else msg


def _build(nodes: list[Any], chunk: str, first_line: int, number: int, record: MatchRecord) -> GameRecord:
    tags = [(n[2], n[3]) for n in nodes if n[0] == "tag"]
    info = dict(tags)
    score = (0, 0)
    m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", info.get("Score", ""))
    if m:
        score = (int(m[1]), int(m[2]))
    game = GameRecord(int(info.get("GameNumber", number) or number), score,
                      first_line, tags=tags)
    actions, closing = _actions([n for n in nodes if n[0] != "tag"], chunk, first_line, record)
    game.actions = actions
    game.closing = closing
    return game


def _where(chunk: str, loc: int, first_line: int) -> tuple[int, int]:
    import pyparsing as pp

    return first_line + pp.lineno(loc, chunk) - 1, pp.col(loc, chunk)


def _actions(nodes: Sequence[Any], chunk: str, first_line: int,
             record: MatchRecord) -> tuple[list[Action], tuple[str, ...]]:
    """Nodes into actions.  A comment at the start or right after a move number
    comes before the next action; any other comment follows the previous one."""

    def board(text: str, line: int, col: int) -> Position | None:
        try:
            return Position.parse(text)
        except InvalidPositionError as e:
            record.errors.append(RecordError(f"cannot read the board edit: {e}", path=record.path,
                                             line=line, col=col))
            return None

    actions: list[Action] = []
    pending: list[str] = []
    number = 0
    leading = True  # at the start, or just after a move number
    for node in nodes:
        kind, loc = node[0], node[1]
        line, col = _where(chunk, loc, first_line)
        if kind == "number":
            number = int(node[2].rstrip("."))
            leading = True
            continue
        if kind == "comment":
            if leading or not actions:
                pending.append(node[2].strip())
            else:
                actions[-1] = dataclasses.replace(actions[-1], after=actions[-1].after + (node[2].strip(),))
            continue
        leading = False
        if kind == "glyph" and actions:
            actions[-1] = dataclasses.replace(actions[-1], glyphs=actions[-1].glyphs + (node[2],))
        elif kind == "variation" and actions:
            alternative, _ = _actions(node[2], chunk, first_line, record)
            actions[-1] = dataclasses.replace(actions[-1], variations=actions[-1].variations + (tuple(alternative),))
        elif kind == "roll":
            side, dice, play = node[2], node[3], node[4]
            play_col = col + chunk[loc:].find(dice) + len(dice) + 1
            if dice.startswith("+"):  # dice carried over: a crazy sequence, or a remainder
                part = tuple(sorted((int(c) for c in dice[1:-1]), reverse=True))
                actions.append(Action(_SIDES[side], ActionKind.ROLL, line, col, number, None, play,
                                      play_col, part=part, before=tuple(pending)))
                pending = []
                continue
            d1, d2 = int(dice[0]), int(dice[1])
            if isinstance(play, tuple):  # "X 21: = \"position\"": rolled, then the board as recorded
                edited = board(play[1], line, play_col)
                if edited is not None:
                    actions.append(Action(_SIDES[side], ActionKind.SET_BOARD, line, col, number, Roll(d1, d2),
                                          dice_order=(d1, d2), board=edited, before=tuple(pending)))
                pending = []
                continue
            kind_ = ActionKind.RESIGN if play == "????" else ActionKind.ROLL  # rolled, then resigned
            actions.append(Action(_SIDES[side], kind_, line, col, number, Roll(d1, d2),
                                  None if play == "????" else play, play_col, dice_order=(d1, d2),
                                  before=tuple(pending)))
            pending = []
        elif kind == "board":
            edited = board(node[2], line, col)
            if edited is not None:
                actions.append(Action(edited.player, ActionKind.SET_BOARD, line, col, number, board=edited,
                                      before=tuple(pending)))
            pending = []
        elif kind == "cube":
            actions.append(Action(_SIDES[node[2]], _CUBE[node[3]], line, col, number, value=node[4],
                                  before=tuple(pending)))
            pending = []
        elif kind == "result" and node[2]:
            actions.append(Action(_SIDES[node[2]], ActionKind.WIN, line, col, number, value=node[3],
                                  note=node[4], before=tuple(pending)))
            pending = []
    return actions, tuple(pending)


# ---------------------------------------------------------------------------
# Writing

def _tags_in_order(tags: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    known = {k: v for k, v in tags}
    out = [(k, known[k]) for k in TAG_ORDER if k in known]
    out += [(k, v) for k, v in tags if k not in TAG_ORDER and k != "Result"]
    out.append(("Result", known.get("Result", "*")))
    return out


def _action_text(a: Action, plays: dict[int, str]) -> str:
    side = "XO"[a.player]
    parts = [f"{{{c}}}" for c in a.before]
    if a.kind is ActionKind.SET_BOARD:
        dice = f"{side} {a.dice_order[0]}{a.dice_order[1]}: " if a.dice_order else ""
        parts.append(f'{dice}= "{a.board}"')
    elif a.kind is ActionKind.ROLL:
        play = plays.get(id(a), a.play or "")
        if a.part:
            dice = "+" + "".join(map(str, a.part))
        else:
            dice = f"{a.dice_order[0]}{a.dice_order[1]}" if a.dice_order else str(a.roll)
        parts.append(f"{side} {dice}: {play or '-'}")
    elif a.kind is ActionKind.WIN:
        unit = "point" if a.value == 1 else "points"
        parts.append(f"{side} wins {a.value} {unit}" + (f" ({a.note})" if a.note else ""))
    elif a.kind is ActionKind.RESIGN and a.roll is not None:
        parts.append(f"{side} {a.roll}: ????")
    elif a.kind in (ActionKind.DOUBLE, ActionKind.BEAVER) and a.value:
        parts.append(f"{side} {a.kind.value} => {a.value}")
    else:
        parts.append(f"{side} {a.kind.value}")
    parts += list(a.glyphs)
    parts += [f"{{{c}}}" for c in a.after]
    for variation in a.variations:
        parts.append("(" + " ".join(_action_text(v, plays) for v in variation) + ")")
    return " ".join(parts)


def write_native(record: MatchRecord, plays: dict[int, str] | None = None,
                 results: dict[int, str] | None = None) -> str:
    """Canonical native text for a record.  ``plays`` maps ``id(action)`` to a
    canonical play text; ``results`` maps a game's ``id`` to its ``Result`` tag."""
    plays = plays or {}
    blocks = []
    for game in record.games:
        tags = list(game.tags)
        if results and id(game) in results:
            tags = [(k, v) for k, v in tags if k != "Result"] + [("Result", results[id(game)])]
        lines = [f'[{k} "{v}"]' for k, v in _tags_in_order(tags)]
        lines.append("")
        for number, left_action, right_action in game.rows():
            if number == 0 and left_action is not None:  # a board edit on its own
                lines.append(_action_text(left_action, plays))
                continue
            row = [f"{number}."]
            if left_action:
                row.append(_action_text(left_action, plays))
            if right_action:
                if left_action and right_action.before:  # a comment before the right cell
                    lines.append(" ".join(row))  # opens a continuation row
                    row = [f"{number}..."]
                row.append(_action_text(right_action, plays))
            lines.append(" ".join(row))
        result = game.result
        lines += [f"{{{c}}}" for c in game.closing]
        lines.append(_action_text(result, plays) if result else "*")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def game_tags(record: MatchRecord, game: GameRecord, ruleset: Any, result: str) -> list[tuple[str, str]]:
    """Tags for a game converted from another format (``.mat``)."""
    tags = [("Game", ruleset.rules.game.value), ("Ruleset", ruleset.base_name)]
    changed = [f"{k}={v}" for k, v in ruleset.overrides().items()]
    if changed:
        tags.append(("Options", ";".join(changed)))
    for key in ("Event", "Site", "Round"):
        if record.tag(key):
            tags.append((key, record.tag(key)))
    if record.tag("EventDate"):
        tags.append(("Date", record.tag("EventDate")))
    tags += [("X", record.players[0]), ("O", record.players[1]), ("MatchLength", str(record.length)),
             ("Score", f"{game.score[0]}-{game.score[1]}"), ("GameNumber", str(game.number)),
             ("Result", result)]
    return tags


def export_native(replayed: Any) -> str:
    """Canonical native text for a replayed match (any source format): plays
    in canonical notation, each game's tags and its result with the outcome kind."""
    record = replayed.record
    plays = {id(t.action): str(t.play) for g in replayed.games for t in g.turns}
    copy = dataclasses.replace(record, games=[])
    for g in replayed.games:
        outcome = g.game.outcome
        actions = [dataclasses.replace(a, note=str(outcome.kind))
                   if a.kind is ActionKind.WIN and outcome is not None and a.player == outcome.winner
                   and not a.note else a for a in g.record.actions]
        for a_new, a_old in zip(actions, g.record.actions):
            if id(a_old) in plays:
                plays[id(a_new)] = plays[id(a_old)]
        win = next((a for a in actions if a.kind is ActionKind.WIN), None)
        result = "*"
        if win is not None:
            unit = "point" if win.value == 1 else "points"
            result = f"{'XO'[win.player]} wins {win.value} {unit}" + (f" ({win.note})" if win.note else "")
        tags = list(g.record.tags) if record.format == "nrd" else game_tags(record, g.record, replayed.ruleset, result)
        copy.games.append(dataclasses.replace(g.record, actions=actions,
                                              tags=[(k, v) for k, v in tags if k != "Result"] + [("Result", result)]))
    return write_native(copy, plays)
