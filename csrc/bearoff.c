/*
 * Bear-off databases in C: the one-step recurrence of the exact one-sided
 * databases (RACE.md, appendix), the play-walking builder of GNU
 * Backgammon's quantised policy, and exact two-sided races.  The readable
 * reference is nardtools/analysis/_bearoff_reference.py, step for step; the
 * tests compare both on small databases, and the databases with gnubg's.
 *
 * A one-sided race is played by one checker's steps: a checker on point p
 * moves to p - d, or bears off when every checker is home (points 1-6) and
 * either d = p or no checker stands above p.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bearoff.h"

#define MAXP 12
#define LEVELS 3      /* the recurrence's minima: after 1, 2 and 3 more steps of one die */
#define WORK (LEVELS * 6)

typedef struct { int P; long long C[40][20]; } Index;

/* A minimum of the recurrence: the least mean and the final position reaching it. */
typedef struct { float mean; int32_t at; } Best;

static void index_init(Index *ix, int P)
{
    memset(ix, 0, sizeof *ix);
    ix->P = P;
    for (int a = 0; a < 40; a++) {
        ix->C[a][0] = 1;
        for (int b = 1; b < 20 && b <= a; b++) ix->C[a][b] = ix->C[a - 1][b - 1] + (b < a ? ix->C[a - 1][b] : 0);
    }
}

/* gnubg's one-sided index: by the number of checkers, then the ascending
 * list of their points, lexicographically (bearoff.position_index). */
static long long rank(const Index *ix, const int *c)
{
    int P = ix->P, k = 0;
    for (int p = 0; p < P; p++) k += c[p];
    long long idx = k > 0 ? ix->C[P + k - 1][k - 1] : 0;
    int low = 1, i = 0;
    for (int p = 1; p <= P; p++)
        for (int j = 0; j < c[p - 1]; j++) {
            int rest = k - i - 1;
            for (int v = low; v < p; v++) idx += ix->C[P - v + rest][rest];
            low = p;
            i++;
        }
    return idx;
}

/* Move one checker from point p with die d; 0 when it cannot. */
static int step(int *c, int P, int p, int d)
{
    if (c[p - 1] == 0) return 0;
    int t = p - d;
    if (t >= 1) {
        c[p - 1]--;
        c[t - 1]++;
        return 1;
    }
    for (int q = 7; q <= P; q++) if (c[q - 1] > 0) return 0;  /* bearing off needs every checker home */
    if (t < 0)
        for (int q = p + 1; q <= (P >= 6 ? 6 : P); q++) if (c[q - 1] > 0) return 0;
    c[p - 1]--;
    return 1;
}

static int checkers(const signed char *row, int P)
{
    int k = 0;
    for (int p = 0; p < P; p++) k += row[p];
    return k;
}

static void load(int *c, const signed char *row, int P)
{
    for (int p = 0; p < P; p++) c[p] = row[p];
}

static double get(const Rows *t, long long row, int col)
{
    size_t i = (size_t)row * (size_t)t->cols + (size_t)col;
    return t->single ? (double)((float *)t->data)[i] : ((double *)t->data)[i];
}

static void put(const Rows *t, long long row, int col, double v)
{
    size_t i = (size_t)row * (size_t)t->cols + (size_t)col;
    if (t->single) ((float *)t->data)[i] = (float)v;
    else ((double *)t->data)[i] = v;
}

void bearoff_fill(signed char *rows, long long n, int P)
{
    long long row = 1;
    int a[15];
    for (int k = 1; k <= 15; k++) {
        memset(a, 0, sizeof a);
        for (;;) {
            if (row >= n) return;
            for (int j = 0; j < k; j++) rows[row * P + a[j]]++;
            row++;
            int i = k - 1;
            while (i >= 0 && a[i] == P - 1) i--;
            if (i < 0) break;
            a[i]++;
            for (int j = i + 1; j < k; j++) a[j] = a[i];
        }
    }
}

static int terminal(const signed char *row, int P, int mode)
{
    if (mode == 0) return checkers(row, P) == 0;
    if (mode == 1) return checkers(row, P) < 15;
    for (int p = 6; p < P; p++) if (row[p] > 0) return 0;
    return 1;
}

/* The one-step recurrence: with T_d(s) the positions one step of die d away
 * from s, M[s][level][d] is the least mean over level + 1 further steps of d
 * and A the final position reaching it (ties: the smaller index).  A roll
 * (a, b) is played to the best of T_a(p) then M1_b, or T_b(p) then M1_a; a
 * double (d, d) to the best of T_d(p) then M3_d.  Every step lowers the
 * index, so positions are final in index order.  Distributions are summed
 * only over the columns a successor's row has (lo..hi), which adds exactly
 * what summing the zeros would. */
