/*
 * The Python bindings of the compiled core (nardtools.core wraps them):
 * module.c holds the method table, bind_common.c what every binding shares,
 * and bind_rules.c, bind_records.c and bind_nets.c the methods by concern.
 *
 * Rules come as the bytes nardtools.core.pack_rules makes (N_RULES int32);
 * sides as sequences of 26 counts.  Each thread keeps one search workspace
 * and one .mat reader.
 */

#ifndef NARDTOOLS_BIND_H
#define NARDTOOLS_BIND_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define FORWARD_IN_THREADS 1
#endif
#include "bearoff.h"
#include "core.h"
#include "mat.h"
#include "net.h"
#include "playout.h"
#include "stats.h"

/* The threads a large forward pass, or roll_successors of many boards, is
 * split over (split_threads, at most FORWARD_MAX_THREADS: net_threads sets
 * as many as the process may use, a pool's worker one), each taking
 * FORWARD_ROWS rows or more (SUCCESSOR_BOARDS boards): every row is worked
 * out alone, so the outputs are the same however they are split. */
#define FORWARD_MAX_THREADS 16
#define FORWARD_ROWS 512
extern int split_threads;

/* ------------------------------------------------------------ shared (bind_common.c) */
Search *thread_search(void);
MatFile *thread_matfile(void);
int rules_from(PyObject *obj, Rules *r);
int side_from(PyObject *obj, signed char *side);
int dice_from(PyObject *obj, int *dice, int *ndice);
int moves_from(PyObject *obj, Move *moves, int *n);
PyObject *side_tuple(const signed char *side);
PyObject *steps_tuple(const Step *steps, int n);
int turn_args(PyObject *const *args, Rules *r, Board *b, Turn *t);
int split_parts(long long units);
void in_threads(void *(*work)(void *), void *parts, size_t size, int n);
void forward_split(const Net *net, const signed char *boards, long long rows, float *out, float *scratch,
    const float *table, int parts);
int array_from(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, Py_ssize_t items, const char *what);
int py_interrupted(void);

/* ------------------------------------------------------------ the methods */
/* rules (bind_rules.c) */
PyObject *py_legal_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_dice_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_roll_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_judge(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_furthest(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_best_of_groups(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* records and playouts (bind_records.c) */
PyObject *py_mat_tags(PyObject *self, PyObject *arg);
PyObject *py_mat_read_files(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_mat_vouch_many(PyObject *self, PyObject *arg);
PyObject *py_deferred(PyObject *self, PyObject *unused);
long long positions_of(int points);
PyObject *py_mat_stats(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_playouts(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* bear-off databases and networks (bind_nets.c) */
PyObject *py_bearoff_boards(PyObject *self, PyObject *args);
PyObject *py_bearoff_exact(PyObject *self, PyObject *args);
PyObject *py_bearoff_gnubg(PyObject *self, PyObject *args);
PyObject *py_bearoff_two_sided(PyObject *self, PyObject *args);
PyObject *py_net_table(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_net_threads(PyObject *self, PyObject *arg);
PyObject *py_net_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
