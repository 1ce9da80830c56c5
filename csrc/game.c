/*
 * The game machine (nardtools.game.Game as nardtools.notation.replay drives
 * it): turn order, the first turn of each side, the cube and its limits, the
 * Crawford game, beavers, resignations, the end of the game and its score,
 * all from the ruleset's values.  It answers 0 wherever the reference would
 * report anything (an illegal play, a cube action the rules forbid, a result
 * that differs from the record), so that the caller can hand the record to
 * the reference, which explains it.
 */

#include <stdlib.h>

#include "core.h"
#include "game.h"

static const int LAYOUT[][5][2] = {
    [START_BACKGAMMON] = {{24, 2}, {13, 5}, {8, 3}, {6, 5}, {0, 0}},
    [START_NACKGAMMON] = {{24, 2}, {23, 2}, {13, 4}, {8, 3}, {6, 4}},
    [START_HYPERGAMMON] = {{24, 1}, {23, 1}, {22, 1}, {0, 0}},
    [START_TRICKTRACK] = {{BAR, 15}, {0, 0}},
    [START_LONG] = {{HEAD, 15}, {0, 0}},
};

void game_start(Game *g, const Rules *r, int match_length, int score0, int score1, int crawford)
{
    memset(g, 0, sizeof *g);
    g->r = r;
    const int (*layout)[2] = LAYOUT[r->v[R_START]];
    for (int i = 0; i < 5 && layout[i][1]; i++) g->board.me[layout[i][0]] = (signed char)layout[i][1];
    memcpy(g->board.opp, g->board.me, sizeof g->board.me);   /* both sides start alike */
    g->phase = G_OPENING;
    g->seq_next = 7;
    g->cube = 1;
    g->owner = -1;
    g->match_length = match_length;
    g->score[0] = score0;
    g->score[1] = score1;
    g->crawford = crawford;
}

/* Game.may_double */
static int may_double(const Game *g)
{
    const Rules *r = g->r;
    if (g->phase != G_ROLL || !r->v[R_CUBE] || g->crawford) return 0;
    if (g->owner >= 0 && g->owner != g->on_roll) return 0;
    if (g->cube * 2 > r->v[R_CUBE_LIMIT]) return 0;
    if (g->match_length && !r->v[R_DEAD_CUBE]) {
        int need0 = g->match_length - g->score[0], need1 = g->match_length - g->score[1];
        if ((need0 < need1 ? need0 : need1) <= g->cube) return 0;
    }
    return 1;
}

/* Points of a win of ``kind`` (Game._outcome): the scoring table, the Jacoby rule, the cube. */
static int outcome_points(const Game *g, int kind)
{
    int base = points_for(g->r, kind);
    if (g->r->v[R_JACOBY] && g->match_length == 0 && g->cube == 1) base = points_for(g->r, 1);
    return base * g->cube;
}

static void finish(Game *g, int winner, int kind, int ending, int points)
{
    g->phase = G_OVER;
    g->winner = winner;
    g->kind = kind;
    g->ending = ending;
    g->points = points;
}

/* Game.opening_roll: a tie throws again (and may turn the cube by itself);
 * otherwise the higher die starts, playing the opening dice or rolling anew. */
int game_opening(Game *g, int die0, int die1)
{
    const Rules *r = g->r;
    if (die0 == die1) {
        if (r->v[R_CUBE] && g->auto_doubles < r->v[R_AUTO_DOUBLES] && !g->crawford
            && g->cube * 2 <= r->v[R_CUBE_LIMIT]) {
            g->cube *= 2;
            g->auto_doubles++;
        }
        return 0;
    }
    game_begin(g, die0 > die1 ? 0 : 1);
    if (!r->v[R_OPENING_REROLL]) game_roll(g, g->on_roll, die0, die1);
    return 1;
}

int game_begin(Game *g, int player)
{
    if (g->phase != G_OPENING) return 0;
    g->on_roll = player;
    if (g->board_player != player) {   /* the board is kept from the side on roll */
        Board b = g->board;
        memcpy(g->board.me, b.opp, 26);
        memcpy(g->board.opp, b.me, 26);
        g->board_player = player;
    }
    g->phase = G_ROLL;
    return 1;
}

/* The dice to play now: n of value v, or the roll. */
static void offer(Game *g, const int *dice, int n, int whole)
{
    for (int i = 0; i < n; i++) g->now[i] = dice[i];
    g->nnow = n;
    g->whole = whole;
    g->phase = G_PLAY;
}

static void offer_double(Game *g, int v, int times)
{
    int dice[MAX_DICE] = {v, v, v, v};
    offer(g, dice, times, 0);
}

int game_roll(Game *g, int player, int d1, int d2)
{
    if (g->phase == G_BEAVERED && player == g->doubler) {   /* a dice cell after a beaver: the beaver taken */
        if (!game_take(g)) return 0;
    }
    if (g->phase != G_ROLL || player != g->on_roll) return 0;
    g->dice[0] = d1 > d2 ? d1 : d2;
    g->dice[1] = d1 > d2 ? d2 : d1;
    g->counted = 0;
    g->nleft = 0;
    if (d1 == d2 && g->r->v[R_CRAZY]) {   /* crazy gul-bara: this double, then every higher one */
        g->seq_times = g->r->v[R_CRAZY];
        g->seq_next = d1 + 1;
        offer_double(g, d1, g->seq_times);
    } else if (d1 == d2) {
        offer_double(g, d1, 4);
        g->whole = 1;
    } else {
        offer(g, g->dice, 2, 1);
    }
    return 1;
}

