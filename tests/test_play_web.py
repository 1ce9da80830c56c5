"""``nardtools play --web`` (issue 25): the page in headless Chromium plays a
Long Nardy game and a backgammon match to the end by clicking and typing;
a wrong token, an illegal play and malformed JSON each get a clear error and
change nothing.  The screenshots of docs/teaching.md come from here
(``NARDTOOLS_SCREENSHOTS=DIR``)."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from nardtools.notation.reading import read_record
from nardtools.notation.replay import replay_match
from nardtools.teaching.play_web import PlayServer
from nardtools.teaching.tutor import Session


def _post(server: PlayServer, body: bytes, token: str | None = None) -> tuple[int, dict[str, Any]]:
    port = server.httpd.server_address[1]
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/command?token={token or server.token}",
                                     data=body, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_bad_requests_get_clear_errors_and_change_nothing() -> None:
    server = PlayServer(Session("long", human=0, seed=3))
    server.serve_in_background()
    try:
        before = server.state()
        assert _post(server, b'{"command": "24/19/15"}', token="wrong")[0] == 403
        status, answer = _post(server, b"{not json")
        assert status == 400 and "JSON" in answer["error"]
        status, answer = _post(server, b'{"command": 3}')
        assert status == 400
        status, answer = _post(server, b'{"command": "13/8"}')
        assert status == 200 and not answer["ok"] and "no-checker" in answer["error"]
        assert server.state() == before  # nothing changed
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{server.httpd.server_address[1]}/", timeout=10)
            raise AssertionError("the page was served without the token")
        except urllib.error.HTTPError as e:
            assert e.code == 403 and "token" in json.loads(e.read())["error"]
        with urllib.request.urlopen(server.url, timeout=10) as r:
            headers, html = r.headers, r.read().decode("utf-8")
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert "connect-src 'self'" in html
        assert 'src="http' not in html and "<link" not in html  # nothing loaded from elsewhere
    finally:
        server.close()


def _play_in_browser(browser: Any, server: PlayServer, shots: Path | None, name: str) -> list[str]:
    from selenium.webdriver.common.by import By

    browser.get(server.url)
    typed = False
    for step in range(600):
        if browser.find_element(By.TAG_NAME, "body").get_attribute("data-finished") == "yes":
            break
        log = browser.find_element(By.ID, "log").text.splitlines()
        last = log[-1] if log else ""
        if shots is not None and step == 6:
            browser.save_screenshot(str(shots / f"play-{name}.png"))
        choices = list(browser.find_elements(By.CSS_SELECTOR, "button.choice"))
        labels = [b.get_attribute("data-command") for b in choices]
        if last.startswith("position: "):  # your roll is drawn on the board
            dice = last.split("; dice ")[1][:2]
            drawn = browser.find_element(By.ID, "board").get_attribute("data-dice")
            assert drawn == dice or drawn == dice[::-1], (drawn, last)
            assert len(browser.find_elements(By.CSS_SELECTOR, "#board .die")) == 2
        if last.startswith("position: ") and not typed:
            # type the first legal play once, then click
            box = browser.find_element(By.ID, "command")
            box.send_keys(labels[0])
            browser.find_element(By.ID, "send").click()
            typed = True
        else:
            wanted = next((c for c in ("keep", "take", "roll") if c in labels), labels[0])
            choices[labels.index(wanted)].click()
        deadline = time.time() + 20
        while time.time() < deadline:  # the page reloads after each accepted command
            try:
                if browser.find_element(By.ID, "log").text.splitlines() != log:
                    break
            except Exception:  # the page is reloading
                pass
            time.sleep(0.05)
    else:
        raise AssertionError("the game did not end in the browser")
    return browser.find_element(By.ID, "log").text.splitlines()


@pytest.mark.parametrize("rules, match", [("long", 0), ("backgammon", 3)])
def test_a_game_is_played_to_the_end_in_the_browser(browser: Any, tmp_path: Path, rules: str, match: int) -> None:
    saved = tmp_path / "game.nrd"
    session = Session(rules, human=0, seed=4, match=match)
    server = PlayServer(session, save_to=saved)
    server.serve_in_background()
    shots = Path(os.environ["NARDTOOLS_SCREENSHOTS"]) if os.environ.get("NARDTOOLS_SCREENSHOTS") else None
    try:
        log = _play_in_browser(browser, server, shots, rules)
    finally:
        server.close()
    assert any(line.startswith("bot plays: ") for line in log)
    assert ("match over" if match else "session over") in log and log[-1] == f"saved: {saved}"
    assert any(line.startswith("summary: ") for line in log)  # the end is shown on the page, not reloaded away
    replayed = replay_match(read_record(saved))
    assert not replayed.errors and all(g.complete for g in replayed.games)


def _raw(server: PlayServer, request: bytes, timeout: float = 10) -> bytes:
    """Send raw bytes to the server; what comes back."""
    import socket

    with socket.create_connection(server.httpd.server_address[:2], timeout=timeout) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _request(server: PlayServer, body: bytes, *, token: str | bytes | None = None,
             host: str | None = None, origin: str | None = None) -> bytes:
    port = server.httpd.server_address[1]
    t = token if token is not None else server.token
    t = t.encode("utf-8") if isinstance(t, str) else t
    head = [b"POST /api/command?token=" + t + b" HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}".encode(),
            b"Content-Type: application/json", f"Content-Length: {len(body)}".encode(), b"Connection: close"]
    if origin is not None:
        head.append(f"Origin: {origin}".encode())
    return _raw(server, b"\r\n".join(head) + b"\r\n\r\n" + body)


def test_hostile_requests_get_an_answer_and_change_nothing() -> None:
    server = PlayServer(Session("long", human=0, seed=3))
    server.serve_in_background()
    try:
        before = server.state()
        assert b" 403 " in _request(server, b'{"command": "quit"}', token="tök€n".encode())  # non-ASCII token
        assert b" 403 " in _request(server, b'{"command": "quit"}', token=b"%FF%FE")
        assert b" 400 " in _request(server, b"[" * 4000 + b"]" * 4000)  # nested past the parser's depth
        assert b" 403 " in _request(server, b'{"command": "quit"}', host="evil.example:80")  # DNS rebinding
        assert b" 403 " in _request(server, b'{"command": "quit"}', origin="http://evil.example")
        assert server.state() == before and not server.session.finished
        # the one-time link sets the cookie once, and is dead after
        first = _raw(server, f"GET /launch/{server._launch} HTTP/1.1\r\nHost: 127.0.0.1:{server.httpd.server_address[1]}"
                             f"\r\nConnection: close\r\n\r\n".encode())
        assert b" 303 " in first and f"nardtools_play={server.token}".encode() in first
        again = first.split(b"\r\n")[0]
        assert b"303" in again and server._launch == ""
        # a client that sends half a request and stops holds no lock: others are served meanwhile
        import socket

        stalled = [socket.create_connection(server.httpd.server_address[:2]) for _ in range(5)]
        for sock in stalled:
            sock.sendall(b"POST /api/command HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        assert b" 200 " in _request(server, b'{"command": "moves"}')
        for sock in stalled:
            sock.close()
    finally:
        server.close()


def test_a_save_that_fails_at_the_end_is_saved_elsewhere_and_the_session_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    server = PlayServer(Session("long", human=0, seed=3), save_to=gone / "game.nrd")
    server.serve_in_background()
    try:
        gone.rmdir()  # the output folder removed while playing
        status, answer = _post(server, b'{"command": "quit"}')
        assert status == 200 and answer["ok"] and answer["finished"]
        assert server.done.wait(10)
        assert any(line.startswith("could not save to ") for line in answer["lines"])
        assert answer["lines"][-1] == f"saved: {here / 'game.nrd'}"
        assert read_record(here / "game.nrd").games
    finally:
        server.close()


def test_a_fuzz_run_of_the_endpoint_gets_an_answer_to_every_request() -> None:
    """Random bodies, paths, tokens and headers: every request is answered with
    a status line (200, 400, 403 or 404), the server never drops one, and the
    session changes only through the commands it accepts."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    server = PlayServer(Session("long", human=0, seed=3))
    server.serve_in_background()
    port = server.httpd.server_address[1]
    junk = st.binary(max_size=300)
    json_body = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                             lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                           max_size=4),
                             max_leaves=20).map(lambda v: json.dumps({"command": v} if isinstance(v, str) else v)
                                                .encode())

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(body=junk | json_body, path=st.sampled_from(["/api/command", "/api/state", "/", "/x", "/launch/x"]),
           token=st.sampled_from([None, "", "wrong", "tök"]) | st.text(max_size=20),
           method=st.sampled_from(["POST", "GET"]))
    def fuzz(body: bytes, path: str, token: str | None, method: str) -> None:
        t = server.token if token is None else token
        from urllib.parse import quote

        head = (f"{method} {path}?token={quote(t)} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
        answer = _raw(server, head + body)
        assert answer.split(b" ")[1] in (b"200", b"303", b"400", b"403", b"404"), answer[:80]

    try:
        fuzz()
        assert server.session.finished or server.state()["choices"]  # the session still asks (unless quit)
    finally:
        server.close()