int bearoff_exact(const BoardList *b, int mode, double *V, Rows dist, int (*interrupted)(void))
{
    const int P = b->points, L = dist.cols;
    const long long n = b->n;
    Index ix;
    index_init(&ix, P);
    Best *M = malloc((size_t)n * WORK * sizeof *M);   /* M[s * WORK + level * 6 + d - 1] */
    unsigned char *lo = malloc((size_t)n), *hi = malloc((size_t)n);
    double *acc = calloc((size_t)L, sizeof *acc);
    int result = 1;   /* the columns used so far */
    if (!M || !lo || !hi || !acc) { result = 0; goto done; }
    long long succ[7][MAXP];
    int cnt[7], c[MAXP];
    for (long long i = 0; i < n; i++) {
        if (interrupted && (i & 0xffff) == 0 && interrupted()) { result = -1; goto done; }
        const signed char *row = b->rows + i * P;
        for (int d = 1; d <= 6; d++) {
            cnt[d] = 0;
            for (int p = 1; p <= P; p++) {
                if (!row[p - 1]) continue;
                load(c, row, P);
                if (step(c, P, p, d)) succ[d][cnt[d]++] = rank(&ix, c);
            }
        }
        int first_col = 0, last_col = 0;
        if (terminal(row, P, mode)) {
            V[i] = 0.0;
            acc[0] = 1.0;
        } else {
            double e = 0.0;
            first_col = L;
            for (int a = 1; a <= 6; a++)
                for (int bb = 1; bb <= a; bb++) {
                    float best = INFINITY;
                    int32_t choice = -1;
                    int level = a == bb ? 2 : 0, orders = a == bb ? 1 : 2;
                    for (int o = 0; o < orders; o++) {
                        int one = o ? bb : a, other = o ? a : bb;
                        for (int k = 0; k < cnt[one]; k++) {
                            Best m = M[(size_t)succ[one][k] * WORK + (size_t)(level * 6 + other - 1)];
                            if (m.mean < best || (m.mean == best && m.at < choice)) best = m.mean, choice = m.at;
                        }
                    }
                    if (choice < 0) continue;  /* unreachable: the rearmost checker always moves */
                    double w = orders / 36.0;
                    e += w * V[choice];
                    int top = hi[choice] < L - 1 ? hi[choice] : L - 2;
                    for (int m = lo[choice]; m <= top; m++) acc[m + 1] += w * get(&dist, choice, m);
                    if (lo[choice] + 1 < first_col) first_col = lo[choice] + 1;
                    if (top + 1 > last_col) last_col = top + 1;
                }
            V[i] = 1.0 + e;
        }
        while (first_col < last_col && acc[first_col] == 0.0) first_col++;
        while (last_col > first_col && acc[last_col] == 0.0) last_col--;
        for (int m = 0; m < L; m++) put(&dist, i, m, acc[m]);
        memset(acc, 0, (size_t)L * sizeof *acc);
        lo[i] = (unsigned char)first_col;
        hi[i] = (unsigned char)last_col;
        if (last_col + 1 > result) result = last_col + 1;
        for (int d = 1; d <= 6; d++)
            for (int level = 0; level < LEVELS; level++) {
                size_t at = (size_t)i * WORK + (size_t)(level * 6 + d - 1);
                if (cnt[d] == 0) {  /* no checker: nothing moves */
                    M[at] = (Best){(float)V[i], (int32_t)i};
                    continue;
                }
                float best = INFINITY;
                int32_t choice = -1;
                for (int k = 0; k < cnt[d]; k++) {
                    long long s = succ[d][k];
                    float v;
                    int32_t f;
                    if (level == 0) {
                        v = (float)V[s];
                        f = (int32_t)s;
                    } else {
                        Best m = M[(size_t)s * WORK + (size_t)((level - 1) * 6 + d - 1)];
                        v = m.mean;
                        f = m.at;
                    }
                    if (v < best || (v == best && f < choice)) best = v, choice = f;
                }
                M[at] = (Best){best, choice};
            }
    }
done:
    free(M);
    free(lo);
    free(hi);
    free(acc);
    return result;
}

/* ------------------------------------------------- gnubg's quantised policy */

