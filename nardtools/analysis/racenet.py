"""A network of its own for races (гонка), learned from the bear-off database.

The main network of a game (:mod:`.training`) learns every kind of position
by self-play, and races are a small part of what it sees: its race odds are
a few hundredths off, enough to choose the wrong bear-off play.  As GNU
Backgammon does, each game therefore gets a second, *race* network, used for
every race position both sides of which lie within its ``points`` (no
checker beyond that point, none on the bar).

It is learned by supervised regression, not by self-play, since in that
domain the truth is known: the positions come from self-play games of the
main network (every position rolled from that is a race in the domain,
every result its roll could reach, so that the network learns to tell a
roll's plays apart, every reply to one of them, and the opponent's best
replies to some rolls after the play chosen and after one other: the leaves
a 1-ply look-ahead weighs), and their targets are the bear-off database's odds
(:func:`.evaluate.database_odds` with a ``points``-point database, built
once and cached).  The network has the main one's shape and encoding, with
the checkers off of each side also as a thermometer (:func:`.encodings.encode_race`:
a bear-off's count of rolls turns on them), and is fitted by
:class:`.supervised.Fit` (Adam on the cross-entropy, a tenth of the
positions held out, the rate halved every ``halving`` epochs).

A run lives in a folder: ``positions.npz`` (the positions and targets,
collected once), ``checkpoint.npz`` (the network after the last epoch, with
the epochs, the held-out error and the command in its metadata) and
``optimizer.npz`` (Adam's moments), so that ``--resume`` continues at the
next epoch and gives the same weights as a run that was never stopped.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .._io import write_atomically
from ..errors import AnalysisError
from .nets import Network
from .probabilities import CLASSES
from .rows import in_domain
from .supervised import HALVING, Fit, arrays

#: The database (points) a new race network learns from: a 10-point one
#: takes under a minute to build and covers most races.
POINTS = 10


def collect(game: str, games: int, *, seed: int = 1, points: int = POINTS, weights: str | None = None,
            replies: bool = True, leaves: int = 0, jobs: int = 1,
            progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Race positions of ``games`` self-play games of the main network, distinct,
    with their database odds as targets (computed in ``jobs`` processes).

    Of every turn rolled from a race in the domain: the position, every result
    of its roll, (``replies``) for one of those results (drawn from the game's
    seed) and one roll of the opponent, every reply, and (``leaves``, 0 to 21)
    for the play chosen and one other result, the opponent's best reply (by
    the main network) to that many of its 21 rolls, drawn from the seed: the
    positions a 1-ply look-ahead weighs, the last as it weighs them."""
    from ..dice import ALL_ROLLS
    from ..rules import find_ruleset
    from .evaluate import load_network
    from .probabilities import equity
    from .selfplay import NetPlayer, best_per_roll, play_game, roll_successors, successors, turn_dice
    from .training import TRAINING_RULESETS, _game_seed

    ruleset = find_ruleset(TRAINING_RULESETS[game])
    player = NetPlayer(load_network(game, weights), ruleset)
    seen: dict[bytes, None] = {}  # insertion-ordered: the same positions in the same order every run

    def add(rows: np.ndarray) -> np.ndarray:
        inside = in_domain(rows, points)
        for row in rows[inside]:
            seen.setdefault(row.tobytes(), None)
        return inside

    for i in range(games):
        rng = np.random.default_rng((seed, i))

        def keep(board: np.ndarray, rows: np.ndarray, chosen: int, rng: np.random.Generator = rng) -> None:
            inside = add(np.concatenate([board[None, :], rows]))
            if not inside[0]:
                return
            if replies:
                k = int(rng.integers(len(rows)))
                dice = tuple(int(v) for v in rng.integers(1, 7, 2))
                if inside[k + 1]:
                    add(successors(ruleset.rules, rows[k], turn_dice(*dice)))
            if leaves:
                results = [k for k in (chosen, int(rng.integers(len(rows)))) if inside[k + 1]]
                if not results:
                    return
                after, counts = roll_successors(ruleset.rules, rows[results])
                best = best_per_roll(equity(player.values(after), game, ruleset.rules), counts).reshape(-1, 21)
                rolls = rng.permuted(np.tile(np.arange(len(ALL_ROLLS)), (len(results), 1)), axis=1)[:, :leaves]
                add(after[np.take_along_axis(best, rolls, axis=1).ravel()])

        play_game(ruleset, player, player, seed=_game_seed(seed, i), on_turn=keep)
        if progress:
            progress(1)
    rows = np.frombuffer(b"".join(seen), np.int8).reshape(-1, 52)
    chunks = [(game, points, rows[k:k + 10_000]) for k in range(0, len(rows), 10_000)]
    if jobs > 1 and len(chunks) > 1:
        from multiprocessing import get_context

        from ..core import single_threaded

        with get_context("spawn").Pool(jobs, initializer=single_threaded) as pool:
            parts = pool.map(_odds, chunks)
    else:
        parts = [_odds(chunk) for chunk in chunks]
    targets = np.concatenate(parts) if parts else np.zeros((0, len(CLASSES[game])), np.float32)
    return rows, targets


