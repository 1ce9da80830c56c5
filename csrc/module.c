/*
 * The Python face of the compiled core (nardtools.core wraps it): the method
 * table and the module; the methods are bind_*.c's (bind.h).
 */

#include "bind.h"

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
