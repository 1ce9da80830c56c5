"""The evaluator: encoding, probabilities, exact positions, look-ahead, hint,
training and the commands (nardtools/analysis/nets.py, evaluate.py,
selfplay.py, training.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from nardtools import Position, Roll, find_ruleset
from nardtools.analysis.encodings import INPUTS, block_features, contact_features, encode
from nardtools.analysis.evaluate import Evaluator, evaluate, hint
from nardtools.analysis.nets import Network
from nardtools.analysis.probabilities import CLASSES, consistent, equity, flip
from nardtools.analysis.race import race_odds
from nardtools.analysis.rows import boards_of
from nardtools.analysis.selfplay import (
    HeuristicPlayer,
    NetPlayer,
    RandomPlayer,
    play_game,
    series,
)
from nardtools.analysis.training import Settings, Trainer
from nardtools.cli import app
from nardtools.errors import AnalysisError


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    """Small random networks of both games, as weights files."""
    folder = tmp_path_factory.mktemp("nets")
    paths = {}
    for game in CLASSES:
        paths[game] = str(folder / f"{game}.npz")
        Network.random(game, 16, seed=3).save(folder / f"{game}.npz")
    return paths


def _positions(game: str, games: int = 3) -> list[np.ndarray]:
    seen: list[np.ndarray] = []
    ruleset = find_ruleset(game)
    for seed in range(games):
        play_game(ruleset, RandomPlayer(seed), RandomPlayer(seed + 100), seed,
                  on_turn=lambda board, rows, chosen: seen.append(board.copy()))
    return seen


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_swapping_the_sides_swaps_the_inputs(game):
    rows = np.array(_positions(game))
    swapped = np.concatenate([rows[:, 26:], rows[:, :26]], axis=1)
    x, y = encode(rows), encode(swapped)
    halves = [slice(0, 96), slice(96, 192)]
    assert np.array_equal(x[:, halves[0]], y[:, halves[1]]) and np.array_equal(x[:, halves[1]], y[:, halves[0]])
    for a, b in ((192, 193), (194, 195), (196, 197)):  # bar, off, pips
        assert np.array_equal(x[:, a], y[:, b]) and np.array_equal(x[:, b], y[:, a])
    # checker counts survive the encoding: units and off give back 15 a side
    units = x[:, :192].reshape(len(x), 2, 24, 4)
    counts = units[..., 0] + units[..., 1] + units[..., 2] + 2 * units[..., 3]
    assert np.allclose(counts.sum(axis=2) + 2 * x[:, 192:194] + 15 * x[:, 194:196], 15)


probability = st.floats(0.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(CLASSES)), st.lists(probability, min_size=7, max_size=7))
def test_probabilities_are_consistent_and_flip_symmetric(game, raw):
    p = consistent(np.array(raw[:len(CLASSES[game])]), game)
    assert 0.0 <= p[0] <= 1.0
    if game == "backgammon":
        assert p[2] <= p[1] <= p[0] and p[4] <= p[3] <= 1 - p[0] + 1e-12
    else:
        assert p[2] + p[3] <= p[1] + 1e-12 and p[1] <= p[0] and p[5] + p[6] <= p[4] + 1e-12 and p[4] <= 1 - p[0] + 1e-12
    assert np.allclose(flip(flip(p, game), game), p)
    for name in ("backgammon", "nardionline") if game == "backgammon" else ("long", "nardionline", "wikipedia-long-old"):
        rules = find_ruleset(name).rules
        if rules.is_long == (game == "long"):
            assert equity(flip(p, game), game, rules) == pytest.approx(-equity(p, game, rules), abs=1e-9)


@pytest.mark.parametrize("mover, opponent, game, kind, points", [
    ({}, {1: 15}, "long", "win_home_mars", 2),          # none off, all home: home mars (classic: 2)
    ({}, {1: 14, 20: 1}, "long", "win_koks", 2),        # a checker in the start quarter: koks (classic: a mars)
    ({}, {1: 3}, "long", "win", 1),                     # the loser bore off: oin
    ({}, {6: 15}, "backgammon", "win_gammon", 2),
    ({}, {19: 1, 6: 14}, "backgammon", "win_backgammon", 3),
])
def test_finished_games_are_exact(mover, opponent, game, kind, points):
    e = evaluate(Position.from_points(game, mover, opponent))
    assert e.evaluator == "terminal" and e.probabilities[kind] == 1.0 and e.equity == points
    lost = evaluate(Position.from_points(game, opponent, mover))
    assert lost.equity == -points and lost.probabilities["win"] == 0.0


@pytest.mark.parametrize("text", ["backgammon X 3:1,2:1 / 6:2", "backgammon X 6:3,5:4,3:2 / 6:4,4:4,2:2",
                                  "long X 6:3,2:2 / 5:4,1:1"])
def test_races_in_the_database_are_the_databases_odds(text):
    position = Position.parse(text)
    e = evaluate(position)
    odds = race_odds(position)
    assert e.evaluator.startswith("bear-off database") and e.ply == 0
    assert e.probabilities["win"] == pytest.approx(odds.p_win, abs=1e-6)


def test_look_ahead_averages_the_rolls(weights):
    """1-ply by hand: for each of the 21 rolls, the best result at 0-ply, flipped."""
    from nardtools.analysis.evaluate import Evaluator
    from nardtools.analysis.selfplay import successors
    from nardtools.dice import ALL_ROLLS

    position = Position.parse("backgammon X 13:5,8:3,6:5,24:2 / 13:4,8:3,6:5,24:2,20:1")
    rules = find_ruleset("backgammon").rules
    ev = Evaluator(rules, weights=weights["backgammon"])
    total = np.zeros(5)
    for roll in ALL_ROLLS:
        rows = successors(rules, boards_of([position])[0], roll.dice)
        p, _ = ev.static(rows)
        total += roll.weight / 36 * flip(p[int(np.argmin(equity(p, "backgammon", rules)))], "backgammon")
    one = evaluate(position, ply=1, weights=weights["backgammon"])
    assert np.allclose(list(one.probabilities.values()), total, atol=1e-6)
    assert one.ply == 1 and "1-ply" in one.evaluator


def test_hint_puts_the_winning_play_first(weights):
    position = Position.from_points("backgammon", {6: 1, 1: 1}, {6: 15})
    ranked = hint(position, Roll(6, 1), weights=weights["backgammon"])
    assert str(ranked[0].play) == "6/off 1/off" and ranked[0].equity == 2.0 and ranked[0].loss == 0.0
    assert all(r.loss >= 0 for r in ranked) and [r.equity for r in ranked] == sorted((r.equity for r in ranked),
                                                                                      reverse=True)
    deeper = hint(Position.start("long"), Roll(5, 3), weights=weights["long"], ply=1)
    assert {r.evaluation.ply for r in deeper} <= {0, 1} and deeper[0].evaluation.ply == 1


def test_rules_the_network_did_not_learn_are_refused_or_labelled(weights):
    with pytest.raises(AnalysisError, match="remainder"):
        evaluate(Position.start("long"), "gulbara", weights=weights["long"])
    with pytest.raises(AnalysisError, match="hypergammon"):
        evaluate(Position.start("hypergammon"), "hypergammon", weights=weights["backgammon"])
    labelled = evaluate(Position.start("long"), "long-classic", weights=weights["long"])
    assert "these rules differ: head='doubles-list'" in labelled.evaluator


def test_weights_files_are_checked(tmp_path):
    with pytest.raises(AnalysisError, match="no such weights file"):
        Network.load(tmp_path / "none.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip at all")
    with pytest.raises(AnalysisError, match=r"junk\.npz: not a nardtools weights file"):
        Network.load(tmp_path / "junk.npz")
    net = Network.random("long", 8, 1)
    broken = Network("long", net.w1[:10], net.b1, net.w2, net.b2, net.meta)
    broken.save(tmp_path / "shape.npz")
    with pytest.raises(AnalysisError, match="shapes"):
        Network.load(tmp_path / "shape.npz")
    net.w2[0, 0] = np.nan
    net.save(tmp_path / "nan.npz")
    with pytest.raises(AnalysisError, match="NaN"):
        Network.load(tmp_path / "nan.npz")
    result = CliRunner().invoke(app, ["eval", "start", "--weights", str(tmp_path / "junk.npz")])
    assert result.exit_code == 2 and "junk.npz" in result.output and "Traceback" not in result.output


def test_training_learns_and_resumes_to_the_same_weights(tmp_path):
    settings_ = Settings("long", hidden=8, rate=0.01, seed=5, checkpoint=2, measure=1000)
    straight = Trainer(settings_)
    straight.run(4, tmp_path / "a")
    halves = Trainer(settings_)
    halves.run(2, tmp_path / "b")
    again = Trainer.resume(tmp_path / "b")
    again.run(4, tmp_path / "b")
    assert again.games == 4
    for name in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(getattr(straight.net, name), getattr(again.net, name)), name
    # one update on a game's positions moves the outputs towards their targets
    learner = Trainer(Settings("long", hidden=8, seed=6))
    x = encode(np.array(_positions("long", 1)))
    target = np.zeros((len(x), 7), np.float32)
    before = float(((learner.net(x) - target) ** 2).mean())
    for _ in range(5):
        learner._update(x, target)
    assert float(((learner.net(x) - target) ** 2).mean()) < before


def test_weights_of_inputs_this_version_does_not_encode_are_refused(tmp_path):
    """A network's encoding is in its metadata: one this nardtools does not
    know, or a race network that claims another, is refused by name."""
    net = Network.random("backgammon", 8, seed=1, encoding="contact")
    for encoding in ("bogus", "board"):   # "board" with contact weights: the shapes do not fit
        Network(net.game, net.w1, net.b1, net.w2, net.b2, {**net.meta, "encoding": encoding}).save(tmp_path / "x.npz")
        with pytest.raises(AnalysisError, match=r"x\.npz"):
            Network.load(tmp_path / "x.npz")
    race = Network.random("backgammon", 8, seed=1, race_points=6)
    Network(race.game, race.w1, race.b1, race.w2, race.b2, {**race.meta, "encoding": "contact"}).save(tmp_path / "r.npz")
    with pytest.raises(AnalysisError, match="does not encode"):
        Network.load(tmp_path / "r.npz")


@pytest.mark.parametrize(("game", "encoding"), [("backgammon", "contact"), ("long", "blocks")])
def test_td_training_goes_on_from_the_shipped_networks_inputs(game, encoding, tmp_path):
    """The shipped weights are a checkpoint (docs/analysis.md): TD(lambda)
    resumed from backgammon's, a network of contact inputs, or Long Nardy's,
    of block inputs, plays and learns through those inputs."""
    import shutil

    from nardtools.analysis.nets import WEIGHTS_DIR

    shutil.copy(WEIGHTS_DIR / f"{game}.npz", tmp_path / "checkpoint.npz")
    trainer = Trainer.resume(tmp_path)
    assert trainer.net.encoding == encoding
    before = trainer.net.w1.copy()
    trainer.run(trainer.games + 2, tmp_path)
    after = Network.load(tmp_path / "checkpoint.npz")
    assert after.encoding == encoding and after.meta["games"] == trainer.games
    assert not np.array_equal(before[INPUTS:], after.w1[INPUTS:])   # the added inputs' weights learn too


def test_training_takes_a_database_race_target_from_the_database():
    """With ``database``, a chosen position that is a race inside the bear-off
    database gets the database's odds (seen from the side that played) as its
    target, not the network's guess; without it, the network's."""
    from nardtools.analysis.evaluate import database_odds
    from nardtools.analysis.probabilities import flip
    from nardtools.analysis.selfplay import NetPlayer
    from nardtools.analysis.training import _Learner

    ruleset = find_ruleset("backgammon")
    race = Position.parse("backgammon X 6:3,5:3,4:3,3:2,2:2,1:2 / 6:4,5:3,4:3,3:2,2:2,1:1")
    rows = np.array([list(race.mover) + list(race.opponent)])
    exact = database_odds(ruleset.rules, rows[0])
    assert exact is not None and "bear-off database" in exact[1]
    net = Trainer(Settings("backgammon", hidden=8, seed=3)).net
    for database, expected in ((True, flip(exact[0], "backgammon")),
                               (False, flip(NetPlayer(net, ruleset).values(rows)[0], "backgammon"))):
        learner = _Learner(NetPlayer(net, ruleset), encode(rows)[0], database)
        learner.choose(rows)
        assert np.allclose(learner.targets[-1], expected), database


def test_the_heuristic_player_beats_a_random_one():
    result = series(find_ruleset("long"), HeuristicPlayer(), RandomPlayer(1), 20, seed=2)
    assert result.win_rate >= 0.8 and result.points_per_game > 0.8


def test_a_net_player_plays_legal_games(weights):
    net = Network.load(__import__("pathlib").Path(weights["long"]))
    result = play_game(find_ruleset("long"), NetPlayer(net, find_ruleset("long")), RandomPlayer(4), seed=9)
    assert result.points >= 1 and result.turns > 20


def test_eval_and_hint_json_shapes(weights):
    runner = CliRunner()
    out = runner.invoke(app, ["eval", "start", "--weights", weights["backgammon"], "--format", "json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert set(report) == {"position", "ruleset", "probabilities", "equity", "evaluator", "ply", "stakes", "cube",
                           "game_over"}
    assert list(report["probabilities"]) == list(CLASSES["backgammon"]) and report["cube"][0]["proper"]
    assert report["stakes"]["units"] == "money equity per cube"
    out = runner.invoke(app, ["hint", "start", "31", "--weights", weights["backgammon"], "--format", "json",
                              "--top", "3"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["count"] == 16 and len(report["plays"]) == 3
    assert set(report["plays"][0]) == {"play", "result", "equity", "loss", "ply", "evaluator", "probabilities"}
    for args in (["eval", "start", "--ply", "3"], ["hint", "start", "77"], ["eval", "start", "-r", "gulbara"],
                 ["eval", "start", "--evaluator", "nonsense", "--weights", weights["backgammon"]]):
        bad = runner.invoke(app, args)
        assert bad.exit_code == 2 and "Traceback" not in bad.output, (args, bad.output)


def test_analyse_marks_a_planted_blunder(tmp_path):
    """A race position (exact: terminal and database values, whatever the
    network) in which alice leaves a checker behind instead of winning a
    gammon at once: O saves the gammon with 17 of 36 rolls, so the play
    loses 17/36 of a point."""
    record = tmp_path / "blunder.nrd"
    record.write_text('[Game "backgammon"]\n[X "alice"]\n[O "bob"]\n\n'
                      '= "backgammon X 6:1,1:1 / 6:15"\nX 61: 6/5/off\n')
    out = CliRunner().invoke(app, ["analyse", str(record), "--format", "json", "-o", str(tmp_path / "a.nrd")])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    turn = report["games"][0]["turns"][0]
    assert set(turn) >= {"turn", "player", "dice", "play", "best", "error", "luck", "mark"}
    assert (turn["player"], turn["best"], turn["mark"]) == ("alice", "6/off 1/off", "blunder")
    assert turn["error"] == pytest.approx(17 / 36, abs=1e-6)
    alice = report["players"][0]
    assert set(alice) >= {"player", "decisions", "error_rate", "errors", "blunders", "luck"}
    assert (alice["decisions"], alice["blunders"]) == (1, 1)
    annotated = (tmp_path / "a.nrd").read_text()
    assert "6/5/off ?? {best 6/off 1/off +2.000; played +1.528, lost 0.472}" in annotated
    from nardtools.notation.native import read_native

    again = read_native(annotated)
    assert again.games[0].actions[-1].glyphs == ("??",)


def test_a_rollout_truncated_at_one_play_is_the_1_ply_evaluation(weights):
    """36 games whose first rolls are stratified, stopped after one play, are
    exactly the 1-ply average over the 36 rolls."""
    from nardtools.analysis.rollout import rollout

    position = Position.parse("long X 24:9,22:2,19:2,16:1,13:1 / 24:8,20:3,17:2,14:2")
    one = evaluate(position, ply=1, weights=weights["long"])
    rolled = rollout(position, games=36, truncate=1, weights=weights["long"])
    assert rolled.evaluation.probabilities == pytest.approx(one.probabilities, abs=2e-6)
    assert rolled.evaluation.equity == pytest.approx(one.equity, abs=1e-5) and rolled.standard_error > 0
    won = rollout(Position.from_points("long", {1: 1}, {1: 1}), games=10, weights=weights["long"])
    assert won.evaluation.probabilities["win"] == 1.0 and won.standard_error == 0.0
    out = CliRunner().invoke(app, ["eval", "start", "-r", "long", "--rollout", "36", "--truncate", "2",
                                   "--weights", weights["long"], "--format", "json"])
    assert out.exit_code == 0, out.output
    assert {"games", "standard_error"} <= set(json.loads(out.output))


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_a_luckless_play_out_has_the_plain_ones_mean_and_far_less_spread(game):
    """Each roll's luck taken out (the shipped networks, whose judgement
    sees the luck): a game stopped after one play is the
    1-ply value whatever the roll (the luck given back is all the roll
    brought); longer games average what the plain play-outs average, on the
    same plays (no screen: the plain game's best is the luckless game's),
    with a fraction of their spread.  A finished game is refused."""
    from nardtools.analysis.rollout import play_out, play_out_luckless
    from nardtools.analysis.searchnet import collect

    ev = Evaluator(find_ruleset(game).rules, prune=False)
    rows = collect(game, 1, seed=4)[5:60:11]
    rng = np.random.default_rng(1)
    for dice in (np.array([[1, 1]]), np.array([[6, 5]]), rng.integers(1, 7, (len(rows), 2))):
        every = np.broadcast_to(dice, (len(rows), 2))
        one = play_out_luckless(ev, rows, lambda _turn, every=every: every, truncate=1)
        assert np.abs(one - ev.values(rows, 1)).max() < 1e-9
    start, games = rows[:1], 400
    boards = np.repeat(start, games, axis=0)
    plain_dice, luck_dice = np.random.default_rng(2), np.random.default_rng(3)
    plain = equity(play_out(ev, boards, lambda _t: plain_dice.integers(1, 7, (games, 2)), truncate=6), game, ev.rules)
    luckless = equity(play_out_luckless(ev, boards, lambda _t: luck_dice.integers(1, 7, (games, 2)), truncate=6),
                      game, ev.rules)
    assert luckless.std() < plain.std() / 2
    error = np.hypot(plain.std(), luckless.std()) / np.sqrt(games)
    assert abs(plain.mean() - luckless.mean()) < 4 * error
    ended = boards_of([Position.from_points(game, {1: 1}, {1: 1})])
    ended[0, 1:26] = 0  # the side on roll has borne off its last checker
    with pytest.raises(AnalysisError, match="has ended"):
        play_out_luckless(ev, ended, lambda _t: np.array([[1, 2]]))


def test_a_luckless_rollout_is_named_and_tighter():
    """``rollout(luckless=True)`` (``eval --rollout N --luckless``, the
    shipped network): its label says so, one play is still the 1-ply, and
    its standard error is a fraction of the plain rollout's."""
    from nardtools.analysis.rollout import rollout

    position = Position.parse("long X 24:9,22:2,19:2,16:1,13:1 / 24:8,20:3,17:2,14:2")
    one = evaluate(position, ply=1)
    first = rollout(position, games=36, truncate=1, luckless=True)
    assert first.evaluation.equity == pytest.approx(one.equity, abs=1e-5) and first.standard_error < 1e-9
    plain = rollout(position, games=72, truncate=8)
    luckless = rollout(position, games=72, truncate=8, luckless=True)
    assert luckless.evaluation.evaluator.startswith("luckless rollout of 72 games, truncated at 8 plays")
    assert luckless.standard_error < plain.standard_error / 1.5
    assert abs(luckless.evaluation.equity - plain.evaluation.equity) < 4 * plain.standard_error
    out = CliRunner().invoke(app, ["eval", "start", "-r", "long", "--rollout", "36", "--truncate", "2", "--luckless",
                                   "--format", "json"])
    assert out.exit_code == 0 and json.loads(out.output)["evaluator"].startswith("luckless rollout"), out.output
    for flag in (["--luckless"], ["--truncate", "3"]):
        refused = CliRunner().invoke(app, ["eval", "start", "-r", "long", *flag])
        assert refused.exit_code != 0 and "give --rollout too" in refused.output, refused.output