typedef struct {
    int P, ncheck, by_key;
    const int32_t *S;   /* S[(i * 7 + d) * (P + 1) + p]: the index after a step, or -1 */
    const int *K;       /* checkers of each position */
} Walk;

/* Less expectation, and on an exact tie the smaller key (gnubg's quantised
 * mean); with by_key, the smaller key alone (first found on a tie). */
static int better(double e, double t, double best_e, double best_t, int by_key)
{
    if (by_key) return t < best_t;
    if (e < best_e - 1e-12) return 1;
    return e <= best_e + 1e-12 && t < best_t;
}

/* The successor with the least expectation over every way to play dice[:n]
 * in that order (a double: non-increasing sources); a die that cannot be
 * played ends the walk there.  gammon: a checker off is worth 0. */
static long long best_play(const Walk *w, long long i0, const int *dice, int n, const double *E, const double *T,
                           int gammon, int by_key, double *out_e, double *out_t)
{
    double best_e = 1e300, best_t = 1e300;
    long long best = -1, at[5] = {i0};
    int src[5] = {w->P}, played[5] = {0}, depth = 0;
    const int stride = w->P + 1;
    while (depth >= 0) {
        long long r = at[depth];
        int evaluate = 0;
        if (depth == n || r == 0) {
            evaluate = 1;
        } else {
            int p = src[depth], d = dice[depth];
            long long next = -1;
            for (; p >= 1; p--) {
                next = w->S[(r * 7 + d) * stride + p];
                if (next >= 0) break;
            }
            if (p >= 1) {
                played[depth] = 1;
                src[depth] = p - 1;
                depth++;
                at[depth] = next;
                played[depth] = 0;
                src[depth] = n == 4 ? p : w->P;
                continue;
            }
            evaluate = !played[depth];
            played[depth] = 0;
        }
        if (evaluate) {
            int off = gammon && w->K[r] < w->ncheck;
            double e = off ? 0.0 : E[r], t = off ? 0.0 : T[r];
            if (better(e, t, best_e, best_t, by_key)) best_e = e, best_t = t, best = r;
        }
        depth--;
    }
    *out_e = best_e;
    *out_t = best_t;
    return best;
}

int bearoff_gnubg(const BoardList *b, int ncheck, int L, int by_key,
                  double *E, double *D, double *EG, double *G)
{
    const int P = b->points, stride = P + 1;
    const long long n = b->n;
    Index ix;
    index_init(&ix, P);
    int32_t *S = malloc((size_t)n * 7 * (size_t)stride * sizeof *S);
    int *K = malloc((size_t)n * sizeof *K);
    int64_t *Q = calloc((size_t)n * (size_t)L, sizeof *Q);
    double *T = calloc((size_t)n, sizeof *T);
    int64_t *sum = calloc((size_t)L, sizeof *sum);
    int ok = S && K && Q && T && sum;
    if (!ok) goto done;
    memset(E, 0, (size_t)n * sizeof *E);
    memset(EG, 0, (size_t)n * sizeof *EG);
    memset(D, 0, (size_t)n * (size_t)L * sizeof *D);
    memset(G, 0, (size_t)n * (size_t)L * sizeof *G);
    int c[MAXP];
    for (long long i = 0; i < n; i++) {
        const signed char *row = b->rows + i * P;
        K[i] = checkers(row, P);
        for (int d = 0; d <= 6; d++)
            for (int p = 0; p <= P; p++) {
                int32_t *s = &S[(i * 7 + d) * stride + p];
                *s = -1;
                if (d == 0 || p == 0 || !row[p - 1]) continue;
                load(c, row, P);
                if (step(c, P, p, d)) *s = (int32_t)rank(&ix, c);
            }
    }
    Walk w = {P, ncheck, by_key, S, K};
    D[0] = 1.0;
    Q[0] = 65535;
    for (long long i = 1; i < n; i++) {
        int full = K[i] == ncheck;
        double e = 0.0, eg = 0.0;
        memset(sum, 0, (size_t)L * sizeof *sum);
        for (int a = 1; a <= 6; a++)
            for (int bb = 1; bb <= a; bb++) {
                int weight = a == bb ? 1 : 2;
                double wt = weight / 36.0;
                double best_e = 1e300, best_t = 1e300, best_g = 1e300;
                long long j = -1, jg = -1;
                for (int order = 0; order < (a == bb ? 1 : 2); order++) {
                    int dice[4] = {a, a, a, a}, nd = 4;
                    if (a != bb) {
                        dice[0] = order ? bb : a;
                        dice[1] = order ? a : bb;
                        nd = 2;
                    }
                    double ee, tt, gg, unused;
                    long long jj = best_play(&w, i, dice, nd, E, T, 0, by_key, &ee, &tt);
                    if (better(ee, tt, best_e, best_t, by_key)) best_e = ee, best_t = tt, j = jj;
                    if (full) {
                        long long kk = best_play(&w, i, dice, nd, EG, EG, 1, 0, &gg, &unused);
                        if (gg < best_g) best_g = gg, jg = kk;
                    }
                }
                e += wt * E[j];
                for (int m = 0; m < L - 1; m++) {
                    D[i * L + m + 1] += wt * D[j * L + m];
                    sum[m + 1] += weight * Q[j * L + m];
                }
                if (full) {
                    if (K[jg] < ncheck) {  /* a checker comes off with this roll */
                        G[i * L + 1] += wt;
                    } else {
                        eg += wt * EG[jg];
                        for (int m = 0; m < L - 1; m++) G[i * L + m + 1] += wt * G[jg * L + m];
                    }
                }
            }
        E[i] = 1.0 + e;
        int64_t total = 0;
        int mode = 0;
        for (int m = 0; m < L; m++) {
            Q[i * L + m] = (sum[m] + 18) / 36;
            total += Q[i * L + m];
            if (Q[i * L + m] > Q[i * L + mode]) mode = m;
        }
        Q[i * L + mode] += 65535 - total;  /* the rounding residue goes to the mode, as gnubg does */
        double t = 0.0;
        for (int m = 0; m < L; m++) t += (double)(m * Q[i * L + m]);
        T[i] = t / 65535.0;
        if (full) EG[i] = 1.0 + eg;
        else G[i * L] = 1.0;
    }
    G[0] = 1.0;
done:
    free(S);
    free(K);
    free(Q);
    free(T);
    free(sum);
    return ok;
}

