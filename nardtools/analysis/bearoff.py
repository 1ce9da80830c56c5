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

import dataclasses
import functools
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
#: (and their stored files are checked against CRC-32 when they load changed
#: since their last check: see :func:`_checked`).
_SMALL = 1_000_000
_ARRAYS = ("mean", "dist", "gammon_mean", "gammon_dist", "home_mean", "home_dist")


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


def position_indices(counts: np.ndarray, points: int) -> np.ndarray:
    """:func:`position_index` of many rows of counts (n, ``points``) at once.

    >>> position_indices(np.array([[0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 15]]), 6).tolist()
    [27, 54263]
    """
    counts = np.asarray(counts, np.int64).reshape(-1, points)
    k = counts.sum(axis=1)
    comb_table, below = _index_tables(points)
    index = np.where(k > 0, comb_table[points + np.maximum(k, 1) - 1, np.maximum(k - 1, 0)], 0)
    # each checker's point, ascending (points + 1 past the last checker)
    ascending = np.repeat(np.tile(np.arange(1, points + 2), (len(counts), 1)).ravel(),
                          np.concatenate([counts, (15 - k)[:, None]], axis=1).ravel()).reshape(len(counts), 15)
    low = np.ones(len(counts), np.int64)
    for i in range(15):
        on = i < k
        a = np.where(on, ascending[:, i], low)
        rest = np.maximum(k - i - 1, 0)
        index += np.where(on, below[a, rest] - below[low, rest], 0)
        low = a
    return index


