"""Training a main network on its own look-ahead (nardtools/analysis/searchnet.py):
the positions it collects, the targets it computes resumably, the widened
start that changes nothing, and a run that resumes to the same weights."""

from __future__ import annotations

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from nardtools import find_ruleset
from nardtools.analysis.evaluate import Evaluator, load_network, load_networks
from nardtools.analysis.nets import Network
from nardtools.analysis.rows import finished
from nardtools.analysis.searchnet import collect, main_domain, search_targets, widen
from nardtools.cli import app
from nardtools.errors import AnalysisError


def test_widening_keeps_the_networks_function():
    net = Network.random("long", 12, seed=4)
    wide = widen(net, 40, seed=9)
    rows = collect("long", 1, weights=None)[:50]
    assert wide.w1.shape == (198, 40) and np.array_equal(wide.outputs(rows), net.outputs(rows))


@pytest.mark.parametrize(("game", "encoding", "inputs"),
                         [("long", "contact", 206), ("backgammon", "contact", 206), ("long", "blocks", 214)])
def test_new_inputs_start_silent_and_survive_saving(game, encoding, inputs, tmp_path):
    """A board network given the contact or the block inputs (zero weights)
    answers as before, in the core and in numpy; saved and loaded, it keeps
    its encoding; no other encoding can be given."""
    from nardtools.core import reference_engine

    net = Network.random(game, 12, seed=4)
    wide = widen(net, 16, seed=9, encoding=encoding)
    rows = collect(game, 1, weights=None)[:80]
    assert wide.encoding == encoding and wide.w1.shape == (inputs, 16)
    assert np.abs(wide.outputs(rows) - net.outputs(rows)).max() <= 1e-6
    with reference_engine():
        assert np.abs(wide.outputs(rows) - net.outputs(rows)).max() <= 1e-6
    wide.save(tmp_path / "wide.npz")
    again = Network.load(tmp_path / "wide.npz")
    assert again.encoding == encoding and np.array_equal(again.outputs(rows), wide.outputs(rows))
    with pytest.raises(AnalysisError, match="cannot give"):
        widen(wide, 16, seed=9, encoding="board")


def test_the_block_inputs_are_long_nardys_alone(tmp_path):
    """Backgammon's networks cannot have the block inputs: not widened to
    them, not made with them, not loaded with them, not asked for on the
    command line (before any position is collected)."""
    with pytest.raises(AnalysisError, match="for long, not backgammon"):
        widen(Network.random("backgammon", 8, seed=1), 8, seed=1, encoding="blocks")
    with pytest.raises(AnalysisError, match="for long, not backgammon"):
        Network.random("backgammon", 8, seed=1, encoding="blocks")
    net = Network.random("long", 8, seed=1, encoding="blocks")
    Network("backgammon", net.w1, net.b1, net.w2[:, :5], net.b2[:5], {**net.meta, "game": "backgammon"}).save(
        tmp_path / "b.npz")
    with pytest.raises(AnalysisError, match="not made for backgammon"):
        Network.load(tmp_path / "b.npz")
    result = CliRunner().invoke(app, ["train", "--game", "backgammon", "--search", "--games", "1", "--inputs",
                                      "blocks", "--output", str(tmp_path / "run")])
    assert result.exit_code != 0 and "for long, not backgammon" in result.output
    assert not (tmp_path / "run" / "positions.npz").exists()


def test_collected_positions_are_the_main_networks_and_reproducible():
    first, again = collect("backgammon", 3, seed=5), collect("backgammon", 3, seed=5)
    assert np.array_equal(first, again) and len(first) > 100
    assert len({r.tobytes() for r in first}) == len(first)  # distinct
    assert main_domain(load_networks("backgammon"), first).all() and not finished(first).any()
    assert not np.array_equal(first[:50], collect("backgammon", 3, seed=6)[:50])


def test_targets_are_the_look_ahead_and_resume_part_by_part(tmp_path, monkeypatch):
    import nardtools.analysis.searchnet as searchnet

    monkeypatch.setattr(searchnet, "PART", 20)
    rows = collect("long", 1)[:50]
    folder = tmp_path / "targets"
    targets = search_targets("long", rows, folder, ply=1)
    expected = Evaluator(find_ruleset("long").rules).values(rows, 1)
    assert np.allclose(targets, expected, atol=1e-6) and len(list(folder.glob("part-*.npy"))) == 3
    (folder / "part-00001.npy").unlink()
    done = []
    again = search_targets("long", rows, folder, ply=1, progress=done.append)
    assert np.array_equal(again, targets) and done == [40, 20]  # two parts read, one computed


