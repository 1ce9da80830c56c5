"""Training a network by self-play, temporal-difference learning (TD(lambda),
in the manner of TD-Gammon).

The network plays both sides at 0-ply (:class:`.selfplay.NetPlayer`).  Every
position a side rolls from gets as its target what the network says of the
position its chosen play reached, seen from that side (``flip``), or the
exact outcome when the play won the game, or (``database``) the bear-off
database's odds when that position is a race inside it.  After each game the network takes
one gradient step on the cross-entropy of its outputs against those targets
(the targets are fixed for the step), with lambda-returns: each target mixes
the next position's value with the later ones, down to the outcome (the
forward view of TD(lambda), exact for one update per game).  Outputs are probabilities, so
cross-entropy's gradient at the output units is simply ``p - target``.

A run lives in a folder: ``checkpoint.npz`` (the network, with the games
played and the settings in its metadata) written every ``checkpoint`` games
and at the end, ``curve.csv`` (games, seconds, the mean squared TD error over
the last stretch, and the win rate against a random player when measured),
and ``snapshots/`` (a copy of the network every ``snapshot`` games, from which
``docs/learning_curve.py`` measures strength as training went on).  ``--resume`` continues a run from its
folder, reproducibly: the same seed and games give the same weights whether
the run was interrupted or not.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import AnalysisError
from ..rules import Ruleset, find_ruleset
from .evaluate import database_odds
from .nets import Network, sigmoid
from .probabilities import equity, flip
from .rows import finished
from .selfplay import NetPlayer, RandomPlayer, play_game, series, start_board

#: The rulesets the shipped networks learn, by game.
TRAINING_RULESETS = {"long": "long", "backgammon": "backgammon"}


@dataclass
class Settings:
    """A run's settings (kept in the checkpoint; a resumed run keeps them)."""

    game: str
    hidden: int = 128
    rate: float = 0.01          # per position, on the summed gradient of a game
    trace: float = 0.7          # lambda: how far each target looks ahead (0: TD(0))
    seed: int = 1
    checkpoint: int = 1000      # games between checkpoints
    measure: int = 5000         # games between measurements against a random player
    measure_games: int = 200
    snapshot: int = 25000       # games between kept copies of the network (snapshots/), for learning curves
    database: bool = False      # a race in the bear-off database gets its odds there as its target


