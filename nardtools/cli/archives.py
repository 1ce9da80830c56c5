"""Commands over archives of records: statistics and plots."""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import EncodingOpt, ExitCode, GameOpt, JobsOpt, QuietOpt, command, fail, standard_input
from .output import output_path, write_output

if TYPE_CHECKING:
    import pandas as pd

    from ..analysis.stats import Archive, GroupSink, RowSink, TableSink

PANEL = "Analysis"


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    command(app, "stats", PANEL)(stats_command)
    command(app, "plot", PANEL)(plot_command)


class StatsTable(str, enum.Enum):
    games = "games"
    turns = "turns"
    players = "players"
    dice = "dice"


class StatsFormat(str, enum.Enum):
    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


#: The format a file name's suffix says (``--format`` must agree with it).
SUFFIX_FORMATS = {".csv": StatsFormat.csv, ".json": StatsFormat.json, ".parquet": StatsFormat.parquet,
                  ".pq": StatsFormat.parquet, ".txt": StatsFormat.table}


def output_format(fmt: StatsFormat | None, output: Path | None) -> StatsFormat:
    """The format to write: ``--format`` if given, else the output's suffix,
    else a table; a ``--format`` that contradicts the suffix is refused."""
    said = SUFFIX_FORMATS.get(output.suffix.lower()) if output is not None else None
    if output is not None and fmt is not None and said not in (None, fmt):
        raise fail(f"{output}: --format {fmt.value} would write {fmt.value} into a {output.suffix} file; "
                   f"name the file for its format or leave --format out (the suffix then decides)")
    return fmt or said or StatsFormat.table


class Engine(str, enum.Enum):
    local = "local"
    dask = "dask"


PathsArg = Annotated[list[Path], typer.Argument(help="Record files or folders (`-` for standard input).")]
EngineOpt = Annotated[Engine, typer.Option("--engine", help="Run on local processes or a Dask cluster.")]
SchedulerOpt = Annotated[str | None, typer.Option("--scheduler", help="Dask scheduler address "
                                                     "(default: start a local cluster).")]
RaceDbOpt = Annotated[int, typer.Option("--race-db", min=2, max=12, help="Bear-off database points "
                                        "for the exact race figures (built once and cached).")]
AliasesOpt = Annotated[Path | None, typer.Option("--aliases", help="A file of `alias = name` lines: "
                                                    "one player under several names.")]
CaseOpt = Annotated[bool, typer.Option("--ignore-case/--case-sensitive", help="Take names that differ "
                                       "only in case for one player.")]


def _collect(paths: list[Path], *, turns: bool, race_db: int, jobs: int, engine: Engine, scheduler: str | None,
             encoding: str | None, aliases: Path | None, ignore_case: bool, sink: TableSink | GroupSink | None = None,
             quiet: bool = False, analyse: int | None = None, keep_games: bool = True,
             games_sink: RowSink | None = None) -> Archive:
    """Run the statistics pipeline with a progress bar on a terminal."""
    import os

    from rich.console import Console

    from ..analysis.stats import Names, collect
    from ..notation.reading import expand_paths
    from .output import progress

    if engine is Engine.dask and any(str(p) == "-" for p in paths):
        raise fail("standard input (-) is read by the local engine only")
    missing = [p for p in paths if str(p) != "-" and not p.exists()]
    if missing:
        raise fail(f"{missing[0]}: no such file or folder")
    names = Names.read(aliases, ignore_case=ignore_case) if aliases else Names(ignore_case=ignore_case)
    files = expand_paths(paths)  # once: a folder walk reads the head of every .txt file
    if not files:
        raise fail(f"no record files in {', '.join(map(str, paths))}")
    stdin = standard_input() if "-" in files else None
    what = "analysing" if analyse is not None else "replaying"
    one = len(files) == 1 and engine is Engine.local  # (replayed here: its games are counted)
    with progress(None if one else len(files), f"{what} games" if one else what, quiet) as advance:
        archive = collect(files, turns=turns, race_points=race_db, jobs=jobs or os.cpu_count() or 1,
                          engine=engine.value, scheduler=scheduler, sink=sink,
                          progress=None if one else advance, on_game=advance if one else None,
                          encoding=encoding, names=names, stdin=stdin, analyse=analyse, keep_games=keep_games,
                          games_sink=games_sink)
    if not quiet:
        err = Console(stderr=True, highlight=False)
        for path, why in archive.unreadable:
            err.print(f"{path}: unreadable: {why}", markup=False, soft_wrap=True)
        for problem in archive.problems:
            err.print(f"illegal: {problem}", markup=False, soft_wrap=True)
        for why in archive.unanalysed:
            err.print(f"not analysed: {why}", markup=False, soft_wrap=True)
        err.print(f"{archive.files} files, {archive.game_count} games; {len(archive.unreadable)} "
                  f"unreadable, {len(archive.problems)} problems (games replayed leniently)"
                  + (f"; {len(archive.unanalysed)} games not analysed" if archive.unanalysed else ""),
                  markup=False, soft_wrap=True)
    return archive


