"""The compiled core gives the reference's answers (tests/differential.py),
and it is there: the tests require it unless NARDTOOLS_ENGINE=reference."""

from __future__ import annotations

import os
import random
import zlib
from pathlib import Path

import pytest

from nardtools.core import CORE

from .differential import cases, configurations, judgements_agree, plays_agree

REFERENCE_ONLY = os.environ.get("NARDTOOLS_ENGINE") == "reference"


def test_the_core_is_built():
    """A missing build fails here, never skips: CI runs the core."""
    assert CORE is not None or REFERENCE_ONLY, "nardtools._core is not built (a C compiler is needed)"


@pytest.mark.skipif(REFERENCE_ONLY, reason="the reference alone is being tested")
def test_the_core_reads_the_rules_by_the_names_python_packs():
    """``core.h`` names each of the options it reads (``RULE_FIELDS``), and
    they are the names, in the order, :func:`pack_rules` packs; a field added
    on one side only would be caught here (and at import)."""
    import struct

    from nardtools.core import RULE_FIELDS, pack_rules
    from nardtools.rules import find_ruleset

    assert CORE is not None and CORE.RULE_FIELDS == RULE_FIELDS
    rules = find_ruleset("long").rules
    values = dict(zip(RULE_FIELDS, struct.unpack(f"<{len(RULE_FIELDS)}i", pack_rules(rules))))
    assert len(pack_rules(rules)) == 4 * len(RULE_FIELDS)
    assert values["long"] == 1 and values["hitting"] == 0 and values["points_1"] == 1 and values["points_2"] == 2
    bg = dict(zip(RULE_FIELDS, struct.unpack(f"<{len(RULE_FIELDS)}i", pack_rules(find_ruleset("backgammon").rules))))
    assert bg["long"] == 0 and bg["hitting"] == 1 and bg["cube"] == 1 and bg["points_3"] == 3 == bg["points_4"]


@pytest.mark.skipif(REFERENCE_ONLY, reason="the reference alone is being tested")
@pytest.mark.parametrize("label, rules", configurations(), ids=[label for label, _ in configurations()])
def test_core_equals_reference(label, rules):
    rng = random.Random(zlib.crc32(label.encode()))
    compared = judged = 0
    for position, roll, first_turn in cases(rules, rng, 120):
        plays = plays_agree(position, roll, rules, first_turn)
        judged += judgements_agree(position, roll, rules, first_turn, plays[:6], rng)
        compared += 1
    assert compared == 120 and judged > 100


def test_perft_table():
    """The committed table (tests/fixtures/make_perft.py made it with the
    reference) is what both implementations give now."""
    import json
    from pathlib import Path

    from nardtools import Position

    from .fixtures.make_perft import row

    table = json.loads((Path(__file__).parent / "fixtures" / "perft.json").read_text())
    rules = dict(configurations())
    assert len(table) > 150
    for entry in table:
        position = Position.parse(entry["position"])
        for core in ((False, True) if not REFERENCE_ONLY else (False,)):
            got = row(position, rules[entry["rules"]], entry["first_turn"], core=core)
            assert got == entry["rolls"], (entry["rules"], entry["position"], "core" if core else "reference")


#: The tests of the rules that a reference-only run repeats (CI's short suite).
REFERENCE_SUITE = ["test_core.py", "test_backgammon.py", "test_long_nardy.py", "test_variants.py",
                   "test_game.py", "test_playouts.py", "test_validate.py"]


@pytest.mark.skipif(REFERENCE_ONLY, reason="this is the reference-only run")
def test_the_reference_alone_passes_the_rules_tests():
    """The fallback without a compiler: the rules' tests pass with
    NARDTOOLS_ENGINE=reference (the core is then never loaded)."""
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).parent
    env = {**os.environ, "NARDTOOLS_ENGINE": "reference"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider",
                           *(str(here / name) for name in REFERENCE_SUITE)],
                          env=env, capture_output=True, text=True, timeout=600, cwd=here.parent, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]


def test_the_sanitized_core_survives_mutated_records():
    """tests/fuzz_core.py for a few seconds: the core built with AddressSanitizer
    and UBSan, fed mutated records, play texts and boards (the ten-minute run
    is `python tests/fuzz_core.py --seconds 600`)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    if shutil.which("gcc") is None:
        pytest.skip("no gcc to build the sanitized core")
    script = Path(__file__).parent / "fuzz_core.py"
    done = subprocess.run([sys.executable, str(script), "--seconds", "6"], capture_output=True, text=True, check=False,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "no report" in done.stdout


def test_the_sources_of_the_core_are_out_of_the_import_path():
    """Issue 22: the C sources, shipped inside the package as nardtools/_core/,
    imported as an empty namespace package where no compiler had built the
    module, and every command failed.  They live in csrc/ now, and the stub
    beside the module is shipped."""
    import importlib.util

    package = Path(__file__).resolve().parent.parent / "nardtools"
    assert not (package / "_core").exists() and (package / "_core.pyi").is_file()
    spec = importlib.util.find_spec("nardtools._core")
    assert spec is None or (spec.origin or "").endswith((".so", ".pyd"))