class Trainer:
    """One training run: the network, the dice and what was learned so far."""

    def __init__(self, settings: Settings, net: Network | None = None) -> None:
        if settings.game not in TRAINING_RULESETS:
            raise AnalysisError(f"unknown game {settings.game!r}: long or backgammon")
        self.settings = settings
        self.ruleset: Ruleset = find_ruleset(TRAINING_RULESETS[settings.game])
        self.net = net or Network.random(settings.game, settings.hidden, settings.seed)
        self.net.meta.pop("outcomes", None)  # an earlier output refit (.outcomenet) no longer says how they came
        self.games = int(self.net.meta.get("games", 0))
        self.seconds = float(self.net.meta.get("seconds", 0.0))
        self.commands: list[str] = list(self.net.meta.get("commands", []))
        self._errors: list[float] = []

    # ---------------------------------------------------------------- a game
    def play_and_learn(self) -> float:
        """One self-play game and one update; the game's mean squared TD error."""
        learner = _Learner(NetPlayer(self.net, self.ruleset), self.net.encode(start_board(self.ruleset)[None, :])[0],
                           self.settings.database)
        play_game(self.ruleset, learner, learner, seed=_game_seed(self.settings.seed, self.games))
        error = self._update(np.array(learner.inputs), self._returns(np.array(learner.targets)))
        self.games += 1
        return error

    def _returns(self, targets: np.ndarray) -> np.ndarray:
        """The lambda-returns of a game, from its one-step targets (each seen
        from the side that rolled; consecutive positions belong to opposite
        sides): G_t = (1 - lambda) target_t + lambda flip(G_t+1), the last G the
        game's outcome."""
        lam, out = self.settings.trace, targets.copy()
        for t in range(len(out) - 2, -1, -1):
            out[t] = (1.0 - lam) * targets[t] + lam * flip(out[t + 1], self.settings.game)
        return out

    def _update(self, x: np.ndarray, target: np.ndarray) -> float:
        net, rate = self.net, self.settings.rate
        h = net.hidden(x)
        p = sigmoid(h @ net.w2 + net.b2)
        d2 = (p - target).astype(np.float32)
        dh = (d2 @ net.w2.T) * h * (1.0 - h)
        # in place: the network's arrays are the run's state
        np.subtract(net.w2, rate * (h.T @ d2), out=net.w2)
        np.subtract(net.b2, rate * d2.sum(axis=0), out=net.b2)
        np.subtract(net.w1, rate * (x.T @ dh), out=net.w1)
        np.subtract(net.b1, rate * dh.sum(axis=0), out=net.b1)
        return float((d2 ** 2).mean())

    # ---------------------------------------------------------------- a run
    def run(self, games: int, folder: Path, progress: Callable[[int], None] | None = None) -> None:
        """Train until ``games`` games in all, checkpointing into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        curve = folder / "curve.csv"
        if not curve.exists():
            curve.write_text("games,seconds,td_error,win_rate_vs_random\n")
        began = time.perf_counter() - self.seconds
        while self.games < games:
            self._errors.append(self.play_and_learn())
            self.seconds = time.perf_counter() - began
            if progress:
                progress(self.games)
            s = self.settings
            if self.games % s.checkpoint == 0 or self.games == games:
                rate = ""
                if self.games % s.measure == 0:
                    rate = f"{self.measure(s.measure_games):.4f}"
                with curve.open("a") as f:
                    f.write(f"{self.games},{self.seconds:.1f},{np.mean(self._errors):.6f},{rate}\n")
                self._errors.clear()
                self.save(folder / "checkpoint.npz")
                if self.games % s.snapshot == 0:
                    self.save(folder / "snapshots" / f"games-{self.games:09d}.npz")

    def measure(self, games: int) -> float:
        """The win rate at 0-ply against a random player (seeds apart from training's)."""
        result = series(self.ruleset, NetPlayer(self.net, self.ruleset), RandomPlayer(self.games), games,
                        seed=10_000_000 + self.games)
        return result.win_rate

    def save(self, path: Path) -> None:
        meta = {**self.net.meta, "games": self.games, "seconds": round(self.seconds, 1),
                "settings": self.settings.__dict__, "ruleset": self.ruleset.name, "commands": self.commands,
                "method": "TD(lambda) self-play, 0-ply greedy, cross-entropy, one step per game"}
        Network(self.net.game, self.net.w1, self.net.b1, self.net.w2, self.net.b2, meta).save(path)

    @classmethod
    def resume(cls, folder: Path) -> Trainer:
        """The run kept in ``folder`` (its ``checkpoint.npz``)."""
        net = Network.load(folder / "checkpoint.npz")
        settings = Settings(**net.meta["settings"])  # (settings added since keep their defaults)
        return cls(settings, net)


class _Learner:
    """Plays both sides greedily and keeps, for every position rolled from,
    its inputs and its TD target (the chosen result's value, flipped; with
    ``database``, its bear-off database odds when it is a race there)."""

    def __init__(self, player: NetPlayer, first: np.ndarray, database: bool = False) -> None:
        self.player, self.game, self.database = player, player.game, database
        self.inputs: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        self.next_inputs = first

    def choose(self, rows: np.ndarray) -> int:
        net = self.player.net
        assert isinstance(net, Network)   # (TD(lambda) trains one network)
        xs = net.encode(rows)
        p = self.player.values(rows, xs)
        chosen = int(np.argmin(equity(p, self.game, self.player.rules)))
        value = p[chosen]
        if self.database and not finished(rows[chosen:chosen + 1])[0]:
            exact = database_odds(self.player.rules, rows[chosen])
            if exact is not None:
                value = exact[0]
        self.inputs.append(self.next_inputs)
        self.targets.append(flip(value, self.game))
        self.next_inputs = xs[chosen]
        return chosen


def ship(checkpoint: Path, version: str, folder: Path | None = None) -> Path:
    """Copy a run's checkpoint into the package as the game's shipped network
    (``nardtools/data/nets/GAME.npz``, a race network's ``GAME-race.npz``),
    named ``version``; its metadata keeps the commands, games, settings and
    time of the run.

        python -c "from pathlib import Path; from nardtools.analysis.training import ship; \\
                   ship(Path('train-long/checkpoint.npz'), '1')"
    """
    from .nets import WEIGHTS_DIR

    net = Network.load(checkpoint)
    target = (folder or WEIGHTS_DIR) / f"{net.stem}.npz"
    Network(net.game, net.w1, net.b1, net.w2, net.b2, {**net.meta, "version": version}).save(target)
    return target


def _game_seed(seed: int, index: int) -> int:
    """Game ``index``'s dice of a run seeded ``seed`` (no hash(): reproducible)."""
    return (seed * 0x9E3779B97F4A7C15 + index * 0xBF58476D1CE4E5B9) % (1 << 63)

