/* The networks' forward pass: the encoding of nardtools.analysis.nets
 * (encode, encode_race, encode_contact, encode_blocks) written as the few
 * inputs that are not zero, so that the first layer adds only their rows of
 * w1 (a position sets some thirty of its 198 inputs), a point's four read at
 * once from the network's point table, then the sigmoid hidden units and the
 * sigmoid outputs.  In float32, as the numpy reference, except the output
 * layer's sums, in double in both: the two differ by the order of their sums
 * and exp's last bits (the differential test holds 1e-6; Long Nardy 0.7's
 * outputs, summed in float, came 1.04e-6 from numpy's, in double 0.36e-6 from
 * an all-double reckoning where numpy's were 0.84e-6; with 1.1's, numpy's
 * summed in float came 0.99e-6 from it and 1.01e-6 from these, in double
 * 0.18e-6 and 0.24e-6). */

#include <stdint.h>
#include <string.h>
#include "net.h"

int net_inputs(int encoding)
{
    static const int inputs[NET_ENCODINGS] = {NET_INPUTS, NET_RACE_INPUTS, NET_CONTACT_INPUTS, NET_CONTACT_INPUTS,
                                              NET_BLOCKS_INPUTS};
    return encoding >= 0 && encoding < NET_ENCODINGS ? inputs[encoding] : 0;
}

/* The encoding's functions are compiled into each version of net_forward
 * (below: AVX2 beside the baseline), not called from the baseline's: 9% off a
 * contact network's forward pass on an AMD EPYC. */
#if defined(__GNUC__)
#define INLINE inline __attribute__((always_inline))
#else
#define INLINE inline
#endif

/* ------------------------------------------------------------------ contact features (nets.contact_features) */

static INLINE int longest_run(uint32_t m)
{
    int run = 0;
    for (; m; m &= m << 1) run++;
    return run;
}

/* nets._shots, in the victim's numbering, where the hitter moves up (a die
 * is a left shift): `src` the hitter's checkers (bit 0 its bar), `blot` and
 * `open` the victim's points with one checker and with fewer than two. */
static INLINE int shots(uint32_t src, int on_bar, uint32_t blot, uint32_t open)
{
    if (on_bar > 0) src = 1u;   /* from the bar only */
    const int combine = on_bar <= 1, steps = on_bar > 0 ? (5 - on_bar > 1 ? 5 - on_bar : 1) : 4;
    int count = 0;
    for (int a = 1; a <= 6; a++) {
        uint32_t m = src;   /* the double a-a: up to `steps` steps through open points */
        int hit = 0;
        for (int k = 1; k <= steps; k++) {
            m <<= a;
            hit |= (m & blot) != 0;
            m &= open;
        }
        count += hit;
        for (int b = a + 1; b <= 6; b++)   /* a-b and b-a */
            count += 2 * (((src << a) & blot) || ((src << b) & blot)
                          || (combine && ((((src << a) & open) << b | ((src << b) & open) << a) & blot)));
    }
    return count;
}

/* nets._rear_prime_behind: of the side `me` (its checkers `occupied` as bits, bit 25 its bar), its
 * rearmost checker's point, the longest run of `blocked` points in front of it, the lowest point of
 * the other side's checkers `theirs` (26: none), and its checkers above that point. */
typedef struct { int rear, prime, front, behind; } Reach;

static INLINE Reach reach(const signed char *me, uint32_t occupied, uint32_t blocked, uint32_t theirs)
{
    Reach r;
    r.rear = occupied ? 31 - __builtin_clz(occupied) : 0;
    r.prime = longest_run(blocked & ((1u << r.rear) - 2));
    r.front = theirs ? __builtin_ctz(theirs) : 26;
    r.behind = 0;
    for (int p = r.front + 1; p <= 25; p++) r.behind += me[p];
    return r;
}

