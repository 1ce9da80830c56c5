/*
 * The bindings of the rules: legal plays, each roll's results, the judgement
 * of a written play, and the board rows' furthest checkers and best results.
 */

#include "bind.h"

/* The legal plays of the turn the six common arguments give (turn_args: the
 * rules, board and turn are the caller's), in this thread's search: the
 * search (overflow set when it outgrew its tables), or NULL with an error. */
static Search *searched(PyObject *const *args, Py_ssize_t nargs, const char *name, Rules *r, Board *b, Turn *t)
{
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "%s takes 6 arguments", name);
        return NULL;
    }
    if (!turn_args(args, r, b, t)) return NULL;
    Search *s = thread_search();
    if (!s) {
        PyErr_NoMemory();
        return NULL;
    }
    legal_plays(t, s);
    return s;
}

/* legal_plays(rules, mover, opponent, dice, whole_roll, first_turn) -> [(used, die, mover_after, hits, steps)] | None */
PyObject *py_legal_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Rules r;
    Board b;
    Turn t;
    Search *s = searched(args, nargs, "legal_plays", &r, &b, &t);
    if (!s) return NULL;
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
PyObject *py_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Rules r;
    Board b;
    Turn t;
    Search *s = searched(args, nargs, "successors", &r, &b, &t);
    if (!s) return NULL;
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
 * gives them (first turn as nardtools.turn.on_first_turn judges it), one board's
 * after another's; counts: int32 per board.  One call for a turn of many games at
 * once (nardtools.analysis.selfplay.drive_many).  None when a search outgrew its tables. */
PyObject *py_dice_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
PyObject *py_roll_successors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
PyObject *py_judge(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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

/* furthest(boards, out): see the method table. */
PyObject *py_furthest(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
PyObject *py_best_of_groups(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
