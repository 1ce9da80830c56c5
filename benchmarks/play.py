"""The levels of ``nardtools play``: how fast the bot answers (the time of
one reply, its ranking of the roll's plays at the score as the session makes
it, on middle-game positions) at each ply, and how strong each ply is
(``--strength-games N``: money games of each ply against 0-ply, each side
first in half, with the dice shared; the players of benchmarks/evaluator.py).

    python benchmarks/play.py --positions 40
    python benchmarks/play.py --positions 0 --strength-games 200 --game long
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
    parser.add_argument("--strength-games", type=int, default=0)
    parser.add_argument("--game", choices=("long", "backgammon"), nargs="*", default=["long", "backgammon"])
    args = parser.parse_args()
    if args.positions:
        speed(args.positions, args.game)
    if args.strength_games:
        strength(args.strength_games, args.game)


def strength(games: int, which: list[str]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from evaluator import Deeper  # type: ignore[import-not-found]

    from nardtools import find_ruleset
    from nardtools.analysis.evaluate import load_networks
    from nardtools.analysis.selfplay import NetPlayer, series

    print("| game | match | games | wins | points per game | seconds |\n|---|---|---|---|---|---|")
    for rules in which:
        ruleset = find_ruleset(rules)
        for ply in (1, 2):
            start = time.perf_counter()
            result = series(ruleset, Deeper(rules, ply), NetPlayer(load_networks(rules), ruleset), games, seed=404)
            print(f"| {rules} | {ply}-ply vs 0-ply | {result.games:,} | {100 * result.win_rate:.1f}% ± "
                  f"{100 * result.standard_error():.1f} | {result.points_per_game:+.3f} | "
                  f"{time.perf_counter() - start:.0f} |", flush=True)


def speed(positions: int, which: list[str]) -> None:
    print(f"{'game':<12} {'ply':>3} {'replies':>7} {'median s':>9} {'p90 s':>7} {'max s':>7}")
    for rules in which:
        for ply in (0, 1, 2):
            times: list[float] = []
            seed = 1
            while len(times) < positions:
                s = Session(rules, human=0, ply=ply, tutor=False, seed=seed)
                out = s.start()
                turns = 0
                while not s.finished and len(times) < positions:
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
