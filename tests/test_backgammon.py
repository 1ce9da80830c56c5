"""Backgammon (короткие нарды) rules, hand-derived from seeds 001 and 004."""

from nardtools import Position, Roll, Violation, apply_play, check_play, find_ruleset, legal_plays

BG = find_ruleset("backgammon").rules
CAUCASIAN = find_ruleset("caucasian").rules


def plays(position, roll, rules=BG):
    return sorted(str(p.play) for p in legal_plays(position, Roll.parse(roll), rules))


def test_opening_plays_count_and_text():
    assert len(legal_plays(Position.start(), Roll(3, 1), BG)) == 16
    assert "8/5 6/5" in plays(Position.start(), "31")
    assert "24/18/13" in plays(Position.start(), "65")


def test_entry_comes_first():
    # one checker on the bar; the opponent holds its 6 (my 19) and 5 (my 20)
    pos = Position.from_points("backgammon", {25: 1, 13: 14}, {6: 2, 5: 2, 1: 11})
    j = check_play(pos, Roll(4, 3), "13/9 13/10", BG)
    assert j.violation is Violation.BAR_FIRST
    # bar/22/18 and bar/21/18 reach the same position: one play, larger die first
    assert plays(pos, "43") == ["bar/21 13/10", "bar/21/18", "bar/22 13/9"]
    # 6-5: both entry points are held: the roll is lost
    assert plays(pos, "65") == [""]
    assert check_play(pos, Roll(6, 5), "", BG).legal


def test_two_on_the_bar_enter_before_anything_else():
    pos = Position.from_points("backgammon", {25: 2, 13: 13}, {6: 2, 1: 13})
    # 6-3: the 6 cannot enter (my 19 is held), so only bar/22 is possible
    assert plays(pos, "63") == ["bar/22"]
    assert check_play(pos, Roll(6, 3), "bar/22 13/7", BG).violation is Violation.BAR_FIRST


def test_hitting_sends_a_blot_to_the_bar():
    # the opponent's blot on its 17 is my 8
    pos = Position.from_points("backgammon", {13: 15}, {17: 1, 1: 14})
    after = apply_play(pos, Roll(5, 1), "13/8* 13/12", BG)
    assert after.mover[25] == 1  # the opponent, now on roll, has a checker on the bar
    assert after.mover[17] == 0
    assert str(check_play(pos, Roll(5, 1), "13/8 13/12", BG).play) == "13/12 13/8*"


def test_larger_die_rule():
    # a lone checker on 24, the opponent holds my 13 (its 12): 24/18/13 and
    # 24/19/13 are both closed, so only one die can be played: the larger.
    pos = Position.from_points("backgammon", {24: 1}, {12: 2, 2: 13})
    assert plays(pos, "65") == ["24/18"]
    assert check_play(pos, Roll(6, 5), "24/19", BG).violation is Violation.LARGER_DIE


def test_dice_not_used_in_full():
    j = check_play(Position.start(), Roll(3, 1), "8/5", BG)
    assert j.violation is Violation.DICE_NOT_USED
    assert "as many dice as possible" in j.message


def test_wrong_distance_and_missing_checker():
    assert check_play(Position.start(), Roll(3, 1), "8/4 6/5", BG).violation is Violation.NO_SUCH_DIE
    assert check_play(Position.start(), Roll(3, 1), "7/4 6/5", BG).violation is Violation.NO_CHECKER
    # landing on a made point
    assert check_play(Position.start(), Roll(6, 5), "13/7 13/8", BG).legal
    assert check_play(Position.start(), Roll(6, 1), "8/2 24/23", BG).legal
    assert check_play(Position.start(), Roll(6, 5), "24/18 24/19", BG).violation is Violation.OPPONENT_POINT
    pos = Position.from_points("backgammon", {13: 15}, {18: 2, 1: 13})  # its 18 = my 7
    assert check_play(pos, Roll(6, 1), "13/7 13/12", BG).violation is Violation.OPPONENT_POINT


def test_combined_move_needs_an_open_intermediate_point():
    # 24/13 with 6-5: my 18 (its 7) held, my 19 (its 6) open: 24/19/13 is the way
    pos = Position.from_points("backgammon", {24: 2, 13: 13}, {7: 2, 2: 13})
    j = check_play(pos, Roll(6, 5), "24/13", BG)
    assert j.legal and str(j.play) == "24/19/13"


def test_bear_off():
    pos = Position.from_points("backgammon", {5: 1, 3: 1}, {1: 15})
    assert plays(pos, "64") == ["5/1 3/off", "5/off 3/off"]
    assert check_play(pos, Roll(6, 1), "3/off 5/4", BG).violation is Violation.BEAR_OFF_HIGHER
    pos = Position.from_points("backgammon", {8: 1, 3: 1}, {24: 15})
    assert check_play(pos, Roll(3, 1), "3/off 8/7", BG).violation is Violation.BEAR_OFF_NOT_HOME


def test_caucasian_no_hit_and_hide():
    # Seed 001: in one's own home a checker that hit may not move on to stand on
    # another own checker; hitting and being covered by another checker is fine,
    # and so is hitting and moving on to an empty point.
    pos = Position.from_points("backgammon", {8: 1, 6: 1, 4: 1, 13: 12}, {20: 1, 1: 14})  # its 20 = my 5
    assert check_play(pos, Roll(3, 1), "8/5*/4", BG).legal
    j = check_play(pos, Roll(3, 1), "8/5*/4", CAUCASIAN)
    assert j.violation is Violation.HIT_AND_HIDE
    assert check_play(pos, Roll(3, 1), "8/5* 6/5", CAUCASIAN).legal
    # moving on to an empty point is allowed: 8/5*/3 with 3-2 (3 is empty)
    assert check_play(pos, Roll(3, 2), "8/5*/3", CAUCASIAN).legal
    # a hit outside the home is not restricted: 13/10* with a blot on my 10 (its 15)
    pos2 = Position.from_points("backgammon", {13: 14, 8: 1}, {15: 1, 1: 14})
    assert check_play(pos2, Roll(3, 2), "13/10*/8", CAUCASIAN).legal
    hidden = {str(p.play) for p in legal_plays(pos, Roll(3, 1), CAUCASIAN)}
    assert "8/5*/4" not in hidden and "8/5* 6/5" in hidden


def test_no_hitting_in_long_nardy_geometry_but_hitting_in_backgammon():
    pos = Position.from_points("backgammon", {24: 2, 13: 13}, {6: 1, 2: 14})  # its 6 = my 19
    assert "24/19*" in " ".join(plays(pos, "51"))
