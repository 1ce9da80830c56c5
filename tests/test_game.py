"""Outcomes, scoring tables, the cube, matches (seeds 000, 001, 003, 004)."""

import pytest

from nardtools import GameStateError, IllegalPlayError, Position, RulesetError, Violation, find_ruleset
from nardtools.game import Game, Match, Phase
from nardtools.outcome import OutcomeKind, classify, points_for

K = OutcomeKind


def loser(kind, points):
    return Position.from_points(kind, points, {}).mover


# --- classification ---------------------------------------------------------------

@pytest.mark.parametrize("points, koks_rule, expected", [
    ({5: 14}, "start-quarter", K.OIN),                 # one checker borne off
    ({5: 10, 10: 5}, "start-quarter", K.MARS),         # none off, not all home
    ({5: 15}, "start-quarter", K.HOME_MARS),           # none off, all home
    ({5: 14, 20: 1}, "start-quarter", K.KOKS),         # a checker in the starting quarter
    ({5: 14, 20: 1}, "head", K.MARS),                  # ... but not on the head
    ({5: 14, 24: 1}, "head", K.KOKS),
    ({5: 14, 24: 1}, "none", K.MARS),
])
def test_long_nardy_outcomes(points, koks_rule, expected):
    rules = find_ruleset("long").rules.with_options({"koks": koks_rule})
    assert classify(loser("long", points), rules) is expected


@pytest.mark.parametrize("points, expected", [
    ({5: 14}, K.SINGLE),
    ({5: 15}, K.GAMMON),
    ({10: 15}, K.GAMMON),
    ({5: 14, 20: 1}, K.BACKGAMMON),  # in the winner's home
    ({5: 14, 25: 1}, K.BACKGAMMON),  # on the bar
])
def test_backgammon_outcomes(points, expected):
    assert classify(loser("backgammon", points), find_ruleset("backgammon").rules) is expected


# --- every scoring table, as RULES.md lists them ----------------------------------

@pytest.mark.parametrize("ruleset, table", [
    ("long-classic", {K.OIN: 1, K.MARS: 2, K.HOME_MARS: 2, K.KOKS: 2}),   # plain text: oin 1, mars 2
    ("nardionline", {K.OIN: 1, K.MARS: 2, K.HOME_MARS: 3, K.KOKS: 4}),
    ("luckyea", {K.OIN: 1, K.MARS: 2, K.HOME_MARS: 3, K.KOKS: 2}),
    ("yellowclub", {K.OIN: 1, K.MARS: 2, K.HOME_MARS: 2, K.KOKS: 3}),
    ("wikipedia-long", {K.OIN: 1, K.MARS: 2, K.HOME_MARS: 3, K.KOKS: 2}),
    ("wikipedia-long-old", {K.OIN: 1, K.MARS: 2, K.HOME_MARS: 4, K.KOKS: 3}),
    ("backgammon", {K.SINGLE: 1, K.GAMMON: 2, K.BACKGAMMON: 3}),
    ("play65", {K.SINGLE: 1, K.GAMMON: 2, K.BACKGAMMON: 3}),
    ("gammon-site", {K.SINGLE: 1, K.GAMMON: 2, K.BACKGAMMON: 3}),
])
def test_scoring_tables(ruleset, table):
    rules = find_ruleset(ruleset).rules
    assert {k: points_for(k, rules) for k in table} == table


def finish_long_game(ruleset, loser_points):
    """Play the winner's last checker off and return the game's outcome."""
    pos = Position.from_points("long", {1: 1}, loser_points)
    g = Game(find_ruleset(ruleset), position=pos)
    g.start(0)
    g.roll(2, 1)
    g.play("1/off")
    assert g.phase is Phase.OVER
    return g.outcome


def test_game_end_scores_home_mars_under_nardionline():
    out = finish_long_game("nardionline", {3: 15})
    assert (out.winner, out.kind, out.points) == (0, K.HOME_MARS, 3)
    assert str(out) == "X wins 3 points (home-mars)"
    assert finish_long_game("long", {3: 15}).points == 2
    assert finish_long_game("nardionline", {3: 14, 22: 1}).points == 4


# --- the cube ---------------------------------------------------------------------

def test_double_take_redouble_drop():
    g = Game(find_ruleset("backgammon"))
    g.start(0)
    g.double()
    g.take()
    assert (g.cube, g.cube_owner, g.on_roll) == (2, 1, 0)
    with pytest.raises(GameStateError, match="belongs to O"):
        g.double()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.double()  # O owns the cube and redoubles
    g.drop()
    assert (g.outcome.winner, g.outcome.points) == (1, 2)


def test_cube_limit():
    g = Game(find_ruleset("backgammon").rules.with_options({"cube-limit": "2"}))
    g.start(0)
    g.double()
    g.take()
    g.roll(3, 1)
    g.play("8/5 6/5")
    assert "limit 2" in g.why_no_double()


