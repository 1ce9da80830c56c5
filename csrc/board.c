/*
 * Legal plays: one step, the six-block rule, and the exhaustive search of
 * nardtools.turn (RolledTurn.step, RolledTurn.apply, RolledTurn.block_ok, _generate,
 * _select), line for line.
 */

#include <stddef.h>
#include <stdlib.h>
#include "core.h"

enum { V_OK = 0, V_NO_CHECKER, V_BAR_FIRST, V_OPPONENT_POINT, V_INSIDE_HOME, V_NO_HIT, V_HEAD, V_HIT_AND_HIDE,
       V_NOT_HOME, V_HIGHER };

static int table_init(Index *t, uint32_t size)
{
    t->stamp = calloc(size, sizeof *t->stamp);
    t->index = malloc(size * sizeof *t->index);
    t->mask = size - 1;
    return t->stamp && t->index;
}

Search *search_new(void)
{
    Search *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->states_cap = 1024;
    s->states = malloc((size_t)s->states_cap * sizeof *s->states);
    if (!s->states || !table_init(&s->end_table, 2048) || !table_init(&s->state_table, 2048)) return NULL;
    s->stamp = 1;
    return s;
}

/* Put index i with hash h in the table (the caller knows it is not there). */
static void table_put(Index *t, uint32_t stamp, uint64_t h, int i)
{
    uint32_t slot = (uint32_t)h & t->mask;
    while (t->stamp[slot] == stamp) slot = (slot + 1) & t->mask;
    t->stamp[slot] = stamp;
    t->index[slot] = i;
}

/* Double a table that is half full, putting back the n entries it holds. */
static int table_grow(Index *t, uint32_t stamp, int n, const void *items, size_t size, size_t hash_at)
{
    Index bigger;
    if (!table_init(&bigger, 2 * (t->mask + 1))) return 0;
    for (int i = 0; i < n; i++) {
        uint64_t h;
        memcpy(&h, (const char *)items + (size_t)i * size + hash_at, sizeof h);
        table_put(&bigger, stamp, h, i);
    }
    free(t->stamp);
    free(t->index);
    *t = bigger;
    return 1;
}

/* ------------------------------------------------------------------ the turn */

static int any(const signed char *me, int from, int to)    /* any checker on points from..to-1 */
{
    for (int p = from; p < to; p++) if (me[p]) return 1;
    return 0;
}

/* Whether any six-block could be illegal this turn (turn.RolledTurn._block_possible). */
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
    /* the head limit (turn.RolledTurn._head_limit) */
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

/* One die d from point s (turn.RolledTurn.step): V_OK with *target and *hit, or the violation. */
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

/* turn.RolledTurn.apply */
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
    uint64_t h;              /* Zobrist hash of me */
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

/* ------------------------------------------------------------------ the search's tables */

/* Zobrist keys: one random word per point and count (splitmix64, fixed seed),
   filled by board_init before any search. */
static uint64_t zobrist[26][16];

void board_init(void)
{
    uint64_t x = 0x6e61726474;   /* "nardt" */
    for (int p = 0; p < 26; p++)
        for (int c = 0; c < 16; c++) {
            uint64_t z = (x += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            zobrist[p][c] = z ^ (z >> 31);
        }
}

static uint64_t board_hash(const signed char *me)
{
    uint64_t h = 0;
    for (int p = 0; p < 26; p++) h ^= zobrist[p][me[p] & 15];
    return h;
}

static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 33)) * 0xFF51AFD7ED558CCDull;
    return x ^ (x >> 29);
}

