"""Variant rules from the seeds: Dutch tricktrack (002), gul-bara's movement rules
(001), nackgammon and hypergammon (000, 001)."""

from __future__ import annotations

import random

import pytest

from nardtools import Position, Roll, Violation, check_play, find_ruleset, legal_plays
from nardtools.dice import Dice
from nardtools.game import Game, Phase
from nardtools.notation.native import read_native
from nardtools.notation.replay import replay_match
from nardtools.outcome import classify, points_for
from nardtools.playout import random_game
from nardtools.rules import rulesets

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


# --- gul-bara (seed 001) -------------------------------------------------------


def test_gulbara_unplayable_dice_are_played_by_the_opponent():
    # «недоигранные ходы должен сделать соперник»: X's 6-6 from the start plays only
    # 24/18(2) (the opponent's head stops 18/12), so O plays the other two sixes ...
    g = Game(find_ruleset("gulbara"))
    g.start(0)
    g.roll(6, 6)
    g.play("24/18(2)")
    assert (g.phase, g.on_roll, g.dice, g.carried_over) == (Phase.PLAY, 1, Dice((6, 6)), True)
    # this is not O's first turn, so one head checker only: 24/18, and 18/12 is X's head
    assert [str(p.play) for p in g.legal_plays()] == ["24/18"]
    g.play("24/18")
    # ... the six O cannot play is lost (it does not go back), and O takes its own turn
    assert (g.phase, g.on_roll) == (Phase.ROLL, 1)
    standard = Game(find_ruleset("long"))
    standard.start(0)
    standard.roll(6, 6)
    standard.play("24/18(2)")
    assert (standard.phase, standard.on_roll) == (Phase.ROLL, 1)  # elsewhere the sixes are lost


def test_gulbara_a_double_played_in_full_earns_another_roll():
    g = Game(find_ruleset("gulbara"))
    g.start(0)
    g.roll(5, 5)
    g.play("24/4")  # «если игрок смог сделать все 4 хода, то он бросает кости снова»
    assert (g.phase, g.on_roll) == (Phase.ROLL, 0)
    g.roll(3, 1)
    g.play("24/20")
    assert (g.phase, g.on_roll) == (Phase.ROLL, 1)


@pytest.mark.parametrize("times, expected", [
    ("twice", [(4, 4), (5, 5), (6, 6)]),  # the seed: 4, 4, 5, 5, 6, 6
    ("four-times", [(4,) * 4, (5,) * 4, (6,) * 4]),
])
def test_crazy_gulbara_plays_every_higher_double(times, expected):
    g = Game(find_ruleset("crazy-gulbara").rules.with_options({"crazy-doubles": times}))
    g.start(0)
    g.roll(4, 4)
    seen = []
    while g.phase is Phase.PLAY and g.on_roll == 0:
        seen.append(g.dice.dice)
        g.play(g.legal_plays()[0].play)
    assert seen == expected


def test_gulbara_record_with_carried_dice_validates_and_misorder_is_reported():
    text = '''[Game "long"]
[Ruleset "gulbara"]
[Result "*"]

1. X 66: 24/18(2) O +66: 24/18
2. O 55: 24/4
3. O 31: 24/20
*
'''
    r = replay_match(read_native(text, "g.nrd"))
    assert r.errors == [] and len(r.games[0].turns) == 4
    wrong = text.replace("O +66: 24/18", "O +55: 24/14")
    (err,) = replay_match(read_native(wrong, "g.nrd")).errors
    assert err.rule == "turn-order" and "black plays +66" not in err.message and "+66" in err.message


def _auto_double_match(fmt: str) -> str:
    """A short-academic match (automatic doubles, seed 001) whose first game
    opened with a tie, written in ``fmt``."""
    from nardtools.notation.mat import export_mat
    from nardtools.notation.native import export_native
    from nardtools.notation.random_records import random_match
    from nardtools.notation.record import AUTO_DOUBLES
    from nardtools.notation.replay import replay_match

    ruleset = find_ruleset("short-academic")
    seed = next(s for s in range(200) if random_match(ruleset, 3, s).games[0].tags)
    record = random_match(ruleset, 3, seed)
    assert record.games[0].tags == [(AUTO_DOUBLES, "1")]
    return (export_mat if fmt == "mat" else export_native)(replay_match(record, rules=ruleset.name))


@pytest.mark.parametrize("fmt", ["mat", "nrd"])
def test_a_games_automatic_double_is_recorded_and_replayed(fmt):
    """The tied opening throws are not recorded, so the game says how often
    the cube turned by itself; the replay starts the game at that cube."""
    from nardtools.notation.mat import read_mat
    from nardtools.notation.native import read_native
    from nardtools.notation.replay import replay_match

    def replay(text):
        return replay_match((read_mat if fmt == "mat" else read_native)(text, f"x.{fmt}"))

    text = _auto_double_match(fmt)
    replayed = replay(text)
    assert replayed.problems == []
    assert replayed.games[0].turns[0].cube == 2
    # without the tag the record disagrees with itself: the cube's values show it
    bare = "\n".join(line for line in text.split("\n") if "AutoDoubles" not in line)
    assert {p.rule for p in replay(bare).problems} & {"cube-value", "result"}
    # more automatic doubles than the rules allow is an error naming the tag
    problems = replay(text.replace('AutoDoubles "1"', 'AutoDoubles "2"', 1)).problems
    assert [p.rule for p in problems][:1] == ["auto-doubles"] and "at most 1" in problems[0].message


@pytest.mark.parametrize("name", [rs.name for rs in rulesets() if rs.rules.crazy_doubles == "none"
                                  and rs.rules.remainder == "lost" and not rs.rules.double_reroll])
def test_self_play_ends_its_games_under_every_variant(name):
    """Issue 22: game over was 'fifteen checkers off', and a hypergammon game
    (three checkers) never ended.  The outcome is the one the rules give the
    final position."""
    from nardtools.analysis.selfplay import RandomPlayer, play_game

    ruleset = find_ruleset(name)
    for seed in range(3):
        result = play_game(ruleset, RandomPlayer(seed), RandomPlayer(seed + 100), seed, max_turns=2000)
        assert result.winner in (0, 1) and 0 < result.turns < 2000 and result.points >= 1
