"""Annotated replays: the frames of a game, as one self-contained HTML page or
step by step on a terminal.

:func:`game_frames` turns a replayed game into frames: the starting position,
then the position after every play, each with the play's dice, its canonical
and written text, the record's comments and glyphs, and the automatic
annotations of :mod:`nardtools.analysis.annotate` (forced move, number of
legal plays, pip counts, race odds and race error, the rule when an illegal
play was applied).  Boards are given from player 0's view throughout, so the
board does not turn round between turns.

:func:`replay_html` writes the frames into one HTML file with its script and
styles inline (no network access, no external assets): buttons and the arrow
keys step through the game; the board is drawn as SVG; a chart shows both
sides' pip counts (and the race P(win) where exact) across the game.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..analysis.annotate import TurnNote, annotate_game
from ..notation.replay import ReplayedGame, ReplayedMatch
from ..play import Step
from ..position import BAR, Position
from ..setup import Setup
from .diagram import diagram

if TYPE_CHECKING:
    from ..analysis.analyse import TurnAnalysis


@dataclass
class Frame:
    """One step of a replay: a position and how it was reached."""

    index: int
    position: Position
    note: TurnNote | None = None  # the play that led here (None for the start)
    lines: list[str] = field(default_factory=list)  # the annotations, as sentences
    analysis: TurnAnalysis | None = None  # an evaluator's verdict, when asked for


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
    lines.append(f"Pips: {who} {note.pips_before[0]} → {note.pips_after[0]}, "
                 f"{names[1 - note.player]} {note.pips_before[1]}.")
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


def game_frames(replayed: ReplayedGame, names: tuple[str, str], *, persian: bool = False,
                race_points: int = 6, analysis: Sequence[TurnAnalysis] = ()) -> list[Frame]:
    """The frames of one game; see the module docstring.  ``analysis``: the
    game's turns as :func:`~nardtools.analysis.analyse.analyse_match` found them."""
    notes = annotate_game(replayed, race_points=race_points)
    analysed = {t.index: t for t in analysis}
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
            frames.append(Frame(len(frames), note.after, note,
                                describe(note, names, persian=persian, analysis=analysed.get(note.index)),
                                analysed.get(note.index)))
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


def frames_data(match: ReplayedMatch, game: int | None = None, *, persian: bool = False,
                race_points: int = 6, view: int = 0, analysis: Sequence[TurnAnalysis] = ()) -> dict[str, Any]:
    """Everything the HTML page shows, as JSON-ready data."""
    from ..analysis.analyse import GLYPHS

    replayed = match.game(game)
    record = match.record
    names = record.names
    frames = game_frames(replayed, names, persian=persian, race_points=race_points, analysis=analysis)
    out = []
    for f in frames:
        n = f.note
        pips = f.position.pips() if f.position.player == 0 else f.position.pips()[::-1]
        out.append({
            "index": f.index, "position": str(f.position), "board": _view(f.position, view),
            "player": n.player if n else None, "turn": n.turn if n else 0,
            "dice": n.dice.lstrip("+") if n else "", "play": n.play if n else "",
            "written": n.written if n else "",
            "arrows": _arrows(n.steps, n.player, view, f.position) if n else [],
            "comments": list(n.comments) if n else [],
            "glyphs": (list(n.glyphs) if n else []) + ([GLYPHS[f.analysis.mark]] if f.analysis and f.analysis.mark
                                                        else []),
            "lines": f.lines,
            "analysis": None if f.analysis is None else {k: v for k, v in f.analysis.as_dict().items()
                                                          if k in ("best", "error", "luck", "mark", "equity")},
            "pips": list(pips), "pwin": (None if not n or n.pwin_after is None else
                                         (n.pwin_after if n.player == 0 else 1 - n.pwin_after)),
            "forced": bool(n and n.forced), "legal_plays": n.legal_plays if n else 0,
            "rule": n.rule if n else "", "legal": n.legal if n else True,
        })
    g = replayed.game
    result = ""
    if g.outcome is not None:
        unit = "point" if g.outcome.points == 1 else "points"
        result = f"{names[g.outcome.winner]} wins {g.outcome.points} {unit} ({g.outcome.kind})"
    return {
        "title": f"{names[0]} vs {names[1]}, game {replayed.record.number}",
        "names": list(names), "kind": frames[0].position.kind.value, "ruleset": match.ruleset.name,
        "view": view, "match_length": g.match_length, "score": list(g.score),
        "result": result, "frames": out,
    }


