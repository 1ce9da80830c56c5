"""Fuzz the compiled core's entry points under AddressSanitizer and UBSan.

The core reads bytes that come from untrusted files, so every entry point is
fed mutated records (``tests/mutate.py``: the examples and corpus, corrupted
the ways real files are) and random play texts and boards, in a build of the
core with ``-fsanitize=address,undefined``.  Any sanitizer report stops the
run with a non-zero exit; so does an answer the core gives for a record that
the reference disagrees with (checked on a sample).

    python tests/fuzz_core.py --seconds 600      # build, then fuzz for ten minutes

The sanitized build goes to a temporary folder; the installed core is not
touched.  ``tests/test_core.py`` runs it for a few seconds (marked slow).
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer",
            "-g", "-O1", "-std=c11", "-Wall", "-Wextra"]


def build(folder: Path) -> Path:
    """The core compiled with the sanitizers, as ``folder/_core.so``."""
    sources = sorted(glob.glob(str(ROOT / "csrc" / "*.c")))
    out = folder / "_core.so"
    subprocess.run(["gcc", "-shared", "-fPIC", *SANITIZE, f"-I{sysconfig.get_paths()['include']}",
                    *sources, "-o", str(out)], check=True)
    return out


def runtime() -> str:
    """The sanitizer runtimes to preload into the interpreter."""
    libs = [subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True, check=True).stdout.strip()
            for name in ("libasan.so", "libubsan.so")]
    return " ".join(libs)


def fuzz(module_path: str, seconds: float, seed: int) -> int:
    """Inside the sanitized interpreter: feed the entry points until time is up."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("nardtools._core", module_path)
    assert spec and spec.loader
    core = importlib.util.module_from_spec(spec)
    sys.modules["nardtools._core"] = core
    spec.loader.exec_module(core)
    sys.path.insert(0, str(ROOT))
    from nardtools.core import CORE, pack_rules
    from nardtools.notation import validate
    from nardtools.rules import rulesets
    from tests.mutate import mutant

    assert CORE is core, "the sanitized core was not the one loaded"
    core.net_threads(3)   # (a large batch's forward pass in threads, whatever the machine)
    packed = [pack_rules(rs.rules) for rs in rulesets()]
    rng = random.Random(seed)
    end = time.monotonic() + seconds
    done = checked = vouched = 0
    while time.monotonic() < end:
        data = mutant("mat", rng.randrange(10**9))
        core.mat_tags(data)
        rules = rng.choice(packed)
        counts = core.mat_vouch_many([(data, rules)])[0]
        core.deferred()
        core.mat_stats(data, rules, True, None)
        vouched += counts is not None
        if counts is not None and vouched % 10 == 1:  # the core's word against the reference's
            report = validate.replay_file("x.mat", data=data)
            quick = validate.vouched("x.mat", data=data)
            if quick is not None and (quick.games, quick.turns) != (report.games, report.turns):
                print(f"the core and the reference disagree on mutant {done}", file=sys.stderr)
                return 1
            checked += 1
        for _ in range(20):
            _play_texts(core, rng, rules)
        core.playouts(rules, 1, rng.randrange(2**64), 0, True)
        _forward(core, rng)
        if rng.random() < 0.02:   # the rolls' results of many boards, split over threads
            core.roll_successors(rules, bytes(_boards(rng, rng.randrange(32, 80))))
        done += 1
    print(f"{done:,} mutated records and {done * 20:,} random plays through the sanitized core in "
          f"{seconds:.0f} s; {vouched:,} vouched for, {checked} of them re-checked by the reference; no report")
    return 0


def _board(rng: random.Random) -> list[int]:
    side = [0] * 26
    for _ in range(15):
        side[rng.randrange(26)] += 1
    return side


def _sides(rng: random.Random) -> tuple[list[int], list[int]]:
    me, opp = _board(rng), _board(rng)
    for p in range(1, 25):  # no point held by both sides
        if me[p] and opp[25 - p]:
            opp[25 - p] = 0
    return me, opp


def _boards(rng: random.Random, n: int) -> list[int]:
    """``n`` board rows of 52 counts, one after another."""
    return [c for _ in range(n) for side in _sides(rng) for c in side]


def _play_texts(core: object, rng: random.Random, rules: bytes) -> None:
    me, opp = _sides(rng)
    dice = tuple(sorted((rng.randint(1, 6) for _ in range(rng.choice((1, 2, 4)))), reverse=True))
    plays = core.legal_plays(rules, me, opp, dice, len(dice) != 1, rng.randrange(-1, 2))  # type: ignore[attr-defined]
    alphabet = "0123456789/*() barofBAROF-"
    text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
    core.judge(rules, me, opp, dice, True, 0, text)  # type: ignore[attr-defined]
    if plays:
        steps = rng.choice(plays)[4]
        core.judge(rules, me, opp, dice, True, 0, tuple((s, t) for s, t, _ in steps))  # type: ignore[attr-defined]


def _forward(core: object, rng: random.Random) -> None:
    """Random boards (any int8 counts) through a random network's compiled forward pass, held to numpy's."""
    import numpy as np

    from nardtools.analysis.nets import Network

    game = rng.choice(("long", "backgammon"))
    race = rng.choice((0, 6))
    net = Network.random(game, rng.choice((1, 7, 64)), rng.randrange(1000), race_points=race,
                         encoding="board" if race else rng.choice(("board", "contact", "blocks")
                                                                             if game == "long" else ("board", "contact")))
    rows = rng.randrange(4) if rng.random() > 0.02 else rng.randrange(1024, 1600)   # (now and then, split over threads)
    boards = np.array([[rng.randrange(-128, 128) for _ in range(52)] for _ in range(rows)], np.int8)
    hidden, k = net.w2.shape
    w2, b2 = np.zeros((hidden, 8), np.float32), np.zeros(8, np.float32)
    w2[:, :k], b2[:k] = net.w2, net.b2
    out = np.empty((len(boards), k), np.float32)
    core.net_forward(net.compiled_encoding, hidden, k, net.w1, net.b1, w2, b2, boards, out)  # type: ignore[attr-defined]
    if len(boards) and np.abs(out - net(net.encode(boards))).max() > 1e-5:
        raise AssertionError(f"the compiled forward pass is not numpy's on {boards.tolist()}")
    from nardtools.analysis.rows import furthest
    from nardtools.core import reference_engine

    with reference_engine():
        expected = furthest(boards)
    if not np.array_equal(furthest(boards), expected):
        raise AssertionError(f"the compiled furthest points are not numpy's on {boards.tolist()}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--inside", help=argparse.SUPPRESS)  # the sanitized module, in the child
    args = ap.parse_args()
    if args.inside:
        return fuzz(args.inside, args.seconds, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        module = build(Path(tmp))
        env = {**os.environ, "LD_PRELOAD": runtime(), "PYTHONMALLOC": "malloc",
               "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:halt_on_error=1",
               "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1", "NARDTOOLS_ENGINE": ""}
        done = subprocess.run([sys.executable, __file__, "--inside", str(module), "--seconds", str(args.seconds),
                               "--seed", str(args.seed)], env=env, check=False)
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
