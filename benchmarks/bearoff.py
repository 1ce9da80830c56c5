"""Bear-off database builds: nardtools against GNU Backgammon's ``makebearoff -o N``
in the same run.

    python benchmarks/bearoff.py [--points 6 8 10] [--repeat 1]

Both build one-sided databases with gammon distributions (nardtools also
builds its all-home distributions, for Long Nardy's home mars); figures are
wall times of the in-memory build (the compiled core's builders).
GNU Backgammon is not run above 10 points (it would take hours).  Then
``nardtools race`` is timed as a command, start-up included, on a cached
database (and on a Long Nardy race when the 12-point database is cached).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nardtools.analysis.bearoff import BearoffDatabase, position_count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, nargs="+", default=[6, 8])
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    makebearoff = shutil.which("makebearoff") or (
        "/usr/games/makebearoff" if Path("/usr/games/makebearoff").exists() else None)
    print(f"{'points':>6} {'positions':>11} {'gnubg s':>9} {'nardtools s':>12} {'ratio':>7}")
    for points in args.points:
        ours = min(_time(lambda points=points: BearoffDatabase.build(points)) for _ in range(args.repeat))
        theirs = None
        if makebearoff and points <= 10:
            with tempfile.TemporaryDirectory() as tmp:
                out = str(Path(tmp) / f"os{points}.bd")
                command = [makebearoff, "-o", str(points), "-f", out]
                theirs = min(_time(lambda command=command: subprocess.run(command, check=True, capture_output=True))
                             for _ in range(args.repeat))
        ratio = f"{ours / theirs:.2f}x" if theirs else "-"
        shown = f"{theirs:.1f}" if theirs else "-"
        print(f"{points:>6} {position_count(points):>11,} {shown:>9} {ours:>12.1f} {ratio:>7}")
    # `nardtools race` on a cached database, start-up included (the goal: < 0.5 s)
    BearoffDatabase.cached(6)
    cmd = [sys.executable, "-m", "nardtools.cli", "race", "backgammon X 6:3,5:4,3:2 / 6:4,4:4,2:2"]
    best = min(_time(lambda: subprocess.run(cmd, check=True, capture_output=True)) for _ in range(5))
    print(f"nardtools race, database cached, best of 5: {best:.2f} s wall")
    from nardtools.analysis.bearoff import cached_points

    if 12 in cached_points():
        cmd = [sys.executable, "-m", "nardtools.cli", "race", "long X 12:2,9:4,6:9 / 11:3,8:6,5:6"]
        best = min(_time(lambda: subprocess.run(cmd, check=True, capture_output=True)) for _ in range(5))
        print(f"nardtools race, Long Nardy, 12-point database cached, best of 5: {best:.2f} s wall")


def _time(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
