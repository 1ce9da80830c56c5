"""Long Nardy rules, hand-derived from the seed texts (see docs/rules.md).

Positions are written mover first, each side in its own numbering: my point p is
the opponent's point p+12 (p <= 12) or p-12 (p > 12).
"""

import pytest

from nardtools import Position, Roll, Violation, apply_play, check_play, find_ruleset, legal_plays

LONG = find_ruleset("long").rules
ARENA = find_ruleset("arena").rules  # doubles-list head exception
START = Position.start("long")


def plays(position, roll, rules=LONG, **kw):
    return sorted(str(p.play) for p in legal_plays(position, Roll.parse(roll), rules, **kw))


# --- first turn: the head rule and its exception (seed 000 "Правила", 003) -----

@pytest.mark.parametrize("rules", [LONG, ARENA])
def test_first_turn_six_six_takes_two_head_checkers(rules):
    # 24/18/12 is stopped by the opponent's head (my 12): only two checkers to 18.
    assert plays(START, "66", rules) == ["24/18(2)"]


@pytest.mark.parametrize("rules", [LONG, ARENA])
def test_first_turn_four_four(rules):
    # one checker reaches 16 (the next 4 lands on the opponent's head): two go to 16.
    assert plays(START, "44", rules) == ["24/16(2)"]


@pytest.mark.parametrize("rules", [LONG, ARENA])
def test_first_turn_three_three_both_two_checker_plays(rules):
    # one checker could play only three 3s (24/15); both two-checker plays use all four.
    assert plays(START, "33", rules) == ["24/18(2)", "24/21 24/15"]


@pytest.mark.parametrize("rules", [LONG, ARENA])
def test_first_turn_five_five_one_checker_runs(rules):
    assert plays(START, "55", rules) == ["24/4"]


def test_first_turn_non_double_takes_one_head_checker():
    assert plays(START, "65") == ["24/18/13"]
    j = check_play(START, Roll(6, 5), "24/18 24/19", LONG)
    assert j.violation is Violation.HEAD


def test_second_side_first_turn_general_after_five_five():
    # The first side opened 5-5: 24/4.  Its checker on its 4 is my 16.
    after = apply_play(START, Roll(5, 5), "24/4", LONG)
    assert str(after) == "long O 24:15 / 24:14,4:1"
    # 6-2: one checker cannot play both dice (24/18/16 and 24/22/16 land on it),
    # so under `general` (seed 003) a second head checker may be taken ...
    assert plays(after, "62") == ["24/22 24/18"]
    assert check_play(after, Roll(6, 2), "24/18 24/22", LONG).legal
    # ... while `doubles-list` (Арена) allows it only for 3-3, 4-4, 6-6: one die,
    # and the larger.
    assert plays(after, "62", ARENA) == ["24/18"]
    assert check_play(after, Roll(6, 2), "24/22", ARENA).violation is Violation.LARGER_DIE
    assert check_play(after, Roll(6, 2), "24/18 24/22", ARENA).violation is Violation.HEAD


def test_second_side_five_five_after_six_two():
    # Seed 003: after the opponent's 6-2 the second side's 5-5 also takes two.
    # The opponent played 24/16: its 16 is my 4, stopping 24/19/14/9/4.
    after = apply_play(START, Roll(6, 2), "24/18/16", LONG)
    assert plays(after, "55") == ["24/14(2)", "24/19 24/9"]
    assert plays(after, "55", ARENA) == ["24/9"]


def test_head_limit_on_later_turns():
    # The opponent's head is my 12, so 18/12 is closed: with 6-6 on a later turn
    # only one checker may leave the head, and that is all that can be played.
    pos = Position.from_points("long", {24: 13, 18: 2}, {24: 14, 16: 1})
    assert plays(pos, "66", first_turn=False) == ["24/18"]
    j = check_play(pos, Roll(6, 6), "24/18(2)", LONG, first_turn=False)
    assert j.violation is Violation.HEAD
    # On a first turn the general reading would allow the second head checker,
    # since one head checker cannot play the roll in full.
    assert check_play(pos, Roll(6, 6), "24/18(2)", LONG, first_turn=True).legal


def test_never_land_on_an_opponent_checker():
    # the opponent's single checker on its 7 is my 19: no hitting, no landing.
    pos = Position.from_points("long", {24: 14, 20: 1}, {24: 14, 7: 1})
    j = check_play(pos, Roll(5, 1), "24/19 20/19", LONG, first_turn=False)
    assert j.violation is Violation.OPPONENT_POINT
    assert not any("/19" in p for p in plays(pos, "51", first_turn=False))


# --- the six-block rule (запирание) ----------------------------------------------

# My 11 holds ten checkers and my 5..1 one each; the opponent sits on my 12, 10, 9
# (its 24, 22, 21).  With 6-5 the only checkers that can move are on 11.
BLOCK = "long X 11:10,5:1,4:1,3:1,2:1,1:1 / 24:5,22:5,21:5"


def test_six_block_illegal_with_no_opponent_checker_ahead():
    pos = Position.parse(BLOCK)
    j = check_play(pos, Roll(6, 5), "11/6 11/5", LONG)
    # 6..1 is six points in a row (the opponent's 18..13) and every opponent
    # checker is behind it.
    assert j.violation is Violation.SIX_BLOCK


def test_six_block_forces_a_one_die_play():
    pos = Position.parse(BLOCK)
    # The only two-dice play makes the block, so one die is played; of the two
    # one-die plays 11/6 also blocks: 11/5 is forced.
    assert plays(pos, "65") == ["11/5"]
    assert plays(pos, "65", LONG.with_options({"block": "none"})) == ["11/6 11/5"]