def test_rollout_targets_are_games_played_out_and_resume_part_by_part(tmp_path, monkeypatch):
    """A rollout target is the mean result of games played out: a position
    won with the next play whatever the roll is exactly its outcome (its 1-ply
    value); on self-play positions the targets agree with :func:`rollout`'s
    own estimates within their noise (seen from the side on roll, not the
    other); a part deleted is made again the same."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.evaluate import boards_of
    from nardtools.analysis.rollout import rollout
    from nardtools.analysis.searchnet import rollout_targets
    from nardtools.position import GameKind, Position

    monkeypatch.setattr(searchnet, "ROLLOUT_PART", 2)
    monkeypatch.setattr(searchnet, "ROLLOUT_LOCKSTEP", 3)
    won = boards_of([Position.from_points("long", {1: 2}, {1: 5, 2: 5, 3: 5})])
    rows = np.concatenate([won, collect("long", 1, seed=4)[10:90:20]])
    folder = tmp_path / "rollouts"
    targets = rollout_targets("long", rows, folder, games=108, seed=3)
    exact = Evaluator(find_ruleset("long").rules).values(won, 1)[0]
    assert targets.shape == (5, 7) and len(list(folder.glob("part-*.npy"))) == 3
    assert targets[0][0] == 1.0 and np.allclose(targets[0], exact, atol=1e-6)
    by_rollout = [rollout(Position._trusted(GameKind.LONG, tuple(map(int, r[:26])), tuple(map(int, r[26:])), 0),
                          "long", games=216, seed=5).evaluation.probabilities["win"] for r in rows[1:]]
    assert np.abs(targets[1:, 0] - by_rollout).mean() < 0.1  # noise about 0.045; a flipped side some 0.3
    (folder / "part-00001.npy").unlink()
    again = rollout_targets("long", rows, folder, games=108, seed=3)
    assert np.array_equal(again, targets)


def test_a_rollout_stopped_after_one_play_is_the_one_ply_look_ahead(tmp_path):
    """``truncate``: 36 games a position stopped after one play are the 36
    rolls once each, the best result of each valued by the network: the
    unscreened 1-ply, exactly (luckless, any number of games: the screened
    1-ply); a run records the truncation and the luck taken out, and a
    longer one gives other targets (the games played on)."""
    from nardtools.analysis.searchnet import rollout_targets, train_search

    rows = collect("long", 1, seed=4)[10:200:10]
    one = rollout_targets("long", rows, tmp_path / "one", games=36, truncate=1, seed=3)
    assert np.allclose(one, Evaluator(find_ruleset("long").rules, prune=False).values(rows, 1), atol=1e-6)
    four = rollout_targets("long", rows, tmp_path / "four", games=36, truncate=4, seed=3)
    assert np.abs(four - one).max() > 0.01
    luckless = rollout_targets("long", rows, tmp_path / "luckless", games=2, truncate=1, luckless=True, seed=3)
    assert np.allclose(luckless, Evaluator(find_ruleset("long").rules).values(rows, 1), atol=1e-6)  # screened, no luck
    net = train_search("long", tmp_path / "run", games=1, epochs=1, ply=0, seed=2, rollouts=6, rollout_games=4,
                       rollout_truncate=3)
    assert net.meta["rollout_truncate"] == 3 and "4 games each truncated at 3 plays at 0-ply" in net.meta["method"]
    assert "rollout_luckless" not in net.meta
    net = train_search("long", tmp_path / "luck", games=1, epochs=1, ply=0, seed=2, rollouts=6, rollout_games=4,
                       rollout_truncate=3, rollout_luckless=True)
    assert net.meta["rollout_luckless"] and "on its luckless rollouts instead" in net.meta["method"]
    assert "rollout_truncate" not in train_search("long", tmp_path / "whole", games=1, epochs=1, ply=0, seed=2,
                                                  rollouts=6, rollout_games=4).meta


def parent_inputs() -> int:
    """The shipped backgammon network's inputs (a search run keeps its parent's)."""
    return load_networks("backgammon").main.inputs


def test_a_search_run_from_the_command_line_resumes_to_the_same_weights(tmp_path):
    args = ["--game", "backgammon", "--search", "--games", "2", "--hidden", "264", "-q"]
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    assert CliRunner().invoke(app, ["train", *args, "--epochs", "2", "--output", str(whole)]).exit_code == 0
    first = CliRunner().invoke(app, ["train", *args, "--epochs", "1", "--output", str(parts)])
    assert first.exit_code == 0, first.output
    resumed = CliRunner().invoke(app, ["train", "--resume", str(parts), "--epochs", "2", "-q"])  # a search run, found
    assert resumed.exit_code == 0 and "main network after 2 epochs" in resumed.output, resumed.output
    again = CliRunner().invoke(app, ["train", "--resume", str(parts), "-q"])  # no --epochs: the plan, now 2, holds
    assert again.exit_code == 0 and "main network after 2 epochs" in again.output, again.output
    a, b = Network.load(whole / "checkpoint.npz"), Network.load(parts / "checkpoint.npz")
    assert b.meta["planned_epochs"] == 2
    assert np.array_equal(a.w1, b.w1) and np.array_equal(a.w2, b.w2)
    meta = b.meta
    parent = load_networks("backgammon").main.meta
    assert meta["generation"] == parent.get("generation", 0) + 1 and meta["ply"] == 1 and meta["hidden"] == 264 and len(meta["commands"]) == 2
    assert meta["parent"].startswith("nardtools-backgammon-") and meta["parent_commands"]
    assert meta["lineage"][-1] == meta["parent"]
    assert load_networks("backgammon", str(parts / "checkpoint.npz")).main.w1.shape == (parent_inputs(), 264)
    clash = CliRunner().invoke(app, ["train", "--race", "--search", "--output", str(tmp_path / "x")])
    assert clash.exit_code == 2 and "choose one" in clash.output


def test_a_run_stopped_in_its_targets_resumes_with_its_own_settings(tmp_path, monkeypatch, processes_asked):
    """Interrupted before its first epoch, a run resumed with no options keeps
    the width, rate, halving, epochs and processes it was started with (not
    the command's defaults); interrupted after one, it goes on to its own
    epochs; processes given again are taken."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.searchnet import train_search

    monkeypatch.setattr(searchnet, "PART", 50)
    folder = tmp_path / "run"
    original = searchnet._part
    calls = []

    def interrupted(job):
        calls.append(job)
        if len(calls) == 2:
            raise KeyboardInterrupt
        original(job)

    monkeypatch.setattr(searchnet, "_part", interrupted)
    parent = tmp_path / "parent.npz"  # its own small parent: the width asked is wider than it, whatever is shipped
    Network.random("long", 16, seed=3, encoding="blocks").save(parent)
    try:
        train_search("long", folder, games=1, epochs=3, hidden=20, rate=5e-4, halving=3, weights=str(parent), jobs=2)
    except KeyboardInterrupt:
        pass
    assert len(list((folder / "targets").glob("part-*.npy"))) == 1 and not (folder / "checkpoint.npz").exists()
    monkeypatch.setattr(searchnet, "_part", original)

    def stop_after_one(epoch, loss, held_out):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # the command's defaults, ignored
        train_search("long", folder, games=5000, epochs=None, resume=True, report=stop_after_one)
    assert Network.load(folder / "checkpoint.npz").meta["epochs"] == 1
    net = train_search("long", folder, games=5000, epochs=None, resume=True, jobs=1)
    assert processes_asked == [2, 2, 1]
    assert net.meta["epochs"] == net.meta["planned_epochs"] == 3
    assert net.w1.shape == (Network.load(parent).inputs, 20) and net.meta["rate"] == 5e-4
    assert net.meta["halving"] == 3
    assert net.meta["search_games"] == 1
    assert net.meta["method"].endswith("from its parent's weights widened to 20 hidden units "
                                       "(Adam at rate 0.0005, cross-entropy)")  # said again when resumed
    ran = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1", "-q",
                                   "--output", str(tmp_path / "cli")])
    assert ran.exit_code == 0, ran.output  # --hidden left out: the parent's width
    assert Network.load(tmp_path / "cli" / "checkpoint.npz").w1.shape[1] == load_networks("long").main.w1.shape[1]


