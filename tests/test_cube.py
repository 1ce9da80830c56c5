"""Cube hints: Janowski's model at its known corners, the shipped match
equity table against published values, and verdicts on clear race positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from nardtools import Position, find_ruleset
from nardtools.analysis.cube import kazaross_xg2, match_hint, money_equities, money_hint, read_met
from nardtools.analysis.race import race_odds


def _odds(text: str):  # type: ignore[no-untyped-def]
    return race_odds(Position.parse(text))


def test_janowski_model_corners() -> None:
    # without gammons: a dead cube (x = 0) takes at 25% and doubles at 50%;
    # a fully live cube (x = 1) takes at 20% and doubles only at the cash point, 80%
    odds = _odds("backgammon X 6:4,5:3,4:3,3:2,2:2,1:1 / 6:4,5:3,4:3,3:2,2:2,1:1")
    dead, live = money_hint(odds, x=0.0).numbers, money_hint(odds, x=1.0).numbers
    assert dead["take_point"] == pytest.approx(0.25) and dead["double_point"] == pytest.approx(0.5, abs=1e-9)
    assert live["take_point"] == pytest.approx(0.2) and live["double_point"] == pytest.approx(0.8, abs=1e-9)
    # the usual race efficiency: take point (W = L = 1) 0.5 / 2.34 = 21.4%
    assert money_hint(odds).numbers["take_point"] == pytest.approx(0.5 / 2.34)
    eq = money_equities(0.5, 1.0, 1.0, 1.0)
    assert eq["centred"] == pytest.approx(0.0) and eq["owned"] > 0 > eq["theirs"]


def test_money_verdicts_on_clear_positions() -> None:
    assert money_hint(_odds("backgammon X 3:1,2:1 / 6:2")).verdict == "double, pass"  # about 97%
    assert money_hint(_odds("backgammon X 6:4,5:3,4:3,3:2,2:2,1:1 / 6:4,5:3,4:3,3:2,2:2,1:1")).verdict \
        == "no double, take"  # 61.6% at equal counts
    hint = money_hint(_odds("backgammon X 6:3,5:3,4:3,3:2,2:2 / 6:3,5:3,4:3,3:3,2:2,1:1"))
    assert hint.verdict == "double, take" and 0.7 < hint.numbers["p_win"] < 0.786


def test_kazaross_table_matches_published_values() -> None:
    met = kazaross_xg2()
    # a 7-point match equity table as published (bigmoneybill.blogspot.com, 2012), in percent
    published = {(1, 2): 68, (1, 3): 75, (1, 4): 81, (1, 5): 84, (1, 6): 89, (1, 7): 91,
                 (2, 3): 60, (2, 4): 67, (2, 5): 74, (2, 6): 80, (2, 7): 84, (3, 4): 57, (3, 5): 65}
    for (a, b), pct in published.items():
        assert round(100 * met.equity(a, b)) == pct, (a, b)
        assert met.equity(a, b) + met.equity(b, a) == pytest.approx(1.0, abs=1e-6)
    assert met.equity(2, 1, post_crawford=True) == pytest.approx(0.48803)  # the free drop's price
    assert met.equity(0, 3) == 1.0 and met.equity(3, 0) == 0.0


def test_read_met_percentages(tmp_path: Path) -> None:
    path = tmp_path / "tiny.csv"
    path.write_text("# a 2-point table\n50%, 70%\n30%, 50%\n")
    met = read_met(path)
    assert met.equity(1, 2) == pytest.approx(0.7) and met.equity(2, 1, post_crawford=True) == pytest.approx(0.3)
    bad = tmp_path / "bad.csv"
    bad.write_text("1, 2, 3\n4, 5\n")
    with pytest.raises(ValueError):
        read_met(bad)


def test_match_hint_uses_the_score() -> None:
    odds = _odds("backgammon X 3:1,2:1 / 6:2")  # about 97%: the other side must pass...
    assert match_hint(odds, length=7, score=(0, 0)).verdict == "double, pass"
    # ...but at 1-away (the doubler needs 1 point) holding wins the match just as well
    at_one = match_hint(odds, length=7, score=(6, 3))
    assert at_one.verdict in ("too good to double, pass", "no double, take")
    assert match_hint(odds, length=7, score=(6, 3), crawford=True).verdict.endswith("(Crawford game)")


# ---------------------------------------------------------------------------
# One rule for "may this side double" (issue 22): the game machine and every cube verdict

def test_no_cube_verdict_advises_a_double_the_rules_forbid():
    from nardtools.analysis.cube import cube_hints
    from nardtools.analysis.race import race_odds
    from nardtools.notation.ids import parse_setup

    rules = find_ruleset("backgammon").rules
    for text, why in (("; cube 64 X", "the cube is at its limit 64"), ("; cube 2 O", "the cube belongs to O")):
        setup = parse_setup("backgammon X 6:3,5:4,3:2 / 6:4,4:4,2:2" + text)
        hints = cube_hints(race_odds(setup.position), setup, rules)
        assert [(h.verdict, h.detail) for h in hints] == [("no double", why)]  # before: "redouble, pass" at 64
    setup = parse_setup("backgammon X 6:3,5:4,3:2 / 6:4,4:4,2:2; cube 4 X; score 1-3/5")
    dead = cube_hints(race_odds(setup.position), setup, find_ruleset("quentinc").rules)
    assert dead[0].verdict == "no double" and "already wins the match" in dead[0].detail
    assert cube_hints(race_odds(setup.position), setup, rules)[0].verdict != "no double"


CASES = [  # ruleset, cube, owner, length, score, crawford: the reason the side on roll (X) may not double
    ("backgammon", 1, None, 0, (0, 0), False, None),
    ("backgammon", 2, 0, 0, (0, 0), False, None),
    ("backgammon", 2, 1, 0, (0, 0), False, "the cube belongs to O"),
    ("backgammon", 64, 0, 0, (0, 0), False, "the cube is at its limit 64"),
    ("backgammon", 1, None, 5, (4, 2), True, "no doubling in the Crawford game"),
    ("backgammon", 4, 0, 5, (1, 3), False, None),  # a dead cube is allowed (QuentinC forbids it)
    ("quentinc", 4, 0, 5, (1, 3), False, "doubling is forbidden when a side already wins the match with the current cube"),
    ("long", 1, None, 5, (0, 0), False, "the ruleset plays without the doubling cube"),
    ("play65-long", 32, None, 0, (0, 0), False, None),
]


@pytest.mark.parametrize("name, cube, owner, length, score, crawford, why", CASES)
def test_the_game_machine_and_the_verdicts_share_one_rule(name, cube, owner, length, score, crawford, why):
    """Where the rules forbid a double the game refuses it and no verdict advises it; elsewhere both allow it."""
    from nardtools.analysis.cube import cube_hints
    from nardtools.errors import GameStateError
    from nardtools.game import Game, why_no_double
    from nardtools.setup import Setup

    rules = find_ruleset(name).rules
    assert why_no_double(rules, 0, cube=cube, cube_owner=owner, match_length=length, score=score, crawford=crawford) == why
    game = Game(rules, length, score, crawford)
    game.start(0)
    game.cube, game.cube_owner = cube, owner
    assert game.why_no_double() == why
    if why is None:
        game.double()
    else:
        with pytest.raises(GameStateError):
            game.double()
    start = "long" if rules.is_long else "backgammon"
    setup = Setup(Position.start(start), cube=cube, cube_owner=owner, match_length=length, score=score,
                  crawford=crawford)
    if rules.cube:
        verdicts = [h.verdict for h in cube_hints(race_odds(Position.from_points(start, {6: 3}, {6: 5})), setup, rules)]
        assert (verdicts == ["no double"]) == (why is not None and not crawford), verdicts
