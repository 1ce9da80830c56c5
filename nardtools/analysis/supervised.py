"""Fitting a network to positions whose targets are known, the supervised
half of training (the race networks on the bear-off database's odds,
:mod:`.racenet`; the main networks on their own look-ahead's, :mod:`.searchnet`).

Adam on the cross-entropy of the network's outputs against the targets, in
mini-batches of a seeded order, a tenth of the positions held out to measure
it; the rate halves every ``halving`` epochs.  A run keeps the network after
each epoch (``checkpoint.npz``, the epochs done and planned in its metadata) and Adam's
moments (``optimizer.npz``), so that a resumed run gives the same weights as
one never stopped.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._io import write_atomically
from ..errors import AnalysisError
from .nets import Network, sigmoid

#: The share of positions held out to measure the network.
HELD_OUT = 0.1
#: Epochs between halvings of the learning rate, unless a run says otherwise.
HALVING = 8
#: Epochs a run fits in all, unless it says otherwise.
EPOCHS = 30
#: Adam's learning rate, unless a run says otherwise (lower to fine-tune a fitted network).
RATE = 1e-3
#: The weights Adam moves, and its moments of each as ``optimizer.npz`` keeps them.
WEIGHTS = ("w1", "b1", "w2", "b2")
MOMENTS = (*(f"{k}{name}" for name in WEIGHTS for k in "mv"), "steps")


class Fit:
    """Fitting ``net`` to board rows and their targets, epoch by epoch."""

    def __init__(self, net: Network, rows: np.ndarray, targets: np.ndarray, *, seed: int = 1, rate: float = RATE,
                 batch: int = 128, halving: int = HALVING, moments: dict[str, np.ndarray] | None = None) -> None:
        self.net, self.seed, self.rate, self.batch, self.halving = net, seed, rate, batch, halving
        net.meta.pop("outcomes", None)  # an earlier output refit (.outcomenet) no longer says how these weights came
        order = np.random.default_rng(seed).permutation(len(rows))
        cut = int(len(rows) * HELD_OUT)
        self.test, self.train = order[:cut], order[cut:]
        self.x = net.encode(rows)
        self.targets = targets.astype(np.float32)
        self.epochs = int(net.meta.get("epochs", 0))
        self.moments = moments or {f"{k}{n}": np.zeros_like(getattr(net, n)) for n in WEIGHTS for k in "mv"}
        self.moments.setdefault("steps", np.zeros(1))

    def epoch(self) -> float:
        """One pass over the training positions; the mean cross-entropy."""
        net, m = self.net, self.moments
        order = np.random.default_rng((self.seed, self.epochs)).permutation(self.train)
        rate = self.rate * 0.5 ** (self.epochs // self.halving)
        losses = []
        for start in range(0, len(order), self.batch):
            take = order[start:start + self.batch]
            x, target = self.x[take], self.targets[take]
            h = net.hidden(x)
            p = sigmoid(h @ net.w2 + net.b2)
            losses.append(cross_entropy(p, target))
            d2 = (p - target) / len(take)
            dh = (d2 @ net.w2.T) * h * (1.0 - h)
            grads = {"w2": h.T @ d2, "b2": d2.sum(axis=0), "w1": x.T @ dh, "b1": dh.sum(axis=0)}
            m["steps"] += 1
            t = float(m["steps"][0])
            for name, g in grads.items():
                m[f"m{name}"] = 0.9 * m[f"m{name}"] + 0.1 * g
                m[f"v{name}"] = 0.999 * m[f"v{name}"] + 0.001 * g * g
                step = rate * (m[f"m{name}"] / (1 - 0.9 ** t)) / (np.sqrt(m[f"v{name}"] / (1 - 0.999 ** t)) + 1e-8)
                np.subtract(getattr(net, name), step.astype(np.float32), out=getattr(net, name))
        self.epochs += 1
        return float(np.mean(losses))

    def held_out(self) -> dict[str, float]:
        """The network on the held-out positions: mean and worst |P(win) error|."""
        p = self.net(self.x[self.test])
        error = np.abs(p[:, 0] - self.targets[self.test, 0])
        return {"mean_win_error": round(float(error.mean()), 5), "worst_win_error": round(float(error.max()), 4),
                "held_out": len(self.test)}

    def save(self, folder: Path, commands: list[str], method: str, **meta: Any) -> None:
        """The network (``checkpoint.npz``) and Adam's moments (``optimizer.npz``)."""
        self.net.meta.update(epochs=self.epochs, positions=len(self.train), seed=self.seed, rate=self.rate,
                             batch=self.batch, halving=self.halving, commands=commands, **self.held_out(),
                             method=method, **meta)
        self.net.save(folder / "checkpoint.npz")
        buffer = io.BytesIO()
        np.savez(buffer, **self.moments)  # type: ignore[arg-type]
        write_atomically(folder / "optimizer.npz", buffer.getvalue())

    def run(self, folder: Path, epochs: int | None, commands: list[str], method: str, *, curve: bool = True,
            report: Callable[[int, float, dict[str, float]], None] | None = None) -> Network:
        """Fit until ``epochs`` epochs in all (``None``: the run's own plan,
        its network's ``planned_epochs``, else :data:`EPOCHS`; a number given
        becomes the plan), saving after each (:meth:`save`) and, with
        ``curve``, adding its line to ``curve.csv`` (the epoch, the loss and
        the held-out P(win) errors); ``report(epoch, loss, held_out)`` after
        each."""
        if epochs is None:
            epochs = int(self.net.meta.get("planned_epochs") or EPOCHS)
        self.net.meta["planned_epochs"] = epochs
        path = folder / "curve.csv"
        if curve and not path.exists():
            path.write_text("epoch,loss,mean_win_error,worst_win_error\n")
        while self.epochs < epochs:
            loss = self.epoch()
            self.save(folder, commands, method)
            held_out = self.held_out()
            if curve:
                with path.open("a") as f:
                    f.write(f"{self.epochs},{loss:.6f},{held_out['mean_win_error']},{held_out['worst_win_error']}\n")
            if report:
                report(self.epochs, loss, held_out)
        return self.net

    @classmethod
    def resume(cls, folder: Path, net: Network, rows: np.ndarray, targets: np.ndarray) -> Fit:
        """The fit kept in ``folder`` (``net``, its checkpoint), to go on with the same rows and targets."""
        meta = net.meta
        moments = dict(zip(MOMENTS, arrays(folder / "optimizer.npz", *MOMENTS)))
        return cls(net, rows, targets, seed=int(meta["seed"]), rate=float(meta["rate"]), batch=int(meta["batch"]),
                   halving=int(meta.get("halving", HALVING)), moments=moments)