/* nets._side_features: shots, prime, mobility, behind of the side `me` against `opp`. */
static INLINE void side_features(const signed char *me, const signed char *opp, int lng, float *out)
{
    /* the opponent's checkers at my numbering's points (its bar at 0): as bits, and held points */
    uint32_t theirs = 0, blocked = 0, occupied = 0, blot = 0, open = 0;
    if (!lng && opp[25] > 0) theirs = 1u;
    for (int p = 1; p <= 24; p++) {
        const int o = lng ? opp[(p + 11) % 24 + 1] : opp[25 - p];
        theirs |= (uint32_t)(o > 0) << p;
        blocked |= (uint32_t)(lng ? o > 0 : o >= 2) << p;
        occupied |= (uint32_t)(me[p] > 0) << p;
        blot |= (uint32_t)(me[p] == 1) << p;
        open |= (uint32_t)(me[p] < 2) << p;
    }
    occupied |= (uint32_t)(me[25] > 0) << 25;
    const Reach r = reach(me, occupied, blocked, theirs);
    int stuck = 0;   /* dice whose step from the rearmost checker lands on a held point */
    for (int d = 1; d <= 6; d++) stuck += r.rear - d >= 1 && (blocked >> (r.rear - d) & 1);
    const int mobile = r.rear > 0 ? 36 - stuck * stuck : 0;   /* a roll is stuck when both its dice are */
    /* (only a blot with one of the other side's in front of it can be hit) */
    const uint32_t exposed = r.front < 26 ? blot & ~((2u << r.front) - 1) : 0;
    const int shot = !lng && exposed ? shots(theirs & ~1u, opp[25], blot, open) : 0;
    out[0] = (float)shot / 36.0f;
    out[1] = (float)r.prime / 6.0f;
    out[2] = (float)mobile / 36.0f;
    out[3] = (float)r.behind / 15.0f;
}

/* ------------------------------------------------------------------ block features (nets.block_features) */

/* Points 1-24 as bits. */
#define BOARD_POINTS 0x1fffffeu

/* The checkers of `me` above the lowest run of `length` points of `held` (none without one). */
static INLINE int above_run(const signed char *me, uint32_t held, int length)
{
    uint32_t m = held;
    for (int i = 1; i < length; i++) m &= held >> i;
    if (!m) return 0;
    int count = 0;
    for (int p = __builtin_ctz(m) + length; p <= 24; p++) count += me[p];
    return count;
}

/* nets._block_side: prime, behind, held ahead, hemmed, shut in, dead dice,
 * behind a 4-block and a 5-block of the Long Nardy side `me` against `opp`. */
static INLINE void block_features(const signed char *me, const signed char *opp, float *out)
{
    uint32_t held = 0, occupied = 0;
    int home_only = 1;
    for (int p = 1; p <= 24; p++) {
        held |= (uint32_t)(opp[(p + 11) % 24 + 1] > 0) << p;
        occupied |= (uint32_t)(me[p] > 0) << p;
        home_only &= p <= 6 || me[p] <= 0;
    }
    occupied |= (uint32_t)(me[25] > 0) << 25;   /* (as the contact features: none in a game of Long Nardy) */
    const Reach r = reach(me, occupied, held, held);
    int ahead = 0, hemmed = 0, shut = 0, playable = 0;
    for (int p = 1; p <= 24; p++) {   /* (every point's count, as numpy's sums: a board may hold anything) */
        if (!me[p]) continue;
        const int low = p - 6 > 1 ? p - 6 : 1;   /* the points p-6 .. p-1 on the board */
        const int k = __builtin_popcount(held & ((1u << p) - 1) & ~((1u << low) - 1));
        ahead += me[p] * k;
        hemmed += k >= 3 ? me[p] : 0;
        shut += k >= 5 ? me[p] : 0;
    }
    const uint32_t points = occupied & BOARD_POINTS;
    for (int d = 1; d <= 6; d++)   /* a checker on p > d onto p - d not held, or one on p <= d off when all are home */
        playable += ((points >> d) & ~held & BOARD_POINTS) || (home_only && (points & ((2u << d) - 2)));
    out[0] = (float)r.prime / 6.0f;
    out[1] = (float)r.behind / 15.0f;
    out[2] = (float)ahead / 90.0f;
    out[3] = (float)hemmed / 15.0f;
    out[4] = (float)shut / 15.0f;
    out[5] = (float)(6 - playable) / 6.0f;
    out[6] = (float)above_run(me, held, 4) / 15.0f;
    out[7] = (float)above_run(me, held, 5) / 15.0f;
}

/* Each encoding's features a side, after the board's inputs (a race network's thermometer aside). */
static const int FEATURES[NET_ENCODINGS] = {0, 0, 4, 4, 8};

/* The inputs of one board's points: four a point and side, (side * 24 + p - 1) * 4 + q. */
#define POINT_INPUTS 192
/* A point's four inputs of k checkers, as one vector of w1 rows added up
 * (the table, NET_TABLE_ROWS): for each of 2 x 24 points and each k from 0 to TABLE_K. */
#define TABLE_K 15

/* The inputs of one board that are not zero, as (index, value) pairs:
 * with `points`, every input; without, only those beyond the points' (bar,
 * off, pips, and the encoding's extra inputs), the points left to the table. */
