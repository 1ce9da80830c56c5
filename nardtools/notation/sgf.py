"""GNU Backgammon's SGF (``GM[6]``), read (docs/format.md, "SGF"; written by
:mod:`.sgf_writer`).

A file is a collection of game trees, one per game: a root node with the
game's properties (``MI`` match length, game number and score, ``PW``/``PB``
the players, ``RU`` the rules, ``RE`` the result, ...), then one node per
action: ``W[64aggk]`` (white rolled 64 and moved from ``a`` to ``g`` and
from ``g`` to ``k``: letters count the mover's points from ``a`` = 1, upward
for white and downward from ``x`` for black; ``y`` is the bar and ``z`` off),
``B[double]``, ``W[take]``, ``W[drop]``, set-up nodes (``AE``/``AW``/``AB``,
``PL``, ``DI``), comments ``C[...]``, and GNU Backgammon's analysis (``A``,
``DA``, ``LU``, the marks ``BM``/``DO``).  White is the left (first-named)
player of a ``.mat`` file: player 0.

Grammar and meaning are kept apart: :func:`.sgf_grammar.parse_trees` reads
the SGF grammar into located nodes; :func:`sgf_games` turns each game tree into a
:class:`~nardtools.notation.record.GameRecord`; the replay judges legality.
Variations become the record's variations; properties nardtools does not
know are skipped with a warning, never fatal.

Long Nardy has no number in the SGF registry: nardtools writes it as
``GM[106]`` (backgammon's 6, plus 100), with the same move letters (the
mover's points, ``z`` off), which GNU Backgammon skips as "no backgammon
games" rather than misreads.

>>> record = read_sgf('(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[bob]RE[B+1]'
...                   ';B[41lpab];W[31fehe]C[the best])')
>>> record.length, record.players, [(a.player, str(a.roll), a.play) for a in record.games[0].actions[:2]]
(3, ('ann', 'bob'), [(1, '41', '13/9 24/23'), (0, '31', '6/5 8/5')])
>>> record.games[0].actions[1].after, record.games[0].result.value
(('the best',), 1)
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..dice import Roll
from ..position import BAR, OFF, Position
from .record import AUTO_DOUBLES, MAX_ERRORS, Action, ActionKind, GameRecord, MatchRecord, RecordError, Review
from .sgf_grammar import Prop, Tree, escape, parse_trees

#: ``GM`` values: backgammon's registered number, and the one nardtools uses for Long Nardy.
GAME_NUMBERS = {"6": "backgammon", "106": "long"}
#: Comments written on one node are joined with this, and split at it when read.
COMMENT_JOIN = "\n\n"

# Root properties and the tags they become (dates are converted).
ROOT_TAGS = {"EV": "Event", "RO": "Round", "PC": "Site", "AN": "Annotator", "DT": "EventDate",
             "WR": "Player 1 Rating", "BR": "Player 2 Rating"}
# Properties read elsewhere, or knowingly ignored (GS: game statistics, recomputed by the analysis).
_KNOWN = {"FF", "GM", "CA", "AP", "MI", "PW", "PB", "RU", "RE", "CV", "GC", "GS", "SZ", "US", "SO",
          "W", "B", "C", "AE", "AW", "AB", "PL", "DI", "CP", "N",
          "BM", "DO", "TE", "IT", "A", "DA", "LU", "MR", "CR", "GB", "GW", "BC", "DC", *ROOT_TAGS}
# Analysis properties kept on a review, written back as read.
_ANALYSIS = ("DA", "CR", "A", "MR", "LU", "GB", "GW", "BC", "DC")
# Move marks and the glyphs they are.
_MARK_GLYPHS = {("BM", "1"): "?", ("BM", "2"): "??", ("DO", ""): "?!", ("TE", "1"): "!", ("TE", "2"): "!!",
                ("IT", ""): "!?"}
GLYPH_MARKS = {glyph: f"{key}[{value}]" for (key, value), glyph in _MARK_GLYPHS.items()}
_CUBE_WORDS = {"double": ActionKind.DOUBLE, "take": ActionKind.TAKE, "drop": ActionKind.DROP,
               "beaver": ActionKind.BEAVER}
_TAG_LINE = re.compile(r'^\s*\[\s*([^"\]\s][^"\]]{0,80}?)\s+"([^"]*)"\s*\]\s*$')
_MOVE = re.compile(r"([1-6])([1-6])((?:[a-z]{2}){0,8})")


# ---------------------------------------------------------------------------
# Meaning: trees into records

def _point(letter: str, player: int) -> int:
    """A move letter as the mover's point (25 the bar, 0 off)."""
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    return ord(letter) - ord("a") + 1 if player == 0 else ord("x") - ord(letter) + 1


