/*
 * The Python face of the compiled core (nardtools.core wraps it).
 *
 * Rules come as the bytes nardtools.core.pack_rules makes (N_RULES int32);
 * sides as sequences of 26 counts.  Each thread keeps one search workspace and one
 * .mat reader.
 */

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
static MatFile *thread_matfile(void)
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

/* The positions of a search's legal plays, as the next side to roll sees them
 * (its 26 counts, then the other side's), 52 int8 each. */
static void put_results(const Turn *t, const Search *s, signed char *rows)
{
    Board after;
    for (int i = 0; i < s->nchosen; i++, rows += 52) {
        const End *e = &s->ends[s->chosen[i]];
        end_board(t, e->me, e->hits, &after);   /* already as the next side sees it */
        memcpy(rows, after.me, 26);
        memcpy(rows + 26, after.opp, 26);
    }
}

/* successors(...legal_plays' arguments) -> bytes | None: for each legal play, in the
 * reference's order, the position after it as the next side to roll sees it: the
 * opponent's 26 counts (hits on the bar), then the mover's, as int8. */
static PyObject *py_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "successors takes 6 arguments");
    Rules r;
    Board b;
    Turn t;
    if (!turn_args(args, &r, &b, &t)) return NULL;
    Search *s = thread_search();
    if (!s) return PyErr_NoMemory();
    legal_plays(&t, s);
    if (s->overflow) Py_RETURN_NONE;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)s->nchosen * 52);
    if (out) put_results(&t, s, (signed char *)PyBytes_AS_STRING(out));
    return out;
}

/* engine.on_first_turn: in Long Nardy, every checker of the side still on the head. */
static int first_turn_of(const Rules *r, const Board *b)
{
    int total = 0;
    for (int p = 0; p < 26; p++) total += b->me[p];
    return r->v[R_LONG] && b->me[HEAD] > 0 && b->me[HEAD] == total;
}

/* The legal plays of one board and dice, their results appended to *rows
 * (grown as needed): their count, -1 when the search outgrew its tables, -2
 * when memory ran out (the exception set). */
static int append_results(const Rules *r, const Board *b, const int *dice, int ndice, Search *s,
                          signed char **rows, size_t *cap, size_t *used)
{
    Turn t;
    turn_init(&t, r, b, dice, ndice, 1, first_turn_of(r, b));
    legal_plays(&t, s);
    if (s->overflow) return -1;
    if (*used + (size_t)s->nchosen > *cap) {
        while (*used + (size_t)s->nchosen > *cap) *cap *= 2;
        signed char *grown = realloc(*rows, *cap * 52);
        if (!grown) return -2;   /* (the caller sets the error: threads call this without the interpreter) */
        *rows = grown;
    }
    put_results(&t, s, *rows + *used * 52);
    *used += (size_t)s->nchosen;
    return s->nchosen;
}

/* dice_successors(rules, boards, dice) -> (bytes, counts) | None: for each board (52
 * int8) and its roll (two int8 dice), the positions the roll reaches, as successors
 * gives them (first turn as nardtools.engine.on_first_turn judges it), one board's
 * after another's; counts: int32 per board.  One call for a turn of many games at
 * once (nardtools.analysis.selfplay.drive_many).  None when a search outgrew its tables. */
static PyObject *py_dice_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) return PyErr_Format(PyExc_TypeError, "dice_successors takes 3 arguments");
    Rules r;
    if (!rules_from(args[0], &r)) return NULL;
    Py_buffer view, roll;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[2], &roll, PyBUF_SIMPLE) < 0) { PyBuffer_Release(&view); return NULL; }
    Py_ssize_t n = view.len / 52;
    const signed char *boards = view.buf, *dice = roll.buf;
    PyObject *out = NULL;
    int32_t *counts = NULL;
    signed char *rows = NULL;
    size_t cap = 4096, used = 0;
    int overflow = 0;
    if (view.len % 52 || roll.len != 2 * n) {
        PyErr_Format(PyExc_ValueError, "boards: rows of 52 counts; dice: two a board");
        goto done;
    }
    for (Py_ssize_t k = 0; k < view.len; k++)
        if (boards[k] < 0 || boards[k] > 15) { PyErr_Format(PyExc_ValueError, "boards: counts are 0-15"); goto done; }
    for (Py_ssize_t k = 0; k < roll.len; k++)
        if (dice[k] < 1 || dice[k] > 6) { PyErr_Format(PyExc_ValueError, "dice: 1-6"); goto done; }
    Search *s = thread_search();
    counts = malloc((size_t)(n + 1) * sizeof *counts);
    rows = malloc(cap * 52);
    if (!s || !counts || !rows) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n && !overflow; i++) {
        Board b;
        memcpy(b.me, boards + i * 52, 26);
        memcpy(b.opp, boards + i * 52 + 26, 26);
        int a = dice[2 * i], c = dice[2 * i + 1];
        int d[4] = {a > c ? a : c, a > c ? c : a, a, a};
        int got = append_results(&r, &b, d, a == c ? 4 : 2, s, &rows, &cap, &used);
        if (got == -2) { PyErr_NoMemory(); goto done; }
        if (got == -1) { overflow = 1; break; }
        counts[i] = got;
    }
    if (overflow) {
        out = Py_NewRef(Py_None);
    } else {
        PyObject *x = PyBytes_FromStringAndSize((const char *)rows, (Py_ssize_t)(used * 52));
        PyObject *y = PyBytes_FromStringAndSize((const char *)counts, (Py_ssize_t)(n * (Py_ssize_t)sizeof *counts));
        out = x && y ? Py_BuildValue("(NN)", x, y) : NULL;
        if (!out) { Py_XDECREF(x); Py_XDECREF(y); }
    }
done:
    PyBuffer_Release(&view);
    PyBuffer_Release(&roll);
    free(counts);
    free(rows);
    return out;
}

/* The threads a large forward pass, or roll_successors of many boards, is
 * split over (net_threads: nardtools.core sets as many as the process may
 * use, a pool's worker one), each taking FORWARD_ROWS rows or more
 * (SUCCESSOR_BOARDS boards): every row is worked out alone, so the outputs
 * are the same however they are split. */