static INLINE int sparse_inputs(const signed char *board, int encoding, int points, int *index, float *value)
{
    int n = 0;
    const int race = encoding == NET_RACE;
    for (int side = 0; side < 2; side++) {
        const signed char *c = board + 26 * side;
        long pips = 0;
        for (int p = 1; p <= 24; p++) {   /* a point's four inputs written, as many kept as it has (no branch) */
            int k = c[p], base = side * 96 + (p - 1) * 4;
            pips += (long)k * p;
            if (!points) continue;
            index[n] = base;
            index[n + 1] = base + 1;
            index[n + 2] = base + 2;
            index[n + 3] = base + 3;
            value[n] = value[n + 1] = value[n + 2] = 1.0f;
            value[n + 3] = (float)(k - 3) / 2.0f;
            n += k <= 0 ? 0 : k >= 4 ? 4 : k;   /* (n stays under 4 x 48: the writes fit NET_MAX_INPUTS) */
        }
        pips += (long)c[25] * 25;
        if (c[25]) { index[n] = 192 + side; value[n++] = (float)c[25] / 2.0f; }
        if (c[0]) { index[n] = 194 + side; value[n++] = (float)c[0] / 15.0f; }
        if (pips) { index[n] = 196 + side; value[n++] = (float)pips / 100.0f; }
        if (race)
            for (int k = 1; k <= 15 && k <= c[0]; k++) { index[n] = NET_INPUTS + side * 15 + k - 1; value[n++] = 1.0f; }
        float f[8];   /* the encoding's features of the side, each side's after the board's inputs */
        const int features = FEATURES[encoding];
        if (encoding == NET_CONTACT_BACKGAMMON || encoding == NET_CONTACT_LONG)
            side_features(c, board + 26 * (1 - side), encoding == NET_CONTACT_LONG, f);
        else if (encoding == NET_BLOCKS_LONG)
            block_features(c, board + 26 * (1 - side), f);
        for (int k = 0; k < features; k++)
            if (f[k] != 0.0f) { index[n] = NET_INPUTS + side * features + k; value[n++] = f[k]; }
    }
    return n;
}

/* The table's vector of every point and count: k checkers' inputs' rows of
 * w1 added up in their order (1, 1, 1, then (k - 3) / 2 times the fourth). */
void net_point_table(const Net *net, float *table)
{
    const int hidden = net->hidden;
    for (int point = 0; point < POINT_INPUTS / 4; point++) {
        const float *w = net->w1 + (long long)point * 4 * hidden;
        float *t = table + (long long)point * (TABLE_K + 1) * hidden;
        memset(t, 0, sizeof *t * (size_t)hidden);
        for (int k = 1; k <= 3; k++)   /* one, two, three checkers: the first k inputs, each 1 */
            for (int j = 0; j < hidden; j++) t[k * hidden + j] = t[(k - 1) * hidden + j] + w[(k - 1) * hidden + j];
        for (int k = 4; k <= TABLE_K; k++)   /* more: the three, and the fourth at (k - 3) / 2 */
            for (int j = 0; j < hidden; j++)
                t[(long long)k * hidden + j] = t[3 * hidden + j] + (float)(k - 3) / 2.0f * w[3 * hidden + j];
    }
}

/* Each point's table vector of one board (offsets into the table), for
 * those that hold checkers; -1 when a point holds more than TABLE_K (the
 * board's inputs are then all summed one by one). */
static INLINE int point_rows(const signed char *board, int hidden, long long *rows)
{
    int m = 0;
    for (int side = 0; side < 2; side++)
        for (int p = 1; p <= 24; p++) {
            const int k = board[26 * side + p];
            if (k > TABLE_K) return -1;
            rows[m] = ((long long)(side * 24 + p - 1) * (TABLE_K + 1) + (k > 0 ? k : 0)) * hidden;
            m += k > 0;
        }
    return m;
}

/* The logistic function of z clipped to [-40, 40], as the reference's, in
 * float: exp by Cephes' method (2^n times a polynomial in the remainder),
 * written without calls so that the compiler vectorises the loops over the
 * hidden units (setup.py's -fno-trapping-math lets it if-convert the clip);
 * within 2 ulp of expf. */
static inline float sigmoid(float z)
{
    float x = -z;
    x = x < -40.0f ? -40.0f : x;
    x = x > 40.0f ? 40.0f : x;
    const float shift = 12582912.0f;                     /* 1.5 * 2^23: rounds to the nearest integer */
    float n = (x * 1.44269504088896341f + shift) - shift;
    float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r
               + 1.6666665459e-1f) * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    union { float f; int i; } scale = {.i = ((int)n + 127) << 23};
    return 1.0f / (1.0f + p * scale.f);
}

