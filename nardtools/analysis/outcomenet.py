"""A main network's output layer refitted to the outcomes of its own games
(``nardtools train --outcomes``): Monte Carlo targets for the last layer.

A network fitted to its parent's look-ahead learns that look-ahead's
judgement, and the look-ahead's leaves are a network's own.  Measured against
rollouts (``benchmarks/long_nardy.py``), Long Nardy 0.7 valued the side on
roll about 0.03 points a game below what its own play from there gives.  The
outcome of a game played on from a position is an unbiased, if noisy, sample
of that position's value under the network's play: millions of them pin
down the few hundred weights of each output (one per hidden unit, and a
bias), though not the whole network's tens of thousands (fitted to outcomes,
the whole network learns their noise: docs/analysis.md).

1. **Games** (:func:`outcome_part`): ``games`` self-play games of the
   parent at 0-ply, the best result of every roll on both sides, seeded
   dice, :data:`PART` at a time in lock step (:func:`.rollout.play_out`).
   Every position the main network answers for (no finished game, no race
   the race network takes) is kept with the outcome of its game as its side
   on roll sees it: the indicators of the outcome classes
   (:data:`~nardtools.analysis.probabilities.CLASSES`).  Kept in parts
   (``outcomes/part-NNNNN.npz``), so that an interrupted run resumes at the
   first missing part.
2. **Refit** (:func:`refit_outputs`): the hidden layer kept, each output's
   weights fitted by Newton's method to the mean cross-entropy of the
   outcomes plus ``pull`` / 2 times the squared distance from the parent's
   weights; every tenth game (index 9 mod 10) held out to measure it.

The run's folder keeps ``settings.json``, ``outcomes/`` and
``checkpoint.npz``, whose metadata keeps the command and, under
``outcomes``, the games, positions, pull and the held-out cross-entropy
before and after.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._io import write_atomically
from ..errors import AnalysisError
from .nets import Network, sigmoid
from .supervised import arrays, check_parent, kept_path, parent_mark

#: Games a part plays in lock step (one process's unit of work, one resumable file).
PART = 500
#: Every tenth game is held out (its index mod this, at the last value).
HELD_OUT_EVERY = 10
#: Training positions whose curvature each Newton step uses (the gradient uses them all).
CURVATURE_SAMPLE = 300_000
#: Newton steps at most, and the largest weight change that ends them sooner.
STEPS, SETTLED = 12, 1e-5


def outcome_part(job: tuple[str, str | None, int, int, int, str]) -> None:
    """Part ``part`` of a run's games (``games`` of them, seeded by ``seed``
    and the part), its positions and outcomes written atomically to ``path``."""
    from ..rules import find_ruleset
    from .evaluate import Evaluator
    from .probabilities import flip
    from .rollout import play_out
    from .searchnet import main_domain
    from .selfplay import opening_roll, start_board
    from .training import TRAINING_RULESETS

    game, weights, games, seed, part, path = job
    ruleset = find_ruleset(TRAINING_RULESETS[game])
    evaluator = Evaluator(ruleset.rules, weights=weights)
    rng = np.random.default_rng((seed, part))
    seen: list[tuple[np.ndarray, np.ndarray, int]] = []

    def dice_of(turn: int) -> np.ndarray:
        if turn == 0:
            return np.array([opening_roll(rng, ruleset) for _ in range(games)])
        return rng.integers(1, 7, (games, 2))

    result = play_out(evaluator, np.repeat(start_board(ruleset)[None, :], games, axis=0), dice_of,
                      seen=lambda rows, played, plays: seen.append((rows, played.copy(), plays)))
    rows = np.concatenate([r for r, _, _ in seen])
    which = np.concatenate([g for _, g, _ in seen])
    plays = np.concatenate([np.full(len(g), k) for _, g, k in seen])
    # after an even number of plays the side on roll is the one that started, whose view play_out gives
    outcome = np.where((plays % 2 == 0)[:, None], result[which], flip(result[which], game))
    keep = main_domain(evaluator.net, rows)  # type: ignore[arg-type]  # (our networks: a run has no other)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, rows=rows[keep], outcomes=outcome[keep].astype(np.int8),
                        games=(part * PART + which[keep]).astype(np.int64))
    write_atomically(Path(path), buffer.getvalue())


def outcome_games(game: str, games: int, folder: Path, *, seed: int = 1, weights: str | None = None,
                  jobs: int = 1, progress: Callable[[int], None] | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positions, outcomes and game indices of ``games`` self-play games
    (step 1 of the module docstring), kept in parts under ``folder``."""
    from .searchnet import run_parts

    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"part-{k:05d}.npz" for k in range((games + PART - 1) // PART)]
    todo = [(game, weights, min(PART, games - k * PART), seed, k, str(path))
            for k, path in enumerate(paths) if not path.exists()]
    if progress:
        progress((len(paths) - len(todo)) * PART)
    run_parts(outcome_part, todo, jobs, (lambda: progress(PART)) if progress else None)
    parts = [arrays(path, "rows", "outcomes", "games") for path in paths]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))  # type: ignore[return-value]


