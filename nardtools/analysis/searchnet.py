"""A game's main network trained on its own look-ahead: supervised on search
targets, generation after generation, as GNU Backgammon's and wildbg's
networks were (after TD self-play).

A generation starts from the evaluator of the one before (``weights``: the
shipped networks, or a checkpoint; always with the shipped race network):

1. **Positions** (:func:`collect`): self-play games of that evaluator (or
   of another network, ``collector``: another player's positions) at 0-ply,
   where a side plays a random result instead of its best with probability
   ``explore`` (so that the set is not only the network's own line),
   keeping every position rolled from and ``alternatives`` other results of
   each roll (the positions a play's ranking compares).  Only the positions
   the main network answers for: no finished game, no race the race network
   takes.
2. **Targets** (:func:`search_targets`): each position's probabilities at
   ``ply`` (1 by default; 0, its own, for a run all of whose targets are
   rollouts) by that evaluator, computed in parts of
   :data:`PART` positions (``targets/part-NNNNN.npy``, in ``jobs``
   processes), so that an interrupted run resumes at the first missing part.
   With ``rollouts``, that many of the positions (drawn by the seed) take
   instead the mean result of games played out from them to the end by that
   evaluator at 0-ply (:func:`rollout_targets`, ``rollouts/part-NNNNN.npy``):
   the games' outcomes, where the look-ahead has only the network's own
   judgement at its leaves; with ``rollout_truncate``, games stopped after
   that many plays and valued there by the network (a truncated rollout: a
   little of the look-ahead's bias, much less of the outcomes' noise); with
   ``rollout_luckless``, each roll's luck taken out of those games
   (:func:`.rollout.play_out_luckless`: the same mean, less noise); with
   ``rollout_weight`` *w* < 1, a rolled-out position learns *w* × its
   rollout + (1 − *w*) × its look-ahead target (:func:`weighed`): the
   rollouts' noise shrunk towards the look-ahead, at some of its bias.
3. **Fit** (:class:`.supervised.Fit`): a network of ``hidden`` units fitted
   to them, and to the positions and targets of any earlier runs named
   (``with_runs``: more positions, each with its own run's targets).  A
   run of no games (``games=0``) collects nothing: it fits the earlier
   runs' positions alone (a refit: the same data fitted afresh, for longer
   or weighed otherwise).
   ``widen`` starts it from the evaluator's own network, its extra hidden
   units silent (zero output weights), so that fitting begins from the
   network it improves on rather than from nothing.

A run lives in a folder: ``positions.npz`` (the rows and how they were
collected), ``targets/``, ``checkpoint.npz``, ``optimizer.npz`` and
``curve.csv`` (each epoch's loss and held-out P(win) error); the
command of each step is kept in the checkpoint's metadata.  Rebuild with the
commands there (collecting is seeded: the same games give the same rows).
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._io import write_atomically
from ..errors import AnalysisError
from .encodings import ENCODINGS, check_encoding
from .nets import Network, Networks
from .rows import finished
from .supervised import EPOCHS, HALVING, RATE, Fit, arrays, check_parent, kept_path, parent_mark

if TYPE_CHECKING:
    from .evaluate import Evaluator
    from .selfplay import NetPlayer

#: Positions per part of the targets (one process's unit of work, one resumable file).
PART = 5000
#: Positions per part of the rollout targets, and positions whose games are played in lock step.
ROLLOUT_PART, ROLLOUT_LOCKSTEP = 500, 20
#: What a run records of itself only when it has them: a network fitted from
#: a parent that had them does not inherit them.
_RUN_KEYS = ("with_runs", "with_run_commands", "rollouts", "rollout_games", "rollout_truncate", "rollout_luckless",
             "rollout_weight", "collected_by", "pruned_by", "began_from")


#: A run's settings that its kept targets depend on (a restart in its folder may change only the others).
_TARGET_KEYS = ("rollouts", "rollout_games", "rollout_truncate", "rollout_luckless", "prune_with", "prune_mark")


def _networks(game: str, weights: str | None) -> Networks:
    from .evaluate import load_networks

    return load_networks(game, weights)


def main_domain(nets: Networks, rows: np.ndarray) -> np.ndarray:
    """Which rows the main network answers for: unfinished, and not a race the race network takes."""
    inside: np.ndarray = ~finished(rows) & ~nets.race_rows(rows)
    return inside


def collect(game: str, games: int, *, seed: int = 1, weights: str | None = None, explore: float = 0.1,
            alternatives: int = 2, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The distinct positions (board rows, in a reproducible order) of ``games``
    self-play games, as the module docstring describes."""
    from ..rules import find_ruleset
    from .selfplay import NetPlayer, play_game
    from .training import TRAINING_RULESETS, _game_seed

    ruleset = find_ruleset(TRAINING_RULESETS[game])
    nets = _networks(game, weights)
    greedy = NetPlayer(nets, ruleset)
    seen: dict[bytes, None] = {}

    for i in range(games):
        player = _Explorer(greedy, np.random.default_rng((seed, i)), explore, alternatives)
        play_game(ruleset, player, player, seed=_game_seed(seed, i), on_turn=player.keep)
        batch = np.array(player.kept, np.int8).reshape(-1, 52)
        for row in batch[main_domain(nets, batch)]:
            seen.setdefault(row.tobytes(), None)
        if progress:
            progress(1)
    return np.frombuffer(b"".join(seen), np.int8).reshape(-1, 52).copy()


