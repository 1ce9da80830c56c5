"""Statistics benchmark: ``nardtools stats`` on archives of two shapes, timed
as a command:

- ``synthetic``: 1,000 and 10,000 games made by random play with the engine
  (money games, half Long Nardy, half backgammon, ten games to a file);
- ``real``: archives shaped like the ones players and servers keep, one
  match a file (3 to 15 games, cube actions, comments, ratings in names) as
  GNU Backgammon and Backgammon Studio write them: the matches of the shared
  corpus (``../shared/corpus``, or ``$NARDTOOLS_CORPUS``) copied round robin
  under new names until the archive holds the number of games asked for.
  Per-file costs (opening, sniffing, the header, the process pool's task)
  are what this shape measures and the synthetic one hides;
- ``matches``: the same shape made afresh, never used to tune ``stats``:
  random matches of 3 to 15 points with cube actions, one a file, under
  every named ruleset that ``.mat`` can hold (all but the gul-bara ones), in
  turn.

    python benchmarks/stats.py [--sizes 1000 10000] [--shapes synthetic real matches] [--jobs 0]

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


def _cache(name: str) -> tuple[Path, Path]:
    """An archive's folder in the cache (made), and the file that says it is complete."""
    from nardtools.analysis.bearoff import default_cache_dir

    folder = default_cache_dir() / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder, folder / "complete"


def archive(games: int) -> Path:
    """A folder of ``games`` random money games, ten to a file (cached)."""
    from nardtools import find_ruleset
    from nardtools.notation.mat import export_mat
    from nardtools.notation.random_records import random_match
    from nardtools.notation.record import MatchRecord
    from nardtools.notation.replay import replay_match

    folder, done = _cache(f"bench-archive-{games}")
    if done.exists():
        return folder
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


def real_archive(games: int) -> Path:
    """A folder of about ``games`` games, one real match a file (cached)."""
    from nardtools.notation.reading import expand_paths, read_record

    corpus = Path(os.environ.get("NARDTOOLS_CORPUS") or ROOT.parent / "shared" / "corpus")
    if not corpus.is_dir():
        raise SystemExit(f"no corpus at {corpus}: the real-shaped archive is made from it (set NARDTOOLS_CORPUS)")
    folder, done = _cache(f"bench-real-{games}")
    if done.exists():
        return folder
    matches = [(Path(p), len(read_record(p).games)) for p in expand_paths([corpus])]
    matches = [(p, n) for p, n in matches if n]
    total = i = 0
    while total < games:
        path, n = matches[i % len(matches)]
        (folder / f"match-{i:05d}{path.suffix}").write_bytes(path.read_bytes())
        total, i = total + n, i + 1
    done.write_text(f"{total} games in {i} files\n")
    return folder


def match_archive(games: int) -> Path:
    """A folder of about ``games`` games of random matches, one a file (cached)."""
    import random

    from nardtools.notation.mat import export_mat
    from nardtools.notation.random_records import random_match
    from nardtools.notation.replay import replay_match
    from nardtools.rules import rulesets

    folder, done = _cache(f"bench-matches-{games}")
    if done.exists():
        return folder
    named = [r for r in rulesets() if "gulbara" not in r.name]
    rng = random.Random(60)
    total = i = 0
    while total < games:
        ruleset = named[i % len(named)]
        record = random_match(ruleset, rng.randint(3, 15), seed=60_000 + i)
        (folder / f"match-{i:05d}.mat").write_text(export_mat(replay_match(record, rules=ruleset.name)),
                                                   encoding="utf-8")
        total, i = total + len(record.games), i + 1
    done.write_text(f"{total} games in {i} files\n")
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
    parser.add_argument("--shapes", nargs="+", choices=("synthetic", "real", "matches"),
                        default=["synthetic", "real", "matches"])
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--measure", nargs=2, metavar=("FOLDER", "TABLE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], args.measure[1], args.jobs)))
        return
    rows = []
    for shape in args.shapes:
        for size in args.sizes:
            folder = {"synthetic": archive, "real": real_archive, "matches": match_archive}[shape](size)
            games = size if shape == "synthetic" else int((folder / "complete").read_text().split()[0])
            files = sum(1 for p in folder.iterdir() if p.name != "complete")
            for table in ("games", "players", "turns"):
                # a fresh process per run, so that getrusage sees only this run's processes
                out = subprocess.run([sys.executable, __file__, "--measure", str(folder), table, "--jobs",
                                      str(args.jobs)], check=True, capture_output=True, text=True).stdout
                m = json.loads(out.strip().splitlines()[-1])
                rows.append((shape, size, games, files, table, m["seconds"], games / m["seconds"], m["peak_mb"]))
    print(f"\nnardtools stats, {os.cpu_count()} cores, --jobs {args.jobs or 'all'}\n")
    print("| shape | games | files | table | seconds | games/s | peak RSS of one process (MB) |")
    print("|---|---|---|---|---|---|---|")
    for shape, _, games, files, table, seconds, rate, peak in rows:
        print(f"| {shape} | {games:,} | {files:,} | {table} | {seconds:.1f} | {rate:.0f} | {peak:.0f} |")
    by = {(sh, s, t): sec for sh, s, _, _, t, sec, _, _ in rows}
    sizes = sorted(args.sizes)
    if len(sizes) >= 2:
        small, large = sizes[0], sizes[-1]
        for shape in args.shapes:
            for table in ("games", "players", "turns"):
                ratio = by[(shape, large, table)] / by[(shape, small, table)]
                print(f"\n{shape}, {table}: {large:,} games took {ratio:.1f}x the time of {small:,} "
                      f"(linear would be {large / small:.0f}x)")


if __name__ == "__main__":
    main()