def letter(point: int, player: int) -> str:
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") - point + 1)


def _play_text(letters: str, player: int) -> str:
    """``"aggk"`` as ``"24/18 18/14"`` (for black; pairs of from and to)."""
    return " ".join(f"{_point(letters[i], player)}/{_point(letters[i + 1], player)}"
                    for i in range(0, len(letters) - 1, 2))


@dataclass
class _Reading:
    """What reading one file needs along the way."""

    record: MatchRecord
    games_seen: int = 0

    def problem(self, message: str, prop: Prop | Tree | None, severity: str = "error") -> None:
        line, col = (prop.line, prop.col) if prop is not None else (0, 0)
        self.record.errors.append(RecordError(message, path=self.record.path, line=line, col=col,
                                              severity=severity))


def read_sgf(text: str, path: str = "") -> MatchRecord:
    """Read SGF text into a record (syntax only; replay judges legality)."""
    record = MatchRecord(path=path, format="sgf")
    record.games = list(sgf_games(text, record))
    return record


def read_sgf_file(path: str | Path) -> MatchRecord:
    from .sniff import decode, read_limited

    return read_sgf(decode(read_limited(path)), str(path))


def sgf_games(text: str, record: MatchRecord) -> Iterator[GameRecord]:
    """The games of SGF text, each as soon as its tree is read; the match's
    length, players, tags and comments go into ``record`` from the first
    game's root.  A game of another kind than backgammon or Long Nardy is
    reported and skipped; a file that leaves the grammar is reported where it
    does, after the games before that point."""
    reading = _Reading(record)
    try:
        for tree in parse_trees(text, record.path):
            if len(record.errors) >= MAX_ERRORS:
                reading.problem(f"more than {MAX_ERRORS} problems: the rest of the file is not read", tree)
                return
            game = _game(tree, reading)
            if game is not None:
                yield game
    except RecordError as e:
        record.errors.append(e)
    if not reading.games_seen and not record.errors:
        reading.problem("no backgammon or Long Nardy game (GM[6] or GM[106]) in the file", None)


def _game(tree: Tree, reading: _Reading) -> GameRecord | None:
    record = reading.record
    root = {p.name: p for p in tree.nodes[0]}
    gm = root.get("GM")
    kind = GAME_NUMBERS.get(gm.value.strip()) if gm else None
    if kind is None:
        got = f"GM[{gm.value}]" if gm else "no GM property"
        reading.problem(f"unknown game: {got}; nardtools reads GM[6] (backgammon) and GM[106] (Long Nardy)",
                        gm or tree)
        return None
    rules = root.get("RU")
    unknown = {"Hypergammon1", "Hypergammon2"} & set(rules.value.split(":")) if rules else set()
    if unknown:
        reading.problem(f"{', '.join(sorted(unknown))} (GNU Backgammon's hypergammon with fewer than three "
                        "checkers) is not a variant nardtools knows: the game is skipped", rules)
        return None
    first = reading.games_seen == 0
    reading.games_seen += 1
    info = _match_info(root.get("MI"))
    if first:
        record.length = info.get("length", 0)
        record.players = (root["PW"].value if "PW" in root else "", root["PB"].value if "PB" in root else "")
        if kind == "long":
            record.tags.append(("Game", "long"))
        for key, tag in ROOT_TAGS.items():
            if key in root and root[key].value.strip():
                value = root[key].value.strip()
                record.tags.append((tag, value.replace("-", ".") if key == "DT" else value))
        if "GC" in root:
            for line in root["GC"].value.split("\n"):
                if line.strip():
                    record.comments.append(line.strip())
                    m = _TAG_LINE.match(line)
                    if m:
                        record.tags.append((m[1], m[2]))
        record.tags += _rule_tags(root.get("RU"), kind, record.length)
    game = GameRecord(info.get("game", reading.games_seen - 1) + 1, (info.get("ws", 0), info.get("bs", 0)),
                      tree.line)
    if "CV" in root:
        n = root["CV"].value.strip()
        if n.isdigit() and int(n) > 1 and int(n) & (int(n) - 1) == 0:
            game.tags.append((AUTO_DOUBLES, str(int(n).bit_length() - 1)))
    for name, prop in root.items():
        if name not in _KNOWN:
            reading.problem(f"property {name}[{prop.value[:40]}] is not known to nardtools: skipped", prop,
                            "warning")
    actions = _line(tree, reading, first_node=1)
    result = _result(root.get("RE"), game, record.length)
    if result is not None:
        if "R" in root["RE"].value.upper()[2:] and actions and _dice_only(actions[-1]):
            # rolled, then resigned: gnubg keeps the dice on a DI node
            actions[-1] = dataclasses.replace(actions[-1], kind=ActionKind.RESIGN)
        actions.append(result)
    if "C" in root and actions:  # a comment on the game's root: before its first action
        before = tuple(c.strip() for c in root["C"].value.split(COMMENT_JOIN) if c.strip())
        actions[0] = dataclasses.replace(actions[0], before=before + actions[0].before)
    game.actions = _settle_dice(actions)
    numbers = {id(a): number for number, *cells in game.rows() for a in cells if a is not None}
    game.actions = [dataclasses.replace(a, number=numbers.get(id(a), a.number)) for a in game.actions]
    return game