def test_the_replay_shows_the_analysis(tmp_path):
    record = tmp_path / "blunder.nrd"
    record.write_text('[Game "backgammon"]\n[X "alice"]\n[O "bob"]\n\n'
                      '= "backgammon X 6:1,1:1 / 6:15"\nX 61: 6/5/off\n')
    page = tmp_path / "r.html"
    out = CliRunner().invoke(app, ["replay", str(record), "--analyse", "-o", str(page)])
    assert out.exit_code == 0, out.output
    data = json.loads(page.read_text().split('type="application/json">')[1].split("</script>")[0])
    last = data["games"][0]["frames"][-1]
    assert last["glyphs"] == ["??"] and last["analysis"]["mark"] == "blunder"
    assert any(line.startswith("Best play 6/off 1/off (+2.000)") for line in last["lines"])
    shown = CliRunner().invoke(app, ["replay", str(record), "--analyse", "--tui"], input="\n\n\n")
    assert "error 0.472 — blunder" in shown.output


def test_stats_analyse_adds_the_evaluators_columns(tmp_path):
    from nardtools.analysis.stats import collect

    record = tmp_path / "blunder.nrd"
    record.write_text('[Game "backgammon"]\n[X "alice"]\n[O "bob"]\n\n'
                      '= "backgammon X 6:1,1:1 / 6:15"\nX 61: 6/5/off\n')
    archive = collect([record], turns=True, analyse=0)
    turns = archive.frame("turns")
    assert turns.loc[0, "mark"] == "blunder" and turns.loc[0, "error"] == pytest.approx(17 / 36, abs=1e-6)
    players = archive.frame("players").set_index("player")
    assert players.loc["alice", "blunders"] == 1 and players.loc["alice", "decisions"] == 1
    plain = collect([record], turns=True).frame("turns")
    assert plain["error"].isna().all() and plain["mark"].isna().all()


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_the_shipped_networks_load_and_beat_a_random_player(game):
    from nardtools.analysis.evaluate import load_network

    net = load_network(game)
    assert net.game == game and net.meta["games"] >= 1000 and net.meta["commands"]
    result = series(find_ruleset(game), NetPlayer(net, find_ruleset(game)), RandomPlayer(3), 20, seed=4)
    assert result.win_rate >= 0.8, result


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_the_results_of_every_roll_are_the_reference_engines(game):
    """The core's batch (roll_successors, successors) against the readable
    reference's legal plays, position by position and roll by roll."""
    from nardtools.analysis.selfplay import roll_successors
    from nardtools.dice import ALL_ROLLS
    from nardtools.engine import legal_plays, reference_engine
    from nardtools.position import GameKind

    rules = find_ruleset(game).rules
    boards = np.array(_positions(game, 1)[::7])
    after, counts = roll_successors(rules, boards)
    assert counts.shape == (len(boards), 21) and counts.sum() == len(after)
    start = 0
    kind = GameKind.LONG if game == "long" else GameKind.BACKGAMMON
    with reference_engine():
        for board, row in zip(boards, counts):
            position = Position._trusted(kind, tuple(int(v) for v in board[:26]), tuple(int(v) for v in board[26:]), 0)
            for roll, n in zip(ALL_ROLLS, row):
                expected = [tuple(lp.result.mover) + tuple(lp.result.opponent) for lp in legal_plays(position, roll, rules)]
                assert [tuple(int(v) for v in r) for r in after[start:start + n]] == expected
                start += n