@pytest.mark.parametrize(("encoding", "inputs"), [("contact", 206), ("blocks", 214)])
def test_the_command_line_gives_a_board_parent_new_inputs(encoding, inputs, tmp_path):
    """``train --search --inputs contact`` (or ``blocks``) from a Long Nardy
    board network: the generation has those inputs, kept in its metadata;
    the parent keeps its own."""
    folder, parent = tmp_path / "run", tmp_path / "board.npz"
    Network.random("long", 16, seed=3).save(parent)
    result = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1",
                                      "--parent", str(parent), "--inputs", encoding, "--output", str(folder), "-q"])
    assert result.exit_code == 0, result.output
    net = Network.load(folder / "checkpoint.npz")
    assert net.encoding == encoding and net.w1.shape == (inputs, 16) and Network.load(parent).encoding == "board"
    assert f"from its parent's weights widened to {encoding} inputs (Adam" in net.meta["method"]
    fresh = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1", "--fresh",
                                     "--parent", str(parent), "--output", str(tmp_path / "fresh"), "-q"])
    assert fresh.exit_code == 0, fresh.output
    assert "from random weights (Adam" in Network.load(tmp_path / "fresh" / "checkpoint.npz").meta["method"]


def test_a_run_fits_earlier_runs_positions_beside_its_own(tmp_path, monkeypatch):
    """``--with-run``: a finished run's positions and targets are fitted beside
    the new run's own, and kept when it resumes; an unfinished run is refused."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.searchnet import finished_run, train_search

    monkeypatch.setattr(searchnet, "PART", 50)
    earlier, later = tmp_path / "earlier", tmp_path / "later"
    train_search("long", earlier, games=1, epochs=1, seed=2)
    rows, targets = finished_run(earlier)
    own = len(np.load(earlier / "positions.npz")["rows"])
    assert len(rows) == len(targets) == own > 50 and np.array_equal(targets[:50], np.load(earlier / "targets" / "part-00000.npy"))
    net = train_search("long", later, games=1, epochs=1, seed=3, with_runs=[earlier])
    mine = len(np.load(later / "positions.npz")["rows"])
    assert net.meta["with_runs"] == [str(earlier)] and net.meta["positions"] == (own + mine) - int((own + mine) * 0.1)
    assert f"and on {own:,} of 1 earlier run(s)" in net.meta["method"]
    resumed = train_search("long", later, games=1, epochs=2, resume=True)
    assert resumed.meta["positions"] == net.meta["positions"] and resumed.meta["epochs"] == 2
    (earlier / "targets" / "part-00001.npy").unlink()
    with pytest.raises(AnalysisError, match="finish that run first"):
        finished_run(earlier)
    refused = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1", "-q",
                                       "--with-run", str(earlier), "--output", str(tmp_path / "cli")])
    assert refused.exit_code != 0 and "finish that run first" in refused.output, refused.output


def test_a_run_of_no_games_refits_earlier_runs_alone(tmp_path, monkeypatch):
    """``--games 0``: no positions of its own, the earlier runs' fitted afresh
    (at their look-ahead's ply, their rollouts weighed by its weight); it
    resumes as one, and the command line refuses what only collecting reads."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.searchnet import finished_run, train_search

    monkeypatch.setattr(searchnet, "PART", 50)
    monkeypatch.setattr(searchnet, "ROLLOUT_PART", 5)
    first, second, refit = tmp_path / "first", tmp_path / "second", tmp_path / "refit"
    train_search("long", first, games=1, epochs=1, ply=0, seed=2, rollouts=6, rollout_games=2)
    train_search("long", second, games=1, epochs=1, ply=0, seed=3, rollouts=4, rollout_games=2)
    both = sum(len(finished_run(run)[0]) for run in (first, second))
    net = train_search("long", refit, games=0, epochs=1, seed=4, with_runs=[first, second], rollout_weight=0.5)
    assert net.meta["positions"] == both - int(both * 0.1) and net.meta["rollouts"] == 6 + 4
    assert net.meta["ply"] == 0 and net.meta["search_games"] == 0 and not (refit / "targets").exists()
    assert net.meta["method"].startswith(f"supervised on {both:,} positions of 2 earlier run(s) with their own "
                                         "targets (their rollouts weighted 0.5), refitted")
    assert len(net.meta["with_run_commands"]) == 2
    assert len(np.load(refit / "positions.npz")["rows"]) == 0
    assert train_search("long", refit, games=0, epochs=2, resume=True).meta["epochs"] == 2
    with pytest.raises(AnalysisError, match="name them"):
        train_search("long", tmp_path / "nothing", games=0, epochs=1)
    assert net.meta["rate"] == 1e-3  # Adam's default rate
    ran = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "0", "--epochs", "1", "-q",
                                   "--with-run", str(first), "--rate", "0.0002", "--output", str(tmp_path / "cli")])
    assert ran.exit_code == 0, ran.output
    cli = Network.load(tmp_path / "cli" / "checkpoint.npz").meta
    assert cli["positions"] == len(finished_run(first)[0]) - int(len(finished_run(first)[0]) * 0.1)
    assert cli["rate"] == 0.0002 and cli["method"].endswith("(Adam at rate 0.0002, cross-entropy)")
    assert net.meta["method"].endswith("refitted, from its parent's weights (Adam, cross-entropy)")
    for given, said in ((["--search"], "name the runs whose positions it refits with --with-run"),
                        (["--search", "--with-run", str(first), "--rollouts", "5", "--explore", "0.2"],
                         "--explore, --rollouts: not read by a refit"),
                        (["--search", "--with-run", str(first), "--collect-with", str(first)],
                         "--collect-with: not read by a refit"),
                        (["--race"], "only a new --search run takes it"), ([], "only a new --search run takes it")):
        refused = CliRunner().invoke(app, ["train", "--game", "long", "--games", "0", *given,
                                           "--output", str(tmp_path / "refused")])
        assert refused.exit_code != 0 and said in refused.output, refused.output
    assert not (tmp_path / "refused").exists()


