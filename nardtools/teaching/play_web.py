"""``nardtools play --web``: the session of :mod:`.tutor` in the browser.

A local server (``127.0.0.1`` only, a free port) serves one page, the
replay page of the game so far (the board as ``replay`` draws it, the turns,
the charts) with a panel below: the session's lines, the legal plays as
buttons to click, and a box to type a play or a command.  Every request
carries the session's token (a random one in the URL); the page loads
nothing from elsewhere, under a Content-Security-Policy that allows only its
own inline code and requests to this server.

The page and any script talk to one JSON endpoint::

    POST /api/command?token=T   {"command": "24/18 13/9"}
    -> {"ok": true, "lines": [...], "error": null, "finished": false}

A wrong token is refused (403), a body that is not that JSON object too
(400), and a command the session cannot carry out (an illegal play, a
command out of place) answers ``"ok": false`` with the reason and changes
nothing.  ``GET /api/state?token=T`` gives every line so far and the legal
plays.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..errors import NardtoolsError
from .tutor import Session

CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
       "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
#: The largest request body read (a command is a line of text).
MAX_BODY = 4096

_PANEL = """
<style>#play{margin-bottom:1em}#log{max-height:12em;overflow:auto;background:#fff;padding:.4em;border:1px solid #ccc}
#error{color:#a00}button.choice{margin:0 .3em .3em 0}</style>
<div id="play">
 <h2>Your move</h2>
 <div id="plays"></div>
 <form id="cmdform"><input id="command" autocomplete="off" aria-label="command" size="40">
 <button id="send" type="submit">send</button></form>
 <p id="error" role="alert"></p>
 <pre id="log"></pre>
