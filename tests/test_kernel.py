"""The compiled kernel agrees with the reference search on every reading it serves."""

from __future__ import annotations

import random

import pytest

from nardtools import ALL_ROLLS, find_ruleset
from nardtools.engine import _legal, _load_kernel, _Turn
from nardtools.playout import random_game

from .fresh import modules_after

pytestmark = pytest.mark.skipif(_load_kernel() is None, reason="numba kernel unavailable")

CASES = [
    ("backgammon", {}),
    ("backgammon", {"bear-off": "exact"}),
    ("backgammon", {"start": "nackgammon"}),
    ("backgammon", {"start": "hypergammon"}),
    ("long", {}),
    ("long", {"block": "opponent-in-home"}),
    ("long", {"block-path": "mover"}),
    ("long", {"block": "none"}),
    ("long", {"bear-off": "exact"}),
    ("arena", {}),
]


def ends(rows):
    return {(c.me, c.hits, c.rank[0]) for c in rows}


@pytest.mark.parametrize("ruleset, options", CASES)
def test_kernel_equals_reference(ruleset, options):
    rules = find_ruleset(ruleset).rules.with_options(options)
    rng = random.Random(hash((ruleset, tuple(options.items()))) & 0xFFFF)
    compared = 0
    for _ in range(4):
        for turn in random_game(rules, rng):
            for roll in (turn.roll, rng.choice(ALL_ROLLS)):
                t = _Turn(turn.position, roll, rules, turn.first_turn)
                fast, slow = _legal(t), _legal(t, kernel=False)
                assert ends(fast) == ends(slow), (str(turn.position), str(roll))
                # in the same order, so that switching engines never changes a seeded game
                assert [(c.me, c.hits) for c in fast] == [(c.me, c.hits) for c in slow]
                # the same canonical play for every end of turn
                assert {(c.me, c.hits): c.steps for c in fast} == {(c.me, c.hits): c.steps for c in slow}
                compared += 1
    assert compared > 100


def test_kernel_first_turn_exception_readings():
    from nardtools import Position, Roll

    start = Position.start("long")
    for name in ("long", "arena"):
        rules = find_ruleset(name).rules
        for roll in ALL_ROLLS:
            for first in (True, False):
                t = _Turn(start, roll, rules, first)
                assert ends(_legal(t)) == ends(_legal(t, kernel=False)), (name, str(roll), first)
    after = Position.parse("long O 24:15 / 24:14,4:1")
    t = _Turn(after, Roll(6, 2), find_ruleset("long").rules, True)
    assert ends(_legal(t)) == ends(_legal(t, kernel=False))


@pytest.mark.parametrize("ruleset", ["backgammon", "long", "long-classic"])
def test_ordered_search_equals_exhaustive_search(ruleset):
    """Moving the highest checkers first (doubles) and both orders (non-doubles)
    reach every end of turn that trying every order of the dice reaches."""
    from nardtools.engine import _generate_memo, _generate_ordered

    rules = find_ruleset(ruleset).rules
    rng = random.Random(5)
    for _ in range(3):
        for turn in random_game(rules, rng):
            roll = rng.choice(ALL_ROLLS)
            t = _Turn(turn.position, roll, rules, turn.first_turn)
            ordered, exhaustive = _generate_ordered(t), _generate_memo(t)
            flat = lambda reach: {(rank[0], key) for rank, level in reach.items() for key in level}
            assert flat(ordered) == flat(exhaustive), (str(turn.position), str(roll))


def test_kernel_is_loaded_only_when_it_pays():
    """One position is answered by the reference search (no numba start-up);
    a long job loads the kernel once the reference search has spent
    _KERNEL_AFTER seconds; NARDTOOLS_ENGINE forces either way."""
    one = ("from nardtools import Position, Roll, find_ruleset, legal_plays\n"
           "legal_plays(Position.start(), Roll(3, 1), find_ruleset('backgammon').rules)")
    assert "numba" not in modules_after(one, NARDTOOLS_ENGINE="")
    assert "numba" in modules_after(one, NARDTOOLS_ENGINE="kernel")
    many = ("import random\nfrom nardtools import find_ruleset, engine\n"
            "from nardtools.playout import random_game\nengine._KERNEL_AFTER = 0.01\n"
            "rules = find_ruleset('backgammon').rules\nrng = random.Random(1)\n"
            "for _ in range(20): random_game(rules, rng)\n"
            "assert engine._kernel_state and engine._kernel_state[0] is not None")
    assert "numba" in modules_after(many, NARDTOOLS_ENGINE="")
    assert "numba" not in modules_after(many.rsplit("\n", 1)[0], NARDTOOLS_ENGINE="reference")
