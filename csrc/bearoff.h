/* One-sided bear-off databases and exact two-sided races (bearoff.c). */

#ifndef NARDTOOLS_BEAROFF_H
#define NARDTOOLS_BEAROFF_H

#include <stdint.h>

/* Positions of up to 15 checkers on points 1..P, as rows of P counts
 * (the 1-point first) in gnubg's index order (bearoff.position_index). */
typedef struct {
    int points;               /* P, 1..12 */
    long long n;              /* rows: C(P + 15, 15) */
    const signed char *rows;  /* n x P */
} BoardList;

/* A float array of rows: float32 (`single`) or float64. */
typedef struct { void *data; int cols, single; } Rows;

/* Fill `rows` (n x P, zeroed) with every position in index order. */
void bearoff_fill(signed char *rows, long long n, int P);

/* The exact one-sided database of one quantity (mode 0: every checker off;
 * 1: a checker off, for 15 checkers; 2: every checker home, points 1-6):
 * mean[n] expected rolls, dist P(done in exactly m rolls).  Returns the
 * columns of dist used (up to the last nonzero one), or 0 when out of memory.  `interrupted`, when not NULL, is asked now and then;
 * nonzero abandons the build (returns -1). */
int bearoff_exact(const BoardList *b, int mode, double *mean, Rows dist, int (*interrupted)(void));

/* The play-walking builder of GNU Backgammon's quantised policy (mean, dist:
 * every checker off; gmean, gdist: first checker off, for `ncheck`
 * checkers; float64, L = cols).  by_key: choose by gnubg's 16-bit quantised
 * means (its own policy), else by the exact means, ties by the key. */
int bearoff_gnubg(const BoardList *b, int ncheck, int cols, int by_key,
                  double *mean, double *dist, double *gmean, double *gdist);

/* Exact two-sided P(win) for the side on roll: `rows` are the m smallest
 * positions on 6 points, `order` the m*m pairs (i*m + j) by total pips, win
 * m x m.  Returns 0 when out of memory. */
int bearoff_two_sided(const signed char *rows, long long m, const int64_t *order, double *win);

#endif
