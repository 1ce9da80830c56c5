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
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Iterator, Sequence

from ..dice import Roll
from ..errors import InvalidPositionError
from ..position import Position
from .record import AUTO_DOUBLES, MAX_ERRORS, Action, ActionKind, GameRecord, MatchRecord, RecordError, Review
from .sniff import looks_native  # noqa: F401 - part of this module's interface
from .source import MAX_LINE, Overlong
from .tags import MAT_TAG

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


def _chunks(lines: Iterable[str], record: MatchRecord) -> Iterator[tuple[int, str]]:
    """``(first line number, text)`` of each game: a game starts at a tag line
    that follows movetext.  An overlong line is reported and left out."""
    start, body = 0, []  # type: tuple[int, list[str]]  # the game being gathered
    in_tags = False
    for i, line in enumerate(lines, 1):
        if isinstance(line, Overlong):
            record.errors.append(RecordError(
                f"a line of {line.length:,} characters: no line of a record is longer than {MAX_LINE:,}",
                path=record.path, line=i, col=1))
            line = ""
        is_tag = bool(_TAG_START.match(line))
        if is_tag and not in_tags and body:
            if "\n".join(body).strip():
                yield start, "\n".join(body)
            body = []
        if not body:
            start = i
        in_tags = is_tag or (in_tags and not line.strip())
        body.append(line)
    if "\n".join(body).strip():
        yield start, "\n".join(body)


def read_native(text: str, path: str = "") -> MatchRecord:
    """Read native text into a record (syntax only; replay judges legality)."""
    record = MatchRecord(path=path, format="nrd")
    record.games = list(native_games(text.split("\n"), record))
    return record


def native_games(lines: Iterable[str], record: MatchRecord) -> Iterator[GameRecord]:
    """The games of native lines, each as soon as it has been read; the first
    game's tags name the match (players, length) in ``record``.  Syntax
    problems go to ``record.errors`` (after :data:`MAX_ERRORS` the rest of the
    file is not read)."""
    import pyparsing as pp

    from .native_grammar import GAME

    number = 0
    for first_line, chunk in _chunks(lines, record):
        if len(record.errors) >= MAX_ERRORS:
            record.errors.append(RecordError(f"more than {MAX_ERRORS} problems: the rest of the file is not read",
                                             path=record.path, line=first_line, col=1))
            return
        unsound = _unbalanced(chunk)
        if unsound is not None:
            line, col = _where(chunk, unsound[0], first_line)
            record.errors.append(RecordError(f"{unsound[1]}: the game is not read", path=record.path,
                                             line=line, col=col))
            continue
        try:
            nodes = GAME.parse_string(chunk, parse_all=True)
        except pp.ParseBaseException as e:
            record.errors.append(RecordError(
                f"expected {_expected(e)}, found {e.line[e.col - 1:e.col + 11].strip()!r}" if e.line.strip()
                else f"expected {_expected(e)}", path=record.path, line=first_line + e.lineno - 1,
                col=e.col, source_line=e.line))
            continue
        number += 1
        game = _build(list(nodes), chunk, first_line, number, record)
        if number == 1:
            first = dict(game.tags)
            record.tags = list(game.tags)
            record.players = (first.get("X", ""), first.get("O", ""))
            length = first.get("MatchLength", "0") or "0"
            record.length = int(length) if length.isdigit() and len(length) <= 9 else 0
            if record.length == 0 and length != "0":
                record.errors.append(RecordError(f"MatchLength {length[:20]!r} is not a number of points",
                                                 path=record.path, line=first_line, col=1))
        yield game


#: The deepest nesting of variations the reader follows.
MAX_NESTING = 16


def _unbalanced(chunk: str) -> tuple[int, str] | None:
    """``(offset, problem)`` for a comment or quoted value left open, or
    variations nested deeper than :data:`MAX_NESTING`; ``None`` when the
    brackets are sound.  One pass, so that any text costs linear time before
    the grammar sees it."""
    depth = 0
    i, n = 0, len(chunk)
    while i < n:
        c = chunk[i]
        if c == "{":
            end = chunk.find("}", i + 1)
            if end < 0:
                return i, "a comment opened with { is not closed with }"
            i = end
        elif c == '"':
            j = i + 1
            while j < n and chunk[j] != '"':
                j += 2 if chunk[j] == "\\" else 1
            if j >= n:
                return i, 'a quoted value is not closed with "'
            i = j
        elif c == "(":
            depth += 1
            if depth > MAX_NESTING:
                return i, f"variations nested more than {MAX_NESTING} deep"
        elif c == ")":
            depth = max(0, depth - 1)
        i += 1
    return None


