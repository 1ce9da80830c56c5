"""Statistics over archives of recorded games: games, turns, players, dice.

Every game of every file is replayed (leniently: a record with an illegal play
still counts, and the problem is listed); each file gives a :class:`FileStats`
(its games' rows, its turns' rows when asked for, and its dice counts), made
in worker processes or on a Dask cluster, and an :class:`Archive` folds them
in as they arrive, so memory stays flat in the archive's size: game rows are
small, dice and players are running sums, and turn rows go straight to a
:class:`TableSink` (a file) when one is given.

The schema of each table is in ``docs/stats.md`` and in :data:`SCHEMAS`.

>>> from nardtools.notation.replay import replay_text
>>> text = (" 1 point match\\n\\n Game 1\\n A : 0    B : 0\\n"
...         "  1) 31: 8/5 6/5    42: 8/4 6/4\\n      Wins 1 point\\n")
>>> stats = file_stats_from_record(replay_text(text, path="g.mat"), turns=True)
>>> [(g["winner"], g["outcome"], g["points"]) for g in stats.games]
[('A', 'single', 1)]
>>> [(t["player"], t["dice"], t["play"], t["legal_plays"]) for t in stats.turns.rows()]
[('A', '31', '8/5 6/5', 16), ('B', '42', '8/4 6/4', 14)]
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from ..dice import ALL_ROLLS
from ..errors import AnalysisError, NardtoolsError
from ..notation.record import RecordError
from ..notation.replay import ReplayedMatch
from ..outcome import OutcomeKind
from .annotate import annotate_game

if TYPE_CHECKING:
    from .analyse import PlayerAnalysis

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

#: Seconds to wait for a Dask scheduler named by ``--scheduler``.
SCHEDULER_TIMEOUT = 5

#: A race error at least this large counts as an error in ``race_error_rate``.
RACE_ERROR_THRESHOLD = 0.01


@dataclass
class FileStats:
    """What one file contributes: rows and running counts (picklable)."""

    path: str
    games: list[dict[str, Any]] = field(default_factory=list)
    turns: TurnColumns | None = None  # the turn rows (as columns), when asked for
    # dice: player -> Counter of unordered rolls "63" (not openings played as rolled)
    rolls: dict[str, Counter[str]] = field(default_factory=dict)
    # players: player -> running sums
    luck: dict[str, list[float]] = field(default_factory=dict)  # [n, sum]
    race: dict[str, list[float]] = field(default_factory=dict)  # [decisions, error sum, errors >= threshold]
    turns_played: Counter[str] = field(default_factory=Counter)
    # with analyse: player -> the evaluator's figures
    analysis: dict[str, PlayerAnalysis] = field(default_factory=dict)
    unreadable: str = ""
    problems: list[str] = field(default_factory=list)


def file_stats(path: str, turns: bool = False, race_points: int = 6, encoding: str | None = None,
               on_turns: Callable[[TurnColumns], None] | None = None,
               data: bytes | None = None, analyse: int | None = None,
               on_game: Callable[[], None] | None = None) -> FileStats:
    """Read and replay one file; an unreadable file gives an empty result that
    says why (a batch never stops on one file).  The compiled core does the
    whole file when it can (:func:`core_file_stats`); otherwise it is read and
    replayed here a game at a time, and with ``on_turns`` each game's turn
    rows go there as soon as they are made, so memory stays bounded by one game.
    ``analyse`` (a ply) adds the evaluator's figures (:mod:`.analyse`): the
    turns' best play, error, mark and luck, and the players' error rates.
    ``on_game`` is called for each game replayed here (at once, for a file
    the compiled core read whole)."""
    from ..notation.reading import open_record
    from ..notation.replay import reading_problems, replay_games

    if analyse is None:
        fast = core_file_stats(path, data, turns=turns, race_points=race_points, encoding=encoding)
        if fast is not None:
            if on_turns is not None and fast.turns is not None:
                on_turns(fast.turns)
                fast.turns = None
            if on_game is not None:
                for _ in fast.games:
                    on_game()
            return fast
    out = FileStats(str(path))
    try:
        record, games = open_record("<stdin>" if path == "-" else path, data, encoding)
        errors = []
        rows: list[dict[str, Any]] = []
        evaluators: dict[str, Any] = {}
        for g in replay_games(record, games, lenient=True):
            _add_game(out, g, record, g.game.ruleset, rows if turns else None, race_points=race_points,
                      analysis=_analysis(out, g, record, analyse, evaluators) if analyse is not None else None)
            errors += [p for p in g.problems if p.severity == "error"]
            if on_game is not None:
                on_game()
            if on_turns is not None and rows:
                on_turns(TurnColumns.from_rows(rows))
                rows = []
        out.problems = [str(p) for p in reading_problems(record) + errors]
        if turns and on_turns is None:
            out.turns = TurnColumns.from_rows(rows)
        return out
    except RecordError as e:  # (its text starts with the path: the report names the file once)
        return FileStats(str(path), unreadable=e.bare_message)
    except OSError as e:
        return FileStats(str(path), unreadable=e.strerror or str(e))
    except (UnicodeError, NardtoolsError) as e:
        return FileStats(str(path), unreadable=str(e))
    except Exception as e:
        return FileStats(str(path), unreadable=f"internal error ({type(e).__name__}: {e}); please report it")


_OUTCOMES = {True: ("", "oin", "mars", "home-mars", "koks"), False: ("", "single", "gammon", "backgammon", "")}
_ENDINGS = (None, "bear-off", "drop", "resign")
_SOURCES = ("none", "replay", "record")


def core_file_stats(path: str, data: bytes | None = None, *, turns: bool = False,
                    race_points: int = 6, encoding: str | None = None) -> FileStats | None:
    """The statistics of a ``.mat`` file the compiled core replays without a
    doubt (the same figures as the replay here), or ``None`` (see
    :func:`~nardtools.core.mat_file` for ``encoding``)."""
    from ..core import compiled, mat_file, pack_rules
    from .bearoff import BearoffDatabase

    read = mat_file(path, data, encoding=encoding)
    core = compiled()
    if read is None or core is None:
        return None
    data, ruleset = read
    rules = ruleset.rules
    db = BearoffDatabase.cached(race_points)
    got = core.mat_stats(data, pack_rules(rules), turns, (db.points, db.dist, db.gammon_dist, db.home_dist))
    if got is None:
        return None
    (first, second), length, games, sides, turn_bytes, text = got
    names = (first or "X", second or "O")
    path = "<stdin>" if path == "-" else str(path)
    out = FileStats(path)
    variant = "long" if rules.is_long else rules.start
    kinds = _OUTCOMES[rules.is_long]
    for (number, score0, score1, winner, kind, ending, points, record_points, cube, nturns, race_turn, race0,
         race1, d1, d2, opening_side, complete, source) in games:
        out.games.append({
            "file": path, "game": number, "variant": variant, "ruleset": ruleset.name,
            "player0": names[0], "player1": names[1], "match_length": length,
            "score0": score0, "score1": score1,
            "winner": names[winner] if winner >= 0 else None, "winner_side": winner if winner >= 0 else None,
            "outcome": kinds[kind] or None, "ending": _ENDINGS[ending],
            "points": points if points >= 0 else (record_points if record_points >= 0 else None),
            "record_points": record_points if record_points >= 0 else None, "cube": cube, "turns": nturns,
            "race_turn": race_turn if race_turn >= 0 else None,
            "race_pips0": race0 if race_turn >= 0 else None, "race_pips1": race1 if race_turn >= 0 else None,
            "opening_roll": f"{d1}{d2}" if d1 else None, "opening_side": opening_side if opening_side >= 0 else None,
            "complete": bool(complete), "result_source": _SOURCES[source], "problems": 0, "first_problem": None,
            "warnings": 0,
        })
    for side, (nturns, rolls, luck_n, luck_sum, race_n, race_sum, race_errors) in enumerate(sides):
        who = names[side]
        if nturns:
            out.turns_played[who] += nturns
        if rolls:
            out.rolls.setdefault(who, Counter()).update(rolls)
        if luck_n:
            out.luck[who] = [luck_n, luck_sum]
        if race_n:
            out.race[who] = [race_n, race_sum, race_errors]
    if turns:
        out.turns = TurnColumns.from_core(turn_bytes, text, path, ruleset.name, names)
    return out


def file_stats_from_record(match: ReplayedMatch, *, turns: bool = False, race_points: int = 6) -> FileStats:
    """The statistics of one replayed file; see the module docstring."""
    out = FileStats(match.record.path)
    out.problems = [str(p) for p in match.errors]
    rows: list[dict[str, Any]] = []
    for g in match.games:
        _add_game(out, g, match.record, match.ruleset, rows if turns else None, race_points=race_points)
    if turns:
        out.turns = TurnColumns.from_rows(rows)
    return out


def _analysis(out: FileStats, g: Any, record: Any, ply: int, evaluators: dict[str, Any]) -> dict[int, Any]:
    """The evaluator's analysis of one game by turn index, its players'
    figures added to ``out``; empty, with a problem noted, under rules the
    networks refuse."""
    from .analyse import Judge, analyse_cube, analyse_game
    from .evaluate import Evaluator

    rules = g.game.ruleset
    try:
        if rules.name not in evaluators:
            evaluators[rules.name] = Evaluator(rules.rules)
        judge = Judge.for_match(rules.rules, g.game.match_length)
        turns = analyse_game(g, evaluators[rules.name], record.names, ply=ply, judge=judge)
        cubes = analyse_cube(g, evaluators[rules.name], record.names, judge, ply=ply)
    except AnalysisError as e:
        out.problems.append(f"{record.path}: game {g.record.number}: not analysed: {e}")
        return {}
    from .analyse import CubeAnalysis, PlayerAnalysis, TurnAnalysis

    entries: list[TurnAnalysis | CubeAnalysis] = [*turns, *cubes]
    for t in entries:
        out.analysis.setdefault(t.player, PlayerAnalysis(t.player)).add(t)
    return {t.index: t for t in turns}


def _add_game(out: FileStats, g: Any, record: Any, ruleset: Any, rows: list[dict[str, Any]] | None, *,
              race_points: int, analysis: dict[int, Any] | None = None) -> None:
    """One replayed game's rows and counts, added to ``out`` (its turn rows to
    ``rows``, if given; with the evaluator's figures of ``analysis``)."""
    names = record.names
    rules = ruleset.rules
    variant = "long" if rules.is_long else rules.start
    plays_opening = rules.opening == "play-opening-dice"
    notes = annotate_game(g, race_points=race_points)
    outcome = g.game.outcome
    result = g.record.result
    source = "replay" if outcome is not None else ("record" if result is not None else "none")
    winner_side = outcome.winner if outcome else (result.player if result else None)
    kind = outcome.kind.value if outcome else (result.note or "") if result else ""
    race_turn = next((n for n in notes if n.race), None)
    opening = notes[0] if notes else None
    game_problems = [p for p in g.problems if p.severity == "error"]
    out.games.append({
        "file": record.path, "game": g.record.number, "variant": variant, "ruleset": ruleset.name,
        "player0": names[0], "player1": names[1], "match_length": record.length,
        "score0": g.record.score[0], "score1": g.record.score[1],
        "winner": names[winner_side] if winner_side is not None else None, "winner_side": winner_side,
        "outcome": kind or None,
        "ending": outcome.ending.value if outcome else None,
        "points": outcome.points if outcome else (result.value if result else None),
        "record_points": result.value if result else None,
        "cube": g.game.cube, "turns": len(notes),
        "race_turn": race_turn.index + 1 if race_turn else None,
        "race_pips0": _pips_of(race_turn, 0), "race_pips1": _pips_of(race_turn, 1),
        "opening_roll": opening.dice if opening else None,
        "opening_side": opening.player if opening else None,
        "complete": g.complete, "result_source": source, "problems": len(game_problems),
        "first_problem": game_problems[0].rule if game_problems else None,
        "warnings": len(g.problems) - len(game_problems),
    })
    for n in notes:
        who = names[n.player]
        out.turns_played[who] += 1
        if not n.dice.startswith("+") and not (plays_opening and n.index == 0):
            out.rolls.setdefault(who, Counter())[n.dice] += 1
        if n.luck is not None:
            acc = out.luck.setdefault(who, [0, 0.0])
            acc[0] += 1
            acc[1] += n.luck
        if n.race_error is not None and not n.forced:
            acc = out.race.setdefault(who, [0, 0.0, 0])
            acc[0] += 1
            acc[1] += n.race_error
            acc[2] += n.race_error >= RACE_ERROR_THRESHOLD
        if rows is not None:
            rows.append({
                "file": record.path, "ruleset": ruleset.name, "game": n.game, "turn": n.turn, "index": n.index,
                "side": n.player,
                "player": who, "dice": n.dice, "play": n.play, "pips_before": n.pips_before[0],
                "pips_opponent": n.pips_before[1], "pips_after": n.pips_after[0], "forced": n.forced,
                "legal_plays": n.legal_plays, "dice_used": n.dice_used, "dice_lost": n.dice_lost,
                "race": n.race, "race_exact": n.race_exact, "pwin_before": n.pwin_before,
                "pwin_after": n.pwin_after, "luck": n.luck, "race_error": n.race_error,
                "legal": n.legal, "rule": n.rule or None, **_analysed(analysis, n.index),
            })


