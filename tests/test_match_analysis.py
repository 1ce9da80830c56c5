"""Cubeful equity, cube decisions and match analysis (issue 24): Janowski's
money model worked by hand, GNU Backgammon's printed cube numbers, the cube's
availability, Long Nardy's match equity table, and (an oracle, skipped without
gnubg and gnubg-nn) gnubg 1.07's own 0-ply ``analyse match``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from nardtools import Position, find_ruleset, read_record, replay_match
from nardtools.analysis.analyse import Judge, analyse_match
from nardtools.analysis.cube import kazaross_xg2
from nardtools.analysis.cubeful import CubeDecision, CubeState, Valuer
from nardtools.analysis.met import KINDS, long_met, outcome_rates

from .corpus import CORPUS, needs_corpus
from .gnubg_oracle import GNUBG, compare_match_analysis, gnubg_analyse

BG = find_ruleset("backgammon").rules
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _p(*values: float) -> np.ndarray:
    return np.array([values])


def test_money_cubeful_equity_by_hand() -> None:
    # 70% wins, no gammons: W = L = 1, take point 0.5/2.5 = 0.2, cash point 2/2.5 = 0.8.
    # Centred live equity -1 + 2 (0.7 - 0.2) / 0.6 = 2/3; dead 0.4; x = 0.68:
    # ND = 0.68 * 2/3 + 0.32 * 0.4 = 0.58133.  Doubled and taken (the other side owns the
    # cube): live -1 + 2 (0.7 - 0.2) / 0.8 = 0.25, so DT = 2 (0.68 * 0.25 + 0.32 * 0.4) = 0.596
    v = Valuer(BG)
    nd, dt, dp = v.options(_p(0.7, 0, 0, 0, 0), CubeState(), np.array([0.68]))
    assert (nd[0], dt[0], dp) == pytest.approx((0.68 * 2 / 3 + 0.32 * 0.4, 0.596, 1.0))
    # x = 0: the dead cube, 2p - 1 either way (doubled: twice it)
    nd, dt, _ = v.options(_p(0.7, 0, 0, 0, 0), CubeState(), np.array([0.0]))
    assert (nd[0], dt[0]) == pytest.approx((0.4, 0.8))
    # owning the cube is worth more than a centred cube, a cube owned by the other side less
    x = np.array([0.68])
    values = [v.money(_p(0.55, 0.1, 0, 0.1, 0), CubeState(owner=o), x)[0] for o in (0, None, 1)]
    assert values[0] > values[1] > values[2]


def test_jacoby_centres_gammons_out() -> None:
    v = Valuer(BG)
    p, x = _p(0.6, 0.3, 0.0, 0.05, 0.0), np.array([0.0])
    assert v.money(p, CubeState(jacoby=True), x)[0] == pytest.approx(0.2)             # gammons count single
    assert v.money(p, CubeState(jacoby=True, owner=0), x)[0] == pytest.approx(0.45)   # the cube turned: they count


@pytest.mark.parametrize("probabilities, nd, dt", [
    # gnubg 1.07's 0-ply cube analysis in a real 7-point match at 0-0 (its text export: the
    # probabilities as printed, three decimals; ND and DT in EMG)
    ((0.499, 0.138, 0.005, 0.136, 0.007), -0.002, -0.347),
    ((0.487, 0.137, 0.006, 0.153, 0.007), -0.058, -0.439),
])
def test_match_cubeful_equity_matches_gnubg_printout(probabilities: tuple[float, ...], nd: float, dt: float) -> None:
    v = Valuer(BG, kazaross_xg2())
    got_nd, got_dt, dp = v.options(np.array([probabilities]), CubeState(length=7), np.array([0.68]))
    assert (got_nd[0], got_dt[0], dp) == pytest.approx((nd, dt, 1.0), abs=0.003)


def test_emg_is_minus_one_to_one_over_the_cube_at_stake() -> None:
    v = Valuer(BG, kazaross_xg2())
    state = CubeState(value=2, length=9, score=(3, 5))
    win, lose = (kazaross_xg2().equity(a, b) for a, b in ((6 - 2, 4), (6, 4 - 2)))
    assert v.eq_of_mwc(np.array([win, lose]), state) == pytest.approx([1.0, -1.0])
    assert v.mwc_of_eq(v.eq_of_mwc(np.array([0.37]), state), state) == pytest.approx([0.37])


def test_the_cube_is_available_only_where_a_double_could_gain() -> None:
    assert CubeState(length=7).may_double(BG)
    assert not CubeState(length=7, crawford=True, score=(6, 3)).may_double(BG)
    # post-Crawford: the leader's double can only lose; the trailer's is free
    assert not CubeState(length=7, score=(6, 3), mover=0).may_double(BG)
    assert CubeState(length=7, score=(6, 3), mover=1).may_double(BG)
    # the cube's owner, and the ruleset's limit
    assert not CubeState(value=2, owner=1, mover=0).may_double(BG)
    assert not CubeState(value=64).may_double(BG)
    assert not CubeState().may_double(find_ruleset("long").rules)        # no cube in Long Nardy's default
    # the cube dead for both sides: cubeless
    assert not CubeState(value=4, length=7, score=(4, 4)).cube_alive()


def test_cube_decisions_worded_and_judged() -> None:
    take = CubeDecision(0.30, 0.45, 1.0)
    assert take.proper == "double, take" and take.error("no double") == pytest.approx(0.15)
    assert take.alert("no double") == "missed double" and take.alert("double") is None
    assert take.alert("pass") == "wrong pass" and take.error("pass") == pytest.approx(0.55)
    cash = CubeDecision(0.80, 1.30, 1.0)
    assert cash.proper == "double, pass" and cash.alert("take") == "wrong take"
    assert cash.error("take") == pytest.approx(0.30)
    too_good = CubeDecision(1.20, 1.60, 1.0)
    assert too_good.proper == "too good to double, pass" and too_good.alert("double") == "wrong double"
    assert too_good.alert("no double") is None
    wait = CubeDecision(0.20, 0.10, 1.0, redouble=True)
    assert wait.proper == "no redouble, take" and wait.error("double") == pytest.approx(0.10)


def test_money_analysis_flag_keeps_the_cubeless_judgement() -> None:
    match = replay_match(read_record(EXAMPLES / "backgammon" / "gnubg-5pt-analysed.sgf"))
    cubeless = analyse_match(match, money=True, games={1})
    assert cubeless.units == "cubeless money equity" and not cubeless.cubes[1]
    # the turns agree with an analysis by the cubeless judge directly (today's)
    from nardtools.analysis.analyse import analyse_game
    from nardtools.analysis.evaluate import Evaluator

    direct = analyse_game(match.games[0], Evaluator(match.ruleset.rules), match.record.names)
    assert [(t.error, t.luck) for t in cubeless.games[1]] == [(t.error, t.luck) for t in direct]
    at_score = analyse_match(match, games={1})
    assert at_score.units.startswith("EMG")
    kinds = [e["kind"] for e in at_score.as_dict()["games"][0]["turns"]]
    assert kinds.count("play") == len(at_score.games[1]) and kinds.count("cube") == len(at_score.cubes[1])


# ---------------------------------------------------------------------------
# Long Nardy's table

LONG = find_ruleset("long").rules


def test_long_met_is_symmetric_and_monotone() -> None:
    met = long_met(LONG)
    n = 15
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            assert met.equity(a, b) + met.equity(b, a) == pytest.approx(1.0, abs=1e-12)
            if a > 1:
                assert met.equity(a, b) < met.equity(a - 1, b)
            if b > 1:
                assert met.equity(a, b) > met.equity(a, b - 1)
    rates = outcome_rates()
    assert sum(rates.values()) == pytest.approx(1.0) and set(rates) == set(KINDS)


def test_long_met_reproduces_itself_in_simulated_matches() -> None:
    """10,000 matches to 5 from 2-3 (needing 3 against 2), each game's winner
    drawn 1/2 and its kind from the winner's shares at the score (as the
    table has them): the share won lands within two standard errors of the
    table."""
    from nardtools.analysis.met import outcome_shares
    from nardtools.outcome import OutcomeKind, points_for

    met = long_met(LONG)
    shares = outcome_shares(LONG)
    values = np.array([points_for(OutcomeKind(k), LONG) for k in KINDS])
    rng = np.random.default_rng(24)
    wins, matches = 0, 10_000
    for _ in range(matches):
        need = [3, 2]
        while min(need) > 0:
            winner = int(rng.integers(2))
            share = shares.at(need[winner], need[1 - winner])[0]
            need[winner] -= values[rng.choice(len(KINDS), p=np.array(share) / sum(share))]
        wins += need[0] <= 0
    expected = met.equity(3, 2)
    se = (expected * (1 - expected) / matches) ** 0.5
    assert abs(wins / matches - expected) < 2 * se


def test_long_match_at_four_all_judges_by_winning_chances_alone() -> None:
    """At 4-4 in a match to 5 a mars wins no more than an oin: every play's
    equity is 2 P(win) - 1 of its result, whatever its mars chances."""
    from nardtools.analysis.evaluate import Evaluator, ranked_plays
    from nardtools.analysis.rows import boards_of
    from nardtools.dice import Roll

    ev = Evaluator(LONG)
    judge = Judge.for_match(LONG, 5)
    assert judge.valuer is not None
    state = CubeState(length=5, score=(4, 4))
    win, win_mars = _p(1, 0, 0, 0, 0, 0, 0), _p(1, 1, 0, 1, 0, 0, 0)   # an oin; a koks (a mars too)
    assert judge.valuer.dead_mwc(win, state)[0] == judge.valuer.dead_mwc(win_mars, state)[0] == 1.0
    ranked = ranked_plays(ev, Position.start("long"), Roll(6, 3), first_turn=True, value=judge.play_value(state))
    p, _ = ev.static(boards_of([r.result for r in ranked]), database=True)
    assert [r.equity for r in ranked] == pytest.approx(list(2 * (1 - p[:, 0]) - 1), abs=1e-9)
    assert [r.equity for r in ranked] == sorted((r.equity for r in ranked), reverse=True)


# ---------------------------------------------------------------------------
# GNU Backgammon's own analysis

needs_gnubg_nn = pytest.mark.skipif(GNUBG is None and not os.environ.get("CI"),
                                    reason="GNU Backgammon is not installed")


def _agreement(files: list[Path], folder: Path) -> tuple[int, int, int, int]:
    """Over ``files`` analysed by gnubg and by us: unforced plays, those whose
    errors agree within 0.01, gnubg's costly cube alerts, those we report."""
    plays = agree = alerts = found = 0
    for sgf, parts in gnubg_analyse(files, folder):
        r = compare_match_analysis(sgf, parts)
        plays, agree = plays + r["plays"], agree + r["agree"]
        alerts, found = alerts + r["cube_alerts"], found + r["cube_found"]
    return plays, agree, alerts, found


