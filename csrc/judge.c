/*
 * The judgement of a written play (nardtools.judge.check_play): read its
 * moves, cut them into single-die segments, play the segments as written and
 * then in every other order (first without hits on the way through a
 * combined move, then with them), and check the end of turn.  Every list is
 * tried in the reference's order, so that the canonical steps of a legal
 * play are the reference's.  An illegal play is not explained here: the
 * caller asks the reference, which names the rule.
 */

#include "core.h"

/* ------------------------------------------------------------------ reading */

/* A point word: 0-25 (leading zeros, at most three digits), bar, off, b, o; -1 otherwise. */
static int point_word(const char *p, int n)
{
    if (n == 3 && ascii_lower(p[0]) == 'b' && ascii_lower(p[1]) == 'a'
        && ascii_lower(p[2]) == 'r') return BAR;
    if (n == 3 && ascii_lower(p[0]) == 'o' && ascii_lower(p[1]) == 'f'
        && ascii_lower(p[2]) == 'f') return OFF;
    if (n == 1 && (p[0] == 'b' || p[0] == 'B')) return BAR;
    if (n == 1 && (p[0] == 'o' || p[0] == 'O')) return OFF;
    if (n == 0 || n > 3) return -1;
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!ascii_digit(p[i])) return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v <= 25 ? v : -1;
}

int parse_play(const char *text, int n, Move *moves, int max_moves)
{
    int k = 0, i = 0;
    while (i < n) {
        while (i < n && (text[i] == ' ' || text[i] == ',')) i++;
        if (i == n) break;
        int chain_start = k, prev = -1, points = 0;
        for (;;) {
            int j = i;
            while (j < n && ascii_alnum(text[j])) j++;
            int pt = point_word(text + i, j - i);
            if (pt < 0) return -1;
            if (j < n && text[j] == '*') j++;
            if (points++ > 0) {
                if (pt >= prev || k == max_moves) return -1;
                moves[k].s = prev;
                moves[k].t = pt;
                k++;
            }
            prev = pt;
            i = j;
            if (i < n && text[i] == '/') { i++; continue; }
            break;
        }
        if (points < 2) return -1;
        if (i + 2 < n && text[i] == '(' && text[i + 2] == ')' && text[i + 1] >= '1' && text[i + 1] <= '4') {
            int times = text[i + 1] - '0', len = k - chain_start;
            if (k + (times - 1) * len > max_moves) return -1;
            for (int r = 1; r < times; r++)
                for (int q = 0; q < len; q++) moves[k++] = moves[chain_start + q];
            i += 3;
        }
        if (i < n && text[i] != ' ' && text[i] != ',') return -1;
    }
    return k;
}

/* ------------------------------------------------------------------ cutting into dice */

typedef struct { int s, d, passing; } Segment;
typedef struct { Segment seg[MAX_DICE]; int n; } Cut;
#define MAX_CUTS 64
#define MAX_PATHS 64
typedef struct { int d[MAX_DICE]; int n; } Path;

static void sort_desc(int *a, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && a[j - 1] < a[j]; j--) { int x = a[j]; a[j] = a[j - 1]; a[j - 1] = x; }
}

/* itertools.permutations(dice, k) in its order: index tuples, lexicographic. */
static int next_index_permutation(int *idx, int n, int k, int *used)
{
    /* advance idx (k distinct indices of 0..n-1) to the next in lexicographic order */
    for (int pos = k - 1; pos >= 0; pos--) {
        used[idx[pos]] = 0;
        for (int v = idx[pos] + 1; v < n; v++) {
            if (used[v]) continue;
            idx[pos] = v;
            used[v] = 1;
            int ok = 1;
            for (int q = pos + 1; q < k; q++) {   /* the smallest unused for the rest */
                int w = 0;
                while (w < n && used[w]) w++;
                if (w == n) { ok = 0; break; }
                idx[q] = w;
                used[w] = 1;
            }
            if (ok) return 1;
            for (int q = pos; q < k; q++) used[idx[q]] = 0;   /* cannot happen with k <= n */
            return 0;
        }
    }
    return 0;
}

static int same_path(const Path *a, const int *combo, int k)
{
    if (a->n != k) return 0;
    for (int i = 0; i < k; i++) if (a->d[i] != combo[i]) return 0;
    return 1;
}

