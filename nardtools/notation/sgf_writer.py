"""GNU Backgammon's SGF written from a replayed match (:func:`export_sgf`;
docs/format.md, "SGF"): the counterpart of :mod:`.sgf`'s reader."""

from __future__ import annotations

import dataclasses
from typing import Any

from .. import __version__
from ..errors import ConversionError
from .record import AUTO_DOUBLES, Action, ActionKind
from .sgf import COMMENT_JOIN, GLYPH_MARKS, ROOT_TAGS, letter
from .sgf_grammar import escape
from .tags import MAT_TAG


def _prop(name: str, *values: str) -> str:
    return name + "".join(f"[{escape(v)}]" for v in values)


def export_sgf(replayed: Any) -> str:
    """SGF text for a replayed match (:class:`~nardtools.notation.replay.ReplayedMatch`),
    as GNU Backgammon writes it: one game tree per game, plays as the replay
    read them (one pair of letters per die), cube actions, comments and
    glyphs (as the marks ``BM``, ``DO``, ``TE``, ``IT``), and any analysis the
    record carries.  Tags with no SGF property go into the first game's
    ``GC`` as ``[Key "value"]`` lines, as GNU Backgammon keeps a ``.mat``
    file's; the ruleset, when not one GNU Backgammon knows, goes there too.

    Raises :class:`~nardtools.errors.ConversionError` for what SGF
    cannot hold: dice carried over (gul-bara), a board edit in Long Nardy."""

    record = replayed.record
    ruleset = replayed.ruleset
    rules = ruleset.rules
    long = rules.is_long
    plays = {id(t.action): t.play for g in replayed.games for t in g.turns}
    mapped = {tag.lower(): key for key, tag in ROOT_TAGS.items()} | {"date": "DT", "place": "PC",
                                                                       "transcriber": "AN"}
    skip = {"variation", "ruleset", "ruleoptions", "options", "game", "x", "o", "matchlength", "score",
            "gamenumber", "result", "crawford", "cubelimit", "jacoby"}
    root_tags: dict[str, str] = {}
    extra: list[str] = []
    for key, value in record.tags:
        if key.lower() in mapped:
            name = mapped[key.lower()]
            root_tags[name] = value.replace(".", "-") if name == "DT" else value
        elif key.lower() not in skip:
            extra.append(f'[{key} "{value}"]')
    if long or ruleset.base_name != "backgammon":
        extra.append(f'[Ruleset "{ruleset.base_name}"]')
    said_by_flags = () if long else ("start", "crawford", "cube", "jacoby")  # RU: gnubg's own flags
    changed = {k: v for k, v in ruleset.overrides().items() if k not in said_by_flags}
    if changed:
        extra.append('[RuleOptions "' + ";".join(f"{k}={v}" for k, v in changed.items()) + '"]')
    notes = [c for c in record.comments if not MAT_TAG.search(c)]
    flags = [] if long else [f for f, on in (("NoCube", not rules.cube),
                                             ("Crawford", rules.crawford and record.length > 0),
                                             ("Jacoby", rules.jacoby and not record.length)) if on]
    if not long and rules.start != "backgammon":
        flags.append({"nackgammon": "Nackgammon", "hypergammon": "Hypergammon3"}.get(rules.start, rules.start))
    out = []
    for index, g in enumerate(replayed.games):
        grec = g.record
        carried = next((a for a in grec.actions if a.part), None)
        if carried is not None:
            raise ConversionError(f"game {grec.number}, turn {carried.number}: SGF has no way to write dice carried "
                                  f"over (+{''.join(map(str, carried.part))}); keep this record in the native "
                                  "format (.nrd)")
        head = [_prop("FF", "4"), _prop("GM", "106" if long else "6"), _prop("CA", "UTF-8"),
                _prop("AP", f"nardtools:{__version__}"),
                _prop("MI", f"length:{record.length}", f"game:{grec.number - 1}", f"ws:{grec.score[0]}",
                      f"bs:{grec.score[1]}"),
                _prop("PW", record.players[0]), _prop("PB", record.players[1])]
        if index == 0:
            head += [_prop(name, value) for name, value in root_tags.items() if value]
            if extra or notes:
                head.append(_prop("GC", "\n".join(extra + notes)))
        game_flags = flags + (["CrawfordGame"] if g.game.crawford and not long else [])
        if game_flags:
            head.append(_prop("RU", ":".join(game_flags)))
        autos = dict(grec.tags).get(AUTO_DOUBLES, "")
        if autos.isdigit() and int(autos) > 0:
            head.append(_prop("CV", str(1 << int(autos))))
        head.append(_result_prop(g))
        written = [a for a in grec.actions if _writes_node(a)]
        closing = {id(written[-1]): grec.closing} if written else {}
        out.append("(;" + "".join(p for p in head if p) + _sequence(written, plays, long, closing) + ")\n")
    return "".join(out)