@needs_corpus
@needs_gnubg_nn
def test_analysis_at_the_score_agrees_with_gnubg_analyse_match(tmp_path: Path) -> None:
    """Three real matches, analysed by gnubg 1.07 at 0-ply and by nardtools
    with gnubg's network at 0-ply: checker errors within 0.01 in >= 95% of
    unforced decisions, and >= 90% of gnubg's cube alerts reported, in the same
    category, at the same position."""
    pytest.importorskip("gnubg_nn")
    plays, agree, alerts, found = _agreement(sorted((CORPUS / "bglab-llabba").glob("*.txt"))[:3], tmp_path)
    assert plays > 500 and agree / plays >= 0.95, (agree, plays)
    assert alerts >= 10 and found / alerts >= 0.90, (found, alerts)


@pytest.mark.slow
@needs_corpus
@needs_gnubg_nn
def test_analysis_agrees_with_gnubg_on_matches_drawn_from_the_whole_corpus(tmp_path: Path) -> None:
    """Issue 60's marks on 24 matches drawn evenly from the whole corpus (not
    its first files, which the analysis was tuned on): >= 95% of gnubg's cube
    alerts that cost something reported in the same category at the same
    position, and checker errors within 0.01 in >= 99% of unforced decisions."""
    pytest.importorskip("gnubg_nn")
    every = sorted([*(CORPUS / "bglab-llabba").glob("*.txt"), *(CORPUS / "gnubg-selfplay").glob("*.mat")])
    plays, agree, alerts, found = _agreement([every[int(i * len(every) / 24)] for i in range(24)], tmp_path)
    assert plays > 2000 and agree / plays >= 0.99, (agree, plays)
    assert alerts >= 100 and found / alerts >= 0.95, (found, alerts)