def _pruner_for(parent: Network, seed: int) -> Network:
    """A (random) pruning network that says it screens for ``parent``."""
    pruner = Network.random("long", 6, seed=seed)
    pruner.meta.update(kind="prune", screens=parent.name)
    return pruner


def test_a_run_screens_with_the_pruning_network_it_is_given(tmp_path, monkeypatch):
    """``--prune-with FILE``: the targets' and rollouts' look-ahead screened by
    that pruning network, whatever is shipped; the run records it, refuses one
    trained for another network, and refuses to go on once the file changes."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.evaluate import load_prune_network
    from nardtools.analysis.searchnet import rollout_positions, rollout_targets, train_search

    monkeypatch.setattr(searchnet, "PART", 50)
    monkeypatch.setattr(searchnet, "ROLLOUT_PART", 5)
    rules = find_ruleset("long").rules
    parent, pruner = tmp_path / "parent.npz", tmp_path / "pruner.npz"
    net = Network.random("long", 12, seed=4)
    net.save(parent)
    _pruner_for(Network.load(parent), 7).save(pruner)
    rows = collect("long", 1, seed=2)[:40]
    screened = search_targets("long", rows, tmp_path / "screened", weights=str(parent), prune=str(pruner))
    assert np.allclose(screened, Evaluator(rules, weights=str(parent), prune=str(pruner)).values(rows, 1), atol=1e-6)
    assert not np.allclose(screened, Evaluator(rules, weights=str(parent), prune=False).values(rows, 1))
    folder = tmp_path / "run"
    trained = train_search("long", folder, games=1, epochs=1, seed=2, weights=str(parent), prune=str(pruner),
                           rollouts=6, rollout_games=2, rollout_truncate=2)
    kept = np.load(folder / "positions.npz")["rows"]
    chosen = rollout_positions(len(kept), 6, 2)
    assert np.allclose(np.load(folder / "targets" / "part-00000.npy"),
                       Evaluator(rules, weights=str(parent), prune=str(pruner)).values(kept[:50], 1), atol=1e-6)
    assert np.array_equal(np.concatenate([np.load(f) for f in sorted((folder / "rollouts").glob("part-*.npy"))]),
                          rollout_targets("long", kept[chosen], tmp_path / "again", games=2, truncate=2,
                                          weights=str(parent), prune=str(pruner), seed=2))
    given = Network.load(pruner)
    assert trained.meta["pruned_by"] == f"{given.name} {given.digest}"
    assert train_search("long", folder, games=1, epochs=2, resume=True).meta["epochs"] == 2
    for changed, said in (({}, "(prune_with, prune_mark)"), ({"prune": str(pruner), "rollout_games": 4}, "(rollout_games)")):
        with pytest.raises(AnalysisError, match=f"computed with other settings {re.escape(said)}"):
            train_search("long", folder, games=1, epochs=1, seed=2, weights=str(parent), rollouts=6,
                         **{"rollout_games": 2, "rollout_truncate": 2, **changed})
    _pruner_for(Network.load(parent), 8).save(pruner)
    load_prune_network.cache_clear()
    with pytest.raises(AnalysisError, match="screened by the pruning network"):
        train_search("long", folder, games=1, epochs=3, resume=True)
    other = tmp_path / "other.npz"
    stranger = Network.random("long", 10, seed=9)
    stranger.meta["games"] = 5  # another name: a pruner is matched to its network by name
    _pruner_for(stranger, 7).save(other)
    with pytest.raises(AnalysisError, match="a pruning network trained for"):
        Evaluator(rules, weights=str(parent), prune=str(other)).values(rows[:2], 1)
    refused = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1", "-q",
                                       "--parent", str(parent), "--prune-with", str(other),
                                       "--output", str(tmp_path / "cli")])
    assert refused.exit_code != 0 and "a pruning network trained for" in refused.output, refused.output


def test_a_run_keeps_its_parent_and_earlier_runs_absolute(tmp_path, monkeypatch):
    """``--parent`` and ``--with-run`` typed relative are kept as absolute
    paths, so that the run resumes from any directory."""
    import json

    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.searchnet import train_search

    monkeypatch.setattr(searchnet, "PART", 50)
    root = tmp_path.resolve()
    train_search("long", root / "earlier", games=1, epochs=1, seed=2)
    Network.random("long", 12, seed=4).save(root / "parent.npz")
    monkeypatch.chdir(root)
    ran = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1", "-q",
                                   "--parent", "parent.npz", "--with-run", "earlier", "--output", "later"])
    assert ran.exit_code == 0, ran.output
    with np.load(root / "later" / "positions.npz") as kept:
        assert str(kept["weights"]) == str(root / "parent.npz")
        assert json.loads(str(kept["fitting"]))["with_runs"] == [str(root / "earlier")]
    monkeypatch.chdir(root / "earlier")
    resumed = CliRunner().invoke(app, ["train", "--resume", str(root / "later"), "--epochs", "2", "-q"])
    assert resumed.exit_code == 0, resumed.output
    assert Network.load(root / "later" / "checkpoint.npz").meta["epochs"] == 2


def test_a_run_fits_rollouts_in_place_of_the_look_ahead(tmp_path, monkeypatch):
    """``--rollouts K``: K of the positions, drawn by the seed, learn their
    rollouts; the others keep the look-ahead; the run records it, resumes
    with it, and a run fitted beside it (``--with-run``) reads the same."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.searchnet import finished_run, rollout_positions, rollout_targets, train_search

    monkeypatch.setattr(searchnet, "PART", 50)
    monkeypatch.setattr(searchnet, "ROLLOUT_PART", 5)
    folder = tmp_path / "run"
    net = train_search("long", folder, games=1, epochs=1, seed=2, rollouts=12, rollout_games=4)
    rows, targets = finished_run(folder)
    chosen = rollout_positions(len(rows), 12, 2)
    look = search_targets("long", rows, folder / "targets", ply=1)
    rolled = rollout_targets("long", rows[chosen], folder / "rollouts", games=4, seed=2)
    others = np.setdiff1d(np.arange(len(rows)), chosen)
    assert len(chosen) == 12 and len(list((folder / "rollouts").glob("part-*.npy"))) == 3
    assert np.array_equal(targets[chosen], rolled) and np.array_equal(targets[others], look[others])
    assert np.abs(rolled[:, 0] - look[chosen, 0]).max() > 0.1  # outcomes, not the look-ahead
    assert net.meta["rollouts"] == 12 and net.meta["rollout_games"] == 4
    assert "12 of them on its rollouts instead, 4 games each" in net.meta["method"]
    assert net.name.endswith("positions at 1-ply, 12 on rollouts)")
    assert train_search("long", folder, games=1, epochs=2, resume=True).meta["rollouts"] == 12
    ran = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1", "-q",
                                   "--rollouts", "3", "--rollout-games", "2", "--output", str(tmp_path / "cli")])
    assert ran.exit_code == 0, ran.output
    assert Network.load(tmp_path / "cli" / "checkpoint.npz").meta["rollouts"] == 3
    beside = train_search("long", tmp_path / "beside", games=1, epochs=1, seed=5, rollouts=2, rollout_games=2,
                          with_runs=[folder, tmp_path / "cli"])
    assert beside.meta["rollouts"] == 2 + 12 + 3 and beside.name.endswith(f"{2 + 12 + 3} on rollouts)")
    assert "2 of them on its rollouts instead" in beside.meta["method"]


