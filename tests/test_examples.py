"""The bundled examples: they validate, and they are what the generator makes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from nardtools.notation.validate import expand_paths, validate_paths

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_examples_validate_with_no_problems():
    files = expand_paths([EXAMPLES])
    assert any("long-nardy" in f for f in files) and len(files) >= 6
    reports = list(validate_paths(files))
    assert [str(p) for r in reports for p in r.problems] == []
    assert all(r.games == r.complete_games > 0 for r in reports)


def test_examples_are_reproducible(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("make_examples", EXAMPLES / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    made_files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(made_files) >= 10
    for made in made_files:
        committed = EXAMPLES / made.relative_to(tmp_path)
        assert made.read_text() == committed.read_text(), committed


def test_variant_examples_round_trip_through_the_native_format():
    from nardtools.notation.native import export_native, read_native
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match

    for path in expand_paths([EXAMPLES / "variants"]):
        replayed = replay_match(read_record(path))
        assert replayed.errors == [] and replayed.games
        text = export_native(replayed)
        again = replay_match(read_native(text))
        assert export_native(again) == text
        assert again.ruleset.rules == replayed.ruleset.rules