def _expected(e: pp.ParseBaseException) -> str:
    msg = str(e.msg)
    return msg[len("Expected "):] if msg.startswith("Expected ") else msg


def _build(nodes: list[Any], chunk: str, first_line: int, number: int, record: MatchRecord) -> GameRecord:
    tags = [(n[2], n[3]) for n in nodes if n[0] == "tag"]
    info = dict(tags)
    score = (0, 0)
    m = re.fullmatch(r"\s*(\d{1,9})\s*-\s*(\d{1,9})\s*", info.get("Score", ""))
    if m:
        score = (int(m[1]), int(m[2]))
    given = info.get("GameNumber", "")
    game = GameRecord(int(given) if given.isdigit() and len(given) <= 9 else number, score, first_line, tags=tags)
    if given and not (given.isdigit() and len(given) <= 9):
        record.errors.append(RecordError(f"GameNumber {given[:20]!r} is not a number", path=record.path,
                                         line=first_line, col=1))
    actions, closing = _actions([n for n in nodes if n[0] != "tag"], chunk, first_line, record)
    game.actions = actions
    game.closing = closing
    _attach_reviews(game, record)
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
            review = _review(node[2].strip(), actions[-1].player) if actions and not leading else None
            if review is not None:
                actions[-1] = dataclasses.replace(actions[-1], review=review)
            elif leading or not actions:
                pending.append(node[2].strip())
            else:
                actions[-1] = dataclasses.replace(actions[-1], after=(*actions[-1].after, node[2].strip()))
            continue
        leading = False
        if kind == "glyph" and actions:
            actions[-1] = dataclasses.replace(actions[-1], glyphs=(*actions[-1].glyphs, node[2]))
        elif kind == "variation" and actions:
            alternative, _ = _actions(node[2], chunk, first_line, record)
            actions[-1] = dataclasses.replace(actions[-1], variations=(*actions[-1].variations, tuple(alternative)))
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


def _review(text: str, player: int) -> Review | None:
    """An SGF analysis kept in a comment (``{[%sgf ...]}``), if ``text`` is one."""
    if not text.startswith("[%sgf "):
        return None
    from .sgf import review_from_comment

    return review_from_comment(text, player)


# ---------------------------------------------------------------------------
# Writing

