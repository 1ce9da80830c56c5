/* The game machine of game.c (see there). */

#ifndef NARDTOOLS_GAME_H
#define NARDTOOLS_GAME_H

#include "core.h"

enum { G_OPENING, G_ROLL, G_PLAY, G_DOUBLED, G_BEAVERED, G_OVER };
enum { END_BEAR_OFF = 1, END_DROP, END_RESIGN };

typedef struct {
    const Rules *r;
    Board board;             /* from the side on roll (board_player) */
    int board_player, on_roll, phase;
    int dice[2];
    int cube, owner, doubler, crawford, match_length, score[2];
    int turns_played[2];
    long turns;
    int winner, kind, ending, points;   /* once G_OVER */
} Game;

void game_start(Game *g, const Rules *r, int match_length, int score0, int score1, int crawford);
int game_begin(Game *g, int player);                 /* a record that does not show the opening throw */
int game_roll(Game *g, int player, int d1, int d2);
int game_dice(const Game *g, int *dice);
void game_turn(const Game *g, Turn *t);              /* the turn of the dice rolled */
void game_play(Game *g, const Board *after);         /* after: the board the judgement gave */
int game_double(Game *g, int player, int value);
int game_take(Game *g);
int game_drop(Game *g);
int game_beaver(Game *g, int value);
int game_resigned(Game *g, int winner, int value);

#endif