void game_turn(const Game *g, Turn *t)
{
    int first = g->turns_played[g->on_roll] == 0 && !g->remainder_turn;
    turn_init(t, g->r, &g->board, g->now, g->nnow, g->whole, first);
}

/* The side on roll takes the dice back: the board turns to its view. */
static void take_back(Game *g)
{
    Board b = g->board;
    memcpy(g->board.me, b.opp, 26);
    memcpy(g->board.opp, b.me, 26);
    g->on_roll = 1 - g->on_roll;
    g->board_player = g->on_roll;
}

static int ascending(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Game._next_dice: after a play, what is played next and by whom (gul-bara). */
static void next_dice(Game *g, const int *left, int nleft, int played_in_full)
{
    const Rules *r = g->r;
    if (g->remainder_turn) {
        if (g->owed_at < g->nowed) {
            int n = g->nowed - g->owed_at < 4 ? g->nowed - g->owed_at : 4, dice[MAX_DICE];
            for (int i = 0; i < n; i++) dice[i] = g->owed[g->owed_at + n - 1 - i];   /* largest first */
            g->owed_at += n;
            take_back(g);
            offer(g, dice, n, 0);
            return;
        }
        g->remainder_turn = 0;
        take_back(g);   /* the side that played the remainder now rolls */
        return;
    }
    if (r->v[R_REMAINDER_OPPONENT])
        for (int i = 0; i < nleft && g->nleft < MAX_LEFT; i++) g->left[g->nleft++] = left[i];
    if (g->seq_next <= 6) {
        take_back(g);
        offer_double(g, g->seq_next++, g->seq_times);
        return;
    }
    if (g->nleft) {
        memcpy(g->owed, g->left, sizeof(int) * (size_t)g->nleft);
        qsort(g->owed, (size_t)g->nleft, sizeof(int), ascending);
        g->nowed = g->nleft;
        g->nleft = 0;
        int n = g->nowed < 4 ? g->nowed : 4, dice[MAX_DICE];
        for (int i = 0; i < n; i++) dice[i] = g->owed[n - 1 - i];
        g->owed_at = n;
        g->remainder_turn = 1;
        offer(g, dice, n, 0);
        return;
    }
    if (r->v[R_DOUBLE_REROLL] && g->dice[0] == g->dice[1] && played_in_full) take_back(g);   /* rolls again */
}

void game_play(Game *g, const Board *after, const int *used, int nused)
{
    int player = g->on_roll;
    if (!g->remainder_turn && !g->counted) {   /* the first play of a turn */
        g->turns_played[player]++;
        g->turns++;
        g->counted = 1;
    }
    int left[MAX_DICE], nleft = 0, taken[MAX_DICE] = {0};
    for (int i = 0; i < nused; i++)
        for (int j = 0; j < g->nnow; j++)
            if (!taken[j] && g->now[j] == used[i]) { taken[j] = 1; break; }
    for (int j = 0; j < g->nnow; j++) if (!taken[j]) left[nleft++] = g->now[j];
    int moved = 0;
    for (int p = 1; p <= 25; p++) moved += after->opp[p];   /* the mover's checkers, now the opponent's side */
    g->board = *after;
    g->board_player = 1 - player;
    g->on_roll = 1 - player;
    g->phase = G_ROLL;
    g->nnow = 0;
    if (moved == 0) {
        int kind = classify(g->r, after->me);   /* the loser is the side now on roll */
        finish(g, player, kind, END_BEAR_OFF, outcome_points(g, kind));
        return;
    }
    next_dice(g, left, nleft, nleft == 0);
}

int game_double(Game *g, int player, int value)
{
    if (player != g->on_roll || !may_double(g)) return 0;
    if (value && value != g->cube * 2) return 0;   /* the reference warns */
    g->doubler = player;
    g->phase = G_DOUBLED;
    return 1;
}

int game_take(Game *g)
{
    if (g->phase == G_BEAVERED) {
        g->cube *= 4;
        g->owner = 1 - g->doubler;
        g->phase = G_ROLL;
        return 1;
    }
    if (g->phase != G_DOUBLED) return 0;
    g->cube *= 2;
    g->owner = 1 - g->doubler;
    g->phase = G_ROLL;
    return 1;
}

int game_drop(Game *g)
{
    if (g->phase == G_BEAVERED) {
        finish(g, 1 - g->doubler, 1, END_DROP, g->cube * 2);
        return 1;
    }
    if (g->phase != G_DOUBLED) return 0;
    finish(g, g->doubler, 1, END_DROP, g->cube);
    return 1;
}

int game_beaver(Game *g, int value)
{
    if (g->phase != G_DOUBLED || !g->r->v[R_BEAVER] || g->cube * 4 > g->r->v[R_CUBE_LIMIT]) return 0;
    if (value && value != g->cube * 4) return 0;
    g->phase = G_BEAVERED;
    return 1;
}

/* ``Wins N`` while the game is on: the other side resigned (replay._resignation). */
int game_resigned(Game *g, int winner, int value)
{
    if (g->phase != G_ROLL && g->phase != G_PLAY) return 0;
    int kinds = g->r->v[R_LONG] ? 4 : 3;
    int level = value ? (value + g->cube - 1) / g->cube : 1;
    if (level < 1) level = 1;
    if (level > (g->r->v[R_LONG] ? kinds : 3)) level = g->r->v[R_LONG] ? kinds : 3;
    int points = outcome_points(g, level);
    finish(g, winner, level, END_RESIGN, points);
    return points == value ? 1 : 2;   /* 2: the record's figure is not the resignation's worth (the reference warns) */
}