/* Record an end at a rank, the first time it is reached there. */
static void reach(Search *s, const Work *w, int used, int die, const Step *path, int depth)
{
    uint64_t hash = mix(w->h ^ mix(w->hits + ((uint64_t)(used * 8 + die) << 32)));
    Index *t = &s->end_table;
    for (uint32_t slot = (uint32_t)hash & t->mask; t->stamp[slot] == s->stamp; slot = (slot + 1) & t->mask) {
        const End *e = &s->ends[t->index[slot]];
        if (e->hash == hash && e->used == used && e->die == die && e->hits == w->hits && !memcmp(e->me, w->me, 26))
            return;
    }
    if (s->nends == MAX_ENDS) { s->overflow = 1; return; }
    if (2 * (uint32_t)(s->nends + 1) > t->mask + 1
        && !table_grow(t, s->stamp, s->nends, s->ends, sizeof(End), offsetof(End, hash))) {
        s->overflow = 1;
        return;
    }
    End *e = &s->ends[s->nends];
    memcpy(e->me, w->me, 26);
    e->hits = w->hits;
    e->used = (unsigned char)used;
    e->die = (unsigned char)die;
    e->nsteps = (unsigned char)depth;
    memcpy(e->steps, path, sizeof e->steps);   /* (the steps past depth are not read) */
    e->hash = hash;
    table_put(t, s->stamp, hash, s->nends++);
}

/* Whether the state (board, hits, dice left, hitters) is new; it is then marked seen. */
static int first_visit(Search *s, const Work *w, const int *left, int nleft)
{
    uint64_t dice = 0;   /* the dice left, as a multiset: a count per value in 3 bits */
    for (int i = 0; i < nleft; i++) dice += 1ull << (3 * (left[i] - 1));
    uint64_t extra = w->hits | dice << 32;
    uint64_t hitters = 0;   /* the hitters as a multiset: a count per point in 2 bits */
    for (int i = 0; i < w->nhitters; i++) hitters += 1ull << (2 * w->hitters[i]);
    uint64_t hash = w->h ^ mix(extra) ^ mix(hitters + 0x51);
    Index *t = &s->state_table;
    for (uint32_t slot = (uint32_t)hash & t->mask; t->stamp[slot] == s->stamp; slot = (slot + 1) & t->mask) {
        const StateKey *q = &s->states[t->index[slot]];
        if (q->hash == hash && q->extra == extra && q->hitters == hitters && !memcmp(q->me, w->me, 26)) return 0;
    }
    if (s->nstates == MAX_STATES) { s->overflow = 1; return 0; }
    if (s->nstates == s->states_cap) {
        StateKey *more = realloc(s->states, 2 * (size_t)s->states_cap * sizeof *more);
        if (!more) { s->overflow = 1; return 0; }
        s->states = more;
        s->states_cap *= 2;
    }
    if (2 * (uint32_t)(s->nstates + 1) > t->mask + 1
        && !table_grow(t, s->stamp, s->nstates, s->states, sizeof(StateKey), offsetof(StateKey, hash))) {
        s->overflow = 1;
        return 0;
    }
    StateKey *q = &s->states[s->nstates];
    q->hash = hash;
    q->extra = extra;
    q->hitters = hitters;
    memcpy(q->me, w->me, 26);
    table_put(t, s->stamp, hash, s->nstates++);
    return 1;
}

typedef struct {
    const Turn *t;
    Search *s;
    Work w;
    Step path[MAX_DICE];
} Walk;

static void move_hash(Work *w, int s, int to)
{
    w->h ^= zobrist[s][w->me[s] & 15] ^ zobrist[s][(w->me[s] - 1) & 15];
    w->h ^= zobrist[to][w->me[to] & 15] ^ zobrist[to][(w->me[to] + 1) & 15];
}

/* The points 1..25 with a checker of the mover's, as bits. */
static uint32_t occupied(const signed char *me)
{
    uint32_t bits = 0;
    for (int p = 1; p <= 25; p++) bits |= (uint32_t)(me[p] != 0) << p;
    return bits;
}

/* turn._generate: every position reachable with any prefix of any order of
 * the dice, each distinct die left tried in turn, sources from the bar down. */