def _analysed(analysis: dict[int, Any] | None, index: int) -> dict[str, Any]:
    t = analysis.get(index) if analysis else None
    if t is None:
        return {}
    return {"best": t.best, "error": t.error, "mark": t.mark, "eval_luck": t.luck}


def _pips_of(note: Any, side: int) -> int | None:
    if note is None:
        return None
    pips: tuple[int, int] = note.before.pips()
    return pips[0] if note.player == side else pips[1]


# ---------------------------------------------------------------------------
# Turn rows as columns

_TURN_INTS = ("game", "turn", "index", "side", "high", "low", "pips_before", "pips_opponent", "pips_after",
              "legal_plays", "dice_used", "dice_lost", "race", "race_exact", "play_start", "play_len")
_TURN_FLOATS = ("pwin_before", "pwin_after", "luck", "race_error")


class TurnColumns:
    """Rows of the turns table as columns (name -> list or numpy array), as
    the compiled core gives them, so that a million rows are not a million
    dictionaries; :meth:`rows` gives dictionaries for the writers that want them."""

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

        dtype = np.dtype([(c, "<i4") for c in _TURN_INTS] + [(c, "<f8") for c in _TURN_FLOATS])
        rows = np.frombuffer(data, dtype)
        n = len(rows)
        plays = text.decode("ascii")
        starts, lengths = rows["play_start"].tolist(), rows["play_len"].tolist()
        side = rows["side"]
        columns: dict[str, Any] = {
            "file": [path] * n, "ruleset": [ruleset] * n,
            **{c: rows[c].astype("int64") for c in ("game", "turn", "index", "side", "pips_before", "pips_opponent",
                                                     "pips_after", "legal_plays", "dice_used", "dice_lost")},
            "player": np.where(side == 0, names[0], names[1]).tolist(),
            "dice": (rows["high"] * 10 + rows["low"]).astype(str).tolist(),
            "play": [plays[a:a + b] for a, b in zip(starts, lengths)],
            "forced": rows["legal_plays"] == 1, "race": rows["race"] != 0, "race_exact": rows["race_exact"] != 0,
            **{c: rows[c].copy() for c in _TURN_FLOATS},
            "legal": np.ones(n, bool), "rule": [None] * n,
            "best": [None] * n, "error": np.full(n, np.nan), "mark": [None] * n, "eval_luck": np.full(n, np.nan),
        }
        return cls({c: columns[c] for c in SCHEMAS["turns"]}, n)

    @classmethod
    def concat(cls, parts: Sequence[TurnColumns]) -> TurnColumns:
        """The rows of ``parts`` in order, as one set of columns."""
        import numpy as np

        if len(parts) == 1:
            return parts[0]
        columns: dict[str, Any] = {}
        for c in parts[0].columns:
            values = [p.columns[c] for p in parts]
            columns[c] = (np.concatenate(values) if all(isinstance(v, np.ndarray) for v in values)
                          else [x for v in values for x in v])
        return cls(columns, sum(p.n for p in parts))

    def rows(self) -> Iterator[dict[str, Any]]:
        """Each row as a dictionary (NaN as None)."""
        lists = {c: (v.tolist() if hasattr(v, "tolist") else v) for c, v in self.columns.items()}
        for i in range(self.n):
            yield {c: (None if isinstance(v[i], float) and math.isnan(v[i]) else v[i]) for c, v in lists.items()}

    def rename_players(self, names: Names) -> None:
        self.columns["player"] = [names(p) for p in self.columns["player"]]

    def frame(self, columns: Sequence[str] | None = None) -> Any:
        """A pandas DataFrame with the documented dtypes."""
        import pandas as pd

        wanted = list(columns or SCHEMAS["turns"])
        frame = pd.DataFrame({c: self.columns[c] for c in wanted}, columns=wanted)
        return frame.astype({c: SCHEMAS["turns"][c] for c in wanted})


