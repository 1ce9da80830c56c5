"""The bear-off builders in plain Python: the readable reference of the
compiled core's (``csrc/bearoff.c``), with the same functions and
arguments, used when the core is absent and by the tests that hold the two
together (they agree to the bit).

Positions are count vectors on points 1..P (the 1-point first), ranked as GNU
Backgammon ranks them (:func:`..bearoff.position_index`).  In a one-sided race
a roll is played by single-checker steps (:func:`step`): a checker on point p
moves to p - d, or bears off when every checker is home (points 1-6) and either
d = p or no checker stands above p.

**The exact database** (RACE.md, appendix): every die can be played while a
checker remains, so the best play of a roll factors into steps.  With ``T_d(s)``
the positions one step of die ``d`` away from ``s`` and ``V`` the expected rolls,
keep for every position and die

    M1_d(s) = min over T_d(s) of V,   M2_d(s) = min over T_d(s) of M1_d,
    M3_d(s) = min over T_d(s) of M2_d,

with the final position reaching each minimum (ties: the smaller index).  A
roll ``(a, b)`` is played to ``min(min over T_a(p) of M1_b, min over T_b(p) of
M1_a)`` and a double ``(d, d)`` to ``min over T_d(p) of M3_d``.  Every step
lowers the index, so positions are final in index order.  Three quantities use
the recurrence with their own ends (``mode``): 0, every checker off; 1, a
checker off (gammon, mars: for 15 checkers); 2, every checker home (points 1-6:
Long Nardy's home mars).  The minima are kept in float32, as the core keeps them.

>>> from math import comb
>>> import numpy as np
>>> rows = np.zeros((comb(17, 15), 2), np.int8)
>>> bearoff_boards(2, rows)
>>> rows[:4].tolist()
[[0, 0], [1, 0], [0, 1], [2, 0]]
>>> mean, dist = np.zeros(len(rows)), np.zeros((len(rows), 16))
>>> bearoff_exact(2, 0, rows, mean, dist)       # columns used: 15 checkers may need 10 rolls
11
>>> round(float(mean[2]), 6), round(float(dist[2, 1]), 12)     # one checker on the 2-point: one roll
(1.0, 1.0)
"""

from __future__ import annotations

from math import comb

import numpy as np

_INF = float("inf")


def rank(c: list[int], P: int) -> int:
    """gnubg's one-sided index of the counts ``c`` on points 1..P."""
    k = sum(c)
    idx = comb(P + k - 1, k - 1) if k > 0 else 0
    low, i = 1, 0
    for p in range(1, P + 1):
        for _ in range(c[p - 1]):
            rest = k - i - 1
            idx += sum(comb(P - v + rest, rest) for v in range(low, p))
            low = p
            i += 1
    return idx


def step(c: list[int], P: int, p: int, d: int) -> bool:
    """Move one checker of ``c`` from point p with die d; False if it cannot."""
    if c[p - 1] == 0:
        return False
    t = p - d
    if t >= 1:
        c[p - 1] -= 1
        c[t - 1] += 1
        return True
    if any(c[q - 1] for q in range(7, P + 1)):  # bearing off needs every checker home
        return False
    if t < 0 and any(c[q - 1] for q in range(p + 1, min(P, 6) + 1)):
        return False
    c[p - 1] -= 1
    return True


def bearoff_boards(points: int, rows: np.ndarray) -> None:
    """Fill ``rows`` (positions x points) with every position of up to 15
    checkers in index order: by number of checkers, then the ascending list
    of their points in lexicographic order.  Row 0 is the empty position."""
    rows[:] = 0
    row = 1
    for k in range(1, 16):
        a = [0] * k
        while row < len(rows):
            for j in range(k):
                rows[row, a[j]] += 1
            row += 1
            i = k - 1
            while i >= 0 and a[i] == points - 1:
                i -= 1
            if i < 0:
                break
            a[i] += 1
            a[i + 1:] = [a[i]] * (k - i - 1)


def _successors(row: list[int], P: int) -> list[list[int]]:
    """For each die 1..6 (index 0 unused), the indices one step away."""
    out: list[list[int]] = [[]]
    for d in range(1, 7):
        found = []
        for p in range(1, P + 1):
            c = list(row)
            if c[p - 1] and step(c, P, p, d):
                found.append(rank(c, P))
        out.append(found)
    return out