def _dice_only(action: Action) -> bool:
    """A ``DI`` node read (dice set, no move yet), which :func:`_settle_dice`
    resolves once the game is read."""
    return action.kind is ActionKind.SET_BOARD and action.board is None


def _settle_dice(actions: list[Action]) -> list[Action]:
    """Dice set just before a board set-up are the roll of a play the record
    does not give, only the board after it (Snowie's "Illegal play", as
    nardtools writes it); other dice set without a move are dropped."""
    out: list[Action] = []
    for i, a in enumerate(actions):
        if _dice_only(a):
            continue
        before = actions[i - 1] if i else None
        if a.kind is ActionKind.SET_BOARD and before is not None and _dice_only(before):
            a = dataclasses.replace(a, player=before.player, roll=before.roll, dice_order=before.dice_order,
                                    line=before.line, col=before.col)
        out.append(a)
    return out


def _match_info(prop: Prop | None) -> dict[str, int]:
    """``MI[length:7][game:0][ws:0][bs:0]`` as a dict of numbers."""
    out: dict[str, int] = {}
    for value in prop.values if prop else []:
        key, _, number = value.partition(":")
        if number.strip().isdigit() and len(number.strip()) <= 9:
            out[key.strip()] = int(number)
    return out


def _rule_tags(prop: Prop | None, kind: str, length: int) -> list[tuple[str, str]]:
    """``RU[Crawford:Jacoby:Nackgammon]`` as the tags the rest of nardtools reads."""
    flags = set(prop.value.split(":")) if prop else set()
    tags: list[tuple[str, str]] = []
    if kind == "backgammon":
        variation = next((v for f, v in (("Nackgammon", "NackGammon"), ("Hypergammon3", "HyperGammon"))
                          if f in flags), "Backgammon")
        tags.append(("Variation", variation))
    if "NoCube" in flags:
        tags.append(("CubeLimit", "1"))
    if kind == "backgammon" and length > 0 and "Crawford" not in flags:
        tags.append(("Crawford", "Off"))
    if kind == "backgammon" and not length and "Jacoby" in flags:  # (off in the backgammon ruleset)
        tags.append(("RuleOptions", "jacoby=yes"))
    return tags


def _result(prop: Prop | None, game: GameRecord, length: int) -> Action | None:
    """``RE[W+2]`` / ``RE[B+1R]``: the winner's ``Wins`` action."""
    if prop is None:
        return None
    m = re.match(r"\s*([WB])\+(\d{1,9})", prop.value, re.IGNORECASE)
    if not m:
        return None
    player = 0 if m[1].upper() == "W" else 1
    points = int(m[2])
    won = bool(length) and game.score[player] + points >= length
    return Action(player, ActionKind.WIN, prop.line, prop.col, 0, value=points, match_won=won)


def _line(tree: Tree, reading: _Reading, first_node: int) -> list[Action]:
    """The actions of a tree's main line; other children become variations of
    the first action of the first child."""
    actions: list[Action] = []
    for node in tree.nodes[first_node:]:
        action = _action(node, reading)
        if action is not None:
            actions.append(action)
    if tree.children:
        main = _line(tree.children[0], reading, 0)
        others = tuple(tuple(_line(child, reading, 0)) for child in tree.children[1:])
        others = tuple(v for v in others if v)
        if main and others:
            main[0] = dataclasses.replace(main[0], variations=main[0].variations + others)
        actions += main
    return actions


