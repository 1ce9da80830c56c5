/* Reading .mat records (mat.c) and replaying them (replay.c). */

#ifndef NARDTOOLS_MAT_H
#define NARDTOOLS_MAT_H

#include "core.h"
#include "game.h"

typedef struct { const char *p; int n; } Span;

enum { A_ROLL, A_ROLL_RESIGN, A_DOUBLE, A_TAKE, A_DROP, A_BEAVER, A_WIN, A_LOSE };

/* One cell of a record, located. */
typedef struct {
    int kind, player, number, line;
    int d1, d2, value;
    Span play;               /* the play as written (A_ROLL) */
} Act;

#define MAX_ACTS 4096

/* One game of a record: the score line's scores and the actions in order. */
typedef struct {
    int number, line, score[2];
    Act acts[MAX_ACTS];
    int nacts;
} GameRec;

/* What a whole file gave, and where the core gave up (for tests and for
 * teaching the core more dialect). */
typedef struct {
    const Rules *r;
    int length, header, crawford_done, first_game;
    int expected[2], have_expected;   /* the score the last game's result gives, when it ended one below the length */
    int result_warnings, result_line;   /* this game's results of the right winner but not its worth (warnings) */
    char names[2][64];
    int named;
    long games, complete, turns;
    int defer_code, defer_line;
    Search *search;
    void *user;              /* what the per-game callback keeps */
    /* called for every game read; 0 hands the file to the reference */
    int (*on_game)(void *f, GameRec *g);
    GameRec game;            /* the game being read */
    int have_game, expect_score;
} MatFile;

#define DEFER(f, line) return ((f)->defer_code = __LINE__, (f)->defer_line = (line), 0)

/* Read a .mat file whose rules are known (from its tags, by the caller):
 * 1 when every line was one the reference reads alike and every game's
 * callback agreed; 0 to ask the reference. */
int mat_read(const char *data, size_t size, MatFile *f);
/* The tags of a file's comment lines, read exactly as the reference reads
 * them: calls tag() for each; 0 when the core cannot be sure (non-ASCII in
 * a tag line, an overlong line). */
int mat_tags(const char *data, size_t size, void (*tag)(void *, Span, Span), void *user);

/* Replay one game's actions with the game machine: 1 when the reference
 * would report nothing, with g left at the end; 0 to ask the reference.
 * on_turn (may be NULL) is told of every play. */
typedef void (*TurnHook)(void *user, const Game *before, const Turn *t, const Act *a, const Step *steps,
                         int nsteps, const Board *after);
/* The game machine for a record's game: its score, and its Crawford flag as
 * the reference sets it; 0 (deferred) for a fragment whose Crawford game the
 * reference must infer. */
int record_game(MatFile *f, const GameRec *rec, Game *g);
int replay_game(MatFile *f, GameRec *rec, Game *g, TurnHook on_turn, void *user);

#endif