def test_beaver():
    g = Game(find_ruleset("play65"))
    g.start(0)
    g.double()
    g.beaver()
    g.take()
    assert (g.cube, g.cube_owner) == (4, 1)
    g2 = Game(find_ruleset("play65"))
    g2.start(0)
    g2.double()
    g2.beaver()
    g2.drop()
    assert (g2.outcome.winner, g2.outcome.points) == (1, 2)
    g3 = Game(find_ruleset("backgammon"))
    g3.start(0)
    g3.double()
    with pytest.raises(GameStateError, match="beaver"):
        g3.beaver()


def test_jacoby_rule_money_play():
    pos = Position.from_points("backgammon", {1: 1}, {10: 15})
    for ruleset, cube_turned, points in [("short-academic", False, 1), ("short-academic", True, 4),
                                         ("backgammon", False, 2)]:
        g = Game(find_ruleset(ruleset), position=pos)
        g.start(0)
        if cube_turned:
            g.double()
            g.take()
        g.roll(2, 1)
        g.play("1/off")
        assert (g.outcome.kind, g.outcome.points) == (K.GAMMON, points)


def test_automatic_doubles():
    g = Game(find_ruleset("short-academic"))  # one automatic double
    g.opening_roll(4, 4)
    g.opening_roll(2, 2)
    g.opening_roll(5, 3)
    assert g.cube == 2 and g.dice.high == 5
    g2 = Game(find_ruleset("backgammon"))
    g2.opening_roll(4, 4)
    g2.opening_roll(3, 5)
    assert g2.cube == 1 and g2.on_roll == 1


def test_long_nardy_opening_rerolls():
    g = Game(find_ruleset("long"))
    g.opening_roll(2, 5)
    assert g.phase is Phase.ROLL and g.on_roll == 1
    g.roll(6, 6)
    assert [str(p) for p in g.legal_plays()] == ["24/18(2)"]
    g.play("24/18(2)")
    g.roll(6, 6)  # the first side's first turn too
    g.play("24/18 24/18")
    g.roll(6, 6)  # O's second turn: one head checker only
    with pytest.raises(IllegalPlayError) as e:
        g.play("24/18(2)")
    assert e.value.violation is Violation.HEAD


def test_lenient_game_applies_condoned_illegal_play():
    g = Game(find_ruleset("tournament-2015"))
    g.opening_roll(3, 1)
    g.play("8/5")  # illegal (a die left unused) but condoned
    assert g.history[-1].note == "condoned: dice-not-used-in-full"
    assert g.on_roll == 1


def test_resignation_levels():
    g = Game(find_ruleset("gammon-site"))
    g.start(0)
    g.resign(1, 2)
    g.reject()
    assert g.phase is Phase.ROLL
    g.resign(1, "backgammon")
    g.accept()
    assert (g.outcome.winner, g.outcome.kind, g.outcome.points) == (0, K.BACKGAMMON, 3)
    g = Game(find_ruleset("nardionline"))
    g.start(0)
    g.resign(0, 4)
    g.accept()
    assert (g.outcome.kind, g.outcome.points) == (K.KOKS, 4)


# --- matches: Crawford and the dead cube ------------------------------------------

def test_crawford_game_and_post_crawford():
    m = Match(find_ruleset("backgammon"), 5, score=(4, 2))
    g = m.new_game()
    assert g.crawford
    g.start(1)
    assert g.why_no_double() == "no doubling in the Crawford game"
    with pytest.raises(GameStateError):
        g.double()
    g.resign(0)
    g.accept()
    m.finish(g)
    assert m.score == (4, 3)
    g2 = m.new_game()
    assert not g2.crawford
    g2.start(0)
    g2.double()  # post-Crawford: doubling allowed again
    g2.drop()
    m.finish(g2)
    assert m.winner == 0


def test_no_crawford_without_the_rule():
    m = Match(find_ruleset("backgammon").rules.with_options({"crawford": "no"}), 5, score=(4, 2))
    assert not m.new_game().crawford


def test_quentinc_dead_cube_prohibition():
    # Seed 000 (QuentinC): at 6-5 in a 7-point match nobody may double.
    m = Match(find_ruleset("quentinc"), 7, score=(5, 6), crawford_played=True)
    g = m.new_game()
    g.start(0)
    assert "already wins the match" in g.why_no_double()
    m2 = Match(find_ruleset("backgammon"), 7, score=(5, 6), crawford_played=True)
    g2 = m2.new_game()
    g2.start(0)
    assert g2.why_no_double() is None


