"""Engine benchmark: random-playout games/s for both games, and legal-play
generations/s, against OpenSpiel's C++ backgammon (the anchor) measured in the
same run when ``open_spiel`` is installed (``pip install open_spiel``).

    python benchmarks/engine.py [--seconds 5] [--repeat 3]

Every figure is the best of ``--repeat`` runs of ``--seconds`` each, on one core
(CPU time).  "core" rows are :func:`nardtools.playout.playouts` (whole games in
one call of the compiled core); "reference" rows play the same games through
:class:`~nardtools.game.Game` with the readable engine alone.  Both OpenSpiel
and nardtools are driven the same way: random legal moves to the end of a game.
"""

from __future__ import annotations

import argparse
import random
import time

from nardtools import ALL_ROLLS, find_ruleset, legal_plays
from nardtools.core import CORE
from nardtools.engine import reference_engine
from nardtools.playout import playouts, random_game


def rate(work, seconds: float, repeat: int) -> tuple[float, float]:
    """Best (units per second, units per call) over ``repeat`` timed runs."""
    best = 0.0
    per_call = 0.0
    for r in range(repeat):
        units = calls = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            units += work(r * 100_000 + calls)
            calls += 1
        best = max(best, units / (time.process_time() - start))
        per_call = units / calls
    return best, per_call


def games(ruleset: str, core: bool, batch: int):
    rs = find_ruleset(ruleset)

    def work(seed: int) -> int:
        return len(playouts(rs, batch, seed, core=core))

    return work


def generations(ruleset: str, positions: int = 300):
    rules = find_ruleset(ruleset).rules
    rng = random.Random(99)
    sample = []
    while len(sample) < positions:
        for turn in random_game(rules, rng):
            sample.append((turn.position, rng.choice(ALL_ROLLS), turn.first_turn))
    sample = sample[:positions]

    def work(seed: int) -> int:
        for position, roll, first in sample:
            len(legal_plays(position, roll, rules, first_turn=first))
        return len(sample)

    return work


def openspiel_playouts():
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("backgammon")

    def work(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        return 1

    return work


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []
    anchor = openspiel_playouts()
    anchor_rate = rate(anchor, args.seconds, args.repeat)[0] if anchor else None
    if anchor_rate:
        rows.append(("OpenSpiel backgammon (C++), random games", anchor_rate, "games/s", 1.0))
    for ruleset in ("long", "backgammon"):
        if CORE is None:
            break
        r, _ = rate(games(ruleset, True, 200), args.seconds, args.repeat)
        rows.append((f"nardtools {ruleset}, random games (core)", r, "games/s",
                     r / anchor_rate if anchor_rate else None))
    with reference_engine():
        for ruleset in ("long", "backgammon"):
            r, _ = rate(games(ruleset, False, 1), args.seconds, args.repeat)
            rows.append((f"nardtools {ruleset}, random games (reference)", r, "games/s",
                         r / anchor_rate if anchor_rate else None))
    for ruleset in ("long", "backgammon"):
        r, _ = rate(generations(ruleset), args.seconds, args.repeat)
        rows.append((f"nardtools {ruleset}, legal_plays() calls", r, "calls/s", None))
    print(f"{'benchmark':<44} {'rate':>12}  {'unit':<8} {'vs OpenSpiel':>12}")
    for name, r, unit, ratio in rows:
        print(f"{name:<44} {r:>12,.1f}  {unit:<8} {f'{ratio:.3f}x' if ratio else '-':>12}")
    if not anchor:
        print("(OpenSpiel not installed: `pip install open_spiel` to measure the anchor in the same run)")


if __name__ == "__main__":
    main()
