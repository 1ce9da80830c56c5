"""Invariants over random games (hypothesis drives the seeds and rulesets)."""

from __future__ import annotations

import os
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nardtools import ALL_ROLLS, Play, Position, Roll, Step, check_play, find_ruleset, legal_plays
from nardtools.playout import random_game
from nardtools.position import Status, position_status
from nardtools.turn import RolledTurn, _generate

#: NARDTOOLS_PROPERTY_SCALE=20 runs twenty times the examples (a long soak).
SCALE = int(os.environ.get("NARDTOOLS_PROPERTY_SCALE", "1"))

RULESETS = ["backgammon", "caucasian", "long", "arena", "long-classic", "yellowclub"]
VARIANT_OPTIONS = [
    {},
    {"block-check": "every-step"},
    {"block-path": "mover"},
    {"block": "opponent-in-home"},
    {"bear-off": "exact"},
]


def rules_of(name: str, options: dict[str, str]):
    rules = find_ruleset(name).rules
    return rules.with_options(options) if rules.is_long else rules


@settings(max_examples=12 * SCALE, deadline=None)
@given(st.sampled_from(RULESETS), st.sampled_from(VARIANT_OPTIONS), st.integers(0, 2**32))
def test_random_games_conserve_checkers_and_round_trip(name, options, seed):
    rules = rules_of(name, options)
    for turn in random_game(rules, random.Random(seed)):
        p, q = turn.position, turn.result
        assert sum(q.mover) == 15 and sum(q.opponent) == 15
        assert position_status(q.kind, q.mover, q.opponent, q.player) == Status.VALID, str(q)
        assert q.flip().flip() == q
        assert Position.parse(str(q)) == q
        assert q.pips()[1] <= p.pips()[0]  # the mover's pips never grow ...
        assert q.pips()[0] >= p.pips()[1]  # ... and the opponent's only by hits
        # every generated play passes the single-play check, also from its text
        j = check_play(p, turn.roll, Play.parse(str(turn.play)), rules, first_turn=turn.first_turn)
        assert j.legal, (str(p), str(turn.roll), str(turn.play), j.message)
        assert j.result == q


def relaxed_candidates(position: Position, roll: Roll, rules, first_turn: bool):
    """Plays that obey the movement of checkers but not necessarily the rules of
    the turn (head limit, six-block, dice maximisation): every prefix of every
    order of the dice, generated with the head and block rules switched off."""
    loose = rules.with_options({"block": "none", "head-limit": "0"})
    turn = RolledTurn(position, roll, loose, first_turn)
    reach = _generate(turn)
    return [Play(tuple(Step(*x) for x in steps)) for level in reach.values() for steps in level.values()]


@settings(max_examples=25 * SCALE, deadline=None)
@given(st.sampled_from(RULESETS), st.sampled_from(VARIANT_OPTIONS), st.integers(0, 2**32))
def test_single_play_check_agrees_with_generation(name, options, seed):
    """check_play(p) is legal exactly when p's result is among legal_plays."""
    rules = rules_of(name, options)
    rng = random.Random(seed)
    turns = random_game(rules, rng)
    for turn in rng.sample(turns, min(6, len(turns))):
        roll = rng.choice(ALL_ROLLS)
        legal = legal_plays(turn.position, roll, rules, first_turn=turn.first_turn)
        results = {lp.result for lp in legal}
        for play in relaxed_candidates(turn.position, roll, rules, turn.first_turn):
            j = check_play(turn.position, roll, play, rules, first_turn=turn.first_turn)
            assert j.legal == (j.result in results), (str(turn.position), str(roll), str(play), j.message)
            if not j.legal:
                assert j.violation is not None and str(j.violation) in j.message


@settings(max_examples=60 * SCALE, deadline=None)
@given(st.integers(0, 2**32))
def test_legal_play_sets_are_closed_under_replay(seed):
    """Replaying a legal play's canonical text from the position gives its result."""
    rng = random.Random(seed)
    rules = find_ruleset(rng.choice(RULESETS)).rules
    turns = random_game(rules, rng)
    turn = rng.choice(turns)
    for roll in rng.sample(ALL_ROLLS, 4):
        for lp in legal_plays(turn.position, roll, rules, first_turn=turn.first_turn):
            j = check_play(turn.position, roll, str(lp.play), rules, first_turn=turn.first_turn)
            assert j.legal and j.result == lp.result
