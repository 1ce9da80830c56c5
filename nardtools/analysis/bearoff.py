"""One-sided bear-off databases (RACE.md sections 1-3).

For every position of up to 15 checkers on points 1..P, the database holds the
distribution of the number of rolls needed to bear everything off when each
roll is played to minimise the expected number of rolls; the distribution of
rolls until the first checker is off under its own minimising policy (gammon,
марс: meaningful for positions with all 15 checkers); and the distribution of
rolls until every checker is home (points 1-6) under its own policy (Long
Nardy's home mars, домашний марс).  Positions are ranked as
GNU Backgammon ranks them: by number of checkers, then lexicographically by the
ascending list of the points they stand on (``position_index``).

>>> db = BearoffDatabase.build(6)
>>> round(db.mean_rolls((1, 0, 0, 5, 0, 1)), 6)   # Seret's position "A" (V1)
4.478168
>>> round(db.epc((0, 0, 0, 0, 0, 0)), 3), len(db)
(0.0, 54264)
"""

from __future__ import annotations

import json
import os
import shutil
import zlib
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import AnalysisError

#: Mean pips of one roll (doubles count four times): 294/36 = 49/6.
PIPS_PER_ROLL = 49 / 6
MAX_ROLLS = 64  # distribution length: enough for 12 points (Long Nardy) with room to spare
_VERSION = 2
#: Databases up to this many positions keep float64 distributions when built
#: (and their stored files are checked against CRC-32 on every load).
_SMALL = 1_000_000
_ARRAYS = ("mean", "dist", "gammon_mean", "gammon_dist", "home_mean", "home_dist")


def binomials() -> np.ndarray:
    """The table ``C(a, b)`` (a < 40, b < 20) the compiled kernels rank positions with."""
    return np.array([[comb(a, b) for b in range(20)] for a in range(40)], np.int64)


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