def stats_command(
    paths: PathsArg,
    table: Annotated[StatsTable, typer.Option("--table", help="Which table.")] = StatsTable.games,
    group_by: Annotated[list[str] | None, typer.Option("--group-by", help="Group rows by these "
                        "columns (repeatable or comma-separated): counts and means.")] = None,
    fmt: Annotated[StatsFormat | None, typer.Option("--format", "-f", help="table on the terminal; csv, json "
                   "or parquet to --output (or stdout for csv/json); default: the output's suffix "
                   "(.csv, .json, .parquet), else table.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here (atomically).")] = None,
    jobs: JobsOpt = 0,
    engine: EngineOpt = Engine.local,
    scheduler: SchedulerOpt = None,
    race_db: RaceDbOpt = 6,
    rows: Annotated[int | None, typer.Option("--rows", min=1, help="Rows of a table: 40 on the terminal, "
                    "all in a .txt file.")] = None,
    columns: Annotated[str | None, typer.Option("--columns", "-c", help="Comma-separated columns to "
                       "show or write (default: all in files, the main ones on the terminal).")] = None,
    aliases: AliasesOpt = None,
    ignore_case: CaseOpt = True,
    encoding: EncodingOpt = None,
    quiet: QuietOpt = False,
    analyse: Annotated[bool, typer.Option("--analyse", help="Add the evaluator's figures: best play, error, "
                       "mark and luck of every turn; error rate, errors, blunders and luck of every player "
                       "(slower: every game goes through the evaluator).")] = False,
    ply: Annotated[int, typer.Option("--ply", min=0, max=2, help="The analysis' look-ahead.")] = 0,
) -> None:
    """Statistics over archives: games, turns, players or dice (see docs/stats.md).

    Every game is replayed (leniently); unreadable files and illegal games are
    listed on stderr and never stop the run.  The games and turns tables
    stream to a csv/json/parquet --output, so memory stays flat in the
    archive's size."""
    from ..analysis.stats import GroupSink, RowSink, TableSink, check_columns

    keys = [k for g in group_by or [] for k in g.split(",") if k]
    chosen = [c for c in (columns or "").split(",") if c]
    check_columns(table.value, keys + chosen)
    if output is not None and fmt is None and output.suffix.lower() not in SUFFIX_FORMATS:
        raise fail(f"{output}: expected a .csv, .json, .parquet or .txt file (the suffix says the format), "
                   f"or --format")
    fmt = output_format(fmt, output)
    if rows is None:
        rows = 40 if output is None else 2**62  # a file holds the whole table
    if fmt is StatsFormat.parquet and output is None:
        raise fail("parquet needs --output FILE")
    if output is not None:
        output_path(output)
    sink = _sink(table, keys, output, fmt, chosen, engine)
    try:
        archive = _collect(paths, turns=table is StatsTable.turns, race_db=race_db, jobs=jobs, engine=engine,
                           scheduler=scheduler, encoding=encoding, aliases=aliases, ignore_case=ignore_case,
                           sink=None if isinstance(sink, RowSink) else sink, quiet=quiet,
                           analyse=ply if analyse else None, keep_games=table is StatsTable.games,
                           games_sink=sink if isinstance(sink, RowSink) else None)
    except BaseException:
        if isinstance(sink, (TableSink, RowSink)):
            sink.abort()
        raise
    if isinstance(sink, GroupSink):
        _emit(sink.frame(), fmt, output, rows, "turns grouped")
        return _unreadable_exit(archive)
    if sink is not None:
        sink.close()
        if not quiet:
            typer.echo(f"wrote {sink.rows} rows to {output}", err=True)
        return _unreadable_exit(archive)
    _emit(_shown(archive.frame(table.value), table.value, chosen, keys, fmt, analyse), fmt, output, rows, table.value)
    _unreadable_exit(archive)


