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
    data = json.loads(result.output)
    assert set(data) >= {"exact", "p_win", "p_gammon", "p_lose_gammon", "sides"}
    assert data["exact"] and set(data["sides"][0]) >= {"pips", "epc", "expected_rolls"}
    result = CliRunner().invoke(app, ["race", "start"])
    assert result.exit_code == 1 and "not a race" in result.stderr
