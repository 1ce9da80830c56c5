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

    def save() -> list[str]:
        saved.write_text(session.record(), encoding="utf-8")
        return [f"saved: {saved}"]

    server = PlayServer(session, on_finish=save)
    server.serve_in_background()
    shots = Path(os.environ["NARDTOOLS_SCREENSHOTS"]) if os.environ.get("NARDTOOLS_SCREENSHOTS") else None
    try:
        log = _play_in_browser(browser, server, shots, rules)
    finally:
        server.close()
    assert any(line.startswith("bot plays: ") for line in log)
    assert ("match over" if match else "session over") in log and log[-1] == f"saved: {saved}"
    replayed = replay_match(read_record(saved))
    assert not replayed.errors and all(g.complete for g in replayed.games)
