/*
 * Legal plays: one step, the six-block rule, and the exhaustive search of
 * nardtools.engine (_Turn.step, _Turn.apply, _Turn.block_ok, _generate,
 * _select), line for line.
 */

#include <stdlib.h>
#include "core.h"

enum { V_OK = 0, V_NO_CHECKER, V_BAR_FIRST, V_OPPONENT_POINT, V_INSIDE_HOME, V_NO_HIT, V_HEAD, V_HIT_AND_HIDE,
       V_NOT_HOME, V_HIGHER };

Search *search_new(void)
{
    Search *s = calloc(1, sizeof *s);
    return s;
}

/* ------------------------------------------------------------------ the turn */

static int any(const signed char *me, int from, int to)    /* any checker on points from..to-1 */
{
    for (int p = from; p < to; p++) if (me[p]) return 1;
    return 0;
}

/* Whether any six-block could be illegal this turn (engine._Turn._block_possible). */
static int block_possible(const Turn *t)
{
    const signed char *opp = t->start.opp;
    if (t->r->v[R_BLOCK_MOVER_PATH]) return 1;
    if (opp[OFF]) return 0;
    if (t->block == BLOCK_HOME) return !any(opp, 1, 7);
    int lowest = 25;
    for (int q = 1; q <= 24; q++) if (opp[q]) { lowest = q; break; }
    return lowest > 6;
}

void turn_init(Turn *t, const Rules *r, const Board *b, const int *dice, int ndice, int whole_roll,
               int first_turn)
{
    memset(t, 0, sizeof *t);
    t->r = r;
    t->start = *b;
    t->ndice = ndice;
    for (int i = 0; i < ndice; i++) t->dice[i] = dice[i];   /* largest first, as Roll.dice and Dice give them */
    t->dbl = 1;
    for (int i = 1; i < ndice; i++) if (dice[i] != dice[0]) t->dbl = 0;
    t->whole_roll = whole_roll;
    t->high = dice[0];
    t->low = dice[ndice - 1];
    int hold = r->v[R_HITTING] ? 2 : 1;
    for (int p = 1; p <= 24; p++) {
        int n = b->opp[facing(r, p)];
        t->blocked[p] = n >= hold;
        t->blot[p] = r->v[R_HITTING] && n == 1;
    }
    int is_long = r->v[R_LONG];
    if (first_turn < 0) {
        int total = 0;
        for (int p = 0; p < 26; p++) total += b->me[p];
        first_turn = is_long && b->me[HEAD] == total && b->me[HEAD] > 0;
    }
    t->first_turn = first_turn;
    t->start_head = b->me[HEAD];
    /* the head limit (engine._Turn._head_limit) */
    int base = r->v[R_HEAD_LIMIT];
    if (base <= 0) t->limit = 99;
    else if (!first_turn || r->v[R_HEAD] == HEAD_NONE) t->limit = base;
    else if (r->v[R_HEAD] == HEAD_DOUBLES_LIST)
        t->limit = base + (whole_roll && t->dbl && (t->high == 3 || t->high == 4 || t->high == 6));
    else t->limit = base + 1;   /* general: decided after generation */
    t->caucasian = r->v[R_CAUCASIAN];
    t->exact = r->v[R_EXACT_BEAROFF];
    t->block = is_long ? r->v[R_BLOCK] : BLOCK_NONE;
    if (t->block != BLOCK_NONE && !block_possible(t)) t->block = BLOCK_NONE;
    t->every_step = t->block != BLOCK_NONE && r->v[R_BLOCK_EVERY_STEP];
}

/* ------------------------------------------------------------------ one step */

static int count_in(const signed char *a, int n, int x)
{
    int c = 0;
    for (int i = 0; i < n; i++) c += a[i] == x;
    return c;
}

/* One die d from point s (engine._Turn.step): V_OK with *target and *hit, or the violation. */
int core_step(const Turn *t, const signed char *me, uint32_t hits, const signed char *hitters, int nhitters,
              int s, int d, int *target, int *hit)
{
    const Rules *r = t->r;
    if (s < 1 || s > 25 || me[s] <= 0) return V_NO_CHECKER;
    if (s != BAR && me[BAR] > 0 && r->v[R_BAR_FIRST]) return V_BAR_FIRST;
    int to = s - d;
    if (to >= 1) {
        if (t->blocked[to]) return V_OPPONENT_POINT;
        if (s <= 6 && !r->v[R_INSIDE_HOME]) return V_INSIDE_HOME;
        int fresh_blot = t->blot[to] && !(hits >> to & 1);
        if (r->v[R_HIT_AFTER_HOME] && fresh_blot && !any(me, 1, 7)) return V_NO_HIT;
        if (s == HEAD && r->v[R_LONG] && t->start_head - me[HEAD] >= t->limit) return V_HEAD;
        if (t->caucasian && me[to] > 0) {
            int c = count_in(hitters, nhitters, s);
            if (c > 0 && c >= me[s]) return V_HIT_AND_HIDE;
        }
        *target = to;
        *hit = fresh_blot;
        return V_OK;
    }
    if (any(me, 7, 26)) return V_NOT_HOME;
    if (to < 0 && (t->exact || any(me, s + 1, 7))) return V_HIGHER;
    *target = OFF;
    *hit = 0;
    return V_OK;
}

