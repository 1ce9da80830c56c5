"""The HTML replay in headless Chromium: step through every turn with the
arrow keys and the buttons, and check the drawn board against the engine's
positions and the shown annotations against the record.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium``
package (all installed by ``.ci/run``); skipped when any is absent."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from nardtools.notation.reading import read_record
from nardtools.notation.replay import ReplayedMatch, replay_match
from nardtools.position import BAR, Position
from nardtools.teaching.replay import replay_html

ROOT = Path(__file__).resolve().parent.parent
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

RECORDS = [ROOT / "examples" / "teaching" / "long-annotated.nrd",
           ROOT / "examples" / "backgammon" / "backgammon-5pt-seed6.mat"]


def _expected_board(position: Position) -> Counter[tuple[str, int]]:
    """(point from player 0's view, player) -> checkers, from the engine's position."""
    zero, one = (position.mover, position.opponent) if position.player == 0 else (position.opponent, position.mover)
    counts: Counter[tuple[str, int]] = Counter()
    for q in range(1, 25):
        if zero[q]:
            counts[(f"p{q}", 0)] = zero[q]
        theirs = one[position.kind.opponent_point(q)]
        if theirs:
            counts[(f"p{q}", 1)] = theirs
    for side, arr in ((0, zero), (1, one)):
        if arr[BAR]:
            counts[("bar", side)] = arr[BAR]
        if arr[0]:
            counts[("off", side)] = arr[0]
    return counts


def _shown(driver: Any) -> dict[str, Any]:
    return driver.execute_script("""
        const m = document.getElementById('move');
        return {index: Number(document.getElementById('board').dataset.index),
                checkers: [...document.querySelectorAll('#board .checker')].map(c => [c.dataset.point, Number(c.dataset.side)]),
                dice: [...document.querySelectorAll('#board .die')].map(d => d.dataset.value).join(''),
                move_dice: m.dataset.dice, play: m.dataset.play,
                glyphs: [...m.querySelectorAll('.glyph')].map(g => g.textContent),
                comments: document.getElementById('comments').textContent,
                notes: [...document.querySelectorAll('#notes li')].map(li => li.textContent),
                arrows: document.querySelectorAll('#board .arrow').length};""")


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_step_through_every_turn(browser: Any, path: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    match: ReplayedMatch = replay_match(read_record(path))
    game = match.games[0]
    page = tmp_path / "replay.html"
    page.write_text(replay_html(match, game.record.number), encoding="utf-8")
    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    shown = _shown(browser)
    assert shown["index"] == 0
    positions = [game.turns[0].before] + [t.after for t in game.turns]
    for i, position in enumerate(positions):
        if i:
            if i % 5 == 0:
                browser.find_element(By.ID, "next").click()
            else:
                body.send_keys(Keys.ARROW_RIGHT)
            shown = _shown(browser)
        assert shown["index"] == i
        assert Counter(tuple(c) for c in shown["checkers"]) == _expected_board(position), f"frame {i}"
        if i == 0:
            continue
        turn = game.turns[i - 1]
        action = turn.action
        assert shown["move_dice"] == (f"{action.roll.high}{action.roll.low}" if action.roll and not action.part
                                      else "".join(map(str, turn.dice.dice)))
        assert shown["dice"] == shown["move_dice"]
        assert shown["play"] == str(turn.play)
        assert shown["glyphs"] == list(action.glyphs)
        assert shown["comments"] == "\n".join(action.before + action.after)
        assert shown["arrows"] == len(turn.play.steps)
        assert shown["notes"][0].startswith(match.record.players[action.player])
        legal = re.search(r"(\d+) legal plays|Forced|No legal play", " ".join(shown["notes"]))
        assert legal is not None
    body.send_keys(Keys.ARROW_RIGHT)  # past the end: stays on the last frame
    assert _shown(browser)["index"] == len(positions) - 1
    body.send_keys(Keys.HOME)
    assert _shown(browser)["index"] == 0
    browser.find_element(By.ID, "last").click()
    assert _shown(browser)["index"] == len(positions) - 1
    body.send_keys(Keys.ARROW_LEFT)
    assert _shown(browser)["index"] == len(positions) - 2


def test_the_page_is_self_contained() -> None:
    match = replay_match(read_record(RECORDS[0]))
    page = replay_html(match)
    assert not re.search(r"""(src|href)\s*=|@import|url\((?!#)|fetch\(|XMLHttpRequest""", page)
    # the only address is the SVG namespace, an identifier that is never fetched
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}
    assert "default-src 'none'" in page


def _largest_match() -> Path:
    """The corpus match with the most turns (the analysed fixture without the corpus)."""
    from .corpus import CORPUS

    files = sorted(CORPUS.rglob("*.txt")) + sorted(CORPUS.rglob("*.mat")) if CORPUS.is_dir() else []
    return max(files, key=lambda f: f.stat().st_size) if files else \
        ROOT / "examples" / "backgammon" / "gnubg-5pt-analysed.sgf"


def test_the_whole_match_page(browser: Any, tmp_path: Path) -> None:
    """The match page of the largest match: under 1 MB, open in under a second;
    click through the games and turns, jump, flip, and check every board drawn."""
    import time

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    match = replay_match(read_record(_largest_match()), lenient=True)
    page = tmp_path / "match.html"
    page.write_text(replay_html(match), encoding="utf-8")
    assert page.stat().st_size < 1_000_000
    started = time.perf_counter()
    browser.get(page.as_uri())
    browser.find_element(By.CSS_SELECTOR, "#board .checker")
    assert time.perf_counter() - started < 1.0
    buttons = browser.find_elements(By.CSS_SELECTOR, "#scorebar button.game")
    assert len(buttons) == len(match.games) > 1
    for g, replayed in enumerate(match.games):
        browser.find_elements(By.CSS_SELECTOR, "#scorebar button.game")[g].click()
        assert browser.find_element(By.ID, "board").get_attribute("data-game") == str(replayed.record.number)
        rows = browser.find_elements(By.CSS_SELECTOR, "#turns li.play")
        assert len(rows) == len(replayed.turns)
        positions = [t.after for t in replayed.turns]
        for i in sorted({0, len(rows) // 2, len(rows) - 1} if rows else ()):
            rows[i].click()
            shown = _shown(browser)
            assert shown["play"] == str(replayed.turns[i].play)
            assert Counter(tuple(c) for c in shown["checkers"]) == _expected_board(positions[i])
            assert "current" in rows[i].get_attribute("class")
        cubes = browser.find_elements(By.CSS_SELECTOR, "#turns li.cube")
        offers = [a for a in replayed.record.actions if a.kind.value in ("double", "take", "drop", "beaver")]
        assert len(cubes) == len(offers)
    # the cube on the board follows the game
    last = match.games[-1]
    browser.find_element(By.CSS_SELECTOR, "#scorebar button.current")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.END)
    cube = browser.find_element(By.CSS_SELECTOR, "#board .cube")
    assert int(cube.get_attribute("data-value")) == (last.turns[-1].cube if last.turns else 1)
    # flip: every checker on the mirrored point, names swapped
    before = Counter(tuple(c) for c in _shown(browser)["checkers"])
    browser.find_element(By.ID, "flip").click()
    flipped = Counter(tuple(c) for c in _shown(browser)["checkers"])
    kind = last.turns[-1].after.kind if last.turns else None
    mirror = {f"p{q}": f"p{kind.opponent_point(q)}" for q in range(1, 25)} if kind else {}
    assert flipped == Counter({(mirror.get(p, p), side): n for (p, side), n in before.items()})
    assert browser.find_element(By.ID, "board").get_attribute("data-view") == "1"
    # keys: Page Up goes to the game before
    body.send_keys(Keys.PAGE_UP)
    assert browser.find_element(By.ID, "board").get_attribute("data-game") == str(match.games[-2].record.number)


def test_a_long_nardy_page_without_a_cube(browser: Any, tmp_path: Path) -> None:
    """Issue 21: no cube (at 64) on a Long Nardy board whose ruleset has none,
    no "Crawford game", a title that names the game and the rules once, and
    charts with axes whose equity scale reaches past ±1 (marses count 2)."""
    from selenium.webdriver.common.by import By

    from nardtools.analysis.analyse import analyse_match

    match = replay_match(read_record(ROOT / "examples" / "long-nardy" / "long-5pt-seed1.mat"))
    page = tmp_path / "long.html"
    analysis = analyse_match(match, games={1, 2}).games
    page.write_text(replay_html(match, analysis=analysis), encoding="utf-8")
    browser.get(page.as_uri())
    browser.find_element(By.CSS_SELECTOR, "#board .checker")
    for g in range(len(match.games)):
        browser.find_elements(By.CSS_SELECTOR, "#scorebar button.game")[g].click()
        assert not browser.find_elements(By.CSS_SELECTOR, "#board .cube")
        assert "Crawford" not in browser.find_element(By.ID, "board").text
    browser.find_elements(By.CSS_SELECTOR, "#scorebar button.game")[0].click()  # an analysed game
    title = browser.find_element(By.ID, "title").text
    assert "(Long Nardy, rules: long," in title and "long, long" not in title
    for chart in ("chart", "eqchart"):
        assert len(browser.find_elements(By.CSS_SELECTOR, f"#{chart} .axis")) == 2
        assert browser.find_elements(By.CSS_SELECTOR, f"#{chart} .tick")
    ticks = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#eqchart .tick")]
    extreme = max(abs(t.equity or 0) for turns in analysis.values() for t in turns)
    top = float(ticks[2].lstrip("+"))
    assert extreme > 1 and top >= extreme