@pytest.mark.parametrize("game", ["long", "backgammon"])
@pytest.mark.parametrize("kind", ["main", "race", "prune"])
def test_the_compiled_forward_pass_is_numpys(game, kind):
    """The core's networks (csrc/net.c) against the numpy reference, within
    1e-6, on self-play positions and every result of their rolls, for the
    shipped main, race and pruning networks and a wider random one (256 units)."""
    from nardtools.analysis.evaluate import load_network, load_prune_network, load_race_network
    from nardtools.analysis.selfplay import roll_successors
    from nardtools.core import CORE, reference_engine

    if CORE is None:
        pytest.skip("the compiled core is not built")
    shipped = {"main": load_network, "race": load_race_network, "prune": load_prune_network}[kind](game)
    assert shipped is not None
    wide = Network.random(game, 256, seed=5, race_points=6 if kind == "race" else 0)
    boards = np.array(_positions(game, 2))
    rows = np.concatenate([boards, roll_successors(find_ruleset(game).rules, boards[::5])[0]])
    for net in (shipped, wide):
        compiled = net.outputs(rows)
        with reference_engine():
            reference = net.outputs(rows)
        assert compiled.shape == reference.shape == (len(rows), len(CLASSES[game]))
        assert np.abs(compiled - reference).max() <= 1e-6
        assert np.array_equal(net.probabilities(rows[:1]), consistent(compiled[:1], game))


