/*
 * Random playouts: a whole money game played with the game machine, every
 * play chosen uniformly among the legal ones (nardtools.playout.playouts is
 * the same in Python, with the same random numbers).
 *
 * A trace, when asked for, holds the game as events of four int32:
 *   EV_OPENING die0 die1 0     an opening throw (ties included)
 *   EV_ROLL    d1   d2   0     the side on roll throws
 *   EV_PLAY    n    k    used  the k-th of n legal plays (n = 1 for no move), dice used
 *   EV_END     winner kind points
 * so that the reference can replay it move by move.
 */

#include <stdlib.h>

#include "playout.h"

uint64_t rng_next(Rng *g)
{
    uint64_t z = (g->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

int rng_below(Rng *g, int n)
{
    uint64_t limit = UINT64_MAX - (UINT64_MAX % (uint64_t)n + 1) % (uint64_t)n;   /* largest multiple of n, less one */
    uint64_t x;
    do x = rng_next(g); while (x > limit);
    return (int)(x % (uint64_t)n);
}

uint64_t game_seed(uint64_t seed, uint64_t index)
{
    Rng a = {seed};
    Rng b = {rng_next(&a) + index};
    return rng_next(&b);
}

static int record(Trace *t, int a, int b, int c, int d)
{
    if (!t) return 1;
    if (t->n + 4 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        int32_t *ev = realloc(t->ev, cap * sizeof *ev);
        if (!ev) return 0;
        t->ev = ev;
        t->cap = cap;
    }
    t->ev[t->n++] = a;
    t->ev[t->n++] = b;
    t->ev[t->n++] = c;
    t->ev[t->n++] = d;
    return 1;
}

static int die(Rng *g) { return 1 + rng_below(g, 6); }

int playout(Game *g, const Rules *r, Search *s, uint64_t seed, long max_plays, Trace *trace)
{
    Rng rng = {seed};
    game_start(g, r, 0, 0, 0, 0);
    for (;;) {
        int a = die(&rng), b = die(&rng);
        if (!record(trace, EV_OPENING, a, b, 0)) return 0;
        if (game_opening(g, a, b)) break;
    }
    for (long plays = 0; g->phase != G_OVER; plays++) {
        if (plays >= max_plays) return 0;
        if (g->phase == G_ROLL) {
            int a = die(&rng), b = die(&rng);
            if (!record(trace, EV_ROLL, a, b, 0)) return 0;
            game_roll(g, g->on_roll, a, b);
        }
        Turn t;
        game_turn(g, &t);
        legal_plays(&t, s);
        if (s->overflow) return 0;
        int n = s->nchosen ? s->nchosen : 1, k = rng_below(&rng, n);
        Board after;
        int used[MAX_DICE], nused = 0;
        if (s->nchosen) {
            const End *e = &s->ends[s->chosen[k]];
            end_board(&t, e->me, e->hits, &after);
            nused = e->used;
            if (r->v[R_REMAINDER_OPPONENT] && nused < t.ndice) {   /* which dice are left matters: ask the judge */
                Move moves[MAX_DICE];
                Step steps[MAX_DICE];
                Board again;
                for (int i = 0; i < e->nsteps; i++) moves[i] = (Move){e->steps[i].s, e->steps[i].t};
                int nsteps;
                if (!judge_play(&t, s, moves, e->nsteps, &again, steps, &nsteps, used)) return 0;
                nused = nsteps;
            } else {
                for (int i = 0; i < nused; i++) used[i] = t.dice[i];
                if (nused == 1 && e->die) used[0] = e->die;
            }
        } else {
            end_board(&t, t.start.me, 0, &after);
        }
        if (!record(trace, EV_PLAY, n, k, nused)) return 0;
        game_play(g, &after, used, nused);
    }
    return record(trace, EV_END, g->winner, g->kind, g->points);
}