def _action(node: list[Prop], reading: _Reading) -> Action | None:
    """One node as an action: a move, a cube action, a board set-up, or dice
    set (a board-less ``SET_BOARD`` action holding the dice, which
    :func:`_settle_dice` keeps as the roll of the set-up that follows or drops)."""
    props = {p.name: p for p in node}
    for prop in node:
        if prop.name not in _KNOWN:
            reading.problem(f"property {prop.name}[{prop.value[:40]}] is not known to nardtools: skipped", prop,
                            "warning")
    move = props.get("W") or props.get("B")
    comments = tuple(c.strip() for c in props["C"].value.split(COMMENT_JOIN) if c.strip()) if "C" in props else ()
    glyphs = tuple(g for (key, value), g in _MARK_GLYPHS.items()
                   if key in props and props[key].value.strip() == value)
    if move is not None:
        player = 0 if move.name == "W" else 1
        text = move.value.strip()
        if text.lower() in _CUBE_WORDS:
            return Action(player, _CUBE_WORDS[text.lower()], move.line, move.col, after=comments, glyphs=glyphs,
                          review=_review(props, player))
        m = _MOVE.fullmatch(text)
        if not m or any(c not in "abcdefghijklmnopqrstuvwxyz" for c in m[3]) or not _letters_ok(m[3]):
            reading.problem(f"cannot read the move {move.name}[{text[:40]}]: expected two dice 1-6 and pairs of "
                            "letters a-x (points), y (bar), z (off), or double, take, drop", move)
            return None
        d1, d2 = int(m[1]), int(m[2])
        return Action(player, ActionKind.ROLL, move.line, move.col, roll=Roll(d1, d2),
                      play=_play_text(m[3], player), play_col=move.col + 2, dice_order=(d1, d2), after=comments,
                      glyphs=glyphs, review=_review(props, player), by_effect=True)
    if {"AE", "AW", "AB"} & set(props):
        return _set_board(props, reading)
    if "DI" in props:
        dice = props["DI"].value.strip()
        who = props.get("PL")
        if re.fullmatch(r"[1-6][1-6]", dice):
            player = 1 if who is not None and who.value.strip().upper() == "B" else 0
            return Action(player, ActionKind.SET_BOARD, props["DI"].line, props["DI"].col,
                          roll=Roll(int(dice[0]), int(dice[1])), dice_order=(int(dice[0]), int(dice[1])),
                          after=comments)
    if comments and node:
        reading.problem("a comment on a node with no move: kept with the next action", node[0], "warning")
    return None


def _letters_ok(letters: str) -> bool:
    return all(c in "abcdefghijklmnopqrstuvwxyz" for c in letters)


def _set_board(props: dict[str, Prop], reading: _Reading) -> Action | None:
    """``AE[a:y]AW[..]AB[..]PL[W]``: the board from here on.  White's checkers
    are its points as letters ``a``=1 upward, black's from ``x``=1 down; ``y``
    is the bar."""
    sides: list[dict[int, int]] = [{}, {}]
    for name, player in (("AW", 0), ("AB", 1)):
        for value in props[name].values if name in props else []:
            if len(value) != 1 or not "a" <= value <= "y":
                reading.problem(f"cannot read the point {name}[{value}]: expected a letter a-y", props[name])
                return None
            point = _point(value, player)
            sides[player][point] = sides[player].get(point, 0) + 1
    mover = 1 if "PL" in props and props["PL"].value.strip().upper() == "B" else 0
    where = props.get("AE") or props.get("AW") or props.get("AB")
    assert where is not None
    try:
        board = Position.from_points("backgammon", sides[mover], sides[1 - mover], player=mover)
    except ValueError as e:
        reading.problem(f"cannot set the board: {e}", where)
        return None
    return Action(mover, ActionKind.SET_BOARD, where.line, where.col, board=board)