# ---------------------------------------------------------------------------
# Folding files together

class TableSink:
    """Rows of one table streamed to a file (csv, json or parquet), written
    atomically: nothing appears at ``path`` until :meth:`close`."""

    def __init__(self, path: str | Path, fmt: str, table: str, columns: Sequence[str] | None = None) -> None:
        self.path, self.fmt, self.table = Path(path), fmt, table
        self.columns = list(columns or SCHEMAS[table])
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self.rows = 0
        self._writer: Any = None
        self._file: IO[str] | None = None
        self._pending: list[TurnColumns] = []  # Parquet: rows gathered into row groups of GROUP_ROWS

    #: Rows of one Parquet row group (the per-write cost of pandas and pyarrow is paid once for them).
    GROUP_ROWS = 100_000

    def write(self, turns: TurnColumns) -> None:
        if not len(turns) and (self.rows or self._pending):
            return
        if self.fmt == "parquet":
            self._pending.append(turns)
            if sum(len(t) for t in self._pending) >= self.GROUP_ROWS:
                self._flush()
        else:
            rows = turns.rows()
            if self._file is None:
                self._file = open(self.tmp, "w", encoding="utf-8", newline="")  # noqa: SIM115 - open across writes
                if self.fmt == "csv":
                    self._file.write(",".join(self.columns) + "\n")
                else:
                    self._file.write("[")
            for row in rows:
                if self.fmt == "csv":
                    self._file.write(",".join(_csv(row.get(c)) for c in self.columns) + "\n")
                else:
                    self._file.write(("," if self.rows else "") + "\n" + json.dumps(
                        {c: _json_value(row.get(c)) for c in self.columns}, ensure_ascii=False))
                self.rows += 1

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._pending:
            return
        turns = TurnColumns.concat(self._pending)
        self._pending = []
        table = pa.Table.from_pandas(turns.frame(self.columns), preserve_index=False)
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.tmp, table.schema)
        self._writer.write_table(table)
        self.rows += len(turns)

    def close(self) -> None:
        if self._writer is None and self._file is None and not self._pending:
            self.write(TurnColumns.from_rows([]))  # an empty table still gets its header
        self._flush()
        if self._writer is not None:
            self._writer.close()
        if self._file is not None:
            if self.fmt == "json":
                self._file.write("\n]\n")
            self._file.close()
        os.chmod(self.tmp, 0o644)
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._file is not None:
            self._file.close()
        self.tmp.unlink(missing_ok=True)


