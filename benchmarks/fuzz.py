"""The offline fuzz run: many mutated records and positions through every
reader (see ``tests/mutate.py``), on every core; prints a table of outcomes
per format and every mutant that raised something other than nardtools' own
errors or took too long, with the seed that replays it.

    python benchmarks/fuzz.py --count 100000              # every format
    python benchmarks/fuzz.py --count 2000 --formats mat  # one format
    python -c "from tests.mutate import mutant, exercise; exercise('mat', mutant('mat', SEED))"
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.mutate import exercise, mutant

SLOW = 5.0  # seconds


def run(job: tuple[str, int, int]) -> tuple[Counter[str], list[str], float]:
    fmt, start, stop = job
    counts: Counter[str] = Counter()
    failures = []
    slowest = 0.0
    for seed in range(start, stop):
        data = mutant(fmt, seed)
        began = time.perf_counter()
        try:
            counts[exercise(fmt, data)] += 1
        except Exception as e:
            counts["crash"] += 1
            where = traceback.extract_tb(e.__traceback__)[-1]
            failures.append(f"{fmt} seed {seed}: {type(e).__name__}: {str(e)[:120]} "
                            f"({Path(where.filename).name}:{where.lineno})")
        took = time.perf_counter() - began
        slowest = max(slowest, took)
        if took > SLOW:
            counts["slow"] += 1
            failures.append(f"{fmt} seed {seed}: took {took:.1f} s")
    return counts, failures, slowest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10000, help="mutants per format")
    parser.add_argument("--formats", nargs="+", default=["mat", "nrd", "sgf", "position"])
    parser.add_argument("--first", type=int, default=0, help="the first seed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    chunk = 500
    print(f"| format | mutants | clean | problems found | unreadable | refused | crashes | slow (> {SLOW:.0f} s) "
          "| slowest | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    all_failures = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for fmt in args.formats:
            began = time.perf_counter()
            jobs = [(fmt, s, min(s + chunk, args.first + args.count))
                    for s in range(args.first, args.first + args.count, chunk)]
            total: Counter[str] = Counter()
            slowest = 0.0
            for counts, failures, slow in pool.map(run, jobs):
                total.update(counts)
                all_failures += failures
                for line in failures:  # as they come, so a long run is useful early
                    print(line, file=sys.stderr, flush=True)
                slowest = max(slowest, slow)
            print(f"| {fmt} | {args.count:,} | {total['clean']:,} | {total['problems']:,} | {total['unreadable']:,} "
                  f"| {total['refused']:,} | {total['crash']:,} | {total['slow']:,} | {slowest:.2f} s "
                  f"| {time.perf_counter() - began:.0f} |", flush=True)
    for line in all_failures[:200]:
        print(line)
    if all_failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