def _tags_in_order(tags: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    known = dict(tags)
    out = [(k, known[k]) for k in TAG_ORDER if k in known]
    out += [(k, v) for k, v in tags if k not in TAG_ORDER and k != "Result"]
    out.append(("Result", known.get("Result", "*")))
    return out


_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f"})


def quoted(value: str) -> str:
    r"""A tag's or board edit's value as the format writes it between quotes:
    backslash, quote and the line breaks escaped, so that any value, a player
    name with a newline in it included, reads back as it was.  Every quoted
    value the native writers put out goes through here.

    >>> print(quoted('say "hi"\nbye'))
    say \"hi\"\nbye
    """
    return value.translate(_ESCAPES)


def tag_line(key: str, value: str) -> str:
    """One tag line, ``[Key "value"]``, the value :func:`quoted`."""
    return f'[{key} "{quoted(value)}"]'


def _comment(text: str) -> str:
    """A comment in braces; a closing brace inside becomes a parenthesis (the
    format has no escape there)."""
    return "{" + text.replace("}", ")") + "}"


def _action_text(a: Action, plays: dict[int, str], money: bool) -> str:
    side = "XO"[a.player]
    parts = [_comment(c) for c in a.before]
    if a.kind is ActionKind.SET_BOARD:
        dice = f"{side} {a.dice_order[0]}{a.dice_order[1]}: " if a.dice_order else ""
        parts.append(f'{dice}= "{quoted(str(a.board))}"')
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
    if a.review is not None and a.review.text(money):
        parts.append(_comment(a.review.text(money)))
    parts += [_comment(c) for c in a.after]
    for variation in a.variations:
        parts.append("(" + " ".join(_action_text(v, plays, money) for v in variation) + ")")
    return " ".join(parts)


#: How the native format keeps another program's analysis (SGF properties) so
#: that it goes back to SGF unchanged: one comment at the end of the game,
#: ``{[%sgf-reviews`` then a line ``@PATH PROPERTIES`` for each reviewed action
#: (``PATH``: the action's place among the game's actions, from 0, and for
#: one inside a variation ``ACTION.VARIATION.PLACE``), then ``]}``.  The
#: reader sees each review as a readable comment on its action.
REVIEWS = "[%sgf-reviews"


def _reviewed(actions: Sequence[Action], path: str = "") -> Iterator[tuple[str, Review]]:
    """``(path, review)`` of every action with raw review data, variations included."""
    for i, a in enumerate(actions):
        here = f"{path}{i}"
        if a.review is not None and a.review.raw:
            yield here, a.review
        for v, variation in enumerate(a.variations):
            yield from _reviewed(variation, f"{here}.{v}.")


def _reviews_comment(actions: Sequence[Action]) -> str:
    """The game's :data:`REVIEWS` comment, or ``""`` when no action has a review."""
    from .sgf import review_properties

    entries = [f"@{path} {review_properties(review)}" for path, review in _reviewed(actions)]
    return _comment("\n".join([REVIEWS, *entries, "]"])) if entries else ""


def _attach_reviews(game: GameRecord, record: MatchRecord) -> None:
    """Take the game's :data:`REVIEWS` comment out of its comments and put
    each review back on its action, dropping the readable comment that the
    writer derived from it."""
    def take(comments: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]]:
        found = [c for c in comments if c.startswith(REVIEWS)]
        return tuple(c for c in comments if not c.startswith(REVIEWS)), found

    found: list[str] = []
    game.closing, found = take(game.closing)
    for i, a in enumerate(game.actions):
        if any(c.startswith(REVIEWS) for c in a.after):
            after, more = take(a.after)
            game.actions[i] = dataclasses.replace(a, after=after)
            found += more
    if not found:
        return
    from .sgf import review_from_properties

    for text in found:
        body = text[len(REVIEWS):].rstrip()
        body = body[:-1] if body.endswith("\n]") else body
        for entry in body.split("\n@")[1:]:  # (a long entry spans lines: see sgf.review_properties)
            path, _, props = entry.strip().partition(" ")
            try:
                steps = [int(n) for n in path.split(".")]
                game.actions = _with_review(game.actions, steps, props, review_from_properties)
            except (ValueError, IndexError):
                record.errors.append(RecordError(
                    f"the analysis of action {path} names no action of game {game.number}: it is not read",
                    path=record.path, line=game.line, col=1, severity="warning"))


def _with_review(actions: list[Action], steps: list[int], props: str, read: Any) -> list[Action]:
    """``actions`` with the review ``props`` put on the action at ``steps``."""
    out = list(actions)
    a = out[steps[0]]
    if len(steps) == 1:
        review = read(props, a.player)
        if review is None:
            raise ValueError(props)
        readable = {review.text(True), review.text(False)}
        out[steps[0]] = dataclasses.replace(a, review=review, after=tuple(c for c in a.after if c not in readable))
    else:
        variations = list(a.variations)
        variations[steps[1]] = tuple(_with_review(list(variations[steps[1]]), steps[2:], props, read))
        out[steps[0]] = dataclasses.replace(a, variations=tuple(variations))
    return out


