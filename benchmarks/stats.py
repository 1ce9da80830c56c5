"""Statistics benchmark: ``nardtools stats`` on synthetic archives of 1,000 and
10,000 games made by random play with the engine (money games, half Long Nardy,
half backgammon, ten games to a file), timed as a command.

    python benchmarks/stats.py [--sizes 1000 10000] [--jobs 0]

For each size it prints games per second and the peak resident memory of the
main process and of the largest worker (``getrusage``), for the players table
(everything replayed, turn figures folded into running sums) and for the turns
table streamed to Parquet.  Time should grow linearly with the archive and
memory should not grow with it.  Archives are cached in
``$NARDTOOLS_CACHE/bench-archive-N`` (default ``~/.cache/nardtools``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def archive(games: int) -> Path:
    """A folder of ``games`` random money games, ten to a file (cached)."""
    from nardtools import find_ruleset
    from nardtools.analysis.bearoff import default_cache_dir
    from nardtools.notation.mat import export_mat
    from nardtools.notation.record import MatchRecord
    from nardtools.notation.replay import replay_match
    from nardtools.playout import random_match

    folder = default_cache_dir() / f"bench-archive-{games}"
    done = folder / "complete"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for i in range(games // 10):
        name = "long" if i % 2 == 0 else "backgammon"
        record = MatchRecord(length=0, players=("white", "black"))
        for k in range(10):
            game = random_match(find_ruleset(name), 0, seed=1_000_000 + 10 * i + k).games[0]
            game.number = k + 1
            record.games.append(game)
        text = export_mat(replay_match(record, rules=name))
        (folder / f"archive-{i:05d}.mat").write_text(text, encoding="utf-8")
    done.write_text("ok\n")
    print(f"made {games} games in {time.perf_counter() - started:.0f} s: {folder}", file=sys.stderr)
    return folder


def measure(folder: str, table: str, jobs: int) -> dict[str, float]:
    """Run in a child process: one ``stats`` run, timed, with its memory."""
    out = Path(folder).parent / f"bench-{table}.parquet"
    cmd = [sys.executable, "-m", "nardtools.cli", "stats", folder, "--table", table, "-q", "-j", str(jobs)]
    if table == "turns":
        cmd += ["-f", "parquet", "-o", str(out)]
    else:
        cmd += ["-f", "csv", "-o", str(out.with_suffix(".csv"))]
    started = time.perf_counter()
    subprocess.run(cmd, check=True)
    seconds = time.perf_counter() - started
    # the command and its workers are all descendants of this process
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"seconds": seconds, "peak_mb": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--measure", nargs=2, metavar=("FOLDER", "TABLE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], args.measure[1], args.jobs)))
        return
    rows = []
    for size in args.sizes:
        folder = archive(size)
        for table in ("players", "turns"):
            # a fresh process per run, so that getrusage sees only this run's processes
            out = subprocess.run([sys.executable, __file__, "--measure", str(folder), table, "--jobs",
                                  str(args.jobs)], check=True, capture_output=True, text=True).stdout
            m = json.loads(out.strip().splitlines()[-1])
            rows.append((size, table, m["seconds"], size / m["seconds"], m["peak_mb"]))
    print(f"\nnardtools stats, {os.cpu_count()} cores, --jobs {args.jobs or 'all'}\n")
    print("| games | table | seconds | games/s | peak RSS of one process (MB) |")
    print("|---|---|---|---|---|")
    for size, table, seconds, rate, peak in rows:
        print(f"| {size:,} | {table} | {seconds:.1f} | {rate:.0f} | {peak:.0f} |")
    by = {(s, t): sec for s, t, sec, _, _ in rows}
    sizes = sorted(args.sizes)
    if len(sizes) >= 2:
        small, large = sizes[0], sizes[-1]
        for table in ("players", "turns"):
            ratio = by[(large, table)] / by[(small, table)]
            print(f"\n{table}: {large:,} games took {ratio:.1f}x the time of {small:,} "
                  f"(linear would be {large / small:.0f}x)")


if __name__ == "__main__":
    main()
