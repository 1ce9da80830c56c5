"""How sound the backgammon evaluator's checker plays are, judged by GNU
Backgammon's network at 2-ply (gnubg-nn, an optional oracle) on the human
matches of the shared corpus (issue #23's acceptance).

    python benchmarks/decisions.py [--decisions 600] [--half dev|test|first] [--plies 0,1,2]
                                   [--weights FILE] [--race FILE] [--json results.json]

A turn of the corpus' human matches (bglab-llabba) with more than one legal
play is a decision.  The matches are split once, by match, into two halves
by a hash of their file names (:func:`half_of`): a **development** half, on
which networks and settings are chosen, and a **test** half, reported and
never chosen on (issue 64: a figure from a sample used for selection is not
a measurement).  ``--half dev`` (the default) or ``--half test`` draws
``--decisions`` evenly from every match of that half (the same number from
each, spread over each match's turns); ``--half first`` takes the first
decisions in file order, as the benchmark did before (the sample the
networks up to backgammon 0.5 were chosen on).  For each decision:

- the **referee** values each play's result by gnubg-nn at 2-ply (cubeless
  money equity, gammons 2 and backgammons 3): the best eight by its 0-ply,
  and every play some evaluator chose or the player made; its best of those
  is the decision's best;
- **each evaluator** (nardtools at each of ``--plies``, through ``hint``'s own
  ranking, ``ranked_plays``; gnubg-nn at 0-ply) chooses a play: its *loss*
  is the referee's equity of the best play minus that of the one chosen;
- a **false alarm**: a play the player made that the evaluator calls at
  least ``ALARM`` (0.08) worse than its best, where the referee puts it
  within ``CLEAR`` (0.04) of the best.  Counted three ways: of all
  decisions (the rate the acceptance names), of the plays the referee calls
  good (within ``CLEAR``: how often a good play is accused), and of the
  evaluator's alarms (how often an accusation is wrong).

Printed as a table, mean loss also as a ratio to gnubg-nn 0-ply's in the same
run; ``--json`` writes the figures (the schema ``tests/test_benchmarks.py`` pins).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardtools import find_ruleset
from nardtools.analysis.evaluate import Evaluator, ranked_plays
from nardtools.analysis.probabilities import equity, exact_where_finished
from nardtools.analysis.rows import boards_of
from nardtools.dice import Roll
from nardtools.engine import legal_plays
from tests.corpus import CORPUS

ALARM, CLEAR = 0.08, 0.04
#: The referee's 2-ply goes to this many of its 0-ply best, beside the plays chosen or made.
REFEREE_FILTER = 8
RULES = find_ruleset("backgammon").rules


def half_of(path: Path) -> str:
    """``dev`` or ``test``: the half a match belongs to, by a hash of its file
    name (fixed once: a match never changes halves)."""
    import hashlib

    return "test" if hashlib.sha256(path.name.encode("utf-8")).digest()[0] % 2 else "dev"


def _choices(path: Path) -> list[tuple[object, Roll, bool, object]]:
    """(position, roll, first turn, result played) of a match's turns with a choice."""
    from nardtools.notation.mat import replay_text

    found = []
    replayed = replay_text(path.read_text(encoding="utf-8", errors="replace"), path=str(path))
    for game in replayed.games:
        for t in game.turns:
            if t.action.part or not isinstance(t.dice, Roll) or t.play is None:
                continue
            if len(legal_plays(t.before, t.dice, RULES, first_turn=t.first_turn)) < 2:
                continue
            found.append((t.before, t.dice, t.first_turn, t.after))
    return found