# ---------------------------------------------------------------------------
# The commands

def test_eval_and_hint_take_the_stakes_from_the_position_or_the_options() -> None:
    import json

    from typer.testing import CliRunner

    from nardtools.cli import app

    runner = CliRunner()
    start = "backgammon X 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5"
    at_score = json.loads(runner.invoke(app, ["eval", f"{start}; score 3-5/7", "--format", "json"]).stdout)
    by_option = json.loads(runner.invoke(app, ["eval", start, "--score", "3-5/7", "--format", "json"]).stdout)
    assert at_score["stakes"] == by_option["stakes"] and at_score["stakes"]["units"].startswith("EMG")
    money = json.loads(runner.invoke(app, ["eval", start, "--format", "json"]).stdout)
    assert money["stakes"]["units"] == "money equity per cube"
    assert money["stakes"]["cubeful_equity"] != at_score["stakes"]["cubeful_equity"]
    # the other side owns the cube: no decision, and why
    owned = json.loads(runner.invoke(app, ["eval", start, "--cube", "2", "--owner", "O", "--format", "json"]).stdout)
    assert owned["cube"] == [] and "belongs to O" in owned["stakes"]["cube_note"]
    crawford = runner.invoke(app, ["eval", start, "--score", "6-3/7", "--crawford"])
    assert crawford.exit_code == 0 and "no double (no doubling in the Crawford game)" in crawford.stdout
    hinted = json.loads(runner.invoke(app, ["hint", start, "64", "--score", "3-5/7", "--format", "json"]).stdout)
    assert hinted["units"].startswith("EMG")
    cubeless = json.loads(runner.invoke(app, ["hint", start, "64", "--money", "--format", "json"]).stdout)
    assert cubeless["units"] == "cubeless money equity"
    for bad, said in ((["--score", "3-5"], "expected A-B/N"), (["--score", "8-5/7"], "already won"),
                      (["--owner", "Y"], "expected X, O or centre")):
        out = runner.invoke(app, ["eval", start, *bad])
        assert out.exit_code == 2 and said in out.stderr, out.stderr


