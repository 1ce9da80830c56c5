"""Compiled legal-play generation (numba) for the common rule readings.

This is the hot path of playouts, replays and statistics.  It implements the
same rules as :mod:`nardtools.engine` for the readings whose outcome does not
depend on the order of steps (six-block judged at the end of the turn, no
Caucasian rule): a non-double is explored in both orders, a double with
non-increasing sources.  Every reachable end of turn is recorded by rank (dice
used; for one die, which die), the six-block rule and the first-turn head
exception filter them, and the highest rank with a legal play wins (the
maximum-dice and larger-die rules).  ``tests/test_kernel.py`` proves it equal to
the reference search of :mod:`nardtools.engine` on random positions.

Arrays use the engine's layout: index 0 off, 1..24 points, 25 bar.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# block modes
BLOCK_NONE, BLOCK_AHEAD, BLOCK_HOME = 0, 1, 2

ZOBRIST = np.random.default_rng(20261129).integers(1, 2**62, size=(27, 40), dtype=np.int64)


@njit(cache=True)
def _target(me, s, d, blocked, is_long, heads_left, exact):  # type: ignore[no-untyped-def]
    """Where die ``d`` takes a checker from ``s``: a point, 0 for off, -1 if illegal."""
    if me[s] <= 0 or (s != 25 and me[25] > 0):
        return -1
    t = s - d
    if t >= 1:
        if blocked[t] or (is_long and s == 24 and heads_left <= 0):
            return -1
        return t
    for p in range(7, 26):
        if me[p] > 0:
            return -1
    if t < 0:
        if exact:
            return -1
        for p in range(s + 1, 7):
            if me[p] > 0:
                return -1
    return 0


@njit(cache=True)
def _block_ok(me, opp, qmap, mode, mover_path):  # type: ignore[no-untyped-def]
    """The six-block rule on the mover's array ``me`` (see engine._Turn.block_ok)."""
    if mode == BLOCK_NONE:
        return True
    if mover_path:
        for hi in range(24, 5, -1):
            lo = hi - 5
            full = True
            for p in range(lo, hi + 1):
                if me[p] == 0:
                    full = False
                    break
            if not full:
                continue
            past = False
            if mode == BLOCK_HOME:
                a, b = 1, 7
            elif lo >= 13:
                a, b = 1, lo - 12
            elif hi <= 12:
                a, b = 1, lo + 12
            else:
                a, b = hi - 11, lo + 12
            for q in range(a, b):
                if opp[q] > 0:
                    past = True
                    break
            if not past:
                return False
        return True
    occupied = np.zeros(26, np.bool_)
    for p in range(1, 25):
        if me[p] > 0:
            occupied[qmap[p]] = True
    run = 0
    for q in range(1, 26):
        if q <= 24 and occupied[q]:
            run += 1
            continue
        if run >= 6 and opp[0] == 0:
            lo = q - run
            ok = False
            a, b = (1, 7) if mode == BLOCK_HOME else (1, lo)
            for x in range(a, b):
                if opp[x] > 0:
                    ok = True
                    break
            if not ok:
                return False
        run = 0
    return True


CAP = 4096  # distinct (rank, end of turn) pairs one roll can reach, at most
TSIZE = 4 * CAP  # hash table slots, a power of two


class Workspace:
    """Buffers the kernel reuses between calls (one per thread)."""

    def __init__(self) -> None:
        self.table = np.zeros(TSIZE, np.int64)  # stamp * CAP + index + 1
        self.stamp = np.zeros(1, np.int64)
        self.finals = np.empty((CAP, 26), np.int8)
        self.hitm = np.empty(CAP, np.int64)
        self.rank = np.empty(CAP, np.int64)
        self.steps = np.empty((CAP, 4, 3), np.int8)
        self.nst = np.empty(CAP, np.int64)
        self.chosen = np.empty(CAP, np.int64)