/* engine._Turn.apply */
void core_apply(const Turn *t, signed char *me, uint32_t *hits, signed char *hitters, int *nhitters,
                int s, int to, int hit)
{
    me[s]--;
    me[to]++;
    if (t->caucasian) {
        int moving_hitter = count_in(hitters, *nhitters, s) > me[s];
        if (moving_hitter) {   /* hitters.remove(s): the first one */
            for (int i = 0; i < *nhitters; i++)
                if (hitters[i] == s) {
                    memmove(hitters + i, hitters + i + 1, (size_t)(*nhitters - i - 1));
                    (*nhitters)--;
                    break;
                }
        }
        if ((hit && to <= 6) || (moving_hitter && to != OFF)) hitters[(*nhitters)++] = (signed char)to;
    }
    if (hit) *hits |= 1u << to;
}

typedef struct {
    signed char me[26];
    uint32_t hits;
    signed char hitters[MAX_DICE + 4];
    int nhitters;
} Work;

/* ------------------------------------------------------------------ the six-block rule */

static int run_ok(const Turn *t, int lo)   /* a run whose lowest point, in the opponent's numbering, is lo */
{
    const signed char *opp = t->start.opp;
    if (opp[OFF]) return 1;
    if (t->block == BLOCK_HOME) return any(opp, 1, 7);
    return any(opp, 1, lo);
}

static int window_ok(const Turn *t, int lo)   /* my points lo..lo+5, the mover's-path reading */
{
    const signed char *opp = t->start.opp;
    if (t->block == BLOCK_HOME) return any(opp, 1, 7);
    int hi = lo + 5;
    if (lo >= 13) return any(opp, 1, lo - 12);
    if (hi <= 12) return any(opp, 1, lo + 12);
    return any(opp, hi - 11, lo + 12);
}

