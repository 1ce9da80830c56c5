/* The game machine of game.c (see there). */

#ifndef NARDTOOLS_GAME_H
#define NARDTOOLS_GAME_H

#include "core.h"

enum { G_OPENING, G_ROLL, G_PLAY, G_DOUBLED, G_BEAVERED, G_OVER };
enum { END_BEAR_OFF = 1, END_DROP, END_RESIGN };

#define MAX_LEFT 24          /* dice a gul-bara turn can leave to the opponent (six doubles of four) */

typedef struct {
    const Rules *r;
    Board board;             /* from the side on roll (board_player) */
    int board_player, on_roll, phase;
    int dice[2];             /* the roll */
    int now[MAX_DICE], nnow, whole;   /* the dice to play now; whole: the roll itself (not a part of it) */
    int seq_next, seq_times;          /* crazy gul-bara: the next double of the sequence (7: none) */
    int left[MAX_LEFT], nleft;        /* dice the mover could not play (remainder to the opponent) */
    int owed[MAX_LEFT], nowed, owed_at;   /* the remainder the opponent plays, four at a time */
    int remainder_turn, counted;
    int cube, owner, doubler, crawford, match_length, score[2], auto_doubles;
    int turns_played[2];
    long turns;
    int winner, kind, ending, points;   /* once G_OVER */
} Game;

void game_start(Game *g, const Rules *r, int match_length, int score0, int score1, int crawford);
int game_opening(Game *g, int die0, int die1);      /* the opening throw: 1 when it was not a tie */
int game_begin(Game *g, int player);                 /* a record that does not show the opening throw */
int game_roll(Game *g, int player, int d1, int d2);
void game_turn(const Game *g, Turn *t);              /* the turn of the dice to play now */
/* A play: after, the board the judgement gave; used, the dice it used. */
void game_play(Game *g, const Board *after, const int *used, int nused);
int game_double(Game *g, int player, int value);
int game_take(Game *g);
int game_drop(Game *g);
int game_beaver(Game *g, int value);
int game_resigned(Game *g, int winner, int value);   /* 1, 2 where the record's figure is not its worth, 0 */

#endif
