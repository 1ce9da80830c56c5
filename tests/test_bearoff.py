"""One-sided bear-off databases: every reference number of RACE.md section 5,
and GNU Backgammon's own 6-point database position by position (optional)."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np
import pytest

from nardtools.analysis.bearoff import (
    BearoffDatabase,
    boards,
    position_count,
    position_index,
)
from nardtools.core import CORE

GNUBG_OS = Path("/usr/share/gnubg/gnubg_os0.bd")


@pytest.fixture(scope="module")
def db6() -> BearoffDatabase:
    return BearoffDatabase.build(6)  # full precision (the cache stores float32)


def test_v1_seret_position_a(db6):
    dist = db6.distribution((1, 0, 0, 5, 0, 1))
    assert [round(100 * x, 2) for x in dist[2:8]] == [0.69, 15.37, 27.54, 48.40, 7.84, 0.16]
    assert db6.mean_rolls((1, 0, 0, 5, 0, 1)) == pytest.approx(4.478168, abs=1e-6)


def test_v2_v4_v5_v7(db6):
    assert db6.mean_rolls((0, 1, 2, 3, 4, 5)) == pytest.approx(9.471416, abs=1e-6)      # Woolsey
    assert db6.mean_rolls((2, 3, 4, 3, 2, 1)) == pytest.approx(7.481773, abs=1e-6)      # Eide
    assert db6.mean_rolls((3, 3, 3, 2, 2, 2)) == pytest.approx(7.555030, abs=1e-6)
    assert db6.wastage((0, 0, 0, 0, 0, 8)) - db6.wastage((0, 0, 0, 1, 4, 4)) == pytest.approx(1.486, abs=1e-3)
    # V7 "about 7 rolls, EPC almost exactly 57": 342/49 rounded; exactly 57 - 6^-8 (V8)
    assert db6.mean_rolls((15, 0, 0, 0, 0, 0)) == pytest.approx(342 / 49, abs=1e-6)
    assert db6.epc((15, 0, 0, 0, 0, 0)) == pytest.approx(57.0 - 6.0 ** -8, abs=1e-12)


def test_v3_minimum_wastage_boards(db6):
    # Eide's table: the least wastage at a given pip count (digits 1-point .. 6-point)
    for board, wastage in [((0, 0, 0, 0, 1, 0), 4.30), ((0, 0, 0, 0, 0, 1), 4.21),
                           ((0, 0, 0, 0, 0, 2), 5.23), ((0, 0, 0, 1, 2, 2), 5.89),
                           ((0, 0, 0, 2, 3, 3), 6.53)]:
        assert db6.wastage(board) == pytest.approx(wastage, abs=0.01)


def test_v6_two_checkers_off_in_one_roll(db6):
    published = {(1, 1): 36, (1, 2): 36, (1, 3): 34, (1, 4): 29, (2, 2): 26, (2, 3): 25, (1, 5): 23,
                 (2, 4): 23, (2, 5): 19, (3, 3): 17, (3, 4): 17, (1, 6): 15, (3, 5): 14, (2, 6): 13,
                 (4, 4): 11, (3, 6): 10, (4, 5): 10, (4, 6): 8, (5, 5): 6, (5, 6): 6, (6, 6): 4}
    for (a, b), ways in published.items():
        board = [0] * 6
        board[a - 1] += 1
        board[b - 1] += 1
        assert round(36 * db6.distribution(board)[1]) == ways, (a, b)


def test_v8_epc_rule_on_the_ace_point(db6):
    for n in range(1, 9):
        exact = 7 * n + 1 - (-1 / 6) ** n
        for checkers in (2 * n - 1, 2 * n)[: 1 if n == 8 else 2]:  # at most 15 checkers
            assert db6.epc((checkers, 0, 0, 0, 0, 0)) == pytest.approx(exact, abs=1e-9)


def test_v10_and_index_order(db6):
    assert len(db6) == position_count(6) == 54_264
    assert [position_index(b, 6) for b in [(0, 0, 0, 0, 1, 0), (0, 0, 0, 0, 0, 2), (0, 0, 0, 0, 0, 3),
                                           (4, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15)]] == [5, 27, 83, 84, 54263]


def test_known_bad_manual_number_is_not_reproduced(db6):
    # RACE.md 5.2: the gnubg manual's 2.189 rolls for (5,4,0,0,0,0) is wrong; 4.410129 is right
    assert db6.mean_rolls((5, 4, 0, 0, 0, 0)) == pytest.approx(4.410129, abs=1e-6)


def test_gammon_distribution_sanity(db6):
    # RACE.md 2: one checker on 6 against fifteen on 6: P(win gammon) = 127/144
    theirs = db6.index((0, 0, 0, 0, 0, 15))
    mine = db6.distribution((0, 0, 0, 0, 0, 1))
    g = db6.gammon_dist[theirs]
    p = sum(mine[i] * g[i:].sum() for i in range(len(mine)))
    assert p == pytest.approx(127 / 144, abs=1e-12)
    assert all(db6.gammon_dist[i][0] == 1.0 for i in (0, 1, 100))  # fewer than 15: already off


def test_cache_rebuilds_a_corrupt_file(tmp_path):
    db = BearoffDatabase.cached(3, tmp_path)
    folder = next(tmp_path.glob("bearoff-3pt-*"))
    loaded = BearoffDatabase.cached(3, tmp_path)
    assert np.array_equal(db.mean, loaded.mean) and loaded.dist.dtype == np.float32
    dist = folder / "dist.npy"
    data = bytearray(dist.read_bytes())
    data[len(data) // 2] ^= 0xFF  # flip one byte inside the stored distributions: CRC-32 fails
    dist.write_bytes(bytes(data))
    assert BearoffDatabase.load(3, folder) is None
    again = BearoffDatabase.cached(3, tmp_path)
    fresh = BearoffDatabase.build(3).dist  # (``db`` maps the damaged file: compare with a new build)
    assert np.array_equal(db.mean, again.mean)
    assert np.array_equal(fresh[:, :again.dist.shape[1]].astype(np.float32), again.dist)
    (folder / "meta.json").write_text("not a database")
    assert np.array_equal(db.mean, BearoffDatabase.cached(3, tmp_path).mean)
    (folder / "home_dist.npy").unlink()
    assert np.array_equal(db.home_mean, BearoffDatabase.cached(3, tmp_path).home_mean)


def read_gnubg_one_sided(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """gnubg's compressed one-sided file (RACE.md 1.1): distributions and gammon ones."""
    data = path.read_bytes()
    header = data[:40].decode("ascii", "replace")
    assert header.startswith("gnubg-OS-06-15-1-1"), header
    n = 54_264
    index = data[40:40 + 8 * n]
    body = np.frombuffer(data[40 + 8 * n:], dtype="<u2")
    dist = np.zeros((n, 32))
    gammon = np.zeros((n, 32))
    for i in range(n):
        offset, nz, ioff, nzg, ioffg = struct.unpack_from("<IBBBB", index, 8 * i)
        dist[i, ioff:ioff + nz] = body[offset:offset + nz]
        gammon[i, ioffg:ioffg + nzg] = body[offset + nz:offset + nz + nzg]
    return dist / 65535, gammon / 65535


