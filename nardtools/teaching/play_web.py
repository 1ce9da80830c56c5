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

The browser is opened on a one-time link (``/launch/CODE``) that sets the
token as a cookie and is dead once used, so the token itself never stands
on a command line.  Requests whose ``Host`` is not this server (DNS
rebinding) or whose ``Origin`` is another site are refused; a connection
that sends nothing for :data:`IDLE_SECONDS` is closed, and at most
:data:`MOST_CONNECTIONS` are served at once.  However the session ends, the
record is saved (:meth:`.tutor.Session.finish`) and the last lines, the
summary and where the record went, reach both the page and the terminal.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
from collections.abc import Callable
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..errors import NardtoolsError
from .tutor import Session

CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
       "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
#: The largest request body read (a command is a line of text).
MAX_BODY = 4096
#: A connection silent this long is closed.
IDLE_SECONDS = 20
#: Connections served at once; more wait in the listen queue.
MOST_CONNECTIONS = 16
COOKIE = "nardtools_play"
#: The buttons for what the session awaits (:attr:`.tutor.Session.awaiting`), before undo, resign and quit.
_CHOICES = {"play": ("hint", "moves"), "keep": ("keep",), "cube": ("roll", "double", "hint"),
            "answer": ("take", "pass"), "resignation": ("accept", "reject")}

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
  const query = token ? "?token=" + encodeURIComponent(token) : "";
  function over(lines) {  // the session is over: its last lines, and no more buttons
    log.textContent += "\\n" + lines.join("\\n");
    log.scrollTop = log.scrollHeight;
    document.getElementById("plays").replaceChildren();
    document.getElementById("cmdform").hidden = true;
    document.body.dataset.finished = "yes";
  }
  async function send(text) {
    let a;
    try {
      const r = await fetch("/api/command" + query,
        {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({command: text})});
      a = await r.json();
    } catch (e) { document.getElementById("error").textContent = "the server is gone: " + e; return; }
    if (!a.ok) { document.getElementById("error").textContent = a.error; return; }
    if (a.finished) { over(a.lines); return; }
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


class _Server(ThreadingHTTPServer):
    """A threading server that serves at most :data:`MOST_CONNECTIONS` at once."""

    daemon_threads = True

    def __init__(self, *args: Any) -> None:
        self.slots = threading.BoundedSemaphore(MOST_CONNECTIONS)
        super().__init__(*args)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.slots.acquire()
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class PlayServer:
    """The session's server (see the module docstring).  When the session is
    over, its record is saved to ``save_to`` (none: not saved)."""

    def __init__(self, session: Session, *, save_to: Path | None = None, port: int = 0) -> None:
        self.session, self.save_to = session, save_to
        self.token = secrets.token_urlsafe(18)
        self._launch = secrets.token_urlsafe(18)  # the one-time link's code
        self.lines: list[str] = list(session.start())
        self.final: list[str] = []  # the lines of the end: summary, where the record went
        self.lock = threading.Lock()
        self.done = threading.Event()  # the session is over and saved
        self.answered = threading.Event()  # the page has been sent its last lines
        outer = self

        class Handler(BaseHTTPRequestHandler):
            timeout = IDLE_SECONDS

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                outer._get(self)

            def do_POST(self) -> None:
                outer._post(self)

        self.httpd = _Server(("127.0.0.1", port), Handler)

    @property
    def url(self) -> str:
        """The page's address with the token (what the terminal prints)."""
        return f"{self._origin}/?token={self.token}"

    @property
    def launch_url(self) -> str:
        """The one-time link the browser is opened on (it sets the token as a cookie)."""
        return f"{self._origin}/launch/{self._launch}"

    @property
    def _origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def serve_in_background(self) -> threading.Thread:
        thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def finish(self) -> list[str]:
        """End the session now (once): the record saved, the last lines kept."""
        with self.lock:
            if not self.done.is_set():
                try:
                    self.final = self.session.finish(self.save_to) if self.save_to is not None else []
                finally:
                    self.done.set()
            return self.final

    # ------------------------------------------------------------ requests
    def _refusal(self, h: BaseHTTPRequestHandler) -> str:
        """Why a request is refused (403), or ``""``: its Host must be this
        server, its Origin (when sent) this server's, and it must carry the
        token (in the query or the cookie)."""
        port = self.httpd.server_address[1]
        ours = {f"127.0.0.1:{port}", f"localhost:{port}"}
        if (h.headers.get("Host") or "") not in ours:
            return "wrong Host: open the URL play printed"
        origin = h.headers.get("Origin")
        if origin is not None and origin.removeprefix("http://") not in ours:
            return "requests from another site are refused"
        query = parse_qs(urlsplit(h.path).query).get("token", [""])[0]
        cookie = SimpleCookie()
        try:
            cookie.load(h.headers.get("Cookie") or "")
        except CookieError:
            pass
        given = [query] + ([cookie[COOKIE].value] if COOKIE in cookie else [])
        mine = self.token.encode()
        if not any(secrets.compare_digest(t.encode("utf-8", "replace"), mine) for t in given if t):
            return "wrong or missing token: open the URL play printed"
        return ""

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: str, kind: str,
              headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8")
        try:
            h.send_response(status)
            h.send_header("Content-Type", kind)
            h.send_header("Content-Length", str(len(data)))
            h.send_header("Content-Security-Policy", CSP)
            h.send_header("X-Content-Type-Options", "nosniff")
            h.send_header("Cache-Control", "no-store")
            h.send_header("Referrer-Policy", "no-referrer")
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except OSError:  # the client went away, or stopped reading: its loss alone
            h.close_connection = True

    def _json(self, h: BaseHTTPRequestHandler, status: int, obj: dict[str, Any]) -> None:
        self._send(h, status, json.dumps(obj), "application/json; charset=utf-8")

    def _get(self, h: BaseHTTPRequestHandler) -> None:
        path = urlsplit(h.path).path
        if path.startswith("/launch/"):
            return self._launched(h, path[len("/launch/"):])
        refusal = self._refusal(h)
        if refusal:
            return self._json(h, 403, {"ok": False, "error": refusal})
        if path == "/":
            with self.lock:
                page = self.page()
            return self._send(h, 200, page, "text/html; charset=utf-8")
        if path == "/api/state":
            with self.lock:
                state = self.state()
            return self._json(h, 200, state)
        return self._json(h, 404, {"ok": False, "error": f"no such page: {path[:80]}"})

    def _launched(self, h: BaseHTTPRequestHandler, code: str) -> None:
        """The one-time link: the token as a cookie, then the page."""
        with self.lock:
            valid = bool(self._launch) and secrets.compare_digest(code.encode("utf-8", "replace"),
                                                                  self._launch.encode())
            if valid:
                self._launch = ""  # used: dead from now on
        if not valid:
            return self._json(h, 403, {"ok": False, "error": "this link was used already: open the URL play printed"})
        self._send(h, 303, "", "text/plain", {
            "Location": "/", "Set-Cookie": f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"})

    def _post(self, h: BaseHTTPRequestHandler) -> None:
        refusal = self._refusal(h)
        if refusal:
            return self._json(h, 403, {"ok": False, "error": refusal})
        path = urlsplit(h.path).path
        if path != "/api/command":
            return self._json(h, 404, {"ok": False, "error": f"no such endpoint: {path[:80]}"})
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
        except (ValueError, UnicodeDecodeError, RecursionError):
            return self._json(h, 400, {"ok": False, "error": 'expected the JSON object {"command": "..."}'})
        except OSError:  # the client went away (or was too slow) while sending
            h.close_connection = True
            return None
        answer = self._command(body["command"])
        if not (answer["finished"] and answer["ok"]):
            return self._json(h, 200, answer)
        answer["lines"] = answer["lines"] + self.finish()
        self._json(h, 200, answer)
        self.answered.set()

    def _command(self, text: str) -> dict[str, Any]:
        """One command carried out under the session's lock (the answer is sent after)."""
        with self.lock:
            if self.session.finished:
                return {"ok": False, "error": "the session is over", "lines": [], "finished": True}
            try:
                lines = self.session.command(text)
            except NardtoolsError as e:
                return {"ok": False, "error": str(e), "lines": [], "finished": False}
            self.lines += lines
            return {"ok": True, "lines": lines, "error": None, "finished": self.session.finished}

    # ------------------------------------------------------------ the page
    def state(self) -> dict[str, Any]:
        """Every line so far, the choices to click, and whether it is over."""
        s = self.session
        awaiting = s.awaiting
        choices = list(_CHOICES.get(awaiting, ()))
        if awaiting == "play":
            assert s.game is not None
            choices = [str(p.play) or "-" for p in s.game.legal_plays()] + choices
        if awaiting:
            own_turn = awaiting in ("play", "cube")  # (one resigns on one's own turn)
            choices += ((["undo"] if s.may_undo and awaiting in ("play", "keep") else [])
                        + ([f"resign {k}" for k in s.levels()] if own_turn else []) + ["quit"])
        to_play = s.game is not None and not s.finished and s.game.on_roll == s.human
        dice = s.setup().dice if to_play else None
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


def play_in_browser(session: Session, save_to: Path, *, say: Callable[[str], None] = print,
                    open_page: Callable[[str], object] | None = None) -> None:
    """Serve ``session`` to the browser (opened on the one-time link) until it
    ends; however it ends (over, quit, Ctrl-C, SIGTERM) the record is saved
    and the last lines are said here too.  An interruption then goes on to
    the caller (exit 130 or 143)."""
    import webbrowser

    server = PlayServer(session, save_to=save_to)
    server.serve_in_background()
    say(f"serving: {server.url} (Ctrl-C stops; the game is saved when it ends)")
    try:
        (open_page or webbrowser.open)(server.launch_url)
        server.done.wait()
        server.answered.wait(5)  # (the page's last answer is on its way)
    finally:
        for line in server.finish():
            say(line)
        server.close()