/* ------------------------------------------------------ two-sided races */

/* Every position reachable by playing dice[:n] in order (doubles: from
 * non-increasing points, which reaches every result), repeats included. */
static int finals(const Index *ix, const signed char *row, const int *dice, int n, long long *out)
{
    const int P = ix->P;
    int work[5][MAXP], top[5], count = 0, depth = 0;
    load(work[0], row, P);
    for (int k = 0; k < 5; k++) top[k] = P;
    while (depth >= 0) {
        int left = 0;
        for (int p = 0; p < P; p++) left += work[depth][p];
        if (depth == n || left == 0) {
            out[count++] = rank(ix, work[depth]);
            depth--;
            continue;
        }
        int moved = 0;
        while (top[depth] >= 1) {
            int p = top[depth]--;
            if (!work[depth][p - 1]) continue;
            memcpy(work[depth + 1], work[depth], sizeof work[0]);
            if (step(work[depth + 1], P, p, dice[depth])) {
                top[depth + 1] = n == 4 ? p : P;
                depth++;
                moved = 1;
                break;
            }
        }
        if (!moved) {
            top[depth] = P;
            depth--;
        }
    }
    return count;
}

int bearoff_two_sided(const signed char *rows, long long m, const int64_t *order, double *W)
{
    Index ix;
    index_init(&ix, 6);
    long long *out = malloc(4096 * sizeof *out);
    if (!out) return 0;
    for (long long k = 0; k < m * m; k++) {
        long long i = order[k] / m, j = order[k] % m;
        if (checkers(rows + i * 6, 6) == 0) { W[i * m + j] = 1.0; continue; }
        if (checkers(rows + j * 6, 6) == 0) { W[i * m + j] = 0.0; continue; }
        double total = 0.0;
        for (int a = 1; a <= 6; a++)
            for (int bb = 1; bb <= a; bb++) {
                int cnt, orders;
                if (a == bb) {
                    int dice[4] = {a, a, a, a};
                    cnt = finals(&ix, rows + i * 6, dice, 4, out);
                    orders = 1;
                } else {
                    int ab[2] = {a, bb}, ba[2] = {bb, a};
                    cnt = finals(&ix, rows + i * 6, ab, 2, out);
                    cnt += finals(&ix, rows + i * 6, ba, 2, out + cnt);
                    orders = 2;
                }
                double best = 0.0;
                for (int t = 0; t < cnt; t++) {
                    long long r = out[t];
                    double v = checkers(rows + r * 6, 6) == 0 ? 1.0 : 1.0 - W[j * m + r];
                    if (v > best) best = v;
                }
                total += (orders / 36.0) * best;
            }
        W[i * m + j] = total;
    }
    free(out);
    return 1;
}
