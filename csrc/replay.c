/*
 * Replaying one game of a record with the game machine, as
 * nardtools.notation.replay._run does: 1 when the reference would report
 * nothing about it, 0 otherwise (the reference then replays the record and
 * explains what it finds).
 */

#include "mat.h"

/* Whether the dice just rolled cannot be played at all (a dance). */
static int dance_is_legal(MatFile *f, const Game *g)
{
    Turn t;
    game_turn(g, &t);
    legal_plays(&t, f->search);
    return !f->search->overflow && f->search->nchosen == 0;
}

int record_game(MatFile *f, const GameRec *rec, Game *g)
{
    const Rules *r = f->r;
    int crawford = 0, length = f->length;
    if (length && (rec->score[0] >= length || rec->score[1] >= length)) DEFER(f, rec->line);   /* no game is played */
    if (f->have_expected && (rec->score[0] != f->expected[0] || rec->score[1] != f->expected[1]))
        DEFER(f, rec->line);   /* the header contradicts the results: the reference warns, and scores by them */
    if (length && r->v[R_CUBE] && r->v[R_CRAWFORD] && !f->crawford_done) {   /* as Rules.has_crawford_game */
        int a = rec->score[0] == length - 1, b = rec->score[1] == length - 1;
        if (a || b) { f->crawford_done = 1; crawford = !(a && b); }
    }
    if (crawford && f->first_game && (rec->score[0] || rec->score[1]) && r->v[R_CUBE])
        for (int i = 0; i < rec->nacts; i++)   /* a fragment: the reference infers the Crawford game, and warns */
            if (rec->acts[i].kind == A_DOUBLE) DEFER(f, rec->acts[i].line);
    f->first_game = 0;
    f->result_warnings = 0;
    game_start(g, r, length, rec->score[0], rec->score[1], crawford);
    return 1;
}

/* A result whose figure is not the game's worth: the reference warns of it and goes on. */
static void result_warning(MatFile *f, const Act *a)
{
    f->result_warnings++;
    f->result_line = a->line;
}

int replay_game(MatFile *f, GameRec *rec, Game *g, TurnHook on_turn, void *user)
{
    int started = 0;
    for (int i = 0; i < rec->nacts; i++) {
        const Act *a = &rec->acts[i];
        if (a->kind == A_LOSE) continue;   /* (the reference leaves them out of the replay) */
        const Act *next = NULL;
        for (int j = i + 1; j < rec->nacts && !next; j++) if (rec->acts[j].kind != A_LOSE) next = &rec->acts[j];
        if (g->phase == G_OVER) {   /* only the result may follow, its winner the game's */
            if (a->kind != A_WIN || a->player != g->winner) DEFER(f, a->line);
            if (a->value != g->points) result_warning(f, a);
            continue;
        }
        if (!started && a->kind != A_WIN) {
            if (g->phase == G_OPENING && !game_begin(g, a->player)) DEFER(f, a->line);
            started = 1;
        }
        switch (a->kind) {
        case A_ROLL:
        case A_ROLL_RESIGN: {
            if (g->phase == G_PLAY) DEFER(f, a->line);   /* a roll while dice are still to play */
            if (!game_roll(g, a->player, a->d1, a->d2)) DEFER(f, a->line);
            if (a->kind == A_ROLL_RESIGN) break;          /* rolled, then resigned: the result follows */
            if (a->play.n == 0 && !next && !dance_is_legal(f, g)) DEFER(f, a->line);   /* abandoned */
            Turn t;
            game_turn(g, &t);
            Move moves[MAX_SEGMENTS];
            int nmoves = parse_play(a->play.p, a->play.n, moves, MAX_SEGMENTS);
            if (nmoves < 0) DEFER(f, a->line);
            Board after;
            Step steps[MAX_DICE];
            int nsteps, used[MAX_DICE];
            if (!judge_play(&t, f->search, moves, nmoves, &after, steps, &nsteps, used)) {
                int resigns = a->play.n == 0 && next && next->kind == A_WIN;
                if (!resigns) DEFER(f, a->line);   /* illegal, or the core cannot tell */
                break;                             /* an empty play, then the result: a resignation */
            }
            Game before = *g;
            game_play(g, &after, used, nsteps);
            if (on_turn) on_turn(user, &before, &t, a, steps, nsteps, &after);
            break;
        }
        case A_DOUBLE:
            if (!game_double(g, a->player, a->value)) DEFER(f, a->line);
            break;
        case A_TAKE:
            if (!game_take(g)) DEFER(f, a->line);
            break;
        case A_DROP:
            if (!game_drop(g)) DEFER(f, a->line);
            break;
        case A_BEAVER:
            if (!game_beaver(g, a->value)) DEFER(f, a->line);
            break;
        case A_WIN: {
            if (!started) break;   /* a forfeit: the game never started */
            int resigned = game_resigned(g, a->player, a->value);
            if (!resigned) DEFER(f, a->line);
            if (resigned == 2) result_warning(f, a);
            break;
        }
        default:
            DEFER(f, a->line);
        }
    }
    f->have_expected = 0;   /* the next game's score, by this one's result (nardtools.notation.replay._score) */
    if (f->length && g->phase == G_OVER) {
        int e0 = g->score[0] + (g->winner == 0) * g->points, e1 = g->score[1] + (g->winner == 1) * g->points;
        if (e0 < f->length && e1 < f->length) {
            f->expected[0] = e0;
            f->expected[1] = e1;
            f->have_expected = 1;
        }
    }
    return 1;
}
