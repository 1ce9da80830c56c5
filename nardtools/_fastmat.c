/*
 * nardtools._fastmat: a compiled check of plain backgammon .mat files, for
 * `nardtools validate`.
 *
 * It vouches for a file only when it can see that the full replay
 * (nardtools.notation.replay, the reference) would report nothing at all:
 * every line is one it understands, every play is legal, every cube action
 * allowed, every game ends with the result the record states.  Anything else,
 * from a tab or an unknown tag to an illegal play, makes it answer "ask the
 * reference" (None), and the file is replayed in Python, which finds and
 * explains the problem.  So it never reports a problem itself, and a file it
 * vouches for gets the same counts the reference gives (tests/test_fastmat.py
 * checks both on the corpus and on mutated copies).
 *
 * It serves the ruleset `backgammon` with its default options and the starts
 * the .mat Variation tag selects (standard, nackgammon, hypergammon), in the
 * gnubg/Jellyfish dialect and those close to it (Backgammon Studio's combined
 * moves, `Cannot Move`, `????` and other resignations by `Wins`, Galaxy's
 * `Losses`).
 *
 * Boards are 26 counts per side in the side's own numbering: 0 off, 1-24 the
 * points, 25 the bar; the opponent's point q faces my point 25 - q.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <ctype.h>

#define OFF 0
#define BAR 25
#define MAX_STEPS 8
#define MAX_FINALS 4096
#define MAX_LINE 10000     /* the reference reads no longer line (nardtools.notation.source) */

typedef struct { signed char me[26], opp[26]; } Board;

/* Where the last file was handed to the reference: this file's line of code
 * and the record's line (for tests and for finding what to teach this module). */
static int defer_code, defer_record_line;
#define DEFER return (defer_code = __LINE__, 0)

/* ------------------------------------------------------------------ moves */

/* One die d from point s on board b (mover's view): the target (0 for off), or -1. */
static int step_target(const Board *b, int s, int d)
{
    if (s < 1 || s > 25 || b->me[s] <= 0) return -1;
    if (s != BAR && b->me[BAR] > 0) return -1;          /* bar first */
    int t = s - d;
    if (t >= 1) {
        if (b->opp[25 - t] >= 2) return -1;             /* the opponent's point */
        return t;
    }
    for (int p = 7; p <= 25; p++) if (b->me[p]) return -1;   /* not all home */
    if (t < 0) for (int p = s + 1; p <= 6; p++) if (b->me[p]) return -1;  /* higher checker */
    return OFF;
}

static void apply_step(Board *b, int s, int t)
{
    b->me[s]--;
    b->me[t]++;
    if (t >= 1 && b->opp[25 - t] == 1) { b->opp[25 - t] = 0; b->opp[BAR]++; }
}

/* The ends of turn found so far, with their rank, in a hash set. */
typedef struct {
    Board finals[MAX_FINALS];
    int rank_used[MAX_FINALS], rank_die[MAX_FINALS];
    int slot[2 * MAX_FINALS];      /* index into finals, when stamp[h] == this search's */
    unsigned stamp[2 * MAX_FINALS];
    unsigned search;
    int n, overflow;
} Reach;