@dataclass
class BearoffDatabase:
    """A one-sided database for ``points`` points (see the module docstring)."""

    points: int
    mean: np.ndarray  # expected rolls to bear off, by index
    dist: np.ndarray  # P(off in exactly n rolls), shape (positions, rolls)
    gammon_mean: np.ndarray  # expected rolls to the first checker off (15-checker positions)
    gammon_dist: np.ndarray
    home_mean: np.ndarray  # expected rolls until every checker is home (0 when all are)
    home_dist: np.ndarray

    def __len__(self) -> int:
        return len(self.mean)

    @classmethod
    def build(cls, points: int, policy: str = "exact",
              progress: Callable[[str], None] | None = None) -> BearoffDatabase:
        """Compute the database.

        ``policy`` ``exact`` plays each roll to minimise the exact expected
        rolls, by the one-step recurrence of RACE.md's appendix (ties go to the
        smaller index); ``gnubg`` minimises the 16-bit quantised means gnubg
        stores, walking every play (slow; for comparisons with gnubg's 6-point
        tables).  Databases of more than a million positions keep float32
        distributions.  ``progress`` is told as each part starts."""
        if not 1 <= points <= 12:
            raise AnalysisError("bear-off databases cover 1 to 12 points")
        if policy not in ("exact", "gnubg"):
            raise AnalysisError(f"unknown policy {policy!r}: exact or gnubg")
        from ._bearoff_fast import build_fast
        from ._bearoff_kernel import enumerate_boards

        n = position_count(points)
        binom = binomials()
        dtype = np.float64 if n <= _SMALL else np.float32
        boards = enumerate_boards(points, n, np.int8)  # in index order (see position_index)
        work_m = np.zeros((3, 6, n), np.float32)
        work_a = np.zeros((3, 6, n), np.int32)
        out: list[np.ndarray] = []
        modes = [(0, "bear-off"), (1, "first checker off"), (2, "all home")]
        if policy == "gnubg":
            if progress:
                progress(f"bear-off and first checker off, gnubg's policy ({n:,} positions)")
            out += _gnubg_policy(points, n, binom)
            modes = modes[2:]
        for mode, name in modes:
            if progress:
                progress(f"{name} ({n:,} positions)")
            mean = np.zeros(n)
            dist = np.zeros((n, MAX_ROLLS), dtype)
            build_fast(points, boards, binom, mode, mean, dist, work_m, work_a)
            out += [mean, dist]
        del work_m, work_a
        if any(d[:, -1].any() for d in out[1::2]):
            raise AnalysisError(f"{MAX_ROLLS} rolls are not enough for {points} points")
        return cls(points, *out)

    # ------------------------------------------------------------------ lookup
    def index(self, counts: Sequence[int]) -> int:
        """The index of a position given as counts on points 1..P."""
        counts = list(counts) + [0] * (self.points - len(counts))
        if len(counts) > self.points or any(counts[self.points:]) or sum(counts) > 15 or min(counts) < 0:
            raise AnalysisError(f"{tuple(counts)} does not fit a {self.points}-point database")
        return position_index(counts[:self.points], self.points)

    def report(self, counts: Sequence[int]) -> dict[str, Any]:
        """What ``nardtools bearoff show`` prints: the index, the distributions of
        rolls to bear off and to the first checker off (with all 15), the mean,
        EPC and wastage."""
        i = self.index(counts)
        dist = np.asarray(self.dist[i])
        first = np.asarray(self.gammon_dist[i]) if sum(counts) == 15 else np.zeros(1)
        return {"counts": list(counts), "index": i, "mean_rolls": self.mean_rolls(counts), "epc": self.epc(counts),
                "wastage": self.wastage(counts), "pips": sum((k + 1) * n for k, n in enumerate(counts)),
                "distribution": [float(x) for x in dist[:_last(dist)]],
                "first_off_mean": float(self.gammon_mean[i]) if sum(counts) == 15 else 0.0,
                "first_off": [float(x) for x in first[:_last(first)]]}

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
    def cached(cls, points: int, cache_dir: Path | None = None,
               progress: Callable[[str], None] | None = None) -> BearoffDatabase:
        """Load the database from the user cache, building (and saving) it if it
        is missing or does not verify.  Arrays are memory-mapped, so a lookup
        reads only the rows it needs."""
        path = cache_path(points, cache_dir)
        db = cls.load(points, path)
        if db is None:
            if progress is None:  # built on first use: say so, once
                from .. import _notices

                _notices.say(f"building the {points}-point bear-off database ({position_count(points):,} "
                             f"positions), once: it is kept in {path}")
                progress = _notices.notice
            cls.build(points, progress=progress).save(path)
            db = cls.load(points, path)  # the stored form, as every later load sees it
            assert db is not None, path
        return db

    @classmethod
    def load(cls, points: int, path: Path, *, verify: bool | None = None) -> BearoffDatabase | None:
        """The database stored in the folder ``path`` (kept in memory while it
        is unchanged), or None when it is missing or damaged.  Shapes and sizes
        are always checked; the CRC-32 of every array when ``verify``, which by
        default is done for small databases only (``nardtools bearoff verify``
        checks a large one)."""
        meta_path = path / "meta.json"
        try:
            stats = [f.stat() for f in [meta_path, *(path / f"{name}.npy" for name in _ARRAYS)]]
        except OSError:
            return None
        key = (path, tuple((st.st_mtime_ns, st.st_size) for st in stats))
        if key in _LOADED and not verify:
            return _LOADED[key]
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            return None
        n = position_count(points)
        if meta.get("points") != points or meta.get("version") != _VERSION:
            return None
        arrays = {}
        check = verify if verify is not None else n <= _SMALL
        try:
            for name in _ARRAYS:
                info = meta["arrays"][name]
                file = path / f"{name}.npy"
                if file.stat().st_size != info["bytes"]:
                    return None
                if check and _crc32(file) != info["crc32"]:
                    return None
                arrays[name] = np.load(file, mmap_mode="r")
                if arrays[name].shape[0] != n or list(arrays[name].shape) != info["shape"]:
                    return None
        except (OSError, ValueError, KeyError):
            return None
        _LOADED[key] = db = cls(points, **arrays)
        return db

    def save(self, path: Path) -> None:
        """Write the database as a folder of ``.npy`` arrays and a
        ``meta.json`` (shapes, sizes, CRC-32), atomically: means in float64,
        distributions in float32 and only as many rolls as any position needs."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            meta: dict[str, Any] = {"points": self.points, "version": _VERSION, "arrays": {}}
            for name in _ARRAYS:
                array = getattr(self, name)
                if array.ndim == 2:
                    used = np.nonzero(np.asarray(array).any(axis=0))[0]
                    array = np.asarray(array[:, :int(used.max()) + 1 if len(used) else 1], np.float32)
                file = tmp / f"{name}.npy"
                np.save(file, array)
                meta["arrays"][name] = {"shape": list(array.shape), "dtype": str(array.dtype),
                                        "bytes": file.stat().st_size, "crc32": _crc32(file)}
            (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
            if path.exists():
                shutil.rmtree(path)
            os.replace(tmp, path)
        except BaseException:  # an error, Ctrl-C or SIGTERM: nothing half-written is left
            shutil.rmtree(tmp, ignore_errors=True)
            raise


def _last(row: np.ndarray) -> int:
    """The length of ``row`` without its trailing zeros (at least 1)."""
    nonzero = np.nonzero(row)[0]
    return int(nonzero.max()) + 1 if len(nonzero) else 1


def board_counts(text: str) -> list[int]:
    """Checker counts on the 1-point, 2-point, ... as written on the command
    line (``1,0,0,5,0,1``): whole numbers from 0, at most 15 in all, on at
    most 12 points.

    >>> board_counts("1, 0,0,5")
    [1, 0, 0, 5]
    >>> board_counts("1,-2")
    Traceback (most recent call last):
    ...
    nardtools.errors.AnalysisError: checker counts are whole numbers from 0, such as 1,0,0,5,0,1; got '1,-2'
    """
    items = text.replace(" ", "").split(",")
    if not all(item.isdigit() and len(item) <= 2 for item in items):
        raise AnalysisError(f"checker counts are whole numbers from 0, such as 1,0,0,5,0,1; got {text[:60]!r}")
    counts = [int(item) for item in items]
    if len(counts) > 12:
        raise AnalysisError(f"bear-off databases cover at most 12 points, not {len(counts)}")
    if sum(counts) > 15:
        raise AnalysisError(f"a side has at most 15 checkers, not {sum(counts)}")
    return counts


def cache_path(points: int, cache_dir: Path | None = None) -> Path:
    """Where the ``points``-point database lives in the cache."""
    return (cache_dir or default_cache_dir()) / f"bearoff-{points}pt-v{_VERSION}"


def cached_points(cache_dir: Path | None = None) -> list[int]:
    """The databases already in the cache (by points), without loading them."""
    return [p for p in range(1, 13) if (cache_path(p, cache_dir) / "meta.json").exists()]


def _crc32(path: Path) -> int:
    crc = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            crc = zlib.crc32(chunk, crc)
    return crc


def _gnubg_policy(points: int, n: int, binom: np.ndarray) -> list[np.ndarray]:
    """The bear-off and first-off tables under gnubg's quantised policy, by
    the play-walking kernel (``_bearoff_kernel``; checked against gnubg's own
    6-point tables)."""
    from ._bearoff_kernel import build, enumerate_boards

    boards = enumerate_boards(points, n)
    mean, gmean = np.zeros(n), np.zeros(n)
    dist, gdist = np.zeros((n, MAX_ROLLS)), np.zeros((n, MAX_ROLLS))
    quantised = np.zeros((n, MAX_ROLLS), np.int64)
    ties = np.zeros(n)
    build(points, boards, binom, 15, mean, dist, gmean, gdist, quantised, ties, True)
    return [mean, dist, gmean, gdist]


#: Databases already loaded in this process, by folder and its files' modification times and sizes.
_LOADED: dict[tuple[Path, tuple[tuple[int, int], ...]], BearoffDatabase] = {}


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
