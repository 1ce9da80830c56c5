"""The native record format: grammar, located errors, canonical round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardtools import find_ruleset
from nardtools.notation.mat import export_mat, read_mat, read_mat_file
from nardtools.notation.native import export_native, read_native, write_native
from nardtools.notation.random_records import random_match
from nardtools.notation.replay import replay_match
from nardtools.notation.validate import expand_paths

from .corpus import CORPUS, needs_corpus, whole_corpus_when_slow
from .test_mat_roundtrip import summary

HERE = Path(__file__).resolve().parent

TEACHING = '''[Game "long"]
[Ruleset "long"]
[X "teacher"]
[O "student"]
[Result "*"]

1. {The opening} X 64: 24/18/14 {one checker from the head} O 51: 24/19/18 ?!
2. X 66: 24/18 14/8/2 (X 66: 24/12 {the opponent's head blocks 12}) O 33: 24/15 18/15 !
*
'''


def test_teaching_record_keeps_comments_glyphs_and_variations():
    record = read_native(TEACHING, "t.nrd")
    a = record.games[0].actions
    assert a[0].before == ("The opening",) and a[0].after == ("one checker from the head",)
    assert a[1].glyphs == ("?!",) and a[3].glyphs == ("!",)
    (variation,) = a[2].variations
    assert variation[0].play == "24/12" and variation[0].after == ("the opponent's head blocks 12",)
    assert write_native(record) == TEACHING


def test_illegal_variation_and_move_are_located():
    r = replay_match(read_native(TEACHING, "t.nrd"))
    # the variation's 24/12 (line 8, column 30) lands on the opponent's head
    assert [(p.line, p.col, p.rule) for p in r.errors] == [(8, 30, "opponent-point")]
    bad = TEACHING.replace("24/18 14/8/2 (", "24/18(2) (")
    r = replay_match(read_native(bad, "t.nrd"))
    assert [(p.line, p.col, p.rule) for p in r.errors] == [(8, 26, "opponent-point"), (8, 10, "head-rule")]


def test_syntax_error_in_one_game_leaves_the_others():
    record = random_match(find_ruleset("long"), 3, seed=2)
    text = export_native(replay_match(record, rules="long"))
    games = text.count('[Game "long"]')
    broken = text.replace("2. X", "2. Z", 1)
    read = read_native(broken, "b.nrd")
    (err,) = read.errors
    assert err.line > 1 and "expected" in str(err)
    assert len(read.games) == games - 1
    assert [p.rule for p in replay_match(read).errors] == ["syntax"]


@pytest.mark.parametrize("ruleset", ["long", "nardionline", "play65", "backgammon"])
def test_native_round_trip_is_identical(ruleset):
    record = random_match(find_ruleset(ruleset), 5, seed=21)
    first = export_native(replay_match(record, rules=ruleset))
    replayed = replay_match(read_native(first))
    assert replayed.errors == []
    assert export_native(replayed) == first
    assert write_native(read_native(first)) == first


@needs_corpus
@whole_corpus_when_slow
def test_mat_native_mat_keeps_every_move_cube_action_and_score(every: int):
    for path in expand_paths([CORPUS])[::every]:
        original = replay_match(read_mat_file(path))
        native = replay_match(read_native(export_native(original), path))
        assert native.errors == [], path
        back = replay_match(read_mat(export_mat(native), path))
        assert summary(original) == summary(native) == summary(back), path


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(' \n[]"{}()!?.XO0123456789:/*-abdofrtwinsplgk')), max_size=200))
def test_fuzz_native_reader_and_replay(body):
    record = read_native('[Game "long"]\n' + body)
    replay_match(record)  # errors are collected, never raised