@functools.lru_cache(maxsize=16)
def _index_tables(points: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`position_indices`' binomials ``comb(a, b)`` and ``below[v, rest]``,
    the sum over u < v of ``comb(points - u + rest, rest)``: what a checker on v
    skips (made once per size: a race's odds ask for them thousands of times)."""
    comb_table = np.array([[comb(a, b) for b in range(16)] for a in range(points + 16)], np.int64)
    below = np.zeros((points + 2, 16), np.int64)
    for v in range(2, points + 2):
        below[v] = below[v - 1] + comb_table[points - (v - 1) + np.arange(16), np.arange(16)]
    comb_table.flags.writeable = below.flags.writeable = False
    return comb_table, below


@dataclass(frozen=True)
class BearoffReport:
    """One side's bear-off figures from a database: its counts on points 1..P,
    its index, the expected rolls to bear off, EPC and wastage, the pips, the
    distribution of rolls to bear off every checker and (with all fifteen)
    to bear off the first, with its mean."""

    counts: list[int]
    index: int
    mean_rolls: float
    epc: float
    wastage: float
    pips: int
    distribution: list[float]
    first_off_mean: float
    first_off: list[float]

    def as_dict(self) -> dict[str, object]:
        """The JSON form of ``nardtools bearoff show``."""
        return dataclasses.asdict(self)


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
        """Compute the database in memory.

        ``policy`` ``exact`` plays each roll to minimise the exact expected
        rolls, by the one-step recurrence of RACE.md's appendix (ties go to the
        smaller index); ``gnubg`` minimises the 16-bit quantised means gnubg
        stores, walking every play (slow; for comparisons with gnubg's 6-point
        tables).  Databases of more than a million positions keep float32
        distributions (:meth:`cached` builds large ones on disk, in bounded
        memory).  ``progress`` is told as each part starts."""
        arrays: dict[str, np.ndarray] = {}
        _compute(points, policy, progress, lambda name, shape, dtype: arrays.setdefault(name, np.zeros(shape, dtype)),
                 lambda name, rolls: None)
        return cls(points, **arrays)

    # ------------------------------------------------------------------ lookup
    def index(self, counts: Sequence[int]) -> int:
        """The index of a position given as counts on points 1..P."""
        counts = list(counts) + [0] * (self.points - len(counts))
        if len(counts) > self.points or any(counts[self.points:]) or sum(counts) > 15 or min(counts) < 0:
            raise AnalysisError(f"{tuple(counts)} does not fit a {self.points}-point database")
        return position_index(counts[:self.points], self.points)

    def report(self, counts: Sequence[int]) -> BearoffReport:
        """What ``nardtools bearoff show`` prints (see :class:`BearoffReport`)."""
        i = self.index(counts)
        dist = np.asarray(self.dist[i])
        full = sum(counts) == 15
        first = np.asarray(self.gammon_dist[i]) if full else np.zeros(1)
        return BearoffReport(list(counts), i, self.mean_rolls(counts), self.epc(counts), self.wastage(counts),
                             sum((k + 1) * n for k, n in enumerate(counts)),
                             [float(x) for x in dist[:_last(dist)]],
                             float(self.gammon_mean[i]) if full else 0.0, [float(x) for x in first[:_last(first)]])

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
        folder = cache_dir or default_cache_dir()
        path = cache_path(points, folder)
        db = cls.load(points, path)
        if db is None:
            if progress is None:  # built on first use: say so, once
                from .. import _notices

                _notices.say(f"building the {points}-point bear-off database ({position_count(points):,} "
                             f"positions), once: it is kept in {path}")
                progress = _notices.notice
            if position_count(points) <= _SMALL:
                cls.build(points, progress=progress).save(path)
            else:
                _build_on_disk(points, path, progress)
            db = cls.load(points, path)  # the stored form, as every later load sees it
            assert db is not None, path
            _POINTS.pop(folder, None)
        return db

    @classmethod
    def load(cls, points: int, path: Path, *, verify: bool | None = None) -> BearoffDatabase | None:
        """The database stored in the folder ``path`` (kept in memory while it
        is unchanged), or None when it is missing or damaged.  Shapes and sizes
        are always checked; the CRC-32 of every array when ``verify``, which by
        default is done for small databases only, and only for files changed
        since they were last checked (``nardtools bearoff verify`` checks any
        database, whatever its size or stamp)."""
        known = _LOADED.get(path)
        files = known[0] if known else [str(path / "meta.json"), *_array_files(path)]
        signature = _signature(files)
        if signature is None:
            return None
        if known is not None and known[1] == signature and not verify:
            return known[2]
        meta_path = path / "meta.json"
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            return None
        n = position_count(points)
        if meta.get("points") != points or meta.get("version") != _VERSION:
            return None
        arrays = {}
        stamp = _stamp(signature[1:])   # (the arrays' files, after meta.json's)
        check = verify if verify is not None else n <= _SMALL and meta.get("checked") != stamp
        try:
            for name, (_, size, _) in zip(_ARRAYS, signature[1:]):
                info = meta["arrays"][name]
                file = path / f"{name}.npy"
                if size != info["bytes"]:
                    return None
                if check and _crc32(file) != info["crc32"]:
                    return None
                arrays[name] = np.load(file, mmap_mode="r")
                if arrays[name].shape[0] != n or list(arrays[name].shape) != info["shape"]:
                    return None
        except (OSError, ValueError, KeyError):
            return None
        if check and meta.get("checked") != stamp:
            _write_meta(path, {**meta, "checked": stamp})
            signature = _signature(files) or signature   # (meta.json's own, rewritten)
        db = cls(points, **arrays)
        _LOADED[path] = (files, signature, db)
        return db

    def save(self, path: Path) -> None:
        """Write the database as a folder of ``.npy`` arrays and a
        ``meta.json`` (shapes, sizes, CRC-32), atomically: means in float64,
        distributions in float32 and only as many rolls as any position needs."""
        def write(tmp: Path) -> None:
            for name in _ARRAYS:
                array = getattr(self, name)
                if array.ndim == 2:
                    array = np.asarray(array[:, :_used_rolls(array)], np.float32)
                np.save(tmp / f"{name}.npy", array)

        _write_folder(path, self.points, write)


def _write_folder(path: Path, points: int, write: Callable[[Path], None]) -> None:
    """Make the database folder ``path``: ``write`` puts every array's
    ``.npy`` in a temporary folder beside it, then its ``meta.json`` is
    written and the folder renamed into place.  On an error, Ctrl-C or
    SIGTERM nothing half-written is left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        write(tmp)
        meta: dict[str, Any] = {"points": points, "version": _VERSION, "arrays": {}}
        for name in _ARRAYS:
            file = tmp / f"{name}.npy"
            array = np.load(file, mmap_mode="r")
            meta["arrays"][name] = {"shape": list(array.shape), "dtype": str(array.dtype),
                                    "bytes": file.stat().st_size, "crc32": _crc32(file)}
            del array
        meta["checked"] = _stamp(_signature(_array_files(tmp)) or ())   # (the CRCs were just taken of these files)
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
        if path.exists():
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _kernel() -> Any:
    """The bear-off builders: the compiled core's, else the readable reference."""
    from ..core import CORE

    if CORE is not None:
        return CORE
    from . import _bearoff_reference

    return _bearoff_reference


def boards(points: int) -> np.ndarray:
    """Every position of up to 15 checkers on ``points`` points (int8 rows
    of counts, the 1-point first), in index order (see :func:`position_index`).

    >>> boards(2)[:4].tolist()
    [[0, 0], [1, 0], [0, 1], [2, 0]]
    """
    rows = np.zeros((position_count(points), points), np.int8)
    _kernel().bearoff_boards(points, rows)
    return rows


def _compute(points: int, policy: str, progress: Callable[[str], None] | None,
             allocate: Callable[[str, tuple[int, ...], Any], np.ndarray],
             finish: Callable[[str, int], None]) -> None:
    """Compute every array of the database: ``allocate(name, shape, dtype)``
    gives the zeroed array to fill, ``finish(name, rolls)`` is told when it is
    done (with the columns a distribution uses)."""
    if not 1 <= points <= 12:
        raise AnalysisError("bear-off databases cover 1 to 12 points")
    if policy not in ("exact", "gnubg"):
        raise AnalysisError(f"unknown policy {policy!r}: exact or gnubg")
    kernel = _kernel()
    n = position_count(points)
    rows = boards(points)
    dtype = np.float64 if n <= _SMALL else np.float32
    parts = [(0, "bear-off"), (1, "first checker off"), (2, "all home")]
    if policy == "gnubg":
        if progress:
            progress(f"bear-off and first checker off, gnubg's policy ({n:,} positions)")
        out = [allocate(name, (n,) if i % 2 == 0 else (n, MAX_ROLLS), np.float64)
               for i, name in enumerate(_ARRAYS[:4])]
        kernel.bearoff_gnubg(points, 15, True, rows, *out)
        for name, array in zip(_ARRAYS[:4], out):
            finish(name, _used_rolls(array) if array.ndim == 2 else 0)
        parts = parts[2:]
    for mode, part in parts:
        if progress:
            progress(f"{part} ({n:,} positions)")
        mean_name, dist_name = _ARRAYS[2 * mode], _ARRAYS[2 * mode + 1]
        used = kernel.bearoff_exact(points, mode, rows, allocate(mean_name, (n,), np.float64),
                                    allocate(dist_name, (n, MAX_ROLLS), dtype))
        if used >= MAX_ROLLS:
            raise AnalysisError(f"{MAX_ROLLS} rolls are not enough for {points} points")
        finish(mean_name, 0)
        finish(dist_name, used)


def _build_on_disk(points: int, path: Path, progress: Callable[[str], None] | None) -> None:
    """Build the exact database straight into the folder ``path``: each
    distribution is computed into a memory-mapped file, then trimmed to the
    rolls it uses, so memory holds the work arrays and the page cache the
    rest (about 3 GB for 12 points)."""
    def write(tmp: Path) -> None:
        def allocate(name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
            suffix = ".full.npy" if len(shape) == 2 else ".npy"
            return np.lib.format.open_memmap(tmp / f"{name}{suffix}", "w+", dtype, shape)

        def finish(name: str, rolls: int) -> None:
            full = tmp / f"{name}.full.npy"
            if not full.exists():
                return
            array = np.load(full, mmap_mode="r")
            trimmed = np.lib.format.open_memmap(tmp / f"{name}.npy", "w+", np.float32, (array.shape[0], rolls))
            for start in range(0, array.shape[0], 1 << 20):
                trimmed[start:start + (1 << 20)] = array[start:start + (1 << 20), :trimmed.shape[1]]
            trimmed.flush()
            del array, trimmed
            full.unlink()

        _compute(points, "exact", progress, allocate, finish)

    _write_folder(path, points, write)


def _used_rolls(dist: np.ndarray) -> int:
    """The columns of ``dist`` up to the last that any row uses (at least 1),
    read in slices of a million rows."""
    used = np.zeros(dist.shape[1], bool)
    for start in range(0, dist.shape[0], 1 << 20):
        used |= np.asarray(dist[start:start + (1 << 20)]).any(axis=0)
    where = np.nonzero(used)[0]
    return int(where.max()) + 1 if len(where) else 1


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
    """The databases already in the cache (by points), without loading them
    (looked for once a process and cache: :meth:`BearoffDatabase.cached`
    adds the ones it builds)."""
    folder = cache_dir or default_cache_dir()
    if folder not in _POINTS:
        _POINTS[folder] = [p for p in range(1, 13) if (cache_path(p, folder) / "meta.json").exists()]
    return list(_POINTS[folder])


def _array_files(path: Path) -> list[str]:
    """The files of the database folder ``path``'s arrays, in :data:`_ARRAYS`' order."""
    return [str(path / f"{name}.npy") for name in _ARRAYS]


def _stamp(signature: Sequence[tuple[int, int, int]]) -> list[list[int]]:
    """The arrays' files as they stand (their :func:`_signature`), as JSON
    keeps it.  A small database's ``meta.json`` keeps the stamp of the files
    its CRCs were last found right in (``checked``): loading files of that
    stamp again skips reading them whole (10 ms for the 6-point one, on every
    command that evaluates a race), and a file written since, or replaced, is
    checked again."""
    return [list(entry) for entry in signature]


def _write_meta(path: Path, meta: dict[str, Any]) -> None:
    """Replace the folder's ``meta.json`` atomically; a cache that cannot be
    written (read-only, full) keeps its old one."""
    tmp = path / f".meta.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(meta, indent=1))
        os.replace(tmp, path / "meta.json")
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def _crc32(path: Path) -> int:
    crc = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            crc = zlib.crc32(chunk, crc)
    return crc


#: Databases already loaded in this process, by folder: its files, their :func:`_signature` then, and
#: the database (a race's odds ask for it thousands of times a game: a few ``stat`` calls tell it is
#: unchanged).
_LOADED: dict[Path, tuple[list[str], tuple[tuple[int, int, int], ...], BearoffDatabase]] = {}
#: What :func:`cached_points` found, by cache.
_POINTS: dict[Path, list[int]] = {}


def _signature(files: list[str]) -> tuple[tuple[int, int, int], ...] | None:
    """The files' modification times (ns), sizes and inodes (None when one is missing)."""
    try:
        return tuple((st.st_mtime_ns, st.st_size, st.st_ino) for st in map(os.stat, files))
    except OSError:
        return None


def default_cache_dir() -> Path:
    """``$NARDTOOLS_CACHE``, else ``$XDG_CACHE_HOME/nardtools``, else ``~/.cache/nardtools``."""
    return _cache_dir(os.environ.get("NARDTOOLS_CACHE"), os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"))


@functools.lru_cache(maxsize=16)
def _cache_dir(own: str | None, xdg: str | None, home: str | None) -> Path:
    if own:
        return Path(own)
    return Path(xdg or str(Path.home() / ".cache")) / "nardtools"


def effective_pips(position: Any) -> tuple[float | None, float | None]:
    """``(mover, opponent)`` EPC for sides with every checker home, from the
    cached 6-point database (built on first use); None for the others."""
    out: list[float | None] = []
    for side in (position.mover, position.opponent):
        out.append(BearoffDatabase.cached(6).epc(side[1:7]) if sum(side[7:26]) == 0 else None)
    return out[0], out[1]