def _sequence(actions: list[Action], plays: dict[int, Any], long: bool,
              closing: dict[int, tuple[str, ...]]) -> str:
    """The nodes of ``actions``; at the first action with variations the
    tree branches: the main line goes on in the first subtree, each
    variation (an alternative to that action) in one of its own."""
    nodes: list[str] = []
    for i, action in enumerate(actions):
        if action.variations:
            main = [dataclasses.replace(action, variations=()), *actions[i + 1:]]
            if action is actions[-1] and id(action) in closing:
                closing = {**closing, id(main[0]): closing[id(action)]}
            plays = {**plays, id(main[0]): plays.get(id(action))}
            branches = [_sequence(main, plays, long, closing)]
            branches += [_sequence([a for a in v if _writes_node(a)], plays, long, {}) for v in action.variations]
            return "\n".join(nodes) + "".join(f"\n({branch.lstrip()})" for branch in branches if branch)
        nodes.append(_node(action, plays.get(id(action)), long, closing.get(id(action), ())))
    return "".join(f"\n{node}" for node in nodes)


def _result_prop(g: Any) -> str:
    """``RE`` from the replay's outcome, else the record's ``Wins`` action."""
    outcome = g.game.outcome
    if outcome is not None:
        resigned = outcome.ending.name == "RESIGN"
        return _prop("RE", f"{'WB'[outcome.winner]}+{outcome.points}{'R' if resigned else ''}")
    result = g.record.result
    if result is not None:
        return _prop("RE", f"{'WB'[result.player]}+{result.value}R")
    return ""


def _writes_node(action: Action) -> bool:
    """Whether an action is a node of its own (results are the root's ``RE``;
    a resignation without dice is said by the ``R`` there)."""
    kind = action.kind
    return (kind not in (ActionKind.WIN, ActionKind.LOSE, ActionKind.RESIGN, ActionKind.SET_BOARD)
            or (kind is ActionKind.RESIGN and action.roll is not None)
            or (kind is ActionKind.SET_BOARD and action.board is not None))


def _node(action: Action, play: Any, long: bool, closing: tuple[str, ...] = ()) -> str:

    side = "WB"[action.player]
    kind = action.kind
    if kind is ActionKind.ROLL:
        assert action.roll is not None
        d1, d2 = action.dice_order or (action.roll.high, action.roll.low)
        if play is None:
            from ..play import Play

            try:
                play = Play.parse(action.play or "")
            except ValueError as e:
                raise ConversionError(f"line {action.line}: cannot write the play {action.play!r} in SGF: {e}") \
                    from None
        letters = "".join(letter(s.source, action.player) + letter(s.target, action.player) for s in play.steps)
        body = f";{side}[{d1}{d2}{letters}]"
    elif kind in (ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER):
        body = f";{side}[{kind.value}]"
    elif kind is ActionKind.RESIGN and action.roll is not None:
        d1, d2 = action.dice_order or (action.roll.high, action.roll.low)
        body = f";PL[{side}]DI[{d1}{d2}]"
    elif kind is ActionKind.SET_BOARD and action.board is not None:
        if long:
            raise ConversionError(f"line {action.line}: a board edit in Long Nardy has no SGF form")
        body = _board_node(action)
    else:
        raise AssertionError(f"no SGF node for {kind}")
    review = action.review
    body += "".join(_prop(name, *values) for name, values in review.raw) if review else ""
    body += "".join(GLYPH_MARKS.get(g, "") for g in action.glyphs)
    comments = [*action.before, *action.after, *closing]
    if comments:
        body += _prop("C", COMMENT_JOIN.join(comments))
    return body


def _board_node(action: Action) -> str:
    board = action.board
    assert board is not None
    sides = [board.side_of(0), board.side_of(1)]
    dice = ""
    if action.roll is not None:  # Snowie: the roller's play is not known, only the board after it
        d1, d2 = action.dice_order or (action.roll.high, action.roll.low)
        dice = f";PL[{'WB'[action.player]}]DI[{d1}{d2}]\n"
    white = "".join(f"[{letter(p, 0)}]" * sides[0][p] for p in range(1, 26))
    black = "".join(f"[{letter(p, 1)}]" * sides[1][p] for p in range(1, 26))
    return (f"{dice};PL[{'WB'[board.player]}]AE[a:y]" + (f"AW{white}" if white else "")
            + (f"AB{black}" if black else ""))