def _done(row: list[int], mode: int) -> bool:
    if mode == 0:
        return sum(row) == 0
    if mode == 1:
        return sum(row) < 15
    return not any(row[6:])


def bearoff_exact(points: int, mode: int, rows: np.ndarray, mean: np.ndarray, dist: np.ndarray) -> int:
    """Fill ``mean`` (expected rolls) and ``dist`` (P(done in exactly m rolls))
    of every position under ``mode`` (see the module docstring); returns the
    columns of ``dist`` used (up to the last nonzero one)."""
    P, L = points, dist.shape[1]
    f32 = np.float32
    V: list[float] = []
    D: list[list[float]] = []
    M: list[list[list[float]]] = []  # M[s][level][d - 1]
    A: list[list[list[int]]] = []
    for i, row in enumerate(rows.tolist()):
        succ = _successors(row, P)
        acc = [0.0] * L
        if _done(row, mode):
            v = 0.0
            acc[0] = 1.0
        else:
            e = 0.0
            for a in range(1, 7):
                for b in range(1, a + 1):
                    best, choice = _INF, -1
                    level = 2 if a == b else 0
                    orders = [(a, b)] if a == b else [(a, b), (b, a)]
                    for one, other in orders:  # one step of a die, then the best of the rest
                        for s in succ[one]:
                            m, f = M[s][level][other - 1], A[s][level][other - 1]
                            if m < best or (m == best and f < choice):
                                best, choice = m, f
                    w = len(orders) / 36.0
                    e += w * V[choice]
                    for m in range(L - 1):
                        acc[m + 1] += w * D[choice][m]
            v = 1.0 + e
        V.append(v)
        D.append([float(dist.dtype.type(x)) for x in acc])  # as stored
        M.append([[0.0] * 6 for _ in range(3)])
        A.append([[0] * 6 for _ in range(3)])
        for d in range(1, 7):
            for level in range(3):
                if not succ[d]:  # no checker: nothing moves
                    best, choice = float(f32(v)), i
                else:
                    best, choice = _INF, -1
                    for s in succ[d]:
                        m, f = (float(f32(V[s])), s) if level == 0 else (M[s][level - 1][d - 1], A[s][level - 1][d - 1])
                        if m < best or (m == best and f < choice):
                            best, choice = m, f
                M[i][level][d - 1], A[i][level][d - 1] = best, choice
    mean[:] = V
    dist[:] = D
    return max(max((m for m, x in enumerate(row) if x), default=0) for row in D) + 1


def _better(e: float, t: float, best_e: float, best_t: float, by_key: bool) -> bool:
    """Less expectation, and on an exact tie the smaller key (gnubg's 16-bit
    quantised mean); ``by_key``: the smaller key alone (first found on a tie)."""
    if by_key:
        return t < best_t
    if e < best_e - 1e-12:
        return True
    return e <= best_e + 1e-12 and t < best_t


def _best_play(i: int, dice: list[int], succ: list[list[list[int]]], value: list[float], key: list[float],
               off: list[bool], by_key: bool) -> tuple[float, float, int]:
    """The least (value, key) over every way to play ``dice`` in that order from
    position i (a double: non-increasing sources); a die that cannot be played
    ends the way there; a position in ``off`` is worth 0.  Returns (value, key,
    index)."""
    best = (1e300, 1e300, -1)

    def visit(r: int, depth: int, top: int) -> None:
        nonlocal best
        if depth < len(dice) and r != 0:
            moved = False
            for p in range(top, 0, -1):
                nxt = succ[r][dice[depth]][p]
                if nxt >= 0:
                    moved = True
                    visit(nxt, depth + 1, p if len(dice) == 4 else len(succ[r][0]) - 1)
            if moved:
                return
        e, t = (0.0, 0.0) if off[r] else (value[r], key[r])
        if _better(e, t, best[0], best[1], by_key):
            best = (e, t, r)

    visit(i, 0, len(succ[i][0]) - 1)
    return best


