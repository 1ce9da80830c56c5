"""How fast the bot of ``nardtools play`` answers: the time of one reply
(its ranking of the roll's plays at the score, as the session makes it) at
each ply, on middle-game positions of self-play, for both games.

    python benchmarks/play.py --positions 40
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardtools.teaching.tutor import Session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    args = parser.parse_args()
    print(f"{'game':<12} {'ply':>3} {'replies':>7} {'median s':>9} {'p90 s':>7} {'max s':>7}")
    for rules in ("long", "backgammon"):
        for ply in (0, 1, 2):
            times: list[float] = []
            seed = 1
            while len(times) < args.positions:
                s = Session(rules, human=0, ply=ply, tutor=False, seed=seed)
                out = s.start()
                turns = 0
                while not s.finished and len(times) < args.positions:
                    last = out[-1]
                    if last.startswith("position: "):
                        turns += 1
                        if 6 <= turns <= 30:  # the middle game
                            start = time.perf_counter()
                            s.ranked()
                            times.append(time.perf_counter() - start)
                        out = s.command(str(s.game.legal_plays()[0].play) or "-")  # type: ignore[union-attr]
                    elif last.startswith("cube:"):
                        out = s.command("roll")
                    elif last.endswith("take or pass"):
                        out = s.command("take")
                    else:
                        break
                seed += 1
            times.sort()
            print(f"{rules:<12} {ply:>3} {len(times):>7} {statistics.median(times):>9.3f} "
                  f"{times[int(0.9 * (len(times) - 1))]:>7.3f} {times[-1]:>7.3f}")


if __name__ == "__main__":
    main()
