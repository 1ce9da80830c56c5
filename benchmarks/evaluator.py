"""The evaluator's figures (docs/analysis.md, issue #11's acceptance): strength
of the shipped networks, accuracy where the truth is known, and speed.

    python benchmarks/evaluator.py [--games 10000] [--ply-games 500] [--races 10000] [--parts ...] [--jobs 2]
                                   [--long CHECKPOINT] [--backgammon CHECKPOINT]

Parts (all by default):

- ``long``: the Long Nardy network at 0-ply against a random player and the
  heuristic player, ``--games`` money games each (mars and home mars scored,
  ``long`` rules), each side starting half; then 1-ply against 0-ply over
  ``--ply-games`` games.
- ``backgammon``: the backgammon network at 0-ply against pubeval
  (Tesauro's public evaluator, from gnubg-nn), and GNU Backgammon's own
  network at 0-ply against pubeval in the same run (the anchor).
- ``races``: ``--races`` race positions of each game taken from self-play of
  the networks, inside the ``--race-db``-point bear-off database (6): mean and
  worst |P(win) network - P(win) database|, and how often the 1-ply best play
  for a random roll in each of them is the database's best, ties within
  ``TIE`` counted as best (with the equity the 1-ply choice loses against
  it: mean, and how often more than 0.01); for the main network alone and
  for the evaluator with its race network.
- ``inference``: state evaluations a second, compiled and numpy, against
  gnubg-nn's, and the memory inference takes.
- ``speed``: ``nardtools hint`` at 0 and 2 ply on a middle-game position of
  each game, and ``nardtools analyse`` of a 100-turn game at 1-ply (wall
  times, start-up included: the median and the fastest of ``RUNS`` runs).

Win rates come with their standard error.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _commands import user_environment

from nardtools import find_ruleset
from nardtools.analysis.evaluate import Evaluator, database_odds, load_networks
from nardtools.analysis.probabilities import CLASSES, equity, exact_where_finished
from nardtools.analysis.rows import finished
from nardtools.analysis.selfplay import (
    HeuristicPlayer,
    MatchResult,
    NetPlayer,
    RandomPlayer,
    play_game,
    series,
    series_in_processes,
    successors,
)

#: The networks measured: the shipped ones, or the files ``--long`` and ``--backgammon`` name ...
WEIGHTS: dict[str, str | None] = {"long": None, "backgammon": None}
#: ... with the shipped race networks, or those ``--long-race`` and ``--backgammon-race`` name.
RACE: dict[str, str | None] = {"long": None, "backgammon": None}


def networks(game: str):  # type: ignore[no-untyped-def]
    return load_networks(game, WEIGHTS[game], RACE[game])


class Pubeval:
    """Tesauro's pubeval (gnubg-nn): the result scoring best for the side that played."""

    def __init__(self) -> None:
        import gnubg_nn

        self.g = gnubg_nn

    def choose(self, rows: np.ndarray) -> int:
        return int(np.argmax([self.g.pub_eval_score([r[27:52].tolist(), r[1:26].tolist()]) for r in rows]))


class Gnubg:
    """GNU Backgammon's network at 0-ply (gnubg-nn), cubeless money equity."""

    def __init__(self) -> None:
        import gnubg_nn

        self.g = gnubg_nn
        self.rules = find_ruleset("backgammon").rules

    def choose(self, rows: np.ndarray) -> int:
        p = np.array([self.g.probabilities([r[27:52].tolist(), r[1:26].tolist()], 0) for r in rows])
        done = rows[:, 26] == 15
        scores = equity(p, "backgammon", self.rules)
        scores[done] = -99.0  # a win for the side that played
        return int(np.argmin(scores))