def bearoff_gnubg(points: int, checkers: int, by_key: bool, rows: np.ndarray, mean: np.ndarray,
                  dist: np.ndarray, gammon_mean: np.ndarray, gammon_dist: np.ndarray) -> None:
    """The bear-off and first-off tables under GNU Backgammon's policy:
    every play walked, chosen by the 16-bit quantised means gnubg stores
    (``by_key``), or by exact means with the key breaking exact ties.  The
    quantised distributions keep gnubg's rounding (residue to the mode)."""
    P, n, L = points, len(rows), dist.shape[1]
    boards = rows.tolist()
    K = [sum(r) for r in boards]
    succ = []  # succ[i][d][p]: the index after a step, or -1 (d = 0 and p = 0 unused)
    for row in boards:
        table = [[-1] * (P + 1) for _ in range(7)]
        for d in range(1, 7):
            for p in range(1, P + 1):
                c = list(row)
                if c[p - 1] and step(c, P, p, d):
                    table[d][p] = rank(c, P)
        succ.append(table)
    E, EG, T = [0.0] * n, [0.0] * n, [0.0] * n
    D = [[0.0] * L for _ in range(n)]
    G = [[0.0] * L for _ in range(n)]
    Q = [[0] * L for _ in range(n)]
    D[0][0], Q[0][0] = 1.0, 65535
    never = [False] * n
    gone = [k < checkers for k in K]
    for i in range(1, n):
        full = K[i] == checkers
        e = eg = 0.0
        S = [0] * L
        for a in range(1, 7):
            for b in range(1, a + 1):
                weight = 1 if a == b else 2
                w = weight / 36.0
                best_e, best_t, j = 1e300, 1e300, -1
                best_g, jg = 1e300, -1
                for dice in ([a] * 4,) if a == b else ([a, b], [b, a]):
                    ee, tt, jj = _best_play(i, dice, succ, E, T, never, by_key)
                    if _better(ee, tt, best_e, best_t, by_key):
                        best_e, best_t, j = ee, tt, jj
                    if full:
                        gg, _, kk = _best_play(i, dice, succ, EG, EG, gone, False)
                        if gg < best_g:
                            best_g, jg = gg, kk
                e += w * E[j]
                for m in range(L - 1):
                    D[i][m + 1] += w * D[j][m]
                    S[m + 1] += weight * Q[j][m]
                if full:
                    if K[jg] < checkers:  # a checker comes off with this roll
                        G[i][1] += w
                    else:
                        eg += w * EG[jg]
                        for m in range(L - 1):
                            G[i][m + 1] += w * G[jg][m]
        E[i] = 1.0 + e
        Q[i] = [(s + 18) // 36 for s in S]
        mode = max(range(L), key=lambda m: (Q[i][m], -m))
        Q[i][mode] += 65535 - sum(Q[i])  # the rounding residue goes to the mode, as gnubg does
        T[i] = sum(float(m * q) for m, q in enumerate(Q[i])) / 65535.0
        if full:
            EG[i] = 1.0 + eg
        else:
            G[i][0] = 1.0
    G[0][0] = 1.0
    mean[:], dist[:], gammon_mean[:], gammon_dist[:] = E, D, EG, G


def _finals(row: list[int], dice: list[int]) -> list[int]:
    """The index of every position reachable by playing ``dice`` in order
    (a double: from non-increasing points, which reaches every result),
    repeats included; every die is played while a checker is left."""
    out: list[int] = []

    def visit(c: list[int], depth: int, top: int) -> None:
        if depth == len(dice) or sum(c) == 0:
            out.append(rank(c, 6))
            return
        for p in range(top, 0, -1):
            after = list(c)
            if c[p - 1] and step(after, 6, p, dice[depth]):
                visit(after, depth + 1, p if len(dice) == 4 else 6)

    visit(row, 0, 6)
    return out


def bearoff_two_sided(rows: np.ndarray, order: np.ndarray, win: np.ndarray) -> None:
    """``win[i, j]``: P(the side on roll with position i beats position j),
    the pairs taken in ``order`` (by total pips: a play lowers the total)."""
    m = len(rows)
    boards = rows.tolist()
    W = win.reshape(m, m)
    for idx in order.tolist():
        i, j = divmod(idx, m)
        if sum(boards[i]) == 0:
            W[i, j] = 1.0
            continue
        if sum(boards[j]) == 0:
            W[i, j] = 0.0
            continue
        total = 0.0
        for a in range(1, 7):
            for b in range(1, a + 1):
                ends = _finals(boards[i], [a] * 4) if a == b else _finals(boards[i], [a, b]) + _finals(boards[i], [b, a])
                best = max([0.0] + [1.0 if sum(boards[r]) == 0 else 1.0 - float(W[j, r]) for r in ends])
                total += (1 if a == b else 2) / 36.0 * best
        W[i, j] = total
