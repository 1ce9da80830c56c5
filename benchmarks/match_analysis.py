"""nardtools' match analysis against GNU Backgammon 1.07's own, both at 0-ply
with gnubg's network (``--evaluator gnubg``, needs gnubg and gnubg-nn): each
match of the shared corpus is analysed by gnubg (``analyse match``, saved as
SGF with its text export) and by nardtools; the table gives, per match, the
unforced checker plays whose errors agree within 0.01, and gnubg's cube
alerts (missed double, wrong double, wrong take, wrong pass) that nardtools
reports in the same category at the same position.

    python benchmarks/match_analysis.py --matches 6            # real matches (bglab-llabba)
    python benchmarks/match_analysis.py --matches 6 --selfplay 3
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
    parser.add_argument("--matches", type=int, default=6, help="real matches from bglab-llabba")
    parser.add_argument("--selfplay", type=int, default=0, help="gnubg self-play matches")
    args = parser.parse_args()
    if GNUBG is None:
        sys.exit("GNU Backgammon is not installed (apt-get install gnubg)")
    files = (sorted((CORPUS / "bglab-llabba").glob("*.txt"))[:args.matches]
             + sorted((CORPUS / "gnubg-selfplay").glob("*.mat"))[:args.selfplay])
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        analysed = gnubg_analyse(files, Path(folder))
        gnubg_seconds = time.perf_counter() - start
        print(f"{'match':<44} {'plays':>6} {'agree':>7} {'alerts':>7} {'found':>7} {'ours':>5}")
        total = dict.fromkeys(("plays", "agree", "cube_alerts", "cube_found", "cube_reported"), 0)
        start = time.perf_counter()
        for f, (sgf, parts) in zip(files, analysed):
            r = compare_match_analysis(sgf, parts)
            for k in total:
                total[k] += r[k]
            print(f"{f.name[:44]:<44} {r['plays']:>6} {r['agree'] / max(r['plays'], 1):>7.1%} "
                  f"{r['cube_alerts']:>7} {r['cube_found'] / max(r['cube_alerts'], 1):>7.1%} {r['cube_reported']:>5}")
        ours_seconds = time.perf_counter() - start
    print(f"{'all':<44} {total['plays']:>6} {total['agree'] / max(total['plays'], 1):>7.1%} "
          f"{total['cube_alerts']:>7} {total['cube_found'] / max(total['cube_alerts'], 1):>7.1%} "
          f"{total['cube_reported']:>5}")
    print(f"gnubg analyse match (0-ply): {gnubg_seconds:.1f} s; nardtools --evaluator gnubg --ply 0: "
          f"{ours_seconds:.1f} s ({ours_seconds / gnubg_seconds:.1f}x)")


if __name__ == "__main__":
    main()
