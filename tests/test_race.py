"""Race odds: the one-sided formula on exact distributions, and the labelled estimate."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from nardtools import Position
from nardtools.analysis.race import NotARaceError, race_odds
from nardtools.cli import app


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path_factory.getbasetemp() / "race-cache"))


def test_one_checker_against_fifteen():
    odds = race_odds(Position.parse("backgammon X 6:1 / 6:15"))
    assert odds.exact and odds.p_win == pytest.approx(1.0)
    assert odds.p_gammon == pytest.approx(127 / 144, abs=1e-7)  # RACE.md 2 (the cache stores float32)


def test_documented_worst_case_of_the_one_sided_formula():
    # RACE.md 2: on roll (0,0,2,2,2,0) against (3,2,1,0,0,0): the formula gives 0.22232
    pos = Position.from_points("backgammon", {3: 2, 4: 2, 5: 2}, {1: 3, 2: 2, 3: 1})
    assert round(race_odds(pos).p_win, 5) == 0.22232


def test_symmetric_race_favours_the_side_on_roll_and_lose_gammon_uses_first_off():
    pos = Position.from_points("backgammon", {6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})
    odds = race_odds(pos)
    assert odds.exact and 0.5 < odds.p_win < 0.75
    assert odds.p_gammon == odds.p_lose_gammon == 0.0  # someone is off long before


def test_outside_the_database_is_an_estimate_with_its_error():
    pos = Position.parse("backgammon X 12:3,8:4,6:5,4:3 / 10:2,7:5,5:4,3:4")
    odds = race_odds(pos, trials=300)
    assert not odds.exact and odds.stderr and "estimate" in odds.method
    assert 0.05 < odds.p_win < 0.45  # 110 pips against 87


def test_long_nardy_race_estimate():
    pos = Position.parse("long X 12:5,9:5,7:5 / 11:5,8:5,7:5")
    odds = race_odds(pos, trials=200)
    assert not odds.exact and 0.3 < odds.p_win < 0.8


def test_contact_is_refused():
    with pytest.raises(NotARaceError):
        race_odds(Position.start())


def test_race_command_json():
    result = CliRunner().invoke(app, ["race", "backgammon X 6:1 / 6:15", "--format", "json"])
    data = json.loads(result.stdout)
    assert set(data) >= {"exact", "p_win", "p_gammon", "p_lose_gammon", "sides"}
    assert data["exact"] and set(data["sides"][0]) >= {"pips", "epc", "expected_rolls"}
    result = CliRunner().invoke(app, ["race", "start"])
    assert result.exit_code == 2 and "not a race" in result.stderr


# ---------------------------------------------------------------------------
# Two-sided exact odds, home mars, expected points


def test_two_sided_table_by_hand_and_against_one_sided() -> None:
    from nardtools.analysis.twosided import one_sided_error, two_sided_table

    table = two_sided_table(2)
    # one checker each: the side on roll bears off at once with any roll
    assert table.p_win((1,), (0, 0, 0, 0, 0, 1)) == pytest.approx(1.0)
    # two checkers on the 6-point need a double of 3 or more (4 of 36) unless the
    # other side (one checker on its 2-point) misses: it never does
    assert table.p_win((0, 0, 0, 0, 0, 2), (0, 1)) == pytest.approx(4 / 36)
    # with few checkers the one-sided formula is close to exact
    diff, *_ = one_sided_error(3)
    assert 0 < diff < 0.002


@pytest.mark.slow
def test_one_sided_formula_worst_case_is_the_documented_one() -> None:
    """RACE.md 2: (0,0,2,2,2,0) on roll against (3,2,1,0,0,0), one-sided 0.22232,
    is the worst case of the formula among positions of up to six checkers."""
    from nardtools.analysis.twosided import one_sided_error

    _diff, mover, opponent, one, exact = one_sided_error(6)
    assert (mover, opponent) == ((0, 0, 2, 2, 2, 0), (3, 2, 1, 0, 0, 0))
    assert round(one, 5) == 0.22232 and exact == pytest.approx(0.236266, abs=1e-6)


def test_home_mars_and_expected_points_in_long_nardy() -> None:
    # X (on roll) bears its two checkers off the 1-point with any roll; O, all 15
    # home and none off, is home-marsed (домашний марс) for certain.
    odds = race_odds(Position.parse("long X 1:2 / 6:15"))
    assert odds.exact and odds.p_win == pytest.approx(1.0)
    assert odds.p_gammon == pytest.approx(1.0) and odds.p_home_mars == pytest.approx(1.0)
    from nardtools import find_ruleset

    nardionline = find_ruleset("nardionline").rules  # home mars scores 3
    assert race_odds(Position.parse("long X 1:2 / 6:15"), rules=nardionline).expected_points == \
        pytest.approx(3.0)
    classic = find_ruleset("long-classic").rules  # home mars is a plain mars: 2
    assert race_odds(Position.parse("long X 1:2 / 6:15"), rules=classic).expected_points == pytest.approx(2.0)


def test_home_mars_needs_the_loser_home() -> None:
    # O has a checker on its 7-point (outside home): when X wins at once, O is
    # marsed but not home-marsed
    odds = race_odds(Position.parse("long X 1:1 / 7:1,6:14"), db_points=8)
    assert odds.exact and odds.p_win == pytest.approx(1.0)
    assert odds.p_gammon == pytest.approx(1.0) and odds.p_home_mars == pytest.approx(0.0)
    # a plain mars under the default (long) scoring: 2 points
    assert odds.expected_points == pytest.approx(2.0)


def test_opponent_in_home_block_reading_makes_odds_approximate() -> None:
    from nardtools import find_ruleset

    position = Position.parse("long X 6:3,5:3,4:3,3:3,2:3 / 12:3,11:3,10:3,9:3,8:3")  # O: nothing home
    rules = find_ruleset("long").rules.with_options({"block": "opponent-in-home"})
    odds = race_odds(position, rules=rules, trials=200)
    assert not odds.exact and any("opponent-in-home" in n for n in odds.notes)
    assert not any("opponent-in-home" in n for n in race_odds(position, trials=200).notes)