/* judge._die_paths: the ways to cover one written move with unused dice. */
static int die_paths(int s, int t, const int *dice, int ndice, Path *paths)
{
    int npaths = 0;
    for (int k = 1; k <= ndice; k++) {
        int combos[24 * 4][MAX_DICE], ncombos = 0;
        if (k == 1) {   /* distinct dice, largest first */
            for (int i = 0; i < ndice; i++) {
                int seen = 0;
                for (int j = 0; j < i; j++) if (dice[j] == dice[i]) seen = 1;
                if (!seen) combos[ncombos++][0] = dice[i];
            }
        } else {
            int idx[MAX_DICE], used[MAX_DICE] = {0};
            for (int q = 0; q < k; q++) { idx[q] = q; used[q] = 1; }
            do {
                for (int q = 0; q < k; q++) combos[ncombos][q] = dice[idx[q]];
                ncombos++;
            } while (next_index_permutation(idx, ndice, k, used));
        }
        for (int c = 0; c < ncombos; c++) {
            const int *combo = combos[c];
            int dup = 0;
            for (int p = 0; p < npaths; p++) if (same_path(&paths[p], combo, k)) dup = 1;
            if (dup) continue;
            int total = 0;
            for (int q = 0; q < k; q++) total += combo[q];
            int before_last = s - total + combo[k - 1];
            int ok = s - total == t;
            if (!ok && t == OFF && s - total < 0 && before_last > 0) {
                ok = 1;
                int sum = 0;
                for (int j = 1; j < k; j++) { sum += combo[j - 1]; if (s - sum <= 0) ok = 0; }
            }
            if (ok && npaths < MAX_PATHS) {
                paths[npaths].n = k;
                for (int q = 0; q < k; q++) paths[npaths].d[q] = combo[q];
                npaths++;
            }
        }
    }
    return npaths;
}

typedef struct {
    const Move *moves;
    int nmoves, dbl;
    Cut cuts[MAX_CUTS];
    int ncuts;
    Cut acc;
} Cutter;

static void cut_from(Cutter *c, int i, const int *left, int nleft)
{
    if (c->ncuts == MAX_CUTS) return;
    if (i == c->nmoves) { c->cuts[c->ncuts++] = c->acc; return; }
    int sorted[MAX_DICE];
    memcpy(sorted, left, sizeof(int) * (size_t)nleft);
    sort_desc(sorted, nleft);
    Path paths[MAX_PATHS];
    int npaths = die_paths(c->moves[i].s, c->moves[i].t, sorted, nleft, paths);
    for (int p = 0; p < npaths; p++) {
        int s = c->moves[i].s, start = c->acc.n;
        for (int j = 0; j < paths[p].n; j++) {
            int d = paths[p].d[j];
            c->acc.seg[c->acc.n++] = (Segment){s, d, !c->dbl && j < paths[p].n - 1};
            s -= d;
        }
        /* the dice left, in their order (list.remove takes the first of each) */
        int kept[MAX_DICE], nkept = 0, taken[MAX_DICE] = {0};
        for (int j = 0; j < paths[p].n; j++)
            for (int q = 0; q < nleft; q++)
                if (!taken[q] && left[q] == paths[p].d[j]) { taken[q] = 1; break; }
        for (int q = 0; q < nleft; q++) if (!taken[q]) kept[nkept++] = left[q];
        cut_from(c, i + 1, kept, nkept);
        c->acc.n = start;
    }
}

/* judge._decompositions */
static int decompositions(Cutter *c, const Move *moves, int nmoves, const int *dice, int ndice)
{
    c->moves = moves;
    c->nmoves = nmoves;
    c->ncuts = 0;
    c->acc.n = 0;
    int left[MAX_DICE], nleft = ndice, simple = 1;
    memcpy(left, dice, sizeof(int) * (size_t)ndice);
    for (int i = 0; i < nmoves && simple; i++) {   /* the common case: every move one die onto the board */
        int d = moves[i].s - moves[i].t, found = -1;
        for (int q = 0; q < nleft; q++) if (left[q] == d) { found = q; break; }
        if (moves[i].t == OFF || found < 0) simple = 0;
        else { memmove(left + found, left + found + 1, sizeof(int) * (size_t)(nleft - found - 1)); nleft--; }
    }
    if (simple) {
        c->cuts[0].n = nmoves;
        for (int i = 0; i < nmoves; i++) c->cuts[0].seg[i] = (Segment){moves[i].s, moves[i].s - moves[i].t, 0};
        c->ncuts = 1;
        return 1;
    }
    c->dbl = 1;
    for (int i = 1; i < ndice; i++) if (dice[i] != dice[0]) c->dbl = 0;
    cut_from(c, 0, dice, ndice);
    return c->ncuts;
}

/* ------------------------------------------------------------------ playing the segments */

typedef struct {
    signed char me[26];
    uint32_t hits;
    signed char hitters[MAX_DICE + 4];
    int nhitters;
} State;

