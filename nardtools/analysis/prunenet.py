"""The pruning network: a small network that screens a roll's plays inside
the look-ahead, so that the main network values only the few worth it (the
idea of GNU Backgammon's pruning networks).

Inside a look-ahead every roll's mover plays its best result; finding it
means valuing every result of the roll (some twenty in backgammon), though
only the best counts.  The pruning network, about a tenth of the main
network's work a position (the board's inputs without the contact features,
few hidden units), values them all; the main network then values only the
best :data:`~nardtools.analysis.evaluate.PRUNE_KEEP` of each roll, and the
roll's value is the best of those.  A roll with no more results than that
is not screened, so the screen changes a value only where the main
network's best result is not among the pruning network's best few.

Training (``nardtools train --prune``) is supervised on the main network's
own outputs (never another program's):

1. **Positions**: self-play games of the evaluator at 0-ply
   (:func:`.searchnet.collect`, the positions rolled from); from each of a
   seeded sample of them, every result of :data:`ROLLS_KEPT` seeded rolls
   (:func:`.selfplay.roll_successors`): the siblings a screen compares,
   good plays and bad ones, as the look-ahead meets them.
2. **Targets**: the main (and race) network's probabilities of each.
3. **Fit** (:class:`.supervised.Fit`): a fresh network of ``hidden`` units
   (:func:`default_width` unless given) on the board inputs.

The run's folder keeps ``positions.npz``, ``targets.npy``, the checkpoint,
Adam's moments and ``curve.csv``, and resumes; the network's metadata names
the main network it screens for (``screens``, and its weights' digest,
``screens_digest``): the evaluator uses it only with those weights.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._io import write_atomically
from ..errors import AnalysisError
from .nets import Network
from .rows import finished
from .supervised import EPOCHS, HALVING, Fit, arrays, check_parent, kept_path, parent_mark

#: Rolls whose every result is kept, of each position sampled.
ROLLS_KEPT = 4
#: Positions sampled from the self-play games (``train --prune``).
POSITIONS = 8000
#: The fewest hidden units of a pruning network, and its share of the main network's.
WIDTH, WIDTH_SHARE = 64, 8


def default_width(main: Network) -> int:
    """Hidden units of a pruning network for ``main``: :data:`WIDTH`, or an
    eighth of ``main``'s where that is more (64 screened Long Nardy 1.0's
    1,024 units worse than 128 did, docs/analysis.md, "Annealed").

    >>> from nardtools.analysis.nets import Network
    >>> default_width(Network.random("long", 256, seed=1)), default_width(Network.random("long", 1024, seed=1))
    (64, 128)
    """
    return max(WIDTH, int(main.w1.shape[1]) // WIDTH_SHARE)


def siblings(game: str, games: int, positions: int, *, seed: int = 1, weights: str | None = None,
             progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Every result of :data:`ROLLS_KEPT` seeded rolls of each of
    ``positions`` positions sampled from ``games`` self-play games (board
    rows seen by the side that rolls next; finished games left out)."""
    from ..rules import find_ruleset
    from .searchnet import collect
    from .selfplay import roll_successors
    from .training import TRAINING_RULESETS

    rules = find_ruleset(TRAINING_RULESETS[game]).rules
    rows = collect(game, games, seed=seed, weights=weights, explore=0.1, alternatives=0, progress=progress)
    rng = np.random.default_rng((seed, 7))
    sample = rows[rng.choice(len(rows), min(positions, len(rows)), replace=False)]
    after, counts = roll_successors(rules, sample)
    starts = np.concatenate([[0], np.cumsum(counts.ravel())])
    rolls = np.argsort(rng.random((len(sample), 21)), axis=1)[:, :ROLLS_KEPT] + 21 * np.arange(len(sample))[:, None]
    keep = np.concatenate([np.arange(starts[g], starts[g + 1]) for g in np.sort(rolls.ravel())])
    out = after[keep]
    kept: np.ndarray = out[~finished(out)]
    return kept


def train_prune(game: str, folder: Path, *, games: int, positions: int, epochs: int | None, hidden: int | None = None,
                seed: int = 1, weights: str | None = None, rate: float = 3e-3, halving: int | None = None,
                resume: bool = False, commands: list[str] | None = None,
                progress: Callable[[str, int, int], None] | None = None,
                report: Callable[[int, float, dict[str, float]], None] | None = None) -> Network:
    """Collect (once), value (once) and fit, until ``epochs`` epochs in all
    (see the module docstring; ``hidden``: :func:`default_width` of the main
    network unless given); a resumed run keeps its settings, and its
    epochs unless ``epochs`` is given (``None``: the run's own, else
    :data:`.supervised.EPOCHS`)."""
    from ..rules import find_ruleset
    from .evaluate import Evaluator
    from .training import TRAINING_RULESETS

    data, target_file = folder / "positions.npz", folder / "targets.npy"
    settings: dict[str, Any] = {"games": games, "positions": positions, "seed": seed,
                                "weights": kept_path(weights) or "", "hidden": hidden, "rate": rate,
                                "halving": halving or HALVING, "epochs": epochs or EPOCHS}
    if resume:
        (kept,) = arrays(data, "settings")
        settings = json.loads(str(kept))
        game = str(settings.get("game", game))  # its own game, not the command's
        check_parent(data, settings.get("parent"), game, str(settings["weights"]) or None)
    elif data.exists():
        raise AnalysisError(f"{data}: a pruning run's positions are there already: resume it, or choose another folder")
    else:
        settings.update(game=game, parent=parent_mark(game, weights))
    folder.mkdir(parents=True, exist_ok=True)
    weights = str(settings["weights"]) or None
    if not data.exists():
        total = int(settings["games"])
        rows = siblings(game, total, int(settings["positions"]), seed=int(settings["seed"]), weights=weights,
                        progress=(lambda n: progress("collecting", n, total)) if progress else None)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, rows=rows, settings=np.array(json.dumps(settings)))
        write_atomically(data, buffer.getvalue())
    (rows,) = arrays(data, "rows")
    evaluator = Evaluator(find_ruleset(TRAINING_RULESETS[game]).rules, weights=weights)
    if not target_file.exists():
        if progress:
            progress("targets", 0, len(rows))
        p, _, _ = evaluator.probabilities(rows)
        buffer = io.BytesIO()
        np.save(buffer, p.astype(np.float32))
        write_atomically(target_file, buffer.getvalue())
    targets = np.load(target_file)
    screened = evaluator.net.main  # type: ignore[union-attr]  # (our networks: a pruning run has no other)
    checkpoint = folder / "checkpoint.npz"
    if resume and checkpoint.exists():
        net = Network.load(checkpoint)
        fit = Fit.resume(folder, net, rows, targets)
        commands = [*net.meta.get("commands", []), *(commands or [])]
    else:
        width = int(settings["hidden"] or default_width(screened))
        start = Network.random(game, width, int(settings["seed"]), encoding="board")
        start.meta.update(kind="prune", screens=screened.name, screens_digest=screened.digest,
                          sibling_games=int(settings["games"]), sampled_positions=int(settings["positions"]),
                          rolls_kept=ROLLS_KEPT, planned_epochs=int(settings.get("epochs") or EPOCHS))
        fit = Fit(start, rows, targets, seed=int(settings["seed"]), rate=float(settings["rate"]),
                  halving=int(settings["halving"]))
        commands = list(commands or [])
    return fit.run(folder, epochs, commands, f"supervised on {screened.name}'s probabilities of {len(rows):,} "
                   "results of self-play positions' rolls (Adam, cross-entropy)", report=report)
