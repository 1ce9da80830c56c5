"""Match IDs and XGIDs: every vector of FORMATS.md sections 3 and 4.1."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardtools import InvalidPositionError, Position
from nardtools.notation.ids import Setup, match_id, parse_setup, read_match_id, read_xgid, xgid

from .conftest import playout_turns

# XGID, Position ID, Match ID (the field mapping; equal to gnubg's where gnubg did not swap)
XGID_VECTORS = [
    ("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "4HPwATDgc/ABMA", "cAkAAAAAAAAE"),
    ("-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10", "4HPwATDgc/ABMA", "cInqAAAAAAAE"),
    ("-B-BAaCBC-----a-----cdBcc-:1:-1:1:66:1:4:0:5:10", "d96BAAKz3A4ADA", "QQm7AEAACAAE"),
    ("-----bBBBCBB----A--A---cc-:1:1:1:12:0:0:0:0:10", "dwAABsC22yACAA", "UQkFAAAAAAAE"),
    ("-BAC-----------------abab-:1:1:1:00:0:0:0:0:10", "awEAgHUAAAAAAA", "UQkAAAAAAAAE"),
    ("---CBbB-B----E-a--bcbcb-A-:1:1:1:21:0:1:0:5:10", "7HYjAAPczOADIA", "UQmlABAAAAAE"),
    ("a--aB-BBA--acDa-Ab-db---BA:0:0:1:64:2:0:0:13:10", "sGfkAkSYLXgEWA", "cAmzAQAAEAAE"),
    ("-CDB------------------cdc-:1:-1:1:52:3:1:0:5:10", "9w4AALg3AAAAAA", "QYmqABAAGAAE"),
    ("-b----E-C---eE---c-e----B-:0:0:1:00:6:5:1:7:10", "4HPwATDgc/ABMA", "8AngAFAAMAAE"),
    ("-bCCa-B-a------a---bbbbb-A:1:-1:-1:00:0:0:3:0:10", "7hgAANm2ISDEAA", "AQEAAAAAAAAA"),
    ("-DC---------------bcccbbB-:1:-1:-1:00:0:0:3:0:10", "7wAAwNjubgAAAA", "AQEAAAAAAAAA"),
    ("-b----E-C---eE---c-e----B-:1:0:-1:D:2:4:0:7:10", "4HPwATDgc/ABMA", "MRngAEAAEAAE"),
]


@pytest.mark.parametrize("xg, pid, mid", XGID_VECTORS)
def test_xgid_vectors(xg, pid, mid):
    s = read_xgid("XGID=" + xg)
    assert (s.position_id, s.match_id) == (pid, mid)
    assert xgid(s) == "XGID=" + xg
    again = parse_setup(f"{pid}:{mid}")
    assert again.position == s.position and again.match_id == mid


def test_match_id_vectors_of_the_manual():
    start = Position.start()
    s = read_match_id("QYkqASAAIAAA", start)  # 9-point match, 2-4, player 0 owns 2, player 1 rolled 5-2
    assert (s.match_length, s.score, s.cube, s.cube_owner, s.on_roll, s.dice) == (9, (2, 4), 2, 0, 1, (5, 2))
    s = read_match_id("MIEFAAAAAAAA", start)  # money, centred cube, player 0 on roll, 3-1 rolled
    assert (s.match_length, s.cube_owner, s.on_roll, s.dice, s.jacoby) == (0, None, 0, (3, 1), True)
    assert match_id(s) == "MIEFAAAAAAAA"
    s = read_match_id("cAnlAAAAAAAE", start)  # new match 7, opening 2-1, player 1 on roll
    assert (s.match_length, s.on_roll, sorted(s.dice)) == (7, 1, [1, 2])


def test_parse_setup_accepts_every_notation():
    start = Position.start()
    assert parse_setup(str(start)).position == start
    assert parse_setup("4HPwATDgc/ABMA").position == start
    assert parse_setup("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10").position.mover == start.mover
    with pytest.raises(InvalidPositionError):
        parse_setup("XGID=nonsense")


def test_random_positions_round_trip_through_xgid_and_ids():
    for turn in playout_turns("backgammon", 8, 2):
        p = turn.position
        s = Setup(p, dice=(turn.roll.low, turn.roll.high), cube=4, cube_owner=1, match_length=7,
                  score=(3, 5))
        for text in (xgid(s), f"{s.position_id}:{s.match_id}"):
            back = parse_setup(text)
            assert back.position == p and back.cube == 4 and back.score == (3, 5)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_fuzz_parse_setup_raises_only_its_error(text):
    try:
        parse_setup(text)
    except InvalidPositionError:
        pass


def test_setup_text_round_trips_through_every_notation():
    for turn in playout_turns("backgammon", 9, 1):
        s = Setup(turn.position, dice=(turn.roll.high, turn.roll.low), cube=2, cube_owner=0,
                  match_length=7, score=(2, 4), crawford=False)
        assert parse_setup(str(s)) == s
        via_ids = parse_setup(f"{s.position_id}:{s.match_id}")
        assert (via_ids.position, via_ids.cube, via_ids.cube_owner, via_ids.score) == (s.position, 2, 0, (2, 4))
    with pytest.raises(InvalidPositionError, match="bad field"):
        parse_setup("long X 24:15 / 24:15; dice 71")
