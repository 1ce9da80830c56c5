"""Neural networks that evaluate positions (:class:`Network`), a game's
main and race networks together (:class:`Networks`), and their weights.

**Network**: one hidden layer of sigmoid units, sigmoid outputs; weights in a
``.npz`` with their metadata (game, training ruleset, games trained, the
command that made them).  Inputs are :mod:`.encodings`', outputs
:mod:`.probabilities`'.  Inference runs in the compiled core where it is
built (``csrc/net.c``, :meth:`Network.outputs`), this module's numpy being
the reference it is held to; numpy alone does it without the core.
"""

from __future__ import annotations

import io
import json
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import AnalysisError
from .encodings import (
    CORE_ENCODINGS,
    ENCODING_GAMES,
    ENCODINGS,
    RACE_INPUTS,
    check_encoding,
    encode,
    encode_blocks,
    encode_contact,
    encode_race,
)
from .probabilities import CLASSES, consistent
from .rows import in_domain

WEIGHTS_DIR = Path(__file__).resolve().parent.parent / "data" / "nets"


FORMAT_VERSION = 1


#: Rows a network evaluates at once (numpy's inputs of that many rows at a time).
BATCH = 4096


#: The compiled forward pass's outputs, padded (csrc/net.h's NET_MAX_OUTPUTS).
_PADDED = 8


#: The rows of the core's point table (csrc/net.h NET_TABLE_ROWS: 2 sides x 24 points x 0-15 checkers).
_TABLE_ROWS = 48 * 16


#: The core's forward-pass arguments of frozen networks (Network._compiled_weights).
_COMPILED: weakref.WeakKeyDictionary[Network, tuple[Any, ...]] = weakref.WeakKeyDictionary()


