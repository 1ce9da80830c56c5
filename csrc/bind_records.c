/*
 * The bindings of .mat records: tags, whole files read, vouched for and
 * their statistics; and random playouts.
 */

#include "bind.h"

static void collect_tag(void *user, Span name, Span value)
{
    PyObject *list = user;
    if (PyErr_Occurred()) return;
    PyObject *pair = Py_BuildValue("(s#s#)", name.p, (Py_ssize_t)name.n, value.p, (Py_ssize_t)value.n);
    if (pair) { PyList_Append(list, pair); Py_DECREF(pair); }
}

/* mat_tags(data) -> [(name, value)] | None */
PyObject *py_mat_tags(PyObject *self, PyObject *arg)
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
PyObject *py_mat_read_files(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
PyObject *py_mat_vouch_many(PyObject *self, PyObject *arg)
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

PyObject *py_deferred(PyObject *self, PyObject *unused)
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

long long positions_of(int points)
{
    long long c = 1;   /* C(points + 15, 15) */
    for (int i = 1; i <= 15; i++) c = c * (points + i) / i;
    return c;
}

/* mat_stats(data, rules, turns, tables) -> (names, games, sides, turns, text) | None */
PyObject *py_mat_stats(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
PyObject *py_playouts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
