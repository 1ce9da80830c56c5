"""Plain against luckless rollouts (docs/analysis.md, "Rollouts"): on the
first positions of a committed Long Nardy rollout set, games played out by
the shipped network and stopped after some plays, with and without each
roll's luck taken out, in one run.

    python benchmarks/luckless_rollouts.py [--positions 200] [--truncate 12] [--set 0.7]

For each kind: games a position, one game's equity spread (the standard
deviation across a position's games, pooled over the positions), games a
second, and the variance a second buys (the spread squared over the rate:
lower is better), with the luckless rollout's gain over the plain one in
the same run.  The mean equities agree within their noise (the last column).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardtools import find_ruleset
from nardtools.analysis.evaluate import Evaluator
from nardtools.analysis.probabilities import equity
from nardtools.analysis.rollout import play_out, play_out_luckless, roll_pairs

SETS = {"0.2": "long-rollouts.npz", "0.4": "long-rollouts-0.4.npz", "0.7": "long-rollouts-0.7.npz"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--truncate", type=int, default=12)
    ap.add_argument("--set", choices=sorted(SETS), default="0.7")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    data = Path(__file__).resolve().parent / "data" / SETS[args.set]
    rows = np.load(data)["rows"][:args.positions]
    ev = Evaluator(find_ruleset("long").rules)
    print(f"{len(rows)} positions of the set of {args.set}, stopped after {args.truncate} plays, {ev.name}\n")
    print("| rollout | games a position | one game's sd | games/s | variance a second | mean equity |\n"
          "|---|---|---|---|---|---|")
    cost = {}
    for name, play, games in (("plain", play_out, 36), ("luckless", play_out_luckless, 8)):
        rng = np.random.default_rng(args.seed)
        starts = np.repeat(rows, games, axis=0)
        first = np.arange(len(starts)) % games % 36

        def dice_of(plays: int, first: np.ndarray = first, rng: np.random.Generator = rng) -> np.ndarray:
            return roll_pairs(first) if plays == 0 else rng.integers(1, 7, (len(first), 2))

        began = time.perf_counter()
        values = equity(play(ev, starts, dice_of, truncate=args.truncate), "long", ev.rules).reshape(len(rows), games)
        rate = len(starts) / (time.perf_counter() - began)
        spread = float(np.sqrt(values.var(axis=1, ddof=1).mean()))
        cost[name] = spread ** 2 / rate
        print(f"| {name} | {games} | {spread:.4f} | {rate:,.0f} | {cost[name]:.3g} | {values.mean():+.4f} |")
    print(f"\nluckless: {cost['plain'] / cost['luckless']:.2f}x the accuracy a second of the plain rollout")


if __name__ == "__main__":
    main()
