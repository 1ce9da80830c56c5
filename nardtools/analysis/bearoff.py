"""One-sided bear-off databases (RACE.md sections 1-3).

For every position of up to 15 checkers on points 1..P, the database holds the
distribution of the number of rolls needed to bear everything off when each
roll is played to minimise the expected number of rolls, and — for positions
with all 15 checkers — the distribution of rolls until the first checker is
off under its own minimising policy (gammon, марс).  Positions are ranked as
GNU Backgammon ranks them: by number of checkers, then lexicographically by the
ascending list of the points they stand on (``position_index``).

>>> db = BearoffDatabase.build(6)
>>> round(db.mean_rolls((1, 0, 0, 5, 0, 1)), 6)   # Seret's position "A" (V1)
4.478168
>>> round(db.epc((0, 0, 0, 0, 0, 0)), 3), len(db)
(0.0, 54264)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any, Sequence

import numpy as np

#: Mean pips of one roll (doubles count four times): 294/36 = 49/6.
PIPS_PER_ROLL = 49 / 6
MAX_ROLLS = 64  # distribution length: enough for 12 points (Long Nardy) with room to spare
_VERSION = 1


def position_count(points: int, checkers: int = 15) -> int:
    """Positions of up to ``checkers`` checkers on ``points`` points: C(P + n, n)."""
    return comb(points + checkers, checkers)


def position_index(counts: Sequence[int], points: int) -> int:
    """gnubg's one-sided index of ``counts`` (checkers on the 1-point first).

    >>> position_index((0, 0, 0, 0, 0, 0), 6), position_index((0, 0, 0, 0, 0, 2), 6)
    (0, 27)
    >>> position_index((0, 0, 0, 0, 0, 15), 6)
    54263
    """
    k = sum(counts)
    index = comb(points + k - 1, k - 1) if k else 0  # positions with fewer checkers
    ascending = [p for p in range(1, points + 1) for _ in range(counts[p - 1])]
    low = 1
    for i, a in enumerate(ascending):
        rest = k - i - 1
        for v in range(low, a):
            index += comb(points - v + rest, rest)
        low = a
    return index


def _kernel() -> Any:
    """The compiled DP (numba), imported on first use."""
    from ._bearoff_kernel import build

    return build


@dataclass
class BearoffDatabase:
    """A one-sided database for ``points`` points (see the module docstring)."""

    points: int
    mean: np.ndarray  # expected rolls to bear off, by index
    dist: np.ndarray  # P(off in exactly n rolls), shape (positions, rolls); float32 when cached
    gammon_mean: np.ndarray  # expected rolls to the first checker off (15-checker positions)
    gammon_dist: np.ndarray

    def __len__(self) -> int:
        return len(self.mean)

    @classmethod
    def build(cls, points: int, policy: str = "exact") -> BearoffDatabase:
        """Compute the database.

        ``policy`` ``exact`` plays each roll to minimise the exact expected
        rolls (ties broken as gnubg's tables fall); ``gnubg`` minimises the
        16-bit quantised means gnubg stores, which reproduces gnubg's
        ``makebearoff`` tables where near-ties fall the other way."""
        if not 1 <= points <= 12:
            raise ValueError("bear-off databases cover 1 to 12 points")
        from ._bearoff_kernel import enumerate_boards

        n = position_count(points)
        boards = enumerate_boards(points, n)  # in index order (see position_index)
        binom = np.array([[comb(a, b) if b >= 0 else 0 for b in range(20)] for a in range(40)], np.int64)
        mean = np.zeros(n)
        dist = np.zeros((n, MAX_ROLLS))
        gmean = np.zeros(n)
        gdist = np.zeros((n, MAX_ROLLS))
        quantised = np.zeros((n, MAX_ROLLS), np.int64 if n < 2_000_000 else np.int32)
        ties = np.zeros(n)
        if policy not in ("exact", "gnubg"):
            raise ValueError(f"unknown policy {policy!r}: exact or gnubg")
        _kernel()(points, boards, binom, 15, mean, dist, gmean, gdist, quantised, ties, policy == "gnubg")
        return cls(points, mean, dist, gmean, gdist)

    # ------------------------------------------------------------------ lookup
    def index(self, counts: Sequence[int]) -> int:
        """The index of a position given as counts on points 1..P."""
        counts = list(counts) + [0] * (self.points - len(counts))
        if len(counts) > self.points or any(counts[self.points:]) or sum(counts) > 15:
            raise ValueError(f"{tuple(counts)} does not fit a {self.points}-point database")
        return position_index(counts[:self.points], self.points)

    def mean_rolls(self, counts: Sequence[int]) -> float:
        """Expected rolls to bear off every checker."""
        return float(self.mean[self.index(counts)])

    def distribution(self, counts: Sequence[int]) -> np.ndarray:
        """P(all off in exactly n rolls), n = 0, 1, ..."""
        row: np.ndarray = self.dist[self.index(counts)]
        return row

    def epc(self, counts: Sequence[int]) -> float:
        """Effective pip count: expected rolls × 49/6 (RACE.md 4)."""
        return self.mean_rolls(counts) * PIPS_PER_ROLL

    def wastage(self, counts: Sequence[int]) -> float:
        """EPC minus the pip count."""
        pips = sum((i + 1) * n for i, n in enumerate(counts))
        return self.epc(counts) - pips

    # ------------------------------------------------------------------ cache
    @classmethod
    def cached(cls, points: int, cache_dir: Path | None = None) -> BearoffDatabase:
        """Load the database from the user cache, building (and saving) it if it
        is missing or does not verify."""
        path = (cache_dir or default_cache_dir()) / f"bearoff-{points}pt-v{_VERSION}.npz"
        db = cls._load(points, path)
        if db is None:
            cls.build(points).save(path)
            db = cls._load(points, path)  # the stored form (float32), as every later load sees it
            assert db is not None, path
        return db

    @classmethod
    def _load(cls, points: int, path: Path) -> BearoffDatabase | None:
        """The database stored at ``path`` (kept in memory while the file is
        unchanged), or None when it is missing or damaged."""
        try:
            stat = path.stat()
        except OSError:
            return None
        key = (path, stat.st_mtime_ns, stat.st_size)
        if key in _LOADED:
            return _LOADED[key]
        try:  # numpy checks each member's CRC-32 as it reads it
            with np.load(path) as z:
                arrays = {k: z[k] for k in ("mean", "dist", "gammon_mean", "gammon_dist")}
        except Exception:  # noqa: BLE001 - any damage (bad zip, CRC, header, size): rebuild
            return None
        n = position_count(points)
        if not all(len(a) == n for a in arrays.values()):
            return None
        _LOADED[key] = db = cls(points, arrays["mean"], arrays["dist"], arrays["gammon_mean"],
                                arrays["gammon_dist"])
        return db

    def save(self, path: Path) -> None:
        """Write the database atomically as ``.npz``: means in float64, the
        distributions in float32 and only as many rolls as any position needs."""
        width = int(max(np.nonzero(self.dist.any(axis=0))[0].max(),
                        np.nonzero(self.gammon_dist.any(axis=0))[0].max())) + 1
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, mean=self.mean, dist=self.dist[:, :width].astype(np.float32),
                 gammon_mean=self.gammon_mean, gammon_dist=self.gammon_dist[:, :width].astype(np.float32))
        os.replace(tmp, path)


#: Databases already loaded in this process, by file, modification time and size.
_LOADED: dict[tuple[Path, int, int], BearoffDatabase] = {}


def default_cache_dir() -> Path:
    """``$NARDTOOLS_CACHE``, else ``$XDG_CACHE_HOME/nardtools``, else ``~/.cache/nardtools``."""
    if os.environ.get("NARDTOOLS_CACHE"):
        return Path(os.environ["NARDTOOLS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nardtools"


def effective_pips(position: Any) -> tuple[float | None, float | None]:
    """``(mover, opponent)`` EPC for sides with every checker home, from the
    cached 6-point database (built on first use); None for the others."""
    out: list[float | None] = []
    for side in (position.mover, position.opponent):
        out.append(BearoffDatabase.cached(6).epc(side[1:7]) if sum(side[7:26]) == 0 else None)
    return out[0], out[1]