@pytest.mark.parametrize("name", ["long", "backgammon", "nardionline"])
def test_push_and_pop_undo_every_play(name):
    """Pushing random legal plays of seeded dice, then popping them all, comes
    back to the start; each pop returns the play pushed."""
    import random

    g = Game(name, seed=3)
    g.start(0)
    rng = random.Random(5)
    pushed, seen = [], [(g.position, g.phase)]
    while g.phase is not Phase.OVER and len(pushed) < 40:
        g.roll()
        seen.append((g.position, g.phase))
        play = rng.choice(list(g.legal_plays())).play
        g.push(play)
        pushed.append(play)
        if g.phase is not Phase.OVER:
            seen.append((g.position, g.phase))
    while pushed:
        assert g.pop().play == pushed.pop()
        assert (g.position, g.phase) in seen
    assert g.position == Position.start(g.rules.start) and g.phase is Phase.PLAY and len(g.history) == 1


def test_a_game_is_made_from_a_name_or_a_position_and_keeps_its_state_private():
    assert Game("long").position == Position.start("long")
    g = Game(Position.parse("long X 24:14,13:1 / 24:15"))
    assert g.ruleset.name == "long" and g.rules.is_long
    with pytest.raises(TypeError):
        Game("backgammon", phase=Phase.ROLL)  # type: ignore[call-arg]
    with pytest.raises(RulesetError):
        Game("chess")
    seeded = [Game("backgammon", seed=9) for _ in range(2)]
    rolls = []
    for s in seeded:
        s.start(0)
        rolls.append(s.roll())
    assert rolls[0] == rolls[1]
    with pytest.raises(GameStateError, match="seeded"):
        unseeded = Game("backgammon")
        unseeded.start(0)
        unseeded.roll()
    with pytest.raises(GameStateError, match="nothing to pop"):
        seeded[0].pop()


def test_a_play_that_reads_two_ways_is_refused_as_ambiguous():
    """``13/6`` with 61 can hit on 7 or on 12 (different positions after it):
    the text does not say which, so it is refused, by the compiled core and by
    the reference alike; each reading written in full is legal, and a combined
    move that can pass without hitting is read that way (a hit is marked)."""
    from nardtools import Game, Position
    from nardtools.dice import Roll
    from nardtools.errors import AmbiguousPlayError, IllegalPlayError, Violation
    from nardtools.judge import _judge

    position = Position.parse("backgammon X 13:1,6:14 / 13:1,18:1,1:13")
    for core in (True, False):
        judged = _judge(position, Roll(6, 1), "13/6", None, None, core=core)
        assert not judged.legal and judged.violation is Violation.AMBIGUOUS
        assert "13/7* 7/6" in judged.message and "13/12* 12/6" in judged.message
        for reading in ("13/7*/6", "13/12*/6"):
            assert _judge(position, Roll(6, 1), reading, None, None, core=core).legal
    game = Game(position)
    game.start(0)
    game.roll(6, 1)
    with pytest.raises(AmbiguousPlayError) as refused:
        game.push("13/6")
    assert isinstance(refused.value, IllegalPlayError) and refused.value.violation is Violation.AMBIGUOUS
    game.push("13/12*/6")
    assert game.position.side_of(1)[25] == 1  # bob's checker from his 13 is on the bar
    lenient = Game(position, lenient=True)
    lenient.start(0)
    lenient.roll(6, 1)
    with pytest.raises(AmbiguousPlayError):  # not condoned: there is no one board to carry it out on
        lenient.play("13/6")
    quiet = Position.parse("backgammon X 13:1,6:14 / 13:1,1:14")  # only 7 can be hit
    assert _judge(quiet, Roll(6, 1), "13/6", None, None).legal


def test_every_ruleset_of_one_turn_per_roll_ends_its_self_play_games_through_the_driver() -> None:
    """Issue 22: self-play and rollouts share one turn driver; under every
    named ruleset where a roll is one turn (hypergammon's three checkers
    included) random games end, the winner with no checker left in play, and
    the others are refused with the reason."""
    import numpy as np

    from nardtools.analysis.selfplay import RandomPlayer, play_game
    from nardtools.errors import AnalysisError
    from nardtools.rules import rulesets

    played = 0
    for rs in rulesets():
        rules = rs.rules
        one_turn = rules.crazy_doubles == "none" and rules.remainder == "lost" and not rules.double_reroll
        boards: list[np.ndarray] = []
        try:
            result = play_game(rs, RandomPlayer(1), RandomPlayer(2), seed=5,
                               on_turn=lambda board, rows, chosen, boards=boards: boards.append(rows[chosen]))
        except AnalysisError as e:
            assert not one_turn and "a roll is one turn" in str(e), rs.name
            continue
        assert one_turn, rs.name
        winner_side = boards[-1][26:]  # the side that played last, seen from the other side
        assert winner_side[1:].sum() == 0 and result.turns == len(boards) and result.points >= 1, rs.name
        played += 1
    assert played >= 18
