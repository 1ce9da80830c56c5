/*
 * The statistics of a .mat record (nardtools.analysis.stats with the turn
 * figures of nardtools.analysis.annotate): game rows, each side's running
 * counts, and the turn rows as columns, for a file the core replays without
 * a doubt; any other file is left to the reference.
 */

#include <math.h>
#include <stdlib.h>
#include "stats.h"

int play_text(const Step *steps, int n, char *out);

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 1;
    size_t n = *cap ? *cap * 2 : 256;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * size);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}

static void pips(const signed char *side, int *out)
{
    int s = 0;
    for (int p = 1; p <= 25; p++) s += p * side[p];
    *out = s;
}

typedef struct {
    Stats *st;
    int game_number, index, failed;
    int first_turn_seen, opening_d1, opening_d2, opening_side, race_turn, race_pips[2];
} Hook;

static int add_turn(Stats *st, const TurnRow *row, const char *play, int len)
{
    if (!grow((void **)&st->turns, &st->turns_cap, st->nturns + 1, sizeof(TurnRow))) return 0;
    if (!grow((void **)&st->text, &st->text_cap, st->text_len + (size_t)len + 1, 1)) return 0;
    st->turns[st->nturns] = *row;
    st->turns[st->nturns].play_start = (int)st->text_len;
    st->turns[st->nturns].play_len = len;
    memcpy(st->text + st->text_len, play, (size_t)len);
    st->text_len += (size_t)len;
    st->nturns++;
    return 1;
}

static void on_turn(void *user, const Game *before, const Turn *t, const Act *a, const Step *steps, int nsteps,
                    const Board *after)
{
    Hook *h = user;
    Stats *st = h->st;
    const Rules *r = before->r;
    int player = before->on_roll;
    int race = is_race(r, &before->board);
    int count = 1;
    /* the legal plays are the costly part: counted for the turn rows, and in a race for its exact figures
     * (luck, race error); the game rows and the players' figures need nothing else of them */
    if (st->want_turns || race) {
        legal_plays(t, st->search);
        if (st->search->overflow) { h->failed = 1; return; }
        count = st->search->nchosen ? st->search->nchosen : 1;
    }
    TurnRow row = {0};
    row.game = h->game_number;
    row.turn = a->number;
    row.index = h->index;
    row.side = player;
    row.high = before->dice[0];
    row.low = before->dice[1];
    int mover_before, opp_before, mover_after;
    pips(before->board.me, &mover_before);
    pips(before->board.opp, &opp_before);
    pips(after->opp, &mover_after);
    row.pips_before = mover_before;
    row.pips_opponent = opp_before;
    row.pips_after = mover_after;
    row.legal_plays = count;
    row.dice_used = nsteps;
    row.dice_lost = t->ndice - nsteps > 0 ? t->ndice - nsteps : 0;
    row.pwin_before = row.pwin_after = row.luck = row.race_error = NAN;
    if (race) {
        row.race = 1;
        double eb, pb, ea, pa;
        if (st->db && race_equity(r, &before->board, st->db, &eb, &pb) && race_equity(r, after, st->db, &ea, &pa)) {
            double best = -9.0;
            for (int i = 0; i < st->search->nchosen; i++) {
                const End *e = &st->search->ends[st->search->chosen[i]];
                Board result;
                double eq, pw;
                end_board(t, e->me, e->hits, &result);
                if (!race_equity(r, &result, st->db, &eq, &pw)) { h->failed = 1; return; }
                if (-eq > best) best = -eq;
            }
            if (st->search->nchosen == 0) {   /* nothing could be played: the empty play */
                double eq, pw;
                Board result = {{0}, {0}};
                memcpy(result.me, before->board.opp, 26);
                memcpy(result.opp, before->board.me, 26);
                race_equity(r, &result, st->db, &eq, &pw);
                best = -eq;
            }
            if (best - (-ea) < RACE_TIE) best = -ea;   /* a tie with the best: the play made is a best play */
            row.race_exact = 1;
            row.pwin_before = pb;
            row.pwin_after = 1 - pa;
            row.luck = best - eb;
            row.race_error = best - (-ea) > 0 ? best - (-ea) : 0.0;
        }
    }
    /* the players' running counts (stats.file_stats_from_record) */
    Side *side = &st->sides[player];
    side->turns++;
    if (!(r->v[R_OPENING_REROLL] == 0 && h->index == 0)) side->rolls[row.high * 10 + row.low]++;
    if (!isnan(row.luck)) { side->luck_n++; side->luck_sum += row.luck; }
    if (!isnan(row.race_error) && count != 1) {
        side->race_n++;
        side->race_sum += row.race_error;
        side->race_errors += row.race_error >= RACE_ERROR_THRESHOLD;
    }
    if (h->index == 0) { h->opening_d1 = row.high; h->opening_d2 = row.low; h->opening_side = player; }
    if (row.race && h->race_turn < 0) {
        h->race_turn = h->index + 1;
        h->race_pips[player] = mover_before;
        h->race_pips[1 - player] = opp_before;
    }
    h->index++;
    if (st->want_turns) {
        char text[64];
        int len = play_text(steps, nsteps, text);
        if (!add_turn(st, &row, text, len)) h->failed = 1;
    }
}

/* The game callback of mat_read: replay, then the game's row. */
int stats_game(void *fp, GameRec *rec)
{
    MatFile *f = fp;
    Stats *st = f->user;
    Game g;
    if (!record_game(f, rec, &g)) return 0;
    Hook h = {.st = st, .game_number = rec->number, .race_turn = -1, .opening_side = -1};
    if (!replay_game(f, rec, &g, on_turn, &h) || h.failed) return 0;
    if (g.phase != G_OVER && rec->nacts) DEFER(f, rec->line);   /* no result: the reference says so */
    if (!grow((void **)&st->games, &st->games_cap, st->ngames + 1, sizeof(GameRow))) return 0;
    GameRow *row = &st->games[st->ngames++];
    memset(row, 0, sizeof *row);
    row->number = rec->number;
    row->score[0] = rec->score[0];
    row->score[1] = rec->score[1];
    row->complete = g.phase == G_OVER;
    row->winner = row->complete ? g.winner : -1;
    row->kind = row->complete ? g.kind : 0;
    row->ending = row->complete ? g.ending : 0;
    row->points = row->complete ? g.points : -1;
    row->record_points = -1;
    for (int i = 0; i < rec->nacts; i++) if (rec->acts[i].kind == A_WIN) row->record_points = rec->acts[i].value;
    row->cube = g.cube;
    row->turns = h.index;
    row->race_turn = h.race_turn;
    row->race_pips[0] = h.race_turn >= 0 ? h.race_pips[0] : -1;
    row->race_pips[1] = h.race_turn >= 0 ? h.race_pips[1] : -1;
    row->opening_d1 = h.index ? h.opening_d1 : 0;
    row->opening_d2 = h.index ? h.opening_d2 : 0;
    row->opening_side = h.index ? h.opening_side : -1;
    row->source = row->complete ? 1 : row->record_points >= 0 ? 2 : 0;
    row->warnings = f->result_warnings;
    return 1;
}

void stats_free(Stats *st)
{
    free(st->games);
    free(st->turns);
    free(st->text);
}