@njit(cache=True)
def generate(me0, opp, params, table, stamp, finals, hitm, rank, steps, nst, chosen,  # type: ignore[no-untyped-def]
             zobrist):
    """Legal plays of one roll, written into the workspace buffers.

    ``params``: is_long, hitting, d1, d2, head_limit, base_limit, general, exact,
    block_mode, mover_path.  Returns the number ``n`` of legal plays; their rows
    are ``chosen[:n]`` in ``finals`` (the mover's array after the play),
    ``hitm`` (points hit, bit mask), ``steps`` (``source, target, hit``), ``nst``
    (steps) and ``rank`` (dice used * 8).  ``-1`` means the buffers were too
    small and the caller must use the reference search.
    """
    is_long, hitting, d1, d2 = params[0] != 0, params[1] != 0, params[2], params[3]
    head_limit, base_limit, general, exact = params[4], params[5], params[6] != 0, params[7] != 0
    block_mode, mover_path = params[8], params[9] != 0
    cap = finals.shape[0]
    tsize = table.shape[0]
    stamp[0] += 1
    mark = stamp[0] * cap
    qmap = np.zeros(26, np.int64)
    blocked = np.zeros(26, np.bool_)
    blot = np.zeros(26, np.bool_)
    need = 2 if hitting else 1
    for p in range(1, 25):
        q = (p + 12 if p <= 12 else p - 12) if is_long else 25 - p
        qmap[p] = q
        blocked[p] = opp[q] >= need
        blot[p] = hitting and opp[q] == 1
    double = d1 == d2
    count = 0
    me = me0.copy()
    h = np.int64(0)
    for p in range(26):
        h ^= zobrist[p, me[p]]
    path = np.zeros((4, 3), np.int64)
    start_head = me0[24]
    order = np.zeros((2, 4), np.int64)  # the dice in the order they are tried
    norders = 1
    nd = 4 if double else 2
    order[0, 0], order[0, 1], order[0, 2], order[0, 3] = d1, d2, d1, d2
    if not double:
        norders = 2
        order[1, 0], order[1, 1] = d2, d1
    hits = np.int64(0)
    # the root: no dice played
    table[(h ^ zobrist[26, 0]) & (tsize - 1)] = mark + 1
    finals[0, :] = me
    hitm[0] = 0
    rank[0] = 0
    nst[0] = 0
    count = 1
    src = np.zeros(4, np.int64)  # next source to try at each depth, descending
    for o in range(norders):
        depth = 0
        src[0] = 25
        while True:
            d = order[o, depth]
            s = src[depth]
            t = -1
            while s >= 1:
                t = _target(me, s, d, blocked, is_long, head_limit - (start_head - me[24]), exact)
                if t >= 0:
                    break
                s -= 1
            if s < 1:  # nothing more at this depth: back up one step
                if depth == 0:
                    break
                depth -= 1
                ps, pt = path[depth, 0], path[depth, 1]
                h ^= zobrist[ps, me[ps]] ^ zobrist[pt, me[pt]]
                me[ps] += 1
                me[pt] -= 1
                h ^= zobrist[ps, me[ps]] ^ zobrist[pt, me[pt]]
                if path[depth, 2]:
                    hits ^= np.int64(1) << pt
                src[depth] = ps - 1
                continue
            hit = 1 if (t >= 1 and blot[t] and not (hits >> t) & 1) else 0
            h ^= zobrist[s, me[s]] ^ zobrist[t, me[t]]
            me[s] -= 1
            me[t] += 1
            h ^= zobrist[s, me[s]] ^ zobrist[t, me[t]]
            if hit:
                hits ^= np.int64(1) << t
            path[depth, 0], path[depth, 1], path[depth, 2] = s, t, hit
            used = depth + 1
            r = used * 8 + (d if (used == 1 and not double) else 0)
            slot = (h ^ zobrist[26, r] ^ (hits * 1000003)) & (tsize - 1)
            while True:  # open addressing on (rank, position, hits)
                idx = table[slot] - mark - 1
                if idx < 0 or idx >= cap:  # empty slot (or one from an earlier call)
                    if count >= cap:
                        return -1
                    table[slot] = mark + count + 1
                    finals[count, :] = me
                    hitm[count] = hits
                    rank[count] = r
                    for i in range(used):
                        steps[count, i, 0] = path[i, 0]
                        steps[count, i, 1] = path[i, 1]
                        steps[count, i, 2] = path[i, 2]
                    nst[count] = used
                    count += 1
                    break
                if rank[idx] == r and hitm[idx] == hits and np.all(finals[idx] == me):
                    break
                slot = (slot + 1) & (tsize - 1)
            if used < nd:  # go deeper: a double continues from the same source down
                depth += 1
                src[depth] = s if double else 25
                continue
            h ^= zobrist[s, me[s]] ^ zobrist[t, me[t]]
            me[s] += 1
            me[t] -= 1
            h ^= zobrist[s, me[s]] ^ zobrist[t, me[t]]
            if hit:
                hits ^= np.int64(1) << t
            src[depth] = s - 1
    # selection: highest rank with a legal play
    full = nd * 8
    restrict = False
    if general:
        for i in range(count):
            if rank[i] == full and start_head - finals[i, 24] <= base_limit:
                if _block_ok(finals[i], opp, qmap, block_mode, mover_path):
                    restrict = True
                    break
    n = 0
    for r in range(full + 6, -1, -1):
        n = 0
        for i in range(count):
            if rank[i] != r:
                continue
            if restrict and start_head - finals[i, 24] > base_limit:
                continue
            if _block_ok(finals[i], opp, qmap, block_mode, mover_path):
                chosen[n] = i
                n += 1
        if n > 0:
            break
    return n


@njit(cache=True)
def chosen_rows(n, chosen, finals, hitm, steps, nst, rank):  # type: ignore[no-untyped-def]
    """Copies of the ``n`` chosen rows, out of the reusable workspace."""
    f = np.empty((n, 26), np.int8)
    hm = np.empty(n, np.int64)
    st = np.empty((n, 4, 3), np.int8)
    ns = np.empty(n, np.int64)
    dice = np.empty(n, np.int64)
    for j in range(n):
        i = chosen[j]
        f[j] = finals[i]
        hm[j] = hitm[i]
        st[j] = steps[i]
        ns[j] = nst[i]
        dice[j] = rank[i] // 8
    return f, hm, st, ns, dice