def test_six_block_legal_with_an_opponent_checker_ahead():
    # one opponent checker on its 5 (my 17) is past the block (its 18..13)
    pos = Position.parse("long X 11:10,5:1,4:1,3:1,2:1,1:1 / 24:5,22:5,21:4,5:1")
    assert check_play(pos, Roll(6, 5), "11/6 11/5", LONG).legal
    assert plays(pos, "65") == ["11/6 11/5"]


def test_six_block_reading_opponent_in_home():
    home = LONG.with_options({"block": "opponent-in-home"})
    ahead_not_home = Position.parse("long X 11:10,5:1,4:1,3:1,2:1,1:1 / 24:5,22:5,21:4,8:1")
    assert check_play(ahead_not_home, Roll(6, 5), "11/6 11/5", LONG).legal
    assert check_play(ahead_not_home, Roll(6, 5), "11/6 11/5", home).violation is Violation.SIX_BLOCK
    in_home = Position.parse("long X 11:10,5:1,4:1,3:1,2:1,1:1 / 24:5,22:5,21:4,5:1")
    assert check_play(in_home, Roll(6, 5), "11/6 11/5", home).legal


def test_six_block_legal_when_opponent_has_borne_off():
    pos = Position.parse("long X 11:10,5:1,4:1,3:1,2:1,1:1 / 24:5,22:5,21:4,off:1")
    assert check_play(pos, Roll(6, 5), "11/6 11/5", LONG).legal


def test_block_built_and_broken_in_the_same_turn():
    # 13/7 closes 11..6 (the opponent's 23..18) and 7/6 opens it again.
    pos = Position.parse("long X 24:9,13:1,11:1,10:1,9:1,8:1,6:1 / 24:15")
    assert check_play(pos, Roll(6, 1), "13/7/6", LONG, first_turn=False).legal
    every_step = LONG.with_options({"block-check": "every-step"})
    j = check_play(pos, Roll(6, 1), "13/7/6", every_step, first_turn=False)
    assert j.violation is Violation.SIX_BLOCK
    # ... whereas ending the turn on the block is illegal under either reading
    assert check_play(pos, Roll(6, 1), "13/7 24/23", LONG, first_turn=False).violation is Violation.SIX_BLOCK


def test_block_across_my_seam_counts():
    # my 3,2,1,24,23,22 are the opponent's 15,14,13,12,11,10: consecutive for it.
    # Every opponent checker is on its 18 (my 6), behind the block.
    pos = Position.parse("long X 24:5,23:1,22:1,4:6,3:1,2:1 / 18:15")
    assert check_play(pos, Roll(6, 3), "4/1 24/18", LONG).violation is Violation.SIX_BLOCK
    # The mover-path reading (MetinGames) does not join my 1 and my 24.
    mover_path = LONG.with_options({"block-path": "mover"})
    assert check_play(pos, Roll(6, 3), "4/1 24/18", mover_path).legal


def test_block_across_opponent_seam_does_not_count():
    # my 14..9 are the opponent's 2,1,24,23,22,21: not consecutive for it.
    pos = Position.parse("long X 24:9,15:1,14:1,13:1,12:1,11:1,10:1 / 20:15")
    assert check_play(pos, Roll(6, 1), "15/9 24/23", LONG).legal
    # Under the mover-path reading the window 14..9 counts, and is legal because
    # an opponent checker (its 20) lies between the window's halves (its 2 and 21).
    mover_path = LONG.with_options({"block-path": "mover"})
    assert check_play(pos, Roll(6, 1), "15/9 24/23", mover_path).legal


# --- bearing off ----------------------------------------------------------------

def test_bear_off_only_when_all_home():
    pos = Position.from_points("long", {8: 1, 3: 14}, {24: 15})
    assert check_play(pos, Roll(3, 1), "3/off 8/7", LONG, first_turn=False).violation is Violation.BEAR_OFF_NOT_HOME
    assert check_play(pos, Roll(5, 3), "8/3 3/off", LONG, first_turn=False).legal


def test_bear_off_from_lower_point_only_when_higher_empty():
    pos = Position.from_points("long", {5: 1, 3: 1}, {24: 15})
    assert check_play(pos, Roll(6, 1), "3/off 5/4", LONG).violation is Violation.BEAR_OFF_HIGHER
    # 6 then 1: the 6 bears off the 5 (the highest), the 1 plays 3/2;
    # 1 then 6: 5/4, and the 6 bears off the 4 (now the highest).
    assert plays(pos, "61") == ["5/4/off", "5/off 3/2"]
    # 6-4: 5/off 3/off, or 5/1 and then the 6 bears off the 3; the 4 cannot bear
    # off the 3 first while the 5 is occupied.
    assert plays(pos, "64") == ["5/1 3/off", "5/off 3/off"]


def test_exact_bear_off_option():
    exact = LONG.with_options({"bear-off": "exact"})
    pos = Position.from_points("long", {3: 1}, {24: 15})
    assert plays(pos, "65", exact) == [""]
    assert plays(pos, "65") == ["3/off"]


def test_second_side_five_five_after_two_one():
    # Seed 003 again: the opponent's 2-1 (24/21, its 21 = my 9) stops 24/19/14/9,
    # so under `general` the second side's 5-5 takes two head checkers.
    after = apply_play(START, Roll(2, 1), "24/22/21", LONG)
    assert plays(after, "55") == ["24/14(2)"]
    assert plays(after, "55", ARENA) == ["24/14"]


def test_doubles_list_does_not_extend_to_later_turns():
    pos = Position.from_points("long", {24: 13, 18: 1, 16: 1}, {24: 13, 18: 1, 16: 1})
    assert check_play(pos, Roll(4, 4), "24/16(2)", ARENA, first_turn=False).violation is Violation.HEAD