@pytest.mark.oracle
@pytest.mark.skipif(not GNUBG_OS.exists(), reason="GNU Backgammon's gnubg_os0.bd is absent")
def test_equals_gnubg_database_on_every_position(db6):
    """All 54,264 positions, every probability of both distributions."""
    dist, gammon = read_gnubg_one_sided(GNUBG_OS)
    ours = BearoffDatabase.build(6, policy="gnubg")
    assert np.abs(ours.dist[:, :32] - dist).max() < 2e-4
    assert np.abs(ours.gammon_dist[:, :32] - gammon).max() < 2e-4
    assert np.abs(ours.dist[:, 32:]).max() < 1e-12  # nothing beyond 31 rolls at 6 points
    # The exact policy differs from gnubg's only where two plays' means are
    # closer than gnubg's 16-bit resolution: the means still agree.
    assert np.abs(db6.mean - (dist * np.arange(32)).sum(axis=1)).max() < 5e-4  # 16-bit tables
    assert np.abs(db6.gammon_dist[:, :32] - gammon).max() < 2e-4


# ---------------------------------------------------------------------------
# The one-step recurrence against a brute force that walks every play


def _steps(c: tuple[int, ...], d: int, points: int) -> set[tuple[int, ...]]:
    out = set()
    for p in range(1, points + 1):
        if not c[p - 1]:
            continue
        t = p - d
        c2 = list(c)
        if t < 1 and (any(c[q - 1] for q in range(7, points + 1))
                      or (t < 0 and any(c[q - 1] for q in range(p + 1, 7)))):
            continue  # bearing off needs all home, and a larger die only from the highest point
        c2[p - 1] -= 1
        if t >= 1:
            c2[t - 1] += 1
        out.add(tuple(c2))
    return out