#define FORWARD_MAX_THREADS 16
#define FORWARD_ROWS 512
static int split_threads = 1;

/* The parts a call of `units` units of work (rows, boards) is split into:
 * one a thread, each of one unit or more. */
static int split_parts(long long units)
{
    return units < 1 ? 1 : units < split_threads ? (int)units : split_threads;
}

/* work(&parts[k]) for each of the n parts (each `size` bytes): parts 1 to
 * n - 1 in threads of their own, part 0 in this one; a part whose thread
 * cannot be started is worked here. */
static void in_threads(void *(*work)(void *), void *parts, size_t size, int n)
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
static void forward_split(const Net *net, const signed char *boards, long long rows, float *out, float *scratch,
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

/* roll_successors' boards a thread takes at least (each some 400 results of 21 rolls). */
#define SUCCESSOR_BOARDS 16
/* The searches of roll_successors' threads but the caller's (made once, kept:
 * one call at a time, under the interpreter's lock). */
static Search *part_search[FORWARD_MAX_THREADS];

/* A run of roll_successors' boards: their counts (21 a board) and results;
 * status -1 when a search outgrew its tables, -2 when memory ran out. */
typedef struct {
    const Rules *r;
    const signed char *boards;
    Py_ssize_t n;
    Search *s;
    int32_t *counts;
    signed char *rows;
    size_t cap, used;
    int status;
} SuccessorPart;

static void *successors_part(void *arg)
{
    SuccessorPart *p = arg;
    for (Py_ssize_t i = 0; i < p->n; i++) {
        Board b;
        memcpy(b.me, p->boards + i * 52, 26);
        memcpy(b.opp, p->boards + i * 52 + 26, 26);
        int k = 0;
        for (int high = 6; high >= 1; high--)
            for (int low = high; low >= 1; low--, k++) {
                int dice[4] = {high, low, high, high};
                int got = append_results(p->r, &b, dice, high == low ? 4 : 2, p->s, &p->rows, &p->cap, &p->used);
                if (got < 0) {
                    p->status = got;
                    return NULL;
                }
                p->counts[i * 21 + k] = got;
            }
    }
    return NULL;
}

/* roll_successors(rules, boards) -> (bytes, counts) | None: for each board (52 int8:
 * the side on roll, then the other) and each of the 21 rolls (6-6, 6-5, ... 1-1, as
 * nardtools.dice.ALL_ROLLS), the positions the roll reaches, as successors gives them,
 * one after another; counts: int32 per board and roll.  The head rule's first turn
 * is inferred (first_turn_of: every checker on the head).  None when a search outgrew its tables. */
static PyObject *py_roll_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "roll_successors takes 2 arguments");
    Rules r;
    if (!rules_from(args[0], &r)) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0) return NULL;
    if (view.len % 52) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "boards: rows of 52 counts");
    }
    Py_ssize_t n = view.len / 52;
    const signed char *boards = view.buf;
    for (Py_ssize_t k = 0; k < view.len; k++)
        if (boards[k] < 0 || boards[k] > 15) {
            PyBuffer_Release(&view);
            return PyErr_Format(PyExc_ValueError, "boards: counts are 0-15");
        }
    int32_t *counts = malloc((size_t)(n * 21 + 1) * sizeof *counts);
    const int parts = split_parts(n / SUCCESSOR_BOARDS);
    SuccessorPart part[FORWARD_MAX_THREADS] = {{0}};
    PyObject *out = NULL;
    int failed = !counts;
    for (int k = 0; k < parts && !failed; k++) {
        const Py_ssize_t lo = n * k / parts, hi = n * (k + 1) / parts;
        if (k && !part_search[k]) part_search[k] = search_new();
        part[k] = (SuccessorPart){&r, boards + 52 * lo, hi - lo, k ? part_search[k] : thread_search(),
                                  counts + 21 * lo, malloc(4096 * 52), 4096, 0, 0};
        failed = !part[k].s || !part[k].rows;
    }
    if (failed) { PyErr_NoMemory(); goto done; }
    in_threads(successors_part, part, sizeof *part, parts);   /* (the interpreter's lock kept: the threads'
                                                               * searches are the module's own) */
    size_t used = 0;
    int overflow = 0;
    for (int k = 0; k < parts; k++) {
        if (part[k].status == -2) { PyErr_NoMemory(); goto done; }
        overflow |= part[k].status == -1;
        used += part[k].used;
    }
    if (overflow) {
        out = Py_NewRef(Py_None);
    } else {
        PyObject *a = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(used * 52));
        PyObject *c = PyBytes_FromStringAndSize((const char *)counts, (Py_ssize_t)(n * 21 * (Py_ssize_t)sizeof *counts));
        if (a) {
            char *at = PyBytes_AS_STRING(a);
            for (int k = 0; k < parts; k++) {
                memcpy(at, part[k].rows, part[k].used * 52);
                at += part[k].used * 52;
            }
        }
        out = a && c ? Py_BuildValue("(NN)", a, c) : NULL;
        if (!out) { Py_XDECREF(a); Py_XDECREF(c); }
    }
done:
    PyBuffer_Release(&view);
    free(counts);
    for (int k = 0; k < parts; k++) free(part[k].rows);
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

/* ------------------------------------------------------------------ records */

static void collect_tag(void *user, Span name, Span value)
{
    PyObject *list = user;
    if (PyErr_Occurred()) return;
    PyObject *pair = Py_BuildValue("(s#s#)", name.p, (Py_ssize_t)name.n, value.p, (Py_ssize_t)value.n);
    if (pair) { PyList_Append(list, pair); Py_DECREF(pair); }
}

/* mat_tags(data) -> [(name, value)] | None */
static PyObject *py_mat_tags(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *list = PyList_New(0);
    int ok = list && mat_tags(view.buf, (size_t)view.len, collect_tag, list);
    PyBuffer_Release(&view);
    if (!list || PyErr_Occurred()) { Py_XDECREF(list); return NULL; }
    if (!ok) { Py_DECREF(list); Py_RETURN_NONE; }
    return list;
}

/* A file read without the interpreter, and its tags: spans into `data`. */
typedef struct {
    char *data;
    size_t len;
    int ok;          /* read, not over the limit, tags as the reference reads them */
    int ntags, cap;
    Span *tags;      /* name, value, name, value, ... */
} ReadFile;