static void visit(Walk *k, const int *left, int nleft, int depth)
{
    const Turn *t = k->t;
    Search *s = k->s;
    Work *w = &k->w;
    int used = t->ndice - nleft, die = 0;
    if (used == 1 && !t->dbl && t->ndice == 2) die = left[0] != t->high ? t->high : t->low;
    reach(s, w, used, die, k->path, depth);
    if (!nleft || s->overflow) return;
    uint32_t sources = occupied(w->me);   /* (every step below is undone before the next) */
    for (int i = 0; i < nleft; i++) {
        int d = left[i], repeat = 0;
        for (int j = 0; j < i; j++) if (left[j] == d) repeat = 1;
        if (repeat) continue;
        int rest[MAX_DICE], nrest = 0;
        for (int j = 0; j < nleft; j++) if (j != i) rest[nrest++] = left[j];
        /* A state after the first step is always new (its dice left tell it from any later state, and one step
         * from two points cannot end alike), and a state with no dice left is an end, which reach() keeps once:
         * only the states between need the table. */
        int seen_check = nrest > 0 && nrest < t->ndice - 1;
        for (uint32_t from = sources; from; from &= ~(1u << (31 - __builtin_clz(from)))) {
            int src = 31 - __builtin_clz(from);   /* from the bar down */
            int to, hit;
            if (core_step(t, w->me, w->hits, w->hitters, w->nhitters, src, d, &to, &hit) != V_OK) continue;
            signed char saved_hitters[MAX_DICE + 4];
            int saved_n = w->nhitters;
            if (t->caucasian) memcpy(saved_hitters, w->hitters, (size_t)saved_n);
            move_hash(w, src, to);
            core_apply(t, w->me, &w->hits, w->hitters, &w->nhitters, src, to, hit);
            if ((!seen_check || first_visit(s, w, rest, nrest)) && (!t->every_step || block_ok(t, w->me))) {
                k->path[depth] = (Step){(signed char)src, (signed char)to, (signed char)hit};
                visit(k, rest, nrest, depth + 1);
            }
            /* undo the step */
            move_hash(w, to, src);
            w->me[src]++;
            w->me[to]--;
            if (hit) w->hits &= ~(1u << to);
            if (t->caucasian) {
                memcpy(w->hitters, saved_hitters, (size_t)saved_n);
                w->nhitters = saved_n;
            }
        }
    }
}

static int heads_moved(const Turn *t, const signed char *me) { return t->start_head - me[HEAD]; }

/* turn._select: the end-of-turn rules, the head exception and the maximum-dice rules. */
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
    /* the ends of the highest rank (the most dice, and for one die the larger) that the rules allow, in the
     * order found: one pass, the rules asked only of ends that could rank highest */
    s->nchosen = 0;
    int best = -1;
    for (int i = 0; i < s->nends; i++) {
        const End *e = &s->ends[i];
        int rank = e->used * 8 + e->die;
        if (rank < best) continue;
        if (general && heads_moved(t, e->me) > base) continue;
        if (!block_ok(t, e->me)) continue;
        if (rank > best) {
            best = rank;
            s->nchosen = 0;
        }
        s->chosen[s->nchosen++] = i;
    }
}

void legal_plays(const Turn *t, Search *s)
{
    if (++s->stamp == 0) {   /* the stamps wrapped round: clear them */
        memset(s->end_table.stamp, 0, (s->end_table.mask + 1) * sizeof(uint32_t));
        memset(s->state_table.stamp, 0, (s->state_table.mask + 1) * sizeof(uint32_t));
        s->stamp = 1;
    }
    s->nends = s->nchosen = s->nstates = s->overflow = 0;
    Walk k = {.t = t, .s = s};
    memcpy(k.w.me, t->start.me, 26);
    k.w.h = board_hash(k.w.me);
    visit(&k, t->dice, t->ndice, 0);
    if (!s->overflow) select_ends(t, s);
}

/* The position after an end of turn, from the side then on roll (turn.RolledTurn.result). */
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

void furthest_points(const signed char *boards, long long rows, signed char *out)
{
    for (long long r = 0; r < 2 * rows; r++) {
        const signed char *side = boards + 26 * r;
        int p = 25;
        while (p > 0 && !side[p]) p--;
        out[r] = (signed char)p;
    }
}
