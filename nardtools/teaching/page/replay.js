"use strict";
// The replay page: D holds the match (see nardtools.teaching.replay.page_data).
const D = JSON.parse(document.getElementById("data").textContent);
const NS = "http://www.w3.org/2000/svg";
const COLOURS = [["#f4efe1", "#5b4a32"], ["#2b2b2b", "#000"]];
let game = 0, cur = 0, view = 0;
const G = () => D.games[game];
function el(tag, attrs, parent, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
// player 0's point q seen from the other side
function opposite(q) { return D.kind === "backgammon" ? 25 - q : ((q + 11) % 24) + 1; }
function viewed(f) {  // the frame's board and arrows from the side `view`
  if (view === 0) return [f.board, f.arrows];
  const b = f.board;
  const points = [];
  for (let q = 1; q <= 24; q++) {
    const [n, side] = b.points[opposite(q) - 1];
    points.push([n, side]);
  }
  const slot = s => (s === "bar" || s === "off") ? s : String(opposite(Number(s)));
  return [{points: points, bar: [b.bar[1], b.bar[0]], off: [b.off[1], b.off[0]]},
          f.arrows.map(([a, z]) => [slot(a), slot(z)])];
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
  svg.dataset.game = G().number;
  svg.dataset.view = view;
  const [b, arrows] = viewed(f);
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
  for (let q = 1; q <= 24; q++) {
    const [n, side] = b.points[q - 1];
    if (n > 0) stack(svg, slot(q)[0], slot(q)[1], n, side, "p" + q);
  }
  if (D.kind === "backgammon") {
    stack(svg, 390, false, b.bar[0], view, "bar", 250);
    stack(svg, 390, true, b.bar[1], 1 - view, "bar", 410);
  }
  for (const [i, side] of [[0, view], [1, 1 - view]]) {
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
  if (D.cube) cube(svg, f);  // (a ruleset without a cube draws none)
  const defs = el("defs", {}, svg);
  const m = el("marker", {id: "head", markerWidth: 8, markerHeight: 8, refX: 6, refY: 4, orient: "auto"}, defs);
  el("path", {d: "M0,0 L8,4 L0,8 z", fill: "#e0a400"}, m);
  for (const [a, z] of arrows) {
    const [x1, y1] = where(a, f.player), [x2, y2] = where(z, f.player);
    el("path", {d: `M${x1},${y1} Q${(x1+x2)/2},${(y1+y2)/2 - 40} ${x2},${y2}`, fill: "none",
                stroke: "#e0a400", "stroke-width": 4, "marker-end": "url(#head)", class: "arrow"}, svg);
  }
  const onRoll = f.player === null ? null : 1 - f.player;  // after a play the other side is to roll
  const score = G().score;
  for (const [side, y] of [[1 - view, -44], [view, 718]]) {
    const points = D.match_length ? `, ${score[side]} of ${D.match_length}` : "";
    el("text", {x: 0, y: y, "font-size": 16, fill: "#222", "font-weight": side === onRoll ? "bold" : "normal",
                class: "name", "data-side": side}, svg,
       `${D.names[side]}${points}: ${f.pips[side]} pips` + (side === onRoll ? " (to roll)" : ""));
  }
  if (G().crawford) el("text", {x: 840, y: -44, "text-anchor": "end", "font-size": 16, fill: "#a33"}, svg, "Crawford game");
}
function cube(svg, f) {
  // the cube left of the board: in the middle while nobody owns it, else on its owner's side
  const y = f.owner === null || f.owner === undefined ? 308 : (f.owner === view ? 600 : 16);
  const g = el("g", {class: "cube", "data-value": f.cube, "data-owner": f.owner === null ? "" : f.owner}, svg);
  el("rect", {x: -74, y: y, width: 50, height: 50, rx: 6, fill: "#fff", stroke: "#333", "stroke-width": 2}, g);
  el("text", {x: -49, y: y + 33, "text-anchor": "middle", "font-size": 22, "font-weight": "bold", fill: "#222"}, g,
     String(f.owner === null && f.cube === 1 ? 64 : f.cube));
}
function where(s, player) {
  const mine = player === view;
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
const W = 360, H = 160, L = 46;
const xAt = i => L + (G().frames.length > 1 ? i * W / (G().frames.length - 1) : 0);
function axes(svg, ticks, y, label) {
  // the y axis with its ticks ([value, text]), the x axis of turns (frames), and the y axis' name
  const F = G().frames;
  el("line", {x1: L, x2: L, y1: 10, y2: 10 + H, stroke: "#555", class: "axis"}, svg);
  el("line", {x1: L, x2: L + W, y1: 10 + H, y2: 10 + H, stroke: "#555", class: "axis"}, svg);
  for (const [v, text] of ticks) {
    el("line", {x1: L - 4, x2: L, y1: y(v), y2: y(v), stroke: "#555"}, svg);
    el("text", {x: L - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#333", class: "tick"}, svg, text);
  }
  const step = Math.max(1, Math.ceil((F.length - 1) / 8 / 5) * 5);
  for (let i = 0; i < F.length && xAt(i) < L + W - 24; i += step) {  // (room for the axis' name)
    el("line", {x1: xAt(i), x2: xAt(i), y1: 10 + H, y2: 14 + H, stroke: "#555"}, svg);
    el("text", {x: xAt(i), y: 26 + H, "text-anchor": "middle", "font-size": 11, fill: "#333", class: "tick"}, svg,
       String(i));
  }
  el("text", {x: L + W, y: 26 + H, "text-anchor": "end", "font-size": 11, fill: "#555"}, svg, "turn");
  el("text", {x: 12, y: 10 + H / 2, "text-anchor": "middle", "font-size": 11, fill: "#555",
              transform: `rotate(-90 12 ${10 + H / 2})`}, svg, label);
}
function drawChart() {
  const svg = document.getElementById("chart");
  svg.innerHTML = "";
  const F = G().frames;
  const maxPip = Math.max(...F.map(f => Math.max(f.pips[0], f.pips[1])), 1);
  const y = p => 10 + H - p / maxPip * H;
  axes(svg, [[0, "0"], [maxPip / 2, String(Math.round(maxPip / 2))], [maxPip, String(maxPip)]], y, "pips");
  for (const side of [0, 1]) {
    el("polyline", {points: F.map((f, i) => `${xAt(i)},${y(f.pips[side])}`).join(" "), fill: "none",
                    stroke: side === 0 ? "#b08a3e" : "#222", "stroke-width": 2, class: "pips-line"}, svg);
  }
  const race = F.map((f, i) => f.pwin === null ? null : `${xAt(i)},${10 + H - f.pwin * H}`).filter(Boolean);
  if (race.length) el("polyline", {points: race.join(" "), fill: "none", stroke: "#2a6fdb", "stroke-width": 2,
                                   "stroke-dasharray": "4 3", class: "pwin-line"}, svg);
  el("line", {class: "cursor", x1: xAt(cur), x2: xAt(cur), y1: 5, y2: H + 15, stroke: "#c00", "stroke-width": 1.5}, svg);
  document.getElementById("legend").textContent =
    `Pip counts: ${D.names[0]} (gold), ${D.names[1]} (black)` + (race.length ? `; race P(win) of ${D.names[0]} (blue, 0–100%)` : "");
  drawEquity();
}
function drawEquity() {
  const svg = document.getElementById("eqchart");
  svg.innerHTML = "";
  const F = G().frames;
  const known = F.map((f, i) => [i, f.equity]).filter(([, e]) => e !== null);
  svg.style.display = known.length ? "" : "none";
  // the scale reaches the largest equity shown (Long Nardy's marses and koks go past ±1)
  const top = Math.max(1, Math.ceil(Math.max(0, ...known.map(([, e]) => Math.abs(e))) * 2) / 2);
  document.getElementById("eqlegend").textContent = known.length ?
    `Equity of ${D.names[0]} after each analysed play (points, −${top} to +${top}); errors and blunders in red` : "";
  if (!known.length) return;
  const y = e => 10 + H / 2 - e / top * H / 2;
  const fmt = v => (v > 0 ? "+" : v < 0 ? "−" : "") + String(Math.abs(v));
  axes(svg, [[-top, fmt(-top)], [0, "0"], [top, fmt(top)]], y, "equity");
  el("line", {x1: L, x2: L + W, y1: y(0), y2: y(0), stroke: "#bbb"}, svg);
  el("polyline", {points: known.map(([i, e]) => `${xAt(i)},${y(e)}`).join(" "), fill: "none", stroke: "#2a6fdb",
                  "stroke-width": 2, class: "equity-line"}, svg);
  for (const [i, e] of known) {
    const a = F[i].analysis;
    if (a && (a.mark === "error" || a.mark === "blunder"))
      el("circle", {cx: xAt(i), cy: y(e), r: a.mark === "blunder" ? 6 : 4, fill: "#c00", class: "error-mark"}, svg);
  }
  el("line", {class: "cursor", x1: xAt(cur), x2: xAt(cur), y1: 5, y2: H + 15, stroke: "#c00", "stroke-width": 1.5}, svg);
}
function drawScorebar() {
  const bar = document.getElementById("scorebar");
  bar.innerHTML = "";
  if (D.games.length < 2) return;
  D.games.forEach((g, i) => {
    const b = document.createElement("button");
    b.className = "game" + (i === game ? " current" : "");
    b.dataset.game = i;
    const won = g.winner === null ? "" : ` → ${D.names[g.winner]} +${g.points}`;
    b.textContent = `Game ${g.number}: ${g.score[0]}–${g.score[1]}${won}`;
    b.onclick = () => showGame(i);
    bar.appendChild(b);
  });
  const fin = document.createElement("span");
  fin.className = "final";
  fin.textContent = `${D.names[0]} ${D.final[0]} – ${D.final[1]} ${D.names[1]}` + (D.match_length ? ` (to ${D.match_length})` : "");
  bar.appendChild(fin);
}
function drawTurns() {
  const list = document.getElementById("turns");
  list.innerHTML = "";
  for (const r of G().rows) {
    const li = document.createElement("li");
    li.className = r.kind;
    li.dataset.frame = r.frame;
    const who = r.player === null ? "" : `${D.names[r.player]} `;
    li.textContent = (r.kind === "play" && r.turn ? `${r.turn}. ` : "") + who + r.text;
    const glyphs = r.kind === "play" ? G().frames[r.frame].glyphs : [];
    for (const g of glyphs) { const s = document.createElement("span"); s.className = "glyph"; s.textContent = g; li.appendChild(s); }
    if (r.note) li.title = r.note;  // a stored cube analysis
    li.onclick = () => show(r.frame);
    list.appendChild(li);
  }
}
function show(i) {
  cur = Math.max(0, Math.min(G().frames.length - 1, i));
  const f = G().frames[cur];
  drawBoard(f);
  document.getElementById("counter").textContent = `${cur} / ${G().frames.length - 1}`;
  const move = document.getElementById("move");
  move.textContent = f.player === null ? "Start" :
    `${f.turn}. ${D.names[f.player]} ${f.dice}: ${f.play || "(no move)"}`;
  move.dataset.dice = f.dice; move.dataset.play = f.play;
  for (const g of f.glyphs) { const s = document.createElement("span"); s.className = "glyph"; s.textContent = g; move.appendChild(s); }
  const notes = document.getElementById("notes");
  notes.innerHTML = "";
  for (const line of f.lines) { const li = document.createElement("li"); li.textContent = line; notes.appendChild(li); }
  document.getElementById("comments").textContent = f.comments.join("\n");
  for (const c of document.querySelectorAll(".cursor")) { c.setAttribute("x1", xAt(cur)); c.setAttribute("x2", xAt(cur)); }
  // the play that led to this frame; at the start (or a board edit), the rows that show it
  const rows = [...document.querySelectorAll("#turns li")].filter(li => Number(li.dataset.frame) === cur);
  const plays = rows.filter(li => li.classList.contains("play"));
  for (const li of document.querySelectorAll("#turns li.current")) li.classList.remove("current");
  for (const li of (plays.length ? plays : rows)) li.classList.add("current");
  if (rows.length && rows[0].scrollIntoView) rows[0].scrollIntoView({block: "nearest"});
}
function showGame(i, frame) {
  game = Math.max(0, Math.min(D.games.length - 1, i));
  const g = G();
  document.getElementById("title").textContent =
    D.title + (D.games.length > 1 ? `, game ${g.number}` : "") + ` (${D.game_name}, rules: ${D.ruleset}` +
    (D.match_length ? `, ${g.score[0]}-${g.score[1]} of ${D.match_length}` : "") + ")";
  document.getElementById("result").textContent = g.result;
  drawScorebar();
  drawTurns();
  cur = frame === undefined ? 0 : frame;
  drawChart();
  show(cur);
}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(cur - 1);
document.getElementById("next").onclick = () => show(cur + 1);
document.getElementById("last").onclick = () => show(G().frames.length - 1);
document.getElementById("prevgame").onclick = () => showGame(game - 1);
document.getElementById("nextgame").onclick = () => showGame(game + 1);
document.getElementById("flip").onclick = () => { view = 1 - view; show(cur); };
document.addEventListener("keydown", e => {
  if (e.key === "ArrowRight" || e.key === " ") { show(cur + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") show(cur - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(G().frames.length - 1);
  else if (e.key === "PageDown") { showGame(game + 1); e.preventDefault(); }
  else if (e.key === "PageUp") { showGame(game - 1); e.preventDefault(); }
  else if (e.key === "f" || e.key === "F") { view = 1 - view; show(cur); }
});
showGame(0);