static void keep_tag(void *user, Span name, Span value)
{
    ReadFile *rf = user;
    if (rf->ntags * 2 + 2 > rf->cap) {
        int cap = rf->cap ? rf->cap * 2 : 16;
        Span *more = realloc(rf->tags, (size_t)cap * sizeof *more);
        if (!more) { rf->ok = 0; return; }
        rf->tags = more;
        rf->cap = cap;
    }
    rf->tags[2 * rf->ntags] = name;
    rf->tags[2 * rf->ntags + 1] = value;
    rf->ntags++;
}

/* Read one file of at most `limit` bytes, then its tags (no Python call). */
static void read_file(const char *path, long long limit, ReadFile *rf)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return;
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= limit) {
        rf->data = malloc((size_t)st.st_size + 1);
        if (rf->data) {
            rf->len = fread(rf->data, 1, (size_t)st.st_size + 1, fp);
            rf->ok = !ferror(fp) && rf->len <= (size_t)st.st_size;   /* (a file that grew: the reference) */
        }
    }
    fclose(fp);
    if (rf->ok) {
        rf->ok = 2;   /* keep_tag clears it when it runs out of memory */
        int read = mat_tags(rf->data, rf->len, keep_tag, rf);
        rf->ok = read && rf->ok == 2;
    }
}

static PyObject *read_result(const ReadFile *rf)
{
    if (!rf->ok) Py_RETURN_NONE;
    PyObject *tags = PyList_New(rf->ntags), *data = NULL;
    for (int t = 0; tags && t < rf->ntags; t++) {
        const Span *nv = &rf->tags[2 * t];
        PyObject *pair = Py_BuildValue("(s#s#)", nv[0].p, (Py_ssize_t)nv[0].n, nv[1].p, (Py_ssize_t)nv[1].n);
        if (!pair) Py_CLEAR(tags);
        else PyList_SET_ITEM(tags, t, pair);
    }
    if (tags) data = PyBytes_FromStringAndSize(rf->data, (Py_ssize_t)rf->len);
    PyObject *out = data ? PyTuple_Pack(2, data, tags) : NULL;
    Py_XDECREF(data);
    Py_XDECREF(tags);
    return out;
}

/* mat_read_files([path, ...], limit) -> [(data, [(name, value)]) | None, ...] */
static PyObject *py_mat_read_files(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long long limit;
    if (nargs != 2 || (limit = PyLong_AsLongLong(args[1])) == -1) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "mat_read_files(paths, limit)");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(args[0], "mat_read_files takes a list of paths");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), got = 0;
    PyObject **names = PyMem_Calloc((size_t)n + 1, sizeof *names);
    ReadFile *files = PyMem_Calloc((size_t)n + 1, sizeof *files);
    PyObject *out = NULL;
    if (!names || !files) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < n; got++)
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, got), &names[got])) break;
    if (got < n) goto done;
    Py_BEGIN_ALLOW_THREADS   /* the reading and the tags of every file, the interpreter free */
    for (Py_ssize_t i = 0; i < n; i++) read_file(PyBytes_AS_STRING(names[i]), limit, &files[i]);
    Py_END_ALLOW_THREADS
    out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *one = read_result(&files[i]);
        if (!one) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, one);
    }
done:
    for (Py_ssize_t i = 0; i < got; i++) Py_DECREF(names[i]);
    for (Py_ssize_t i = 0; files && i < n; i++) {
        free(files[i].data);
        free(files[i].tags);
    }
    PyMem_Free(names);
    PyMem_Free(files);
    Py_DECREF(seq);
    return out;
}

/* The game of a record the core vouches for: the replay; the counts added up. */
static int vouch_game(void *fp, GameRec *rec)
{
    MatFile *f = fp;
    Game g;
    if (!record_game(f, rec, &g)) return 0;
    if (!replay_game(f, rec, &g, NULL, NULL)) return 0;
    if (g.phase != G_OVER && rec->nacts) DEFER(f, rec->line);   /* no result: the reference reports it */
    if (f->result_warnings) DEFER(f, f->result_line);   /* a result not the game's worth: the reference says so */
    f->games++;
    f->complete += g.phase == G_OVER;
    f->turns += g.turns;
    return 1;
}

static _Thread_local int last_defer[2];

/* One file as mat_vouch_many looks at it, without the interpreter: 1 and its counts
 * (games, complete games, turns), or 0; where it gave up in `defer`. */
static int vouch_file(const void *buf, size_t len, const Rules *r, Search *search, long counts[3], int defer[2])
{
    MatFile *f = thread_matfile();
    if (!f) {   /* (no memory: the reference replays it) */
        defer[0] = 0;
        defer[1] = __LINE__;
        return 0;
    }
    f->r = r;
    f->search = search;
    f->first_game = 1;
    f->on_game = vouch_game;
    int ok;
    if (r->v[R_REMAINDER_OPPONENT] || r->v[R_CRAZY] || r->v[R_DOUBLE_REROLL]) {   /* gul-bara's turns: the reference */
        ok = 0;
        f->defer_code = __LINE__;
    } else {
        ok = mat_read(buf, len, f);
    }
    defer[0] = f->defer_line;
    defer[1] = f->defer_code;
    counts[0] = f->games;
    counts[1] = f->complete;
    counts[2] = f->turns;
    return ok;
}

