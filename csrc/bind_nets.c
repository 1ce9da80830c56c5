/*
 * The bindings of bear-off databases and the networks' forward pass.
 */

#include "bind.h"

PyObject *py_bearoff_boards(PyObject *self, PyObject *args)
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

PyObject *py_bearoff_exact(PyObject *self, PyObject *args)
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

PyObject *py_bearoff_gnubg(PyObject *self, PyObject *args)
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

PyObject *py_bearoff_two_sided(PyObject *self, PyObject *args)
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
PyObject *py_net_table(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
PyObject *py_net_threads(PyObject *self, PyObject *arg)
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
PyObject *py_net_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
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
