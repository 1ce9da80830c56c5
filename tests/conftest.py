"""Shared fixtures: random positions from seeded playouts."""

from __future__ import annotations

import random

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
