"""The evaluator's benchmarks run, and their output keeps its shape
(benchmarks/decisions.py's JSON, benchmarks/long_nardy.py's tables), on a
few decisions and games: the figures in the docs come from these scripts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _table_rows(text: str) -> dict[str, list[str]]:
    """A printed Markdown table's rows: each row's cells after the first, by its first."""
    return {line.split(" | ")[0].strip("| "): line.split(" | ")[1:] for line in text.splitlines()
            if line.startswith("| ")}


def test_the_decisions_benchmark_splits_the_corpus_once_by_match():
    """Issue 64: every match in exactly one half, by its name alone, and
    decisions drawn from every match of the half asked for."""
    import importlib.util

    from .corpus import CORPUS, require_corpus

    require_corpus()
    spec = importlib.util.spec_from_file_location("decisions_bench", ROOT / "benchmarks" / "decisions.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    matches = sorted((CORPUS / "bglab-llabba").glob("*.txt"))
    halves = {m.name: bench.half_of(m) for m in matches}
    assert set(halves.values()) == {"dev", "test"} and min(list(halves.values()).count(h) for h in ("dev", "test")) > 30
    assert all(bench.half_of(Path("x") / name) == half for name, half in halves.items())  # the name alone decides


def test_the_decisions_benchmark_writes_its_figures(tmp_path):
    pytest.importorskip("gnubg_nn")
    out = tmp_path / "decisions.json"
    text = _run("benchmarks/decisions.py", "--decisions", "12", "--plies", "0,1", "--json", str(out))
    figures = json.loads(out.read_text())
    assert figures["decisions"] == 12 and figures["referee"] == "gnubg-nn 2-ply" and 0 <= figures["good_plays"] <= 12
    assert figures["sample"] == "dev"  # the development half by default: the test half is for reporting
    assert set(figures["evaluators"]) == {"nardtools 0-ply", "nardtools 1-ply", "gnubg-nn 0-ply"}
    anchor = figures["evaluators"]["gnubg-nn 0-ply"]["loss_per_decision"]
    for name, row in figures["evaluators"].items():
        assert set(row) == {"loss_per_decision", "ratio_to_gnubg_0ply", "alarms", "false_alarms", "false_alarm_rate",
                            "false_alarms_of_good_plays", "false_alarms_of_alarms", "seconds"}
        assert row["loss_per_decision"] >= 0 and 0 <= row["false_alarms"] <= row["alarms"] <= 12
        assert row["false_alarm_rate"] == round(row["false_alarms"] / 12, 4)
        if anchor:
            assert row["ratio_to_gnubg_0ply"] == pytest.approx(row["loss_per_decision"] / anchor, abs=0.01)
        assert f"| {name} |" in text


def test_the_long_nardy_benchmark_builds_its_set_and_measures(tmp_path):
    if any(subprocess.run(["git", "cat-file", "-e", rev], cwd=ROOT, capture_output=True).returncode
           for rev in ("2330bc0", "a6bb6ec")):
        pytest.skip("the git history (networks 0.2 and 0.4) is not here")
    path = tmp_path / "set.npz"
    _run("benchmarks/long_nardy.py", "--build-set", "3", "--rollout-games", "4", "--jobs", "1", "--set", str(path))
    with np.load(path) as data:
        how = json.loads(str(data["how"]))
        assert data["rows"].shape == (3, 52) and data["probabilities"].shape == (3, 7) and len(data["equity"]) == 3
        assert how["games_per_position"] == 4 and how["truncation"].startswith("none")
    assert not (tmp_path / "set.partial.npz").exists()  # the rollouts kept along the way, gone once the set is
    # a build stopped part way goes on from the rollouts it kept (here marked, to see that they are the ones used)
    with np.load(path) as data:
        key = json.dumps({"positions": 3, "games": 4, "player": "nardtools-long 0.2 (git 2330bc0)"})
        np.savez(tmp_path / "again.partial.npz", key=np.array(key), probabilities=data["probabilities"],
                 equity=data["equity"] + 9, stderr=data["stderr"], seconds=np.array(5.0))
        again = _run("benchmarks/long_nardy.py", "--build-set", "3", "--rollout-games", "4", "--jobs", "1", "--set",
                     str(tmp_path / "again.npz"))
        assert "going on from 3 positions rolled out before" in again
        with np.load(tmp_path / "again.npz") as resumed:
            assert np.array_equal(resumed["equity"], data["equity"] + 9)
    text = _run("benchmarks/long_nardy.py", "--games", "4", "--jobs", "1", "--plies", "0", "--set", str(path))
    assert "4 games in seat-swapped pairs with shared dice" in text
    assert sum(line.split(" | ")[1:2] == ["0"] for line in text.splitlines()) == 2  # both networks, 0-ply, on the set
    deeper = _run("benchmarks/long_nardy.py", "--games", "2", "--jobs", "1", "--new-ply", "1", "--plies", "0",
                  "--set", str(path))
    assert "at 1-ply against 0-ply, 2 games in seat-swapped pairs" in deeper
    # a set of the same positions rolled out by another network (0.4), and both sets measured
    stronger = tmp_path / "stronger.npz"
    _run("benchmarks/long_nardy.py", "--build-set", "3", "--rollout-games", "4", "--jobs", "1", "--player-rev",
         "a6bb6ec", "--set", str(stronger))
    with np.load(path) as first, np.load(stronger) as second:
        assert np.array_equal(first["rows"], second["rows"])
        assert json.loads(str(second["how"]))["player"].startswith("nardtools-long-0.4 ")
        with np.load(ROOT / "benchmarks" / "data" / "long-rollouts-0.4.npz") as committed:
            assert np.array_equal(first["rows"], committed["rows"][:3])  # the committed sets' positions
    # other seeds (--set-seed), other positions: the held-out set's way
    other = tmp_path / "other.npz"
    _run("benchmarks/long_nardy.py", "--build-set", "3", "--rollout-games", "4", "--jobs", "1", "--set-seed",
         "950000", "--set", str(other))
    with np.load(path) as first, np.load(other) as second:
        assert not any(np.array_equal(a, b) for a in first["rows"] for b in second["rows"])
        assert json.loads(str(second["how"]))["first_seed"] == 950000
    # one player's sets pooled: the error rate on all their positions, each
    # network's over the old one's (0.2's) beside it
    text = _run("benchmarks/long_nardy.py", "--games", "0", "--jobs", "1", "--plies", "0", "--set", str(path),
                "--set", str(other))
    sections = text.split("\nThe ")
    assert len(sections) == 4 and sections[3].startswith("2 sets rolled out by nardtools-long 0.2 (git 2330bc0) at 0-ply")
    assert sections[3].splitlines()[0].endswith(", pooled: 6 positions")
    first, second, both = ({name: row for name, row in _table_rows(section).items() if name != "network"}
                           for section in sections[1:])
    assert len(both) == 2 and list(both) == list(first) == list(second)
    for name in both:
        assert float(both[name][1]) == pytest.approx((float(first[name][1]) + float(second[name][1])) / 2, abs=1.01e-4)
    old_row = [name for name in both if "0.2" in name]
    assert len(old_row) == 1 and all(rows[old_row[0]][4] == "1.000" for rows in (first, second, both))
    older = tmp_path / "long-0.3.npz"  # shipped before 0.4
    older.write_bytes(subprocess.run(["git", "show", "a6bb6ec^:nardtools/data/nets/long.npz"], cwd=ROOT,
                                     capture_output=True, check=True).stdout)
    both = _run("benchmarks/long_nardy.py", "--games", "0", "--jobs", "1", "--plies", "0", "--set", str(path),
                "--set", str(stronger), "--also", str(older))
    assert both.count("The rollout set ") == 2 and "The rollout set stronger.npz: 3 positions" in both
    assert sum(line.split(" | ")[1:2] == ["0"] for line in both.splitlines()) == 2 * 3


def test_the_rollout_teachers_benchmark_takes_the_noise_out():
    """A luckless game stopped after one play is the screened 1-ply whatever
    its first roll, so a recipe of such games has no noise: with ``--noise``
    its bias row is the 1-ply's RMS error with the set's own noise taken out,
    computed here apart; the shipped pruning network named by
    ``--prune-with`` screens as the shipped one does unnamed."""
    from nardtools import find_ruleset
    from nardtools.analysis.evaluate import Evaluator
    from nardtools.analysis.probabilities import equity

    pruner = ROOT / "nardtools" / "data" / "nets" / "long-prune.npz"
    text = _run("benchmarks/rollout_teachers.py", "--positions", "20", "--recipe", "luckless:1:1", "--weights", "1",
                "--search-ply", "1", "--noise", "--prune-with", str(pruner))
    rows = _table_rows(text)
    data = np.load(ROOT / "benchmarks" / "data" / "long-rollouts-0.7.npz")
    rules = find_ruleset("long").rules
    error = equity(Evaluator(rules).values(data["rows"][:20], 1), "long", rules) - data["equity"][:20]
    bias = np.sqrt(np.mean(error ** 2) - np.mean(data["stderr"][:20] ** 2))
    assert bias > 0.01
    assert float(rows["luckless, 1 game, T = 1"][0]) == pytest.approx(np.abs(error).mean(), abs=5.1e-5)
    assert float(rows["luckless, 1 game, T = 1: bias (RMS, noise out)"][0]) == pytest.approx(bias, abs=5.1e-5)


def test_the_rollout_teachers_benchmark_measures_each_recipe_against_the_set():
    """Stopped after one play, a plain rollout of 36 stratified games is
    exactly the unscreened 1-ply and a luckless one of a single game the
    screened 1-ply, so their rows at weight 1 are those 1-plies' errors
    against the set, computed here apart."""
    from nardtools import find_ruleset
    from nardtools.analysis.evaluate import Evaluator
    from nardtools.analysis.probabilities import equity

    shipped = ROOT / "nardtools" / "data" / "nets" / "long.npz"
    text = _run("benchmarks/rollout_teachers.py", "--positions", "6", "--recipe", "plain:36:1", "--recipe",
                "luckless:1:1", "--weights", "1,0.5", "--student", str(shipped))
    rows = _table_rows(text)
    data = np.load(ROOT / "benchmarks" / "data" / "long-rollouts-0.7.npz")
    rules = find_ruleset("long").rules

    def error(ply: int, prune: bool = True) -> float:
        values = Evaluator(rules, prune=prune).values(data["rows"][:6], ply)
        return float(np.abs(equity(values, "long", rules) - data["equity"][:6]).mean())

    # each figure is printed to 4 places
    assert float(rows["0-ply alone"][0]) == pytest.approx(error(0), abs=5.1e-5)
    assert float(rows["plain, 36 games, T = 1"][0]) == pytest.approx(error(1, prune=False), abs=5.1e-5)
    assert float(rows["luckless, 1 game, T = 1"][0]) == pytest.approx(error(1), abs=5.1e-5)
    # the shipped network as a student: its 0-ply is the first row, and its
    # distance from the weight-1 target of the plain T = 1 rollout is how far
    # its 0-ply is from its unscreened 1-ply
    student = next(name for name in rows if name.startswith("student ") and name.endswith(", 0-ply"))
    assert rows[student][0] == rows["0-ply alone"][0]
    distance = next(line.split(" | ")[1:] for line in text.splitlines() if "distance from these targets" in line)
    zero, one = (equity(Evaluator(rules, prune=False).values(data["rows"][:6], ply), "long", rules) for ply in (0, 1))
    assert float(distance[0]) == pytest.approx(float(np.abs(one - zero).mean()), abs=5.1e-5)
    # blended with the 1-ply instead (--search-ply 1): the look-ahead gets its
    # own row, and a target that is the 1-ply already stays it at any weight
    looked = _run("benchmarks/rollout_teachers.py", "--positions", "6", "--recipe", "luckless:1:1", "--weights",
                  "1,0.5", "--search-ply", "1")
    rows = _table_rows(looked)
    assert float(rows["1-ply alone (blended with)"][0]) == pytest.approx(error(1), abs=5.1e-5)
    assert rows["luckless, 1 game, T = 1"][:2] == [rows["1-ply alone (blended with)"][0]] * 2
    assert "error: argument --recipe" in subprocess.run(
        [sys.executable, "benchmarks/rollout_teachers.py", "--recipe", "plain:0:1"], cwd=ROOT, capture_output=True,
        text=True).stderr