def write_native(record: MatchRecord, plays: dict[int, str] | None = None,
                 results: dict[int, str] | None = None) -> str:
    """Canonical native text for a record.  ``plays`` maps ``id(action)`` to a
    canonical play text; ``results`` maps a game's ``id`` to its ``Result`` tag."""
    plays = plays or {}
    money = record.length == 0
    blocks = []
    for game in record.games:
        tags = list(game.tags)
        if results and id(game) in results:
            tags = [(k, v) for k, v in tags if k != "Result"] + [("Result", results[id(game)])]
        lines = [tag_line(k, v) for k, v in _tags_in_order(tags)]
        lines.append("")
        for number, left_action, right_action in game.rows():
            if number == 0 and left_action is not None:  # a board edit on its own
                lines.append(_action_text(left_action, plays, money))
                continue
            row = [f"{number}."]
            if left_action:
                row.append(_action_text(left_action, plays, money))
            if right_action:
                if left_action and right_action.before:  # a comment before the right cell
                    lines.append(" ".join(row))  # opens a continuation row
                    row = [f"{number}..."]
                row.append(_action_text(right_action, plays, money))
            lines.append(" ".join(row))
        result = game.result
        lines += [_comment(c) for c in game.closing]
        reviews = _reviews_comment(game.actions)
        if reviews:
            lines.append(reviews)
        lines.append(_action_text(result, plays, money) if result else "*")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


#: ``.mat`` tags that the native tags above say in their own way.
_MAT_SAID = {"variation", "ruleset", "ruleoptions", "options", "event", "site", "round", "eventdate"}


def game_tags(record: MatchRecord, game: GameRecord, ruleset: Any, result: str) -> list[tuple[str, str]]:
    """Tags for a game converted from another format (``.mat``); the record's
    other tags (a site's match ID, ratings, clock) are kept as they are."""
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
             ("Score", f"{game.score[0]}-{game.score[1]}"), ("GameNumber", str(game.number))]
    named = {k.lower() for k, _ in tags}
    kept: dict[str, tuple[str, str]] = {}
    for k, v in record.tags:
        key = _tag_name(k)
        if k.lower() not in _MAT_SAID and key.lower() not in named and key:
            kept[key.lower()] = (key, v)
    own = [(k, v) for k, v in game.tags if k == AUTO_DOUBLES]
    return tags + list(kept.values()) + own + [("Result", result)]


def _tag_name(name: str) -> str:
    """A tag name the native grammar reads: words of letters, digits, ``_`` and ``-``."""
    return " ".join("".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in word)
                    for word in name.split())


def export_native(replayed: Any, *, games: Collection[int] | None = None,
                  annotate: Callable[[Action], Action] | None = None,
                  tags: Sequence[tuple[str, str]] = ()) -> str:
    """Canonical native text for a replayed match (any source format): plays
    in canonical notation, cube offers with their value, each game's tags and
    its result with the outcome kind.  A ``.mat`` file's comment lines come
    before the first game's first action.  ``games``: only the games of
    these numbers; ``annotate`` may add to each action (glyphs, comments) as
    it is written, as an analysis's handout does, and ``tags`` to each game's
    tags (replacing those of the same names)."""
    from .replay import with_offers

    record = replayed.record
    plays = {id(t.action): str(t.play) for g in replayed.games for t in g.turns}
    copy = dataclasses.replace(record, games=[])
    notes = tuple(c for c in record.comments if not MAT_TAG.search(c)) if record.format == "mat" else ()
    for g in replayed.games:
        if games is not None and g.record.number not in games:
            continue
        grec = with_offers(g, plays)
        outcome = g.game.outcome
        actions = [dataclasses.replace(a, note=str(outcome.kind))
                   if a.kind is ActionKind.WIN and outcome is not None and a.player == outcome.winner
                   and not a.note else a for a in grec.actions]
        if annotate is not None:
            actions = [annotate(a) for a in actions]
        for a_new, a_old in zip(actions, grec.actions):
            if id(a_old) in plays:
                plays[id(a_new)] = plays[id(a_old)]
        if notes and actions:
            actions[0] = dataclasses.replace(actions[0], before=notes + actions[0].before)
            notes = ()
        win = next((a for a in actions if a.kind is ActionKind.WIN), None)
        result = "*"
        if win is not None:
            unit = "point" if win.value == 1 else "points"
            result = f"{'XO'[win.player]} wins {win.value} {unit}" + (f" ({win.note})" if win.note else "")
        own = list(g.record.tags) if record.format == "nrd" else game_tags(record, g.record, replayed.ruleset, result)
        added = dict(tags)
        own = [(k, v) for k, v in own if k != "Result" and k not in added] + list(tags)
        copy.games.append(dataclasses.replace(grec, actions=actions, tags=[*own, ("Result", result)]))
    return write_native(copy, plays)