/* mat_vouch_many([(data, rules), ...]) -> [(games, complete_games, turns) | None, ...] */
static PyObject *py_mat_vouch_many(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *seq = PySequence_Fast(arg, "mat_vouch_many takes a list of (data, rules) pairs");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), got = 0;
    Py_buffer *views = PyMem_Calloc((size_t)n + 1, sizeof *views);
    Rules *rules = PyMem_Calloc((size_t)n + 1, sizeof *rules);
    long (*counts)[3] = PyMem_Calloc((size_t)n + 1, sizeof *counts);
    int *ok = PyMem_Calloc((size_t)n + 1, sizeof *ok);
    PyObject *out = NULL;
    if (!views || !rules || !counts || !ok) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < n; got++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, got);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError, "mat_vouch_many takes a list of (data, rules) pairs");
            break;
        }
        if (!rules_from(PyTuple_GET_ITEM(item, 1), &rules[got])) break;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(item, 0), &views[got], PyBUF_SIMPLE) < 0) break;
    }
    Search *search = got == n ? thread_search() : NULL;
    if (got == n && !search) PyErr_NoMemory();
    if (search) {
        Py_BEGIN_ALLOW_THREADS   /* every file of the list, the interpreter free for other threads */
        for (Py_ssize_t i = 0; i < n; i++)
            ok[i] = vouch_file(views[i].buf, (size_t)views[i].len, &rules[i], search, counts[i], last_defer);
        Py_END_ALLOW_THREADS
        out = PyList_New(n);
        for (Py_ssize_t i = 0; out && i < n; i++) {
            PyObject *one = ok[i] ? Py_BuildValue("(lll)", counts[i][0], counts[i][1], counts[i][2]) : Py_NewRef(Py_None);
            if (!one) Py_CLEAR(out);
            else PyList_SET_ITEM(out, i, one);
        }
    }
done:
    for (Py_ssize_t i = 0; i < got; i++) PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(rules);
    PyMem_Free(counts);
    PyMem_Free(ok);
    Py_DECREF(seq);
    return out;
}

static PyObject *py_deferred(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return Py_BuildValue("(ii)", last_defer[0], last_defer[1]);
}

/* A bear-off table from a 2-D C-contiguous float32/float64 array. */
static int table_from(PyObject *obj, Py_buffer *view, Table *t, Py_ssize_t rows)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) < 0) return 0;
    int single = !strcmp(view->format, "f"), dbl = !strcmp(view->format, "d");
    if (view->ndim != 2 || (!single && !dbl) || view->shape[0] != rows) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "a bear-off table is a 2-D float32 or float64 array, one row a position");
        return 0;
    }
    *t = (Table){view->buf, (int)view->shape[1], single};
    return 1;
}

static void release_views(Py_buffer *views, int n)
{
    for (int i = 0; i < n; i++) PyBuffer_Release(&views[i]);
}

static long long positions_of(int points)
{
    long long c = 1;   /* C(points + 15, 15) */
    for (int i = 1; i <= 15; i++) c = c * (points + i) / i;
    return c;
}

/* mat_stats(data, rules, turns, tables) -> (names, games, sides, turns, text) | None */
static PyObject *py_mat_stats(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) return PyErr_Format(PyExc_TypeError, "mat_stats takes 4 arguments");
    Rules r;
    if (!rules_from(args[1], &r)) return NULL;
    int want_turns = PyObject_IsTrue(args[2]);
    if (want_turns < 0) return NULL;
    RaceTables db;
    Py_buffer tables[3];   /* the views behind db.dist, db.gammon, db.home */
    int held = 0;          /* how many of them are held */
    if (args[3] != Py_None) {
        int points;
        PyObject *obj[3];
        if (!PyArg_ParseTuple(args[3], "iOOO", &points, &obj[0], &obj[1], &obj[2])) return NULL;
        if (points < 1 || points > 12) return PyErr_Format(PyExc_ValueError, "bear-off tables cover 1-12 points");
        db.points = points;
        Table *into[3] = {&db.dist, &db.gammon, &db.home};
        for (; held < 3; held++)
            if (!table_from(obj[held], &tables[held], into[held], positions_of(points))) {
                release_views(tables, held);
                return NULL;
            }
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        release_views(tables, held);
        return NULL;
    }
    MatFile *f = thread_matfile();
    Stats *st = calloc(1, sizeof *st);
    Search *search = thread_search();
    PyObject *out = NULL;
    if (!f || !st || !search) { PyErr_NoMemory(); goto done; }
    st->db = held ? &db : NULL;
    st->search = search;
    st->want_turns = want_turns;
    f->r = &r;
    f->search = search;
    f->first_game = 1;
    f->on_game = stats_game;
    f->user = st;
    int ok = !(r.v[R_REMAINDER_OPPONENT] || r.v[R_CRAZY] || r.v[R_DOUBLE_REROLL]);
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        ok = mat_read(view.buf, (size_t)view.len, f);
        Py_END_ALLOW_THREADS
    }
    last_defer[0] = f->defer_line;
    last_defer[1] = f->defer_code;
    if (!ok) { out = Py_NewRef(Py_None); goto done; }
    PyObject *games = PyList_New((Py_ssize_t)st->ngames);
    if (!games) goto done;
    for (size_t i = 0; i < st->ngames; i++) {
        const GameRow *g = &st->games[i];
        PyList_SET_ITEM(games, (Py_ssize_t)i, Py_BuildValue(
            "(iiiiiiiiiiiiiiiiiii)", g->number, g->score[0], g->score[1], g->winner, g->kind, g->ending, g->points,
            g->record_points, g->cube, g->turns, g->race_turn, g->race_pips[0], g->race_pips[1], g->opening_d1,
            g->opening_d2, g->opening_side, g->complete, g->source, g->warnings));
    }
    PyObject *sides = PyList_New(2);
    for (int q = 0; q < 2 && sides; q++) {
        const Side *sd = &st->sides[q];
        PyObject *rolls = PyDict_New();
        for (int hi = 1; hi <= 6 && rolls; hi++)
            for (int lo = 1; lo <= hi; lo++)
                if (sd->rolls[hi * 10 + lo]) {
                    char key[3] = {(char)('0' + hi), (char)('0' + lo), 0};
                    PyObject *n = PyLong_FromLong(sd->rolls[hi * 10 + lo]);
                    PyDict_SetItemString(rolls, key, n);
                    Py_XDECREF(n);
                }
        PyList_SET_ITEM(sides, q, Py_BuildValue("(lNldldl)", sd->turns, rolls, sd->luck_n, sd->luck_sum, sd->race_n,
                                                sd->race_sum, sd->race_errors));
    }
    PyObject *turns = want_turns ? PyBytes_FromStringAndSize((const char *)st->turns,
                                                             (Py_ssize_t)(st->nturns * sizeof(TurnRow)))
                                 : Py_NewRef(Py_None);
    PyObject *text = PyBytes_FromStringAndSize(st->text ? st->text : "", (Py_ssize_t)st->text_len);
    out = Py_BuildValue("((s#s#)iNNNN)", f->names[0], (Py_ssize_t)strlen(f->names[0]), f->names[1],
                        (Py_ssize_t)strlen(f->names[1]), f->length, games, sides, turns, text);
