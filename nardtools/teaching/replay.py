"""Annotated replays: the frames of a game, as one self-contained HTML page or
step by step on a terminal.

:func:`game_frames` turns a replayed game into frames: the starting position,
then the position after every play, each with the play's dice, its canonical
and written text, the record's comments and glyphs, and the automatic
annotations of :mod:`nardtools.analysis.annotate` (forced move, number of
legal plays, pip counts, race odds and race error, the rule when an illegal
play was applied).  Boards are given from player 0's view throughout, so the
board does not turn round between turns.

:func:`replay_html` writes the frames of a whole match (or of one game) into
one HTML file with its script and styles inline (no network access, no
external assets; the page itself is ``page/replay.{html,css,js}``): a score
bar and the games, a list of turns and cube actions to click on, buttons and
keys to step, the board drawn as SVG with the cube and score (and turned
round on request), charts of both sides' pip counts (and the race P(win)
where exact) and, where the record or an evaluator analysed it, of the
equity with the errors marked.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..analysis.annotate import TurnNote, annotate_game
from ..notation.record import Review
from ..notation.replay import ReplayedGame, ReplayedMatch
from ..play import Step
from ..position import BAR, Position
from ..rules import GAME_NAMES
from ..setup import Setup
from .diagram import diagram

if TYPE_CHECKING:
    from ..analysis.analyse import CubeAnalysis, TurnAnalysis

    #: What a replay shows of an analysis: plays, and cube decisions.
    Analysed = TurnAnalysis | CubeAnalysis


@dataclass
class Frame:
    """One step of a replay: a position and how it was reached."""

    index: int
    position: Position
    note: TurnNote | None = None  # the play that led here (None for the start)
    lines: list[str] = field(default_factory=list)  # the annotations, as sentences
    analysis: TurnAnalysis | None = None  # an evaluator's verdict, when asked for


#: A slot of the page template.
_SLOT = re.compile(r"\{\{(TITLE|STYLE|SCRIPT|DATA)\}\}")

def _fmt_equity(x: float) -> str:
    return f"{x:+.3f}"


def describe(note: TurnNote, names: tuple[str, str], *, persian: bool = False,
             analysis: TurnAnalysis | None = None) -> list[str]:
    """The automatic annotations of one play, as sentences (with an
    evaluator's :class:`~nardtools.analysis.analyse.TurnAnalysis`, its verdict too)."""
    who = names[note.player]
    roll = f"rolled {note.dice}" if not note.dice.startswith("+") else f"plays the carried-over {note.dice[1:]}"
    if persian and note.persian:
        roll += f" ({note.persian})"
    play = note.play or "no move"
    lines = [f"{who} {roll}: {play}" + (f"  [written {note.written}]" if note.written and note.written != note.play
                                         else "")]
    if note.forced:
        lines.append("Forced: the only legal play." if note.play else "No legal play: the roll is lost.")
    else:
        lines.append(f"{note.legal_plays} legal plays.")
    if note.dice_lost:
        lines.append(f"{note.dice_lost} of the dice could not be played.")
    hit = f" → {note.pips_after[1]}" if note.pips_after[1] != note.pips_before[1] else ""  # a hit sends checkers back
    lines.append(f"Pips: {who} {note.pips_before[0]} → {note.pips_after[0]}, "
                 f"{names[1 - note.player]} {note.pips_before[1]}{hit}.")
    if not note.legal:
        lines.append(f"Illegal play applied (rule: {note.rule}).")
    if note.race:
        if note.race_exact and note.pwin_before is not None and note.pwin_after is not None:
            lines.append(f"Race: P(win) {100 * note.pwin_before:.1f}% before the roll, "
                         f"{100 * note.pwin_after:.1f}% after the play.")
            assert note.luck is not None and note.race_error is not None
            lines.append(f"Luck of the roll {_fmt_equity(note.luck)}; "
                         + ("best race play." if note.race_error < 5e-4 else
                            f"race error {note.race_error:.3f} (best: {note.best_play})."))
        else:
            lines.append("Race (outside the bear-off database: no exact odds).")
    if analysis is not None and not analysis.forced:
        if analysis.error is None:
            lines.append(f"Best play {analysis.best} ({_fmt_equity(analysis.best_equity)}); this play is not "
                         "legal here.")
        elif analysis.error < 5e-4:
            lines.append(f"A best play ({_fmt_equity(analysis.best_equity)}; {analysis.evaluator}).")
        else:
            mark = f" — {analysis.mark}" if analysis.mark else ""
            lines.append(f"Best play {analysis.best} ({_fmt_equity(analysis.best_equity)}); this play "
                         f"{_fmt_equity(analysis.equity or 0.0)}, error {analysis.error:.3f}{mark} "
                         f"({analysis.evaluator}).")
    if analysis is not None:
        lines.append(f"Luck of the roll {_fmt_equity(analysis.luck)} (evaluator).")
    return lines


def cube_line(review: Review | None, money: bool) -> str:
    """A stored cube analysis (GNU Backgammon's ``DA``) as a sentence, or ``""``."""
    text = review.cube_text(money, "Cube before the roll") if review is not None else ""
    return f"{text}." if text else ""


def game_frames(replayed: ReplayedGame, names: tuple[str, str], *, persian: bool = False,
                race_points: int = 6, analysis: Sequence[Analysed] = ()) -> list[Frame]:
    """The frames of one game; see the module docstring.  ``analysis``: the
    game's turns as :func:`~nardtools.analysis.analyse.analyse_match` found them."""
    from ..analysis.analyse import CubeAnalysis

    notes = annotate_game(replayed, race_points=race_points)
    analysed = {t.index: t for t in analysis if not isinstance(t, CubeAnalysis)}
    cubes: dict[int, list[str]] = {}
    for c in analysis:
        if isinstance(c, CubeAnalysis) and (c.alert or c.mark):
            cubes.setdefault(c.index, []).append(f"Cube ({c.player}, {c.action}): {c.text}.")
    edits: dict[int, list[Any]] = {}
    for at, action in replayed.edits:
        edits.setdefault(at, []).append(action)
    actions = replayed.record.actions
    start = Position.start(replayed.game.rules.start, player=actions[0].player if actions else 0)
    frames = [Frame(0, start, None, [f"Game {replayed.record.number}: the start."])]
    for i, note in enumerate([*notes, None]):
        for action in edits.get(i, []):
            assert action.board is not None
            how = (f"{names[action.player]} rolled {action.roll} and played illegally; the record gives only "
                   "the board after it (Snowie)" if action.roll else "The record sets the board (XG Set Pos)")
            frames.append(Frame(len(frames), action.board, None, [f"{how}: {action.board}."]))
        if note is not None:
            lines = describe(note, names, persian=persian, analysis=analysed.get(note.index))
            cube = cube_line(replayed.turns[note.index].action.review, replayed.game.is_money)
            lines += cubes.get(note.index, []) + ([cube] if cube else [])
            frames.append(Frame(len(frames), note.after, note, lines, analysed.get(note.index)))
    frames[-1].lines.extend(cubes.get(len(notes), []))  # a double passed: the game ends on it
    stop = replayed.stop_reason
    if stop:
        frames.append(Frame(len(frames), frames[-1].position, None, [f"The replay stops here: {stop}"]))
    return frames


# ---------------------------------------------------------------------------
# HTML

def _view(position: Position, view: int) -> dict[str, Any]:
    """The board from player ``view``'s side: for each of its points 1..24 the
    count and whose checkers (0/1), and the bars and trays."""
    mine, theirs = position.side_of(view), position.side_of(1 - view)
    points = []
    for q in range(1, 25):
        if mine[q]:
            points.append([mine[q], view])
        else:
            n = theirs[position.kind.opponent_point(q)]
            points.append([n, 1 - view] if n else [0, -1])
    return {"points": points, "bar": [mine[BAR], theirs[BAR]], "off": [mine[0], theirs[0]]}


def _arrows(steps: Sequence[Step], player: int, view: int, position: Position) -> list[list[str]]:
    def slot(point: int) -> str:
        if point == 0:
            return "off"
        if point == BAR:
            return "bar"
        return str(point if player == view else position.kind.opponent_point(point))
    return [[slot(s.source), slot(s.target)] for s in steps]


_CUBE_TEXT = {"double": "doubles", "take": "takes", "drop": "drops", "beaver": "beavers", "resign": "resigns"}


def _turn_analysis(analysis: Mapping[int, Sequence[Analysed]] | Sequence[Analysed],
                   number: int) -> Sequence[Analysed]:
    """One game's analysed turns, from either a list (one game's) or a map by game."""
    if isinstance(analysis, Mapping):
        return analysis.get(number, ())
    return [t for t in analysis if t.game == number]


def game_data(match: ReplayedMatch, replayed: ReplayedGame, *, persian: bool = False, race_points: int = 6,
              analysis: Sequence[Analysed] = ()) -> dict[str, Any]:
    """One game of the page, as JSON-ready data: its frames (boards from
    player 0's view; the page turns them round), the rows of its turn list
    (plays, cube actions, the result, each pointing at a frame), its score
    and result."""
    from ..analysis.marks import GLYPHS

    names = match.record.names
    frames = game_frames(replayed, names, persian=persian, race_points=race_points, analysis=analysis)
    turns = replayed.turns
    out = []
    cube, owner = 1 << replayed.game.auto_doubles, None
    for f in frames:
        n = f.note
        t = turns[n.index] if n is not None else None
        if t is not None:
            cube, owner = t.cube, t.cube_owner
        pips = f.position.pips() if f.position.player == 0 else f.position.pips()[::-1]
        glyphs = list(n.glyphs) if n else []
        if f.analysis is not None and f.analysis.mark and GLYPHS[f.analysis.mark] not in glyphs:
            glyphs.append(GLYPHS[f.analysis.mark])
        equity = None
        if f.analysis is not None and f.analysis.equity is not None:
            equity = f.analysis.equity if f.analysis.side == 0 else -f.analysis.equity
        out.append({
            "index": f.index, "position": str(f.position), "board": _view(f.position, 0),
            "player": n.player if n else None, "turn": n.turn if n else 0,
            "dice": n.dice.lstrip("+") if n else "", "play": n.play if n else "",
            "written": n.written if n else "",
            "arrows": _arrows(n.steps, n.player, 0, f.position) if n else [],
            "comments": list(n.comments) if n else [], "glyphs": glyphs, "lines": f.lines,
            "analysis": None if f.analysis is None else {k: v for k, v in f.analysis.as_dict().items()
                                                          if k in ("best", "error", "luck", "mark", "equity")},
            "equity": equity,
            "pips": list(pips), "pwin": (None if not n or n.pwin_after is None else
                                         (n.pwin_after if n.player == 0 else 1 - n.pwin_after)),
            "forced": bool(n and n.forced), "legal_plays": n.legal_plays if n else 0,
            "rule": n.rule if n else "", "legal": n.legal if n else True,
            "cube": cube, "owner": owner,
        })
    g = replayed.game
    result = ""
    if g.outcome is not None:
        unit = "point" if g.outcome.points == 1 else "points"
        result = f"{names[g.outcome.winner]} wins {g.outcome.points} {unit} ({g.outcome.kind})"
    return {"number": replayed.record.number, "score": list(g.score), "crawford": g.crawford,
            "result": result, "winner": g.outcome.winner if g.outcome else None,
            "points": g.outcome.points if g.outcome else 0, "frames": out,
            "rows": _rows(replayed, frames, result)}


def _rows(replayed: ReplayedGame, frames: Sequence[Frame], result: str) -> list[dict[str, Any]]:
    """The turn list: every play, cube action and the result, in record order,
    each with the frame it shows (a cube action shows the position it was
    offered in)."""
    frame_of = {f.note.index: f.index for f in frames if f.note is not None}
    turn_of = {id(t.action): i for i, t in enumerate(replayed.turns)}
    rows: list[dict[str, Any]] = []
    shown = 0
    for a in replayed.record.actions:
        if id(a) in turn_of and turn_of[id(a)] in frame_of:
            shown = frame_of[turn_of[id(a)]]
            f = frames[shown]
            assert f.note is not None
            rows.append({"frame": shown, "kind": "play", "turn": a.number, "player": a.player,
                         "text": f"{f.note.dice}: {f.note.play or '(no move)'}"})
        elif a.kind.value in _CUBE_TEXT:
            value = replayed.offers.get(id(a), a.value)
            rows.append({"frame": shown, "kind": "cube", "turn": a.number, "player": a.player,
                         "text": _CUBE_TEXT[a.kind.value] + (f" to {value}" if value else ""),
                         "note": cube_line(a.review, replayed.game.is_money)})
    if result:
        rows.append({"frame": len(frames) - 1, "kind": "result", "turn": 0, "player": None, "text": result})
    return rows


def page_data(match: ReplayedMatch, games: Sequence[int] | None = None, *, persian: bool = False,
              race_points: int = 6,
              analysis: Mapping[int, Sequence[Analysed]] | Sequence[Analysed] = ()) -> dict[str, Any]:
    """Everything the HTML page shows, as JSON-ready data: the match and the
    games numbered ``games`` (default: all)."""
    record = match.record
    names = record.names
    chosen = [match.game(n) for n in games] if games is not None else match.games
    data = [game_data(match, g, persian=persian, race_points=race_points,
                      analysis=_turn_analysis(analysis, g.record.number)) for g in chosen]
    kind = match.ruleset.rules.game.value
    final = list(chosen[-1].game.score) if chosen else [0, 0]
    if chosen and chosen[-1].game.outcome is not None:
        final[chosen[-1].game.outcome.winner] += chosen[-1].game.outcome.points
    title = f"{names[0]} vs {names[1]}" + (f", game {chosen[0].record.number}" if len(chosen) == 1 else "")
    return {"title": title, "names": list(names), "kind": kind, "game_name": GAME_NAMES[match.ruleset.rules.game],
            "ruleset": match.ruleset.label,
            "cube": match.ruleset.rules.cube, "match_length": record.length, "final": final, "games": data}


def replay_html(match: ReplayedMatch, game: int | None = None, *, persian: bool = False,
                race_points: int = 6,
                analysis: Mapping[int, Sequence[Analysed]] | Sequence[Analysed] = ()) -> str:
    """One self-contained HTML page: the whole match, or only ``game``.

    A score bar and a list of games to click on, a list of the game's turns
    (plays, cube actions, marks) to jump to, the board with the cube and the
    score, buttons and keys (arrows: turns; Page Up/Down: games; F: flip the
    board), the annotations, a chart of pip counts and, where the record or
    ``analysis`` has one, of the equity with the errors marked."""
    data = page_data(match, None if game is None else [game], persian=persian, race_points=race_points,
                     analysis=analysis)
    # nothing in the data may look like markup inside the script element
    # (``</script>``, ``<!--`` would end it or change how it is parsed)
    payload = (json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
               .replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028")
               .replace("\u2029", "\\u2029"))
    parts = {"TITLE": html.escape(data["title"]), "STYLE": _asset("replay.css"), "SCRIPT": _asset("replay.js"),
             "DATA": payload}
    # filled in one pass: what was put in is never scanned again (a name "{{DATA}}" stays a name)
    return _SLOT.sub(lambda m: parts[m[1]], _asset("replay.html"))


# ---------------------------------------------------------------------------
# Terminal

def replay_terminal(match: ReplayedMatch, game: int | None = None, *, persian: bool = False,
                    unicode: bool = False, ask: Callable[[str], str] = input,
                    show: Callable[[str], None] = print, analysis: Sequence[Analysed] = ()) -> int:
    """Step through a game on the terminal: a diagram and the annotations per
    turn, the next one on Enter (``q`` quits).  Returns the frames shown."""
    replayed = match.game(game)
    names = match.record.names
    g = replayed.game
    shown = 0
    for f in game_frames(replayed, names, persian=persian, analysis=analysis):
        setup = Setup(f.position, cube=f.note.cube if f.note else 1, match_length=g.match_length,
                      score=g.score, crawford=g.crawford)
        show(diagram(setup, names, unicode=unicode) + "\n".join(f.lines) + "\n")
        shown += 1
        if f.index < len(replayed.turns) and ask("[Enter] next, q quits: ").strip().lower().startswith("q"):
            break
    return shown


def _asset(name: str) -> str:
    """A file of the page (``page/replay.html``, ``.css``, ``.js``), shipped with the package."""
    return (Path(__file__).parent / "page" / name).read_text(encoding="utf-8")
