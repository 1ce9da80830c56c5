"""Training a main network on its own look-ahead (nardtools/analysis/searchnet.py):
the positions it collects, the targets it computes resumably, the widened
start that changes nothing, and a run that resumes to the same weights."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from nardtools import find_ruleset
from nardtools.analysis.evaluate import Evaluator, load_networks
from nardtools.analysis.nets import Network, finished
from nardtools.analysis.searchnet import collect, main_domain, search_targets, widen
from nardtools.cli import app
from nardtools.errors import AnalysisError


def test_widening_keeps_the_networks_function():
    net = Network.random("long", 12, seed=4)
    wide = widen(net, 40, seed=9)
    rows = collect("long", 1, weights=None)[:50]
    assert wide.w1.shape == (198, 40) and np.array_equal(wide.outputs(rows), net.outputs(rows))


@pytest.mark.parametrize("game", ["long", "backgammon"])
def test_contact_inputs_start_silent_and_survive_saving(game, tmp_path):
    """A board network given the contact inputs (zero weights) answers as
    before, in the core and in numpy; saved and loaded, it keeps its encoding;
    no other encoding can be given."""
    from nardtools.core import reference_engine

    net = Network.random(game, 12, seed=4)
    wide = widen(net, 16, seed=9, encoding="contact")
    rows = collect(game, 1, weights=None)[:80]
    assert wide.encoding == "contact" and wide.w1.shape == (206, 16)
    assert np.abs(wide.outputs(rows) - net.outputs(rows)).max() <= 1e-6
    with reference_engine():
        assert np.abs(wide.outputs(rows) - net.outputs(rows)).max() <= 1e-6
    wide.save(tmp_path / "contact.npz")
    again = Network.load(tmp_path / "contact.npz")
    assert again.encoding == "contact" and np.array_equal(again.outputs(rows), wide.outputs(rows))
    with pytest.raises(AnalysisError, match="cannot give"):
        widen(wide, 16, seed=9, encoding="board")


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
    a, b = Network.load(whole / "checkpoint.npz"), Network.load(parts / "checkpoint.npz")
    assert np.array_equal(a.w1, b.w1) and np.array_equal(a.w2, b.w2)
    meta = b.meta
    parent = load_networks("backgammon").main.meta
    assert meta["generation"] == parent.get("generation", 0) + 1 and meta["ply"] == 1 and meta["hidden"] == 264 and len(meta["commands"]) == 2
    assert meta["parent"].startswith("nardtools-backgammon-") and meta["parent_commands"]
    assert meta["lineage"][-1] == meta["parent"]
    assert load_networks("backgammon", str(parts / "checkpoint.npz")).main.w1.shape == (parent_inputs(), 264)
    clash = CliRunner().invoke(app, ["train", "--race", "--search", "--output", str(tmp_path / "x")])
    assert clash.exit_code == 2 and "choose one" in clash.output


def test_a_run_stopped_in_its_targets_resumes_with_its_own_settings(tmp_path, monkeypatch):
    """Interrupted before its first epoch, a run resumed with no options keeps
    the width, rate and halving it was started with (not the command's defaults)."""
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
    try:
        train_search("long", folder, games=1, epochs=1, hidden=260, rate=5e-4, halving=3)
    except KeyboardInterrupt:
        pass
    assert len(list((folder / "targets").glob("part-*.npy"))) == 1 and not (folder / "checkpoint.npz").exists()
    monkeypatch.setattr(searchnet, "_part", original)
    net = train_search("long", folder, games=5000, epochs=1, resume=True)  # the command's defaults, ignored
    assert net.w1.shape == (198, 260) and net.meta["rate"] == 5e-4 and net.meta["halving"] == 3
    assert net.meta["search_games"] == 1
    ran = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1", "-q",
                                   "--output", str(tmp_path / "cli")])
    assert ran.exit_code == 0, ran.output  # --hidden left out: the parent's width
    assert Network.load(tmp_path / "cli" / "checkpoint.npz").w1.shape[1] == load_networks("long").main.w1.shape[1]


def test_the_command_line_gives_a_board_parent_the_contact_inputs(tmp_path):
    """``train --search --inputs contact`` from Long Nardy's shipped board
    network: the generation has the contact inputs, kept in its metadata."""
    folder = tmp_path / "run"
    result = CliRunner().invoke(app, ["train", "--game", "long", "--search", "--games", "1", "--epochs", "1",
                                      "--inputs", "contact", "--output", str(folder), "-q"])
    assert result.exit_code == 0, result.output
    net = Network.load(folder / "checkpoint.npz")
    assert net.encoding == "contact" and net.w1.shape[0] == 206 and load_networks("long").main.encoding == "board"


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
