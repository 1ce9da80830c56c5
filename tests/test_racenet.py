"""The race networks (nardtools/analysis/racenet.py): collected from
self-play, fitted to the bear-off database, answering for races beside the
main network."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from typer.testing import CliRunner

from nardtools import Position, Ruleset, find_ruleset
from nardtools.analysis.evaluate import Evaluator, database_odds, load_network, load_race_network
from nardtools.analysis.nets import Network
from nardtools.analysis.probabilities import CLASSES
from nardtools.analysis.racenet import collect, train_race
from nardtools.analysis.rows import boards_of, in_domain
from nardtools.analysis.selfplay import Player, RandomPlayer, play_game
from nardtools.cli import app
from nardtools.errors import AnalysisError


def races_in_database(ruleset: Ruleset, count: int, first_seed: int,
                      players: Callable[[int], tuple[Player, Player]]) -> list[np.ndarray]:
    """At least ``count`` positions rolled from, inside the 6-point database,
    of games ``first_seed`` on between ``players(k)`` (k = 0, 1, ...)."""
    found: list[np.ndarray] = []

    def keep(board: np.ndarray, rows: np.ndarray, chosen: int) -> None:
        if database_odds(ruleset.rules, board, 6) is not None:
            found.append(board.copy())

    seed = 0
    while len(found) < count:
        play_game(ruleset, *players(seed), seed=first_seed + seed, on_turn=keep)
        seed += 1
    return found


def test_collected_positions_are_races_in_the_domain_with_the_databases_odds():
    rows, targets = collect("long", 2, seed=3, points=6)
    assert len(rows) > 20 and in_domain(rows, 6).all()
    assert len({r.tobytes() for r in rows}) == len(rows)  # distinct
    rules = find_ruleset("long").rules
    for i in range(0, len(rows), max(1, len(rows) // 10)):
        assert np.allclose(targets[i], database_odds(rules, rows[i], 6)[0], atol=1e-6)  # type: ignore[index]


def test_leaves_are_the_best_replies_a_one_ply_look_ahead_weighs():
    """With ``leaves=21``, after every play chosen in a race the opponent's
    best reply to each of the 21 rolls is learned, found here roll by roll
    with the player's own choice."""
    from nardtools.analysis.evaluate import load_network
    from nardtools.analysis.selfplay import NetPlayer, successors
    from nardtools.analysis.training import _game_seed
    from nardtools.dice import ALL_ROLLS

    plain, _ = collect("long", 1, seed=6, points=6)   # (a game of the shipped network that ends in such a race)
    rows, _ = collect("long", 1, seed=6, points=6, leaves=21)
    learned = {r.tobytes() for r in rows}
    assert len(plain) and len(learned) > len(plain)
    ruleset = find_ruleset("long")
    player = NetPlayer(load_network("long"), ruleset)
    expected: list[np.ndarray] = []

    def keep(board: np.ndarray, results: np.ndarray, chosen: int) -> None:
        if in_domain(board[None], 6)[0] and in_domain(results[chosen:chosen + 1], 6)[0]:
            for roll in ALL_ROLLS:
                replies = successors(ruleset.rules, results[chosen], roll.dice)
                expected.append(replies[player.choose(replies)])

    play_game(ruleset, player, player, seed=_game_seed(6, 0), on_turn=keep)
    leaves = [r for r in expected if in_domain(r[None], 6)[0]]
    assert len(leaves) > 21 and all(r.tobytes() in learned for r in leaves)


def test_a_race_fit_learns_and_resumes_to_the_same_weights(tmp_path):
    losses: list[float] = []
    straight = train_race("long", tmp_path / "a", games=6, epochs=3, seed=4, points=6, hidden=8, halving=1,
                          report=lambda epoch, loss, held: losses.append(loss))
    assert losses[-1] < losses[0]
    def stop(epoch, loss, held_out):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_race("long", tmp_path / "b", games=6, epochs=3, seed=4, points=6, hidden=8, halving=1, report=stop)
    again = train_race("long", tmp_path / "b", games=6, epochs=None, resume=True)  # to the epochs it was started with
    assert again.meta["epochs"] == 3 and again.is_race and again.meta["points"] == 6 and again.meta["halving"] == 1
    for name in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(getattr(straight, name), getattr(again, name)), name
    # the positions collected stay for a new fit of the same games, and only for it
    (tmp_path / "b" / "checkpoint.npz").unlink()
    with pytest.raises(AnalysisError, match="positions of other games"):
        train_race("long", tmp_path / "b", games=7, epochs=1, seed=4, points=6, hidden=8)
    refit = train_race("long", tmp_path / "b", games=6, epochs=3, seed=4, points=6, hidden=8, halving=1)
    assert np.array_equal(refit.w1, straight.w1)
    slower = train_race("long", tmp_path / "c", games=6, epochs=3, seed=4, points=6, hidden=8)
    assert not np.array_equal(slower.w1, straight.w1)  # the halving is the run's (resumed: kept)


