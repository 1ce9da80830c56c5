"""What the pruning networks' screen changes (docs/analysis.md, "The pruning
networks"): for the positions of seeded self-play games, each roll's best
result by the main network against the best of those the screen keeps.

    python benchmarks/prune.py [--games 40] [--keep 5,8,10] [--seed 99]

For each game and each size of screen: the share of the rolls' results the
main network then values, the share of rolls whose best result is screened
out, the mean loss a roll (cubeless equity, for the side that plays) and the
mean error it makes in a 1-ply value (the rolls' losses weighed by their
odds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardtools import find_ruleset
from nardtools.analysis import evaluate
from nardtools.analysis.evaluate import Evaluator
from nardtools.analysis.probabilities import equity
from nardtools.analysis.searchnet import collect
from nardtools.analysis.selfplay import best_per_roll, roll_successors
from nardtools.dice import ALL_ROLLS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--keep", default="5,8,10")
    ap.add_argument("--seed", type=int, default=99)
    args = ap.parse_args()
    weights = np.array([roll.weight / 36 for roll in ALL_ROLLS])
    print("| game | kept of each roll | rows the main network values | rolls whose best is screened out "
          "| mean loss a roll | 1-ply value error |\n|---|---|---|---|---|---|")
    for game in ("backgammon", "long"):
        rules = find_ruleset(game).rules
        rows = collect(game, args.games, seed=args.seed, explore=0.1, alternatives=0)
        after, counts = roll_successors(rules, rows)
        full = equity(Evaluator(rules, prune=False).probabilities(after)[0], game, rules)
        best = full[best_per_roll(full, counts)]
        for keep in (int(k) for k in args.keep.split(",")):
            evaluate.PRUNE_KEEP = keep
            kept, kept_counts = Evaluator(rules).successors(rows)
            value = equity(Evaluator(rules).probabilities(kept)[0], game, rules)
            loss = value[best_per_roll(value, kept_counts)] - best   # the side that rolls next: less is better
            print(f"| {game} | {keep} | {len(kept) / len(after):.0%} | {(loss > 1e-9).mean():.1%} | {loss.mean():.5f} "
                  f"| {np.abs((loss.reshape(-1, 21) * weights).sum(axis=1)).mean():.5f} |", flush=True)


if __name__ == "__main__":
    main()
