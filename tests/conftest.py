"""Shared fixtures: random positions from seeded playouts, headless Chromium,
and the processes a training run asks for."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from nardtools import find_ruleset
from nardtools.playout import Turn, random_game

from .corpus import require_corpus


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("corpus") is not None:
        require_corpus()


def playout_turns(ruleset: str, seed: int, games: int) -> list[Turn]:
    """Every turn of ``games`` seeded random games under ``ruleset``."""
    rules = find_ruleset(ruleset).rules
    rng = random.Random(seed)
    turns: list[Turn] = []
    for _ in range(games):
        turns.extend(random_game(rules, rng))
    return turns


@pytest.fixture(scope="session")
def long_turns() -> list[Turn]:
    return playout_turns("long", 11, 25)


@pytest.fixture(scope="session")
def backgammon_turns() -> list[Turn]:
    return playout_turns("backgammon", 12, 25)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium through selenium (Debian's ``chromium`` and
    ``chromium-driver``; skipped when any is absent)."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip("chromium and chromedriver are not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def processes_asked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The processes (``jobs``) each pass of a training run's parts asks
    for, in order; the parts are made here, one after another."""
    import nardtools.analysis.searchnet as searchnet

    asked: list[int] = []
    serial = searchnet.run_parts

    def in_turn(work: Any, todo: list[Any], jobs: int, done: Any) -> None:
        asked.append(jobs)
        serial(work, todo, 1, done)

    monkeypatch.setattr(searchnet, "run_parts", in_turn)
    return asked