done:
    PyBuffer_Release(&view);
    release_views(tables, held);
    if (st) stats_free(st);
    free(st);
    return out;
}

/* ------------------------------------------------------------------ playouts */

/* playouts(rules, games, seed, first, trace) -> (results, trace | None) | None */
static PyObject *py_playouts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "playouts takes 5 arguments");
    Rules r;
    if (!rules_from(args[0], &r)) return NULL;
    long games = PyLong_AsLong(args[1]);
    unsigned long long seed = PyLong_AsUnsignedLongLongMask(args[2]);
    long first = PyLong_AsLong(args[3]);
    int want = PyObject_IsTrue(args[4]);
    if (PyErr_Occurred() || want < 0) return NULL;
    if (games < 0 || games > 100000000 || first < 0) return PyErr_Format(PyExc_ValueError, "games: 0 to 10**8");
    int32_t *results = malloc(sizeof(int32_t) * 4 * (size_t)(games ? games : 1));
    Search *s = thread_search();
    if (!results || !s) { free(results); return PyErr_NoMemory(); }
    Trace trace = {0};
    long done = 0;
    Py_BEGIN_ALLOW_THREADS
    Game g;
    for (; done < games; done++) {
        if (!playout(&g, &r, s, game_seed(seed, (uint64_t)(first + done)), 100000, want ? &trace : NULL)) break;
        int32_t *row = results + 4 * done;
        row[0] = g.winner;
        row[1] = g.kind;
        row[2] = g.points;
        row[3] = (int32_t)g.turns;
    }
    Py_END_ALLOW_THREADS
    PyObject *out = NULL;
    if (done == games) {
        PyObject *res = PyBytes_FromStringAndSize((const char *)results, (Py_ssize_t)(sizeof(int32_t) * 4 * games));
        PyObject *tr = want ? PyBytes_FromStringAndSize((const char *)trace.ev, (Py_ssize_t)(sizeof(int32_t) * trace.n))
                            : Py_NewRef(Py_None);
        out = res && tr ? Py_BuildValue("(NN)", res, tr) : NULL;
        if (!out) { Py_XDECREF(res); Py_XDECREF(tr); }
    } else {
        out = Py_NewRef(Py_None);   /* the reference plays them */
    }
    free(results);
    free(trace.ev);
    return out;
}

/* ------------------------------------------------------------ bear-off */

/* A C-contiguous numpy-style array of `items` elements of `itemsize` bytes
 * (itemsize 0: 4 or 8, a float array whose size says which). */
static int array_from(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, Py_ssize_t items, const char *what)
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

static int py_interrupted(void) { return PyErr_CheckSignals() < 0; }

static PyObject *py_bearoff_boards(PyObject *self, PyObject *args)
{
    (void)self;
    int points;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "iO", &points, &obj)) return NULL;
    if (points < 1 || points > 12) return PyErr_Format(PyExc_ValueError, "bear-off databases cover 1-12 points");
    Py_buffer rows;
    long long n = positions_of(points);
    if (!array_from(obj, &rows, 1, (Py_ssize_t)(n * points), "rows")) return NULL;
    memset(rows.buf, 0, (size_t)rows.len);
    bearoff_fill(rows.buf, n, points);
    PyBuffer_Release(&rows);
    Py_RETURN_NONE;
}

static PyObject *py_bearoff_exact(PyObject *self, PyObject *args)
{
    (void)self;
    int points, mode;
    PyObject *rows_obj, *mean_obj, *dist_obj;
    if (!PyArg_ParseTuple(args, "iiOOO", &points, &mode, &rows_obj, &mean_obj, &dist_obj)) return NULL;
    if (points < 1 || points > 12 || mode < 0 || mode > 2)
        return PyErr_Format(PyExc_ValueError, "points 1-12 and mode 0-2");
    long long n = positions_of(points);
    Py_buffer rows, mean, dist;
    if (!array_from(rows_obj, &rows, 1, (Py_ssize_t)(n * points), "rows")) return NULL;
    if (!array_from(mean_obj, &mean, 8, (Py_ssize_t)n, "mean")) { PyBuffer_Release(&rows); return NULL; }
    if (!array_from(dist_obj, &dist, 0, -1, "dist")) { PyBuffer_Release(&rows); PyBuffer_Release(&mean); return NULL; }
    int cols = (int)(dist.len / dist.itemsize / n), done = -2;
    if (cols >= 2 && cols <= 255 && dist.len == (Py_ssize_t)(n * cols) * dist.itemsize) {
        BoardList b = {points, n, rows.buf};
        Rows d = {dist.buf, cols, dist.itemsize == 4};
        done = bearoff_exact(&b, mode, mean.buf, d, py_interrupted);
    }
    PyBuffer_Release(&rows);
    PyBuffer_Release(&mean);
    PyBuffer_Release(&dist);
    if (done == -2) return PyErr_Format(PyExc_ValueError, "dist: rows of 2-255 rolls, one a position");
    if (done < 0) return NULL;   /* interrupted: the signal's exception is set */
    if (!done) return PyErr_NoMemory();
    return PyLong_FromLong(done);
}