def _odds(chunk: tuple[str, int, np.ndarray]) -> np.ndarray:
    """The database odds of rows in the domain (a process's share of :func:`collect`)."""
    from ..rules import find_ruleset
    from .evaluate import database_odds
    from .training import TRAINING_RULESETS

    game, points, rows = chunk
    rules = find_ruleset(TRAINING_RULESETS[game]).rules
    targets = np.empty((len(rows), len(CLASSES[game])), np.float32)
    for i, row in enumerate(rows):
        exact = database_odds(rules, row, points=points)
        if exact is None:  # cannot happen: in_domain is the database's domain
            raise AnalysisError(f"{row.tolist()} is not a race within {points} points")
        targets[i] = exact[0]
    return targets


def train_race(game: str, folder: Path, *, games: int, epochs: int | None, seed: int = 1, points: int = POINTS,
               hidden: int = 128, replies: bool = True, leaves: int = 0, halving: int | None = None,
               resume: bool = False, commands: list[str] | None = None,
               jobs: int = 1,
               progress: Callable[[int], None] | None = None,
               report: Callable[[int, float, dict[str, float]], None] | None = None) -> Network:
    """Collect (once) and fit a race network in ``folder``, until ``epochs``
    epochs in all (``None``: a resumed run's own plan, else
    :data:`.supervised.EPOCHS`), the rate halved every ``halving`` epochs
    (``HALVING``; a resumed run keeps its own); ``report(epoch, loss,
    held_out)`` after each."""
    data = folder / "positions.npz"
    if resume:
        net = Network.load(folder / "checkpoint.npz")
        if not net.is_race:
            raise AnalysisError(f"{folder / 'checkpoint.npz'}: not a race network's run")
        rows, targets = arrays(data, "rows", "targets")
        fit = Fit.resume(folder, net, rows, targets)
        points = int(fit.net.meta["points"])
        commands = [*fit.net.meta.get("commands", []), *(commands or [])]
    else:
        folder.mkdir(parents=True, exist_ok=True)
        how = np.array([games, seed, points, replies, leaves])
        if data.exists():  # collected by an earlier run of the same games: kept, since collecting is the slow part
            rows, targets, before = arrays(data, "rows", "targets", "how")
            before = np.pad(before, (0, len(how) - len(before)))  # runs before leaves had none
            if not np.array_equal(before, how):
                raise AnalysisError(f"{data}: positions of other games (games, seed, points, replies, leaves "
                                    f"{before.tolist()}); choose another folder")
        else:
            began = time.perf_counter()
            rows, targets = collect(game, games, seed=seed, points=points, replies=replies, leaves=leaves, jobs=jobs,
                                    progress=progress)
            buffer = io.BytesIO()
            np.savez_compressed(buffer, rows=rows, targets=targets, how=how,
                                seconds=np.array(time.perf_counter() - began))
            write_atomically(data, buffer.getvalue())
        net = Network.random(game, hidden, seed, race_points=points)
        net.meta.update(games=games, replies=replies, leaves=leaves)
        fit = Fit(net, rows, targets, seed=seed, halving=halving or HALVING)
        commands = list(commands or [])
    return fit.run(folder, epochs, commands, f"supervised on a {points}-point bear-off database's odds of self-play "
                   "race positions (Adam, cross-entropy)", curve=False, report=report)
