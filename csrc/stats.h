/* The statistics of a record (stats.c). */

#ifndef NARDTOOLS_STATS_H
#define NARDTOOLS_STATS_H

#include <stddef.h>
#include "mat.h"
#include "race.h"

#define RACE_ERROR_THRESHOLD 0.01   /* nardtools.analysis.stats.RACE_ERROR_THRESHOLD */
#define RACE_TIE 1e-6   /* nardtools.analysis.annotate.RACE_TIE */

typedef struct {
    int number, score[2], winner, kind, ending, points, record_points, cube, turns;
    int race_turn, race_pips[2], opening_d1, opening_d2, opening_side, complete, source, warnings;
} GameRow;

typedef struct {
    int game, turn, index, side, high, low, pips_before, pips_opponent, pips_after, legal_plays, dice_used,
        dice_lost, race, race_exact, play_start, play_len;
    double pwin_before, pwin_after, luck, race_error;
} TurnRow;

/* One side's running counts: turns, rolls by high*10+low, luck, race decisions. */
typedef struct {
    long turns, rolls[67], luck_n, race_n, race_errors;
    double luck_sum, race_sum;
} Side;

typedef struct {
    const RaceTables *db;    /* NULL: no race figures */
    Search *search;
    int want_turns;
    GameRow *games;
    size_t ngames, games_cap;
    TurnRow *turns;
    size_t nturns, turns_cap;
    char *text;              /* the plays' texts, one after another */
    size_t text_len, text_cap;
    Side sides[2];
} Stats;

int stats_game(void *f, GameRec *rec);   /* the MatFile callback */
void stats_free(Stats *st);

#endif
