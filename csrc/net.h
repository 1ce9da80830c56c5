/* The networks' forward pass (net.c): nardtools.analysis.nets' encoding and
 * one hidden layer of sigmoid units, sigmoid outputs. */

#ifndef NARDTOOLS_NET_H
#define NARDTOOLS_NET_H

#define NET_INPUTS 198          /* as nardtools.analysis.nets.INPUTS */
#define NET_RACE_INPUTS 228     /* ... RACE_INPUTS: with each side's checkers off as a thermometer */
#define NET_CONTACT_INPUTS 206  /* ... CONTACT_INPUTS: with each side's contact features */
#define NET_BLOCKS_INPUTS 214   /* ... BLOCKS_INPUTS: with each side's Long Nardy block features */
#define NET_MAX_INPUTS NET_RACE_INPUTS
#define NET_MAX_OUTPUTS 8

/* The encodings (nardtools.analysis.nets._CORE_ENCODINGS). */
enum { NET_BOARD, NET_RACE, NET_CONTACT_BACKGAMMON, NET_CONTACT_LONG, NET_BLOCKS_LONG, NET_ENCODINGS };

/* The inputs of an encoding. */
int net_inputs(int encoding);

/* A network's weights (float32, C order): w1 inputs x hidden, w2 hidden x
 * NET_MAX_OUTPUTS and b2 NET_MAX_OUTPUTS (the outputs, then zeros). */
typedef struct {
    int encoding, hidden, outputs;
    const float *w1, *b1, *w2, *b2;
} Net;

/* The rows of the table the first layer reads the points' inputs from:
 * 2 x 24 points, each with 0 to 15 checkers. */
#define NET_TABLE_ROWS (48 * 16)

/* The table of a network (NET_TABLE_ROWS x net->hidden floats): for each
 * side, point 1-24 and count k of 0-15, the rows of w1 of the point's four
 * inputs of k checkers added up in their order. */
void net_point_table(const Net *net, float *table);

/* The outputs (rows x net->outputs, float32) of `rows` board rows of 52
 * counts, the points' inputs read from the network's `table`; `scratch`
 * holds net->hidden floats. */
void net_forward(const Net *net, const signed char *boards, long long rows, float *out, float *scratch,
                 const float *table);

/* Of each group of `counts` values (one after another), marks in `out` the
 * `keep` least (the earlier among equals), every one of a group of no more;
 * keep at most NET_MAX_KEEP (nardtools.analysis.selfplay.best_in_rolls). */
#define NET_MAX_KEEP 64
void best_of_groups(const double *value, const int *counts, long long groups, int keep, unsigned char *out);

#endif
