"""Counting rules against GNU Backgammon 1.07's `show kleinman|thorp|keith|8912`
(RACE.md section 4) and the published Kleinman examples (V9)."""

from __future__ import annotations

import pytest

from nardtools import Position
from nardtools.analysis.counts import eight_nine_twelve, keith, kleinman, thorp, trice
from nardtools.notation.ids import parse_setup

START = parse_setup("4HPwATDgc/ABMA").position
ENDING = parse_setup("XGID=-CDB------------------cdc-:1:-1:1:52:3:1:0:5:10").position  # 17 vs 20
BEHIND = parse_setup("dwAABsC22yACAA").position  # 146 vs 49


@pytest.mark.parametrize("position, k, p", [(START, 0.1101, 0.5619), (ENDING, 0.6093, 0.8056),
                                             (BEHIND, -3.365, 0.0000)])
def test_kleinman(position, k, p):
    c = kleinman(position)
    assert round(c.value, 4 if abs(k) < 1 else 3) == k and round(c.p_win, 4) == p


@pytest.mark.parametrize("position, lead, adjusted, trail, verdict", [
    (START, 196, 215.6, 196, "no double"), (ENDING, 35, 38.5, 40, "redouble, take"),
    (BEHIND, 175, 192.5, 66, "no double")])
def test_thorp(position, lead, adjusted, trail, verdict):
    c = thorp(position)
    assert (c.leader, round(c.value, 1), c.trailer, c.verdict) == (lead, adjusted, trail, verdict)


@pytest.mark.parametrize("position, lead, published, gnubg107, trail, drop", [
    (START, 169, 193.0, 193.1, 169, None), (ENDING, 27, 30.0, 30.9, 30, True),
    (BEHIND, 148, 169.0, 169.1, 58, None)])
def test_keith(position, lead, published, gnubg107, trail, drop):
    c = keith(position)
    assert (c.leader, c.value, c.trailer) == (lead, published, trail)
    assert round(keith(position, rounding="gnubg-1.07").value, 1) == gnubg107
    if drop is None:
        assert c.verdict == "no double"
    else:
        assert c.verdict.startswith("double") and c.verdict.endswith("drop")


@pytest.mark.parametrize("position, pct, verdict", [(START, 0.0, "no double"),
                                                    (ENDING, 17.6, "double, drop"),
                                                    (BEHIND, -66.4, "no double")])
def test_eight_nine_twelve(position, pct, verdict):
    c = eight_nine_twelve(position)
    assert (round(c.value, 1), c.verdict) == (pct, verdict)


@pytest.mark.parametrize("lead, trail, p", [(100, 113, 0.7972), (100, 106, 0.6906), (84, 96, 0.8031)])
def test_v9_kleinman_published_examples(lead, trail, p):
    # pure pip positions: the leader with `lead` pips, the trailer with `trail`
    def side(pips):  # a few checkers on 24 and one more
        return {24: pips // 24, **({pips % 24: 1} if pips % 24 else {})}
    pos = Position.from_points("backgammon", side(lead), side(trail))
    assert pos.pips() == (lead, trail)
    assert round(kleinman(pos).p_win, 4) == p


def test_trice_point_of_last_take():
    # X >= 62: X + X//10 + 2; below: X + (X-5)//7
    pos = Position.from_points("backgammon", {6: 13, 2: 1}, {6: 15})  # 80 vs 90
    c = trice(pos)
    assert c.value == 80 + 8 + 2 and c.verdict == "redouble, take"
    low = Position.from_points("backgammon", {6: 5, 4: 1}, {6: 7})  # 34 vs 42
    assert trice(low).value == 34 + (34 - 5) // 7 and trice(low).verdict == "double, drop"
