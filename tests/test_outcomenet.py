"""The outcome refit (``train --outcomes``): the games' outcomes as each
position's side sees them, parts that resume, and a refit that learns them."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from nardtools.analysis.evaluate import load_networks
from nardtools.analysis.nets import Network
from nardtools.analysis.outcomenet import outcome_games, refit_outputs, train_outcomes
from nardtools.analysis.probabilities import CLASSES, flip
from nardtools.analysis.rows import mover_won
from nardtools.analysis.searchnet import main_domain
from nardtools.cli import app


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_each_position_learns_its_games_outcome_as_its_side_sees_it(game, tmp_path):
    """An outcome is one class of the game's (a home mars or a koks, a
    backgammon, is a mars, a gammon, too; the first two exclude each other);
    within a game the positions' outcomes are the one result seen from the
    two sides; the positions are the main network's."""
    rows, outcomes, games = outcome_games(game, 6, tmp_path, seed=3)
    assert len(rows) > 200 and set(np.unique(games)) == set(range(6))
    assert main_domain(load_networks(game), rows).all() and not mover_won(rows).any()
    wins, losses = outcomes[:, 0] == 1, outcomes[:, 0] == 0
    half = (len(CLASSES[game]) + 1) // 2   # the winning classes, then the losing ones
    assert (outcomes[wins, half:] == 0).all() and (outcomes[losses, 1:half] == 0).all()
    marses = outcomes[:, 1:half]  # a home mars or a koks (a backgammon) is a mars (a gammon) too
    assert (marses[:, 1:] <= marses[:, :1]).all()
    if game == "long":  # and the two exclude each other
        assert (marses[:, 1] + marses[:, 2] <= 1).all()
    for g in range(6):
        seen = {tuple(o) for o in outcomes[games == g]}
        first = outcomes[games == g][0]
        assert seen == {tuple(first), tuple(flip(first[None, :].astype(float), game)[0].astype(np.int8))}


def test_the_games_are_seeded_and_resume_part_by_part(tmp_path, monkeypatch):
    import nardtools.analysis.outcomenet as outcomenet

    monkeypatch.setattr(outcomenet, "PART", 2)
    first = outcome_games("backgammon", 5, tmp_path / "a", seed=4)
    assert len(list((tmp_path / "a").glob("part-*.npz"))) == 3
    (tmp_path / "a" / "part-00001.npz").unlink()
    done: list[int] = []
    again = outcome_games("backgammon", 5, tmp_path / "a", seed=4, progress=done.append)
    assert all(np.array_equal(x, y) for x, y in zip(first, again)) and done == [4, 2]  # two parts read, one played
    other = outcome_games("backgammon", 5, tmp_path / "b", seed=5)
    assert not np.array_equal(first[0][:40], other[0][:40])


def test_the_refit_learns_outcomes_and_keeps_the_hidden_layer():
    """Outcomes that a linear function of the hidden units predicts: the
    refit moves the outputs towards them and no other weight; a strong pull
    keeps the parent's outputs."""
    rng = np.random.default_rng(1)
    net = load_networks("backgammon").main
    rows = np.zeros((4000, 52), np.int8)
    rows[:, 1:26] = rng.multinomial(15, np.ones(25) / 25, size=4000)
    rows[:, 27:52] = rng.multinomial(15, np.ones(25) / 25, size=4000)
    hidden = net.hidden(net.encode(rows))
    won = (hidden @ rng.standard_normal(hidden.shape[1]) > 0).astype(np.int8)
    outcomes = np.zeros((4000, 5), np.int8)
    outcomes[:, 0] = won
    held_out = np.arange(4000) % 10 == 9
    refit, how = refit_outputs(net, rows, outcomes, held_out)
    before, after = how["held_out_cross_entropy"]
    assert after < 0.8 * before and how["held_out_positions"] == 400
    assert np.array_equal(refit.w1, net.w1) and np.array_equal(refit.b1, net.b1)
    assert not np.allclose(refit.w2[:, 0], net.w2[:, 0])
    kept, _ = refit_outputs(net, rows, outcomes, held_out, pull=1e3)
    assert np.allclose(kept.w2, net.w2, atol=2e-3) and np.allclose(kept.b2, net.b2, atol=2e-3)