int block_ok(const Turn *t, const signed char *me)
{
    if (t->block == BLOCK_NONE) return 1;
    int mover_path = t->r->v[R_BLOCK_MOVER_PATH];
    unsigned char occupied[24];
    for (int i = 0; i < 24; i++) {   /* index i: the opponent's point i+1 (my 13..24, then 1..12), or my i+1 */
        int p = mover_path ? i + 1 : (i < 12 ? i + 13 : i - 11);
        occupied[i] = me[p] > 0;
    }
    int run = 0;
    for (int i = 0; i <= 24; i++) {
        if (i < 24 && occupied[i]) {
            run++;
            if (mover_path && run >= 6 && !window_ok(t, i - 4)) return 0;   /* every window of six */
            continue;
        }
        if (!mover_path && run >= 6 && !run_ok(t, i - run + 1)) return 0;
        run = 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ the search */

static uint32_t hash_bytes(const void *p, size_t n, uint32_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

/* Record an end at a rank, the first time it is reached there. */
static void reach(Search *s, const Work *w, int used, int die, const Step *path, int depth)
{
    uint32_t mask = 2 * MAX_ENDS - 1;
    uint32_t h = hash_bytes(w->me, 26, 2166136261u ^ (uint32_t)(used * 8 + die));
    h = hash_bytes(&w->hits, sizeof w->hits, h) & mask;
    for (; s->end_stamp[h] == s->stamp; h = (h + 1) & mask) {
        const End *e = &s->ends[s->end_slot[h]];
        if (e->used == used && e->die == die && e->hits == w->hits && !memcmp(e->me, w->me, 26)) return;
    }
    if (s->nends == MAX_ENDS) { s->overflow = 1; return; }
    End *e = &s->ends[s->nends];
    memcpy(e->me, w->me, 26);
    e->hits = w->hits;
    e->used = (unsigned char)used;
    e->die = (unsigned char)die;
    e->nsteps = (unsigned char)depth;
    memcpy(e->steps, path, sizeof(Step) * (size_t)depth);
    s->end_stamp[h] = s->stamp;
    s->end_slot[h] = s->nends++;
}

/* Whether the state (board, hits, dice left, hitters) is new; it is then marked seen. */
static int first_visit(Search *s, const Work *w, const int *left, int nleft)
{
    unsigned char key[40] = {0};
    memcpy(key, w->me, 26);
    uint32_t dice = 0;   /* the dice left, as a multiset: a count per value in 3 bits */
    for (int i = 0; i < nleft; i++) dice += 1u << (3 * (left[i] - 1));
    memcpy(key + 26, &dice, 3);
    memcpy(key + 29, &w->hits, 4);
    signed char sorted[MAX_DICE + 4];   /* the hitters, sorted */
    int n = w->nhitters;
    memcpy(sorted, w->hitters, (size_t)n);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            signed char x = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = x;
        }
    key[33] = (unsigned char)n;
    for (int i = 0; i < n && i < 6; i++) key[34 + i] = (unsigned char)sorted[i];
    uint32_t mask = 2 * MAX_STATES - 1;
    uint32_t h = hash_bytes(key, sizeof key, 2166136261u) & mask;
    for (; s->state_stamp[h] == s->stamp; h = (h + 1) & mask)
        if (!memcmp(s->state_key[h], key, sizeof key)) return 0;
    if (++s->nstates > MAX_STATES) { s->overflow = 1; return 0; }
    s->state_stamp[h] = s->stamp;
    memcpy(s->state_key[h], key, sizeof key);
    return 1;
}

typedef struct {
    const Turn *t;
    Search *s;
    Work w;
    Step path[MAX_DICE];
} Walk;

/* engine._generate: every position reachable with any prefix of any order of
 * the dice, each order of distinct dice tried in turn, sources from the bar down. */
static void visit(Walk *k, const int *left, int nleft, int depth)
{
    const Turn *t = k->t;
    Search *s = k->s;
    int used = t->ndice - nleft, die = 0;
    if (used == 1 && !t->dbl && t->ndice == 2) die = left[0] != t->high ? t->high : t->low;
    reach(s, &k->w, used, die, k->path, depth);
    if (!nleft || s->overflow) return;
    for (int i = 0; i < nleft; i++) {
        int d = left[i], repeat = 0;
        for (int j = 0; j < i; j++) if (left[j] == d) repeat = 1;
        if (repeat) continue;
        int rest[MAX_DICE], nrest = 0;
        for (int j = 0; j < nleft; j++) if (j != i) rest[nrest++] = left[j];
        for (int src = 25; src >= 1; src--) {
            if (!k->w.me[src]) continue;
            int to, hit;
            Work *w = &k->w;
            if (core_step(t, w->me, w->hits, w->hitters, w->nhitters, src, d, &to, &hit) != V_OK) continue;
            Work saved = *w;
            core_apply(t, w->me, &w->hits, w->hitters, &w->nhitters, src, to, hit);
            if (first_visit(s, &k->w, rest, nrest) && (!t->every_step || block_ok(t, k->w.me))) {
                k->path[depth] = (Step){(signed char)src, (signed char)to, (signed char)hit};
                visit(k, rest, nrest, depth + 1);
            }
            k->w = saved;
        }
    }
}

static int heads_moved(const Turn *t, const signed char *me) { return t->start_head - me[HEAD]; }

/* engine._select: the end-of-turn rules, the head exception and the maximum-dice rules. */
static void select_ends(const Turn *t, Search *s)
{
    const Rules *r = t->r;
    int base = r->v[R_HEAD_LIMIT];
    int general = r->v[R_LONG] && t->first_turn && r->v[R_HEAD] == HEAD_GENERAL && t->limit > base;
    if (general) {   /* a second head checker only if no play with one uses every die */
        general = 0;
        for (int i = 0; i < s->nends; i++) {
            const End *e = &s->ends[i];
            if (e->used == t->ndice && e->die == 0 && heads_moved(t, e->me) <= base && block_ok(t, e->me)) {
                general = 1;
                break;
            }
        }
    }
    /* ranks from the most dice down, and for one die the larger first */
    s->nchosen = 0;
    for (int used = t->ndice; used >= 0; used--) {
        for (int die = 6; die >= 0; die--) {
            for (int i = 0; i < s->nends; i++) {
                const End *e = &s->ends[i];
                if (e->used != used || e->die != die) continue;
                if (general && heads_moved(t, e->me) > base) continue;
                if (block_ok(t, e->me)) s->chosen[s->nchosen++] = i;
            }
            if (s->nchosen) return;
        }
    }
}

void legal_plays(const Turn *t, Search *s)
{
    if (++s->stamp == 0) {   /* the stamps wrapped round: clear them */
        memset(s->end_stamp, 0, sizeof s->end_stamp);
        memset(s->state_stamp, 0, sizeof s->state_stamp);
        s->stamp = 1;
    }
    s->nends = s->nchosen = s->nstates = s->overflow = 0;
    Walk k = {.t = t, .s = s};
    memcpy(k.w.me, t->start.me, 26);
    visit(&k, t->dice, t->ndice, 0);
    if (!s->overflow) select_ends(t, s);
}

/* The position after an end of turn, from the side then on roll (engine._Turn.result). */
void end_board(const Turn *t, const signed char *me, uint32_t hits, Board *out)
{
    memcpy(out->me, t->start.opp, 26);
    memcpy(out->opp, me, 26);
    for (int p = 1; p <= 24; p++)
        if (hits >> p & 1) {
            out->me[facing(t->r, p)]--;
            out->me[BAR]++;
        }
}
