"""The one-step recurrence for large one-sided databases (RACE.md, appendix), numba.

In a one-sided race every die can be played while a checker remains, so the
best play of a roll factors into single-checker steps.  With ``T_d(s)`` the
positions one step of die ``d`` away from ``s`` and ``V`` the expectation
being minimised, keep for every position and die

    M1_d(s) = min over T_d(s) of V,   M2_d(s) = min over T_d(s) of M1_d,
    M3_d(s) = min over T_d(s) of M2_d,

with the final position reaching each minimum.  Then a roll ``(a, b)`` is
played to ``min(min over T_a(p) of M1_b, min over T_b(p) of M1_a)`` and a
double ``(d, d)`` to ``min over T_d(p) of M3_d``: O(P) look-ups per position
and die instead of every ordering of every play.  Positions are processed in
index order (every step lowers the index).  Ties go to the smaller final index.

Three quantities use the same recurrence with their own terminal positions
(``mode``): 0, every checker off (the bear-off); 1, a checker off (mars or
gammon: meaningful for 15-checker positions); 2, every checker home (points
1-6: Long Nardy's home mars).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._bearoff_kernel import rank, step


@njit(cache=True)
def _terminal(row, P, mode):  # type: ignore[no-untyped-def]
    k = 0
    for p in range(P):
        k += row[p]
    if mode == 0:
        return k == 0
    if mode == 1:
        return k < 15
    for p in range(6, P):
        if row[p] > 0:
            return False
    return True


@njit(cache=True)
def build_fast(P, B, binom, mode, V, Dist, M, A):  # type: ignore[no-untyped-def]
    """Fill ``V`` (expected rolls) and ``Dist`` (P(done in exactly n rolls))
    for every position of ``B`` (index order) under ``mode``; ``M``/``A``
    (shape (3, 6, n), float32 / int32) are the recurrence's work arrays."""
    n = B.shape[0]
    L = Dist.shape[1]
    succ = np.zeros((7, P), np.int64)
    cnt = np.zeros(7, np.int64)
    c = np.zeros(P, np.int64)
    acc = np.zeros(L, np.float64)
    for i in range(n):
        for d in range(1, 7):
            cnt[d] = 0
            for p in range(1, P + 1):
                if B[i, p - 1] == 0:
                    continue
                for q in range(P):
                    c[q] = B[i, q]
                if step(c, P, p, d):
                    succ[d, cnt[d]] = rank(c, P, binom)
                    cnt[d] += 1
        if _terminal(B[i], P, mode):
            V[i] = 0.0
            Dist[i, 0] = 1.0
        else:
            e = 0.0
            acc[:] = 0.0
            for a in range(1, 7):
                for b in range(1, a + 1):
                    # one step of the first die, then the best of the rest: a
                    # double's three more steps (M3), or the other die's one (M1)
                    best = np.inf
                    choice = -1
                    level = 2 if a == b else 0
                    orders = 1 if a == b else 2
                    for o in range(orders):
                        first, second = (a, b) if o == 0 else (b, a)
                        for k in range(cnt[first]):
                            s = succ[first, k]
                            v = M[level, second - 1, s]
                            if v < best or (v == best and A[level, second - 1, s] < choice):
                                best, choice = v, A[level, second - 1, s]
                    w = orders / 36.0
                    e += w * V[choice]
                    for m in range(L - 1):
                        acc[m + 1] += w * Dist[choice, m]
            V[i] = 1.0 + e
            for m in range(L):
                Dist[i, m] = acc[m]
        # the recurrence's minima for this position, now that V[i] is final
        for d in range(1, 7):
            if cnt[d] == 0:  # no checker: nothing moves
                for level in range(3):
                    M[level, d - 1, i] = V[i]
                    A[level, d - 1, i] = i
                continue
            for level in range(3):
                best = np.inf
                choice = -1
                for k in range(cnt[d]):
                    s = succ[d, k]
                    if level == 0:
                        v = np.float32(V[s])
                        f = s
                    else:
                        v = M[level - 1, d - 1, s]
                        f = A[level - 1, d - 1, s]
                    if v < best or (v == best and f < choice):
                        best, choice = v, f
                M[level, d - 1, i] = best
                A[level, d - 1, i] = choice