def test_main_and_race_networks_are_not_taken_for_each_other(tmp_path):
    Network.random("long", 8, 1, race_points=6).save(tmp_path / "race.npz")
    Network.random("long", 8, 1).save(tmp_path / "main.npz")
    with pytest.raises(AnalysisError, match="a race network, not a game's main one"):
        load_network("long", str(tmp_path / "race.npz"))
    with pytest.raises(AnalysisError, match="not a long race network"):
        load_race_network("long", str(tmp_path / "main.npz"))
    pointless = Network.random("long", 8, 1, race_points=6)
    pointless.meta["points"] = 30
    pointless.save(tmp_path / "pointless.npz")
    with pytest.raises(AnalysisError, match="needs its points"):
        load_race_network("long", str(tmp_path / "pointless.npz"))


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_the_shipped_race_network_answers_for_races_within_its_points(game):
    race = load_race_network(game)
    assert race is not None and race.meta["commands"] and race.meta["points"] >= 6
    ev = Evaluator(find_ruleset(game).rules)
    inside = Position.from_points(game, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, {6: 4, 4: 4, 3: 4, 1: 3})
    contact = Position.start(game)
    _, source = ev.static(boards_of([inside, contact]))
    assert source[0].startswith(f"nardtools-{game}-race-") and "race" not in source[1]
    assert "race" not in Evaluator(find_ruleset(game).rules, race=False).static(boards_of([inside]))[1][0]


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_the_shipped_race_network_is_close_to_the_database(game):
    """Races of random games inside the 6-point database: the race network's
    P(win) within 0.02 of the exact one on average (the benchmark measures
    10,000 positions of self-play)."""
    ruleset = find_ruleset(game)
    rows = np.array(races_in_database(ruleset, 150, 900, lambda seed: (RandomPlayer(seed), RandomPlayer(seed + 1))))
    exact = np.array([database_odds(ruleset.rules, r, 6)[0][0] for r in rows])  # type: ignore[index]
    p, _ = Evaluator(ruleset.rules).static(rows)
    assert np.abs(p[:, 0] - exact).mean() < 0.02


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_the_shipped_race_networks_one_ply_choice_is_the_exact_best_in_most_races(game):
    """The 1-ply choice with the networks at every leaf, against the
    database's best, for a random roll in races of self-play inside the
    6-point database (the benchmark checks thousands: 96% and more); ties
    within 1e-6 are equally best."""
    from nardtools.analysis.probabilities import equity, exact_where_finished
    from nardtools.analysis.rows import finished
    from nardtools.analysis.selfplay import NetPlayer, successors

    ruleset = find_ruleset(game)
    rules = ruleset.rules
    ev = Evaluator(rules)
    player = NetPlayer(ev.net, ruleset)  # type: ignore[arg-type]
    found = races_in_database(ruleset, 160, 700, lambda seed: (player, player))
    rng = np.random.default_rng(3)
    best = decisions = 0
    for board in found:
        a, b = (int(v) for v in rng.integers(1, 7, 2))
        after = successors(rules, board, (a, b) if a != b else (a,) * 4)
        if len(after) == 1:
            continue
        exact = np.array([database_odds(rules, r, 6)[0] if not finished(r[None])[0]  # type: ignore[index]
                          else np.zeros(len(CLASSES[game])) for r in after])
        exact_where_finished(exact, after, game, rules)
        truth = -equity(exact, game, rules)
        choice = int(np.argmax(-equity(ev.values(after, 1), game, rules)))
        decisions += 1
        best += bool(truth.max() - truth[choice] <= 1e-6)
    assert decisions >= 80 and best / decisions >= 0.9, (best, decisions)


def test_train_race_from_the_command_line(tmp_path):

    out = tmp_path / "run"
    args = ["train", "--game", "long", "--race", "--games", "2", "--epochs", "1", "--race-db", "6", "--hidden", "8",
            "--halving", "4", "--leaves", "2", "--output", str(out), "-q"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "race network after 1 epochs" in first.output and (out / "positions.npz").exists()
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 2 and "holds a run already" in again.output
    resumed = CliRunner().invoke(app, ["train", "--race", "--resume", str(out), "--epochs", "2", "-q"])
    assert resumed.exit_code == 0 and "after 2 epochs" in resumed.output, resumed.output
    meta = Network.load(out / "checkpoint.npz").meta
    assert (meta["halving"], meta["leaves"], len(meta["commands"])) == (4, 2, 2)
    (out / "optimizer.npz").write_bytes(b"damaged")
    broken = CliRunner().invoke(app, ["train", "--race", "--resume", str(out), "--epochs", "3", "-q"])
    assert broken.exit_code == 2 and "optimizer.npz: not a training run's file" in broken.output
    (out / "positions.npz").unlink()
    missing = CliRunner().invoke(app, ["train", "--race", "--resume", str(out), "--epochs", "3", "-q"])
    assert missing.exit_code == 2 and "positions.npz: missing" in missing.output
    Network.random("long", 8, 1).save(out / "checkpoint.npz")
    main = CliRunner().invoke(app, ["train", "--race", "--resume", str(out), "--epochs", "3", "-q"])
    assert main.exit_code == 2 and "not a race network's run" in main.output