static PyObject *py_bearoff_gnubg(PyObject *self, PyObject *args)
{
    (void)self;
    int points, ncheck, by_key;
    PyObject *obj[5];
    if (!PyArg_ParseTuple(args, "iipOOOOO", &points, &ncheck, &by_key, &obj[0], &obj[1], &obj[2], &obj[3], &obj[4]))
        return NULL;
    if (points < 1 || points > 12 || ncheck < 1 || ncheck > 15)
        return PyErr_Format(PyExc_ValueError, "points 1-12 and 1-15 checkers");
    long long n = positions_of(points);
    Py_buffer v[5];
    Py_ssize_t size[5] = {(Py_ssize_t)(n * points), (Py_ssize_t)n, -1, (Py_ssize_t)n, -1};
    const char *names[5] = {"rows", "mean", "dist", "gammon mean", "gammon dist"};
    int got = 0;
    while (got < 5 && array_from(obj[got], &v[got], got ? 8 : 1, size[got], names[got])) got++;
    int ok = got == 5, cols = ok ? (int)(v[2].len / 8 / n) : 0;
    if (ok && (cols < 2 || v[2].len != (Py_ssize_t)(n * cols * 8) || v[4].len != v[2].len)) {
        PyErr_SetString(PyExc_ValueError, "dist: rows of rolls, one a position");
        ok = 0;
    }
    if (ok) {
        BoardList b = {points, n, v[0].buf};
        if (!bearoff_gnubg(&b, ncheck, cols, by_key, v[1].buf, v[2].buf, v[3].buf, v[4].buf)) {
            PyErr_NoMemory();
            ok = 0;
        }
    }
    while (got--) PyBuffer_Release(&v[got]);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_bearoff_two_sided(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *rows_obj, *order_obj, *win_obj;
    if (!PyArg_ParseTuple(args, "OOO", &rows_obj, &order_obj, &win_obj)) return NULL;
    Py_buffer rows, order, win;
    if (!array_from(rows_obj, &rows, 1, -1, "rows")) return NULL;
    long long m = rows.len / 6;
    int ok = rows.len % 6 == 0 && m <= positions_of(6);
    if (!ok) {
        PyBuffer_Release(&rows);
        return PyErr_Format(PyExc_ValueError, "rows: positions on 6 points");
    }
    if (!array_from(order_obj, &order, 8, (Py_ssize_t)(m * m), "order")) { PyBuffer_Release(&rows); return NULL; }
    if (!array_from(win_obj, &win, 8, (Py_ssize_t)(m * m), "win")) {
        PyBuffer_Release(&rows);
        PyBuffer_Release(&order);
        return NULL;
    }
    const int64_t *pairs = order.buf;
    for (long long k = 0; k < m * m && ok; k++) ok = pairs[k] >= 0 && pairs[k] < m * m;
    /* every successor of a position has fewer checkers: the rows must be the first m, in index order */
    if (ok) ok = bearoff_two_sided(rows.buf, m, pairs, win.buf) ? 1 : -1;
    PyBuffer_Release(&rows);
    PyBuffer_Release(&order);
    PyBuffer_Release(&win);
    if (ok < 0) return PyErr_NoMemory();
    if (!ok) return PyErr_Format(PyExc_ValueError, "order: pairs of rows");
    Py_RETURN_NONE;
}

/* furthest(boards, out): see the method table. */
static PyObject *py_furthest(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "furthest takes 2 arguments");
    Py_buffer in, out;
    if (PyObject_GetBuffer(args[0], &in, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t rows = in.len / 52;
    if (in.len % 52 || out.len != 2 * rows) {
        PyErr_SetString(PyExc_ValueError, "furthest: boards of 52 counts a row, out of 2 a row");
    } else {
        Py_BEGIN_ALLOW_THREADS
        furthest_points(in.buf, rows, out.buf);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    return result;
}

/* best_of_groups(values, counts, keep, out): see the method table. */
static PyObject *py_best_of_groups(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) return PyErr_Format(PyExc_TypeError, "best_of_groups takes 4 arguments");
    long keep = PyLong_AsLong(args[2]);
    if (keep == -1 && PyErr_Occurred()) return NULL;
    if (keep < 1 || keep > NET_MAX_KEEP) return PyErr_Format(PyExc_ValueError, "best_of_groups keeps 1-%d", NET_MAX_KEEP);
    Py_buffer v[3];
    const int index[3] = {0, 1, 3};
    int got = 0;
    for (; got < 3; got++)
        if (PyObject_GetBuffer(args[index[got]], &v[got], PyBUF_C_CONTIGUOUS | (got == 2 ? PyBUF_WRITABLE : 0)) < 0) break;
    PyObject *result = NULL;
    if (got == 3) {
        Py_ssize_t n = v[0].len / (Py_ssize_t)sizeof(double), groups = v[1].len / (Py_ssize_t)sizeof(int), total = 0;
        int sane = v[0].len % (Py_ssize_t)sizeof(double) == 0 && v[1].len % (Py_ssize_t)sizeof(int) == 0 && v[2].len == n;
        for (Py_ssize_t g = 0; sane && g < groups; g++) {
            int c = ((const int *)v[1].buf)[g];
            sane = c >= 0;
            total += c;
        }
        if (!sane || total != n) {
            PyErr_SetString(PyExc_ValueError, "best_of_groups: float64 values, int32 counts adding up to them, "
                            "uint8 out as long as the values");
        } else {
            Py_BEGIN_ALLOW_THREADS
            best_of_groups(v[0].buf, v[1].buf, groups, (int)keep, v[2].buf);
            Py_END_ALLOW_THREADS
            result = Py_NewRef(Py_None);
        }
    }
    for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
    return result;
}

/* The network of net_forward's and net_table's first arguments, its buffers
 * (w1, b1, w2, b2, then the call's own: `extra` of them, the last writable)
 * checked; 0 with an error set. */
static int net_from(PyObject *const *args, Py_ssize_t nargs, int extra, Net *net, Py_buffer *v, int *got)
{
    *got = 0;
    if (nargs < 3 + 4 + extra) {
        PyErr_SetString(PyExc_TypeError, "net_forward and net_table: see their docstrings");
        return 0;
    }
    int encoding = (int)PyLong_AsLong(args[0]), hidden = (int)PyLong_AsLong(args[1]);
    int outputs = (int)PyLong_AsLong(args[2]), inputs = net_inputs(encoding);
    if (PyErr_Occurred()) return 0;
    if (!inputs || hidden < 1 || hidden > 4096 || outputs < 1 || outputs > NET_MAX_OUTPUTS) {
        PyErr_Format(PyExc_ValueError, "a network of encoding 0-%d, 1-4096 hidden units and 1-%d outputs",
                     NET_ENCODINGS - 1, NET_MAX_OUTPUTS);
        return 0;
    }
    for (; *got < 4 + extra; (*got)++)
        if (PyObject_GetBuffer(args[3 + *got], &v[*got], PyBUF_C_CONTIGUOUS | (*got == 3 + extra ? PyBUF_WRITABLE : 0)) < 0)
            return 0;
    const Py_ssize_t want[4] = {(Py_ssize_t)inputs * hidden * 4, (Py_ssize_t)hidden * 4,
                                (Py_ssize_t)hidden * NET_MAX_OUTPUTS * 4, NET_MAX_OUTPUTS * 4};
    static const char *what[4] = {"w1", "b1", "w2", "b2"};
    for (int i = 0; i < 4; i++)
        if (v[i].len != want[i]) {
            PyErr_Format(PyExc_ValueError, "net_forward: %s has the wrong size", what[i]);
            return 0;
        }
    *net = (Net){encoding, hidden, outputs, v[0].buf, v[1].buf, v[2].buf, v[3].buf};
    return 1;
}

/* net_table(encoding, hidden, outputs, w1, b1, w2, b2, table): see the method table. */
static PyObject *py_net_table(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer v[5];
    Net net;
    int got;
    PyObject *result = NULL;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "net_table takes 8 arguments");
    } else if (net_from(args, nargs, 1, &net, v, &got)) {
        if (v[4].len != (Py_ssize_t)NET_TABLE_ROWS * net.hidden * 4) {
            PyErr_SetString(PyExc_ValueError, "net_table: the table is 768 x hidden float32");
        } else {
            Py_BEGIN_ALLOW_THREADS
            net_point_table(&net, v[4].buf);
            Py_END_ALLOW_THREADS
            result = Py_NewRef(Py_None);
        }
    }
    for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
    return result;
}

