"""The tables' schema: each column's dtype, the columns shown by default, and
one definition of a turn row (:class:`TurnColumns`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from ...errors import AnalysisError

if TYPE_CHECKING:
    from .collection import Names

#: Column name -> pandas dtype, for every table (``docs/stats.md`` explains them).
SCHEMAS: dict[str, dict[str, str]] = {
    "games": {
        "file": "string", "game": "int64", "variant": "string", "ruleset": "string",
        "player0": "string", "player1": "string", "match_length": "int64",
        "score0": "int64", "score1": "int64", "winner": "string", "winner_side": "Int64",
        "outcome": "string", "ending": "string", "points": "Int64", "record_points": "Int64", "cube": "int64",
        "turns": "int64", "race_turn": "Int64", "race_pips0": "Int64", "race_pips1": "Int64",
        "opening_roll": "string", "opening_side": "Int64", "complete": "boolean",
        "result_source": "string", "problems": "int64", "first_problem": "string", "warnings": "int64",
    },
    "turns": {
        "file": "string", "ruleset": "string", "game": "int64", "turn": "int64", "index": "int64", "side": "int64",
        "player": "string", "dice": "string", "play": "string", "pips_before": "int64",
        "pips_opponent": "int64", "pips_after": "int64", "forced": "boolean", "legal_plays": "int64",
        "dice_used": "int64", "dice_lost": "int64", "race": "boolean", "race_exact": "boolean",
        "pwin_before": "float64", "pwin_after": "float64", "luck": "float64",
        "race_error": "float64", "legal": "boolean", "rule": "string",
        "best": "string", "error": "float64", "mark": "string", "eval_luck": "float64",
    },
    "players": {
        "player": "string", "games": "int64", "wins": "int64", "losses": "int64",
        "points_won": "int64", "points_lost": "int64", "win_rate": "float64",
        "wins_single": "int64", "wins_gammon": "int64", "wins_backgammon": "int64",
        "wins_oin": "int64", "wins_mars": "int64", "wins_home_mars": "int64", "wins_koks": "int64",
        "losses_gammon_or_mars": "int64", "luck_turns": "int64", "luck_mean": "float64",
        "race_decisions": "int64", "race_error_mean": "float64", "race_error_rate": "float64",
        "turns": "int64", "decisions": "int64", "error_rate": "float64", "errors": "int64", "blunders": "int64",
        "eval_luck": "float64", "cube_decisions": "int64", "cube_error_rate": "float64", "cube_errors": "int64",
    },
    "dice": {
        "player": "string", "rolls": "int64", "face1": "int64", "face2": "int64", "face3": "int64",
        "face4": "int64", "face5": "int64", "face6": "int64", "face_chi2": "float64",
        "face_p_value": "float64", "doubles": "int64", "doubles_rate": "float64",
        "doubles_p_value": "float64", "roll_chi2": "float64", "roll_p_value": "float64",
    },
}

#: The columns the terminal shows by default (``--columns`` picks others).
TERMINAL_COLUMNS: dict[str, list[str]] = {
    "games": ["file", "game", "ruleset", "player0", "player1", "score0", "score1", "winner", "outcome",
              "points", "turns", "opening_roll", "problems"],
    "turns": ["file", "game", "turn", "player", "dice", "play", "pips_before", "pips_opponent", "forced",
              "legal_plays", "pwin_before", "luck", "race_error"],
    "players": ["player", "games", "wins", "losses", "points_won", "points_lost", "win_rate",
                "luck_turns", "luck_mean", "race_decisions", "race_error_mean", "race_error_rate"],
    "dice": ["player", "rolls", "face1", "face2", "face3", "face4", "face5", "face6", "face_p_value",
             "doubles_rate", "doubles_p_value", "roll_p_value"],
}

#: The evaluator's columns, filled by ``--analyse`` (empty otherwise), added to the terminal's.
ANALYSIS_COLUMNS: dict[str, list[str]] = {
    "turns": ["best", "error", "mark", "eval_luck"],
    "players": ["decisions", "error_rate", "errors", "blunders", "cube_decisions", "cube_error_rate", "cube_errors",
                "eval_luck"],
}

#: Numbers that name things rather than measure them: never averaged by :func:`group`.
_IDENTIFIERS = {"game", "turn", "index", "side", "winner_side", "opening_side", "score0", "score1",
                "match_length"}

#: A race error at least this large counts as an error in ``race_error_rate``.
RACE_ERROR_THRESHOLD = 0.01


_TURN_INTS = ("game", "turn", "index", "side", "high", "low", "pips_before", "pips_opponent", "pips_after",
              "legal_plays", "dice_used", "dice_lost", "race", "race_exact", "play_start", "play_len")
_TURN_FLOATS = ("pwin_before", "pwin_after", "luck", "race_error")


class TurnColumns:
    """Rows of the turns table as columns (name -> list, numpy array,
    :class:`Coded` or pyarrow array), as the compiled core gives them, so
    that a million rows are not a million dictionaries, nor a million
    strings: the core's text columns stay codes into a few labels, or an
    Arrow array over its buffer of plays.  :meth:`rows` gives dictionaries
    for the writers that want them, :meth:`arrow` a table."""

    def __init__(self, columns: dict[str, Any], n: int) -> None:
        self.columns, self.n = columns, n

    def __len__(self) -> int:
        return self.n

    @classmethod
    def from_rows(cls, rows: list[dict[str, Any]]) -> TurnColumns:
        return cls({c: [r.get(c) for r in rows] for c in SCHEMAS["turns"]}, len(rows))

    @classmethod
    def from_core(cls, data: bytes, text: bytes, path: str, ruleset: str, names: tuple[str, str]) -> TurnColumns:
        """The columns of the rows ``nardtools._core.mat_stats`` packed (``TurnRow`` of stats.h)."""
        import numpy as np
        import pyarrow as pa

        dtype = np.dtype([(c, "<i4") for c in _TURN_INTS] + [(c, "<f8") for c in _TURN_FLOATS])
        rows = np.frombuffer(data, dtype)
        n = len(rows)
        # the plays' text is one buffer, in row order: its offsets are the starts, then the end
        offsets = np.append(rows["play_start"], rows["play_start"][-1] + rows["play_len"][-1] if n else 0)
        here = np.zeros(n, np.int32)
        columns: dict[str, Any] = {
            "file": Coded(here, (path,)), "ruleset": Coded(here, (ruleset,)),
            **{c: rows[c].astype("int64") for c in ("game", "turn", "index", "side", "pips_before", "pips_opponent",
                                                     "pips_after", "legal_plays", "dice_used", "dice_lost")},
            "player": Coded(rows["side"], names), "dice": Coded(rows["high"] * 10 + rows["low"], _ROLL_LABELS),
            "play": pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets.astype(np.int64)), pa.py_buffer(text)),
            "forced": rows["legal_plays"] == 1, "race": rows["race"] != 0, "race_exact": rows["race_exact"] != 0,
            **{c: rows[c].copy() for c in _TURN_FLOATS},
            "legal": np.ones(n, bool), "rule": pa.nulls(n, pa.large_string()),
            "best": pa.nulls(n, pa.large_string()), "error": np.full(n, np.nan), "mark": pa.nulls(n, pa.large_string()),
            "eval_luck": np.full(n, np.nan),
        }
        return cls({c: columns[c] for c in SCHEMAS["turns"]}, n)

    def add_analysis(self, turns: dict[tuple[int, int], Any]) -> None:
        """The evaluator's columns (:data:`ANALYSIS_COLUMNS`) of the rows
        whose ``(game, index)`` has a :class:`~nardtools.analysis.analyse.TurnAnalysis`
        in ``turns``; the other rows' stay empty."""
        import numpy as np
        import pyarrow as pa

        found = [turns.get(key) for key in zip(_pylist(self.columns["game"]), _pylist(self.columns["index"]))]
        self.columns.update({
            "best": pa.array([None if t is None else t.best for t in found], pa.large_string()),
            "error": np.array([np.nan if t is None or t.error is None else t.error for t in found], float),
            "mark": pa.array([None if t is None else t.mark for t in found], pa.large_string()),
            "eval_luck": np.array([np.nan if t is None else t.luck for t in found], float),
        })

    @classmethod
    def concat(cls, parts: Sequence[TurnColumns]) -> TurnColumns:
        """The rows of ``parts`` in order, as one set of columns."""
        import numpy as np
        import pyarrow as pa

        if len(parts) == 1:
            return parts[0]
        columns: dict[str, Any] = {}
        for c in parts[0].columns:
            values = [p.columns[c] for p in parts]
            if all(isinstance(v, np.ndarray) for v in values):
                columns[c] = np.concatenate(values)
            elif all(isinstance(v, Coded) for v in values):
                columns[c] = Coded.concat(values)
            elif all(isinstance(v, pa.Array) for v in values):
                columns[c] = pa.concat_arrays(values)
            else:
                columns[c] = [x for v in values for x in _pylist(v)]
        return cls(columns, sum(p.n for p in parts))

    def rows(self) -> Iterator[dict[str, Any]]:
        """Each row as a dictionary (NaN as None)."""
        lists = {c: _pylist(v) for c, v in self.columns.items()}
        for i in range(self.n):
            yield {c: (None if isinstance(v[i], float) and math.isnan(v[i]) else v[i]) for c, v in lists.items()}

    def rename_players(self, names: Names) -> None:
        players = self.columns["player"]
        self.columns["player"] = (Coded(players.codes, tuple(map(names, players.labels))) if isinstance(players, Coded)
                                  else [names(p) for p in players])

    def frame(self, columns: Sequence[str] | None = None) -> Any:
        """A pandas DataFrame with the documented dtypes."""
        import pandas as pd

        wanted = list(columns or SCHEMAS["turns"])
        frame = pd.DataFrame({c: _pylist(self.columns[c]) if not hasattr(self.columns[c], "dtype")
                              else self.columns[c] for c in wanted}, columns=wanted)
        return frame.astype({c: SCHEMAS["turns"][c] for c in wanted})

    def arrow(self, columns: Sequence[str] | None = None) -> Any:
        """A pyarrow Table of the rows with the documented types, carrying
        pandas' metadata (``pandas.read_parquet`` gives the documented dtypes
        back), built column by column without a pandas frame between."""
        import pyarrow as pa

        wanted = list(columns or SCHEMAS["turns"])
        schema = _turns_schema(tuple(wanted))
        arrays = []
        for c in wanted:
            v, kind = self.columns[c], schema.field(c).type
            v = v.arrow() if isinstance(v, Coded) else v
            arrays.append(v if isinstance(v, pa.Array) and v.type == kind else pa.array(v, kind, from_pandas=True))
        return pa.Table.from_arrays(arrays, schema=schema)


