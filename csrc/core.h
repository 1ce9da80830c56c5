/*
 * nardtools._core: the compiled core of the rules.
 *
 * One implementation of the rules for every fast path (validation,
 * statistics, playouts, self-play training, bear-off databases).  It follows
 * the readable Python reference (nardtools/turn.py, engine.py, judge.py, game.py) step
 * for step, so that both give the same plays, in the same order, with the
 * same canonical steps; the tests hold them together (tests/test_core.py and
 * the committed perft table, tests/fixtures/perft.json).  Wherever the core
 * cannot be sure it would agree (an illegal play to explain, a dialect
 * detail of a record), it says so and the reference answers.
 *
 * Boards are 26 counts per side in the side's own numbering: 0 off, 1-24 the
 * points, 25 the bar.  The mover's point p faces the opponent's point
 * 25 - p in backgammon and p + 12 (p <= 12) or p - 12 in Long Nardy.
 */

#ifndef NARDTOOLS_CORE_H
#define NARDTOOLS_CORE_H

#include <stdint.h>
#include <string.h>

#define OFF 0
#define BAR 25
#define HEAD 24
#define MAX_DICE 4            /* dice played in one turn (a double) */
#define MAX_SEGMENTS 8        /* single-die segments a written play may be cut into */

/* ------------------------------------------------------------------ rules */

/* Every option of nardtools.rules.Rules, as numbers, in this order: the
 * R_* index and the name nardtools/core.py packs each under (the module
 * exports the names as RULE_FIELDS, and core.py checks them at import). */
#define RULE_FIELDS(X) \
    X(LONG, "long") X(HITTING, "hitting") X(HIT_AFTER_HOME, "hit_after_home") X(BAR_FIRST, "bar_first") \
    X(INSIDE_HOME, "move_inside_home") X(REMAINDER_OPPONENT, "remainder_opponent") \
    X(DOUBLE_REROLL, "double_reroll") X(CRAZY, "crazy_doubles") X(HEAD_LIMIT, "head_limit") X(HEAD, "head") \
    X(BLOCK, "block") X(BLOCK_EVERY_STEP, "block_every_step") X(BLOCK_MOVER_PATH, "block_mover_path") \
    X(CAUCASIAN, "caucasian") X(EXACT_BEAROFF, "exact_bear_off") X(OPENING_REROLL, "opening_reroll") \
    X(KOKS, "koks") X(CUBE, "cube") X(CUBE_LIMIT, "cube_limit") X(BEAVER, "beaver") X(JACOBY, "jacoby") \
    X(CRAWFORD, "crawford") X(AUTO_DOUBLES, "auto_doubles") X(DEAD_CUBE, "dead_cube") \
    X(CONDONE, "condone_illegal") X(START, "start") X(POINTS1, "points_1") \
    X(POINTS2, "points_2") X(POINTS3, "points_3") X(POINTS4, "points_4")
#define RULE_INDEX(id, name) R_##id,
enum { RULE_FIELDS(RULE_INDEX) N_RULES };
enum { HEAD_GENERAL, HEAD_DOUBLES_LIST, HEAD_NONE };
enum { BLOCK_NONE, BLOCK_AHEAD, BLOCK_HOME };
enum { KOKS_START_QUARTER, KOKS_HEAD, KOKS_NONE };
enum { START_BACKGAMMON, START_NACKGAMMON, START_HYPERGAMMON, START_TRICKTRACK, START_LONG };

typedef struct { int v[N_RULES]; } Rules;

/* ------------------------------------------------------------------ boards */

typedef struct { signed char me[26], opp[26]; } Board;

/* The opponent's number for my point p (1..24). */
static inline int facing(const Rules *r, int p) { return r->v[R_LONG] ? (p <= 12 ? p + 12 : p - 12) : 25 - p; }

/* ------------------------------------------------------------------ turns */

/* One side's turn with some dice: what generation and checking share
 * (nardtools.turn.RolledTurn). */
