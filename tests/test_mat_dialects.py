""".mat dialects (FORMATS.md 1.6-1.7): each producer's quirks, read and replayed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardtools.notation.mat import decode, read_mat, replay_text
from nardtools.notation.record import RecordError
from nardtools.notation.replay import replay_match


def kinds(record, game=0):
    return [(a.player, str(a.kind)) for a in record.games[game].actions]


def test_bom_crlf_and_tabs():
    data = "\ufeff 1 point match\r\n\r\n Game 1\r\n a : 0\t\t\tb : 0\r\n  1) 31: 8/5 6/5\t\t42: 8/4 6/4\r\n"
    m = read_mat(decode(data.encode("utf-8")))
    assert m.players == ("a", "b") and [str(a.roll) for a in m.games[0].actions] == ["31", "42"]
    assert m.errors == []


def test_latin1_fallback():
    assert decode("Jos\xe9".encode("latin-1")) == "José"


def test_backgammon_studio_cells():
    text = """ 7 point match

 Game 1
 alice : 0                              bob : 0
  1) 31: 8/5 6/5                        65: 24/18/13
  2) 63: Cannot Move                    22: 13/11(2) 6/4(2)
  3) 21: ????
  4)                                     Wins 1 point
"""
    m = read_mat(text)
    acts = m.games[0].actions
    assert [(a.player, str(a.kind), a.play) for a in acts] == [
        (0, "roll", "8/5 6/5"), (1, "roll", "24/18/13"), (0, "roll", ""),
        (1, "roll", "13/11(2) 6/4(2)"), (0, "resign", None), (1, "win", None)]
    # 'Cannot Move' is wrong here (the 6 and the 3 can be played): reported at its cell
    r = replay_match(m)
    assert [(p.line, p.col, p.rule) for p in r.errors] == [(6, 10, "dice-not-used-in-full")]


def test_galaxy_losses_third_slot_and_empty_names():
    text = """; [Site "BackgammonGalaxy"]
; [Player 1 Elo "5,00/0"]
3 point match

 Game 1
  : 0                               : 0
  1)                              Losses 3 point

      Wins 3 point and the match
"""
    m = read_mat(text)
    assert m.players == ("", "") and m.tag("Site") == "BackgammonGalaxy"
    assert kinds(m) == [(1, "lose"), (0, "win")]
    r = replay_match(m)
    assert r.errors == []  # a forfeit: no moves, a result


def test_galaxy_result_in_a_third_slot_with_a_repeated_number():
    text = """ 5 point match

 Game 1
 a : 0                          b : 0
  1) 31: 8/5 6/5                 24)  Losses 2 point      Wins 2 point and the match
"""
    m = read_mat(text)
    assert kinds(m) == [(0, "roll"), (1, "lose"), (0, "win")]
    assert m.games[0].actions[-1].match_won


def test_gridgammon_rating_and_low_first_dice():
    text = """ 5 point match

 Game 1
 alice,1666 : 0                   bob,1699 : 0
  1)                             26: 24/18 13/11
  2) 15: 8/7 6/1                 55: 25/20 25/20 8/3 8/3
"""
    m = read_mat(text)
    assert m.players == ("alice", "bob")
    a = m.games[0].actions
    assert (str(a[0].roll), a[0].dice_order) == ("62", (2, 6))
    # 8/7 and 6/1 hit bob's blots on his 18 and 24 (no '*' written): 25/20 25/20 is legal
    r = replay_match(m)
    assert r.errors == []
    assert str(r.games[0].turns[1].play) == "8/7* 6/1*"


def test_dailygammon_wins_in_a_move_cell_is_a_resignation():
    text = """ 5 point match

 Game 1
 alice : 0                           bob : 0
  1) 31: 8/5 6/5                     41: 24/23 13/9
  2) 53:                              Wins 1 point
"""
    r = replay_text(text)
    (g,) = r.games
    assert g.complete and g.game.outcome.winner == 1 and r.errors == []


def test_gnubg_drop_and_win_on_one_line_and_beaver():
    text = """ 0 point match

 Game 1
 a : 0                          b : 0
  1) 31: 8/5 6/5                 Doubles => 2
  2)  Beavers => 4               42: 8/4 6/4
  3)  Doubles => 8                Drops
      Wins 4 points
"""
    # b doubles, a beavers; b's dice cell is an implicit take; a redoubles, b drops
    r = replay_text(text, rules="play65")
    assert r.errors == [], [str(p) for p in r.problems]
    out = r.games[0].game.outcome
    assert (out.winner, out.points) == (0, 4)


def test_header_like_comment_before_the_header():
    m = read_mat("; 3-point match\n 7 point match\n")
    assert m.length == 7 and m.comments == ["3-point match"]


def test_no_header_is_an_error():
    with pytest.raises(RecordError, match="no 'N point match' header"):
        read_mat("hello\nworld\n")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \n0123456789:/)*(abBoffGamepointWinsDrblTk?;[]\"")), max_size=300))
def test_fuzz_reader_and_replay_raise_only_record_errors(body):
    text = " 5 point match\n Game 1\n a : 0     b : 0\n" + body
    record = read_mat(text)  # syntax problems are collected, not raised
    replay_match(record)
    with pytest.raises(RecordError):
        read_mat(body.replace("point", "p") + "\n")


def test_resigns_needs_the_opponents_result():
    text = """ 5 point match

 Game 1
 a : 0                          b : 0
  1) 31: 8/5 6/5                 Resigns
  2)  Wins 1 point
"""
    r = replay_text(text)
    assert r.errors == [] and r.games[0].game.outcome.winner == 0
    lone = text.replace("  2)  Wins 1 point\n", "")
    (err,) = replay_text(lone).errors
    assert err.rule == "result" and "no result for a follows" in err.message


def test_a_score_line_padded_with_thousands_of_spaces_reads_its_names():
    """Fuzzing found a score line with 2,000 spaces that took 10 s (the pattern
    was cubic); its names and scores still read, and the names keep a colon."""
    from nardtools.notation.mat import read_mat

    text = " 3 point match\n\n Game 1\n Llab:ba : 1" + " " * 2000 + "Pasiphae : 2\n"
    record = read_mat(text)
    assert record.players == ("Llab:ba", "Pasiphae") and record.games[0].score == (1, 2)