class _Explorer:
    """A self-play side that plays its best, or with probability ``explore`` a
    random result, and keeps each position rolled from with ``alternatives``
    other results of the roll."""

    def __init__(self, greedy: NetPlayer, rng: np.random.Generator, explore: float, alternatives: int) -> None:
        self.greedy, self.rng, self.explore, self.alternatives = greedy, rng, explore, alternatives
        self.kept: list[np.ndarray] = []

    def choose(self, rows: np.ndarray) -> int:
        if len(rows) > 1 and self.rng.random() < self.explore:
            return int(self.rng.integers(len(rows)))
        return self.greedy.choose(rows)

    def keep(self, board: np.ndarray, rows: np.ndarray, chosen: int) -> None:
        self.kept.append(board)
        if len(rows) > 1 and self.alternatives:
            self.kept.extend(rows[self.rng.choice(len(rows), min(self.alternatives, len(rows)), replace=False)])


def _part(job: tuple[str, str | None, str | None, int, np.ndarray, str]) -> None:
    """One part of the targets, written atomically (a process's share of :func:`search_targets`)."""
    game, weights, prune, ply, rows, path = job
    evaluator = _evaluator(game, weights, prune)
    values = np.concatenate([evaluator.values(rows[k:k + 500], ply) for k in range(0, len(rows), 500)])
    _save_part(path, values)


