/* Random playouts with the game machine (see playout.c). */

#ifndef NARDTOOLS_PLAYOUT_H
#define NARDTOOLS_PLAYOUT_H

#include "game.h"

/* The random numbers of a playout: SplitMix64, which nardtools.playout
 * implements too, so that both engines play the same games from a seed. */
typedef struct { uint64_t state; } Rng;
uint64_t rng_next(Rng *g);
int rng_below(Rng *g, int n);              /* uniform in 0..n-1, without bias */
uint64_t game_seed(uint64_t seed, uint64_t index);

/* A trace: events of four int32 each (see playout.c). */
typedef struct { int32_t *ev; size_t n, cap; } Trace;
enum { EV_OPENING, EV_ROLL, EV_PLAY, EV_END };

/* One game from the start to its end with uniformly random legal plays:
 * 1, the game over in g; 0 when the search outgrew its tables, memory ran
 * out or the game passed max_plays plays. */
int playout(Game *g, const Rules *r, Search *s, uint64_t seed, long max_plays, Trace *trace);

#endif
