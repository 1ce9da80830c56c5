"""Backgammon legal-play sets against GNU Backgammon's move generator (gnubg-nn).

gnubg-nn is GPL-3 and test-only (``pip install .[oracle]``); the test skips when
it is absent.  Sets of resulting positions are compared, never move strings.
"""

from __future__ import annotations

import random

import pytest

from nardtools import ALL_ROLLS, Position, Roll, find_ruleset, legal_plays

gnubg_nn = pytest.importorskip("gnubg_nn")
pytestmark = pytest.mark.oracle

BG = find_ruleset("backgammon").rules
NACK = find_ruleset("backgammon").rules.with_options({"start": "nackgammon"})


def gnubg_board(p: Position) -> list[list[int]]:
    """gnubg's anBoard with the mover as side 1: index 0 = own 1-point, 24 = bar."""
    return [list(p.opponent[1:26]), list(p.mover[1:26])]


def gnubg_results(p: Position, roll: Roll) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    keys = gnubg_nn.moves(gnubg_board(p), roll.high, roll.low)
    return {tuple(map(tuple, gnubg_nn.board_from_position_key(k))) for k in keys}


def our_results(p: Position, roll: Roll, rules=BG) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    got = set()
    for lp in legal_plays(p, roll, rules):
        if lp.play.steps:  # gnubg says "no move" with an empty set
            got.add((lp.result.mover[1:26], lp.result.opponent[1:26]))
    return got


def compare(positions: int, seed: int, rules=BG) -> tuple[int, list[str]]:
    """Walk random games; at every turn compare the rolled dice and one other roll."""
    rng = random.Random(seed)
    compared, mismatches = 0, []
    while compared < positions:
        p = Position.start(rules.start, player=rng.randrange(2))
        roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
        while not p.is_finished():
            for r in (roll, rng.choice(ALL_ROLLS)):
                ours, theirs = our_results(p, r, rules), gnubg_results(p, r)
                compared += 1
                if ours != theirs:
                    mismatches.append(f"{p} {r}: ours-only {ours - theirs} gnubg-only {theirs - ours}")
            plays = legal_plays(p, roll, rules)
            p = plays[rng.randrange(len(plays))].result
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
    return compared, mismatches


def test_opening_rolls_match_gnubg():
    for roll in ALL_ROLLS:
        assert our_results(Position.start(), roll) == gnubg_results(Position.start(), roll)


def test_legal_play_sets_match_gnubg_on_random_games():
    compared, mismatches = compare(10_000, seed=2026)
    assert compared >= 10_000
    assert mismatches == []


def test_nackgammon_legal_play_sets_match_gnubg():
    _compared, mismatches = compare(2_000, seed=7, rules=NACK)
    assert mismatches == []


@pytest.mark.slow
def test_legal_play_sets_match_gnubg_many():
    _compared, mismatches = compare(200_000, seed=1)
    assert mismatches == []