class Deeper:
    """A network player at 1-ply (the evaluator's look-ahead, with hint's move filter)."""

    def __init__(self, ruleset_name: str, ply: int) -> None:
        self.ruleset = find_ruleset(ruleset_name)
        self.ev = Evaluator(self.ruleset.rules, weights=WEIGHTS[ruleset_name], race=RACE[ruleset_name])
        self.ply = ply

    def choose(self, rows: np.ndarray) -> int:
        from nardtools.analysis.evaluate import FILTER_EQUITY, MOVE_FILTER

        if len(rows) == 1:
            return 0
        p, _ = self.ev.static(rows)
        mine = -equity(p, self.ev.game, self.ruleset.rules)
        order = np.argsort(-mine, kind="stable")
        keep = [int(i) for i in order[:MOVE_FILTER] if mine[i] >= mine[order[0]] - FILTER_EQUITY]
        deeper = -equity(self.ev.values(rows[keep], self.ply), self.ev.game, self.ruleset.rules)
        return keep[int(np.argmax(deeper))]


def line(what: str, result, began: float) -> None:  # type: ignore[no-untyped-def]
    print(f"| {what} | {result.games:,} | {100 * result.win_rate:.1f}% ± {100 * result.standard_error():.1f} "
          f"| {result.points_per_game:+.3f} | {time.perf_counter() - began:.0f} |", flush=True)


def strength_long(games: int, ply_games: int) -> None:
    ruleset = find_ruleset("long")
    net = NetPlayer(networks("long"), ruleset)
    print(f"Long Nardy networks: {network_names('long')}")
    print("| match | games | wins | points per game | seconds |\n|---|---|---|---|---|")
    for name, other in (("0-ply vs random", RandomPlayer(11)), ("0-ply vs heuristic", HeuristicPlayer())):
        began = time.perf_counter()
        line(name, series(ruleset, net, other, games, seed=101), began)
    if ply_games:
        began = time.perf_counter()
        line("1-ply vs 0-ply", ply_series(ply_games, JOBS[0]), began)


#: Processes for the 1-ply match (``--jobs``).
JOBS = [1]


def _ply_part(first: int, games: int) -> MatchResult:
    ruleset = find_ruleset("long")
    return series(ruleset, Deeper("long", 1), NetPlayer(networks("long"), ruleset), games, seed=202, first=first)


def ply_series(games: int, jobs: int) -> MatchResult:
    """1-ply against 0-ply: games 0..games-1 of seed 202, in ``jobs`` processes
    (the same games and dice however many)."""
    return series_in_processes(_ply_part, games, jobs)


def strength_backgammon(games: int) -> None:
    ruleset = find_ruleset("backgammon")
    print(f"Backgammon networks: {network_names('backgammon')}")
    print("| match | games | wins | points per game | seconds |\n|---|---|---|---|---|")
    try:
        pub = Pubeval()
    except ImportError:
        print("(gnubg-nn is not installed: no pubeval, no anchor)")
        return
    began = time.perf_counter()
    line("nardtools 0-ply vs pubeval", series(ruleset, NetPlayer(networks("backgammon"), ruleset), pub, games, seed=303),
         began)
    began = time.perf_counter()
    line("gnubg 0-ply vs pubeval (anchor)", series(ruleset, Gnubg(), pub, games, seed=303), began)


def network_names(game: str) -> str:
    nets = networks(game)
    return nets.name + (f", race: {nets.race.name} (within {nets.race.meta['points']} points)" if nets.race else "")


#: Plays whose exact equities differ by less than this are equally good (the
#: database's figures are sums of products: equal positions in value differ
#: by rounding, about 1e-8, and races often leave every play a sure win).
TIE = 1e-6