typedef struct {
    const Rules *r;
    Board start;
    int dice[MAX_DICE], ndice, dbl, whole_roll, high, low;
    int first_turn, start_head, limit, block, every_step, caucasian, exact;
    unsigned char blocked[26], blot[26];
} Turn;

typedef struct { signed char s, t, hit; } Step;

/* A reachable end of turn: the mover's board after it, the points hit (bit
 * p: my point p), its rank (dice used; for one die of a two-dice roll, which
 * die) and the first way the search found to it. */
typedef struct {
    signed char me[26];
    uint32_t hits;
    unsigned char used, die, nsteps;
    Step steps[MAX_DICE];
    uint64_t hash;
} End;

/* A visited state of the search: the board, hits, dice left and hitters. */
typedef struct { uint64_t hash, extra, hitters; signed char me[26]; } StateKey;

/* An open-addressing hash table of indices, stamped so that it needs no
 * clearing between searches; it grows as it fills. */
typedef struct { uint32_t *stamp; int *index; uint32_t mask; } Index;

/* The workspace of one search: every end reached (by rank, in the order
 * found), the states already visited, and the legal ends chosen. */
#define MAX_ENDS 8192
#define MAX_STATES 65536
typedef struct {
    End ends[MAX_ENDS];
    int nends, nstates;
    int chosen[MAX_ENDS];   /* indices into ends: the legal plays, in the reference's order */
    int nchosen;            /* 0: nothing can be played (the empty play) */
    int overflow;           /* the tables were too small, or memory ran out: ask the reference */
    StateKey *states;
    int states_cap;
    Index end_table, state_table;
    uint32_t stamp;
} Search;

Search *search_new(void);
/* One die d from point s of a side's board: 0 and the target (0 off) and
 * whether it hits, or the rule that forbids it (turn.RolledTurn.step, .apply). */
int core_step(const Turn *t, const signed char *me, uint32_t hits, const signed char *hitters, int nhitters,
              int s, int d, int *target, int *hit);
void core_apply(const Turn *t, signed char *me, uint32_t *hits, signed char *hitters, int *nhitters,
                int s, int to, int hit);
void turn_init(Turn *t, const Rules *r, const Board *b, const int *dice, int ndice, int whole_roll,
               int first_turn);
int block_ok(const Turn *t, const signed char *me);
/* The search's constant tables: fill once, before the first search of any thread. */
void board_init(void);
void legal_plays(const Turn *t, Search *s);
void end_board(const Turn *t, const signed char *me, uint32_t hits, Board *out);

/* Each side's furthest checker from home in board rows of 52 counts
 * (nardtools.analysis.nets.furthest): its highest point 1..25 that holds a
 * checker (not zero), 0 when it has none left in play; two per row. */
void furthest_points(const signed char *boards, long long rows, signed char *out);

/* ------------------------------------------------------------------ written plays */

typedef struct { int s, t; } Move;
/* Moves of a written play (``24/18 13/9*``, chains, ``(2)``, bar/off words);
 * the count, or -1 when the text is not one the core reads as the reference does. */
int parse_play(const char *text, int n, Move *moves, int max_moves);
/* The judgement of written moves: 1 legal (the canonical steps, the board
 * after it from the opponent's view, the dice used in order), 0 illegal or
 * not sure (the reference explains). */
int judge_play(const Turn *t, Search *s, const Move *moves, int nmoves, Board *after, Step *steps,
               int *nsteps, int *dice_used);

/* ------------------------------------------------------------------ outcomes */

int classify(const Rules *r, const signed char *loser);   /* 1..4: single/oin ... koks */
int points_for(const Rules *r, int kind);

/* ASCII classes for reading text: the C library's depend on the locale
 * (Python sets LC_CTYPE from the environment), the reference's do not. */
static inline int ascii_digit(char c) { return (unsigned char)(c - '0') < 10; }
static inline int ascii_alpha(char c) { return (unsigned char)((c | 32) - 'a') < 26; }
static inline int ascii_alnum(char c) { return ascii_digit(c) || ascii_alpha(c); }
static inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

#endif
