"""The pruning networks (nardtools.analysis.prunenet) and the screen they
make inside the look-ahead (Evaluator.successors): which of a roll's results
the main network values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardtools import find_ruleset
from nardtools.analysis.evaluate import PRUNE_KEEP, Evaluator, load_network, load_prune_network
from nardtools.analysis.nets import WEIGHTS_DIR, Network
from nardtools.analysis.probabilities import CLASSES, consistent, equity, equity_weights
from nardtools.analysis.rows import finished
from nardtools.analysis.selfplay import best_in_rolls, roll_successors
from nardtools.core import CORE, reference_engine
from nardtools.errors import AnalysisError
from nardtools.rules import rulesets

from .test_evaluator import _positions

GAMES = ["long", "backgammon"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=30), st.integers(1, 10), st.data())
def test_the_best_of_each_roll_by_the_core_are_the_references(counts, keep, data):
    """best_in_rolls: the keep least of each group (the earlier among equal
    values: few distinct values make many ties), all of a small group; the
    core's mask is the numpy reference's."""
    values = np.array(data.draw(st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.25, 1.0]), min_size=sum(counts),
                                         max_size=sum(counts))))
    counts_array = np.array(counts, np.int32).reshape(1, -1)
    got = best_in_rolls(values, counts_array, keep)
    with reference_engine():
        assert np.array_equal(best_in_rolls(values, counts_array, keep), got)
    start = 0
    for n in counts:   # by hand: a stable sort of each group
        part = got[start:start + n]
        order = sorted(range(n), key=lambda i: values[start + i])
        assert part.tolist() == [i in order[:keep] for i in range(n)]
        start += n


@pytest.mark.skipif(CORE is None, reason="the compiled core is not built")
def test_the_cores_best_of_groups_checks_its_arguments():
    out = np.empty(3, np.uint8)
    with pytest.raises(ValueError):
        CORE.best_of_groups(np.zeros(3), np.array([2, 2], np.int32), 1, out)   # counts add up to 4, not 3
    with pytest.raises(ValueError):
        CORE.best_of_groups(np.zeros(3), np.array([3], np.int32), 0, out)
    with pytest.raises(ValueError):
        CORE.best_of_groups(np.zeros(3), np.array([-1, 4], np.int32), 1, out)


@pytest.mark.parametrize("game", GAMES)
def test_the_linear_equity_is_the_equity_of_consistent_probabilities(game):
    """equity_weights under every ruleset of the game (their points differ):
    p @ w + c is equity(p) wherever p is consistent."""
    rng = np.random.default_rng(3)
    p = consistent(rng.random((500, len(CLASSES[game]))), game)
    for ruleset in rulesets():
        if ruleset.rules.game.value != game:
            continue
        w, c = equity_weights(game, ruleset.rules)
        assert np.allclose(p @ w + c, equity(p, game, ruleset.rules), atol=1e-12), ruleset.name


@pytest.mark.parametrize("game", GAMES)
def test_the_screen_keeps_each_rolls_best_few_in_order(game):
    """Evaluator.successors: without a pruner, roll_successors; with the
    shipped one, of each roll the best PRUNE_KEEP by the pruner's screen
    values (every result of a roll with no more), in roll_successors' order."""
    rules = find_ruleset(game).rules
    boards = np.array(_positions(game, 2))[::3]
    after, counts = roll_successors(rules, boards)
    plain = Evaluator(rules, prune=False)
    assert plain.pruner is None
    same = plain.successors(boards)
    assert np.array_equal(same[0], after) and np.array_equal(same[1], counts)
    ev = Evaluator(rules)
    assert ev.pruner is not None and ev.pruner.meta["screens"] == ev.name
    kept, kept_counts = ev.successors(boards)
    assert np.array_equal(kept_counts, np.minimum(counts, PRUNE_KEEP)) and (counts > PRUNE_KEEP).any()
    value = ev.screen_values(after)
    start = kept_start = 0
    for n, m in zip(counts.ravel(), kept_counts.ravel()):
        group, mine = after[start:start + n], kept[kept_start:kept_start + m]
        order = sorted(range(n), key=lambda i: value[start + i])[:m]
        assert np.array_equal(mine, group[sorted(order)])
        start, kept_start = start + n, kept_start + m


@pytest.mark.parametrize("game", GAMES)
def test_screen_values_are_exact_for_finished_games(game):
    """A finished game is screened by its outcome, not by the pruner's guess
    (a winning bear-off is never screened out)."""
    rules = find_ruleset(game).rules
    ev = Evaluator(rules)
    boards = np.array(_positions(game, 3))
    rows = np.concatenate([roll_successors(rules, boards[k:k + 1])[0] for k in range(len(boards) - 12, len(boards))])
    done = finished(rows)
    assert done.any()
    exact = equity(ev.probabilities(rows[done])[0], game, rules)   # (probabilities: finished games exact)
    assert np.allclose(ev.screen_values(rows)[done], exact, atol=1e-9)
    assert set(np.round(exact, 6)) <= {-3.0, -2.0, -1.0} if game == "backgammon" else (exact < 0).all()


@pytest.mark.parametrize("game", GAMES)
def test_the_screened_look_ahead_stays_close_to_the_full_one(game):
    """The screen only drops results the pruner ranks below a roll's best few:
    at 1-ply the values of self-play positions move by little on average, and
    a screen that kept the worst few instead would move them by far more."""
    rules = find_ruleset(game).rules
    boards = np.array(_positions(game, 2))[::2]
    boards = boards[~finished(boards)]
    full = equity(Evaluator(rules, prune=False).values(boards, 1), game, rules)
    screened = equity(Evaluator(rules).values(boards, 1), game, rules)
    error = np.abs(screened - full).mean()
    assert error < 0.003

    class Worst(Evaluator):   # the screen turned upside down
        def screen_values(self, rows):
            return -super().screen_values(rows)

    assert np.abs(equity(Worst(rules).values(boards, 1), game, rules) - full).mean() > 10 * error