static unsigned board_hash(const Board *b, int used, int die)
{
    unsigned h = 2166136261u ^ (unsigned)(used * 8 + die);
    const unsigned char *p = (const unsigned char *)b;
    for (size_t i = 0; i < sizeof *b; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static void reach_add(Reach *r, const Board *b, int used, int die)
{
    unsigned mask = 2 * MAX_FINALS - 1, h = board_hash(b, used, die) & mask;
    for (; r->stamp[h] == r->search; h = (h + 1) & mask) {
        int i = r->slot[h];
        if (r->rank_used[i] == used && r->rank_die[i] == die && !memcmp(&r->finals[i], b, sizeof *b)) return;
    }
    if (r->n == MAX_FINALS) { r->overflow = 1; return; }
    r->finals[r->n] = *b;
    r->rank_used[r->n] = used;
    r->rank_die[r->n] = die;
    r->stamp[h] = r->search;
    r->slot[h] = r->n++;
}

/* Every end of turn reachable with the dice in the given order (a prefix of them). */
static void explore(Reach *r, const Board *b, const int *dice, int n, int depth, int first_die, int dbl)
{
    if (r->overflow) return;
    reach_add(r, b, depth, depth == 1 && !dbl ? first_die : 0);
    if (depth == n) return;
    for (int s = 25; s >= 1; s--) {
        int t = step_target(b, s, dice[depth]);
        if (t < 0) continue;
        Board next = *b;
        apply_step(&next, s, t);
        explore(r, &next, dice, n, depth + 1, depth == 0 ? dice[0] : first_die, dbl);
    }
}

/* Whether `final` is among the legal ends of turn: those of the highest rank
 * (most dice, then for one die of a non-double the larger), as the engine's
 * maximum-dice and larger-die rules choose.  -1 when it cannot tell. */
static int is_legal_end(const Board *start, const Board *final, int hi, int lo)
{
    static Reach r;
    int dbl = hi == lo;
    int dice[4] = {hi, lo, hi, lo};
    r.n = 0; r.overflow = 0;
    if (++r.search == 0) {         /* the stamps wrapped round: clear them */
        memset(r.stamp, 0, sizeof r.stamp);
        r.search = 1;
    }
    if (dbl) {
        explore(&r, start, dice, 4, 0, 0, 1);
    } else {
        explore(&r, start, dice, 2, 0, 0, 0);
        int swapped[2] = {lo, hi};
        explore(&r, start, swapped, 2, 0, 0, 0);
    }
    if (r.overflow) return -1;
    int best_used = -1, best_die = -1;
    for (int i = 0; i < r.n; i++)
        if (r.rank_used[i] > best_used || (r.rank_used[i] == best_used && r.rank_die[i] > best_die)) {
            best_used = r.rank_used[i];
            best_die = r.rank_die[i];
        }
    for (int i = 0; i < r.n; i++)
        if (r.rank_used[i] == best_used && r.rank_die[i] == best_die && !memcmp(&r.finals[i], final, sizeof *final))
            return 1;
    return 0;
}

typedef struct { int s, t; } Move;

/* Play the written moves, each with one die or several (`22/13` with 6-3),
 * their dice in any order and interleaved (`bar/21(2)` with 2-2 enters both
 * checkers first), never hitting on the way through a move of a non-double.
 * That is the reference's first ("strict") search, and every play it finds
 * ends on the same board.  `at[i]` is where move i's checker has got to.
 * On success the board is left as played and *used counts the dice. */
static int play_written(Board *b, const Move *moves, int k, int *at, int *left, int n_left, int done,
                        int dbl, int *used)
{
    if (done == (1 << k) - 1) return 1;
    for (int i = 0; i < k; i++) {
        if (done & (1 << i)) continue;
        int t = moves[i].t, from = at[i];
        for (int j = 0; j < n_left; j++) {
            int d = left[j], seen = 0;
            for (int q = 0; q < j; q++) if (left[q] == d) seen = 1;
            if (seen) continue;
            int to = from - d;
            int last = t != OFF ? to == t : to <= 0;
            if (t != OFF && to < t) continue;
            int got = step_target(b, from, d);
            if (got < 0 || got != (last ? t : to)) continue;
            if (!last && !dbl && b->opp[25 - to] == 1) continue;    /* no hit on the way (strict) */
            Board saved = *b;
            apply_step(b, from, got);
            left[j] = left[n_left - 1];
            at[i] = to;
            (*used)++;
            if (play_written(b, moves, k, at, left, n_left - 1, last ? done | (1 << i) : done, dbl, used))
                return 1;
            (*used)--;
            at[i] = from;
            left[j] = d;
            *b = saved;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ text */

typedef struct { const char *p; int n; } Span;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int is_word(char c) { return isalnum((unsigned char)c) || c == '_'; }

static Span strip(Span x)
{
    while (x.n && is_space(x.p[0])) { x.p++; x.n--; }
    while (x.n && is_space(x.p[x.n - 1])) x.n--;
    return x;
}

/* Case-insensitive: does x start with the lower-case word w? */
static int starts_with(Span x, const char *w)
{
    int n = (int)strlen(w);
    if (x.n < n) return 0;
    for (int i = 0; i < n; i++) if (tolower((unsigned char)x.p[i]) != w[i]) return 0;
    return 1;
}

/* A point word of a play: 0-25 (leading zeros allowed), bar, off, b, o; -1 otherwise. */
static int point_word(const char *p, int n)
{
    Span w = {p, n};
    if (n == 3 && starts_with(w, "bar")) return BAR;
    if (n == 3 && starts_with(w, "off")) return OFF;
    if (n == 1 && (p[0] == 'b' || p[0] == 'B')) return BAR;
    if (n == 1 && (p[0] == 'o' || p[0] == 'O')) return OFF;
    if (n == 0 || n > 3) return -1;
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)p[i])) return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v <= 25 ? v : -1;
}

/* Moves of a play written as gnubg does (`24/18 13/9*`, chains, `(2)`); -1 if
 * anything else is there. */
static int parse_play(Span text, Move *moves)
{
    int k = 0, i = 0;
    while (i < text.n) {
        while (i < text.n && (text.p[i] == ' ' || text.p[i] == ',')) i++;
        if (i == text.n) break;
        int chain_start = k, prev = -1, points = 0;
        for (;;) {
            int j = i;
            while (j < text.n && isalnum((unsigned char)text.p[j])) j++;
            int pt = point_word(text.p + i, j - i);
            if (pt < 0) return -1;
            if (j < text.n && text.p[j] == '*') j++;
            if (points++ > 0) {
                if (pt >= prev || k == MAX_STEPS) return -1;
                moves[k].s = prev; moves[k].t = pt; k++;
            }
            prev = pt;
            i = j;
            if (i < text.n && text.p[i] == '/') { i++; continue; }
            break;
        }
        if (points < 2) return -1;
        if (i + 2 < text.n && text.p[i] == '(' && text.p[i + 2] == ')' && text.p[i + 1] >= '1' && text.p[i + 1] <= '4') {
            int times = text.p[i + 1] - '0', len = k - chain_start;
            if (k + (times - 1) * len > MAX_STEPS) return -1;
            for (int r = 1; r < times; r++)
                for (int q = 0; q < len; q++) moves[k++] = moves[chain_start + q];
            i += 3;
        }
        if (i < text.n && text.p[i] != ' ' && text.p[i] != ',') return -1;
    }
    return k;
}

/* A written play of the roll hi-lo from `start`: 1 and the board after it when
 * it is legal as the reference would judge it, 0 when it is not or when this
 * module cannot tell. */
static int judge_play(const Board *start, int hi, int lo, Span play, Board *after)
{
    Move moves[MAX_STEPS];
    int k = parse_play(play, moves);
    int n = hi == lo ? 4 : 2;
    if (k < 0 || k > n) return 0;
    int dice[4] = {hi, lo, hi, lo}, at[MAX_STEPS], used = 0;
    for (int i = 0; i < k; i++) at[i] = moves[i].s;
    *after = *start;
    if (!play_written(after, moves, k, at, dice, n, 0, hi == lo, &used)) return 0;
    return used == n || is_legal_end(start, after, hi, lo) == 1;
}

/* ------------------------------------------------------------------ games */

enum { OPENING, ROLL, ROLLED, DOUBLED, OVER };  /* ROLLED: rolled, then resigned (`64: ????`) */
enum { A_ROLL, A_ROLL_RESIGN, A_DOUBLE, A_TAKE, A_DROP, A_WIN };

typedef struct {
    Board board;       /* from the side on roll: me is on_roll's checkers */
    int phase, on_roll, started, cube, owner, doubler, crawford;
    int winner, points;
    long turns;
} Game;

static void game_start(Game *g, int start)
{
    memset(g, 0, sizeof *g);
    static const int standard[][2] = {{24, 2}, {13, 5}, {8, 3}, {6, 5}, {0, 0}};
    static const int nack[][2] = {{24, 2}, {23, 2}, {13, 4}, {8, 3}, {6, 4}, {0, 0}};
    static const int hyper[][2] = {{24, 1}, {23, 1}, {22, 1}, {0, 0}};
    const int (*setup)[2] = start == 1 ? nack : start == 2 ? hyper : standard;
    for (int i = 0; setup[i][1]; i++) g->board.me[setup[i][0]] = (signed char)setup[i][1];
    memcpy(g->board.opp, g->board.me, sizeof g->board.me);   /* both sides start alike */
    g->phase = OPENING;
    g->cube = 1;
    g->owner = -1;
}

/* One action; 0 when the reference must judge the file. */
static int game_act(Game *g, int kind, int player, int hi, int lo, Span play, int value)
{
    if (g->phase == OVER) {             /* only the result may follow, as the record states it */
        if (kind != A_WIN || player != g->winner || value != g->points) DEFER;
        return 1;
    }
    if (!g->started) {
        if (kind == A_WIN) DEFER;                  /* a forfeit */
        g->on_roll = player;
        g->phase = ROLL;
        g->started = 1;
    }
    switch (kind) {
    case A_ROLL: {
        if (g->phase != ROLL || player != g->on_roll) DEFER;
        Board b;
        if (!judge_play(&g->board, hi, lo, play, &b)) DEFER;
        g->turns++;
        int left = 0;
        for (int p = 1; p <= 25; p++) left += b.me[p];
        if (left == 0) {
            const signed char *loser = b.opp;
            int kind_points = 2;
            if (loser[OFF] > 0) kind_points = 1;
            else {
                if (loser[BAR]) kind_points = 3;
                for (int p = 19; p <= 24; p++) if (loser[p]) kind_points = 3;
            }
            g->phase = OVER;
            g->winner = player;
            g->points = kind_points * g->cube;
        } else {                                       /* the other side is on roll */
            memcpy(g->board.me, b.opp, sizeof b.opp);
            memcpy(g->board.opp, b.me, sizeof b.me);
            g->on_roll = 1 - player;
        }
        return 1;
    }
    case A_ROLL_RESIGN:                                /* the result that follows says how much */
        if (g->phase != ROLL || player != g->on_roll) DEFER;
        g->phase = ROLLED;
        return 1;
    case A_DOUBLE:
        if (g->phase != ROLL || player != g->on_roll || g->crawford) DEFER;
        if (g->owner >= 0 && g->owner != g->on_roll) DEFER;
        if (g->cube * 2 > 64 || value != g->cube * 2) DEFER;
        g->doubler = player;
        g->phase = DOUBLED;
        return 1;
    case A_TAKE:
        if (g->phase != DOUBLED) DEFER;
        g->cube *= 2;
        g->owner = 1 - g->doubler;
        g->phase = ROLL;
        return 1;
    case A_DROP:
        if (g->phase != DOUBLED) DEFER;
        g->phase = OVER;
        g->winner = g->doubler;
        g->points = g->cube;
        return 1;
    case A_WIN: {
        /* the loser resigned: the level the points make at this cube */
        if (g->phase != ROLL && g->phase != ROLLED) DEFER;
        int level = (value + g->cube - 1) / g->cube;
        if (level < 1) level = 1;
        if (level > 3) level = 3;
        if (level * g->cube != value) DEFER;             /* the reference warns */
        g->phase = OVER;
        g->winner = player;
        g->points = value;
        return 1;
    }
    default:
        DEFER;
    }
}

/* ------------------------------------------------------------------ lines */

typedef struct {
    int length, start, header, expect_score, crawford_done, have_game;
    int score[2];
    long games, complete, turns;
    Game g;
} File;

/* The end of a game record; 0 when the reference has something to say about it. */
static int finish_game(File *f)
{
    if (!f->have_game) return 1;
    if (f->expect_score) DEFER;                     /* no score line */
    f->turns += f->g.turns;
    if (f->g.phase == OVER) { f->complete++; return 1; }
    return !f->g.started;      /* actions but no result: the reference reports it */
}

/* Digits at *i: their value (-1 past a million, where the reference's numbers
 * could no longer be followed), and *i moved past all of them. */
static int parse_uint(const char *p, int n, int *i, int *value)
{
    int j = *i, v = 0;
    if (j >= n || !isdigit((unsigned char)p[j])) return 0;
    for (; j < n && isdigit((unsigned char)p[j]); j++)
        v = v < 0 || v > 100000 ? -1 : v * 10 + (p[j] - '0');
    *i = j;
    *value = v;
    return 1;
}

/* One tag starting at p[i] == '[', read exactly as the reference's regular
 * expression reads it: `[`, spaces, a name of 1 to 81 characters (the
 * shortest that works; no `"` or `]`, not starting with a space), spaces, a
 * quoted value, spaces, `]`.  The index after it, or -1 when there is none. */
static int read_tag(const char *p, int n, int i, Span *name, Span *value)
{
    int j = i + 1;
    while (j < n && is_space(p[j])) j++;
    if (j >= n || p[j] == '"' || p[j] == ']') return -1;
    for (int e = j + 1; e <= j + 81 && e < n; e++) {
        if (p[e - 1] == '"' || p[e - 1] == ']') return -1;    /* the name cannot go on */
        if (!is_space(p[e])) continue;
        int k = e;
        while (k < n && is_space(p[k])) k++;
        if (k >= n || p[k] != '"') continue;
        int v = k + 1;
        while (v < n && p[v] != '"') v++;
        if (v >= n) continue;
        int r = v + 1;
        while (r < n && is_space(p[r])) r++;
        if (r >= n || p[r] != ']') continue;
        *name = (Span){p + j, e - j};
        *value = (Span){p + k + 1, v - k - 1};
        return r + 1;
    }
    return -1;
}

static int is_name(Span name, const char *key)
{
    return name.n == (int)strlen(key) && starts_with(name, key);
}

/* A comment line: tags the reference reads change the rules; take only
 * Variation, and CubeLimit and Crawford when they say what is played here. */
static int comment_line(File *f, Span line)
{
    Span body = strip((Span){line.p + 1, line.n - 1});
    if (starts_with(body, "set")) {
        Span rest = strip((Span){body.p + 3, body.n - 3});
        if (starts_with(rest, "pos")) DEFER;
    }
    if (!memchr(line.p, '[', line.n)) return 1;
    for (int i = 0; i < line.n; i++)      /* the reference's spaces include more than ASCII's */
        if (((unsigned char)line.p[i] < 0x20 && line.p[i] != '\t') || (unsigned char)line.p[i] >= 0x7f) DEFER;
    for (int i = 0; i < line.n; i++) {
        if (line.p[i] != '[') continue;
        Span name, value;
        int end = read_tag(line.p, line.n, i, &name, &value);
        if (end < 0) continue;
        i = end - 1;
        if (is_name(name, "cubelimit")) {
            /* the reference plays to the limit named: vouch only for limits of 64 and above */
            Span v = strip(value);
            int k = 0, limit;
            if (!parse_uint(v.p, v.n, &k, &limit) || k != v.n || limit < 64) DEFER;
        } else if (is_name(name, "crawford")) {
            Span v = strip(value);                            /* "On" is the rule applied here */
            if (v.n != 2 || !starts_with(v, "on")) DEFER;
        } else if (is_name(name, "ruleset") || is_name(name, "ruleoptions") || is_name(name, "options")
                   || is_name(name, "game")) {
            DEFER;
        } else if (is_name(name, "variation")) {
            char norm[32];
            int m = 0;
            for (int c = 0; c < value.n; c++)
                if (value.p[c] != ' ' && m < 31) norm[m++] = (char)tolower((unsigned char)value.p[c]);
            norm[m] = 0;
            if (!strncmp(norm, "backgammon", 10)) f->start = 0;
            else if (!strncmp(norm, "nackgammon", 10)) f->start = 1;
            else if (!strncmp(norm, "hypergammon", 11)) f->start = 2;
            else DEFER;
        }
    }
    return 1;
}

/* `name : score   name : score`: the two scores, or 0. */
static int score_line(File *f, Span line)
{
    int i = 0, c1 = -1;
    for (; i < line.n; i++) {
        if (line.p[i] != ':') continue;
        int j = i + 1, v;
        while (j < line.n && is_space(line.p[j])) j++;
        if (parse_uint(line.p, line.n, &j, &v) && j < line.n && is_space(line.p[j])) {
            if (v < 0) DEFER;
            f->score[0] = v;
            c1 = j;
            break;
        }
    }
    if (c1 < 0) DEFER;
    int end = line.n;
    while (end > c1 && isdigit((unsigned char)line.p[end - 1])) end--;
    if (end == line.n) DEFER;
    int j = end, v;
    parse_uint(line.p, line.n, &j, &v);
    if (v < 0) DEFER;
    int k = end;
    while (k > c1 && is_space(line.p[k - 1])) k--;
    if (k <= c1 || line.p[k - 1] != ':') DEFER;
    f->score[1] = v;
    return 1;
}

/* Whether a cell starts at i: dice `64:` or a cube or result word, after a space. */
static int cell_start(Span body, int i)
{
    if (i > 0 && !is_space(body.p[i - 1])) return 0;
    char c = body.p[i];
    if (c >= '1' && c <= '6')
        return i + 2 < body.n && body.p[i + 1] >= '1' && body.p[i + 1] <= '6' && body.p[i + 2] == ':';
    if (!isalpha((unsigned char)c)) return 0;
    static const char *words[] = {"doubles", "beavers", "raccoons", "takes", "drops", "passes", "wins", "losses", "resigns"};
    Span rest = {body.p + i, body.n - i};
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        int n = (int)strlen(words[w]);
        if (starts_with(rest, words[w]) && (n == rest.n || !is_word(rest.p[n]))) return 1;
    }
    return 0;
}

/* `and the match`, words apart by any spaces. */
static int and_the_match(Span x)
{
    static const char *words[] = {"and", "the", "match"};
    for (int w = 0; w < 3; w++) {
        int n = (int)strlen(words[w]);
        if (!starts_with(x, words[w]) || (x.n > n && !is_space(x.p[n])) || (w < 2 && x.n == n)) return 0;
        x = strip((Span){x.p + n, x.n - n});
    }
    return x.n == 0;
}

/* One cell; 0 when the reference must judge the file. */
static int cell(File *f, Span text, int player)
{
    Game *g = &f->g;
    if (text.n >= 3 && text.p[0] >= '1' && text.p[0] <= '6' && text.p[1] >= '1' && text.p[1] <= '6' && text.p[2] == ':') {
        int d1 = text.p[0] - '0', d2 = text.p[1] - '0';
        Span play = strip((Span){text.p + 3, text.n - 3});
        int hi = d1 > d2 ? d1 : d2, lo = d1 > d2 ? d2 : d1;
        if (play.n && play.p[0] == '?') return game_act(g, A_ROLL_RESIGN, player, hi, lo, play, 0);
        if (starts_with(play, "illegal")) DEFER;
        if (starts_with(play, "cannot move") && play.n == 11) play.n = 0;
        return game_act(g, A_ROLL, player, hi, lo, play, 0);
    }
    if (starts_with(text, "doubles")) {
        int i = 7, v;
        while (i < text.n && is_space(text.p[i])) i++;
        if (i + 1 >= text.n || text.p[i] != '=' || text.p[i + 1] != '>') DEFER;
        i += 2;
        while (i < text.n && is_space(text.p[i])) i++;
        if (!parse_uint(text.p, text.n, &i, &v) || i != text.n || v < 0) DEFER;
        return game_act(g, A_DOUBLE, player, 0, 0, (Span){0, 0}, v);
    }
    if (starts_with(text, "takes") && text.n == 5) return game_act(g, A_TAKE, player, 0, 0, (Span){0, 0}, 0);
    if ((starts_with(text, "drops") && text.n == 5) || (starts_with(text, "passes") && text.n == 6))
        return game_act(g, A_DROP, player, 0, 0, (Span){0, 0}, 0);
    int loss = starts_with(text, "losses");
    if (starts_with(text, "wins") || loss) {
        int i = loss ? 6 : 4, v;
        if (i >= text.n || !is_space(text.p[i])) DEFER;
        while (i < text.n && is_space(text.p[i])) i++;
        if (!parse_uint(text.p, text.n, &i, &v) || v < 0) DEFER;
        if (i >= text.n || !is_space(text.p[i])) DEFER;
        while (i < text.n && is_space(text.p[i])) i++;
        Span rest = {text.p + i, text.n - i};
        if (!starts_with(rest, "point")) DEFER;
        int w = rest.n > 5 && tolower((unsigned char)rest.p[5]) == 's' ? 6 : 5;
        if (rest.n > w && is_word(rest.p[w])) DEFER;
        Span tail = strip((Span){rest.p + w, rest.n - w});
        if (tail.n && !and_the_match(tail)) DEFER;
        if (loss) return 1;                            /* the reference reads it, then sets it aside */
        return game_act(g, A_WIN, player, 0, 0, (Span){0, 0}, v);
    }
    DEFER;
}

static int move_line(File *f, Span line)
{
    int i = 0, number = 0;
    while (i < line.n && is_space(line.p[i])) i++;
    int j = i, v;
    if (parse_uint(line.p, line.n, &j, &v) && j < line.n && line.p[j] == ')') number = 1, i = j + 1;
    else i = 0;
    int body_start = i;
    Span body = line;
    int starts[4], n = 0;
    for (int c = body_start; c < body.n; c++) {
        if (cell_start(body, c)) {
            if (n == 4) DEFER;
            starts[n++] = c;
        } else if (c > 0 && is_space(body.p[c - 1]) && isdigit((unsigned char)body.p[c])) {
            /* a move number repeated inside the line (`12)`): the reference blanks it */
            int q = c;
            while (q < body.n && isdigit((unsigned char)body.p[q])) q++;
            if (q < body.n && body.p[q] == ')' && (q + 1 == body.n || is_space(body.p[q + 1]))) DEFER;
        }
    }
    for (int c = body_start; c < (n ? starts[0] : body.n); c++)
        if (!is_space(body.p[c])) DEFER;
    if (n == 0) return 1;          /* a bare move number */
    for (int c = 0; c < n; c++) {
        int player;
        if (c == 0 && n >= 2) player = 0;
        else if (c == 1) player = 1;
        else if (c == 2) {                             /* a third slot (Galaxy): whoever did not lose */
            Span first = strip((Span){body.p + starts[0], starts[1] - starts[0]});
            Span second = strip((Span){body.p + starts[1], starts[2] - starts[1]});
            player = starts_with(first, "losses") ? 1 : starts_with(second, "losses") ? 0 : 1;
        }
        else if (number) player = starts[c] - body_start >= 8 ? 1 : 0;
        else player = starts[c] >= 20 ? 1 : 0;
        int end = c + 1 < n ? starts[c + 1] : body.n;
        if (!cell(f, strip((Span){body.p + starts[c], end - starts[c]}), player)) return 0;
    }
    return 1;
}

/* Whether data is valid UTF-8: the reference reads it so (BOM dropped), or
 * else as Latin-1 (BOM kept as three characters). */
static int valid_utf8(const unsigned char *p, const unsigned char *end)
{
    while (p < end) {
        unsigned c = *p++;
        int more = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (more < 0 || end - p < more) return 0;
        for (int i = 0; i < more; i++) if ((*p++ >> 6) != 2) return 0;
    }
    return 1;
}

/* The next line from *p, without its line end (\n, \r\n or \r). */
static Span next_line(const char **p, const char *end)
{
    const char *nl = *p;
    while (nl < end && *nl != '\n' && *nl != '\r') nl++;
    Span line = {*p, nl - *p > MAX_LINE ? MAX_LINE + 1 : (int)(nl - *p)};   /* an overlong line is deferred */
    if (nl < end && *nl == '\r') { nl++; if (nl < end && *nl == '\n') nl++; }
    else if (nl < end) nl++;
    *p = nl;
    return line;
}

static int is_comment(Span s) { return s.n && (s.p[0] == ';' || s.p[0] == '#'); }

/* The whole file: 1 and the counts when it is clean; 0 to ask the reference. */
static int check_file(const char *data, Py_ssize_t size, File *f)
{
    memset(f, 0, sizeof *f);
    const char *begin = data, *end = data + size, *p;
    if (size >= 3 && !memcmp(data, "\xef\xbb\xbf", 3) && valid_utf8((const unsigned char *)data, (const unsigned char *)end))
        begin += 3;
    /* first the tags, wherever they are: they choose the rules for every game */
    long lineno = 0;
    for (p = begin; p < end;) {
        Span line = next_line(&p, end);
        defer_record_line = (int)++lineno;
        if (line.n > MAX_LINE) DEFER;
        Span s = strip(line);
        if (is_comment(s) && !comment_line(f, s)) return 0;
    }
    int first = 1;
    lineno = 0;
    for (p = begin; p < end;) {
        Span line = next_line(&p, end);
        defer_record_line = (int)++lineno;
        Span s = strip(line);
        if (!s.n) continue;
        line.n = (int)(s.p - line.p) + s.n;            /* right-stripped, as the reference reads it */
        if (first && s.p[0] == '[') DEFER;              /* a native record */
        first = 0;
        if (is_comment(s)) continue;
        for (int i = 0; i < line.n; i++)               /* printable ASCII: columns are characters, */
            if ((unsigned char)line.p[i] < 0x20 || (unsigned char)line.p[i] > 0x7e) DEFER;   /* spaces, digits as the reference */
        if (!f->header) {
            int i = 0, v;
            if (lineno > 200 || !parse_uint(s.p, s.n, &i, &v) || v < 0) DEFER;
            Span rest = strip((Span){s.p + i, s.n - i});
            if (i == s.n || !is_space(s.p[i]) || !starts_with(rest, "point") || rest.n < 6 || !is_space(rest.p[5]))
                DEFER;
            rest = strip((Span){rest.p + 5, rest.n - 5});
            if (!starts_with(rest, "match") || (rest.n > 5 && is_word(rest.p[5]))) DEFER;
            f->length = v;
            f->header = 1;
            continue;
        }
        if (starts_with(s, "game") && s.n > 4 && is_space(s.p[4])) {
            int i = 4, v;
            while (i < s.n && is_space(s.p[i])) i++;
            if (!parse_uint(s.p, s.n, &i, &v) || i != s.n) DEFER;
            if (!finish_game(f)) return 0;
            f->games++;
            f->have_game = 1;
            f->expect_score = 1;
            game_start(&f->g, f->start);
            continue;
        }
        if (!f->have_game) DEFER;
        if (f->expect_score) {
            f->expect_score = 0;
            if (!score_line(f, s)) return 0;
            int crawford = 0;
            if (f->length && !f->crawford_done) {
                int a = f->score[0] == f->length - 1, b = f->score[1] == f->length - 1;
                if (a || b) { f->crawford_done = 1; crawford = !(a && b); }
            }
            f->g.crawford = crawford;
            continue;
        }
        if (!move_line(f, line)) return 0;
    }
    if (!f->header) DEFER;
    return finish_game(f);
}

static PyObject *vouch(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    File *f = PyMem_Malloc(sizeof *f);
    if (!f) { PyBuffer_Release(&view); return PyErr_NoMemory(); }
    int ok = check_file(view.buf, view.len, f);
    PyBuffer_Release(&view);
    PyObject *out = ok ? Py_BuildValue("(lll)", f->games, f->complete, f->turns) : Py_NewRef(Py_None);
    PyMem_Free(f);
    return out;
}

static PyObject *deferred(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return Py_BuildValue("(ii)", defer_record_line, defer_code);
}

/* play(mover, opponent, d1, d2, text): the compiled judgement of one play, for
 * tests against the engine's check_play. */
static PyObject *play_py(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *sides[2];
    int d1, d2;
    const char *text;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "OOiis#", &sides[0], &sides[1], &d1, &d2, &text, &len)) return NULL;
    if (d1 < 1 || d1 > 6 || d2 < 1 || d2 > 6) return PyErr_Format(PyExc_ValueError, "dice must be 1-6");
    Board start, after;
    for (int s = 0; s < 2; s++) {
        PyObject *seq = PySequence_Fast(sides[s], "a side is 26 counts");
        if (!seq) return NULL;
        if (PySequence_Fast_GET_SIZE(seq) != 26) {
            Py_DECREF(seq);
            return PyErr_Format(PyExc_ValueError, "a side is 26 counts");
        }
        for (int p = 0; p < 26; p++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, p));
            if (v < 0 || v > 15) {
                Py_DECREF(seq);
                return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "counts are 0-15");
            }
            (s ? start.opp : start.me)[p] = (signed char)v;
        }
        Py_DECREF(seq);
    }
    if (!judge_play(&start, d1 > d2 ? d1 : d2, d1 > d2 ? d2 : d1, (Span){text, (int)len}, &after)) Py_RETURN_NONE;
    PyObject *me = PyTuple_New(26), *opp = PyTuple_New(26);
    if (!me || !opp) { Py_XDECREF(me); Py_XDECREF(opp); return NULL; }
    for (int p = 0; p < 26; p++) {
        PyTuple_SET_ITEM(me, p, PyLong_FromLong(after.me[p]));
        PyTuple_SET_ITEM(opp, p, PyLong_FromLong(after.opp[p]));
    }
    return Py_BuildValue("(NN)", me, opp);
}

static PyMethodDef methods[] = {
    {"play", play_py, METH_VARARGS,
     "play(mover, opponent, d1, d2, text) -> (mover, opponent) | None\n\n"
     "The sides after a backgammon play written as text (26 counts each, own\n"
     "numbering: 0 off, 25 the bar), when it is legal; None when it is not or\n"
     "when the compiled check cannot tell."},
    {"deferred", deferred, METH_NOARGS,
     "deferred() -> (record line, source line)\n\nWhere the last vouch() that returned None gave up:\n"
     "the line of the record, and the line of _fastmat.c that decided."},
    {"vouch", vouch, METH_O,
     "vouch(data: bytes) -> (games, complete_games, turns) | None\n\n"
     "The counts of a .mat file the full replay would find nothing wrong in,\n"
     "or None when the file must be replayed by the reference."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastmat", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fastmat(void) { return PyModule_Create(&module); }
