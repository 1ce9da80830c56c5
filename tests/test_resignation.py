"""Recorded resignations judged as GNU Backgammon judges them (issue 60,
finding 5): the resigner's equity playing on against what it resigned, a
wrong resignation charged to the resigner, a wrong acceptance to the side
that accepted; hand-derived positions whose playing-on value is certain, and
a match whose value is read off the Kazaross-XG2 table by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nardtools import read_record, replay_match
from nardtools.analysis.analyse import analyse_match
from nardtools.analysis.handout import handout
from nardtools.cli import app

ROOT = Path(__file__).resolve().parent.parent


def _record(board: str, resignation: str, *, game: str = "long", match: int = 0) -> str:
    header = f'[Game "{game}"]\n[X "xena"]\n[O "oleg"]\n'
    if match:
        header += f'[MatchLength "{match}"]\n[Score "0-0"]\n[GameNumber "1"]\n'
    return header + f'[Result "*"]\n\n= "{board}"\n1. O resign {resignation}\n'


def _analysed(text: str, ply: int = 0):  # type: ignore[no-untyped-def]
    replayed = replay_match(read_record("r.nrd", text), lenient=True)
    return replayed, analyse_match(replayed, ply=ply)


@pytest.mark.parametrize("ply", [0, 1])
def test_resigning_a_won_game_is_a_wrong_resignation(ply: int) -> None:
    """O on roll with its last checker on its 1-point against X's fifteen on
    the head: O wins a mars whatever it rolls (+2), and resigns an oin (-1)."""
    _, analysis = _analysed(_record("long O 1:1 / 24:15", "X wins 1 point (oin)"), ply)
    r = analysis.resignations[1]
    assert (r.player, r.opponent, r.level, r.points) == ("oleg", "xena", "oin", 1)
    assert r.play_on == pytest.approx(2.0) and r.resigned == -1.0
    assert r.error == pytest.approx(3.0) and r.accept_error == 0.0
    assert (r.alert, r.mark) == ("wrong resignation", "blunder")
    oleg, xena = analysis.players[1], analysis.players[0]
    assert (oleg.resignation_errors, oleg.resignation_error_total) == (1, pytest.approx(3.0))
    assert (xena.resignation_errors, oleg.decisions, oleg.error_rate) == (0, 0, 0.0)  # outside the rates


def test_accepting_less_than_a_sure_mars_is_a_wrong_acceptance() -> None:
    """X to roll and bear off its last checker, O's fifteen on the head: a
    sure mars (-2 for O, who resigns at X's turn and is valued on roll, as
    GNU Backgammon swaps the board). O's oin (-1) is a gift X should not
    accept; O's mars is right for both."""
    _, analysis = _analysed(_record("long X 1:1 / 24:15", "X wins 1 point (oin)"))
    r = analysis.resignations[1]
    assert r.play_on == pytest.approx(-2.0) and r.resigned == -1.0
    assert r.error == 0.0 and r.accept_error == pytest.approx(1.0)
    assert (r.alert, r.mark) == ("wrong acceptance", "blunder")
    assert analysis.players[0].resignation_errors == 1 and analysis.players[1].resignation_errors == 0
    _, right = _analysed(_record("long X 1:1 / 24:15", "X wins 2 points (mars)"))
    r = right.resignations[1]
    assert (r.level, r.points, r.alert, r.mark) == ("mars", 2, None, None)
    assert r.error == pytest.approx(0.0, abs=1e-9) and r.accept_error == pytest.approx(0.0, abs=1e-9)


def _kazaross(a: int, b: int) -> float:
    """The Kazaross-XG2 table's MWC of a side needing ``a`` against ``b``, read off the CSV by hand."""
    lines = (ROOT / "nardtools" / "data" / "met-kazaross-xg2.csv").read_text().splitlines()
    rows = [[float(x) for x in line.split(",") if x.strip()] for line in lines
            if line and not line.startswith(("#", "post"))]
    return rows[a - 1][b - 1]


def test_in_a_match_the_resignation_is_valued_in_emg_through_the_table() -> None:
    """7-point match at 0-0, cube 1: O's fifteen checkers on its 7-point,
    X bearing off its last: a sure gammon.  Playing on, O loses 2 points
    (needing 7 against 5); resigning a single it loses 1, -1 EMG by
    definition.  EMG = (2 MWC - (win + lose)) / (win - lose) at the cube."""
    text = _record("backgammon X 1:1 / 7:15", "X wins 1 point (single)", game="backgammon", match=7)
    _, analysis = _analysed(text)
    win, lose = _kazaross(6, 7), _kazaross(7, 6)
    expected = (2 * _kazaross(7, 5) - (win + lose)) / (win - lose)
    r = analysis.resignations[1]
    # (the network's gammon chance here is 0.9999..., not 1: within 1e-3 of the sure gammon's EMG)
    assert r.play_on == pytest.approx(expected, abs=1e-3) and r.resigned == pytest.approx(-1.0)
    assert r.accept_error == pytest.approx(-1.0 - expected, abs=1e-3) and r.alert == "wrong acceptance"
    assert r.as_dict()["accept_error_mwc"] == pytest.approx(r.accept_error * (win - lose) / 2, abs=1e-6)


def test_the_text_json_and_handout_carry_the_resignation(tmp_path: Path) -> None:
    path = tmp_path / "r.nrd"
    path.write_text(_record("long X 1:1 / 24:15", "X wins 1 point (oin)"), encoding="utf-8")
    runner = CliRunner()
    text = runner.invoke(app, ["analyse", str(path), "-q"])
    assert "resigns oin (1 point): wrong acceptance (blunder), play on -2.000, resign -1.000; lost 1.000" \
        in text.output
    assert "resignations (outside the rates): xena 1 wrong, lost 1.000" in text.output
    shown = json.loads(runner.invoke(app, ["analyse", str(path), "-q", "--format", "json"]).stdout)
    assert shown["games"][0]["resignation"]["alert"] == "wrong acceptance"
    assert shown["players"][0]["resignation_errors"] == 1
    replayed, analysis = _analysed(path.read_text(encoding="utf-8"))
    once = handout(replayed, analysis)
    assert "resigns oin (1 point): wrong acceptance (blunder)" in once and "??" in once
    again_replayed, again = _analysed(once)
    assert handout(again_replayed, again) == once  # a handout analysed again carries one analysis


def test_games_not_ended_by_a_resignation_have_none() -> None:
    replayed = replay_match(read_record(ROOT / "examples" / "long-nardy" / "long-5pt-seed1.mat"))
    analysis = analyse_match(replayed, games={1})
    assert analysis.resignations == {} and "resignation" not in analysis.as_dict()["games"][0]