def test_a_run_keeps_its_settings_and_names_the_refit(tmp_path, monkeypatch, request):
    folder = tmp_path / "run"
    args = ["train", "--game", "backgammon", "--outcomes", "--games", "20", "--seed", "2", "--jobs", "2",
            "--output", str(folder), "-q"]
    monkeypatch.setattr("sys.argv", ["nardtools", *args])
    ran = CliRunner().invoke(app, args)
    assert ran.exit_code == 0, ran.output
    assert "held-out cross-entropy" in ran.output
    net = Network.load(folder / "checkpoint.npz")
    parent = load_networks("backgammon").main
    assert np.array_equal(net.w1, parent.w1) and not np.array_equal(net.w2, parent.w2)
    assert "outputs refitted to" in net.name and net.meta["outcomes"]["games"] == 20
    assert net.meta["commands"][0].startswith("nardtools train --game backgammon --outcomes")
    assert parent.name in net.meta["lineage"]
    again = CliRunner().invoke(app, ["train", "--game", "backgammon", "--outcomes", "--games", "20",
                                     "--output", str(folder)])
    assert again.exit_code != 0 and "holds a run already" in again.output
    (folder / "checkpoint.npz").unlink()
    asked = request.getfixturevalue("processes_asked")  # from here on: the resumed run's
    resumed = CliRunner().invoke(app, ["train", "--resume", str(folder), "-q"])  # found to be an outcome refit
    assert asked == [2]  # the processes it was started with
    assert resumed.exit_code == 0, resumed.output
    assert np.array_equal(Network.load(folder / "checkpoint.npz").w2, net.w2)
    refused = CliRunner().invoke(app, ["train", "--outcomes", "--epochs", "3", "--output", str(tmp_path / "x")])
    assert refused.exit_code != 0 and "--epochs: not read by an --outcomes run" in refused.output


def test_an_outcome_refit_starts_from_a_parent_given(tmp_path):
    parent = load_networks("long").main
    path = tmp_path / "parent.npz"
    Network(parent.game, parent.w1, parent.b1, parent.w2, parent.b2, {**parent.meta, "version": "p"}).save(path)
    net = train_outcomes("long", tmp_path / "run", games=3, weights=str(path), seed=1)
    assert net.meta["lineage"][-1].startswith("nardtools-long-p ") and net.meta["outcomes"]["games"] == 3


@pytest.mark.parametrize("kind", ["--outcomes", "--prune"])
def test_a_refit_or_pruning_run_refuses_to_resume_on_a_changed_parent(kind, tmp_path, monkeypatch):
    """An --outcomes or --prune run records its parent's name and digest
    and, its ``--parent`` file overwritten since, refuses to resume."""
    from nardtools.analysis import evaluate, prunenet

    monkeypatch.setattr(prunenet, "POSITIONS", 40)
    parent, folder = tmp_path / "parent.npz", tmp_path / "run"
    Network.random("backgammon", 8, seed=1).save(parent)
    more = ["--epochs", "1", "--hidden", "8"] if kind == "--prune" else []
    ran = CliRunner().invoke(app, ["train", "--game", "backgammon", kind, "--games", "2", "--parent", str(parent),
                                   *more, "--output", str(folder), "-q"])
    assert ran.exit_code == 0, ran.output
    (folder / "checkpoint.npz").unlink()
    Network.random("backgammon", 8, seed=2).save(parent)
    evaluate.load_network.cache_clear()  # a resumed run is a new process
    refused = CliRunner().invoke(app, ["train", "--resume", str(folder), "-q"])
    assert refused.exit_code != 0 and "a run of the parent" in refused.output and "which is now" in refused.output
