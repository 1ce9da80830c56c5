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
>>> [(t["player"], t["dice"], t["play"], t["legal_plays"]) for t in stats.turns]
[('A', '31', '8/5 6/5', 16), ('B', '42', '8/4 6/4', 14)]
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Sequence

from ..dice import ALL_ROLLS
from ..outcome import OutcomeKind
from ..notation.replay import ReplayedMatch, replay_match
from .annotate import annotate_game

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
    },
    "players": {
        "player": "string", "games": "int64", "wins": "int64", "losses": "int64",
        "points_won": "int64", "points_lost": "int64", "win_rate": "float64",
        "wins_single": "int64", "wins_gammon": "int64", "wins_backgammon": "int64",
        "wins_oin": "int64", "wins_mars": "int64", "wins_home_mars": "int64", "wins_koks": "int64",
        "losses_gammon_or_mars": "int64", "luck_turns": "int64", "luck_mean": "float64",
        "race_decisions": "int64", "race_error_mean": "float64", "race_error_rate": "float64",
        "turns": "int64",
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

#: Numbers that name things rather than measure them: never averaged by :func:`group`.
_IDENTIFIERS = {"game", "turn", "index", "side", "winner_side", "opening_side", "score0", "score1",
                "match_length"}

#: A race error at least this large counts as an error in ``race_error_rate``.
RACE_ERROR_THRESHOLD = 0.01


@dataclass
class FileStats:
    """What one file contributes: rows and running counts (picklable)."""

    path: str
    games: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    # dice: player -> Counter of unordered rolls "63" (not openings played as rolled)
    rolls: dict[str, Counter[str]] = field(default_factory=dict)
    # players: player -> running sums
    luck: dict[str, list[float]] = field(default_factory=dict)  # [n, sum]
    race: dict[str, list[float]] = field(default_factory=dict)  # [decisions, error sum, errors >= threshold]
    turns_played: Counter[str] = field(default_factory=Counter)
    unreadable: str = ""
    problems: list[str] = field(default_factory=list)


def file_stats(path: str, turns: bool = False, race_points: int = 6) -> FileStats:
    """Read and replay one file; an unreadable file gives an empty result that
    says why (a batch never stops on one file)."""
    from ..errors import NardtoolsError
    from ..notation.validate import read_record

    try:
        record = read_record(path)
        match = replay_match(record, lenient=True)
        return file_stats_from_record(match, turns=turns, race_points=race_points)
    except (OSError, UnicodeError, NardtoolsError) as e:
        return FileStats(str(path), unreadable=str(e))
    except Exception as e:  # noqa: BLE001 - a bug must not stop the batch either: report it
        return FileStats(str(path), unreadable=f"internal error ({type(e).__name__}: {e}); please report it")


def file_stats_from_record(match: ReplayedMatch, *, turns: bool = False, race_points: int = 6) -> FileStats:
    """The statistics of one replayed file; see the module docstring."""
    record = match.record
    names = record.names
    rules = match.ruleset.rules
    variant = "long" if rules.is_long else rules.start
    out = FileStats(record.path)
    out.problems = [str(p) for p in match.errors]
    plays_opening = rules.opening == "play-opening-dice"
    for g in match.games:
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
            "file": record.path, "game": g.record.number, "variant": variant, "ruleset": match.ruleset.name,
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
            if turns:
                out.turns.append({
                    "file": record.path, "ruleset": match.ruleset.name, "game": n.game, "turn": n.turn, "index": n.index, "side": n.player,
                    "player": who, "dice": n.dice, "play": n.play, "pips_before": n.pips_before[0],
                    "pips_opponent": n.pips_before[1], "pips_after": n.pips_after[0], "forced": n.forced,
                    "legal_plays": n.legal_plays, "dice_used": n.dice_used, "dice_lost": n.dice_lost,
                    "race": n.race, "race_exact": n.race_exact, "pwin_before": n.pwin_before,
                    "pwin_after": n.pwin_after, "luck": n.luck, "race_error": n.race_error,
                    "legal": n.legal, "rule": n.rule or None,
                })
    return out


def _pips_of(note: Any, side: int) -> int | None:
    if note is None:
        return None
    pips: tuple[int, int] = note.before.pips()
    return pips[0] if note.player == side else pips[1]


# ---------------------------------------------------------------------------
# Folding files together

class TableSink:
    """Rows of one table streamed to a file (csv, json or parquet), written
    atomically: nothing appears at ``path`` until :meth:`close`."""

    def __init__(self, path: str | Path, fmt: str, table: str) -> None:
        self.path, self.fmt, self.table = Path(path), fmt, table
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self.rows = 0
        self._writer: Any = None
        self._file: IO[str] | None = None

    def write(self, rows: list[dict[str, Any]]) -> None:
        if not rows and self.rows:
            return
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            table = to_arrow(rows, self.table)
            if self._writer is None:
                self._writer = pq.ParquetWriter(self.tmp, table.schema)
            self._writer.write_table(table)
        else:
            if self._file is None:
                self._file = open(self.tmp, "w", encoding="utf-8", newline="")
                if self.fmt == "csv":
                    self._file.write(",".join(SCHEMAS[self.table]) + "\n")
                else:
                    self._file.write("[")
            for row in rows:
                if self.fmt == "csv":
                    self._file.write(",".join(_csv(row.get(c)) for c in SCHEMAS[self.table]) + "\n")
                else:
                    self._file.write(("," if self.rows else "") + "\n" + json.dumps(
                        {c: row.get(c) for c in SCHEMAS[self.table]}, ensure_ascii=False))
                self.rows += 1
            return
        self.rows += len(rows)

    def close(self) -> None:
        if self._writer is None and self._file is None:
            self.write([])  # an empty table still gets its header
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
        unknown = [k for k in keys if k not in SCHEMAS[table]]
        if unknown:
            raise KeyError(f"no column {unknown[0]!r}; columns: {', '.join(SCHEMAS[table])}")
        self.table, self.keys = table, list(keys)
        self.measured = [c for c, t in SCHEMAS[table].items()
                         if c not in keys and c not in _IDENTIFIERS and t in ("int64", "Int64", "float64", "boolean")]
        self.groups: dict[tuple[Any, ...], list[float]] = {}
        self.rows = 0

    def write(self, rows: list[dict[str, Any]]) -> None:
        width = len(self.measured)
        for row in rows:
            acc = self.groups.setdefault(tuple(row.get(k) for k in self.keys), [0.0] * (1 + 2 * width))
            acc[0] += 1
            for i, column in enumerate(self.measured):
                value = row.get(column)
                if value is not None and not (isinstance(value, float) and math.isnan(value)):
                    acc[1 + i] += float(value)
                    acc[1 + width + i] += 1
        self.rows += len(rows)

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


def to_arrow(rows: list[dict[str, Any]], table: str) -> Any:
    """Rows as a pyarrow Table with the documented types, carrying pandas'
    metadata so that ``pandas.read_parquet`` gives the documented dtypes back."""
    import pyarrow as pa

    return pa.Table.from_pandas(to_frame(rows, table), preserve_index=False)


@dataclass
class Archive:
    """Files folded together as they arrive; tables on demand."""

    sink: TableSink | GroupSink | None = None  # where turn rows go (else kept, for small archives)
    keep_turns: bool = False
    games: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    rolls: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    luck: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0]))
    race: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0, 0]))
    turns_played: Counter[str] = field(default_factory=Counter)
    files: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def add(self, stats: FileStats) -> None:
        self.files += 1
        if stats.unreadable:
            self.unreadable.append((stats.path, stats.unreadable))
            return
        self.problems.extend(stats.problems)
        self.games.extend(stats.games)
        if self.sink is not None:
            self.sink.write(stats.turns)
        elif self.keep_turns:
            self.turns.extend(stats.turns)
        for who, counter in stats.rolls.items():
            self.rolls[who].update(counter)
        for who, (n, total) in stats.luck.items():
            self.luck[who][0] += n
            self.luck[who][1] += total
        for who, (n, total, errors) in stats.race.items():
            acc = self.race[who]
            acc[0] += n
            acc[1] += total
            acc[2] += errors
        self.turns_played.update(stats.turns_played)

    # ------------------------------------------------------------- tables
    def games_rows(self) -> list[dict[str, Any]]:
        return self.games

    def turns_rows(self) -> list[dict[str, Any]]:
        """The turn rows kept in memory (none when they went to a sink)."""
        return self.turns

    def players_rows(self) -> list[dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {}

        def row(name: str) -> dict[str, Any]:
            if name not in rows:
                rows[name] = {c: 0 for c in SCHEMAS["players"]}
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
        return sorted(rows.values(), key=lambda r: (-r["games"], r["player"]))

    def all_rolls(self) -> Counter[str]:
        """Every player's rolls together (openings played as rolled left out)."""
        everyone: Counter[str] = Counter()
        for counter in self.rolls.values():
            everyone.update(counter)
        return everyone

    def dice_rows(self) -> list[dict[str, Any]]:
        rows = [dice_row(name, counter) for name, counter in sorted(self.rolls.items())]
        return rows + [dice_row("(all)", self.all_rolls())]

    def frame(self, table: str) -> Any:
        """One table as a pandas DataFrame with the documented dtypes."""
        builders: dict[str, Callable[[], list[dict[str, Any]]]] = {
            "games": self.games_rows, "players": self.players_rows, "dice": self.dice_rows,
            "turns": self.turns_rows}
        rows = builders[table]()
        return to_frame(rows, table)


def group(frame: Any, keys: Sequence[str]) -> Any:
    """Rows grouped by ``keys``: the number of rows, and the mean of every
    numeric or boolean column (a rate, for booleans).  Raises KeyError naming
    an unknown column."""
    missing = [k for k in keys if k not in frame.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r}; columns: {', '.join(frame.columns)}")
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

def run_local(files: Sequence[str], *, turns: bool = False, race_points: int = 6,
              jobs: int = 1) -> Iterator[FileStats]:
    """:func:`file_stats` of every file, in order, on ``jobs`` processes."""
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    work = partial(file_stats, turns=turns, race_points=race_points)
    jobs = max(1, min(jobs, len(files), os.cpu_count() or 1))
    if jobs == 1:
        yield from map(work, files)
        return
    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(work, files, chunksize=max(1, min(16, len(files) // (jobs * 8))))


def run_dask(files: Sequence[str], *, turns: bool = False, race_points: int = 6,
             scheduler: str | None = None, client: Any = None) -> Iterator[FileStats]:
    """The same on a Dask cluster (one task per file), yielding results as
    they complete: ``scheduler`` is a scheduler address, or a local cluster
    is started; an existing ``client`` may be given instead."""
    from dask.distributed import Client, LocalCluster, as_completed

    own = client is None
    cluster = None
    if own:
        if scheduler:
            client = Client(scheduler)  # type: ignore[no-untyped-call]
        else:
            cluster = LocalCluster(processes=True, n_workers=min(os.cpu_count() or 1, 4),  # type: ignore[no-untyped-call]
                                   threads_per_worker=1, dashboard_address=None)
            client = Client(cluster)  # type: ignore[no-untyped-call]
    try:
        futures = client.map(file_stats, list(files), turns=turns, race_points=race_points, pure=False)
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
            progress: Callable[[FileStats], None] | None = None) -> Archive:
    """Replay every record under ``paths`` and fold the results into an
    :class:`Archive`.  With ``turns`` the turn rows go to ``sink`` (or are
    kept in memory without one)."""
    from ..notation.validate import expand_paths

    files = expand_paths(paths)
    archive = Archive(sink=sink, keep_turns=turns and sink is None)
    if engine == "dask":
        stream = run_dask(files, turns=turns, race_points=race_points, scheduler=scheduler)
    elif engine == "local":
        stream = run_local(files, turns=turns, race_points=race_points, jobs=jobs)
    else:
        raise ValueError(f"unknown engine {engine!r}: local or dask")
    for stats in stream:
        archive.add(stats)
        if progress is not None:
            progress(stats)
    archive.games.sort(key=lambda g: (g["file"], g["game"]))  # (dask delivers in completion order)
    return archive