def refit_outputs(net: Network, rows: np.ndarray, outcomes: np.ndarray, held_out: np.ndarray, *,
                  pull: float = 1e-4, seed: int = 1) -> tuple[Network, dict[str, Any]]:
    """``net`` with its output layer fitted to ``outcomes`` of ``rows`` (step 2
    of the module docstring; ``held_out``: the rows that only measure it), and
    the held-out cross-entropy of each output before and after.

    >>> from nardtools.analysis.nets import Network
    >>> net = Network.random("backgammon", 8, seed=1)
    >>> rows = np.zeros((40, 52), np.int8); rows[:, 1] = rows[:, 27] = np.arange(40) % 15 + 1
    >>> won = (np.arange(40) % 2)[:, None] * np.array([1, 0, 0, 0, 0])
    >>> refit, how = refit_outputs(net, rows, won, np.arange(40) >= 30)
    >>> how["held_out_cross_entropy"][1] < how["held_out_cross_entropy"][0]
    True
    """
    held_out = np.asarray(held_out, bool)
    order = np.argsort(held_out, kind="stable")  # the held-out rows last: the two parts are views, not copies
    rows, y, kept = np.asarray(rows)[order], np.asarray(outcomes, np.float32)[order], int((~held_out).sum())
    h = np.ones((len(rows), net.w1.shape[1] + 1), np.float32)  # the hidden units' values, and 1 for the bias
    for k in range(0, len(rows), 100_000):
        h[k:k + 100_000, :-1] = net.hidden(net.encode(rows[k:k + 100_000]))
    train, test, y_train, y_test = h[:kept], h[kept:], y[:kept], y[kept:]
    if not len(train):
        raise AnalysisError("no positions to refit the outputs to")
    start = np.vstack([net.w2, net.b2[None, :]]).astype(np.float64)
    w = start.copy()
    sample = train[np.random.default_rng(seed).choice(len(train), min(len(train), CURVATURE_SAMPLE), replace=False)]
    sample = sample.astype(np.float64)
    eye = np.eye(len(w))
    for _ in range(STEPS):
        residual = sigmoid(train @ w.astype(np.float32)) - y_train
        gradient = (train.T @ residual).astype(np.float64) / len(train) + pull * (w - start)
        q = sigmoid(sample @ w)
        steps = np.stack([np.linalg.solve((sample * (q[:, j] * (1 - q[:, j]))[:, None]).T @ sample / len(sample)
                                          + pull * eye, gradient[:, j]) for j in range(w.shape[1])], axis=1)
        w -= steps
        if np.abs(steps).max() < SETTLED:
            break

    def cross_entropy(weights: np.ndarray) -> list[float]:
        if not len(test):
            return []
        p = np.clip(sigmoid((test @ weights.astype(np.float32)).astype(np.float64)), 1e-7, 1 - 1e-7)
        return [round(float(v), 5) for v in -(y_test * np.log(p) + (1 - y_test) * np.log(1 - p)).mean(axis=0)]

    before, after = cross_entropy(start), cross_entropy(w)
    refit = Network(net.game, net.w1.copy(), net.b1.copy(), w[:-1].astype(np.float32), w[-1].astype(np.float32),
                    dict(net.meta))
    return refit, {"held_out_cross_entropy": [round(sum(before), 5), round(sum(after), 5)],
                   "held_out_by_output": [before, after], "held_out_positions": len(test)}


def train_outcomes(game: str, folder: Path, *, games: int, seed: int = 1, weights: str | None = None,
                   pull: float = 1e-4, jobs: int | None = None, resume: bool = False, commands: list[str] | None = None,
                   progress: Callable[[str, int, int], None] | None = None) -> Network:
    """Play (resumably) and refit, as the module docstring says; a resumed
    run keeps the settings it was started with, its game too, and its
    ``jobs`` (processes; one unless given) unless given again.  The refitted
    network is ``folder/checkpoint.npz``."""
    from .evaluate import load_networks

    kept = folder / "settings.json"
    settings: dict[str, Any] = {"game": game, "games": games, "seed": seed, "weights": kept_path(weights) or "",
                                "pull": pull, "jobs": jobs or 1}
    if resume:
        try:
            settings = json.loads(kept.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise AnalysisError(f"{kept}: not an --outcomes run's settings ({e})") from None
        check_parent(kept, settings.get("parent"), str(settings["game"]), str(settings["weights"]) or None)
    elif kept.exists():
        raise AnalysisError(f"{kept}: an --outcomes run is there already: resume it, or choose another folder")
    else:
        settings["parent"] = parent_mark(game, weights)
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(kept, json.dumps(settings, indent=1).encode())
    game, weights, total = str(settings["game"]), str(settings["weights"]) or None, int(settings["games"])
    jobs = jobs or int(settings.get("jobs", 1))
    began, played = time.perf_counter(), [0]

    def step(n: int) -> None:
        played[0] = min(played[0] + n, total)
        if progress:
            progress("games", played[0], total)

    rows, outcomes, index = outcome_games(game, total, folder / "outcomes", seed=int(settings["seed"]),
                                          weights=weights, jobs=jobs, progress=step)
    if progress:
        progress("refit", 0, len(rows))
    parent = load_networks(game, weights).main
    held_out = index % HELD_OUT_EVERY == HELD_OUT_EVERY - 1
    net, how = refit_outputs(parent, rows, outcomes, held_out, pull=float(settings["pull"]), seed=int(settings["seed"]))
    fitted = int((~held_out).sum())
    net.meta.update(kind="main", outcomes={"games": total, "positions": fitted, "pull": settings["pull"],
                                           "seed": int(settings["seed"]), **how,
                                           "seconds": round(time.perf_counter() - began)},
                    method=(f"{parent.meta.get('method', 'trained')}; then its output layer refitted (Newton, "
                            f"cross-entropy, pull {settings['pull']} towards its weights) to the outcomes of "
                            f"{fitted:,} positions of {total:,} of its own self-play games at 0-ply"),
                    lineage=[*parent.meta.get("lineage", []), parent.name],
                    parent_commands=[*parent.meta.get("parent_commands", []), *parent.meta.get("commands", [])],
                    commands=list(commands or []))
    net.save(folder / "checkpoint.npz")
    return net