static int run(const Turn *t, const Segment *segs, int n, int strict, State *out, Step *done, int *dice_used)
{
    State w;
    memcpy(w.me, t->start.me, 26);
    w.hits = 0;
    w.nhitters = 0;
    for (int i = 0; i < n; i++) {
        int to, hit;
        if (core_step(t, w.me, w.hits, w.hitters, w.nhitters, segs[i].s, segs[i].d, &to, &hit)) return 0;
        if (strict && hit && segs[i].passing) return 0;
        core_apply(t, w.me, &w.hits, w.hitters, &w.nhitters, segs[i].s, to, hit);
        done[i] = (Step){(signed char)segs[i].s, (signed char)to, (signed char)hit};
        dice_used[i] = segs[i].d;
        if (t->every_step && !block_ok(t, w.me)) return 0;
    }
    *out = w;
    return 1;
}

static int same_segments(const Segment *a, const Segment *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].s != b[i].s || a[i].d != b[i].d || a[i].passing != b[i].passing) return 0;
    return 1;
}

/* Whether some order of some cut, played with hits allowed while passing,
 * ends other than ``found`` (judge._Attempt.alternative): the written play
 * then reads two ways (a combined move that can hit on either way). */
static int reads_otherwise(const Turn *t, const Cutter *c, const State *found)
{
    for (int k = 0; k < c->ncuts; k++) {
        const Cut *cut = &c->cuts[k];
        int m = cut->n, idx[MAX_DICE], used[MAX_DICE] = {0};
        for (int q = 0; q < m; q++) { idx[q] = q; used[q] = 1; }
        do {
            Segment order[MAX_DICE];
            Step done[MAX_DICE];
            int dice_used[MAX_DICE];
            State other;
            for (int q = 0; q < m; q++) order[q] = cut->seg[idx[q]];
            if (run(t, order, m, 0, &other, done, dice_used)
                && (other.hits != found->hits || memcmp(other.me, found->me, 26)))
                return 1;
        } while (next_index_permutation(idx, m, m, used));
    }
    return 0;
}

/* judge._Attempt.search: as written, then every other order of each cut
 * (itertools.permutations, repeats dropped), strict first.  Returns 1 when
 * found, 2 when found only with hits while passing and the play reads two
 * ways (the reference names the readings), 0 otherwise. */
static int search_runs(const Turn *t, const Cutter *c, State *out, Step *done, int *dice_used, int *n)
{
    for (int strict = 1; strict >= 0; strict--) {
        for (int k = 0; k < c->ncuts; k++)
            if (run(t, c->cuts[k].seg, c->cuts[k].n, strict, out, done, dice_used)) {
                *n = c->cuts[k].n;
                return !strict && reads_otherwise(t, c, out) ? 2 : 1;
            }
        for (int k = 0; k < c->ncuts; k++) {
            const Cut *cut = &c->cuts[k];
            int m = cut->n, idx[MAX_DICE], used[MAX_DICE] = {0};
            Segment tried[24][MAX_DICE];
            int ntried = 0;
            for (int q = 0; q < m; q++) { idx[q] = q; used[q] = 1; }
            do {
                Segment order[MAX_DICE];
                for (int q = 0; q < m; q++) order[q] = cut->seg[idx[q]];
                int dup = 0;
                for (int p = 0; p < ntried; p++) if (same_segments(tried[p], order, m)) dup = 1;
                if (dup) continue;
                memcpy(tried[ntried++], order, sizeof order);
                if (run(t, order, m, strict, out, done, dice_used)) {
                    *n = m;
                    return !strict && reads_otherwise(t, c, out) ? 2 : 1;
                }
            } while (next_index_permutation(idx, m, m, used));
        }
    }
    return 0;
}

int judge_play(const Turn *t, Search *s, const Move *moves, int nmoves, Board *after, Step *steps,
               int *nsteps, int *dice_used)
{
    const Rules *r = t->r;
    if (nmoves > t->ndice) return 0;
    Cutter c;
    if (!decompositions(&c, moves, nmoves, t->dice, t->ndice)) return 0;
    State end;
    int used;
    if (search_runs(t, &c, &end, steps, dice_used, &used) != 1) return 0;  /* 2: ambiguous, the reference says so */
    if (!block_ok(t, end.me)) return 0;
    int heads = r->v[R_LONG] ? t->start_head - end.me[HEAD] : 0;
    int needs_generation = used < t->ndice
        || (r->v[R_LONG] && t->first_turn && r->v[R_HEAD] == HEAD_GENERAL && heads > r->v[R_HEAD_LIMIT]);
    if (needs_generation) {
        legal_plays(t, s);
        if (s->overflow) return 0;
        int found = 0;
        for (int i = 0; i < s->nchosen && !found; i++) {
            const End *e = &s->ends[s->chosen[i]];
            found = e->hits == end.hits && !memcmp(e->me, end.me, 26);
        }
        if (!found) return 0;
    }
    end_board(t, end.me, end.hits, after);
    *nsteps = used;
    return 1;
}