def _shown(frame: pd.DataFrame, table: str, chosen: list[str], keys: list[str], fmt: StatsFormat,
           analyse: bool) -> pd.DataFrame:
    """The table as it is written: the columns chosen (on the terminal the
    main ones), file names short on the terminal, grouped by ``keys``."""
    from ..analysis.stats import ANALYSIS_COLUMNS, TERMINAL_COLUMNS, group

    if chosen:
        frame = frame[chosen]
    elif fmt is StatsFormat.table and not keys:
        frame = frame[TERMINAL_COLUMNS[table] + (ANALYSIS_COLUMNS.get(table, []) if analyse else [])]
    if "file" in frame.columns and fmt is StatsFormat.table:
        frame = frame.assign(file=frame["file"].map(lambda f: Path(f).name))
    return group(frame, keys) if keys else frame


def _sink(table: StatsTable, keys: list[str], output: Path | None, fmt: StatsFormat, chosen: list[str],
          engine: Engine) -> TableSink | GroupSink | RowSink | None:
    """Where the rows go as they come: turn rows folded into groups or
    streamed to the output file, game rows streamed to it (a local run's, in
    order); None where the table is built in memory."""
    from ..analysis.stats import GroupSink, RowSink, TableSink

    if table is StatsTable.turns and keys:
        return GroupSink("turns", keys)
    if output is None or fmt is StatsFormat.table or keys:
        return None
    if table is StatsTable.turns:
        return TableSink(output, fmt.value, "turns", columns=chosen or None)
    if table is StatsTable.games and engine is Engine.local:
        return RowSink(output, fmt.value, "games", columns=chosen or None)
    return None


def _unreadable_exit(archive: Archive) -> None:
    """Exit 2 once the output is written when a file could not be read (listed on stderr)."""
    if archive.unreadable:
        raise typer.Exit(int(ExitCode.USAGE))


def _emit(frame: pd.DataFrame, fmt: StatsFormat, output: Path | None, rows: int, title: str) -> None:
    if fmt is StatsFormat.table:
        from .tables import render

        # a pipe or a file gets wide rows; a terminal, its own width
        width = 240 if output is not None or not sys.stdout.isatty() else _terminal_width()
        text = render(frame, title=title, rows=rows, width=width)
        if output is None:
            typer.echo(text, nl=False)
        else:
            write_output(output, text)
        return
    if fmt is StatsFormat.parquet:
        import io

        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        assert output is not None
        write_output(output, buffer.getvalue())
        return
    from ..analysis.stats import frame_json

    text = frame.to_csv(index=False) if fmt is StatsFormat.csv else frame_json(frame)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_output(output, text)


def _terminal_width() -> int:
    import shutil

    return shutil.get_terminal_size((100, 24)).columns


class PlotKind(str, enum.Enum):
    pips = "pips"
    dice = "dice"
    outcomes = "outcomes"
    openings = "openings"


def plot_command(
    kind: Annotated[PlotKind, typer.Argument(help="pips (one game's trajectory), dice, outcomes, openings.")],
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="The image: .png or .svg.")],
    game: GameOpt = None,
    jobs: JobsOpt = 0,
    engine: EngineOpt = Engine.local,
    scheduler: SchedulerOpt = None,
    race_db: RaceDbOpt = 6,
    aliases: AliasesOpt = None,
    ignore_case: CaseOpt = True,
    encoding: EncodingOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Plots: a game's pip counts, dice, outcomes, win rate by opening roll.

    pips draws one game's pip counts; dice compares the dice with a fair die;
    outcomes counts wins by kind and variant; openings the win rate by opening
    roll."""
    from ..analysis import plots

    output_path(output, (".png", ".svg"), "plot")
    if kind is PlotKind.pips:
        from ..analysis.annotate import annotate_game
        from .common import replay_record

        if len(paths) != 1 or (str(paths[0]) != "-" and not paths[0].is_file()):
            raise fail("plot pips takes one record file (and --game)")
        match = replay_record(str(paths[0]), encoding=encoding, lenient=True)
        replayed = match.game(game)
        names = match.record.names
        fig = plots.plot_pips(annotate_game(replayed, race_points=race_db), names,
                              f"{paths[0].name}, game {replayed.record.number}")
    else:
        archive = _collect(paths, turns=False, race_db=race_db, jobs=jobs, engine=engine, scheduler=scheduler,
                           encoding=encoding, aliases=aliases, ignore_case=ignore_case, quiet=quiet)
        if kind is PlotKind.dice:
            fig = plots.plot_dice(archive.all_rolls())
        elif kind is PlotKind.outcomes:
            fig = plots.plot_outcomes(archive.games)
        else:
            fig = plots.plot_openings(archive.games)
    plots.save_figure(fig, output)
    if not quiet:
        typer.echo(f"wrote {output}", err=True)
    if kind is not PlotKind.pips:
        _unreadable_exit(archive)
