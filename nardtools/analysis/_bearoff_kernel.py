"""Bear-off helpers in numba: the one-sided index (``rank``, gnubg's), one
checker's step (``step``), every position in index order (``fill_boards``), and
the play-walking builder behind ``policy="gnubg"`` (``build``), which follows
GNU Backgammon's quantised choices and is checked against gnubg's own 6-point
tables only.  The exact databases come from :mod:`._bearoff_fast`.

Positions are count vectors on points 1..P.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def rank(c, P, binom):  # type: ignore[no-untyped-def]
    k = 0
    for p in range(P):
        k += c[p]
    idx = binom[P + k - 1, k - 1] if k > 0 else 0
    low = 1
    i = 0
    for p in range(1, P + 1):
        for _ in range(c[p - 1]):
            rest = k - i - 1
            for v in range(low, p):
                idx += binom[P - v + rest, rest]
            low = p
            i += 1
    return idx

@njit(cache=True)
def step(c, P, p, d):  # type: ignore[no-untyped-def]
    """Move one checker from point p with die d; False if it cannot."""
    if c[p - 1] == 0:
        return False
    t = p - d
    if t >= 1:
        c[p - 1] -= 1
        c[t - 1] += 1
        return True
    for q in range(7, P + 1):  # bearing off needs every checker home
        if c[q - 1] > 0:
            return False
    if t < 0:
        for q in range(p + 1, 7 if P >= 6 else P + 1):
            if c[q - 1] > 0:
                return False
    c[p - 1] -= 1
    return True

@njit(cache=True)
def sum_(c, P):  # type: ignore[no-untyped-def]
    s = 0
    for p in range(P):
        s += c[p]
    return s

@njit(cache=True)
def better(e, t, best_e, best_t, by_key):  # type: ignore[no-untyped-def]
    """The exact policy: less expectation, and on an exact tie the smaller key
    (gnubg's 16-bit quantised mean).  ``by_key``: gnubg's own policy, the
    smaller quantised mean (first found on a tie)."""
    if by_key:
        return t < best_t
    if e < best_e - 1e-12:
        return True
    return e <= best_e + 1e-12 and t < best_t

@njit(cache=True)
def build(P, B, binom, ncheck, E, D, EG, G, Q, T, by_key):  # type: ignore[no-untyped-def]
    """Fill E, D (bear-off) and EG, G (first checker off) for every position,
    in index order; Q and T keep gnubg's quantised distributions and means,
    used only to break exact ties as gnubg does."""
    dice = np.zeros(4, np.int64)
    succ, K = successors(P, B, binom)
    L = D.shape[1]
    D[0, 0] = 1.0
    Q[0, 0] = 65535
    S = np.zeros(L, np.int64)
    for i in range(1, B.shape[0]):
        full = sum_(B[i], P) == ncheck
        e = 0.0
        eg = 0.0
        S[:] = 0
        for a in range(1, 7):
            for b in range(1, a + 1):
                w = (1.0 if a == b else 2.0) / 36.0
                best_e, best_t, j = 1e300, 1e300, -1
                best_g, jg = 1e300, -1
                for order in range(1 if a == b else 2):
                    if a == b:
                        dice[:] = a
                        n = 4
                    else:
                        dice[0], dice[1] = (a, b) if order == 0 else (b, a)
                        n = 2
                    ee, tt, jj = best_by_index(i, P, dice, n, succ, K, E, T, ncheck, False, by_key)
                    if better(ee, tt, best_e, best_t, by_key):
                        best_e, best_t, j = ee, tt, jj
                    if full:
                        gg, _, kk = best_by_index(i, P, dice, n, succ, K, EG, EG, ncheck, True, False)
                        if gg < best_g:
                            best_g, jg = gg, kk
                e += w * E[j]
                for m in range(L - 1):
                    D[i, m + 1] += w * D[j, m]
                    S[m + 1] += (1 if a == b else 2) * Q[j, m]
                if full:
                    if sum_(B[jg], P) < ncheck:  # a checker comes off with this roll
                        G[i, 1] += w
                    else:
                        eg += w * EG[jg]
                        for m in range(L - 1):
                            G[i, m + 1] += w * G[jg, m]
        E[i] = 1.0 + e
        total = 0
        mode = 0
        for m in range(L):
            Q[i, m] = (S[m] + 18) // 36
            total += Q[i, m]
            if Q[i, m] > Q[i, mode]:
                mode = m
        Q[i, mode] += 65535 - total  # the rounding residue goes to the mode, as gnubg does
        t = 0.0
        for m in range(L):
            t += m * Q[i, m]
        T[i] = t / 65535.0
        if full:
            EG[i] = 1.0 + eg
        else:
            G[i, 0] = 1.0
    G[0, 0] = 1.0



@njit(cache=True)
def successors(P, B, binom):  # type: ignore[no-untyped-def]
    """``S[i, d, p]``: the index after moving a checker of position ``i`` from
    point p with die d, or -1; ``K[i]``: its number of checkers."""
    n = B.shape[0]
    S = np.full((n, 7, P + 1), -1, np.int32)
    K = np.zeros(n, np.int64)
    c = np.zeros(P, np.int64)
    for i in range(n):
        K[i] = sum_(B[i], P)
        for d in range(1, 7):
            for p in range(1, P + 1):
                if B[i, p - 1] == 0:
                    continue
                c[:] = B[i]
                if step(c, P, p, d):
                    S[i, d, p] = rank(c, P, binom)
    return S, K


@njit(cache=True)
def best_by_index(i0, P, dice, n, S, K, E, T, ncheck, gammon, by_key):  # type: ignore[no-untyped-def]
    """The successor with the least expectation over every way to play
    ``dice[:n]`` in that order (a double: non-increasing sources), walking the
    successor table.  Returns (expectation, key, index); a die that cannot be
    played ends the walk there."""
    best_e = 1e300
    best_t = 1e300
    best = -1
    at = np.zeros(5, np.int64)
    src = np.zeros(5, np.int64)
    played = np.zeros(5, np.bool_)
    at[0] = i0
    src[0] = P
    depth = 0
    while depth >= 0:
        r = at[depth]
        if depth == n or r == 0:
            e = 0.0 if (gammon and K[r] < ncheck) else E[r]
            t = 0.0 if (gammon and K[r] < ncheck) else T[r]
            if better(e, t, best_e, best_t, by_key):
                best_e, best_t, best = e, t, r
            depth -= 1
            continue
        p = src[depth]
        d = dice[depth]
        nxt = -1
        while p >= 1:
            nxt = S[r, d, p]
            if nxt >= 0:
                break
            p -= 1
        if p < 1:
            if not played[depth]:
                e = 0.0 if (gammon and K[r] < ncheck) else E[r]
                t = 0.0 if (gammon and K[r] < ncheck) else T[r]
                if better(e, t, best_e, best_t, by_key):
                    best_e, best_t, best = e, t, r
            played[depth] = False
            depth -= 1
            continue
        played[depth] = True
        src[depth] = p - 1
        depth += 1
        at[depth] = nxt
        played[depth] = False
        src[depth] = p if n == 4 else P
    return best_e, best_t, best


@njit(cache=True)
def fill_boards(B, P):  # type: ignore[no-untyped-def]
    """Fill ``B`` (positions x P, any integer type) with every position in
    index order: by number of checkers, then the ascending list of their points
    in lexicographic order.  Row 0 is the empty position."""
    row = 1
    a = np.zeros(15, np.int64)
    for k in range(1, 16):
        a[:k] = 0
        while True:
            for j in range(k):
                B[row, a[j]] += 1
            row += 1
            i = k - 1
            while i >= 0 and a[i] == P - 1:
                i -= 1
            if i < 0:
                break
            a[i] += 1
            for j in range(i + 1, k):
                a[j] = a[i]
    return B


def enumerate_boards(P: int, n: int, dtype: type = np.int64) -> np.ndarray:
    """Every position of up to 15 checkers on P points, in index order."""
    return fill_boards(np.zeros((n, P), dtype), P)  # type: ignore[no-any-return]