def races(count: int, points: int) -> None:
    """Race positions of self-play (the evaluator's networks on both sides)
    inside the ``points``-point database; the main network alone and the
    evaluator with its race network measured on the same positions."""
    print(f"Race positions inside the {points}-point bear-off database, from self-play (seeds 500,000 on)")
    print("| game | networks | race positions | mean abs P(win) error | worst | 1-ply best = exact best | decisions "
          "| equity the 1-ply choice loses: mean | share losing > 0.01 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for game in ("long", "backgammon"):
        race_figures(game, count, points)


def race_figures(game: str, count: int, points: int) -> None:
    ruleset = find_ruleset(game)
    rules = ruleset.rules
    player = NetPlayer(networks(game), ruleset)
    found: list[np.ndarray] = []

    def keep(board: np.ndarray, rows: np.ndarray, chosen: int, found: list[np.ndarray] = found) -> None:
        if len(found) < count and database_odds(rules, board, points) is not None:
            found.append(board.copy())

    seed = 0
    while len(found) < count:
        play_game(ruleset, player, player, seed=500_000 + seed, on_turn=keep)
        seed += 1
    rows = np.array(found)

    def exact(boards: np.ndarray) -> np.ndarray:
        return np.array([database_odds(rules, r, points)[0] if not finished(r[None])[0]  # type: ignore[index]
                         else np.full(len(CLASSES[game]), np.nan) for r in boards])

    truth_p = exact(rows)
    rng = np.random.default_rng(7)
    checked = [(board, tuple(int(v) for v in rng.integers(1, 7, 2))) for board in rows]
    choices = []
    for board, dice in checked:
        after = successors(rules, board, dice if dice[0] != dice[1] else (dice[0],) * 4)
        if len(after) > 1:
            q = exact(after)
            exact_where_finished(q, after, game, rules)
            choices.append((after, -equity(q, game, rules)))
    for label, race in (("main", False), ("main + race", RACE[game])):
        ev = Evaluator(rules, weights=WEIGHTS[game], race=race)
        if race is not False and ev.net.race is None:  # type: ignore[union-attr]
            continue
        p, _ = ev.static(rows)
        diff = np.abs(p[:, 0] - truth_p[:, 0])
        lost = []
        for after, truth in choices:
            mine = -equity(ev.values(after, 1), game, rules)
            lost.append(float(truth.max() - truth[int(np.argmax(mine))]))
        lost_a = np.array(lost)
        print(f"| {game} | {label} | {len(rows):,} | {diff.mean():.4f} | {diff.max():.4f} | "
              f"{share(lost_a <= TIE)} | {len(lost):,} | {lost_a.mean():.4f} | "
              f"{100 * np.mean(lost_a > 0.01):.1f}% |", flush=True)


def share(hits: np.ndarray) -> str:
    """A share of decisions with its standard error, in percent."""
    rate = float(hits.mean())
    return f"{100 * rate:.1f}% ± {100 * np.sqrt(rate * (1 - rate) / len(hits)):.1f}"


#: Runs of each command the speed part times (a loaded machine makes single runs noisy).
RUNS = 5


def speed() -> None:
    env = user_environment()
    exe = [sys.executable, "-m", "nardtools.cli"]
    long = "long X 24:9,22:2,19:2,16:1,13:1 / 24:8,20:3,17:2,14:2"
    backgammon = "backgammon X 24:2,13:4,8:3,6:5,4:1 / 24:1,13:5,9:2,8:2,6:4,5:1"
    cases = [("python -c pass: the interpreter's start alone (anchor)", None),
             ("hint, Long Nardy middle game, 0-ply", ["hint", long, "53"]),
             ("hint, Long Nardy middle game, 2-ply", ["hint", long, "53", "--ply", "2"]),
             ("hint, backgammon middle game, 0-ply", ["hint", backgammon, "42"]),
             ("hint, backgammon middle game, 2-ply", ["hint", backgammon, "42", "--ply", "2"])]
    record = str(Path(__file__).resolve().parent.parent / "examples" / "long-nardy" / "long-5pt-seed1.mat")
    cases.append(("analyse, game 1 of examples/long-nardy/long-5pt-seed1.mat, 1-ply",
                  ["analyse", record, "--game", "1", "--ply", "1", "-q"]))
    print(f"| command | wall s, median of {RUNS} | fastest |\n|---|---|---|")
    for what, args in cases:
        times, note = [], ""
        command = [sys.executable, "-c", "pass"] if args is None else exe + args
        subprocess.run(command, capture_output=True, check=False, env=env)  # (unmeasured: writes the cache)
        for _ in range(RUNS):
            began = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
            times.append(time.perf_counter() - began)
            if done.returncode:
                note = f" (exit {done.returncode}: {done.stderr.strip()[:80]})"
        print(f"| {what} | {np.median(times):.2f}{note} | {min(times):.2f} |", flush=True)
    turns = subprocess.run([*exe, "analyse", record, "--game", "1", "--format", "json", "-q"], capture_output=True,
                           text=True, check=False)
    if turns.returncode == 0:
        import json

        print(f"(that game has {len(json.loads(turns.stdout)['games'][0]['turns'])} plays)")


def inference(positions: int) -> None:
    """State evaluations a second of each shipped main network (``--positions``
    positions two plays into the game, repeated), the compiled forward pass in
    batches and one position a call, the numpy reference in batches, and
    gnubg-nn at 0-ply (one position a call: its only interface), all in this
    process; and its peak memory."""
    import resource

    print("| network | positions | compiled, batched | compiled, one a call | numpy, batched | gnubg-nn 0-ply, "
          "one a call |\n|---|---|---|---|---|---|")
    for game in ("long", "backgammon"):
        print(_inference_line(game, positions))
    print(f"peak memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def _rate(call, n: int) -> float:  # type: ignore[no-untyped-def]
    began = time.perf_counter()
    call()
    return n / (time.perf_counter() - began)


def _inference_line(game: str, positions: int) -> str:
    from nardtools.analysis.selfplay import roll_successors, start_board
    from nardtools.core import reference_engine

    ruleset = find_ruleset(game)
    net = networks(game).main
    boards = roll_successors(ruleset.rules, roll_successors(ruleset.rules, start_board(ruleset)[None, :])[0])[0]
    rows = np.resize(boards, (positions, 52))
    batched = _rate(lambda: net.outputs(rows), len(rows))
    single = _rate(lambda: [net.outputs(rows[i:i + 1]) for i in range(10_000)], 10_000)
    with reference_engine():
        reference = _rate(lambda: net.outputs(rows), len(rows))
    anchor = "n/a (backgammon only)"
    if game == "backgammon":
        try:
            import gnubg_nn

            boards_g = [[r[27:52].tolist(), r[1:26].tolist()] for r in rows[:20_000]]
            anchor = f"{_rate(lambda: [gnubg_nn.probabilities(b, 0) for b in boards_g], len(boards_g)):,.0f}/s"
        except ImportError:
            anchor = "(gnubg-nn not installed)"
    return f"| {net.name} | {len(rows):,} | {batched:,.0f}/s | {single:,.0f}/s | {reference:,.0f}/s | {anchor} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--ply-games", type=int, default=500)
    ap.add_argument("--races", type=int, default=10000)
    ap.add_argument("--race-db", type=int, default=6, help="the bear-off database (points) races are measured in")
    ap.add_argument("--parts", nargs="+", default=["long", "backgammon", "races", "speed", "inference"])
    ap.add_argument("--positions", type=int, default=200_000, help="positions the inference part evaluates")
    ap.add_argument("--jobs", type=int, default=1, help="processes for the 1-ply match (the same games)")
    ap.add_argument("--long", help="measure these Long Nardy weights (a checkpoint) instead of the shipped")
    ap.add_argument("--backgammon", help="measure these backgammon weights instead of the shipped")
    ap.add_argument("--long-race", help="these Long Nardy race weights instead of the shipped")
    ap.add_argument("--backgammon-race", help="these backgammon race weights instead of the shipped")
    args = ap.parse_args()
    JOBS[0] = max(1, args.jobs)
    WEIGHTS.update(long=args.long, backgammon=args.backgammon)
    RACE.update(long=args.long_race, backgammon=args.backgammon_race)
    if "long" in args.parts:
        strength_long(args.games, args.ply_games)
    if "backgammon" in args.parts:
        strength_backgammon(args.games)
    if "races" in args.parts:
        races(args.races, args.race_db)
    if "speed" in args.parts:
        speed()
    if "inference" in args.parts:
        inference(args.positions)


if __name__ == "__main__":
    main()