def test_rollouts_weighed_against_the_look_ahead(tmp_path, monkeypatch):
    """``--rollout-weight w``: a rolled-out position learns w × its rollout +
    (1 − w) × its look-ahead target, the others their look-ahead; the run
    records the weight and resumes with it, and a run fitted beside it
    weighs the earlier run's rollouts by its own weight."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.searchnet import finished_run, rollout_positions, rollout_targets, train_search

    monkeypatch.setattr(searchnet, "PART", 50)
    monkeypatch.setattr(searchnet, "ROLLOUT_PART", 5)
    folder = tmp_path / "run"
    net = train_search("long", folder, games=1, epochs=1, seed=2, rollouts=12, rollout_games=4, rollout_weight=0.25)
    rows, targets = finished_run(folder, 0.25)
    chosen = rollout_positions(len(rows), 12, 2)
    look = search_targets("long", rows, folder / "targets", ply=1)
    rolled = rollout_targets("long", rows[chosen], folder / "rollouts", games=4, seed=2)
    others = np.setdiff1d(np.arange(len(rows)), chosen)
    assert np.allclose(targets[chosen], 0.25 * rolled + 0.75 * look[chosen], atol=1e-7)
    assert np.array_equal(targets[others], look[others])
    assert np.array_equal(finished_run(folder)[1][chosen], rolled)
    assert net.meta["rollout_weight"] == 0.25 and "weighted 0.25 against the look-ahead" in net.meta["method"]
    whole = train_search("long", tmp_path / "whole", games=1, epochs=1, seed=2, rollouts=12, rollout_games=4)
    assert "rollout_weight" not in whole.meta and not np.array_equal(whole.w2, net.w2)
    assert train_search("long", folder, games=1, epochs=2, resume=True).meta["rollout_weight"] == 0.25
    beside = train_search("long", tmp_path / "beside", games=1, epochs=1, seed=5, with_runs=[folder],
                          rollout_weight=0.5)
    assert beside.meta["rollout_weight"] == 0.5 and "(their rollouts weighted 0.5)" in beside.meta["method"]
    assert beside.meta["with_run_commands"] == [Network.load(folder / "checkpoint.npz").meta["commands"]]


def test_a_run_learns_another_players_positions(tmp_path, monkeypatch):
    """``--collect-with``: the positions are that network's self-play, the
    targets the parent's; with ``--search-ply 0`` and ``--rollouts`` for
    every position, the targets are all rollouts. The run records the player
    and refuses to resume another collection in the same folder."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis.searchnet import finished_run, rollout_targets, train_search

    monkeypatch.setattr(searchnet, "ROLLOUT_PART", 40)
    player = tmp_path / "player.npz"
    Network.random("long", 12, seed=4).save(player)
    folder = tmp_path / "run"
    net = train_search("long", folder, games=1, epochs=1, ply=0, seed=2, explore=0.0, alternatives=0,
                       rollouts=10_000, rollout_games=2, collector=str(player))
    rows, targets = finished_run(folder)
    assert np.array_equal(rows, collect("long", 1, seed=2, weights=str(player), explore=0.0, alternatives=0))
    assert not np.array_equal(rows[:20], collect("long", 1, seed=2, explore=0.0, alternatives=0)[:20])
    assert np.array_equal(targets, rollout_targets("long", rows, folder / "rollouts", games=2, seed=2))
    assert net.meta["rollouts"] == len(rows) and net.meta["collected_by"] == Network.load(player).name
    assert "0-ply probabilities" in net.meta["method"] and "self-play positions" in net.meta["method"]
    with pytest.raises(AnalysisError, match="another collection"):
        train_search("long", folder, games=1, epochs=1, ply=0, seed=2, explore=0.0, alternatives=0)
    for given, said in ((["--rollouts", "5"], "--rollouts: not read by a self-play (TD) run"),
                        (["--collect-with", str(player)], "--collect-with: not read by a self-play"),
                        (["--explore", "0.2", "--inputs", "contact"], "--explore, --inputs: not read by a self-play"),
                        (["--search", "--lambda", "0.5"], "--lambda: not read by a --search"),
                        (["--race", "--parent", str(player)], "--parent: not read by a --race run"),
                        (["--prune", "--jobs", "2"], "--jobs: not read by a --prune run"),
                        (["--search", "--rollout-games", "4"], "give --rollouts too"),
                        (["--search", "--rollout-truncate", "8"], "--rollout-truncate sets how each of --rollouts"),
                        (["--search", "--rollout-weight", "0.5"], "give --rollouts or --with-run too"),
                        (["--search", "--search-ply", "0"], "give --rollouts")):
        refused = CliRunner().invoke(app, ["train", "--game", "long", "--games", "1", *given,
                                           "--output", str(tmp_path / "refused")])
        assert refused.exit_code != 0 and said in refused.output, refused.output
    assert not (tmp_path / "refused").exists()
    for given in (["--seed", "9"], ["--hidden", "64", "--games", "3"], ["--collect-with", str(player)]):
        refused = CliRunner().invoke(app, ["train", "--resume", str(folder), *given])
        assert refused.exit_code != 0 and "keeps the settings it was started with" in refused.output, refused.output
        assert "continues with --epochs and --jobs" in refused.output