/* net_threads(n) -> the number before: see the method table. */
static PyObject *py_net_threads(PyObject *self, PyObject *arg)
{
    (void)self;
    const long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 1 || n > FORWARD_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "net_threads: 1 to %d threads, not %ld", FORWARD_MAX_THREADS, n);
        return NULL;
    }
    const int before = split_threads;
    split_threads = (int)n;
    return PyLong_FromLong(before);
}

/* net_forward(encoding, hidden, outputs, w1, b1, w2, b2, boards, out[, table]): see the method table. */
static PyObject *py_net_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer v[6], given;
    Net net;
    int got, have_table = 0;
    PyObject *result = NULL;
    if (nargs != 9 && nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "net_forward takes 9 or 10 arguments");
    } else if (net_from(args, nargs, 2, &net, v, &got)) {
        Py_ssize_t rows = v[4].len / 52, table_size = (Py_ssize_t)NET_TABLE_ROWS * net.hidden * 4;
        if (nargs == 10 && args[9] != Py_None) {
            if (PyObject_GetBuffer(args[9], &given, PyBUF_C_CONTIGUOUS) < 0) goto done;
            have_table = 1;
        }
        if (v[4].len % 52 || v[5].len != rows * net.outputs * 4) {
            PyErr_SetString(PyExc_ValueError, v[4].len % 52 ? "net_forward: boards has the wrong size (52 counts a row)"
                            : "net_forward: out has the wrong size (the outputs of each board)");
        } else if (have_table && given.len != table_size) {
            PyErr_SetString(PyExc_ValueError, "net_forward: the table is 768 x hidden float32 (net_table)");
        } else {
            const int parts = split_parts(rows / FORWARD_ROWS);
            const size_t units = (size_t)net.hidden * (size_t)parts;   /* each part's scratch, then the table */
            float *scratch = PyMem_RawMalloc((units + (have_table ? 0 : (size_t)NET_TABLE_ROWS * net.hidden)) * sizeof(float));
            if (!scratch) {
                PyErr_NoMemory();
            } else {
                Py_BEGIN_ALLOW_THREADS
                const float *table = have_table ? given.buf : scratch + units;
                if (!have_table) net_point_table(&net, scratch + units);   /* (made for this call) */
                forward_split(&net, v[4].buf, rows, v[5].buf, scratch, table, parts);
                Py_END_ALLOW_THREADS
                PyMem_RawFree(scratch);
                result = Py_NewRef(Py_None);
            }
        }
    }