def _feature_reader(game: str) -> Network:
    """A contact network whose outputs are its contact features (through
    two sigmoids): the board's inputs weigh nothing, feature k of the first
    outputs goes straight to output k, so a feature the core reckons
    otherwise than numpy (by a 36th) shows."""
    net = Network.random(game, 8, seed=1, encoding="contact")
    net.w1[:] = 0
    net.w1[INPUTS:INPUTS + 8] = 4 * np.eye(8, dtype=np.float32)
    net.b1[:] = 0
    net.w2[:] = 0
    k = len(CLASSES[game])
    net.w2[:k, :k] = 4 * np.eye(k, dtype=np.float32)
    net.b2[:] = 0
    return net


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_the_compiled_contact_features_are_numpys(game):
    """The contact features (encodings.contact_features) in csrc/net.c against
    numpy's, within 1e-6, on self-play positions and every result of their
    rolls, through a network that shows them and a wide random one."""
    from nardtools.analysis.selfplay import roll_successors
    from nardtools.core import CORE, reference_engine

    if CORE is None:
        pytest.skip("the compiled core is not built")
    boards = np.array(_positions(game, 2))
    rows = np.concatenate([boards, roll_successors(find_ruleset(game).rules, boards[::5])[0]])
    features = contact_features(rows, game)
    assert (features[:, 0] > 0).any() == (game == "backgammon") and (features[:, 1] >= 2 / 6).any()
    for net in (_feature_reader(game), Network.random(game, 256, seed=5, encoding="contact")):
        with reference_engine():
            reference = net.outputs(rows)
        assert np.abs(net.outputs(rows) - reference).max() <= 1e-6