def _rollout_part(job: tuple[str, str | None, str | None, int, int, bool, int, int, np.ndarray, str]) -> None:
    """One part of the rollout targets, written atomically (:func:`rollout_targets`)."""
    from .rollout import play_out, play_out_luckless, roll_pairs

    game, weights, prune, games, truncate, luckless, seed, part, rows, path = job
    play = play_out_luckless if luckless else play_out
    evaluator = _evaluator(game, weights, prune)
    rng = np.random.default_rng((seed, part))
    values = []
    for k in range(0, len(rows), ROLLOUT_LOCKSTEP):
        starts = np.repeat(rows[k:k + ROLLOUT_LOCKSTEP], games, axis=0)
        first = np.arange(len(starts)) % games % 36

        def dice_of(plays: int, first: np.ndarray = first) -> np.ndarray:
            return roll_pairs(first) if plays == 0 else rng.integers(1, 7, (len(first), 2))

        results = play(evaluator, starts, dice_of, truncate=truncate)
        values.append(results.reshape(len(starts) // games, games, -1).mean(axis=1).clip(0.0, 1.0))
    _save_part(path, np.concatenate(values))


def _evaluator(game: str, weights: str | None, prune: str | None) -> Evaluator:
    """The evaluator of a run's targets: the network at ``weights`` (else the
    shipped one), its look-ahead screened by the pruning network at
    ``prune`` (else the shipped one, where that screens for it)."""
    from ..rules import find_ruleset
    from .evaluate import Evaluator
    from .training import TRAINING_RULESETS

    return Evaluator(find_ruleset(TRAINING_RULESETS[game]).rules, weights=weights, prune=prune or True)


def prune_mark(game: str, path: str, weights: str | None) -> str:
    """How a run records the pruning network it was given (at ``path``, for
    its parent at ``weights``): its name and its weights'
    :attr:`~.nets.Network.digest`, as :func:`.supervised.parent_mark` records
    the parent; an error when it does not screen for that parent."""
    pruner = _evaluator(game, weights, path).pruner
    assert pruner is not None  # a path given loads, or raises
    return f"{pruner.name} {pruner.digest}"


def _save_part(path: str, values: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, values.astype(np.float32))
    write_atomically(path, buffer.getvalue())


def search_targets(game: str, rows: np.ndarray, folder: Path, *, ply: int = 1, weights: str | None = None,
                   prune: str | None = None, jobs: int = 1,
                   progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The probabilities of ``rows`` at ``ply`` by the evaluator of ``weights``
    (screened by the pruning network at ``prune``, else the shipped one where
    it screens for that network), kept in parts under ``folder`` (parts
    already there are read, not computed)."""
    paths = _part_paths(folder, len(rows), PART)
    todo = [(game, weights, prune, ply, rows[k * PART:(k + 1) * PART], str(path))
            for k, path in enumerate(paths) if not path.exists()]
    return _computed(_part, todo, folder, paths, PART, jobs, progress)


def rollout_targets(game: str, rows: np.ndarray, folder: Path, *, games: int = 36, truncate: int = 0,
                    luckless: bool = False, weights: str | None = None, prune: str | None = None, seed: int = 1,
                    jobs: int = 1, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The probabilities of ``rows`` from ``games`` games each, played to the
    end (or stopped after ``truncate`` > 0 plays and valued there by the
    network) by the evaluator of ``weights`` at 0-ply on both sides
    (:func:`.rollout.play_out`; with ``luckless``, each roll's luck taken
    out, :func:`.rollout.play_out_luckless`): game ``i`` of a position
    starts with the ``i mod 36``-th of the 36 rolls (stratified), the later
    dice come from ``seed`` and the part.  Kept in parts of
    :data:`ROLLOUT_PART` positions under ``folder``, as :func:`search_targets`
    keeps its own (and screened as it screens, ``prune``)."""
    paths = _part_paths(folder, len(rows), ROLLOUT_PART)
    todo = [(game, weights, prune, games, truncate, luckless, seed, k, rows[k * ROLLOUT_PART:(k + 1) * ROLLOUT_PART], str(path))
            for k, path in enumerate(paths) if not path.exists()]
    return _computed(_rollout_part, todo, folder, paths, ROLLOUT_PART, jobs, progress)


def _computed(work: Callable[[Any], None], todo: list[Any], folder: Path, paths: list[Path], size: int, jobs: int,
              progress: Callable[[int], None] | None) -> np.ndarray:
    """The parts ``paths`` of some targets, the missing ones (``todo``) made by ``work`` in ``jobs`` processes."""
    folder.mkdir(parents=True, exist_ok=True)
    if progress:
        progress((len(paths) - len(todo)) * size)
    run_parts(work, todo, jobs, (lambda: progress(size)) if progress else None)
    return _parts(folder, paths)


def run_parts(work: Callable[[Any], None], todo: list[Any], jobs: int, done: Callable[[], None] | None) -> None:
    """``work`` of each job of ``todo`` (each writes its own part), in ``jobs``
    processes when there are several jobs; ``done()`` after each."""
    if jobs > 1 and len(todo) > 1:
        from multiprocessing import get_context

        from ..core import single_threaded

        with get_context("spawn").Pool(jobs, initializer=single_threaded) as pool:
            for _ in pool.imap_unordered(work, todo):
                if done:
                    done()
    else:
        for job in todo:
            work(job)
            if done:
                done()


def _part_paths(folder: Path, count: int, size: int) -> list[Path]:
    """Where the targets of ``count`` positions are kept under ``folder``, ``size`` a part."""
    return [folder / f"part-{k // size:05d}.npy" for k in range(0, count, size)]


def _parts(folder: Path, paths: list[Path]) -> np.ndarray:
    """The targets kept in ``paths`` (parts under ``folder``), one after another."""
    try:
        return np.concatenate([np.load(path) for path in paths]) if paths else np.zeros((0, 0), np.float32)
    except (OSError, ValueError) as e:
        raise AnalysisError(f"{folder}: a damaged part of the targets ({e}); delete it to compute it again") from None


def weighed(looked: np.ndarray, rolled: np.ndarray, weight: float) -> np.ndarray:
    """The targets of rolled-out positions: ``weight`` × their rollouts'
    probabilities + (1 − ``weight``) × their look-ahead's (``looked``).

    >>> weighed(np.array([[0.5, 0.1]]), np.array([[1.0, 0.3]]), 0.25).tolist()
    [[0.625, 0.15000000000000002]]
    """
    return rolled if weight == 1.0 else weight * rolled + (1.0 - weight) * looked


def finished_run(folder: Path, rollout_weight: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The positions and targets of the search run in ``folder``, every part
    of its targets computed (another run's data to fit beside its own), its
    rollouts :func:`weighed` by ``rollout_weight`` against its look-ahead."""
    rows, targets, _, _ = _finished(folder, rollout_weight)
    return rows, targets


def _finished(folder: Path, rollout_weight: float) -> tuple[np.ndarray, np.ndarray, int, int]:
    """:func:`finished_run`'s positions and targets, how many of them are
    rollouts, and the ply of its look-ahead targets."""
    rows, how, kept = arrays(folder / "positions.npz", "rows", "how", "fitting")
    fitting = json.loads(str(kept))
    chosen = rollout_positions(len(rows), int(fitting.get("rollouts", 0)), int(how[1]))
    paths = _part_paths(folder / "targets", len(rows), PART)
    rolled = _part_paths(folder / "rollouts", len(chosen), ROLLOUT_PART)
    if not all(path.exists() for path in [*paths, *rolled]):
        raise AnalysisError(f"{folder}: not every part of its targets is computed; finish that run "
                            f"first (nardtools train --resume {folder})")
    targets = _parts(folder / "targets", paths)
    if len(chosen):
        targets[chosen] = weighed(targets[chosen], _parts(folder / "rollouts", rolled), rollout_weight)
    return rows, targets, len(chosen), int(how[4])


def _commands(folder: Path) -> list[str]:
    """The commands that made a finished run's checkpoint (none kept: ``[]``)."""
    checkpoint = folder / "checkpoint.npz"
    return list(Network.load(checkpoint).meta.get("commands", [])) if checkpoint.exists() else []


def rollout_positions(count: int, chosen: int, seed: int) -> np.ndarray:
    """Which of a run's ``count`` positions take rollout targets instead of the
    look-ahead: ``chosen`` of them, drawn by the run's ``seed``, in order."""
    return np.sort(np.random.default_rng((seed, 36)).choice(count, min(chosen, count), replace=False))


def widen(net: Network, hidden: int, seed: int, encoding: str | None = None) -> Network:
    """``net`` with ``hidden`` hidden units, and with ``encoding``'s inputs
    (one that extends its own: ``board`` to ``contact`` or ``blocks``), the
    same function: its own units first, the new ones with small random input
    weights and zero output weights, the new inputs with zero weights
    (silent until fitting moves them)."""
    if hidden < net.w1.shape[1]:
        raise AnalysisError(f"cannot widen a network of {net.w1.shape[1]} hidden units to {hidden}")
    encoding = encoding or net.encoding
    check_encoding(net.game, encoding)
    if net.encoding not in ("board", encoding) or encoding == "race":
        raise AnalysisError(f"cannot give a network of {net.encoding!r} inputs the inputs {encoding!r}")
    rng = np.random.default_rng(seed)
    extra = hidden - net.w1.shape[1]
    w1 = np.concatenate([net.w1, (rng.standard_normal((net.w1.shape[0], extra)) * 0.1).astype(np.float32)], axis=1)
    w1 = np.concatenate([w1, np.zeros((ENCODINGS[encoding] - net.inputs, hidden), np.float32)])
    b1 = np.concatenate([net.b1, np.zeros(extra, np.float32)])
    w2 = np.concatenate([net.w2, np.zeros((extra, net.w2.shape[1]), np.float32)])
    meta = {k: v for k, v in net.meta.items() if k not in ("epochs", "version", "encoding")}
    if encoding != "board":
        meta["encoding"] = encoding
    return Network(net.game, w1, b1, w2, net.b2.copy(), {**meta, "hidden": hidden, "parent": net.name})


def _kept(data: Path, *names: str) -> list[str | None]:
    """What a run's ``positions.npz`` keeps as each of ``names`` when it does
    (``None`` otherwise): ``collector``, the network whose self-play gave the
    positions when not the parent; ``game`` and ``parent``, the parent's
    :func:`~.supervised.parent_mark` (older runs have neither)."""
    with np.load(data) as saved:
        return [str(saved[name]) if name in saved.files else None for name in names]


def train_search(game: str, folder: Path, *, games: int, epochs: int | None, ply: int = 1, seed: int = 1,
                 hidden: int | None = None, weights: str | None = None, explore: float = 0.1, alternatives: int = 2,
                 rate: float | None = None, halving: int | None = None, widen_from: bool = True, resume: bool = False,
                 encoding: str | None = None, with_runs: list[Path] | None = None, rollouts: int = 0,
                 rollout_games: int = 36, rollout_truncate: int = 0, rollout_weight: float = 1.0,
                 rollout_luckless: bool = False, collector: str | None = None, prune: str | None = None,
                 commands: list[str] | None = None, jobs: int | None = None,
                 progress: Callable[[str, int, int], None] | None = None,
                 report: Callable[[int, float, dict[str, float]], None] | None = None) -> Network:
    """Collect (once), compute the targets (resumably) and fit, until ``epochs``
    epochs in all (``None``: a resumed run's own, else
    :data:`.supervised.EPOCHS`; ``rate``: Adam's, :data:`.supervised.RATE`
    unless given; ``hidden``: the parent's width unless given;
    ``encoding``: the inputs, the parent's unless given);
    ``with_runs``: the folders of earlier runs whose positions and targets are
    fitted too (``games=0``: they alone); ``rollouts``: that many positions, drawn by the seed, learn
    instead of the look-ahead the mean of ``rollout_games`` games played out
    from them by the evaluator at 0-ply, :func:`rollout_targets` (stopped
    after ``rollout_truncate`` plays when that is > 0, each roll's luck
    taken out with ``rollout_luckless``), :func:`weighed` by
    ``rollout_weight`` against the look-ahead (the earlier runs' rollouts too);
    ``collector``: the network whose self-play gives the positions, when not
    the evaluator's own: another player's positions to learn);
    ``prune``: the pruning network that screens the look-ahead of the
    targets and rollouts (it must screen for the parent; default the
    shipped one where it does, so that a run's targets do not depend on what
    is shipped when it is given);
    ``jobs``: the processes that compute the targets (one unless given; a
    resumed run's own unless given again);
    ``progress(stage, done, total)`` as it goes, ``report(epoch, loss,
    held_out)`` after each epoch.  A resumed run keeps the settings it was
    started with (kept beside its positions), whether it stopped while
    computing the targets or while fitting."""
    if encoding:
        check_encoding(game, encoding)
    if not resume and not games and not with_runs:
        raise AnalysisError("a run of no games fits earlier runs' positions alone: name them (with_runs)")
    data = folder / "positions.npz"
    weights, collector = kept_path(weights), kept_path(collector)
    how = np.array([games, seed, round(explore * 1000), alternatives, ply])
    fitting: dict[str, Any] = {"hidden": hidden, "rate": rate or RATE, "halving": halving, "widen": widen_from,
                               "encoding": encoding, "with_runs": [kept_path(f) for f in with_runs or []]}
    if rollouts:
        fitting.update(rollouts=rollouts, rollout_games=rollout_games,
                       **({"rollout_truncate": rollout_truncate} if rollout_truncate else {}),
                       **({"rollout_luckless": True} if rollout_luckless else {}))
    if rollout_weight != 1.0:
        fitting["rollout_weight"] = rollout_weight
    if prune:
        fitting.update(prune_with=kept_path(prune), prune_mark=prune_mark(game, prune, weights))
    fitting["epochs"] = epochs or EPOCHS
    fitting["jobs"] = jobs or 1
    if resume:
        net = Network.load(folder / "checkpoint.npz") if (folder / "checkpoint.npz").exists() else None
        rows, how, source, kept = arrays(data, "rows", "how", "weights", "fitting")
        collector, own_game, stored_parent = _kept(data, "collector", "game", "parent")
        weights, fitting = str(source) or None, json.loads(str(kept))
        games, seed, explore, alternatives = int(how[0]), int(how[1]), how[2] / 1000, int(how[3])
        game = own_game or (net.game if net is not None else game)  # its own game, not the command's
        check_parent(data, stored_parent, game, weights)
        if fitting.get("prune_with") and fitting.get("prune_mark") != (
                now := prune_mark(game, fitting["prune_with"], weights)):
            raise AnalysisError(f"{folder}: a run screened by the pruning network {fitting['prune_mark']}, and "
                                f"{fitting['prune_with']} is now {now}; give it back, or choose another folder")
    else:
        folder.mkdir(parents=True, exist_ok=True)
        if data.exists():
            rows, before, source, kept = arrays(data, "rows", "how", "weights", "fitting")
            stored, stored_parent = _kept(data, "collector", "parent")
            if not np.array_equal(before, how) or str(source) != (weights or "") or stored != collector:
                raise AnalysisError(f"{data}: positions of another collection (games, seed, explore, alternatives, "
                                    f"ply {before.tolist()}, weights {str(source) or 'shipped'}, collected by "
                                    f"{stored or 'them'}); choose another folder")
            check_parent(data, stored_parent, game, weights)
            before_fitting = json.loads(str(kept))
            changed = [key for key in _TARGET_KEYS if before_fitting.get(key) != fitting.get(key)]
            if changed:  # the parts kept were computed otherwise: new ones would not match them
                raise AnalysisError(f"{data}: positions whose targets are computed with other settings "
                                    f"({', '.join(changed)}); resume the run as it is, or choose another folder")
            if before_fitting != fitting:  # the same positions and targets fitted another way: resumes as this one
                with np.load(data) as saved:
                    arrays_kept = {name: saved[name] for name in saved.files}
                buffer = io.BytesIO()
                np.savez_compressed(buffer, **{**arrays_kept, "fitting": np.array(json.dumps(fitting))})
                write_atomically(data, buffer.getvalue())
        else:
            began, played = time.perf_counter(), [0]

            def game_over(n: int) -> None:
                played[0] += n
                if progress:
                    progress("collecting", played[0], games)

            rows = collect(game, games, seed=seed, weights=collector or weights, explore=explore,
                           alternatives=alternatives, progress=game_over)
            kept_arrays: dict[str, Any] = {"rows": rows, "how": how, "weights": np.array(weights or ""),
                                           "game": np.array(game), "parent": np.array(parent_mark(game, weights)),
                                           "fitting": np.array(json.dumps(fitting)),
                                           "seconds": np.array(time.perf_counter() - began),
                                           **({"collector": np.array(collector)} if collector else {})}
            buffer = io.BytesIO()
            np.savez_compressed(buffer, **kept_arrays)
            write_atomically(data, buffer.getvalue())
        net = None
    ply = int(how[4])
    jobs = jobs or int(fitting.get("jobs", 1))  # a resumed run's own processes, unless told otherwise
    prune = fitting.get("prune_with")
    done = [0]

    def step(n: int) -> None:
        done[0] += n
        if progress:
            progress("targets", min(done[0], len(rows)), len(rows))

    own, others = len(rows), fitting.get("with_runs") or []
    targets = (search_targets(game, rows, folder / "targets", ply=ply, weights=weights, prune=prune, jobs=jobs,
                              progress=step)
               if own else np.zeros((0, 0), np.float32))
    chosen = rollout_positions(own, int(fitting.get("rollouts", 0)), seed)
    weight, rate = float(fitting.get("rollout_weight", 1.0)), float(fitting["rate"])  # the run's own, resumed or not
    if len(chosen):
        played = [0]

        def rolled(n: int) -> None:
            played[0] += n
            if progress:
                progress("rollouts", min(played[0], len(chosen)), len(chosen))

        targets[chosen] = weighed(targets[chosen], rollout_targets(
            game, rows[chosen], folder / "rollouts", games=int(fitting["rollout_games"]),
            truncate=int(fitting.get("rollout_truncate", 0)), luckless=bool(fitting.get("rollout_luckless")),
            weights=weights, prune=prune, seed=seed, jobs=jobs, progress=rolled),
            weight)
    player = _networks(game, collector).main.name if collector and own else None
    rolled_out = len(chosen)  # in all, the earlier runs' too
    fitted, plies = [(rows, targets)] if own else [], set()
    for other in others:
        more_rows, more_targets, more_rolled, more_ply = _finished(Path(other), weight)
        fitted.append((more_rows, more_targets))
        rolled_out += more_rolled
        plies.add(more_ply)
    rows, targets = (np.concatenate(arrays) for arrays in zip(*fitted))
    if not own and len(plies) == 1:  # a refit's targets are the earlier runs' look-ahead
        ply = plies.pop()
    if net is not None:
        fit = Fit.resume(folder, net, rows, targets)
        commands = [*net.meta.get("commands", []), *(commands or [])]
    else:
        parent = _networks(game, weights).main
        width = int(fitting["hidden"] or parent.w1.shape[1])
        inputs = fitting.get("encoding") or parent.encoding
        start = (widen(parent, width, seed, inputs) if fitting["widen"]
                 else Network.random(game, width, seed, encoding=inputs))
        grown = [said for said, grew in ((f"{width:,} hidden units", width > parent.w1.shape[1]),
                                         (f"{inputs} inputs", inputs != parent.encoding)) if grew]
        origin = ("random weights" if not fitting["widen"] else
                  "its parent's weights" + (" widened to " + " and ".join(grown) if grown else ""))
        for key in _RUN_KEYS:  # the parent's run said them of the parent
            start.meta.pop(key, None)
        start.meta.update(kind="main", games=int(parent.meta.get("games", 0)), search_games=games, ply=ply,
                          explore=explore, alternatives=alternatives, generation=int(parent.meta.get("generation", 0)) + 1,
                          **({"with_runs": others, "with_run_commands": [_commands(Path(o)) for o in others]}
                             if others else {}),
                          **({"rollouts": rolled_out} if rolled_out else {}),
                          **({"rollout_games": int(fitting["rollout_games"])} if len(chosen) else {}),
                          **({"rollout_truncate": int(fitting["rollout_truncate"])}
                             if len(chosen) and fitting.get("rollout_truncate") else {}),
                          **({"rollout_luckless": True} if len(chosen) and fitting.get("rollout_luckless") else {}),
                          **({"rollout_weight": weight} if rolled_out and weight != 1.0 else {}),
                          **({"collected_by": player} if player else {}),
                          **({"pruned_by": fitting["prune_mark"]} if prune else {}),
                          began_from=origin, lineage=[*parent.meta.get("lineage", []), parent.name],
                          parent_digest=parent.digest,
                          parent_commands=[*parent.meta.get("parent_commands", []), *parent.meta.get("commands", [])],
                          planned_epochs=int(fitting.get("epochs") or EPOCHS))
        fit = Fit(start, rows, targets, seed=seed, rate=rate, halving=int(fitting["halving"] or HALVING))
        commands = list(commands or [])
    played_by = f"{player}'s self-play" if player else "self-play"
    method = (f"supervised on its parent evaluator's {ply}-ply probabilities of {own:,} {played_by} positions" if own
              else f"supervised on {len(rows):,} positions of {len(others)} earlier run(s) with their own targets"
                   f"{f' (their rollouts weighted {weight:g})' if weight != 1.0 and rolled_out else ''}, refitted")
    if len(chosen):
        cut = int(fitting.get("rollout_truncate", 0))
        luck = "luckless " if fitting.get("rollout_luckless") else ""
        method += (f" ({len(chosen):,} of them on its {luck}rollouts instead, {fitting['rollout_games']} games each "
                   f"{f'truncated at {cut} plays' if cut else 'to the end'} at 0-ply"
                   f"{f', weighted {weight:g} against the look-ahead' if weight != 1.0 else ''})")
    if others and own:
        method += (f", and on {len(rows) - own:,} of {len(others)} earlier run(s) with their own targets"
                   f"{f' (their rollouts weighted {weight:g})' if weight != 1.0 and rolled_out > len(chosen) else ''}")
    began_from = fit.net.meta.get("began_from")  # older runs' networks do not say
    return fit.run(folder, epochs, commands, f"{method}{f', from {began_from}' if began_from else ''} "
                   f"(Adam{f' at rate {rate:g}' if rate != RATE else ''}, cross-entropy)", report=report)
