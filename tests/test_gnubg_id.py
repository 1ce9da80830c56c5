"""gnubg Position IDs: the documented vector, round trips, and gnubg-nn's own IDs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardtools import InvalidPositionError, Position
from nardtools.notation import position_from_id, position_id

from .conftest import playout_turns


def test_manual_vector():
    # FORMATS.md section 2: the starting position's bits, key and ID
    assert position_id(Position.start()) == "4HPwATDgc/ABMA"


@pytest.mark.parametrize("pid", ["d96BAAKz3A4ADA", "dwAABsC22yACAA", "awEAgHUAAAAAAA",
                                 "7HYjAAPczOADIA", "sGfkAkSYLXgEWA", "9w4AALg3AAAAAA"])
def test_format_vectors_round_trip(pid):
    assert position_id(position_from_id(pid)) == pid


def test_random_game_positions_round_trip_in_both_games():
    for ruleset in ("backgammon", "long"):
        for turn in playout_turns(ruleset, 3, 2):
            p = turn.position
            assert position_from_id(position_id(p), p.kind, player=p.player) == p


def test_matches_gnubg_nn():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    for turn in playout_turns("backgammon", 4, 3):
        p = turn.position
        board = [list(p.opponent[1:26]), list(p.mover[1:26])]
        assert position_id(p) == gnubg_nn.position_id(board)


def test_rejects_impossible_ids():
    with pytest.raises(InvalidPositionError, match="checkers"):
        position_from_id("//////////////")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20))
def test_fuzz_reader_raises_only_its_error(text):
    try:
        position_from_id(text)
    except InvalidPositionError:
        pass
