/*
 * The Python face of the compiled core (nardtools.core wraps it).
 *
 * Rules come as the bytes nardtools.core.pack_rules makes (N_RULES int32);
 * sides as sequences of 26 counts.  Each thread keeps one search workspace.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include "core.h"

static _Thread_local Search *tls_search;

Search *thread_search(void)
{
    if (!tls_search) tls_search = search_new();
    return tls_search;
}

static int rules_from(PyObject *obj, Rules *r)
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

static int side_from(PyObject *obj, signed char *side)
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

static int dice_from(PyObject *obj, int *dice, int *ndice)
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
static int moves_from(PyObject *obj, Move *moves, int *n)
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

static PyObject *side_tuple(const signed char *side)
{
    PyObject *t = PyTuple_New(26);
    if (!t) return NULL;
    for (int p = 0; p < 26; p++) PyTuple_SET_ITEM(t, p, PyLong_FromLong(side[p]));
    return t;
}

static PyObject *steps_tuple(const Step *steps, int n)
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
static int turn_args(PyObject *const *args, Rules *r, Board *b, Turn *t)
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

/* legal_plays(rules, mover, opponent, dice, whole_roll, first_turn) -> [(used, die, mover_after, hits, steps)] | None */
static PyObject *py_legal_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "legal_plays takes 6 arguments");
    Rules r;
    Board b;
    Turn t;
    if (!turn_args(args, &r, &b, &t)) return NULL;
    Search *s = thread_search();
    if (!s) return PyErr_NoMemory();
    legal_plays(&t, s);
    if (s->overflow) Py_RETURN_NONE;
    PyObject *out = PyList_New(s->nchosen);
    if (!out) return NULL;
    for (int i = 0; i < s->nchosen; i++) {
        const End *e = &s->ends[s->chosen[i]];
        PyObject *me = side_tuple(e->me), *steps = steps_tuple(e->steps, e->nsteps);
        PyObject *row = (me && steps) ? Py_BuildValue("(iiNkN)", e->used, e->die, me, (unsigned long)e->hits, steps)
                                      : NULL;
        if (!row) { Py_XDECREF(me); Py_XDECREF(steps); Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, row);
    }
    return out;
}

/* judge(rules, mover, opponent, dice, whole_roll, first_turn, text) -> (steps, mover, opponent, dice_used) | None */
static PyObject *py_judge(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7) return PyErr_Format(PyExc_TypeError, "judge takes 7 arguments");
    Rules r;
    Board b, after;
    Turn t;
    if (!turn_args(args, &r, &b, &t)) return NULL;
    Move moves[MAX_SEGMENTS];
    int nmoves;
    if (PyUnicode_Check(args[6])) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(args[6], &len);
        if (!text) return NULL;
        nmoves = parse_play(text, (int)len, moves, MAX_SEGMENTS);
    } else if (!moves_from(args[6], moves, &nmoves)) {
        return NULL;
    }
    if (nmoves < 0) Py_RETURN_NONE;
    Search *s = thread_search();
    if (!s) return PyErr_NoMemory();
    Step steps[MAX_DICE];
    int nsteps, used[MAX_DICE];
    if (!judge_play(&t, s, moves, nmoves, &after, steps, &nsteps, used)) Py_RETURN_NONE;
    PyObject *dice = PyTuple_New(nsteps);
    if (!dice) return NULL;
    for (int i = 0; i < nsteps; i++) PyTuple_SET_ITEM(dice, i, PyLong_FromLong(used[i]));
    return Py_BuildValue("(NNNN)", steps_tuple(steps, nsteps), side_tuple(after.me), side_tuple(after.opp), dice);
}

static PyMethodDef methods[] = {
    {"legal_plays", (PyCFunction)(void (*)(void))py_legal_plays, METH_FASTCALL,
     "legal_plays(rules, mover, opponent, dice, whole_roll, first_turn) -> list | None\n\n"
     "The legal plays, in the reference's order: (dice used, die, the mover's side after, points hit\n"
     "as a bit mask, steps).  None when the search outgrew its tables (ask the reference)."},
    {"judge", (PyCFunction)(void (*)(void))py_judge, METH_FASTCALL,
     "judge(rules, mover, opponent, dice, whole_roll, first_turn, play) -> tuple | None\n\n"
     "A written play (its text, or (source, target) pairs)'s canonical steps, the sides after it (the opponent then on roll) and the dice\n"
     "used, when it is legal; None when it is not or the core cannot tell (ask the reference)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "The compiled core of the rules.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) { return PyModule_Create(&module); }