#: The digests of frozen networks (Network.digest): each evaluator asks for its main network's.
_DIGESTS: weakref.WeakKeyDictionary[Network, str] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, eq=False)
class Network:
    """A one-hidden-layer network and what is known of how it was made."""

    game: str
    w1: np.ndarray  # (INPUTS, hidden)
    b1: np.ndarray
    w2: np.ndarray  # (hidden, classes)
    b2: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def random(cls, game: str, hidden: int, seed: int, *, race_points: int = 0, encoding: str = "board") -> Network:
        """Small random weights (training starts here); with ``race_points``,
        a race network for the races within those points; ``encoding`` the
        main network's inputs (:data:`ENCODINGS`)."""
        check_encoding(game, encoding)
        rng = np.random.default_rng(seed)
        k = len(CLASSES[game])
        meta: dict[str, Any] = {"game": game, "hidden": hidden, "games": 0}
        if race_points:
            meta.update(kind="race", points=race_points)
        elif encoding != "board":
            meta.update(encoding=encoding)
        return cls(game, (rng.standard_normal((RACE_INPUTS if race_points else ENCODINGS[encoding], hidden)) * 0.1)
                   .astype(np.float32), np.zeros(hidden, np.float32),
                   (rng.standard_normal((hidden, k)) * 0.1).astype(np.float32), np.zeros(k, np.float32), meta)

    @classmethod
    def mean_of(cls, members: list[Network]) -> Network:
        """One network whose output logits are the mean of the members' (an
        ensemble evaluated as one forward pass): their hidden layers side by
        side, each one's output weights divided by their number. The members
        are main networks of one game and one encoding; the metadata keeps
        their game, encoding and latest generation, says how it was made
        (``method``), and keeps each one's name, digest, method and commands
        under ``members``.

        >>> a, b = Network.random("long", 4, seed=1), Network.random("long", 6, seed=2)
        >>> both = Network.mean_of([a, b])
        >>> x = np.random.default_rng(3).random((5, a.inputs), dtype=np.float32)
        >>> logit = lambda p: np.log(p / (1 - p))
        >>> both.w1.shape[1], bool(np.allclose(logit(both(x)), (logit(a(x)) + logit(b(x))) / 2, atol=1e-4))
        (10, True)
        """
        if len(members) < 2:
            raise AnalysisError("a mean of networks needs two or more of them")
        first = members[0]
        for net in members:
            if net.is_race or net.is_prune or (net.game, net.encoding) != (first.game, first.encoding):
                raise AnalysisError(f"{net.name} [{net.digest}]: a mean is of main networks of one game and one "
                                    f"encoding ({first.game}, {first.encoding})")
        k = len(members)
        w1 = np.concatenate([net.w1 for net in members], axis=1)
        generation = max(int(net.meta.get("generation", 0)) for net in members)
        meta: dict[str, Any] = {"game": first.game, "hidden": w1.shape[1],
                                **({"encoding": first.encoding} if first.encoding != "board" else {}),
                                **({"generation": generation} if generation else {}),
                                "method": f"the mean of {k} networks' output logits, their {w1.shape[1]:,} hidden "
                                          "units side by side (members)",
                                "members": [{"name": net.name, "digest": net.digest, "hidden": int(net.w1.shape[1]),
                                             "method": net.meta.get("method", ""),
                                             "commands": net.meta.get("commands", [])} for net in members]}
        return cls(first.game, w1, np.concatenate([net.b1 for net in members]),
                   np.concatenate([net.w2 for net in members]) / np.float32(k),
                   np.stack([net.b2 for net in members]).mean(axis=0, dtype=np.float64).astype(np.float32), meta)

    @property
    def is_race(self) -> bool:
        """A race network (:mod:`.racenet`), not a game's main one."""
        return self.meta.get("kind") == "race"

    @property
    def is_prune(self) -> bool:
        """A pruning network (:mod:`.prunenet`), not a game's main one."""
        return self.meta.get("kind") == "prune"

    @property
    def encoding(self) -> str:
        """Its inputs (:data:`ENCODINGS`): ``board``, a race network's ``race``,
        ``contact`` (the board and :func:`contact_features`), or Long Nardy's
        ``blocks`` (the board and :func:`block_features`)."""
        return str(self.meta.get("encoding") or ("race" if self.is_race else "board"))

    @property
    def inputs(self) -> int:
        """How many inputs its encoding gives."""
        return ENCODINGS[self.encoding]

    @property
    def compiled_encoding(self) -> int:
        """Its encoding's number in the compiled forward pass (``csrc/net.h``)."""
        return CORE_ENCODINGS[self.encoding, self.game]

    def encode(self, rows: np.ndarray) -> np.ndarray:
        """Board rows as this network's inputs."""
        if self.encoding == "contact":
            return encode_contact(rows, self.game)
        if self.encoding == "blocks":
            return encode_blocks(rows)
        return encode_race(rows) if self.is_race else encode(rows)

    @property
    def stem(self) -> str:
        """The shipped file's name without ``.npz``: the game, ``-race`` for a race
        network, ``-prune`` for a pruning one."""
        return f"{self.game}-race" if self.is_race else f"{self.game}-prune" if self.is_prune else self.game

    @property
    def name(self) -> str:
        """How results name the network: game, version and games trained
        (a race network: the positions it learned)."""
        version = self.meta.get("version", "dev")
        if self.is_race or self.is_prune:
            return (f"nardtools-{self.game}-{'race' if self.is_race else 'prune'}-{version} "
                    f"({self.meta.get('positions', 0):,} positions)")
        if self.meta.get("members"):  # (:meth:`mean_of`)
            return f"nardtools-{self.game}-{version} (the mean of {len(self.meta['members'])} networks)"
        if self.meta.get("generation"):  # trained on search targets (.searchnet)
            rollouts, outcomes = int(self.meta.get("rollouts", 0)), int(self.meta.get("outcomes", {}).get("positions", 0))
            return (f"nardtools-{self.game}-{version} (generation {self.meta['generation']}: "
                    f"{self.meta.get('positions', 0):,} positions at {self.meta.get('ply', 1)}-ply"
                    f"{f', {rollouts:,} on rollouts' if rollouts else ''}"
                    f"{f'; outputs refitted to {outcomes:,} self-play outcomes' if outcomes else ''})")
        return f"nardtools-{self.game}-{version} ({self.meta.get('games', 0):,} games)"

    @property
    def digest(self) -> str:
        """A short checksum of its weights (SHA-256, 16 hex digits): two
        networks of one name but other weights differ in it.

        >>> net = Network.random("long", 4, seed=1)
        >>> net.digest == Network.random("long", 4, seed=1).digest != Network.random("long", 4, seed=2).digest
        True
        """
        kept = _DIGESTS.get(self)
        if kept is not None:
            return kept
        import hashlib

        sha = hashlib.sha256()
        for array in (self.w1, self.b1, self.w2, self.b2):
            sha.update(np.ascontiguousarray(array, np.float32).tobytes())
        digest = sha.hexdigest()[:16]
        if not self.w1.flags.writeable:   # (kept only for weights that cannot change: freeze)
            _DIGESTS[self] = digest
        return digest

    def hidden(self, x: np.ndarray) -> np.ndarray:
        return sigmoid(x @ self.w1 + self.b1)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Probabilities (rows of ``CLASSES[game]``) of encoded inputs (rows):
        float32 throughout but the output layer's sums, in double, as the
        compiled core's are (summed in float over 1,024 hidden units they
        drift some 1e-6 from the exact outputs)."""
        logits = self.hidden(x).astype(np.float64) @ self.w2.astype(np.float64) + self.b2
        return sigmoid(logits.astype(np.float32))

    def outputs(self, rows: np.ndarray) -> np.ndarray:
        """The raw outputs (float32 rows) of board rows (n, 52): by the compiled
        core's forward pass (``csrc/net.c``) where it is in use, else by
        numpy (:meth:`__call__` of :meth:`encode`), the reference it is held to,
        in slices of :data:`BATCH` rows, so that a 2-ply look-ahead's tens of
        thousands of positions never hold their inputs all at once."""
        from ..core import compiled

        rows = np.ascontiguousarray(rows, np.int8).reshape(-1, 52)
        core = compiled()
        if core is None:
            return np.concatenate([self(self.encode(rows[k:k + BATCH])) for k in range(0, len(rows), BATCH)]
                                  or [np.zeros((0, len(self.b2)), np.float32)])
        weights = self._compiled_weights(core)
        out = np.empty((len(rows), weights[2]), np.float32)
        core.net_forward(*weights[:7], rows, out, weights[7])
        return out

    def _compiled_weights(self, core: Any) -> tuple[Any, ...]:
        """The arguments of the core's forward pass before the rows: the
        encoding, sizes and weights (the outputs padded to eight), and the
        point table (``net_table``), kept with a network whose weights are
        read-only (:meth:`freeze`), made for each call otherwise."""
        kept = _COMPILED.get(self)
        if kept is not None:
            return kept
        hidden, k = self.w2.shape
        w2 = np.zeros((hidden, _PADDED), np.float32)
        w2[:, :k] = self.w2
        b2 = np.zeros(_PADDED, np.float32)
        b2[:k] = self.b2
        args = (self.compiled_encoding, hidden, k, np.ascontiguousarray(self.w1), np.ascontiguousarray(self.b1), w2, b2)
        if self.w1.flags.writeable:   # (weights that may still change: a table would go stale)
            return (*args, None)
        table = np.empty((_TABLE_ROWS, hidden), np.float32)
        core.net_table(*args, table)
        _COMPILED[self] = kept = (*args, table)
        return kept

    def freeze(self) -> Network:
        """This network with its weights made read-only (a shipped network, shared
        by every evaluator of the process): the core then keeps its point table."""
        for array in (self.w1, self.b1, self.w2, self.b2):
            array.flags.writeable = False
        return self

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities of board rows (n, 52): :meth:`outputs` made :func:`consistent`."""
        return consistent(self.outputs(rows), self.game)

    def save(self, path: Path) -> None:
        """Write the weights and metadata as one ``.npz``, atomically."""
        buffer = io.BytesIO()
        meta = {**self.meta, "format": FORMAT_VERSION, "game": self.game}
        np.savez(buffer, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2, meta=np.array(json.dumps(meta)))
        from .._io import write_atomically

        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> Network:
        """Read weights written by :meth:`save`; a missing, damaged or foreign
        file is an :class:`AnalysisError` naming it."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                arrays = [np.asarray(data[k], np.float32) for k in ("w1", "b1", "w2", "b2")]
        except FileNotFoundError:
            raise AnalysisError(f"{path}: no such weights file") from None
        except (OSError, ValueError, KeyError, EOFError) as e:
            raise AnalysisError(f"{path}: not a nardtools weights file ({type(e).__name__}: {e})") from None
        game = meta.get("game")
        if meta.get("format") != FORMAT_VERSION or game not in CLASSES:
            raise AnalysisError(f"{path}: weights of format {meta.get('format')!r} for {game!r}; "
                                f"this nardtools reads format {FORMAT_VERSION}")
        w1, b1, w2, b2 = arrays
        net = cls(game, w1, b1, w2, b2, meta)
        k = len(CLASSES[game])
        if net.is_race and not 2 <= int(meta.get("points", 0)) <= 12:
            raise AnalysisError(f"{path}: a race network needs its points (2 to 12), not {meta.get('points')!r}")
        if net.encoding not in ENCODINGS or (net.encoding == "race") != net.is_race:
            raise AnalysisError(f"{path}: weights for inputs {net.encoding!r}, which this nardtools does not encode")
        if game not in ENCODING_GAMES[net.encoding]:
            raise AnalysisError(f"{path}: weights for inputs {net.encoding!r}, which are not made for {game}")
        if w1.shape[0] != net.inputs or w1.shape[1] != b1.shape[0] or w2.shape != (b1.shape[0], k) or b2.shape != (k,):
            raise AnalysisError(f"{path}: the weights' shapes do not fit a {game} network")
        if not all(np.isfinite(a).all() for a in arrays):
            raise AnalysisError(f"{path}: the weights hold NaN or infinite numbers")
        return net


@dataclass(frozen=True, eq=False)
class Networks:
    """A game's main network and, where it has one, its race network, which
    answers for the races within its points (its metadata's ``points``)."""

    main: Network
    race: Network | None = None

    @property
    def game(self) -> str:
        return self.main.game

    @property
    def name(self) -> str:
        return self.main.name

    def race_rows(self, rows: np.ndarray) -> np.ndarray:
        """Which rows the race network answers for."""
        if self.race is None:
            return np.zeros(len(rows), bool)
        return in_domain(rows, int(self.race.meta["points"]))

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities of board rows, each from the network that answers for it."""
        race = self.race_rows(rows)
        if not race.any():   # (no copy of the rows: most of a look-ahead's are in contact)
            return self.main.probabilities(rows)
        out = np.empty((len(rows), len(CLASSES[self.game])))
        out[race] = self.race.probabilities(rows[race])  # type: ignore[union-attr]
        if not race.all():
            out[~race] = self.main.probabilities(rows[~race])
        return out


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function, clipped where exp would overflow."""
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
    return out