def test_a_run_refuses_to_go_on_when_its_parent_has_changed(tmp_path, monkeypatch):
    """A run records its parent's name and weights' digest: once its
    ``--parent`` file is overwritten, or another network is shipped where the
    run took the shipped one, it refuses to resume or restart in that folder,
    naming both, rather than fit two parents' targets together."""
    import nardtools.analysis.searchnet as searchnet
    from nardtools.analysis import evaluate
    from nardtools.analysis.nets import Networks
    from nardtools.analysis.searchnet import train_search

    monkeypatch.setattr(searchnet, "PART", 50)
    folder, parent = tmp_path / "run", tmp_path / "parent.npz"
    Network.random("long", 8, seed=1).save(parent)
    net = train_search("long", folder, games=1, epochs=1, weights=str(parent))
    assert net.meta["parent_digest"] == Network.load(parent).digest
    assert train_search("long", folder, games=1, epochs=2, resume=True).meta["epochs"] == 2  # unchanged: resumes
    Network.random("long", 8, seed=2).save(parent)
    load_network.cache_clear()  # a resumed run is a new process
    with pytest.raises(AnalysisError, match=r"a run of the parent .*\[.*\], which is now .*give that run's parent"):
        train_search("long", folder, games=1, epochs=3, resume=True)
    with pytest.raises(AnalysisError, match="which is now"):
        train_search("long", folder, games=1, epochs=1, weights=str(parent))  # the same command again
    shipped = tmp_path / "shipped"
    train_search("long", shipped, games=1, epochs=1)
    original, other = evaluate.load_networks, Network.random("long", 8, seed=3)
    monkeypatch.setattr(evaluate, "load_networks",  # another network shipped
                        lambda game, weights=None, race=None: original(game, weights) if weights else Networks(other))
    result = CliRunner().invoke(app, ["train", "--resume", str(shipped), "--epochs", "2", "-q"])
    assert result.exit_code != 0 and "which is now" in result.output, result.output


