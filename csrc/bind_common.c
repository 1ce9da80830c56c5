/*
 * What the bindings share: each thread's search workspace and .mat reader,
 * the arguments every call parses (rules, sides, dice, moves), and the threads
 * a large batch is split over.
 */

#include "bind.h"

static _Thread_local Search *tls_search;

Search *thread_search(void)
{
    if (!tls_search) tls_search = search_new();
    return tls_search;
}

static _Thread_local MatFile *tls_matfile;

/* This thread's reader of a .mat file, cleared for a new one: all but its
 * game's actions, which a game writes before it reads them (the actions are
 * 190 KB: allocating them a file made validate's look 7% slower, stats 4%). */
MatFile *thread_matfile(void)
{
    if (!tls_matfile) tls_matfile = malloc(sizeof *tls_matfile);
    MatFile *f = tls_matfile;
    if (f) {
        memset(f, 0, offsetof(MatFile, game));
        f->game.number = f->game.line = f->game.score[0] = f->game.score[1] = f->game.nacts = 0;
        f->have_game = f->expect_score = 0;
    }
    return f;
}

int rules_from(PyObject *obj, Rules *r)
{
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) return 0;
    if (view.len != (Py_ssize_t)sizeof r->v) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "rules: expected the bytes of nardtools.core.pack_rules");
        return 0;
    }
    memcpy(r->v, view.buf, sizeof r->v);
    PyBuffer_Release(&view);
    return 1;
}

int side_from(PyObject *obj, signed char *side)
{
    PyObject *seq = PySequence_Fast(obj, "a side is 26 counts");
    if (!seq) return 0;
    if (PySequence_Fast_GET_SIZE(seq) != 26) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "a side is 26 counts");
        return 0;
    }
    for (int p = 0; p < 26; p++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, p));
        if (v < 0 || v > 15) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "counts are 0-15");
            return 0;
        }
        side[p] = (signed char)v;
    }
    Py_DECREF(seq);
    return 1;
}

int dice_from(PyObject *obj, int *dice, int *ndice)
{
    PyObject *seq = PySequence_Fast(obj, "dice are a sequence of 1 to 4 values");
    if (!seq) return 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > MAX_DICE) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "dice are a sequence of 1 to 4 values");
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v < 1 || v > 6) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "dice are 1-6");
            return 0;
        }
        dice[i] = (int)v;
    }
    *ndice = (int)n;
    Py_DECREF(seq);
    return 1;
}

/* Written moves as (source, target) pairs; *n = -1 when there are too many to be a play. */
int moves_from(PyObject *obj, Move *moves, int *n)
{
    PyObject *seq = PySequence_Fast(obj, "moves are (source, target) pairs");
    if (!seq) return 0;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    *n = len > MAX_SEGMENTS ? -1 : (int)len;
    for (Py_ssize_t i = 0; i < len && *n >= 0; i++) {
        int s, t;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ii", &s, &t)) { Py_DECREF(seq); return 0; }
        if (s < 0 || s > 25 || t < 0 || t > 25) *n = -1;
        else moves[i] = (Move){s, t};
    }
    Py_DECREF(seq);
    return 1;
}

PyObject *side_tuple(const signed char *side)
{
    PyObject *t = PyTuple_New(26);
    if (!t) return NULL;
    for (int p = 0; p < 26; p++) PyTuple_SET_ITEM(t, p, PyLong_FromLong(side[p]));
    return t;
}

PyObject *steps_tuple(const Step *steps, int n)
{
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *s = Py_BuildValue("(iiO)", steps[i].s, steps[i].t, steps[i].hit ? Py_True : Py_False);
        if (!s) { Py_DECREF(t); return NULL; }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

/* Parse the common arguments: rules, mover, opponent, dice, whole roll, first turn (-1: infer). */
int turn_args(PyObject *const *args, Rules *r, Board *b, Turn *t)
{
    int dice[MAX_DICE], ndice;
    if (!rules_from(args[0], r) || !side_from(args[1], b->me) || !side_from(args[2], b->opp)
        || !dice_from(args[3], dice, &ndice))
        return 0;
    int whole = PyObject_IsTrue(args[4]);
    long first = PyLong_AsLong(args[5]);
    if (whole < 0 || (first == -1 && PyErr_Occurred())) return 0;
    turn_init(t, r, b, dice, ndice, whole, first < 0 ? -1 : (int)first);
    return 1;
}

int split_threads = 1;

/* The parts a call of `units` units of work (rows, boards) is split into:
 * one a thread, each of one unit or more. */
int split_parts(long long units)
{
    return units < 1 ? 1 : units < split_threads ? (int)units : split_threads;
}

/* work(&parts[k]) for each of the n parts (each `size` bytes): parts 1 to
 * n - 1 in threads of their own, part 0 in this one; a part whose thread
 * cannot be started is worked here. */
void in_threads(void *(*work)(void *), void *parts, size_t size, int n)
{
    char *part = parts;
#ifdef FORWARD_IN_THREADS
    pthread_t thread[FORWARD_MAX_THREADS];
    int started[FORWARD_MAX_THREADS] = {0};
    for (int k = 1; k < n; k++) started[k] = pthread_create(&thread[k], NULL, work, part + k * size) == 0;
    work(part);
    for (int k = 1; k < n; k++) {
        if (started[k]) pthread_join(thread[k], NULL);
        else work(part + k * size);
    }
#else
    for (int k = 0; k < n; k++) work(part + k * size);
#endif
}

typedef struct {
    const Net *net;
    const signed char *boards;
    long long rows;
    float *out, *scratch;
    const float *table;
} ForwardPart;

static void *forward_part(void *arg)
{
    const ForwardPart *p = arg;
    net_forward(p->net, p->boards, p->rows, p->out, p->scratch, p->table);
    return NULL;
}

/* net_forward of `rows` boards in `parts` threads (this one among them), each
 * with its own `hidden` floats of `scratch`; a thread that cannot be started
 * leaves its rows to this one. */
void forward_split(const Net *net, const signed char *boards, long long rows, float *out, float *scratch,
                          const float *table, int parts)
{
    ForwardPart part[FORWARD_MAX_THREADS];
    for (int k = 0; k < parts; k++) {
        const long long lo = rows * k / parts, hi = rows * (k + 1) / parts;
        part[k] = (ForwardPart){net, boards + 52 * lo, hi - lo, out + lo * net->outputs, scratch + (long long)k * net->hidden,
                                table};
    }
    in_threads(forward_part, part, sizeof *part, parts);
}

/* A C-contiguous numpy-style array of `items` elements of `itemsize` bytes
 * (itemsize 0: 4 or 8, a float array whose size says which). */
int array_from(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, Py_ssize_t items, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return 0;
    int ok = itemsize ? view->itemsize == itemsize : (view->itemsize == 4 || view->itemsize == 8);
    if (ok && items >= 0) ok = view->len == items * view->itemsize;
    if (!ok) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "%s: wrong type or size", what);
    }
    return ok;
}

int py_interrupted(void) { return PyErr_CheckSignals() < 0; }