@pytest.mark.parametrize("game", GAMES)
def test_a_pruner_screens_only_for_the_weights_it_was_trained_for(game, tmp_path):
    """Another main network gets no screen, even under the name of the one
    the pruner screens for (another checkpoint of its run, a fine-tune); a
    pruner recording only a name (made before 1.2) goes by the name; one
    given by path for other weights is refused, naming both digests."""
    rules = find_ruleset(game).rules
    main = load_network(game)
    pruner = load_prune_network(game)
    assert pruner is not None and pruner.meta["screens_digest"] == main.digest
    assert Evaluator(rules).pruner is pruner
    renamed = Network(main.game, main.w1, main.b1, main.w2, main.b2, {**main.meta, "version": "mine"})
    renamed.save(tmp_path / "renamed.npz")  # the same weights, shipped again under another name
    assert Evaluator(rules, weights=str(tmp_path / "renamed.npz")).pruner is pruner
    for name, meta in (("other", {**main.meta, "version": "other"}), ("namesake", main.meta)):
        Network(main.game, main.w1 * 1.01, main.b1, main.w2, main.b2, meta).save(tmp_path / f"{name}.npz")
        assert Evaluator(rules, weights=str(tmp_path / f"{name}.npz")).pruner is None, name
    with pytest.raises(AnalysisError, match=f"not for .*weights {Network.load(tmp_path / 'namesake.npz').digest}"):
        _ = Evaluator(rules, weights=str(tmp_path / "namesake.npz"), prune=str(WEIGHTS_DIR / f"{game}-prune.npz")).pruner
    older = Network(pruner.game, pruner.w1, pruner.b1, pruner.w2, pruner.b2,
                    {k: v for k, v in pruner.meta.items() if k != "screens_digest"})
    older.save(tmp_path / "older.npz")
    namesake = str(tmp_path / "namesake.npz")
    assert Evaluator(rules, weights=namesake, prune=str(tmp_path / "older.npz")).pruner is not None  # by name


def test_a_pruner_is_refused_as_a_main_network(tmp_path):
    pruner = load_prune_network("backgammon")
    assert pruner is not None and pruner.is_prune and pruner.stem == "backgammon-prune"
    pruner.save(tmp_path / "prune.npz")
    with pytest.raises(AnalysisError, match="pruning network"):
        load_network("backgammon", str(tmp_path / "prune.npz"))


def test_train_prune_collects_values_fits_and_resumes(tmp_path, monkeypatch):
    """nardtools train --prune: a small run; resumed for one more epoch, it
    gives the weights of a run that went on without stopping; resumed with
    no --epochs, it keeps the epochs it has planned."""
    from typer.testing import CliRunner

    from nardtools.analysis import prunenet
    from nardtools.cli import app

    monkeypatch.setattr(prunenet, "POSITIONS", 40)
    runner = CliRunner()
    args = ["train", "--game", "backgammon", "--prune", "--games", "2", "--hidden", "8", "--quiet"]
    first = runner.invoke(app, [*args, "--epochs", "1", "--output", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["train", "--resume", str(tmp_path / "a"), "--epochs", "2", "--quiet"])
    assert again.exit_code == 0, again.output
    kept = runner.invoke(app, ["train", "--resume", str(tmp_path / "a"), "--quiet"])
    assert kept.exit_code == 0 and "after 2 epochs" in kept.output, kept.output
    straight = runner.invoke(app, [*args, "--epochs", "2", "--output", str(tmp_path / "b")])
    assert straight.exit_code == 0, straight.output
    a, b = Network.load(tmp_path / "a" / "checkpoint.npz"), Network.load(tmp_path / "b" / "checkpoint.npz")
    assert a.is_prune and a.meta["screens"] == load_network("backgammon").name and a.meta["epochs"] == 2
    assert a.meta["screens_digest"] == load_network("backgammon").digest
    assert a.encoding == "board" and a.w1.shape == (198, 8)
    assert np.array_equal(a.w1, b.w1) and np.array_equal(a.w2, b.w2)
    rows = np.load(tmp_path / "a" / "positions.npz")["rows"]
    assert len(rows) > 100 and not finished(rows).any()
    clash = runner.invoke(app, [*args, "--race", "--output", str(tmp_path / "c")])
    assert clash.exit_code != 0 and "choose one" in clash.output


def test_a_pruning_network_is_an_eighth_of_a_wide_main_network(tmp_path):
    """Without --hidden a pruning network has 64 units, or an eighth of its
    main network's where that is more, and a resumed run keeps that width."""
    from nardtools.analysis.prunenet import train_prune

    for main_width, width in ((256, 64), (1024, 128)):
        parent = tmp_path / f"main-{main_width}.npz"
        Network.random("long", main_width, seed=2, encoding="blocks").save(parent)
        folder = tmp_path / f"prune-{main_width}"
        net = train_prune("long", folder, games=1, positions=20, epochs=1, seed=3, weights=str(parent))
        assert net.w1.shape == (198, width) and net.meta["screens"] == Network.load(parent).name
        again = train_prune("long", folder, games=1, positions=20, epochs=2, seed=3, resume=True)
        assert again.w1.shape == (198, width) and again.meta["epochs"] == 2
