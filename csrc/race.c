/*
 * Races in C: whether a position is one (nardtools.analysis.pips.is_race),
 * the one-sided bear-off index (gnubg's, bearoff.position_index), and the
 * exact race equity of the side on roll from the one-sided distributions
 * (analysis.annotate.race_equity over analysis.race.race_odds).
 */

#include "race.h"

int is_race(const Rules *r, const Board *b)
{
    int rear_me = 0, rear_opp = 0;
    for (int p = 25; p >= 1 && !rear_me; p--) if (b->me[p]) rear_me = p;
    for (int p = 25; p >= 1 && !rear_opp; p--) if (b->opp[p]) rear_opp = p;
    if (!rear_me || !rear_opp) return 1;
    if (!r->v[R_LONG]) return rear_me + rear_opp < 25;
    return rear_me <= 12 && rear_opp <= 12;
}

static int side_fits(const signed char *side, int points)
{
    if (side[BAR]) return 0;
    for (int p = points + 1; p <= 24; p++) if (side[p]) return 0;
    return 1;
}

static long long binom(int a, int b)
{
    if (b < 0 || b > a) return 0;
    long long c = 1;
    for (int i = 1; i <= b; i++) c = c * (a - b + i) / i;
    return c;
}

/* gnubg's one-sided index of counts on points 1..P: by the number of
 * checkers, then the ascending list of their points, lexicographically. */
long long bearoff_index(const signed char *counts, int P)
{
    int k = 0;
    for (int p = 0; p < P; p++) k += counts[p];
    long long idx = k > 0 ? binom(P + k - 1, k - 1) : 0;
    int low = 1, i = 0;
    for (int p = 1; p <= P; p++)
        for (int c = 0; c < counts[p - 1]; c++) {
            int rest = k - i - 1;
            for (int v = low; v < p; v++) idx += binom(P - v + rest, rest);
            low = p;
            i++;
        }
    return idx;
}

static double at(const Table *t, long long row, int col)
{
    if (col >= t->cols) return 0.0;
    size_t i = (size_t)row * (size_t)t->cols + (size_t)col;
    return t->single ? (double)((const float *)t->data)[i] : ((const double *)t->data)[i];
}

/* One side's distributions of rolls: all off (dist), to the first checker off
 * (first) and to all home (home); for a side with a checker off already the
 * last two are a point mass at 0 (no gammon or mars can happen to it). */
static void side_dists(const RaceTables *db, const signed char *side, double *dist, double *first, double *home)
{
    long long i = bearoff_index(side + 1, db->points);
    int full = side[0] == 0;   /* nothing off, whatever the number of checkers (race.race_odds) */
    for (int m = 0; m < MAX_ROLLS; m++) {
        dist[m] = at(&db->dist, i, m);
        first[m] = full ? at(&db->gammon, i, m) : (m == 0);
        home[m] = full ? at(&db->home, i, m) : (m == 0);
    }
}

int race_equity(const Rules *r, const Board *b, const RaceTables *db, double *equity, double *pwin)
{
    if (!side_fits(b->me, db->points) || !side_fits(b->opp, db->points) || !is_race(r, b)) return 0;
    double pm[MAX_ROLLS], po[MAX_ROLLS], gm[MAX_ROLLS], go[MAX_ROLLS], hm[MAX_ROLLS], ho[MAX_ROLLS];
    side_dists(db, b->me, pm, gm, hm);
    side_dists(db, b->opp, po, go, ho);
    double tail_po[MAX_ROLLS + 1], tail_go[MAX_ROLLS + 1], tail_gm[MAX_ROLLS + 1], tail_ho[MAX_ROLLS + 1],
           tail_hm[MAX_ROLLS + 1];
    tail_po[MAX_ROLLS] = tail_go[MAX_ROLLS] = tail_gm[MAX_ROLLS] = tail_ho[MAX_ROLLS] = tail_hm[MAX_ROLLS] = 0.0;
    for (int j = MAX_ROLLS - 1; j >= 0; j--) {
        tail_po[j] = tail_po[j + 1] + po[j];
        tail_go[j] = tail_go[j + 1] + go[j];
        tail_gm[j] = tail_gm[j + 1] + gm[j];
        tail_ho[j] = tail_ho[j + 1] + ho[j];
        tail_hm[j] = tail_hm[j + 1] + hm[j];
    }
    int opp_full = b->opp[0] == 0, me_full = b->me[0] == 0, is_long = r->v[R_LONG];
    double p_win = 0, p_gammon = 0, p_lose_gammon = 0, p_home = 0, p_lose_home = 0;
    for (int i = 0; i < MAX_ROLLS; i++) {
        p_win += pm[i] * tail_po[i];
        if (opp_full) p_gammon += pm[i] * tail_go[i];
        if (me_full && i < MAX_ROLLS - 1) p_lose_gammon += po[i] * tail_gm[i + 1];
        if (is_long && opp_full) p_home += pm[i] * (tail_go[i] - tail_ho[i]);
        if (is_long && me_full && i < MAX_ROLLS - 1) p_lose_home += po[i] * (tail_gm[i + 1] - tail_hm[i + 1]);
    }
    if (p_home < 0) p_home = 0;
    if (p_lose_home < 0) p_lose_home = 0;
    if (p_win < 0) p_win = 0;
    if (p_win > 1) p_win = 1;   /* (sums of float32 distributions) */
    *pwin = p_win;
    /* every outcome times its points under the ruleset's table (race.expected_points) */
    double single = r->v[R_POINTS1], gammon = r->v[R_POINTS2], home = is_long ? r->v[R_POINTS3] : gammon;
    double q = 1 - p_win;
    double won = (p_win - p_gammon) * single + (p_gammon - p_home) * gammon + p_home * home;
    double lost = (q - p_lose_gammon) * single + (p_lose_gammon - p_lose_home) * gammon + p_lose_home * home;
    *equity = won - lost;
    return 1;
}
