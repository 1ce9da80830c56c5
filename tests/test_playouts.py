"""Random playouts: the compiled core and the reference play the same games
from a seed, under every ruleset and option variant, gul-bara's turns included."""

from __future__ import annotations

import pytest

from nardtools import find_ruleset
from nardtools.core import CORE
from nardtools.playout import EV_PLAY, SplitMix64, playouts, replay_playout, selfplay
from nardtools.rules import rulesets

from .differential import VARIANTS

RULESETS = list(rulesets()) + [find_ruleset(name).with_options(options) for name, options in VARIANTS] + [
    find_ruleset("gulbara").with_options({"remainder": "opponent"}),
    find_ruleset("crazy-gulbara").with_options({"remainder": "opponent", "crazy-doubles": "four-times"}),
    find_ruleset("short-academic").with_options({"auto-doubles": "3"}),
]


def test_splitmix64_matches_the_published_sequence():
    """Vigna's SplitMix64 from seed 1234567 (the reference C code's output)."""
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(5)] == [6457827717110365317, 3203168211198807973, 9817491932198370423,
                                              4593380528125082431, 16408922859458223821]
    rng = SplitMix64(5)
    draws = [rng.below(6) for _ in range(6000)]
    assert set(draws) == set(range(6)) and all(900 < draws.count(v) < 1100 for v in range(6))


@pytest.mark.skipif(CORE is None, reason="the compiled core is not built (see test_core)")
@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda rs: rs.name + ("+" + ",".join(
    f"{k}={v}" for k, v in rs.overrides().items()) if rs.overrides() else ""))
def test_the_core_and_the_reference_play_the_same_games(ruleset):
    core = playouts(ruleset, 6, seed=2026, trace=True)
    reference = playouts(ruleset, 6, seed=2026, trace=True, core=False)
    assert core == reference
    assert all(sum(ev[0] == EV_PLAY for ev in g.events) >= g.turns > 0 for g in core)
    # and the reference alone (no core in its search) finds every play among its own
    assert replay_playout(ruleset, core[0]) is None


def test_games_of_a_run_can_be_played_again_alone():
    rs = find_ruleset("long")
    run = playouts(rs, 5, seed=9)
    assert playouts(rs, 2, seed=9, first=3) == run[3:]
    assert playouts(rs, 5, seed=10) != run


def test_a_changed_play_is_caught_by_the_replay():
    rs = find_ruleset("backgammon")
    game = playouts(rs, 1, seed=4, trace=True)[0]
    i = next(i for i, ev in enumerate(game.events) if ev[0] == EV_PLAY and ev[1] > 3)
    kind, n, k, _ = game.events[i]
    wrong = (*game.events[:i], (kind, n + 1, k, 0), *game.events[i + 1:])
    assert "legal plays" in replay_playout(rs, type(game)(game.winner, game.kind, game.points, game.turns, wrong))


def test_selfplay_checks_every_game_and_counts_outcomes():
    summary = selfplay(find_ruleset("nardionline"), 8, seed=3)
    assert summary["differences"] == [] and summary["checked"]
    assert sum(summary["outcomes"].values()) == 8 and summary["turns"] > 8 * 20
    fast = selfplay(find_ruleset("nardionline"), 8, seed=3, check=False)
    assert (fast["outcomes"], fast["turns"], fast["points"]) == (summary["outcomes"], summary["turns"],
                                                                summary["points"])
