"""The compiled core against the Python reference, at scale: legal plays (in
order, with steps and ranks) and the judgement of legal and wrong written
plays, on position-rolls from random games of every named ruleset and every
option value that changes what is legal (tests/differential.py).  Prints how
many were compared per configuration; any difference stops it with the case.

    python benchmarks/differential.py --per-config 25000     # about 1,000,000 in all
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.differential import cases, configurations, judgements_agree, plays_agree


def run(job: tuple[str, int, int]) -> tuple[str, int, int]:
    import random

    label, seed, count = job
    rules = dict(configurations())[label]
    rng = random.Random(zlib.crc32(f"{label}:{seed}".encode()))
    compared = judged = 0
    for position, roll, first_turn in cases(rules, rng, count):
        plays = plays_agree(position, roll, rules, first_turn)
        if compared % 10 == 0:  # judging is slower on the reference side: every tenth position-roll
            judged += judgements_agree(position, roll, rules, first_turn, plays[:4], rng)
        compared += 1
    return label, compared, judged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-config", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    started = time.perf_counter()
    chunk = 1000
    jobs = [(label, seed, min(chunk, args.per_config - seed * chunk)) for label, _ in configurations()
            for seed in range((args.per_config + chunk - 1) // chunk)]
    totals: dict[str, list[int]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for label, compared, judged in pool.map(run, jobs):
            acc = totals.setdefault(label, [0, 0])
            acc[0] += compared
            acc[1] += judged
    print("| configuration | position-rolls | written plays judged |")
    print("|---|---|---|")
    for label, (compared, judged) in totals.items():
        print(f"| {label} | {compared:,} | {judged:,} |")
    print(f"| **all {len(totals)}** | **{sum(c for c, _ in totals.values()):,}** | "
          f"**{sum(j for _, j in totals.values()):,}** |")
    print(f"\nno difference; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