def decisions(limit: int, half: str = "dev") -> list[tuple[object, Roll, bool, object]]:
    """``limit`` decisions: drawn evenly from every match of a half, or the first in file order."""
    matches = sorted((CORPUS / "bglab-llabba").glob("*.txt"))
    if half == "first":
        found: list[tuple[object, Roll, bool, object]] = []
        for path in matches:
            found += _choices(path)
            if len(found) >= limit:
                break
        return found[:limit]
    chosen = [path for path in matches if half_of(path) == half]
    each = -(-limit // len(chosen))  # the same number from every match (the last ones may give fewer)
    found = []
    for path in chosen:
        turns = _choices(path)
        found += [turns[int(i * len(turns) / each)] for i in range(min(each, len(turns)))]
    step = len(found) / limit
    return [found[int(i * step)] for i in range(limit)] if len(found) > limit else found


class Referee:
    """gnubg-nn's equity of results (board rows seen by the side that rolls next), for the side that played."""

    def __init__(self) -> None:
        import gnubg_nn

        self.g = gnubg_nn

    def equities(self, rows: np.ndarray, ply: int) -> np.ndarray:
        p = np.array([self.g.probabilities([r[27:52].tolist(), r[1:26].tolist()], ply) for r in rows], float)
        exact_where_finished(p, rows, "backgammon", RULES)
        return -equity(p, "backgammon", RULES)  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=600)
    ap.add_argument("--half", choices=("dev", "test", "first"), default="dev",
                    help="the development half, the test half (report it; never choose on it), or the first "
                         "decisions in file order")
    ap.add_argument("--plies", default="0,1,2")
    ap.add_argument("--weights", help="A backgammon main network instead of the shipped one.")
    ap.add_argument("--race", help="A backgammon race network instead of the shipped one.")
    ap.add_argument("--json", type=Path, help="Write the figures here.")
    args = ap.parse_args()
    try:
        referee = Referee()
    except ImportError:
        sys.exit("gnubg-nn is needed (pip install gnubg-nn): it is the referee")
    plies = [int(v) for v in args.plies.split(",")]
    ev = Evaluator(RULES, weights=args.weights, race=args.race)
    found = decisions(args.decisions, args.half)
    names = [f"nardtools {k}-ply" for k in plies] + ["gnubg-nn 0-ply"]
    seconds = dict.fromkeys(names, 0.0)
    loss = {n: [] for n in names}  # type: dict[str, list[float]]
    alarms = dict.fromkeys(names, 0)
    false = dict.fromkeys(names, 0)
    good = 0
    began = time.perf_counter()
    for position, roll, first_turn, played in found:
        plays = legal_plays(position, roll, RULES, first_turn=first_turn)
        results = [lp.result for lp in plays]
        rows = boards_of(results)
        t = time.perf_counter()
        zero = referee.equities(rows, 0)
        seconds["gnubg-nn 0-ply"] += time.perf_counter() - t
        made = results.index(played)
        chosen = {"gnubg-nn 0-ply": int(np.argmax(zero))}
        own_error = {"gnubg-nn 0-ply": float(zero.max() - zero[made])}
        for k, name in zip(plies, names):
            t = time.perf_counter()
            ranked = ranked_plays(ev, position, roll, k, first_turn=first_turn)
            seconds[name] += time.perf_counter() - t
            chosen[name] = results.index(ranked[0].result)
            own_error[name] = next(r.loss for r in ranked if r.result == played)
        judged = sorted(set(np.argsort(-zero, kind="stable")[:REFEREE_FILTER].tolist()) | {made, *chosen.values()})
        deep = dict(zip(judged, referee.equities(rows[judged], 2)))
        best = max(deep.values())
        clear = best - deep[made] <= CLEAR
        good += int(clear)
        for name in names:
            loss[name].append(best - deep[chosen[name]])
            if own_error[name] >= ALARM:
                alarms[name] += 1
                false[name] += int(clear)
    anchor = float(np.mean(loss["gnubg-nn 0-ply"]))
    figures = {"decisions": len(found), "sample": args.half, "referee": "gnubg-nn 2-ply", "evaluator": ev.name,
               "seconds": round(time.perf_counter() - began, 1), "evaluators": {}}
    what = {"dev": "drawn evenly from the development half of", "test": "drawn evenly from the test half of",
            "first": "the first in file order of"}[args.half]
    print(f"{len(found)} decisions {what} the bglab-llabba matches; referee gnubg-nn 2-ply; {ev.name}")
    figures["good_plays"] = int(good)
    print(f"{good} of the plays made are within {CLEAR} of the referee's best")
    print("| evaluator | equity lost per decision | × gnubg-nn 0-ply | alarms (≥ 0.08) | false alarms | "
          "of decisions | of good plays | of alarms | seconds |\n|---|---|---|---|---|---|---|---|---|")
    for name in names:
        mean = float(np.mean(loss[name]))
        rates = [false[name] / max(n, 1) for n in (len(found), good, alarms[name])]
        figures["evaluators"][name] = {"loss_per_decision": round(mean, 5), "ratio_to_gnubg_0ply":
                                       round(mean / anchor, 2) if anchor else None, "alarms": alarms[name],
                                       "false_alarms": false[name], "false_alarm_rate": round(rates[0], 4),
                                       "false_alarms_of_good_plays": round(rates[1], 4),
                                       "false_alarms_of_alarms": round(rates[2], 4),
                                       "seconds": round(seconds[name], 2)}
        print(f"| {name} | {mean:.4f} | {mean / anchor:.1f}× | {alarms[name]} | {false[name]} | "
              + " | ".join(f"{100 * r:.1f}%" for r in rates) + f" | {seconds[name]:.1f} |")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