def _pylist(values: Any) -> list[Any]:
    return values if isinstance(values, list) else values.to_pylist() if hasattr(values, "to_pylist") else \
        values.tolist()


@dataclass(frozen=True)
class Coded:
    """A text column with few distinct values (a file's path, its players,
    the rolls) as a code per row into its labels: a file's rows cost no
    string each, and renaming a player renames one label."""

    codes: Any  # numpy integers, one per row
    labels: tuple[str | None, ...]

    def __len__(self) -> int:
        return len(self.codes)

    def tolist(self) -> list[str | None]:
        labels = self.labels
        return [labels[c] for c in self.codes.tolist()]

    def arrow(self) -> Any:
        import pyarrow as pa

        return pa.array(self.labels, pa.large_string()).take(pa.array(self.codes))

    @staticmethod
    def concat(parts: Sequence[Coded]) -> Coded:
        import numpy as np

        index: dict[str | None, int] = {}
        codes = [np.array([index.setdefault(label, len(index)) for label in p.labels], np.int32)[p.codes]
                 for p in parts]
        return Coded(np.concatenate(codes), tuple(index))


#: Roll codes (high * 10 + low) -> the roll as the table writes it ("63").
_ROLL_LABELS = tuple(str(code) if code % 10 and code // 10 else None for code in range(67))


@cache
def _turns_schema(columns: tuple[str, ...]) -> Any:
    """The Arrow schema of turns columns, with the pandas metadata a frame of
    the documented dtypes would write."""
    import pyarrow as pa

    return pa.Schema.from_pandas(TurnColumns.from_rows([]).frame(list(columns)), preserve_index=False)


#: Digits after the point that JSON output keeps.
JSON_DIGITS = 6


def check_columns(table: str, columns: Iterable[str]) -> None:
    """Raise :class:`AnalysisError` naming the first column ``table`` does not have."""
    unknown = [c for c in columns if c not in SCHEMAS[table]]
    if unknown:
        raise AnalysisError(f"no column {unknown[0]!r} in the {table} table; columns: {', '.join(SCHEMAS[table])}")


