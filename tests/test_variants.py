"""Variant rules from the seeds: Dutch tricktrack (002), gul-bara's movement rules
(001), nackgammon and hypergammon (000, 001)."""

from __future__ import annotations

import random

import pytest

from nardtools import Position, Roll, Violation, check_play, find_ruleset, legal_plays
from nardtools.outcome import OutcomeKind, classify, points_for
from nardtools.playout import random_game

DUTCH = find_ruleset("dutch").rules


def plays(position, roll, rules):
    return sorted(str(p.play) for p in legal_plays(position, Roll.parse(roll), rules))


def test_tricktrack_starts_off_the_board_and_enters_in_the_opponents_home():
    start = Position.start("tricktrack")
    assert start.mover[25] == 15 and start.opponent[25] == 15
    assert plays(start, "42", DUTCH) == ["bar/23 bar/21"]
    # bar-first (default): with checkers still off the board nothing else moves
    pos = Position.parse("backgammon X bar:13,21:1,23:1 / bar:15")
    assert check_play(pos, Roll(4, 2), "21/17 bar/23", DUTCH).violation is Violation.BAR_FIRST
    # the other reading of seed 002: entered checkers may move first
    free = DUTCH.with_options({"bar-first": "no"})
    assert check_play(pos, Roll(4, 2), "21/17 bar/23", free).legal
    assert "21/17/15" in plays(pos, "42", free)


def test_tricktrack_no_hitting_before_a_checker_is_home():
    # the opponent's blot on its 5 is my 20; no checker of mine is home yet
    pos = Position.parse("backgammon X bar:10,22:3,24:2 / bar:10,5:1,7:2,8:2")
    j = check_play(pos, Roll(2, 1), "bar/24 22/20*", DUTCH.with_options({"bar-first": "no"}))
    assert j.violation is Violation.NO_HIT
    home = Position.parse("backgammon X bar:10,22:2,24:2,6:1 / bar:10,5:1,7:2,8:2")
    assert check_play(home, Roll(2, 1), "bar/24 22/20*", DUTCH.with_options({"bar-first": "no"})).legal
    # the standard game hits freely
    assert check_play(pos, Roll(2, 1), "bar/24 22/20*",
                      find_ruleset("backgammon").rules.with_options({"bar-first": "no"})).legal


def test_tricktrack_scoring():
    rules = DUTCH
    not_started = Position.from_points("backgammon", {5: 15}, {}).mover
    started = Position.from_points("backgammon", {5: 14}, {}).mover
    stuck_back = Position.from_points("backgammon", {20: 15}, {}).mover
    assert points_for(classify(not_started, rules), rules) == 2
    assert points_for(classify(stuck_back, rules), rules) == 2  # no backgammon bonus
    assert points_for(classify(started, rules), rules) == 1


def test_gulbara_movement_rules():
    rules = find_ruleset("backgammon").rules.with_options({"move-inside-home": "no", "bear-off": "exact"})
    pos = Position.from_points("backgammon", {9: 1, 5: 2, 3: 2}, {1: 15})
    assert check_play(pos, Roll(4, 2), "5/1 9/7", rules).violation is Violation.INSIDE_HOME
    # 9/5/3 would move 5/3 inside the home: the checker must go 9/7/3
    assert plays(pos, "42", rules) == ["9/7/3"]
    home = Position.from_points("backgammon", {5: 2, 3: 2}, {1: 15})
    # exact bear-off only: 5-3 bears off from 5 and 3; 6-4 cannot be played at all
    assert plays(home, "53", rules) == ["5/off 3/off"]
    assert plays(home, "64", rules) == [""]


@pytest.mark.parametrize("ruleset, layout", [("nackgammon", "nackgammon"), ("hypergammon", "hypergammon"),
                                             ("dutch", "tricktrack")])
def test_variant_games_play_to_the_end(ruleset, layout):
    rules = find_ruleset(ruleset).rules
    assert rules.start == layout
    rng = random.Random(4)
    for _ in range(3):
        turns = random_game(rules, rng)
        total = sum(Position.start(layout).mover)
        assert all(sum(t.result.mover) == total == sum(t.result.opponent) for t in turns)
        assert turns[-1].result.is_finished()