def test_analyse_reports_cube_decisions_in_text_and_json(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from nardtools.cli import app

    record = EXAMPLES / "backgammon" / "gnubg-5pt-analysed.sgf"
    runner = CliRunner()
    data = json.loads(runner.invoke(app, ["analyse", str(record), "--game", "1", "--format", "json"]).stdout)
    turns = data["games"][0]["turns"]
    assert {t["kind"] for t in turns} <= {"play", "cube"} and data["units"].startswith("EMG")
    for t in turns:
        if t["kind"] == "cube":
            assert t["action"] in ("no double", "double", "take", "pass", "beaver") and t["error"] >= 0
            assert set(t) >= {"best", "mark", "alert", "proper", "no_double", "double_take", "double_pass"}
    assert {"cube_decisions", "cube_error_rate", "missed_doubles", "wrong_takes"} <= set(data["players"][0])
    # the MWC view: in a match every error also as match winning chances, a fixed share of the EMG
    plays = [t for t in turns if t["kind"] == "play" and t["error"]]
    assert plays and all(0 < t["error_mwc"] < t["error"] for t in plays)
    shown = runner.invoke(app, ["analyse", str(record), "--game", "1", "--mwc"]).stdout
    assert "errors as match winning chances lost" in shown and "%" in shown
    text = runner.invoke(app, ["analyse", str(record), "--game", "1"]).stdout
    assert text.startswith("Equities: EMG") and "cube rate" in text
    money = json.loads(runner.invoke(app, ["analyse", str(record), "--game", "1", "--money", "--format",
                                           "json"]).stdout)
    assert money["units"] == "cubeless money equity" and all(t["kind"] == "play" for t in money["games"][0]["turns"])
    both = runner.invoke(app, ["analyse", str(record), "--money", "--met", str(record)])
    assert both.exit_code == 2 and "exclude each other" in both.stderr


def test_long_met_with_the_cube_is_symmetric_monotone_and_plays_the_crawford_game_without_it() -> None:
    from nardtools.outcome import OutcomeKind, points_for

    rules = find_ruleset("play65-long").rules
    assert rules.cube and rules.has_crawford_game
    met = long_met(rules)
    assert "with the cube" in met.name
    for a in range(1, 16):
        for b in range(1, 16):
            assert met.equity(a, b) + met.equity(b, a) == pytest.approx(1.0, abs=1e-12)
            if a > 1:
                assert met.equity(a, b) < met.equity(a - 1, b)
    # the Crawford game, worked out from the post-Crawford entries: no cube, so the leader
    # (1 away) wins the match with any win, and the trailer's wins of each kind move it on
    from nardtools.analysis.met import outcome_shares

    shares = outcome_shares(rules)
    for b in (2, 3, 5, 7):
        trailer = shares.at(1, b)[1]  # how the trailer's wins end at this score
        leader = 0.5
        for k, share in zip(KINDS, trailer):
            left = b - points_for(OutcomeKind(k), rules)
            leader += 0.5 * share * (0.0 if left <= 0 else 1 - met.post[left - 1])
        assert met.equity(1, b) == pytest.approx(leader, abs=1e-12)
    # the cube is worth something: the trailer's chances exceed the cubeless table's far from the end
    assert met.equity(7, 3) > long_met(find_ruleset("long").rules).equity(7, 3)


def test_a_long_nardy_match_analysed_at_four_all_counts_winning_chances_only() -> None:
    """Issue 24: a real record's game played at 4-4 in a match to 5: every
    play's equity in the analysis is 2 P(win) - 1 of its result (EMG at a
    score where a mars wins no more than an oin)."""
    import re

    from nardtools.analysis.evaluate import Evaluator, ranked_plays
    from nardtools.notation.native import export_native

    match = replay_match(read_record(EXAMPLES / "long-nardy" / "long-5pt-seed1.mat"))
    text = re.sub(r'\[Score "0-0"\]', '[Score "4-4"]', export_native(match, games={1}), count=1)
    at_four = replay_match(read_record("g.nrd", text))
    assert at_four.games[0].game.score == (4, 4) and at_four.record.length == 5
    analysis = analyse_match(at_four, games={1})
    ev = Evaluator(LONG)
    checked = 0
    for t in analysis.games[1]:
        turn = at_four.games[0].turns[t.index]
        cubeless = ranked_plays(ev, turn.before, turn.dice, first_turn=turn.first_turn)
        made = next(r for r in cubeless if r.result == turn.after)
        assert t.equity == pytest.approx(2 * made.evaluation.probabilities["win"] - 1, abs=2e-6)
        checked += 1
    assert checked > 20


def test_cube_efficiency_sees_contact_as_the_race_rule_does(long_turns, backgammon_turns) -> None:  # type: ignore[no-untyped-def]
    from nardtools.analysis.cubeful import CONTACT_X
    from nardtools.analysis.pips import is_race
    from nardtools.analysis.rows import boards_of

    for name, turns in (("play65-long", long_turns), ("backgammon", backgammon_turns)):
        valuer = Valuer(find_ruleset(name).rules)
        positions = [t.position for t in turns if not t.position.is_finished()]
        x = valuer.efficiency(boards_of(positions))
        assert [v == CONTACT_X for v in x] == [not is_race(p) for p in positions], name
        assert min(x) >= 0.6 and max(x) <= 0.7  # gnubg's race efficiency: at most 0.7