</div>
"""

_SCRIPT = """
<script>
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token");
  const S = JSON.parse(document.getElementById("state").textContent);
  if (typeof showGame === "function" && D.games.length) {
    showGame(D.games.length - 1); show(G().frames.length - 1);
    if (S.dice) {  // the roll you are to play, on the board (the replay's last frame shows the bot's)
      const board = document.getElementById("board");
      for (const d of board.querySelectorAll(".die")) d.remove();
      S.dice.forEach((d, i) => die(board, 560 + i * 70, 300, d, S.player));
      board.dataset.dice = S.dice.join("");
    }
  }
  const log = document.getElementById("log");
  log.textContent = S.lines.join("\\n");
  log.scrollTop = log.scrollHeight;
  const box = document.getElementById("command");
  box.addEventListener("keydown", e => e.stopPropagation());  // the replay's keys are not the box's
  async function send(text) {
    const r = await fetch("/api/command?token=" + encodeURIComponent(token),
      {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({command: text})});
    const a = await r.json();
    if (!a.ok) { document.getElementById("error").textContent = a.error; return; }
    location.reload();
  }
  document.getElementById("cmdform").addEventListener("submit", e => { e.preventDefault(); send(box.value); });
  const plays = document.getElementById("plays");
  for (const p of S.choices) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "choice"; b.textContent = p; b.dataset.command = p;
    b.onclick = () => send(p);
    plays.appendChild(b);
  }
  document.body.dataset.finished = S.finished ? "yes" : "no";
  box.focus();
})();
</script>
"""


class PlayServer:
    """The session's server (see the module docstring); ``on_finish`` is
    called once the session is over (to save the record)."""

    def __init__(self, session: Session, *, on_finish: Callable[[], list[str]] | None = None,
                 port: int = 0) -> None:
        self.session, self.on_finish = session, on_finish
        self.token = secrets.token_urlsafe(18)
        self.lines: list[str] = list(session.start())
        self.lock = threading.Lock()
        self.done = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                outer._get(self)

            def do_POST(self) -> None:
                outer._post(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)

    @property
    def url(self) -> str:
        port = self.httpd.server_address[1]
        return f"http://127.0.0.1:{port}/?token={self.token}"

    def serve_in_background(self) -> threading.Thread:
        thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # ------------------------------------------------------------ requests
    def _authorised(self, h: BaseHTTPRequestHandler) -> tuple[str, bool]:
        parts = urlsplit(h.path)
        token = parse_qs(parts.query).get("token", [""])[0]
        return parts.path, secrets.compare_digest(token, self.token)

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: str, kind: str) -> None:
        data = body.encode("utf-8")
        h.send_response(status)
        h.send_header("Content-Type", kind)
        h.send_header("Content-Length", str(len(data)))
        h.send_header("Content-Security-Policy", CSP)
        h.send_header("X-Content-Type-Options", "nosniff")
        h.send_header("Cache-Control", "no-store")
        h.end_headers()
        h.wfile.write(data)

    def _json(self, h: BaseHTTPRequestHandler, status: int, obj: dict[str, Any]) -> None:
        self._send(h, status, json.dumps(obj), "application/json; charset=utf-8")

    def _get(self, h: BaseHTTPRequestHandler) -> None:
        path, ok = self._authorised(h)
        if not ok:
            return self._json(h, 403, {"ok": False, "error": "wrong or missing token: open the URL play printed"})
        if path == "/":
            with self.lock:
                page = self.page()
            return self._send(h, 200, page, "text/html; charset=utf-8")
        if path == "/api/state":
            with self.lock:
                return self._json(h, 200, self.state())
        return self._json(h, 404, {"ok": False, "error": f"no such page: {path}"})

    def _post(self, h: BaseHTTPRequestHandler) -> None:
        path, ok = self._authorised(h)
        if not ok:
            return self._json(h, 403, {"ok": False, "error": "wrong or missing token: open the URL play printed"})
        if path != "/api/command":
            return self._json(h, 404, {"ok": False, "error": f"no such endpoint: {path}"})
        try:
            length = int(h.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            return self._json(h, 400, {"ok": False, "error": f"expected a body of at most {MAX_BODY} bytes"})
        try:
            body = json.loads(h.rfile.read(length).decode("utf-8"))
            if not isinstance(body, dict) or not isinstance(body.get("command"), str):
                raise ValueError
        except (ValueError, UnicodeDecodeError):
            return self._json(h, 400, {"ok": False, "error": 'expected the JSON object {"command": "..."}'})
        with self.lock:
            if self.session.finished:
                return self._json(h, 200, {"ok": False, "error": "the session is over", "lines": [],
                                           "finished": True})
            try:
                lines = self.session.command(body["command"])
            except NardtoolsError as e:
                return self._json(h, 200, {"ok": False, "error": str(e), "lines": [], "finished": False})
            self.lines += lines
            if self.session.finished:
                if self.on_finish is not None:
                    self.lines += self.on_finish()
                self.done.set()
            return self._json(h, 200, {"ok": True, "lines": lines, "error": None,
                                       "finished": self.session.finished})

    # ------------------------------------------------------------ the page
    def state(self) -> dict[str, Any]:
        """Every line so far, the choices to click, and whether it is over."""
        s = self.session
        choices: list[str] = []
        last = self.lines[-1] if self.lines else ""
        if not s.finished and s.game is not None:
            if last.startswith(("position: ", "undone")):
                choices = [str(p.play) or "-" for p in s.game.legal_plays()] + ["hint", "undo"]
            elif last.startswith("tutor: "):
                choices = ["keep"]
            elif last.startswith("cube: "):
                choices = ["roll", "double", "hint"]
            elif last.endswith("take or pass"):
                choices = ["take", "pass"]
            choices += ["resign", "quit"]
        mine = s.game is not None and not s.finished and s.game.on_roll == s.human
        dice = s.setup().dice if mine else None
        return {"lines": self.lines, "choices": choices, "finished": s.finished,
                "dice": list(dice) if dice else None, "player": s.human}

    def page(self) -> str:
        """The replay page of the game so far, with the play panel."""
        from ..notation.reading import read_record
        from ..notation.replay import replay_match
        from .replay import replay_html

        s = self.session
        match = replay_match(read_record("session.nrd", s.record()))
        page = replay_html(match, match.games[-1].record.number if match.games else None)
        page = page.replace("img-src data:\">", "img-src data:; connect-src 'self'\">", 1)
        state = json.dumps(self.state()).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        script = f'<script id="state" type="application/json">{state}</script>' + _SCRIPT
        title = html.escape(f"nardtools play: {s.names[0]} v {s.names[1]}")
        return (page.replace('<div id="side">', '<div id="side">' + _PANEL, 1).replace("</body>", script + "</body>", 1)
                .replace("<title>", f"<title>{title} — ", 1))