def test_a_mean_of_networks_answers_their_mean_logits_in_the_core_and_in_numpy(tmp_path):
    """``train --mean-of`` writes one network whose logits are the members'
    mean, position by position (the compiled forward pass and numpy's), keeps
    each member's name and digest, and refuses one member, a member of another
    game, a race network and a resumed run, each with its reason."""
    a, b = Network.random("long", 12, seed=4), Network.random("long", 20, seed=5)
    paths = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for net, path in zip((a, b), paths, strict=True):
        net.save(path)
    done = CliRunner().invoke(app, ["train", "--game", "long", *(f"--mean-of={p}" for p in paths),
                                    "--output", str(tmp_path / "mean")])
    assert done.exit_code == 0, done.output
    mean = Network.load(tmp_path / "mean" / "checkpoint.npz")
    rows = collect("long", 1, weights=None)[:60]

    def logit(p: np.ndarray) -> np.ndarray:
        return np.log(p / (1 - p))

    expected = (logit(a.outputs(rows).astype(np.float64)) + logit(b.outputs(rows).astype(np.float64))) / 2
    assert mean.w1.shape == (198, 32) and np.abs(logit(mean.outputs(rows).astype(np.float64)) - expected).max() < 1e-4
    assert np.abs(mean(mean.encode(rows)) - mean.outputs(rows)).max() <= 1e-6
    assert [m["digest"] for m in mean.meta["members"]] == [a.digest, b.digest]
    assert mean.name == "nardtools-long-dev (the mean of 2 networks)" and len(mean.meta["commands"]) == 1
    assert mean.meta["method"].startswith("the mean of 2 networks' output logits, their 32 hidden units")
    Network.random("backgammon", 8, seed=6).save(tmp_path / "bg.npz")
    Network.random("long", 8, seed=7, race_points=6).save(tmp_path / "race.npz")
    for extra, reason in ((["--mean-of", str(paths[0])], "needs two or more"),
                          ([*(f"--mean-of={p}" for p in (paths[0], tmp_path / "bg.npz"))], "a backgammon network"),
                          ([*(f"--mean-of={p}" for p in (paths[0], tmp_path / "race.npz"))], "main networks of one game"),
                          ([*(f"--mean-of={p}" for p in paths), "--epochs", "3"], "--epochs: not read by --mean-of")):
        refused = CliRunner().invoke(app, ["train", "--game", "long", *extra, "--output", str(tmp_path / "x")])
        assert refused.exit_code != 0 and reason in " ".join(refused.output.split()), refused.output
    resumed = CliRunner().invoke(app, ["train", *(f"--mean-of={p}" for p in paths), "--resume", str(tmp_path / "mean")])
    assert resumed.exit_code != 0 and "no run to --resume" in " ".join(resumed.output.split())
    assert not (tmp_path / "x").exists()
