"""How strong a Long Nardy network is against today's (issue #23's
acceptance): head to head, and its errors against a fixed set of rollouts.

    python benchmarks/long_nardy.py [--games 2000] [--jobs 2] [--new FILE] [--old-rev 2330bc0]
                                    [--plies 0,1] [--set benchmarks/data/long-rollouts.npz]
    python benchmarks/long_nardy.py --build-set 1000 --rollout-games 288 --jobs 2   # once; committed
    python benchmarks/long_nardy.py --build-set 1000 --rollout-games 1296 --player-rev a6bb6ec \
        --set benchmarks/data/long-rollouts-0.4.npz
    python benchmarks/long_nardy.py --build-set 1000 --rollout-games 1296 --player-rev 3ad8711 \
        --set benchmarks/data/long-rollouts-0.7.npz
    python benchmarks/long_nardy.py --build-set 1000 --rollout-games 1296 --player-rev a6bb6ec --set-seed 950000 \
        --set benchmarks/data/long-rollouts-0.4-950k.npz   # and 3ad8711's (0.7's), and --set-seed 960000
    python benchmarks/long_nardy.py --games 1000 --new-ply 1   # the new network's own look-ahead against 0.2
    python benchmarks/long_nardy.py --games 20000 --seed 2026   # other dice than the documented figures' (707)

**Head to head**: the new main network (``--new``, default the shipped one)
against the one shipped at git revision ``--old-rev`` (0.2), both at 0-ply
with the shipped race network, ``--games`` money games (``long`` rules) in
seat-swapped pairs that play the same dice, so that the luck of the dice
cancels within each pair.

**The rollout sets** (``--build-set N``): one position of each of N self-play
games of the old networks at 0-ply (seeds from ``--set-seed``, default
900,000; the turn drawn uniformly from the game's turns, only positions the
main network answers for: no race the race network takes, no finished game),
each rolled out ``--rollout-games`` times to the end at 0-ply on both sides by
the main network shipped at ``--player-rev`` (default the old one) with the
shipped race network (``nardtools.analysis.rollout.rollout``: the first two
rolls stratified over the 36 x 36 pairs, the later dice seeded; no
truncation). The positions are seeded, so every set of one ``--set-seed``
holds the same ones. Kept as ``.npz`` (rows, rollout probabilities, equities
and their standard errors, and how they were made); a build keeps its rollouts
beside the set every ten positions (``NAME.partial.npz``) and, run again, goes
on from them. Seven are committed: ``long-rollouts.npz``, 288 games a position
by 0.2; ``long-rollouts-0.4.npz``, 1,296 by 0.4 (a stronger player, and a
standard error half as large), and ``long-rollouts-0.7.npz``, 1,296 by 0.7,
the strongest; and the same two built again on the positions of the seeds from
950,000 and from 960,000 (``long-rollouts-0.4-950k.npz``, ``-0.4-960k``,
``-0.7-950k``, ``-0.7-960k``). Each network (the new one, 0.2 and any
``--also``) is measured on each set given (``--set``, default all seven), and
a player's sets are then pooled: the error rate on their 3,000 positions. Each
network's error at each ply is the mean |equity - rollout equity| over the set
(and the share of positions where it exceeds 0.1, and its mean over the old
network's at the same ply), and its root mean square with the rollouts' own
noise taken out (the mean squared error less the mean squared standard error:
the noise adds its variance to every squared error, and is known).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import time
from functools import partial
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nardtools import find_ruleset  # noqa: E402
from nardtools._io import write_atomically  # noqa: E402
from nardtools.analysis.evaluate import Evaluator, load_networks  # noqa: E402
from nardtools.analysis.probabilities import equity  # noqa: E402
from nardtools.analysis.selfplay import MatchResult, NetPlayer, series, series_in_processes  # noqa: E402
from nardtools.core import single_threaded  # noqa: E402

RULESET = find_ruleset("long")
#: The committed rollout sets: 0.2's, then 0.4's and 0.7's, each on the
#: positions of seeds from 900,000, 950,000 and 960,000.
SETS = [ROOT / "benchmarks" / "data" / f"long-rollouts{tail}.npz"
        for tail in ("", "-0.4", "-0.4-950k", "-0.4-960k", "-0.7", "-0.7-950k", "-0.7-960k", "-1.2", "-1.2-950k")]
OLD_REV = "2330bc0"


def old_weights(rev: str, folder: Path) -> str:
    """The Long Nardy main network shipped at git revision ``rev``, as a file in ``folder``."""
    data = subprocess.run(["git", "show", f"{rev}:nardtools/data/nets/long.npz"], cwd=ROOT, capture_output=True,
                          check=True).stdout
    path = folder / f"long-{rev}.npz"
    path.write_bytes(data)
    return str(path)


class Looking:
    """The new network at ``ply`` (every play's result valued by the
    evaluator's look-ahead, the best for the side that plays)."""

    def __init__(self, weights: str | None, ply: int) -> None:
        self.ev, self.ply = Evaluator(RULESET.rules, weights=weights), ply

    def choose(self, rows: np.ndarray) -> int:
        if len(rows) == 1:
            return 0
        return int(np.argmin(equity(self.ev.values(rows, self.ply), "long", RULESET.rules)))


#: The head to head's dice, the documented figures'.
SEED = 707


def _pairs(new: str | None, old: str, ply: int, seed: int, first: int, games: int) -> MatchResult:
    player = NetPlayer(load_networks("long", new), RULESET) if ply == 0 else Looking(new, ply)
    return series(RULESET, player, NetPlayer(load_networks("long", old), RULESET), games, seed=seed, first=first,
                  paired=True)


def head_to_head(new: str | None, old: str, games: int, jobs: int, ply: int = 0, seed: int = SEED) -> MatchResult:
    return series_in_processes(partial(_pairs, new, old, ply, seed), games + games % 2, jobs, unit=2)


# ------------------------------------------------------------------ the rollout set
#: The first self-play seed of the committed sets' positions.
SET_SEED = 900_000


def set_positions(count: int, old: str, first: int = SET_SEED) -> np.ndarray:
    from nardtools.analysis.searchnet import main_domain
    from nardtools.analysis.selfplay import play_game

    nets = load_networks("long", old)
    player = NetPlayer(nets, RULESET)
    rows = []
    for i in range(count):
        seen: list[np.ndarray] = []
        play_game(RULESET, player, player, seed=first + i, on_turn=lambda board, _rows, _c, seen=seen: seen.append(board))
        boards = np.array(seen, np.int8)
        boards = boards[main_domain(nets, boards)]
        if len(boards):
            rows.append(boards[np.random.default_rng((first, i)).integers(len(boards))])
    return np.array(rows, np.int8)


def _rollouts(job: tuple[np.ndarray, int, str]) -> list[tuple[list[float], float, float]]:
    from nardtools.analysis.rollout import rollout
    from nardtools.position import GameKind, Position

    rows, games, old = job
    out = []
    for row in rows:
        position = Position._trusted(GameKind.LONG, tuple(int(v) for v in row[:26]), tuple(int(v) for v in row[26:]), 0)
        r = rollout(position, RULESET.rules, games, seed=1, weights=old)
        out.append((list(r.evaluation.probabilities.values()), r.evaluation.equity, r.standard_error))
    return out


def _partial(path: Path) -> Path:
    return path.with_name(path.stem + ".partial.npz")


def _save(path: Path, **arrays: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, buffer.getvalue())


def _rolled(done: list[tuple[list[float], float, float]]) -> dict[str, np.ndarray]:
    """Rollouts as the set's arrays."""
    return {"probabilities": np.array([d[0] for d in done]), "equity": np.array([d[1] for d in done]),
            "stderr": np.array([d[2] for d in done])}


def build_set(path: Path, count: int, games: int, jobs: int, old: str, rev: str, player: str | None = None,
              first: int = SET_SEED) -> None:
    """Roll out the set's positions, ten at a time.  After each ten the rollouts
    done so far are kept beside ``path`` (``NAME.partial.npz``), and a build
    stopped part way goes on from there when the same command runs again."""
    began = time.perf_counter()
    rows = set_positions(count, old, first)
    who = load_networks("long", player).name if player else f"nardtools-long 0.2 (git {rev})"
    other_seeds = {"first_seed": first} if first != SET_SEED else {}  # (the first sets' keys name no seed)
    key = json.dumps({"positions": len(rows), "games": games, "player": who, **other_seeds})
    done: list[tuple[list[float], float, float]] = []
    spent = 0.0
    if _partial(path).exists():
        with np.load(_partial(path)) as kept:
            if str(kept["key"]) == key:
                done = [(list(p), float(e), float(s)) for p, e, s in zip(kept["probabilities"], kept["equity"],
                                                                        kept["stderr"])]
                spent = float(kept["seconds"])
    if done:
        print(f"going on from {len(done)} positions rolled out before ({_partial(path)})", flush=True)
    chunks = [(rows[k:k + 10], games, player or old) for k in range(len(done), len(rows), 10)]
    with Pool(jobs, initializer=single_threaded) as pool:
        for part in pool.imap(_rollouts, chunks):
            done += part
            _save(_partial(path), key=np.array(key), **_rolled(done),
                  seconds=np.array(spent + time.perf_counter() - began))
            print(f"{len(done)} of {len(rows)} positions", flush=True)
    how = {"positions": len(rows), "games_per_position": games, "player": f"{who} at 0-ply, "
           "shipped race network", "truncation": "none (to the end)", "variance_reduction":
           "the first two rolls stratified over the 36 x 36 pairs", "first_seed": first,
           "seconds": round(spent + time.perf_counter() - began), "command": " ".join(["python", *sys.argv])}
    _save(path, rows=rows, **_rolled(done), how=np.array(json.dumps(how)))
    _partial(path).unlink()
    print(f"{len(rows)} positions rolled out {games} times each in {how['seconds']} s -> {path}")


def _errors(job: tuple[str | None, int, np.ndarray]) -> np.ndarray:
    weights, ply, rows = job
    ev = Evaluator(RULESET.rules, weights=weights)
    return equity(ev.values(rows, ply), "long", RULESET.rules)  # type: ignore[no-any-return]


#: One set's errors: each network's at each ply, by (name, ply), and the rollouts' standard errors.
Errors = tuple[dict[tuple[str, int], np.ndarray], np.ndarray]


def set_errors(path: Path, networks: dict[str, str | None], plies: list[int], jobs: int,
               old: str) -> tuple[str, Errors]:
    """Measure each network at each ply on the set at ``path`` and print its
    table (each error over the network named ``old``'s too); the set's player
    and its errors, for :func:`pooled`."""
    with np.load(path) as data:
        rows, truth, stderr, how = data["rows"], data["equity"], data["stderr"], json.loads(str(data["how"]))
    print(f"\nThe rollout set {path.name}: {how['positions']} positions, {how['games_per_position']} games each by "
          f"{how['player']}, {how['truncation']}; {how['variance_reduction']}; mean standard error {stderr.mean():.4f}")
    errors: dict[tuple[str, int], np.ndarray] = {}
    seconds: dict[tuple[str, int], float] = {}
    for name, weights in networks.items():
        for ply in plies:
            began = time.perf_counter()
            chunks = [(weights, ply, rows[k:k + 50]) for k in range(0, len(rows), 50)]
            with Pool(jobs, initializer=single_threaded) as pool:
                got = np.concatenate(pool.map(_errors, chunks))
            errors[name, ply], seconds[name, ply] = np.abs(got - truth), time.perf_counter() - began
    _table(errors, stderr, seconds, old)
    return str(how["player"]), (errors, stderr)


def _table(errors: dict[tuple[str, int], np.ndarray], stderr: np.ndarray,
           seconds: dict[tuple[str, int], float], old: str) -> None:
    """The error table: each row's mean, its RMS with the rollouts' noise
    taken out, its share over 0.1, its mean over the network ``old``'s at
    the same ply, and how far it is from half the old one's (the issue's
    mark): its error less half the old one's, position by position, as a
    mean and that mean's standard error."""
    print("| network | ply | mean abs equity error | RMS error, noise removed | share > 0.1 | over the old one's "
          "| less half the old one's | seconds |\n|---|---|---|---|---|---|---|---|")
    for (name, ply), error in errors.items():
        rms = np.sqrt(max(float((error ** 2).mean() - (stderr ** 2).mean()), 0.0))
        base = errors.get((old, ply))
        ratio = margin = "-"
        if base is not None and base.mean():
            gap = error - base / 2
            ratio = f"{error.mean() / base.mean():.3f}"
            margin = f"{gap.mean():+.5f} ± {gap.std(ddof=1) / np.sqrt(len(gap)):.5f}"
        print(f"| {name} | {ply} | {error.mean():.4f} | {rms:.4f} | {100 * (error > 0.1).mean():.1f}% | {ratio} | "
              f"{margin} | {seconds[name, ply]:.0f} |", flush=True)


def pooled(measured: list[tuple[str, Errors]], old: str) -> None:
    """Each player's sets of other positions as one set: the error rate on
    all their positions (where a player has more than one)."""
    players = dict.fromkeys(player for player, _ in measured)
    for player in players:
        mine = [errors for who, errors in measured if who == player]
        if len(mine) < 2:
            continue
        errors = {key: np.concatenate([e[key] for e, _ in mine]) for key in mine[0][0]}
        stderr = np.concatenate([s for _, s in mine])
        print(f"\nThe {len(mine)} sets rolled out by {player}, pooled: {len(stderr):,} positions")
        _table(errors, stderr, dict.fromkeys(errors, 0.0), old)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=SEED, help="The head to head's dice (default the documented "
                    "figures' 707; another seed gives games independent of them).")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--new", help="The new Long Nardy main network (default the shipped one).")
    ap.add_argument("--old-rev", default=OLD_REV, help="The git revision of today's network (0.2; another "
                    "revision's network, 0.6's 5214548 say, plays the new one instead).")
    ap.add_argument("--new-ply", type=int, default=0, choices=(0, 1, 2), help="The new network's look-ahead in the "
                    "head to head (the acceptance's is 0; 1 shows how far its own look-ahead plays above 0.2).")
    ap.add_argument("--plies", default="0,1")
    ap.add_argument("--set", type=Path, action="append", help="A rollout set to measure on (default the "
                    "three committed ones), or the one --build-set writes.")
    ap.add_argument("--also", action="append", default=[], help="Another main network measured on the sets.")
    ap.add_argument("--build-set", type=int, default=0, help="Build the rollout set of this many positions.")
    ap.add_argument("--rollout-games", type=int, default=288)
    ap.add_argument("--set-seed", type=int, default=SET_SEED, help="With --build-set: the first self-play seed "
                    "its positions are drawn from (default the first sets' 900,000; another gives other positions).")
    ap.add_argument("--player-rev", help="With --build-set: the git revision whose Long Nardy main network plays the "
                    "rollouts (default --old-rev's).")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = old_weights(args.old_rev, Path(tmp))
        if args.build_set:
            if not args.set or len(args.set) > 1:
                ap.error("--build-set writes the one --set given")
            player = old_weights(args.player_rev, Path(tmp)) if args.player_rev else None
            build_set(args.set[0], args.build_set, args.rollout_games, args.jobs, old, args.old_rev, player,
                      args.set_seed)
            return
        new_name, old_name = load_networks("long", args.new).name, load_networks("long", old).name
        if args.games:
            began = time.perf_counter()
            r = head_to_head(args.new, old, args.games, args.jobs, args.new_ply, args.seed)
            plies = "both 0-ply" if not args.new_ply else f"at {args.new_ply}-ply against 0-ply"
            print(f"{new_name} against {old_name} (git {args.old_rev}), {plies}, {r.games:,} games in "
                  f"seat-swapped pairs with shared dice: {100 * r.win_rate:.1f}% ± {100 * r.standard_error():.1f} "
                  f"of games, {r.points_per_game:+.3f} points a game ({time.perf_counter() - began:.0f} s)")
        networks = {new_name: args.new, old_name: old,
                    **{load_networks("long", f).name: f for f in args.also}}
        at = [int(p) for p in args.plies.split(",")]
        pooled([set_errors(path, networks, at, args.jobs, old_name) for path in args.set or SETS if path.exists()],
               old_name)


if __name__ == "__main__":
    main()