def _finals(c: tuple[int, ...], dice: list[int], points: int) -> set[tuple[int, ...]]:
    current = {c}
    for d in dice:
        nxt: set[tuple[int, ...]] = set()
        for x in current:
            s = _steps(x, d, points)
            nxt |= s or {x}
        current = nxt
    return current


def _brute(points: int, done):  # type: ignore[no-untyped-def]
    from functools import lru_cache

    @lru_cache(None)
    def e(c: tuple[int, ...]) -> float:
        if done(c):
            return 0.0
        total = 0.0
        for a in range(1, 7):
            for b in range(1, a + 1):
                finals = (_finals(c, [a] * 4, points) if a == b
                          else _finals(c, [a, b], points) | _finals(c, [b, a], points))
                total += (1 if a == b else 2) / 36 * min(e(f) for f in finals)
        return 1 + total
    return e


@pytest.fixture(scope="module")
def db8() -> BearoffDatabase:
    return BearoffDatabase.build(8)


def test_recurrence_equals_brute_force_on_eight_points(db8):
    """Expected rolls to bear off, to the first checker off and until all are
    home, by the database against a brute force over every play (RACE.md: the
    recurrence is exact for one-sided races).  Small cases here; -m slow has more."""
    _check_brute(db8, [(1, 0, 2, 0, 0, 1, 1, 0), (0, 0, 0, 0, 0, 0, 2, 2)],
                 [(13, 0, 0, 0, 0, 0, 1, 1), (12, 1, 0, 0, 0, 0, 0, 2)])


@pytest.mark.slow
def test_recurrence_equals_brute_force_on_eight_points_harder(db8):
    _check_brute(db8, [(3, 0, 0, 1, 0, 0, 0, 1), (0, 1, 1, 1, 1, 0, 1, 1)],
                 [(1, 0, 0, 0, 0, 10, 2, 2), (0, 2, 2, 2, 2, 2, 3, 2), (5, 5, 0, 0, 0, 0, 0, 5)])


def _check_brute(db, few, fifteen):  # type: ignore[no-untyped-def]
    bear_off = _brute(8, lambda c: sum(c) == 0)
    first_off = _brute(8, lambda c: sum(c) < 15)
    all_home = _brute(8, lambda c: not any(c[6:]))
    for counts in few:
        assert db.mean_rolls(counts) == pytest.approx(bear_off(counts), abs=1e-9)
    for counts in fifteen:
        i = db.index(counts)
        assert db.gammon_mean[i] == pytest.approx(first_off(counts), abs=1e-9)
        assert db.home_mean[i] == pytest.approx(all_home(counts), abs=1e-9)
    # a distribution's mean is its expectation
    i = db.index(fifteen[0])
    for mean, dist in ((db.mean, db.dist), (db.gammon_mean, db.gammon_dist), (db.home_mean, db.home_dist)):
        assert (np.arange(dist.shape[1]) * dist[i]).sum() == pytest.approx(mean[i], abs=1e-9)


