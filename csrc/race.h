/* Races (race.c): detection, the bear-off index, exact race equity. */

#ifndef NARDTOOLS_RACE_H
#define NARDTOOLS_RACE_H

#include "core.h"

#define MAX_ROLLS 64        /* as nardtools.analysis.bearoff.MAX_ROLLS */

/* One array of a bear-off database: rows of `cols` floats (float32 or float64). */
typedef struct { const void *data; int cols, single; } Table;
/* The arrays of a one-sided database the race equity needs. */
typedef struct { int points; Table dist, gammon, home; } RaceTables;   /* all off, first off, all home */

int is_race(const Rules *r, const Board *b);
long long bearoff_index(const signed char *counts, int points);
/* The exact race equity and P(win) of the side on roll (b->me), when both
 * sides fit the database and it is a race; 0 otherwise. */
int race_equity(const Rules *r, const Board *b, const RaceTables *db, double *equity, double *pwin);

#endif