class GroupSink:
    """Rows of one table folded into groups as they arrive: per group the
    number of rows and the sums behind :func:`group`'s means, so memory grows
    with the number of groups, not of rows."""

    def __init__(self, table: str, keys: Sequence[str]) -> None:
        check_columns(table, keys)
        self.table, self.keys = table, list(keys)
        self.measured = [c for c, t in SCHEMAS[table].items()
                         if c not in keys and c not in _IDENTIFIERS and t in ("int64", "Int64", "float64", "boolean")]
        self.groups: dict[tuple[Any, ...], list[float]] = {}
        self.rows = 0

    def write(self, turns: TurnColumns) -> None:
        width = len(self.measured)
        for row in turns.rows():
            acc = self.groups.setdefault(tuple(row.get(k) for k in self.keys), [0.0] * (1 + 2 * width))
            acc[0] += 1
            for i, column in enumerate(self.measured):
                value = row.get(column)
                if value is not None and not (isinstance(value, float) and math.isnan(value)):
                    acc[1 + i] += float(value)
                    acc[1 + width + i] += 1
        self.rows += len(turns)

    def frame(self) -> Any:
        """The groups as :func:`group` gives them: keys, ``rows``, ``mean_<column>``."""
        import pandas as pd

        width = len(self.measured)
        records = []
        for key, acc in self.groups.items():
            record: dict[str, Any] = dict(zip(self.keys, key))
            record["rows"] = int(acc[0])
            for i, column in enumerate(self.measured):
                n = acc[1 + width + i]
                record[f"mean_{column}"] = acc[1 + i] / n if n else math.nan
            records.append(record)
        columns = self.keys + ["rows"] + [f"mean_{c}" for c in self.measured]
        frame = pd.DataFrame(records, columns=columns)
        frame = frame.astype({k: SCHEMAS[self.table][k] for k in self.keys})
        return frame.sort_values(self.keys, na_position="last").reset_index(drop=True)