def _long_board(mine: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """A Long Nardy board row: the side on roll's checkers, then the other
    side's, each by point in its own numbering."""
    board = np.zeros((1, 52), np.int8)
    for p, n in mine.items():
        board[0, p] = n
    for q, n in theirs.items():
        board[0, 26 + q] = n
    return board


_BLOCK_UNITS = np.array([6, 15, 90, 15, 15, 6, 15, 15] * 2)


def test_block_features_of_a_shut_in_side():
    """Derived by hand: the side on roll holds five points of the other's
    home (its 13-17, the other's 1-5), where the other has ten checkers on
    its 6 and five on its 8.  The other's six points ahead of its 6 hold five
    of the side on roll's, of its 8 four: 10 x 5 + 5 x 4 = 70 held ahead,
    all fifteen hemmed in, the ten shut in; its 3s, 4s, 5s and 6s land only on
    held points (its 8 is not home, so nothing bears off); all fifteen are
    above a 4-block and a 5-block.  The side on roll has nothing in front of it."""
    board = _long_board({13: 3, 14: 3, 15: 3, 16: 3, 17: 3}, {6: 10, 8: 5})
    assert (block_features(board) * _BLOCK_UNITS).round().tolist() == [
        [0, 0, 0, 0, 0, 0, 0, 0, 5, 15, 70, 15, 10, 4, 15, 15]]


def test_block_features_of_a_bear_off():
    """A side all home may take a die off the board: fifteen on its 6 with
    the other side on its 1-5 (the other's 13-17) move only with 6s, five of
    the six die values dead; on its 1 and 2 against nothing, none dead."""
    shut = _long_board({6: 15}, {13: 3, 14: 3, 15: 3, 16: 3, 17: 3})
    assert (block_features(shut) * _BLOCK_UNITS)[0, :8].round().tolist() == [5, 15, 75, 15, 15, 5, 15, 15]
    free = _long_board({1: 8, 2: 7}, {24: 15})
    assert (block_features(free) * _BLOCK_UNITS)[0, :8].round().tolist() == [0, 0, 0, 0, 0, 0, 0, 0]


def _block_reader() -> Network:
    """A Long Nardy blocks network whose hidden units are its sixteen block
    features (through a sigmoid) and nothing else."""
    net = Network.random("long", 16, seed=1, encoding="blocks")
    net.w1[:] = 0
    net.w1[INPUTS:] = 4 * np.eye(16, dtype=np.float32)
    net.b1[:] = 0
    return net


def test_the_compiled_block_features_are_numpys():
    """The block features (encodings.block_features) in csrc/net.c against
    numpy's, within 1e-6, on self-play positions and every result of their
    rolls, through a network that reads only them and a wide random one."""
    from nardtools.analysis.selfplay import roll_successors
    from nardtools.core import CORE, reference_engine

    if CORE is None:
        pytest.skip("the compiled core is not built")
    boards = np.array(_positions("long", 2))
    rows = np.concatenate([boards, roll_successors(find_ruleset("long").rules, boards[::5])[0]])
    features = block_features(rows)
    assert all((features[:, k] > 0).any() for k in range(16))   # every feature seen
    for net in (_block_reader(), Network.random("long", 256, seed=5, encoding="blocks")):
        with reference_engine():
            reference = net.outputs(rows)
        assert np.abs(net.outputs(rows) - reference).max() <= 1e-6


def test_shots_are_the_published_table():
    """A lone checker's shots at a blot 1 to 12 pips away with nothing in
    between: the counts every backgammon book gives (11 12 14 15 15 17 6 6
    5 3 2 3), then what a point in between and checkers on the bar change."""
    def shots(distance, hitter=13, block=0, bar=0):
        board = np.zeros((1, 52), np.int8)    # the side on roll's blot, the other side's hitter (its numbering)
        board[0, 25 - (hitter - distance)] = 1
        board[0, 26 + hitter] = 1 if hitter < 25 else bar
        if block:
            board[0, 25 - (hitter - block)] = 2   # a point of the side on roll's, `block` pips in front
        return round(float(contact_features(board, "backgammon")[0, 0]) * 36)

    assert [shots(d) for d in range(1, 13)] == [11, 12, 14, 15, 15, 17, 6, 6, 5, 3, 2, 3]
    assert [shots(6, block=j) for j in (1, 2, 3, 4, 5)] == [17, 16, 16, 16, 17]  # 33 or 22 cannot pass
    # from the bar, four away: 15 with one there; with more, no 31, and a double's steps go to entering
    assert [shots(4, hitter=25, bar=n) for n in (1, 2, 3, 4)] == [15, 12, 12, 11]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-128, 127), min_size=52, max_size=52), st.sampled_from(["long", "backgammon"]))