done:
    if (have_table) PyBuffer_Release(&given);
    for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"legal_plays", (PyCFunction)(void (*)(void))py_legal_plays, METH_FASTCALL,
     "legal_plays(rules, mover, opponent, dice, whole_roll, first_turn) -> list | None\n\n"
     "The legal plays, in the reference's order: (dice used, die, the mover's side after, points hit\n"
     "as a bit mask, steps).  None when the search outgrew its tables (ask the reference)."},
    {"successors", (PyCFunction)(void (*)(void))py_successors, METH_FASTCALL,
     "successors(rules, mover, opponent, dice, whole_roll, first_turn) -> bytes | None\n\n"
     "legal_plays' results as positions for the evaluator: 52 int8 per play (the opponent's\n"
     "side, now on roll, then the mover's), in the same order."},
    {"roll_successors", (PyCFunction)(void (*)(void))py_roll_successors, METH_FASTCALL,
     "roll_successors(rules, boards) -> (bytes, counts) | None\n\n"
     "For each board (52 int8) and each of the 21 rolls, the positions reached (as successors\n"
     "gives them), one after another, and int32 counts per board and roll (the evaluator's look-ahead)."},
    {"dice_successors", (PyCFunction)(void (*)(void))py_dice_successors, METH_FASTCALL,
     "dice_successors(rules, boards, dice) -> (rows, counts) | None\n\n"
     "For each board row and its roll (two dice a board), the positions it reaches, as successors\n"
     "gives them, one after another, and their count (int32 a board)."},
    {"judge", (PyCFunction)(void (*)(void))py_judge, METH_FASTCALL,
     "judge(rules, mover, opponent, dice, whole_roll, first_turn, play) -> tuple | None\n\n"
     "A written play (its text, or (source, target) pairs)'s canonical steps, the sides after it (the opponent then on roll) and the dice\n"
     "used, when it is legal; None when it is not or the core cannot tell (ask the reference)."},
    {"mat_tags", py_mat_tags, METH_O,
     "mat_tags(data) -> [(name, value)] | None\n\n"
     "The tags of a .mat file's comment lines, as the reference reads them; None when the core\n"
     "cannot be sure it would read them alike."},
    {"mat_read_files", (PyCFunction)(void (*)(void))py_mat_read_files, METH_FASTCALL,
     "mat_read_files([path, ...], limit) -> [(data, [(name, value)]) | None, ...]\n\n"
     "Each file's bytes and tags (as mat_tags), read in one call that frees the interpreter; None for a\n"
     "file that cannot be read, is not a regular file, is over `limit` bytes or whose tags the core\n"
     "cannot be sure it reads as the reference does."},
    {"mat_vouch_many", py_mat_vouch_many, METH_O,
     "mat_vouch_many([(data, rules), ...]) -> [(games, complete_games, turns) | None, ...]\n\n"
     "For each .mat file, its counts under its rules (from its tags) when the reference's replay would\n"
     "report nothing at all, None when the reference must replay it; in one call that frees the\n"
     "interpreter for them all."},
    {"mat_stats", (PyCFunction)(void (*)(void))py_mat_stats, METH_FASTCALL,
     "mat_stats(data, rules, turns, tables) -> (names, length, games, sides, turns, text) | None\n\n"
     "The statistics of a .mat file the core replays without a doubt (see nardtools.analysis.stats);\n"
     "tables: (points, dist, gammon_dist, home_dist) of a bear-off database for the race figures, or None."},
    {"playouts", (PyCFunction)(void (*)(void))py_playouts, METH_FASTCALL,
     "playouts(rules, games, seed, first, trace) -> (results, trace) | None\n\n"
     "Money games first .. first+games-1 of seed, played with uniformly random legal plays\n"
     "(nardtools.playout.playouts): int32 (winner, kind, points, turns) per game, and the games'\n"
     "events when trace is true.  None when the core cannot play them (ask the reference)."},
    {"bearoff_boards", py_bearoff_boards, METH_VARARGS,
     "bearoff_boards(points, rows)\n\nFill rows (int8, positions x points) with every position of up to 15 checkers in index order."},
    {"bearoff_exact", py_bearoff_exact, METH_VARARGS,
     "bearoff_exact(points, mode, rows, mean, dist) -> columns of dist used\n\n"
     "One quantity of the exact one-sided database (nardtools.analysis.bearoff; mode 0 all off,\n"
     "1 a checker off, 2 all home): mean (float64) and dist (float32 or float64 rows)."},
    {"bearoff_gnubg", py_bearoff_gnubg, METH_VARARGS,
     "bearoff_gnubg(points, checkers, by_key, rows, mean, dist, gammon_mean, gammon_dist)\n\n"
     "The bear-off and first-off tables (float64) under GNU Backgammon's quantised policy."},
    {"bearoff_two_sided", py_bearoff_two_sided, METH_VARARGS,
     "bearoff_two_sided(rows, order, win)\n\nExact two-sided P(win) (nardtools.analysis.twosided)."},
    {"furthest", (PyCFunction)(void (*)(void))py_furthest, METH_FASTCALL,
     "furthest(boards, out)\n\n"
     "Each side's furthest checker from home (nardtools.analysis.nets.furthest): boards int8 rows of 52,\n"
     "out int8 rows of 2, the highest point 1-25 holding a checker, 0 when none is left in play."},
    {"best_of_groups", (PyCFunction)(void (*)(void))py_best_of_groups, METH_FASTCALL,
     "best_of_groups(values, counts, keep, out)\n\n"
     "Of each group of `counts` values (float64, one group after another; counts int32), marks in out\n"
     "(uint8, one a value) the `keep` least, the earlier among equals, and every one of a group of no\n"
     "more (nardtools.analysis.selfplay.best_in_rolls)."},
    {"net_table", (PyCFunction)(void (*)(void))py_net_table, METH_FASTCALL,
     "net_table(encoding, hidden, outputs, w1, b1, w2, b2, table)\n\n"
     "Fills table (float32, 768 x hidden) with the network's point table: for each side, point and\n"
     "count of 0-15 checkers, the rows of w1 of the point's four inputs added up; net_forward reads the\n"
     "points from it (a network whose weights do not change keeps one)."},
    {"net_forward", (PyCFunction)(void (*)(void))py_net_forward, METH_FASTCALL,
     "net_forward(encoding, hidden, outputs, w1, b1, w2, b2, boards, out[, table])\n\n"
     "A network's outputs of board rows (nardtools.analysis.nets.Network; encoding: 0 board, 1 race,\n"
     "2 and 3 contact for backgammon and Long Nardy, 4 Long Nardy's blocks): float32 weights in C order\n"
     "(w1 inputs x hidden; w2 hidden x 8 and b2 8, the outputs padded with zeros), boards int8 rows\n"
     "of 52, out float32 rows x outputs; table the network's net_table (None or left out: made for the\n"
     "call)."},
    {"net_threads", py_net_threads, METH_O,
     "net_threads(n) -> the number before\n\n"
     "Splits each later net_forward of 2 x 512 rows or more, and roll_successors of 2 x 16 boards or\n"
     "more, over up to n threads (1-16), each of 512 rows (16 boards) or more; the outputs are the same\n"
     "whatever n is.  1 when the module loads."},
    {"deferred", py_deferred, METH_NOARGS,
     "deferred() -> (record line, source line)\n\nWhere this thread's last file looked at (mat_vouch_many) was given up."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "The compiled core of the rules.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    board_init();   /* here, under the interpreter's lock: searches run in threads without it */
    PyObject *m = PyModule_Create(&module);
#define RULE_NAME(id, name) name,
    static const char *const rule_names[N_RULES] = {RULE_FIELDS(RULE_NAME)};
    PyObject *names = PyTuple_New(N_RULES);
    for (int i = 0; names && i < N_RULES; i++) {
        PyObject *name = PyUnicode_FromString(rule_names[i]);
        if (!name) Py_CLEAR(names);
        else PyTuple_SET_ITEM(names, i, name);
    }
    if (m && (!names || PyModule_AddIntConstant(m, "TURN_ROW_SIZE", (long)sizeof(TurnRow)) < 0
              || PyModule_AddIntConstant(m, "MOST_THREADS", FORWARD_MAX_THREADS) < 0
              || PyModule_AddObjectRef(m, "RULE_FIELDS", names) < 0)) {
        Py_XDECREF(names);
        Py_DECREF(m);
        return NULL;
    }
    Py_XDECREF(names);
    return m;
}