def _review(props: dict[str, Prop], player: int) -> Review | None:
    """GNU Backgammon's analysis of a move or cube action, if the node has one:
    ``A[i][letters E ver 3 p1 p2 p3 p4 p5 equity plies ...]...`` ranks the
    candidate plays (``X ver 3 Score s ...`` for a rolled-out one), ``i``
    being the play made; ``LU`` is the luck of the roll.  Cube analyses
    (``DA``) are kept as read."""
    raw = tuple((name, tuple(props[name].values)) for name in _ANALYSIS if name in props)
    if not raw:
        return None
    plays: list[tuple[str, float]] = []
    plies: set[str] = set()
    played = None
    if "A" in props:
        values = props["A"].values
        played = int(values[0]) if values and values[0].strip().isdigit() else None
        for entry in values[1:]:
            letters, _, rest = entry.partition(" ")
            fields = rest.split()
            if fields[:1] == ["E"] and len(fields) >= 10:  # E ver 3, five probabilities, equity, plies
                equity = _number(fields[8])
                plies.add(f"{fields[9].rstrip('C')}-ply")
            elif fields[:1] == ["X"]:
                equity = _rollout_equity(fields)
                plies.add("rollout")
            else:
                continue
            if equity is not None and _letters_ok(letters):
                plays.append((_play_text(letters, player), equity))
    evaluator = "gnubg " + "/".join(sorted(plies)) if plies else "gnubg"
    luck = _number(props["LU"].value) if "LU" in props else None
    return Review(evaluator, tuple(plays), played, luck, _cube(props.get("DA")), raw)


def _cube(prop: Prop | None) -> tuple[float, float, float] | None:
    """``DA``: a cube decision's outputs, seven for no double then seven for
    double/take (five probabilities, the cubeless equity, the cubeful value),
    after ``E ver 3 plies ...`` (four fields) or, rolled out, each after
    ``Output``: the cubeless equity and the two cubeful values."""
    if prop is None:
        return None
    fields = prop.value.split()
    if fields[:1] == ["E"] and len(fields) >= 21:
        values = [_number(fields[i]) for i in (12, 13, 20)]
    elif fields[:1] == ["X"] and fields.count("Output") >= 2:
        first = fields.index("Output")
        second = fields.index("Output", first + 1)
        values = [_number(f) for f in (fields[first + 6], fields[first + 7], fields[second + 7])] \
            if len(fields) > second + 7 else [None]
    else:
        return None
    if any(v is None for v in values):
        return None
    cubeless, no_double, take = values
    assert cubeless is not None and no_double is not None and take is not None
    return cubeless, no_double, take


def _number(text: str) -> float | None:
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _rollout_equity(fields: list[str]) -> float | None:
    """The equity of a rolled-out move: ``X ver 3 Score s s2 ...``."""
    try:
        return _number(fields[fields.index("Score") + 1])
    except (ValueError, IndexError):
        return None


#: The longest line of SGF properties the native format keeps for a review
#: before it breaks them (a record's lines are read up to 10,000 characters).
_PROPERTIES_LINE = 2000


def review_properties(review: Review) -> str:
    """A review's SGF properties as text (``A[...]LU[...]``), as the native
    format keeps them (:data:`nardtools.notation.native.REVIEWS`).  A long
    one is broken before each value by SGF's soft line break (a backslash
    before the line end, which reading removes), so that no line starts
    with ``[``."""
    text = "".join(name + "".join(f"[{escape(v)}]" for v in values) for name, values in review.raw)
    if len(text) <= _PROPERTIES_LINE:
        return text
    return "".join(name + "".join(f"[\\\n{escape(v)}]" for v in values) for name, values in review.raw)


def review_from_properties(text: str, player: int) -> Review | None:
    """The review that SGF properties (``A[...]LU[...]``) hold, or ``None``.

    >>> r = review_from_properties("A[0][aggk E ver 3 0.5 0.1 0 0.1 0 -0.0002 0C 0 1 0 1]LU[-0.1]", 1)
    >>> r.plays, r.luck, r.evaluator
    ((('24/18 18/14', -0.0002),), -0.1, 'gnubg 0-ply')
    """
    try:
        tree = next(parse_trees("(;" + text + ")"))
    except (RecordError, StopIteration):
        return None
    return _review({p.name: p for p in tree.nodes[0]}, player)


#: How an earlier native format kept an SGF analysis: a comment
#: ``{[%sgf A[...]LU[...]]}`` after the action (still read).
REVIEW_PREFIX = "[%sgf "


def review_from_comment(text: str, player: int) -> Review | None:
    """The review an earlier native comment (:data:`REVIEW_PREFIX`) holds, or ``None``."""
    if not (text.startswith(REVIEW_PREFIX) and text.endswith("]")):
        return None
    return review_from_properties(text[len(REVIEW_PREFIX):-1], player)
