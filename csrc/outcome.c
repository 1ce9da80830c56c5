/*
 * How a game ends: the kind of a win from the loser's checkers and the
 * points it scores (nardtools.outcome.classify and points_for).
 */

#include "core.h"

/* 1 single (oin), 2 gammon (mars), 3 backgammon (home mars), 4 koks. */
int classify(const Rules *r, const signed char *loser)
{
    if (r->v[R_LONG]) {
        if (loser[OFF] > 0) return 1;
        if (r->v[R_KOKS] == KOKS_START_QUARTER)
            for (int p = 19; p <= 24; p++) if (loser[p]) return 4;
        if (r->v[R_KOKS] == KOKS_HEAD && loser[HEAD] > 0) return 4;
        for (int p = 7; p <= 25; p++) if (loser[p]) return 2;
        return 3;
    }
    if (loser[OFF] > 0) return 1;
    if (loser[BAR]) return 3;
    for (int p = 19; p <= 24; p++) if (loser[p]) return 3;
    return 2;
}

/* The points of a kind at cube 1, from the ruleset's scoring table (packed by nardtools/core.py). */
int points_for(const Rules *r, int kind)
{
    return r->v[R_POINTS1 + kind - 1];
}