def test_the_compiled_forward_pass_reads_any_board_as_numpy_does(board, game):
    """Any int8 counts, however unlike a position (negative, more than 15):
    the same encoding, the same outputs."""
    from nardtools.core import CORE, reference_engine

    if CORE is None:
        return
    rows = np.array([board], np.int8)
    for net in (Network.random(game, 24, seed=2), Network.random(game, 24, seed=2, race_points=8),
                Network.random(game, 24, seed=2, encoding="contact"), _feature_reader(game),
                *([_block_reader()] if game == "long" else [])):
        with reference_engine():
            reference = net.outputs(rows)
        assert np.abs(net.outputs(rows) - reference).max() <= 1e-5


def test_the_compiled_forward_pass_checks_its_arguments():
    from nardtools.core import CORE

    if CORE is None:
        pytest.skip("the compiled core is not built")
    net = Network.random("backgammon", 8, seed=1)
    w2, b2 = np.zeros((8, 8), np.float32), np.zeros(8, np.float32)
    rows, out = np.zeros((2, 52), np.int8), np.zeros((2, 5), np.float32)
    CORE.net_forward(0, 8, 5, net.w1, net.b1, w2, b2, rows, out)
    with pytest.raises(ValueError, match="encoding"):
        CORE.net_forward(5, 8, 5, net.w1, net.b1, w2, b2, rows, out)   # (0-4 are csrc/net.h's encodings)
    with pytest.raises(ValueError, match="w1 has the wrong size"):   # a board network's weights, contact inputs
        CORE.net_forward(2, 8, 5, net.w1, net.b1, w2, b2, rows, out)
    with pytest.raises(ValueError, match="w1 has the wrong size"):
        CORE.net_forward(0, 9, 5, net.w1, net.b1, np.zeros((9, 8), np.float32), b2, rows, out)
    with pytest.raises(ValueError, match="out has the wrong size"):
        CORE.net_forward(0, 8, 5, net.w1, net.b1, w2, b2, rows, np.zeros((3, 5), np.float32))
    with pytest.raises(BufferError):
        CORE.net_forward(0, 8, 5, net.w1, net.b1, w2, b2, rows, out.tobytes())  # read-only
    with pytest.raises(ValueError, match="boards has the wrong size"):
        CORE.net_forward(0, 8, 5, net.w1, net.b1, w2, b2, np.zeros(51, np.int8), out)
    table = np.zeros((768, 8), np.float32)
    CORE.net_table(0, 8, 5, net.w1, net.b1, w2, b2, table)
    with pytest.raises(ValueError, match="the table is 768 x hidden"):
        CORE.net_forward(0, 8, 5, net.w1, net.b1, w2, b2, rows, out, table[:-1])
    with pytest.raises(ValueError, match="the table is 768 x hidden"):
        CORE.net_table(0, 8, 5, net.w1, net.b1, w2, b2, np.zeros((768, 9), np.float32))


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_a_forward_pass_split_over_threads_gives_the_same_outputs(game):
    """A large batch (here 5,000 boards and more) split over 2, 3 or 16
    threads, with the shipped network's table and with a writable network's
    made for the call, gives one thread's outputs bit for bit, and so do
    the rolls' results of many boards (roll_successors); a pool's worker
    keeps to one thread; the count is checked where it enters."""
    from nardtools.analysis.evaluate import load_network
    from nardtools.analysis.selfplay import roll_successors
    from nardtools.core import CORE, MOST_THREADS, forward_threads, single_threaded

    if CORE is None:
        pytest.skip("the compiled core is not built")
    assert MOST_THREADS == 16   # the core's own limit, as NARDTOOLS_THREADS documents it
    boards = np.array(_positions(game, 2))
    rows = np.concatenate([boards, roll_successors(find_ruleset(game).rules, boards)[0]])
    assert len(rows) >= 5_000
    shipped = load_network(game)
    writable = Network(game, shipped.w1.copy(), shipped.b1.copy(), shipped.w2.copy(), shipped.b2.copy(),
                       dict(shipped.meta))
    rules = find_ruleset(game).rules
    before = forward_threads(1)
    try:
        alone = [net.outputs(rows) for net in (shipped, writable)]
        assert np.array_equal(alone[0], alone[1])
        successors = roll_successors(rules, rows[:300])
        for n in (2, 3, 16):
            assert forward_threads(n) in (1, 2, 3)
            for net, expected in zip((shipped, writable), alone):
                assert np.array_equal(net.outputs(rows), expected)
                assert np.array_equal(net.outputs(rows[:700]), expected[:700])   # (too few rows to split)
            for got, expected in zip(roll_successors(rules, rows[:300]), successors):
                assert np.array_equal(got, expected)
        single_threaded()
        assert forward_threads(before) == 1
        for bad in (0, 17, -1):
            with pytest.raises(ValueError, match="1 to 16 threads"):
                CORE.net_threads(bad)
    finally:
        forward_threads(before)


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_a_shipped_network_keeps_its_point_table_and_gives_the_same_outputs(game):
    """The shipped networks are frozen (read-only weights, shared by every
    evaluator), so the core's point table is made once; a writable copy has
    it made for each call: the same table, the same outputs, bit for bit.  A
    table's row is its point's inputs' rows of w1 added up."""
    from nardtools.analysis.evaluate import load_network
    from nardtools.analysis.nets import _COMPILED
    from nardtools.core import CORE

    if CORE is None:
        pytest.skip("the compiled core is not built")
    shipped = load_network(game)
    assert not shipped.w1.flags.writeable
    with pytest.raises(ValueError):
        shipped.w1[0, 0] = 1.0
    copy = Network(game, shipped.w1.copy(), shipped.b1.copy(), shipped.w2.copy(), shipped.b2.copy(), dict(shipped.meta))
    rows = np.array(_positions(game, 1))
    assert np.array_equal(shipped.outputs(rows), copy.outputs(rows))
    table = _COMPILED[shipped][7]
    assert copy not in _COMPILED and table.shape == (768, shipped.w1.shape[1])
    w = shipped.w1   # side 1's point 5 (the 29th point) holding 6 checkers: 1, 1, 1 and 3/2 of its four inputs
    expected = w[96 + 16] + w[96 + 17] + w[96 + 18] + 1.5 * w[96 + 19]
    assert np.allclose(table[(24 + 4) * 16 + 6], expected, atol=1e-6) and not table[(24 + 4) * 16].any()


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_the_databases_odds_of_many_rows_are_race_odds_of_each(game):
    """database_probabilities (every row at once) against race_odds position
    by position, on the race positions of self-play games and their rolls'
    results; contact positions and finished games get none."""
    from nardtools.analysis.evaluate import database_probabilities
    from nardtools.analysis.race import race_odds
    from nardtools.analysis.selfplay import roll_successors

    rules = find_ruleset(game).rules
    from nardtools.analysis.rows import in_domain

    boards = np.array(_positions(game, 6))
    rows = np.concatenate([boards[::3], roll_successors(rules, boards[in_domain(boards, 8)][::2])[0]])
    p, used = database_probabilities(rules, rows, 6)
    kind = Position.start(game).kind
    checked = 0
    for row, q, size in zip(rows, p, used):
        position = Position._trusted(kind, tuple(int(v) for v in row[:26]), tuple(int(v) for v in row[26:]), 0)
        if not size:
            continue
        odds = race_odds(position, db_points=6)
        assert odds.exact
        expected = ([odds.p_win, odds.p_gammon, 0, odds.p_lose_gammon, 0] if game == "backgammon" else
                    [odds.p_win, odds.p_gammon, odds.p_home_mars, 0, odds.p_lose_gammon, odds.p_lose_home_mars, 0])
        assert np.allclose(q, expected, atol=1e-12), (row.tolist(), q, expected)
        checked += 1
    assert checked >= 20
    within = np.array([not row[7:26].any() and not row[33:52].any() and row[1:26].any() and row[27:52].any()
                       for row in rows])
    assert np.array_equal(used > 0, within)


