"""nardtools' match analysis against GNU Backgammon 1.07's own, both at 0-ply
with gnubg's network (``--evaluator gnubg``, needs gnubg and gnubg-nn): each
match is analysed by gnubg (``analyse match``, saved as SGF with its text
export) and by nardtools; the table gives, per match, the unforced checker
plays whose errors agree within 0.01, and gnubg's cube alerts (missed
double, wrong double, wrong take, wrong pass) that cost something (0.0005 or
more: gnubg also flags optional doubles and cashes at par, at -0.000, which
are counted apart) and that nardtools reports in the same category at the
same position; then every alert missed.

The matches are drawn evenly from the whole shared corpus (real matches and
gnubg's self-play, in file order, every k-th), not its first files: the
figures of the first few matches were the ones tuned on.

    python benchmarks/match_analysis.py --matches 24
    python benchmarks/match_analysis.py --matches 6 --first     # the first real matches, as before
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.corpus import CORPUS
from tests.gnubg_oracle import GNUBG, compare_match_analysis, gnubg_analyse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=24, help="matches drawn evenly from the corpus")
    parser.add_argument("--first", action="store_true", help="the first real matches (bglab-llabba) instead")
    args = parser.parse_args()
    if GNUBG is None:
        sys.exit("GNU Backgammon is not installed (apt-get install gnubg)")
    real = sorted((CORPUS / "bglab-llabba").glob("*.txt"))
    if args.first:
        files = real[:args.matches]
    else:
        every = sorted(real + sorted((CORPUS / "gnubg-selfplay").glob("*.mat")))
        step = len(every) / args.matches
        files = [every[int(i * step)] for i in range(min(args.matches, len(every)))]
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        analysed = gnubg_analyse(files, Path(folder))
        gnubg_seconds = time.perf_counter() - start
        print(f"{'match':<44} {'plays':>6} {'agree':>7} {'alerts':>7} {'found':>7} {'ours':>5}")
        total = dict.fromkeys(("plays", "agree", "cube_alerts", "cube_found", "cube_reported", "free_alerts"), 0)
        missed = []
        start = time.perf_counter()
        for f, (sgf, parts) in zip(files, analysed):
            r = compare_match_analysis(sgf, parts)
            for k in total:
                total[k] += r[k]
            missed += [(f.name, *m) for m in r["missed"]]
            print(f"{f.name[:44]:<44} {r['plays']:>6} {r['agree'] / max(r['plays'], 1):>7.1%} "
                  f"{r['cube_alerts']:>7} {r['cube_found'] / max(r['cube_alerts'], 1):>7.1%} {r['cube_reported']:>5}")
        ours_seconds = time.perf_counter() - start
    print(f"{'all':<44} {total['plays']:>6} {total['agree'] / max(total['plays'], 1):>7.1%} "
          f"{total['cube_alerts']:>7} {total['cube_found'] / max(total['cube_alerts'], 1):>7.1%} "
          f"{total['cube_reported']:>5}")
    print(f"gnubg's alerts that cost nothing (-0.000), counted apart: {total['free_alerts']}")
    for name, game, pid, alert, lost in missed:
        print(f"missed: {name[:44]}, game {game}, {pid}: {alert} -{lost:.3f}")
    print(f"gnubg analyse match (0-ply): {gnubg_seconds:.1f} s; nardtools --evaluator gnubg --ply 0: "
          f"{ours_seconds:.1f} s ({ours_seconds / gnubg_seconds:.1f}x)")


if __name__ == "__main__":
    main()
