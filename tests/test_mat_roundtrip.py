""".mat export: round trips keep every move, cube action and score; GNU Backgammon
imports what we write without a warning (optional: needs /usr/games/gnubg)."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nardtools import find_ruleset
from nardtools.notation.mat import export_mat, read_mat, read_mat_file
from nardtools.notation.random_records import random_match
from nardtools.notation.record import ActionKind
from nardtools.notation.replay import replay_match
from nardtools.notation.validate import expand_paths

from .corpus import CORPUS, needs_corpus

HERE = Path(__file__).resolve().parent

GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)


def summary(replayed):
    """Everything a round trip must keep: per game the score, and each action's
    player, kind, dice, cube value and resulting position."""
    games = []
    for g in replayed.games:
        after = {id(t.action): t.after for t in g.turns}
        games.append((g.record.score, [
            (a.player, a.kind, a.roll, a.value if a.kind is not ActionKind.ROLL else 0, after.get(id(a)))
            for a in g.record.actions if a.kind is not ActionKind.LOSE]))
    return games


def corpus_files():
    return expand_paths([CORPUS])


@needs_corpus
def test_corpus_round_trip_keeps_everything():
    for path in corpus_files():
        first = replay_match(read_mat_file(path))
        second = replay_match(read_mat(export_mat(first), path))
        assert summary(first) == summary(second), path
        assert second.errors == []


@pytest.mark.parametrize("ruleset", ["long", "nardionline", "backgammon", "play65"])
def test_random_matches_round_trip(ruleset):
    record = random_match(find_ruleset(ruleset), 5, seed=11)
    first = replay_match(record, rules=ruleset)
    assert first.errors == []
    text = export_mat(first)
    second = replay_match(read_mat(text))
    assert second.ruleset.rules == first.ruleset.rules
    assert summary(first) == summary(second)
    assert export_mat(second) == text  # writing is stable


def gnubg_import(path: Path) -> str:
    cmd = path.with_suffix(".cmd")
    cmd.write_text(f'set confirm new off\nimport mat "{path}"\nshow score\n')
    out = subprocess.run([GNUBG, "-t", "-q", "-c", str(cmd)], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=120)
    return out.stdout + out.stderr


def score_line(text: str) -> str:
    m = re.search(r"The score \(after \d+ games?\) is: .*", text)
    return m.group(0) if m else ""


@pytest.mark.oracle
@needs_corpus
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is absent")
def test_gnubg_imports_our_export_without_warnings(tmp_path):
    files = corpus_files()
    sample = random.Random(3).sample(files, 8)
    for i, path in enumerate(sample):
        ours = tmp_path / f"ours{i}.mat"
        ours.write_text(export_mat(replay_match(read_mat_file(path))))
        imported = gnubg_import(ours)
        assert "Invalid move" not in imported and "WARNING" not in imported, path
        original = tmp_path / f"orig{i}.mat"
        original.write_bytes(Path(path).read_bytes())
        assert score_line(imported) == score_line(gnubg_import(original)) != "", path


@pytest.mark.slow
@pytest.mark.oracle
@needs_corpus
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is absent")
def test_gnubg_imports_every_export(tmp_path):
    for i, path in enumerate(corpus_files()):
        ours = tmp_path / f"ours{i}.mat"
        ours.write_text(export_mat(replay_match(read_mat_file(path))))
        imported = gnubg_import(ours)
        assert "Invalid move" not in imported and "WARNING" not in imported, path


@pytest.mark.oracle
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is absent")
@pytest.mark.parametrize("name", ["nackgammon-3pt-seed7.mat", "hypergammon-3pt-seed8.mat",
                                  "../backgammon/backgammon-5pt-seed6.mat"])
def test_gnubg_imports_the_variant_examples(tmp_path, name):
    path = HERE.parent / "examples" / "variants" / name
    copy = tmp_path / "x.mat"
    copy.write_bytes(path.read_bytes())
    imported = gnubg_import(copy)
    assert "WARNING" not in imported and "Invalid move" not in imported
    replayed = replay_match(read_mat_file(path))
    games = sum(g.complete for g in replayed.games)
    assert f"after {games} game" in score_line(imported)