@pytest.mark.parametrize("game", ["long", "backgammon", "hypergammon"])
def test_games_in_lock_step_are_the_games_one_by_one(game, weights):
    """drive_many (a turn of every game in one call) plays each game as drive
    plays it alone, with the same dice and the same choices; hypergammon's
    three checkers end their games too."""
    from nardtools.analysis.selfplay import best_per_roll, drive, drive_many, start_board

    ruleset = find_ruleset(game)
    rules = ruleset.rules
    net = Network.load(weights["long" if game == "long" else "backgammon"])
    dice = np.random.default_rng(3).integers(1, 7, (400, 6, 2))

    def values(rows):
        return equity(NetPlayer(net, ruleset).values(rows), rules.game.value, rules)

    def choose_many(rows, counts, _turn, _games):
        return best_per_roll(values(rows), counts)

    start = start_board(ruleset)
    many = drive_many(rules, np.repeat(start[None, :], 6, axis=0), lambda k: dice[k], choose_many)
    for g in range(6):
        alone = drive(rules, start, lambda k, g=g: tuple(int(v) for v in dice[k, g]),
                      lambda rows, _k: int(np.argmin(values(rows))))
        assert alone.plays == many.plays[g] and np.array_equal(alone.board, many.boards[g])
    stopped = drive_many(rules, np.repeat(start[None, :], 2, axis=0), lambda k: dice[k, :2], choose_many, stop_after=3)
    assert stopped.plays.tolist() == [3, 3]


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_the_results_of_many_rolls_are_the_reference_engines(game):
    from nardtools.analysis.selfplay import dice_successors, successors, turn_dice
    from nardtools.core import reference_engine

    rules = find_ruleset(game).rules
    boards = np.array(_positions(game, 1)[::5])
    dice = np.random.default_rng(1).integers(1, 7, (len(boards), 2))
    rows, counts = dice_successors(rules, boards, dice)
    with reference_engine():
        alone = [successors(rules, b, turn_dice(int(x), int(y))) for b, (x, y) in zip(boards, dice)]
        assert np.array_equal(dice_successors(rules, boards, dice)[0], rows)
    assert counts.tolist() == [len(a) for a in alone] and np.array_equal(np.concatenate(alone), rows)


def _series_part(first, games):
    """Part of a series between players without state (a random player's dice would carry over)."""
    ruleset = find_ruleset("long")
    return series(ruleset, HeuristicPlayer(), NetPlayer(Network.random("long", 8, 3), ruleset), games, seed=9,
                  first=first, paired=True)


def test_a_series_split_over_processes_is_the_whole_series():
    from nardtools.analysis.selfplay import series_in_processes

    whole = _series_part(0, 10)
    for jobs, unit in ((1, 1), (2, 2), (3, 2)):
        assert series_in_processes(_series_part, 10, jobs, unit=unit) == whole