def _csv(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if any(ch in text for ch in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def to_arrow(rows: list[dict[str, Any]], table: str, columns: Sequence[str] | None = None) -> Any:
    """Rows as a pyarrow Table with the documented types, carrying pandas'
    metadata so that ``pandas.read_parquet`` gives the documented dtypes back."""
    import pyarrow as pa

    frame = to_frame(rows, table)
    return pa.Table.from_pandas(frame[list(columns)] if columns else frame, preserve_index=False)


#: Digits after the point that JSON output keeps.
JSON_DIGITS = 6


def _json_value(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, JSON_DIGITS)
    return value


def frame_json(frame: Any) -> str:
    """A table as a JSON array of objects: booleans as booleans, missing values
    as null, floats to :data:`JSON_DIGITS` places."""
    records = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    return json.dumps([{k: _json_value(v) for k, v in r.items()} for r in records], ensure_ascii=False,
                      indent=1) + "\n"


def check_columns(table: str, columns: Iterable[str]) -> None:
    """Raise :class:`AnalysisError` naming the first column ``table`` does not have."""
    unknown = [c for c in columns if c not in SCHEMAS[table]]
    if unknown:
        raise AnalysisError(f"no column {unknown[0]!r} in the {table} table; columns: {', '.join(SCHEMAS[table])}")


class Names:
    """One name per player: ``alias = name`` lines of an alias file, then
    (with ``ignore_case``) the first spelling met of names that differ only
    in case (``Llabba`` and ``llabba``)."""

    def __init__(self, aliases: dict[str, str] | None = None, *, ignore_case: bool = True) -> None:
        self.ignore_case = ignore_case
        self.aliases = {self._key(k): v for k, v in (aliases or {}).items()}
        self.seen: dict[str, str] = {}

    def _key(self, name: str) -> str:
        return name.casefold() if self.ignore_case else name

    @classmethod
    def read(cls, path: str | Path, *, ignore_case: bool = True) -> Names:
        """An alias file: ``alias = name`` lines; blank lines and ``#`` comments skipped."""
        from ..notation.sniff import read_text_file

        aliases = {}
        for lineno, line in enumerate(read_text_file(path).splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            alias, sep, name = line.partition("=")
            if not sep or not alias.strip() or not name.strip():
                raise AnalysisError(f"{path}:{lineno}:1: expected 'alias = name', got {line[:60]!r}")
            aliases[alias.strip()] = name.strip()
        return cls(aliases, ignore_case=ignore_case)

    def __call__(self, name: str | None) -> str | None:
        if name is None:
            return None
        key = self._key(name)
        if key in self.aliases:
            return self.aliases[key]
        return self.seen.setdefault(key, name)


@dataclass
class Archive:
    """Files folded together as they arrive; tables on demand."""

    sink: TableSink | GroupSink | None = None  # where turn rows go (else kept, for small archives)
    keep_turns: bool = False
    games: list[dict[str, Any]] = field(default_factory=list)
    turns: list[TurnColumns] = field(default_factory=list)
    rolls: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    luck: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0]))
    race: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0, 0]))
    turns_played: Counter[str] = field(default_factory=Counter)
    analysis: dict[str, PlayerAnalysis] = field(default_factory=dict)
    files: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    names: Names = field(default_factory=Names)

    def add(self, stats: FileStats) -> None:
        self.files += 1
        if stats.unreadable:
            self.unreadable.append((stats.path, stats.unreadable))
            return
        name = self.names
        self.problems.extend(stats.problems)
        for row in stats.games:
            for column in ("player0", "player1", "winner"):
                row[column] = name(row[column])
        self.games.extend(stats.games)
        if stats.turns is not None:
            self.add_turns(stats.turns)
        for who, counter in stats.rolls.items():
            self.rolls[name(who) or who].update(counter)
        for who, (n, total) in stats.luck.items():
            self.luck[name(who) or who][0] += n
            self.luck[name(who) or who][1] += total
        for who, (n, total, errors) in stats.race.items():
            acc = self.race[name(who) or who]
            acc[0] += n
            acc[1] += total
            acc[2] += errors
        for who, n in stats.turns_played.items():
            self.turns_played[name(who) or who] += n
        for who, figures in stats.analysis.items():
            from .analyse import PlayerAnalysis

            player = name(who) or who
            self.analysis.setdefault(player, PlayerAnalysis(player)).absorb(figures)

    def add_turns(self, turns: TurnColumns) -> None:
        """Turn rows, to the sink or kept (or dropped when no turns table is wanted)."""
        turns.rename_players(self.names)
        if self.sink is not None:
            self.sink.write(turns)
        elif self.keep_turns:
            self.turns.append(turns)

    # ------------------------------------------------------------- tables
    def games_rows(self) -> list[dict[str, Any]]:
        return self.games


    def players_rows(self) -> list[dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {}

        def row(name: str) -> dict[str, Any]:
            if name not in rows:
                rows[name] = dict.fromkeys(SCHEMAS["players"], 0)
                rows[name]["player"] = name
            return rows[name]

        for g in self.games:
            for side in (0, 1):
                r = row(g[f"player{side}"])
                r["games"] += 1
                if g["winner_side"] is None:
                    continue
                points = g["points"] or 0
                if g["winner_side"] == side:
                    r["wins"] += 1
                    r["points_won"] += points
                    if g["outcome"]:
                        key = "wins_" + g["outcome"].replace("-", "_")
                        if key in r:
                            r[key] += 1
                else:
                    r["losses"] += 1
                    r["points_lost"] += points
                    if g["outcome"] in (OutcomeKind.GAMMON.value, OutcomeKind.BACKGAMMON.value,
                                        OutcomeKind.MARS.value, OutcomeKind.HOME_MARS.value,
                                        OutcomeKind.KOKS.value):
                        r["losses_gammon_or_mars"] += 1
        for name, r in rows.items():
            decided = r["wins"] + r["losses"]
            r["win_rate"] = r["wins"] / decided if decided else math.nan
            n, total = self.luck.get(name, [0, 0.0])
            r["luck_turns"], r["luck_mean"] = int(n), (total / n if n else math.nan)
            n, total, errors = self.race.get(name, [0, 0.0, 0])
            r["race_decisions"] = int(n)
            r["race_error_mean"] = total / n if n else math.nan
            r["race_error_rate"] = errors / n if n else math.nan
            r["turns"] = self.turns_played.get(name, 0)
            a = self.analysis.get(name)
            r.update(decisions=a.decisions if a else 0, error_rate=a.error_rate if a and a.decisions else math.nan,
                     errors=a.errors if a else 0, blunders=a.blunders if a else 0,
                     eval_luck=a.luck if a else math.nan, cube_decisions=a.cube_decisions if a else 0,
                     cube_error_rate=a.cube_error_rate if a and a.cube_decisions else math.nan,
                     cube_errors=a.missed_doubles + a.wrong_doubles + a.wrong_takes + a.wrong_passes if a else 0)
        return sorted(rows.values(), key=lambda r: (-r["games"], r["player"]))

    def all_rolls(self) -> Counter[str]:
        """Every player's rolls together (openings played as rolled left out)."""
        everyone: Counter[str] = Counter()
        for counter in self.rolls.values():
            everyone.update(counter)
        return everyone

    def dice_rows(self) -> list[dict[str, Any]]:
        rows = [dice_row(name, counter) for name, counter in sorted(self.rolls.items())]
        return [*rows, dice_row("(all)", self.all_rolls())]

    def frame(self, table: str) -> Any:
        """One table as a pandas DataFrame with the documented dtypes."""
        if table == "turns":  # the rows kept in memory (none when they went to a sink)
            import pandas as pd

            frames = [t.frame() for t in self.turns if len(t)]
            return pd.concat(frames, ignore_index=True) if frames else TurnColumns.from_rows([]).frame()
        builders: dict[str, Callable[[], list[dict[str, Any]]]] = {
            "games": self.games_rows, "players": self.players_rows, "dice": self.dice_rows}
        return to_frame(builders[table](), table)


def group(frame: Any, keys: Sequence[str]) -> Any:
    """Rows grouped by ``keys``: the number of rows, and the mean of every
    numeric or boolean column (a rate, for booleans).  Raises KeyError naming
    an unknown column."""
    missing = [k for k in keys if k not in frame.columns]
    if missing:
        raise AnalysisError(f"no column {missing[0]!r}; columns: {', '.join(frame.columns)}")
    numeric = [c for c in frame.columns if c not in keys and c not in _IDENTIFIERS
               and (frame[c].dtype.kind in "iufb" or str(frame[c].dtype) in ("Int64", "boolean"))]
    grouped = frame.groupby(list(keys), dropna=False, observed=True)
    out = grouped.size().rename("rows").to_frame()
    if numeric:
        means = grouped[numeric].mean(numeric_only=False).astype("float64")
        out = out.join(means.add_prefix("mean_"))
    return out.reset_index()


def to_frame(rows: list[dict[str, Any]], table: str) -> Any:
    import pandas as pd

    columns = SCHEMAS[table]
    frame = pd.DataFrame({c: [r.get(c) for r in rows] for c in columns}, columns=list(columns))
    return frame.astype(columns)


def dice_row(name: str, rolls: Counter[str]) -> dict[str, Any]:
    """Face and roll counts of one player's rolls, with chi-square tests of
    fairness: faces (6 cells, 5 degrees of freedom), doubles against 1/6 (1),
    and the 21 unordered rolls against 1/36 and 2/36 (20)."""
    faces = [0] * 7
    n = sum(rolls.values())
    doubles = 0
    for roll, count in rolls.items():
        a, b = int(roll[0]), int(roll[1])
        faces[a] += count
        faces[b] += count
        doubles += count * (a == b)
    row: dict[str, Any] = {"player": name, "rolls": n, "doubles": doubles}
    for face in range(1, 7):
        row[f"face{face}"] = faces[face]
    if n:
        chi_faces = sum((faces[f] - n / 3) ** 2 / (n / 3) for f in range(1, 7))
        chi_doubles = (doubles - n / 6) ** 2 / (n / 6) + (n - doubles - 5 * n / 6) ** 2 / (5 * n / 6)
        chi_rolls = 0.0
        for r in ALL_ROLLS:
            expected = n * (1 if r.is_double else 2) / 36
            chi_rolls += (rolls.get(f"{r.high}{r.low}", 0) - expected) ** 2 / expected
        row.update(face_chi2=chi_faces, face_p_value=chi2_sf(chi_faces, 5), doubles_rate=doubles / n,
                   doubles_p_value=chi2_sf(chi_doubles, 1), roll_chi2=chi_rolls,
                   roll_p_value=chi2_sf(chi_rolls, 20))
    else:
        row.update(face_chi2=math.nan, face_p_value=math.nan, doubles_rate=math.nan,
                   doubles_p_value=math.nan, roll_chi2=math.nan, roll_p_value=math.nan)
    return row


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` (a positive integer)
    degrees of freedom, by the closed forms of the regularised gamma function.

    >>> round(chi2_sf(3.841459, 1), 4), round(chi2_sf(11.0705, 5), 4), round(chi2_sf(31.4104, 20), 4)
    (0.05, 0.05, 0.05)
    """
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) * math.exp(-half) / math.gamma(1.5)
    for i in range(1, (df + 1) // 2):
        total += term
        term *= half / (i + 0.5)
    return min(1.0, total)


# ---------------------------------------------------------------------------
# Running over many files

def run_local(files: Sequence[str], *, turns: bool = False, race_points: int = 6, jobs: int = 1,
              encoding: str | None = None, on_turns: Callable[[TurnColumns], None] | None = None,
              stdin: bytes | None = None, analyse: int | None = None,
              on_game: Callable[[], None] | None = None) -> Iterator[FileStats]:
    """:func:`file_stats` of every file, in order, on ``jobs`` processes.
    A file too large to read at once is replayed here, its turn rows going to
    ``on_turns`` game by game, so that no process holds a whole large file's rows;
    ``on_game`` is called after each game replayed in this process."""
    from collections import deque
    from functools import partial

    from .._workers import worker_pool

    work = partial(file_stats, turns=turns, race_points=race_points, encoding=encoding, analyse=analyse)
    jobs = max(1, min(jobs, len(files), os.cpu_count() or 1))
    pool = worker_pool(jobs) if jobs > 1 else None
    pending: deque[Any] = deque()
    try:
        for path in files:
            if path == "-":
                pending.append(partial(work, path, on_turns=on_turns, data=stdin, on_game=on_game))
            elif pool is not None and not _large(path):
                pending.append(pool.submit(work, path))
            else:
                pending.append(partial(work, path, on_turns=on_turns, on_game=on_game))
            while pending and (len(pending) > 2 * jobs or (not callable(pending[0]) and pending[0].done())):
                first = pending.popleft()
                yield first() if callable(first) else first.result()
        for left in pending:
            yield left() if callable(left) else left.result()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _large(path: str) -> bool:
    from ..notation.source import IN_MEMORY

    try:
        return os.path.getsize(path) > IN_MEMORY
    except OSError:
        return False


class ClusterError(NardtoolsError):
    """The Dask scheduler named cannot be reached."""


def run_dask(files: Sequence[str], *, turns: bool = False, race_points: int = 6,
             scheduler: str | None = None, client: Any = None, encoding: str | None = None,
             analyse: int | None = None) -> Iterator[FileStats]:
    """The same on a Dask cluster (one task per file), yielding results as
    they complete: ``scheduler`` is a scheduler address, or a local cluster
    is started; an existing ``client`` may be given instead."""
    from dask.distributed import Client, LocalCluster, as_completed

    own = client is None
    cluster = None
    if own:
        if scheduler:
            try:
                client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)  # type: ignore[no-untyped-call]
            except (OSError, TimeoutError) as e:
                raise ClusterError(f"cannot reach the Dask scheduler at {scheduler} within "
                                   f"{SCHEDULER_TIMEOUT} s ({type(e).__name__}: {e})") from None
        else:
            cluster = LocalCluster(processes=True, n_workers=min(os.cpu_count() or 1, 4),  # type: ignore[no-untyped-call]
                                   threads_per_worker=1, dashboard_address=None)
            client = Client(cluster)  # type: ignore[no-untyped-call]
    try:
        futures = client.map(file_stats, list(files), turns=turns, race_points=race_points, encoding=encoding,
                             analyse=analyse, pure=False)
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            yield future.result()
            future.release()
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


def collect(paths: Iterable[str | Path], *, turns: bool = False, race_points: int = 6, jobs: int = 1,
            engine: str = "local", scheduler: str | None = None, sink: TableSink | GroupSink | None = None,
            progress: Callable[[FileStats], None] | None = None, encoding: str | None = None,
            names: Names | None = None, stdin: bytes | None = None, analyse: int | None = None,
            on_game: Callable[[], None] | None = None) -> Archive:
    """Replay every record under ``paths`` and fold the results into an
    :class:`Archive`.  With ``turns`` the turn rows go to ``sink`` (or are
    kept in memory without one); with ``analyse`` (a ply) the evaluator's
    figures are added (:func:`file_stats`).  ``progress`` is called after
    each file, ``on_game`` after each game replayed in this process."""
    from ..notation.reading import expand_paths

    files = expand_paths(paths)
    archive = Archive(sink=sink, keep_turns=turns and sink is None, names=names or Names())
    if engine == "dask":
        stream = run_dask(files, turns=turns, race_points=race_points, scheduler=scheduler, encoding=encoding,
                          analyse=analyse)
    elif engine == "local":
        stream = run_local(files, turns=turns, race_points=race_points, jobs=jobs, encoding=encoding,
                           on_turns=archive.add_turns, stdin=stdin, analyse=analyse, on_game=on_game)
    else:
        raise AnalysisError(f"unknown engine {engine!r}: local or dask")
    for stats in stream:
        archive.add(stats)
        if progress is not None:
            progress(stats)
    archive.games.sort(key=lambda g: (g["file"], g["game"]))  # (dask delivers in completion order)
    return archive