def cross_entropy(p: np.ndarray, target: np.ndarray) -> float:
    q = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-(target * np.log(q) + (1 - target) * np.log(1 - q)).mean())


def kept_path(path: str | Path | None) -> str | None:
    """A path a training run keeps (its parent's weights, an earlier run):
    absolute, so that the run resumes from any directory."""
    return str(Path(path).resolve()) if path else None


def parent_mark(game: str, weights: str | None) -> str:
    """How a training run records its parent (the main network at
    ``weights``, else the shipped one): its name and its weights'
    :attr:`~.nets.Network.digest`."""
    from .evaluate import load_networks

    net = load_networks(game, weights).main
    return f"{net.name} [{net.digest}]"


def check_parent(where: Path, stored: str | None, game: str, weights: str | None) -> None:
    """Refuse to go on with the run kept at ``where`` when its parent has
    changed since it began (``stored``, its :func:`parent_mark` then; ``None``
    for a run that predates the mark): a new network shipped, or its file
    overwritten. Its kept targets are the old parent's, and new ones would be
    another's."""
    if stored is not None and stored != (now := parent_mark(game, weights)):
        raise AnalysisError(f"{where}: a run of the parent {stored}, which is now {now}; give that run's parent "
                            f"again (--parent FILE) or choose another folder")


def arrays(path: Path, *names: str) -> list[np.ndarray]:
    """Arrays of a run's ``.npz``; a missing or damaged file is an
    :class:`AnalysisError` naming it."""
    try:
        with np.load(path, allow_pickle=False) as saved:
            return [np.asarray(saved[name]) for name in names]
    except FileNotFoundError:
        raise AnalysisError(f"{path}: missing; the run's folder is incomplete") from None
    except (OSError, ValueError, KeyError, EOFError) as e:
        raise AnalysisError(f"{path}: not a training run's file ({type(e).__name__}: {e})") from None
