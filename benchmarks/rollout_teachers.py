"""How near a training target is to the truth (docs/analysis.md, "The
generations"): the targets ``train --search --rollouts`` would fit, computed
for the positions of a committed Long Nardy rollout set and measured against
its equities, for several rollout recipes in one run.

    python benchmarks/rollout_teachers.py [--set 0.7] [--positions 1000] [--jobs 2]
        [--recipe plain:36:12 --recipe luckless:8:12 ...] [--weights 1,0.7,0.5]
        [--search-ply 0] [--network FILE [--prune-with FILE]] [--noise] [--student FILE ...]

A recipe is ``KIND:GAMES:T``: GAMES rollout games a position (the first roll
stratified), plain or luckless (each roll's luck taken out), stopped after T
plays and valued there, all by the network (``--network``, the shipped one
by default).  Each is blended as a training run blends it
(``--rollout-weight W``: W of the rollout against 1 - W of the network's
look-ahead at ``--search-ply``, its own 0-ply by default) and printed as the
mean absolute equity error against the set, with the positions a second the
recipe's rollouts took.  The network's 0-ply alone is the first row (a
student fitted to the targets starts there), then the look-ahead blended
with, when it is not the 0-ply.
With ``--noise``, each recipe is rolled out again with four times its games
and gets a second row: the target's bias, the root mean square of its error
with the noise taken out, both the set's (its standard errors) and the
rollouts' own.  A target's mean square error is its bias's plus its noise's,
and the rollouts' noise falls as 1/games, so the two recipes' mean squares
(the set's noise taken out), m and m4, give the bias's as m4 - (m - m4) / 3.
A student fitted to many positions averages the noise away; the bias it
keeps.
Each ``--student`` (a network fitted to such targets) adds a row for its own
0-ply and, under each recipe, a row of its distance from that recipe's
targets: whether what it learned on its training positions carried to the
set's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardtools import find_ruleset
from nardtools.analysis.evaluate import Evaluator
from nardtools.analysis.probabilities import equity
from nardtools.analysis.searchnet import rollout_targets, weighed

SETS = {"0.2": "long-rollouts.npz", "0.4": "long-rollouts-0.4.npz", "0.7": "long-rollouts-0.7.npz"}
RECIPES = ["plain:36:12", "luckless:4:24", "luckless:8:12"]


def recipe(text: str) -> tuple[str, int, int]:
    """``KIND:GAMES:T`` as its three parts, checked."""
    try:
        kind, games, truncate = text.split(":")
        if kind not in ("plain", "luckless") or int(games) < 1 or int(truncate) < 1:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(f"a recipe is KIND:GAMES:T (plain or luckless, games and T >= 1), not {text!r}") from None
    return kind, int(games), int(truncate)


def weights_of(text: str) -> list[float]:
    """A comma list of rollout weights in (0, 1]."""
    try:
        ws = [float(w) for w in text.split(",")]
    except ValueError:
        ws = []
    if not ws or any(not 0 < w <= 1 for w in ws):
        raise argparse.ArgumentTypeError(f"weights are a comma list of numbers in (0, 1], not {text!r}") from None
    return ws


def off(a: np.ndarray, b: np.ndarray) -> str:
    """The mean absolute difference of two equity arrays, to 4 places."""
    return f"{np.abs(a - b).mean():.4f}"


def roll_out(rows: np.ndarray, kind: str, games: int, truncate: int, network: str | None, prune: str | None,
             seed: int, jobs: int) -> np.ndarray:
    """The rollout probabilities of ``rows`` by one recipe, as a training run computes them."""
    with tempfile.TemporaryDirectory() as folder:
        return rollout_targets("long", rows, Path(folder), games=games, truncate=truncate,
                               luckless=kind == "luckless", weights=network, prune=prune, seed=seed, jobs=jobs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=sorted(SETS), default="0.7")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--recipe", type=recipe, action="append", help=f"KIND:GAMES:T (default {' '.join(RECIPES)})")
    ap.add_argument("--weights", type=weights_of, default=[1.0, 0.7, 0.5])
    ap.add_argument("--search-ply", type=int, choices=(0, 1, 2), default=0,
                    help="the look-ahead each rollout is blended with, as train --search --search-ply (default 0)")
    ap.add_argument("--network", help="weights file (default: the shipped Long Nardy network)")
    ap.add_argument("--prune-with", help="the pruning network that screens the network's look-ahead "
                    "(default: the shipped one, where it screens for that network)")
    ap.add_argument("--student", action="append", default=[],
                    help="a network fitted to such targets, named by its file's name (repeatable)")
    ap.add_argument("--noise", action="store_true",
                    help="roll each recipe out again with four times its games and add a row of its bias, the noise "
                    "taken out")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    if args.positions < 1:
        ap.error("--positions must be at least 1")
    data = np.load(Path(__file__).resolve().parent / "data" / SETS[args.set])
    rows, truth = data["rows"][:args.positions], data["equity"][:args.positions]
    set_noise = float(np.mean(data["stderr"][:args.positions] ** 2))
    rules = find_ruleset("long").rules
    ev = Evaluator(rules, weights=args.network, prune=args.prune_with or True)
    own = ev.values(rows, 0)
    looked = ev.values(rows, args.search_ply) if args.search_ply else own
    print(f"{len(rows)} positions of the set of {args.set}, {ev.name}; mean absolute equity error of the target\n")
    print("| target | " + " | ".join(f"weight {w:g}" for w in args.weights) + " | positions/s |")
    print("|---|" + "---|" * (len(args.weights) + 1))
    def row(label: str, cells: list[str], rate: str = "") -> None:
        print(f"| {label} | " + " | ".join(cells + [""] * (len(args.weights) - len(cells))) + f" | {rate} |")

    row("0-ply alone", [off(equity(own, "long", rules), truth)])
    if args.search_ply:
        row(f"{args.search_ply}-ply alone (blended with)", [off(equity(looked, "long", rules), truth)])
    students = {Path(file).name: equity(Evaluator(rules, weights=file).values(rows, 0), "long", rules)
                for file in args.student}
    for name, value in students.items():
        row(f"student {name}, 0-ply", [off(value, truth)])
    for kind, games, truncate in args.recipe or [recipe(r) for r in RECIPES]:
        began = time.perf_counter()
        rolled = roll_out(rows, kind, games, truncate, args.network, args.prune_with, args.seed, args.jobs)
        rate = len(rows) / (time.perf_counter() - began)
        targets = [equity(weighed(looked, rolled, w), "long", rules) for w in args.weights]
        name = f"{kind}, {games} game{'s' * (games > 1)}, T = {truncate}"
        row(name, [off(t, truth) for t in targets], f"{rate:,.0f}")
        if args.noise:
            more = roll_out(rows, kind, 4 * games, truncate, args.network, args.prune_with, args.seed, args.jobs)
            square = [np.mean((t - truth) ** 2) - set_noise for t in targets]
            square4 = [np.mean((equity(weighed(looked, more, w), "long", rules) - truth) ** 2) - set_noise
                       for w in args.weights]
            row(f"{name}: bias (RMS, noise out)",
                [f"{np.sqrt(max(m4 - (m - m4) / 3, 0.0)):.4f}" for m, m4 in zip(square, square4)])
        for name, value in students.items():
            row(f"student {name}: distance from these targets", [off(value, t) for t in targets])


if __name__ == "__main__":
    main()