def replay_html(match: ReplayedMatch, game: int | None = None, *, persian: bool = False,
                race_points: int = 6, analysis: Sequence[TurnAnalysis] = ()) -> str:
    """One self-contained HTML page stepping through ``game`` (default: the first)."""
    data = frames_data(match, game, persian=persian, race_points=race_points, analysis=analysis)
    # nothing in the data may look like markup inside the script element
    # (``</script>``, ``<!--`` would end it or change how it is parsed)
    payload = (json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
               .replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return (_PAGE.replace("{{TITLE}}", html.escape(data["title"]))
            .replace("{{DATA}}", payload).replace("{{SCRIPT}}", _SCRIPT).replace("{{STYLE}}", _STYLE))


# ---------------------------------------------------------------------------
# Terminal

def replay_terminal(match: ReplayedMatch, game: int | None = None, *, persian: bool = False,
                    unicode: bool = False, ask: Callable[[str], str] = input,
                    show: Callable[[str], None] = print, analysis: Sequence[TurnAnalysis] = ()) -> int:
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


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>{{TITLE}}</title><style>{{STYLE}}</style></head>
<body>
<h1 id="title"></h1>
<div id="main">
 <svg id="board" viewBox="-20 -64 880 800" role="img" aria-label="board"></svg>
 <div id="side">
  <div id="controls">
   <button id="first" title="Home">|◀</button><button id="prev" title="Left arrow">◀</button>
   <span id="counter"></span>
   <button id="next" title="Right arrow">▶</button><button id="last" title="End">▶|</button>
  </div>
  <div id="move"></div>
  <ul id="notes"></ul>
  <div id="comments"></div>
  <svg id="chart" viewBox="0 0 420 200" role="img" aria-label="pip counts"></svg>
  <p id="legend"></p>
  <p id="result"></p>
 </div>
</div>
<script id="data" type="application/json">{{DATA}}</script>
<script>{{SCRIPT}}</script>
</body></html>
"""

_STYLE = """
body{font-family:system-ui,sans-serif;margin:16px;background:#faf7f0;color:#222}
h1{font-size:1.2em;margin:0 0 8px}
#main{display:flex;flex-wrap:wrap;gap:16px}
#board{width:640px;max-width:100%;background:#fff;border-radius:6px}
#side{width:440px;max-width:100%}
#controls button{font-size:1.2em;margin-right:4px}
#counter{display:inline-block;min-width:7em;text-align:center}
#move{font-weight:bold;margin:10px 0 4px;font-size:1.1em}
#notes{margin:4px 0;padding-left:18px}
#comments{white-space:pre-wrap;background:#fff8dc;border-left:3px solid #d9b44a;padding:4px 8px;min-height:1em}
#comments:empty{display:none}
#chart{width:420px;max-width:100%;background:#fff;margin-top:10px}
.glyph{color:#a33;margin-left:4px}
"""

_SCRIPT = r"""
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const NS = "http://www.w3.org/2000/svg";
const COLOURS = [["#f4efe1", "#5b4a32"], ["#2b2b2b", "#000"]];
let cur = 0;
function el(tag, attrs, parent, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
// view point q (1..24) -> x centre, top half?
function slot(q) {
  const col = q <= 12 ? 12 - q : q - 13;
  return [col < 6 ? col * 60 + 30 : col * 60 + 90, q > 12];
}
function drawBoard(f) {
  const svg = document.getElementById("board");
  svg.innerHTML = "";
  svg.dataset.position = f.position;
  svg.dataset.index = f.index;
  el("rect", {x: -12, y: -12, width: 864, height: 684, fill: "#7a4e2d", rx: 8}, svg);
  el("rect", {x: 0, y: 0, width: 360, height: 660, fill: "#2f5d3a"}, svg);
  el("rect", {x: 420, y: 0, width: 360, height: 660, fill: "#2f5d3a"}, svg);
  el("rect", {x: 790, y: 0, width: 50, height: 660, fill: "#2f5d3a"}, svg);
  for (let q = 1; q <= 24; q++) {
    const [x, top] = slot(q);
    const pts = top ? `${x-30},0 ${x+30},0 ${x},270` : `${x-30},660 ${x+30},660 ${x},390`;
    el("polygon", {points: pts, fill: q % 2 ? "#8c2f1f" : "#c9a36b"}, svg);
    el("text", {x: x, y: top ? -18 : 690, "text-anchor": "middle", "font-size": 16, fill: "#333",
                class: "point-number"}, svg, String(q));
  }
  const b = f.board;
  for (let q = 1; q <= 24; q++) {
    const [n, side] = b.points[q - 1];
    if (n > 0) stack(svg, slot(q)[0], slot(q)[1], n, side, "p" + q);
  }
  if (D.kind === "backgammon") {
    stack(svg, 390, false, b.bar[0], D.view, "bar", 250);
    stack(svg, 390, true, b.bar[1], 1 - D.view, "bar", 410);
  }
  for (const [i, side] of [[0, D.view], [1, 1 - D.view]]) {
    for (let k = 0; k < b.off[i]; k++) {
      const y = i === 0 ? 648 - k * 16 : 4 + k * 16;
      el("rect", {x: 795, y: y, width: 40, height: 12, fill: COLOURS[side][0], stroke: COLOURS[side][1],
                  class: "checker", "data-point": "off", "data-side": side}, svg);
    }
  }
  if (f.dice) {
    const ds = f.dice.split("").map(Number);
    ds.forEach((d, i) => die(svg, 560 + i * 70, 300, d, f.player));
  }
  const defs = el("defs", {}, svg);
  const m = el("marker", {id: "head", markerWidth: 8, markerHeight: 8, refX: 6, refY: 4, orient: "auto"}, defs);
  el("path", {d: "M0,0 L8,4 L0,8 z", fill: "#e0a400"}, m);
  for (const [a, z] of f.arrows) {
    const [x1, y1] = where(a, f.player), [x2, y2] = where(z, f.player);
    el("path", {d: `M${x1},${y1} Q${(x1+x2)/2},${(y1+y2)/2 - 40} ${x2},${y2}`, fill: "none",
                stroke: "#e0a400", "stroke-width": 4, "marker-end": "url(#head)", class: "arrow"}, svg);
  }
  const onRoll = f.player === null ? null : 1 - f.player;  // after a play the other side is to roll
  for (const [side, y] of [[1 - D.view, -44], [D.view, 718]]) {
    el("text", {x: 0, y: y, "font-size": 16, fill: "#222", "font-weight": side === onRoll ? "bold" : "normal",
                class: "name"}, svg, `${D.names[side]}: ${f.pips[side]} pips` + (side === onRoll ? " (to roll)" : ""));
  }
}
function where(s, player) {
  const mine = player === D.view;
  if (s === "off") return [815, mine ? 600 : 60];
  if (s === "bar") return [390, mine ? 420 : 240];
  const [x, top] = slot(Number(s));
  return [x, top ? 240 : 420];
}
function stack(svg, x, top, n, side, point, base) {
  const y0 = base !== undefined ? base : (top ? 30 : 630);
  const dy = (top ? 1 : -1) * 56;
  for (let i = 0; i < n; i++) {
    const shown = Math.min(i, 4);
    el("circle", {cx: x, cy: y0 + shown * dy, r: 26, fill: COLOURS[side][0], stroke: COLOURS[side][1],
                  "stroke-width": 2, class: "checker", "data-point": point, "data-side": side}, svg);
  }
  if (n > 5) el("text", {x: x, y: y0 + 4 * dy + 6, "text-anchor": "middle", "font-size": 18,
                         "font-weight": "bold", fill: side === 0 ? "#5b4a32" : "#eee"}, svg, String(n));
}
function die(svg, x, y, d, player) {
  const [face, edge] = COLOURS[player === null ? 0 : player];
  el("rect", {x: x, y: y, width: 56, height: 56, rx: 8, fill: face, stroke: edge, "stroke-width": 2,
              class: "die", "data-value": d}, svg);
  const S = {1: [[0,0]], 2: [[-1,-1],[1,1]], 3: [[-1,-1],[0,0],[1,1]], 4: [[-1,-1],[-1,1],[1,-1],[1,1]],
             5: [[-1,-1],[-1,1],[0,0],[1,-1],[1,1]], 6: [[-1,-1],[-1,0],[-1,1],[1,-1],[1,0],[1,1]]}[d];
  for (const [a, b] of S) el("circle", {cx: x + 28 + a * 14, cy: y + 28 + b * 14, r: 5,
                                        fill: player === 1 ? "#eee" : "#333"}, svg);
}
function drawChart() {
  const svg = document.getElementById("chart");
  svg.innerHTML = "";
  const F = D.frames, W = 400, H = 170, L = 10;
  const maxPip = Math.max(...F.map(f => Math.max(f.pips[0], f.pips[1])), 1);
  const x = i => L + (F.length > 1 ? i * W / (F.length - 1) : 0);
  const y = p => 10 + H - p / maxPip * H;
  for (const side of [0, 1]) {
    el("polyline", {points: F.map((f, i) => `${x(i)},${y(f.pips[side])}`).join(" "), fill: "none",
                    stroke: side === 0 ? "#b08a3e" : "#222", "stroke-width": 2, class: "pips-line"}, svg);
  }
  const race = F.map((f, i) => f.pwin === null ? null : `${x(i)},${10 + H - f.pwin * H}`).filter(Boolean);
  if (race.length) el("polyline", {points: race.join(" "), fill: "none", stroke: "#2a6fdb", "stroke-width": 2,
                                   "stroke-dasharray": "4 3", class: "pwin-line"}, svg);
  el("line", {id: "cursor", x1: x(cur), x2: x(cur), y1: 5, y2: H + 15, stroke: "#c00", "stroke-width": 1.5}, svg);
  document.getElementById("legend").textContent =
    `Pip counts: ${D.names[0]} (gold), ${D.names[1]} (black)` + (race.length ? `; race P(win) of ${D.names[0]} (blue, 0–100%)` : "");
}
function show(i) {
  cur = Math.max(0, Math.min(D.frames.length - 1, i));
  const f = D.frames[cur];
  drawBoard(f);
  document.getElementById("counter").textContent = `${cur} / ${D.frames.length - 1}`;
  const move = document.getElementById("move");
  move.textContent = f.player === null ? "Start" :
    `${f.turn}. ${D.names[f.player]} ${f.dice}: ${f.play || "(no move)"}`;
  move.dataset.dice = f.dice; move.dataset.play = f.play;
  for (const g of f.glyphs) { const s = document.createElement("span"); s.className = "glyph"; s.textContent = g; move.appendChild(s); }
  const notes = document.getElementById("notes");
  notes.innerHTML = "";
  for (const line of f.lines) { const li = document.createElement("li"); li.textContent = line; notes.appendChild(li); }
  document.getElementById("comments").textContent = f.comments.join("\n");
  const c = document.getElementById("cursor");
  if (c) { const xx = 10 + (D.frames.length > 1 ? cur * 400 / (D.frames.length - 1) : 0); c.setAttribute("x1", xx); c.setAttribute("x2", xx); }
}
document.getElementById("title").textContent =
  D.title + ` (${D.kind}, ${D.ruleset}` + (D.match_length ? `, ${D.score[0]}-${D.score[1]} of ${D.match_length}` : "") + ")";
document.getElementById("result").textContent = D.result;
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(cur - 1);
document.getElementById("next").onclick = () => show(cur + 1);
document.getElementById("last").onclick = () => show(D.frames.length - 1);
document.addEventListener("keydown", e => {
  if (e.key === "ArrowRight" || e.key === " ") { show(cur + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") show(cur - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(D.frames.length - 1);
});
drawChart();
show(0);
"""
