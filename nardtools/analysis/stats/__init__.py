"""Statistics over archives of recorded games: games, turns, players, dice.

Every game of every file is replayed (leniently: a record with an illegal play
still counts, and the problem is listed); each file gives a :class:`FileStats`
(its games' rows, its turns' rows when asked for, and its dice counts), made
in worker processes or on a Dask cluster, and an :class:`Archive` folds them
in as they arrive, so memory stays flat in the archive's size: game rows are
small, dice and players are running sums, and turn rows go straight to a
:class:`TableSink` (a file) when one is given.

The schema of each table is in ``docs/stats.md`` and in :data:`SCHEMAS`.
The package's modules: :mod:`.schema` (the columns and one definition of a
turn row), :mod:`.collection` (a file's figures, the archive), :mod:`.sinks`
(where rows go) and :mod:`.runners` (worker processes, Dask).

>>> from nardtools.notation.mat import replay_text
>>> text = (" 1 point match\\n\\n Game 1\\n A : 0    B : 0\\n"
...         "  1) 31: 8/5 6/5    42: 8/4 6/4\\n      Wins 1 point\\n")
>>> stats = file_stats_from_record(replay_text(text, path="g.mat"), turns=True)
>>> [(g["winner"], g["outcome"], g["points"]) for g in stats.games]
[('A', 'single', 1)]
>>> [(t["player"], t["dice"], t["play"], t["legal_plays"]) for t in stats.turns.rows()]
[('A', '31', '8/5 6/5', 16), ('B', '42', '8/4 6/4', 14)]
"""

from .collection import (
    Archive,
    FileStats,
    Names,
    chi2_sf,
    core_file_stats,
    dice_row,
    file_stats,
    file_stats_from_record,
)
from .runners import SCHEDULER_TIMEOUT, ClusterError, collect, run_dask, run_local
from .schema import (
    ANALYSIS_COLUMNS,
    JSON_DIGITS,
    RACE_ERROR_THRESHOLD,
    SCHEMAS,
    TERMINAL_COLUMNS,
    Coded,
    TurnColumns,
    check_columns,
)
from .sinks import GroupSink, RowSink, TableSink, frame_json, group, to_arrow, to_frame

__all__ = ["ANALYSIS_COLUMNS", "JSON_DIGITS", "RACE_ERROR_THRESHOLD", "SCHEDULER_TIMEOUT", "SCHEMAS",
           "TERMINAL_COLUMNS", "Archive", "ClusterError", "Coded", "FileStats", "GroupSink", "Names", "RowSink", "TableSink",
           "TurnColumns", "check_columns", "chi2_sf", "collect", "core_file_stats", "dice_row", "file_stats",
           "file_stats_from_record", "frame_json", "group", "run_dask", "run_local", "to_arrow", "to_frame"]