@pytest.mark.skipif(CORE is None, reason="the reference-only run")
@pytest.mark.parametrize("points", [1, 3, 4])
def test_the_core_builds_what_the_reference_builds(points):
    """The compiled builders (csrc/bearoff.c) against their readable
    reference, to the bit: every position, quantity, precision and policy."""
    from math import comb

    from nardtools.analysis import _bearoff_reference as reference

    n = position_count(points)
    rows = np.zeros((n, points), np.int8)
    reference.bearoff_boards(points, rows)
    assert np.array_equal(rows, boards(points))
    for dtype in (np.float64, np.float32):
        for mode in range(3):
            ours, theirs = [np.zeros(n), np.zeros((n, 64), dtype)], [np.zeros(n), np.zeros((n, 64), dtype)]
            assert CORE.bearoff_exact(points, mode, rows, *ours) == reference.bearoff_exact(points, mode, rows, *theirs)
            assert all(np.array_equal(a, b) for a, b in zip(ours, theirs)), (dtype, mode)
    for by_key in (True, False):
        ours = [np.zeros(n), np.zeros((n, 64)), np.zeros(n), np.zeros((n, 64))]
        theirs = [np.zeros(n), np.zeros((n, 64)), np.zeros(n), np.zeros((n, 64))]
        CORE.bearoff_gnubg(points, 15, by_key, rows, *ours)
        reference.bearoff_gnubg(points, 15, by_key, rows, *theirs)
        assert all(np.array_equal(a, b) for a, b in zip(ours, theirs)), by_key
    six = np.zeros((position_count(6), 6), np.int8)
    CORE.bearoff_boards(6, six)
    m = comb(6 + 2, 2)
    pips = (six[:m] * np.arange(1, 7)).sum(axis=1)
    order = np.argsort((pips[:, None] + pips[None, :]).ravel(), kind="stable").astype(np.int64)
    ours, theirs = np.zeros((m, m)), np.zeros((m, m))
    CORE.bearoff_two_sided(np.ascontiguousarray(six[:m]), order, ours)
    reference.bearoff_two_sided(six[:m], order, theirs)
    assert np.array_equal(ours, theirs)


def test_a_large_database_is_built_on_disk_as_in_memory(tmp_path, monkeypatch):
    """Databases over a million positions are built into memory-mapped files
    and trimmed there (bounded memory); the stored result is the one an
    in-memory build saves."""
    from nardtools.analysis import bearoff

    monkeypatch.setattr(bearoff, "_SMALL", 100)  # so that 4 points (3,876 positions) goes to disk
    on_disk = BearoffDatabase.cached(4, tmp_path / "disk")
    assert not list((tmp_path / "disk").rglob("*.full.npy"))
    in_memory = BearoffDatabase.build(4)  # float32 distributions too, now
    in_memory.save(tmp_path / "memory" / "db")
    saved = BearoffDatabase.load(4, tmp_path / "memory" / "db")
    for name in ("mean", "dist", "gammon_mean", "gammon_dist", "home_mean", "home_dist"):
        assert np.array_equal(getattr(on_disk, name), getattr(saved, name)), name
    assert on_disk.dist.shape[1] < 64  # trimmed to the rolls used


def test_a_checked_database_loads_without_reading_it_whole(tmp_path, monkeypatch):
    """A small database's CRCs are taken once for files of one stamp (time,
    size, inode): a later process loads them unread; a file written since, or
    a meta.json without the stamp (an older cache), is read and checked."""
    import json

    from nardtools.analysis import bearoff

    BearoffDatabase.cached(3, tmp_path)
    folder = next(tmp_path.glob("bearoff-3pt-*"))
    read = []
    real = bearoff._crc32
    monkeypatch.setattr(bearoff, "_crc32", lambda path: read.append(path.name) or real(path))
    bearoff._LOADED.clear()   # (as a new process)
    assert BearoffDatabase.load(3, folder) is not None and read == []
    meta = json.loads((folder / "meta.json").read_text())
    del meta["checked"]
    (folder / "meta.json").write_text(json.dumps(meta))
    bearoff._LOADED.clear()
    assert BearoffDatabase.load(3, folder) is not None and len(read) == len(bearoff._ARRAYS)
    assert "checked" in json.loads((folder / "meta.json").read_text())   # stamped again
    bearoff._LOADED.clear()
    assert BearoffDatabase.load(3, folder) is not None and len(read) == len(bearoff._ARRAYS)
    mean = folder / "mean.npy"
    mean.write_bytes(mean.read_bytes())   # the same bytes, written again: checked again
    os.utime(mean, ns=(mean.stat().st_atime_ns, mean.stat().st_mtime_ns + 10**9))   # (a coarse clock's tick)
    bearoff._LOADED.clear()
    assert BearoffDatabase.load(3, folder) is not None and read.count("mean.npy") == 2