/* Eight floats as one value (GCC's vector extension: one AVX register, two SSE ones). */
typedef float v8 __attribute__((vector_size(32)));
typedef float v8u __attribute__((vector_size(32), aligned(4), may_alias));   /* ... read from any float */
typedef double v4d __attribute__((vector_size(32)));   /* four doubles: the output layer's sums */
/* Hidden units added up at once, in registers, input after input. */
#define HIDDEN_TILE 32

/* On x86-64 with GCC, a version for AVX2 beside the baseline's SSE2, chosen
 * when the module loads: the same operations in the same order, twice as
 * many lanes, so the same results.  Each unit adds its bias, then the table
 * vectors of the points that hold checkers, then the other inputs' products,
 * in their order, whether in a tile or the units left over. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
void net_forward(const Net *net, const signed char *boards, long long rows, float *out, float *h, const float *table)
{
    int index[NET_MAX_INPUTS];
    float value[NET_MAX_INPUTS];
    long long point[POINT_INPUTS / 4];
    const int hidden = net->hidden, outputs = net->outputs;
    for (long long r = 0; r < rows; r++) {
        const signed char *board = boards + 52 * r;
        int m = point_rows(board, hidden, point);   /* the points from the table, the rest one input at a time */
        int n = sparse_inputs(board, net->encoding, m < 0, index, value);
        if (m < 0) m = 0;
        const int tiled = hidden - hidden % HIDDEN_TILE;
        for (int j = 0; j < tiled; j += HIDDEN_TILE) {   /* a tile of units kept in registers */
            v8 a[HIDDEN_TILE / 8];
            memcpy(a, net->b1 + j, sizeof a);
            for (int i = 0; i < m; i++) {
                const v8u *t = (const v8u *)(table + point[i] + j);
                for (int q = 0; q < HIDDEN_TILE / 8; q++) a[q] += t[q];
            }
            for (int i = 0; i < n; i++) {
                const v8u *w = (const v8u *)(net->w1 + (long long)index[i] * hidden + j);
                const v8 v = {value[i], value[i], value[i], value[i], value[i], value[i], value[i], value[i]};
                for (int q = 0; q < HIDDEN_TILE / 8; q++) a[q] += v * w[q];
            }
            memcpy(h + j, a, sizeof a);
        }
        for (int j = tiled; j < hidden; j++) {
            float a = net->b1[j];
            for (int i = 0; i < m; i++) a += table[point[i] + j];
            for (int i = 0; i < n; i++) a += value[i] * net->w1[(long long)index[i] * hidden + j];
            h[j] = a;
        }
        for (int j = 0; j < hidden; j++) h[j] = sigmoid(h[j]);
        /* the outputs, padded to NET_MAX_OUTPUTS = 8: two vectors of four doubles (float sums of some
         * hundreds of products lose the last digit the differential test holds) */
        v4d lo = {net->b2[0], net->b2[1], net->b2[2], net->b2[3]}, hi = {net->b2[4], net->b2[5], net->b2[6], net->b2[7]};
        for (int j = 0; j < hidden; j++) {
            const double hj = h[j];
            const float *w = net->w2 + (long long)j * NET_MAX_OUTPUTS;
            lo += hj * (v4d){w[0], w[1], w[2], w[3]};
            hi += hj * (v4d){w[4], w[5], w[6], w[7]};
        }
        for (int k = 0; k < outputs; k++) out[r * outputs + k] = sigmoid((float)(k < 4 ? lo[k] : hi[k - 4]));
    }
}

void best_of_groups(const double *value, const int *counts, long long groups, int keep, unsigned char *out)
{
    int best[NET_MAX_KEEP];
    long long start = 0;
    for (long long g = 0; g < groups; start += counts[g], g++) {
        const int n = counts[g];
        if (n <= keep) {
            memset(out + start, 1, (size_t)n);
            continue;
        }
        memset(out + start, 0, (size_t)n);
        int kept = 0;   /* best[0..kept) in order: least value first, the earlier first among equals */
        for (int i = 0; i < n; i++) {
            const double v = value[start + i];
            if (kept == keep && !(v < value[start + best[kept - 1]])) continue;
            int at = kept < keep ? kept++ : kept - 1;
            while (at > 0 && v < value[start + best[at - 1]]) {
                best[at] = best[at - 1];
                at--;
            }
            best[at] = i;
        }
        for (int i = 0; i < kept; i++) out[start + best[i]] = 1;
    }
}
