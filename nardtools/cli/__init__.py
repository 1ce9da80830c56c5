"""The ``nardtools`` command line.  Each command parses its options, calls the
library once, and renders; no game logic lives here.

Exit codes (see README): 0 success, 1 findings (an illegal play) or a domain
error, 2 usage error.
"""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Iterable, Optional

import typer

from .. import __version__
from ..errors import NardtoolsError

app = typer.Typer(
    name="nardtools",
    help="Validate, analyse and teach recorded games of Long Nardy and backgammon.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


class ExitCode(enum.IntEnum):
    """Every exit code of the CLI, in one place."""

    OK = 0
    FINDINGS = 1  # illegal plays found, or a domain error
    USAGE = 2  # bad options, or (validate) input that cannot be read


class OutputFormat(str, enum.Enum):
    """Output formats shared by the commands."""

    text = "text"
    json = "json"


RulesOpt = Annotated[str, typer.Option("--rules", "-r", help="Ruleset name or alias (see `nardtools rules`).")]
SetOpt = Annotated[
    Optional[list[str]],
    typer.Option("--set", "-s", metavar="OPTION=VALUE", help="Override one rule option; repeatable."),
]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")]
FirstTurnOpt = Annotated[
    Optional[bool],
    typer.Option("--first-turn/--later-turn", help="Whether this is the side's first turn "
                 "(Long Nardy head exception); inferred from the position when omitted."),
]


def _fail(message: str, code: ExitCode = ExitCode.FINDINGS) -> typer.Exit:
    from rich.console import Console
    from rich.text import Text

    # The message is plain text (paths, positions, "[...]" tags), printed on one
    # logical line so that FILE:LINE:COL stays greppable at any terminal width.
    Console(stderr=True).print(Text.assemble(("Error:", "red"), " ", message), soft_wrap=True)
    return typer.Exit(int(code))


def _options(settings: list[str] | None) -> dict[str, str]:
    """``--set OPTION=VALUE`` items as a dict."""
    options = {}
    for item in settings or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise _fail(f"--set expects OPTION=VALUE, got {item!r}", ExitCode.USAGE)
        options[key.strip()] = value.strip()
    return options


def _rules(name: str, settings: list[str] | None) -> Any:
    from ..rules import find_ruleset

    return find_ruleset(name).with_options(_options(settings))


def _position(text: str, ruleset: Any) -> Any:
    """A position from any notation: ``start``, our text, a Position ID
    (``ID`` or ``ID:MatchID``) or an XGID."""
    from ..notation.ids import parse_setup
    from ..position import Position

    if text in ("start", "-"):
        return Position.start(ruleset.rules.start)
    return parse_setup(text, ruleset.rules.game).position


def _version(value: bool) -> None:
    if value:
        typer.echo(f"nardtools {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[Optional[bool], typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")] = None,
) -> None:
    """Validate, analyse and teach recorded games of Long Nardy and backgammon."""


@app.command("rules")
def rules_command(
    name: Annotated[Optional[str], typer.Argument(help="Show this ruleset's options.")] = None,
    settings: SetOpt = None,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """List the named rulesets, or show every option of one."""
    from ..rules import Rules, rulesets

    try:
        if name is None:
            data = [{"name": r.name, "aliases": list(r.aliases), "game": str(r.rules.game),
                     "seed": r.seed, "summary": r.summary} for r in rulesets()]
            if fmt is OutputFormat.json:
                typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
                return
            for d in data:
                alias = f" (also {', '.join(d['aliases'])})" if d["aliases"] else ""
                typer.echo(f"{d['name']:<20} {d['game']:<11} {d['summary']}{alias}")
            return
        rs = _rules(name, settings)
        rows = [{"option": k, "value": str(v), "doc": Rules.option_doc(k)[0],
                 "seed": Rules.option_doc(k)[1]} for k, v in rs.rules.items()]
        if fmt is OutputFormat.json:
            typer.echo(json.dumps({"name": rs.name, "seed": rs.seed, "summary": rs.summary,
                                   "options": rows}, ensure_ascii=False, indent=2))
            return
        typer.echo(f"{rs.name}: {rs.summary} [seed {rs.seed}]")
        for r in rows:
            typer.echo(f"  {r['option']:<16} {r['value']:<18} {r['doc']}")
    except NardtoolsError as e:
        raise _fail(str(e)) from None


def _moves_report(ruleset: Any, position_text: str, dice: str, first_turn: bool | None) -> dict[str, Any]:
    from ..dice import Roll
    from ..engine import legal_plays

    position = _position(position_text, ruleset)
    roll = Roll.parse(dice)
    plays = legal_plays(position, roll, ruleset.rules, first_turn=first_turn)
    return {
        "ruleset": ruleset.name, "position": str(position), "dice": str(roll),
        "count": len(plays),
        "plays": [{"play": str(p.play), "result": str(p.result)} for p in plays],
    }


@app.command("moves")
def moves_command(
    position: Annotated[Optional[str], typer.Argument(
        help="Position: `start`, position text, a gnubg Position ID[:Match ID] or an XGID.")] = None,
    dice: Annotated[Optional[str], typer.Argument(help="The roll, e.g. 64.")] = None,
    rules: RulesOpt = "backgammon",
    settings: SetOpt = None,
    first_turn: FirstTurnOpt = None,
    batch: Annotated[Optional[Path], typer.Option(
        "--batch", help="Read `RULESET | POSITION | DICE` lines from a file instead.")] = None,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """List every legal play of a roll: one per distinct resulting position."""
    try:
        if batch is not None:
            jobs = []
            for lineno, line in enumerate(batch.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                parts = [p.strip() for p in line.split("|")]
                if len(parts) != 3:
                    raise _fail(f"{batch}:{lineno}:1: expected RULESET | POSITION | DICE", ExitCode.USAGE)
                jobs.append((_rules(parts[0], settings), parts[1], parts[2], f"{batch}:{lineno}"))
        elif position is None or dice is None:
            raise _fail("give POSITION and DICE, or --batch FILE", ExitCode.USAGE)
        else:
            jobs = [(_rules(rules, settings), position, dice, "")]
        reports = []
        for rs, pos, d, where in jobs:
            try:
                reports.append(_moves_report(rs, pos, d, first_turn))
            except NardtoolsError as e:
                raise _fail(f"{where}: {e}" if where else str(e)) from None
    except NardtoolsError as e:
        raise _fail(str(e)) from None
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(reports if batch else reports[0], ensure_ascii=False, indent=2))
        return
    for rep in reports:
        typer.echo(f"{rep['position']}  dice {rep['dice']}  [{rep['ruleset']}]: "
                   f"{rep['count']} legal play{'s' if rep['count'] != 1 else ''}")
        for i, p in enumerate(rep["plays"], 1):
            typer.echo(f"  {i:>3}. {p['play'] or '(no move)'}")


@app.command("check")
def check_command(
    position: Annotated[str, typer.Argument(
        help="Position: `start`, position text, a gnubg Position ID[:Match ID] or an XGID.")],
    dice: Annotated[str, typer.Argument(help="The roll, e.g. 64.")],
    play: Annotated[str, typer.Argument(help="The play, e.g. '24/18 13/11' (quote it).")],
    rules: RulesOpt = "backgammon",
    settings: SetOpt = None,
    first_turn: FirstTurnOpt = None,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Judge one play: legal, or the rule that fired and the legal plays instead.

    Exits 1 when the play is illegal."""
    from ..dice import Roll
    from ..engine import check_play, legal_plays

    try:
        rs = _rules(rules, settings)
        pos = _position(position, rs)
        roll = Roll.parse(dice)
        j = check_play(pos, roll, play, rs.rules, first_turn=first_turn)
        alternatives = [] if j.legal else [str(p.play) for p in
                                           legal_plays(pos, roll, rs.rules, first_turn=first_turn)]
    except NardtoolsError as e:
        raise _fail(str(e)) from None
    report = {"legal": j.legal, "rule": str(j.violation) if j.violation else None,
              "message": j.message, "play": str(j.play) if j.play else play,
              "result": str(j.result) if j.result else None, "legal_plays": alternatives}
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    elif j.legal:
        typer.echo(f"legal: {j.play}\nresult: {j.result}")
    else:
        typer.echo(j.message)
        typer.echo(f"legal plays ({len(alternatives)}): " + ", ".join(a or "(no move)" for a in alternatives[:12])
                   + (" ..." if len(alternatives) > 12 else ""))
    if not j.legal:
        raise typer.Exit(int(ExitCode.FINDINGS))


@app.command("selfplay")
def selfplay_command(
    rules: RulesOpt = "long",
    settings: SetOpt = None,
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="How many games.")] = 10,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 1,
    show: Annotated[bool, typer.Option("--show", help="Print every turn.")] = False,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Play random games with the engine, re-check every play, and summarise."""
    from ..playout import selfplay

    try:
        rs = _rules(rules, settings)
        summary = selfplay(rs, games, seed, on_turn=(lambda line: typer.echo(line)) if show else None)
    except NardtoolsError as e:
        raise _fail(str(e)) from None
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        typer.echo(f"{summary['games']} games under {summary['ruleset']}: {summary['turns']} turns, "
                   f"every play re-checked ({summary['rechecked']} legal); "
                   f"{summary['seconds']:.2f} s")
        for kind, n in sorted(summary["outcomes"].items()):
            typer.echo(f"  {kind:<12} {n}")
    if summary["rechecked"] != summary["turns"]:
        raise typer.Exit(int(ExitCode.FINDINGS))


@app.command("validate")
def validate_command(
    paths: Annotated[list[Path], typer.Argument(help="Record files or directories (searched for .mat/.txt).")],
    rules: Annotated[Optional[str], typer.Option("--rules", "-r", help="Replay under this ruleset "
                     "instead of the one the file names.")] = None,
    settings: SetOpt = None,
    lenient: Annotated[bool, typer.Option(help="Apply an illegal but physically possible play "
                       "and go on (an opponent may condone it).")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, help="Worker processes, 0 = "
                    "every core.")] = 0,
    fmt: FormatOpt = OutputFormat.text,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary or progress on stderr.")] = False,
) -> None:
    """Replay every game of every record and report each illegal move.

    Each problem is printed as FILE:LINE:COL: game G, turn T (player, dice):
    message, naming the rule that fired and the legal plays.  Exit codes: 0 no
    errors, 1 illegal moves or other errors found, 2 a file could not be read."""
    import os
    import time

    from ..notation.validate import expand_paths, validate_paths

    options = _options(settings)
    try:
        if rules or options:
            _rules(rules or "backgammon", settings)  # fail early on unknown names
    except NardtoolsError as e:
        raise _fail(str(e)) from None
    files = expand_paths(paths)
    started = time.perf_counter()
    reports = []
    stream: Iterable[Any] = validate_paths(files, rules, options, lenient, jobs or os.cpu_count() or 1)
    show_progress = not quiet and fmt is OutputFormat.text and sys.stderr.isatty() and len(files) > 4
    if show_progress:
        from rich.console import Console
        from rich.progress import track

        stream = track(stream, total=len(files), description="validating",
                       console=Console(stderr=True), transient=True)
    for report in stream:
        reports.append(report)
        if fmt is OutputFormat.text:
            if report.unreadable:
                typer.echo(f"{report.path}: unreadable: {report.unreadable}")
            for p in report.problems:
                typer.echo(("warning: " if p.severity != "error" else "") + str(p))
    seconds = time.perf_counter() - started
    summary = {"files": len(reports), "games": sum(r.games for r in reports),
               "turns": sum(r.turns for r in reports),
               "errors": sum(len(r.errors) for r in reports),
               "warnings": sum(len(r.problems) - len(r.errors) for r in reports),
               "unreadable": sum(bool(r.unreadable) for r in reports), "seconds": round(seconds, 3)}
    if fmt is OutputFormat.json:
        typer.echo(json.dumps({"files": [r.as_dict() for r in reports], "summary": summary},
                              ensure_ascii=False, indent=2))
    elif not quiet:
        rate = summary["games"] / seconds if seconds > 0 else 0.0
        typer.echo(f"{summary['files']} files, {summary['games']} games, {summary['turns']} turns: "
                   f"{summary['errors']} errors, {summary['warnings']} warnings, "
                   f"{summary['unreadable']} unreadable ({seconds:.2f} s, {rate:.0f} games/s)", err=True)
    if summary["unreadable"]:
        raise typer.Exit(int(ExitCode.USAGE))
    if summary["errors"]:
        raise typer.Exit(int(ExitCode.FINDINGS))


class RecordFormat(str, enum.Enum):
    """Record formats `convert` writes."""

    mat = "mat"
    nrd = "nrd"


@app.command("convert")
def convert_command(
    source: Annotated[Path, typer.Argument(help="A record file (.mat in any dialect, or native .nrd).")],
    target: Annotated[Path, typer.Argument(help="The file to write (written atomically).")],
    to: Annotated[Optional[RecordFormat], typer.Option("--to", help="Output format "
                  "(default: from the target's ending, else nrd).")] = None,
    rules: Annotated[Optional[str], typer.Option("--rules", "-r", help="Replay under this ruleset.")] = None,
    settings: SetOpt = None,
) -> None:
    """Convert a record between formats (the games are replayed so that plays
    are written in canonical form); exits 1 if the record has illegal moves."""
    from .._io import write_atomically
    from ..notation.mat import export_mat
    from ..notation.native import export_native
    from ..notation.record import RecordError
    from ..notation.replay import replay_match
    from ..notation.validate import read_record

    fmt = to or (RecordFormat.mat if target.suffix.lower() == ".mat" else RecordFormat.nrd)
    options = _options(settings)
    try:
        record = read_record(source)
    except RecordError as e:  # unreadable input
        raise _fail(str(e), ExitCode.USAGE) from None
    try:
        replayed = replay_match(record, rules=rules, options=options)
    except NardtoolsError as e:
        raise _fail(str(e)) from None
    write_atomically(target, export_mat(replayed) if fmt is RecordFormat.mat else export_native(replayed))
    errors = replayed.errors
    for p in errors:
        typer.echo(str(p), err=True)
    typer.echo(f"{source} -> {target} ({fmt.value}): {len(replayed.games)} games, "
               f"{replayed.turns} plays, {len(errors)} errors", err=True)
    if errors:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _position_of(source: str, ruleset: Any, game: int | None, turn: int | None) -> Any:
    """A position from notation, or from a record file before game G, turn T."""
    return _setup_of(source, ruleset, game, turn)[0].position


def _setup_of(source: str, ruleset: Any, game: int | None, turn: int | None,
              player: int | None = None) -> tuple[Any, tuple[str, str]]:
    """A setup and the players' names, from notation or from a record file
    (before game G, turn T; after the last play without a turn)."""
    from ..notation.ids import Setup, parse_setup

    if game is None and turn is None and not Path(source).is_file():
        if source in ("start", "-"):
            return Setup(_position(source, ruleset)), ("", "")
        return parse_setup(source, ruleset.rules.game), ("", "")
    from ..errors import GameStateError
    from ..notation.replay import replay_match
    from ..notation.validate import read_record

    try:
        match = replay_match(read_record(source))
        return match.setup_at(game, turn, player=player), match.record.players
    except GameStateError as e:  # no such game or turn: a usage error
        raise _fail(str(e), ExitCode.USAGE) from None


PositionSourceArg = Annotated[str, typer.Argument(help="A position (any notation) or a record file.")]
GameOpt = Annotated[Optional[int], typer.Option("--game", "-g", help="Game number, for a record file.")]
TurnOpt = Annotated[Optional[int], typer.Option("--turn", "-t", help="The position before this turn "
                                                 "(default: after the last play).")]


@app.command("pips")
def pips_command(
    position: PositionSourceArg,
    game: GameOpt = None,
    turn: TurnOpt = None,
    rules: RulesOpt = "backgammon",
    epc: Annotated[bool, typer.Option("--epc/--no-epc", help="Effective pip counts for sides "
                   "bearing off (uses the 6-point bear-off database, built on first use).")] = True,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Pip counts and the race counting rules (Kleinman, Thorp, Keith, 8-9-12, Trice),
    with their formulas; the side on roll is the leader L."""
    from ..analysis.counts import all_counts
    from ..analysis.pips import count

    try:
        pos = _position_of(position, _rules(rules, None), game, turn)
        sides = count(pos)
        epcs: tuple[float | None, float | None] = (None, None)
        if epc:
            from ..analysis.bearoff import effective_pips

            epcs = effective_pips(pos)
        counts = all_counts(pos) if pos.kind.value == "backgammon" else []
    except NardtoolsError as e:
        raise _fail(str(e)) from None
    report: dict[str, Any] = {
        "position": str(pos),
        "sides": [{"pips": s.pips, "epc": e, "wastage": (e - s.pips) if e is not None else None,
                   "on_board": s.on_board, "home": s.home, "off": s.off, "bar": s.bar}
                  for s, e in zip(sides, epcs)],
        "counts": [{"name": c.name, "leader": c.leader, "trailer": c.trailer, "value": c.value,
                    "verdict": c.verdict, "formula": c.formula} for c in counts],
    }
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    typer.echo(report["position"])
    for label, side in zip(("on roll", "other"), report["sides"]):
        extra = f", EPC {side['epc']:.2f} (wastage {side['wastage']:.2f})" if side["epc"] is not None else ""
        typer.echo(f"  {label:<8} {side['pips']:>3} pips{extra}")
    for c in counts:
        typer.echo(f"  {c}")


PlayerOpt = Annotated[Optional[int], typer.Option("--player", "-p", min=0, max=1, help="Which side's "
                                                   "play of that turn (0 = first-named; default: the first "
                                                   "in the record).")]


@app.command("show")
def show_command(
    position: PositionSourceArg,
    game: GameOpt = None,
    turn: TurnOpt = None,
    player: PlayerOpt = None,
    rules: RulesOpt = "backgammon",
    unicode: Annotated[bool, typer.Option("--unicode", "-u", help="Box-drawing characters and "
                       "round checkers.")] = False,
    image: Annotated[Optional[Path], typer.Option("--image", "-o", help="Also draw the board "
                     "to this .png or .svg file.")] = None,
    names: Annotated[Optional[str], typer.Option("--names", help="Players' names, 'FIRST,SECOND' "
                     "(default: the record's).")] = None,
) -> None:
    """Draw a position as text: backgammon in GNU Backgammon's frame, Long Nardy
    in its own; optionally as an image too."""
    from ..teaching.diagram import diagram

    try:
        setup, record_names = _setup_of(position, _rules(rules, None), game, turn, player)
    except NardtoolsError as e:
        raise _fail(str(e)) from None
    shown = tuple(names.split(",", 1)) if names and "," in names else record_names
    typer.echo(diagram(setup, shown, unicode=unicode), nl=False)
    if image is not None:
        from ..teaching.board_image import save_board

        try:
            save_board(image, setup, names=shown)
        except ValueError as e:
            raise _fail(str(e), ExitCode.USAGE) from None
        typer.echo(f"wrote {image}", err=True)


@app.command("replay")
def replay_command(
    record: Annotated[Path, typer.Argument(help="A record file (.mat or .nrd).", exists=True, dir_okay=False)],
    game: GameOpt = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write one self-contained "
                      "HTML page here.")] = None,
    tui: Annotated[bool, typer.Option("--tui", help="Step through on the terminal (Enter for the "
                   "next turn, q to quit).")] = False,
    persian: Annotated[bool, typer.Option("--persian", help="Name each roll in Persian too "
                       "(shesh-besh, du-shesh...).")] = False,
    unicode: Annotated[bool, typer.Option("--unicode", "-u", help="Box-drawing diagrams (--tui).")] = False,
    rules: Annotated[Optional[str], typer.Option("--rules", "-r", help="Replay under this ruleset "
                     "instead of the one the record names.")] = None,
) -> None:
    """An annotated replay of one game: an HTML stepper (--output) or the terminal (--tui).

    Annotations: the dice and play of every turn, the record's comments and
    glyphs, forced moves, the number of legal plays, pip counts, race odds and
    race errors where exact, and the rule of any illegal play (replayed leniently)."""
    from ..errors import GameStateError
    from ..notation.replay import replay_match
    from ..notation.validate import read_record
    from ..teaching.replay import replay_html, replay_terminal

    if output is None and not tui:
        raise _fail("say where the replay goes: --output replay.html, or --tui", ExitCode.USAGE)
    try:
        match = replay_match(read_record(record), rules=rules, lenient=True)
        if tui:
            replay_terminal(match, game, persian=persian, unicode=unicode)
        if output is not None:
            from .._io import write_atomically

            write_atomically(output, replay_html(match, game, persian=persian))
            typer.echo(f"wrote {output}", err=True)
    except GameStateError as e:
        raise _fail(str(e), ExitCode.USAGE) from None
    except NardtoolsError as e:
        raise _fail(str(e)) from None


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


class Engine(str, enum.Enum):
    local = "local"
    dask = "dask"


JobsOpt = Annotated[int, typer.Option("--jobs", "-j", min=0, help="Worker processes, 0 = every core.")]
EngineOpt = Annotated[Engine, typer.Option("--engine", help="Run on local processes or a Dask cluster.")]
SchedulerOpt = Annotated[Optional[str], typer.Option("--scheduler", help="Dask scheduler address "
                                                     "(default: start a local cluster).")]
RaceDbOpt = Annotated[int, typer.Option("--race-db", min=2, max=12, help="Bear-off database points "
                                        "for the exact race figures (built once and cached).")]


def _collect(paths: list[Path], turns: bool, race_db: int, jobs: int, engine: Engine,
             scheduler: str | None, sink: Any = None, quiet: bool = False) -> Any:
    """Run the statistics pipeline with a progress bar on a terminal."""
    import os

    from rich.console import Console

    from ..analysis.stats import collect
    from ..notation.validate import expand_paths

    err = Console(stderr=True)
    files = expand_paths(paths)  # once: a folder walk reads the head of every .txt file
    total = len(files)
    progress = None
    if not quiet and err.is_terminal and total > 4:
        from rich.progress import Progress

        bar = Progress(console=err, transient=True)
        task = bar.add_task("replaying", total=total)
        bar.start()
        progress = lambda _stats: bar.advance(task)  # noqa: E731
    try:
        archive = collect(files, turns=turns, race_points=race_db, jobs=jobs or os.cpu_count() or 1,
                          engine=engine.value, scheduler=scheduler, sink=sink, progress=progress)
    finally:
        if progress is not None:
            bar.stop()
    if not quiet:
        for path, why in archive.unreadable:
            err.print(f"unreadable: {path}: {why}", markup=False, highlight=False, soft_wrap=True)
        for problem in archive.problems:
            err.print(f"illegal: {problem}", markup=False, highlight=False, soft_wrap=True)
        err.print(f"{archive.files} files, {len(archive.games)} games; {len(archive.unreadable)} "
                  f"unreadable, {len(archive.problems)} problems (games replayed leniently)",
                  markup=False, highlight=False)
    return archive


@app.command("stats")
def stats_command(
    paths: Annotated[list[Path], typer.Argument(help="Record files or directories.")],
    table: Annotated[StatsTable, typer.Option("--table", "-t", help="Which table.")] = StatsTable.games,
    group_by: Annotated[Optional[list[str]], typer.Option("--group-by", "-g", help="Group rows by these "
                        "columns (repeatable or comma-separated): counts and means.")] = None,
    fmt: Annotated[StatsFormat, typer.Option("--format", "-f", help="table on the terminal; csv, json "
                   "or parquet to --output (or stdout for csv/json).")] = StatsFormat.table,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write here (atomically).")] = None,
    jobs: JobsOpt = 0,
    engine: EngineOpt = Engine.local,
    scheduler: SchedulerOpt = None,
    race_db: RaceDbOpt = 6,
    rows: Annotated[int, typer.Option("--rows", help="Rows shown on the terminal.")] = 40,
    columns: Annotated[Optional[str], typer.Option("--columns", "-c", help="Comma-separated columns to "
                       "show or write (default: all in files, the main ones on the terminal).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress or summary on stderr.")] = False,
) -> None:
    """Statistics over archives: games, turns, players or dice (see docs/stats.md).

    Every game is replayed (leniently); unreadable files and illegal games are
    listed on stderr and never stop the run.  The turns table streams to a
    csv/json/parquet --output, so memory stays flat in the archive's size."""
    from ..analysis.stats import GroupSink, TableSink

    keys = [k for g in group_by or [] for k in g.split(",") if k]
    if fmt is StatsFormat.parquet and output is None:
        raise _fail("parquet needs --output FILE", ExitCode.USAGE)
    sink: Any = None
    if table is StatsTable.turns and keys:  # turn rows folded into groups as they come
        try:
            sink = GroupSink("turns", keys)
        except KeyError as e:
            raise _fail(f"--group-by: {e.args[0]}", ExitCode.USAGE) from None
    elif table is StatsTable.turns and output is not None and fmt is not StatsFormat.table:
        sink = TableSink(output, fmt.value, "turns")
    try:
        archive = _collect(paths, table is StatsTable.turns, race_db, jobs, engine, scheduler, sink, quiet)
    except BaseException:
        if isinstance(sink, TableSink):
            sink.abort()
        raise
    if isinstance(sink, GroupSink):
        _emit_frame(sink.frame(), fmt, output, rows, "turns grouped")
        return
    if sink is not None:
        sink.close()
        if not quiet:
            typer.echo(f"wrote {sink.rows} rows to {output}", err=True)
        return
    from ..analysis.stats import TERMINAL_COLUMNS

    frame = archive.frame(table.value)
    chosen = [c for c in (columns or "").split(",") if c]
    unknown = [c for c in chosen if c not in frame.columns]
    if unknown:
        raise _fail(f"--columns: no column {unknown[0]!r}; columns: {', '.join(frame.columns)}", ExitCode.USAGE)
    if chosen:
        frame = frame[chosen]
    elif fmt is StatsFormat.table and not keys:
        frame = frame[TERMINAL_COLUMNS[table.value]]
    if "file" in frame.columns and fmt is StatsFormat.table:
        frame = frame.assign(file=frame["file"].map(lambda f: Path(f).name))
    if keys:
        from ..analysis.stats import group

        try:
            frame = group(frame, keys)
        except KeyError as e:
            raise _fail(f"--group-by: {e.args[0]}", ExitCode.USAGE) from None
    _emit_frame(frame, fmt, output, rows, table.value)


def _emit_frame(frame: Any, fmt: StatsFormat, output: Path | None, rows: int, title: str) -> None:
    from .._io import write_atomically

    if fmt is StatsFormat.table:
        from rich.console import Console
        from rich.table import Table

        shown = Table(title=f"{title} ({len(frame)} rows)", show_lines=False)
        for column in frame.columns:
            shown.add_column(str(column), overflow="fold")
        for record in frame.head(rows).itertuples(index=False):
            shown.add_row(*("" if _missing(v) else f"{v:.4g}" if isinstance(v, float) else str(v) for v in record))
        # a pipe or a file gets wide rows, not columns folded to 80 characters
        wide = output is not None or not sys.stdout.isatty()
        console = Console(file=open(output, "w", encoding="utf-8") if output else None, width=240 if wide else None)
        console.print(shown)
        if len(frame) > rows:
            console.print(f"... {len(frame) - rows} more rows: --rows N, or --format csv/parquet --output FILE")
        return
    if fmt is StatsFormat.parquet:
        import io

        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        assert output is not None
        write_atomically(output, buffer.getvalue())
        return
    text = frame.to_csv(index=False) if fmt is StatsFormat.csv else frame.to_json(orient="records", indent=1)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_atomically(output, text)


def _missing(value: Any) -> bool:
    import pandas as pd

    return value is None or (not isinstance(value, str) and bool(pd.isna(value)))


class PlotKind(str, enum.Enum):
    pips = "pips"
    dice = "dice"
    outcomes = "outcomes"
    openings = "openings"


@app.command("plot")
def plot_command(
    kind: Annotated[PlotKind, typer.Argument(help="pips (one game's trajectory), dice, outcomes, openings.")],
    paths: Annotated[list[Path], typer.Argument(help="Record files or directories (pips: one file).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The image: .png or .svg.")],
    game: GameOpt = None,
    jobs: JobsOpt = 0,
    engine: EngineOpt = Engine.local,
    scheduler: SchedulerOpt = None,
    race_db: RaceDbOpt = 6,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress or summary on stderr.")] = False,
) -> None:
    """Plots of an archive: a game's pip counts, dice against a fair die,
    outcomes by variant, win rate by opening roll."""
    from ..analysis import plots

    if output.suffix.lower() not in (".png", ".svg"):
        raise _fail(f"{output}: plots are .png or .svg", ExitCode.USAGE)
    if kind is PlotKind.pips:
        from ..analysis.annotate import annotate_game
        from ..errors import GameStateError
        from ..notation.replay import replay_match
        from ..notation.validate import read_record

        if len(paths) != 1 or not paths[0].is_file():
            raise _fail("plot pips takes one record file (and --game)", ExitCode.USAGE)
        try:
            match = replay_match(read_record(paths[0]), lenient=True)
            replayed = match.game(game)
        except GameStateError as e:
            raise _fail(str(e), ExitCode.USAGE) from None
        except NardtoolsError as e:
            raise _fail(str(e)) from None
        names = match.record.names
        fig = plots.plot_pips(annotate_game(replayed, race_points=race_db), names,
                              f"{paths[0].name}, game {replayed.record.number}")
    else:
        archive = _collect(paths, False, race_db, jobs, engine, scheduler, quiet=quiet)
        if kind is PlotKind.dice:
            fig = plots.plot_dice(archive.all_rolls())
        elif kind is PlotKind.outcomes:
            fig = plots.plot_outcomes(archive.games)
        else:
            fig = plots.plot_openings(archive.games)
    plots.save_figure(fig, output)
    if not quiet:
        typer.echo(f"wrote {output}", err=True)


class CubeOwner(str, enum.Enum):
    centred = "centred"
    owned = "owned"


@app.command("race")
def race_command(
    position: Annotated[str, typer.Argument(help="A race position (any notation; '; cube 2 X; score "
                        "1-3/7' adds the match state) or a record file.")],
    game: GameOpt = None,
    turn: TurnOpt = None,
    player: PlayerOpt = None,
    rules: Annotated[Optional[str], typer.Option("--rules", "-r", help="Ruleset whose scoring table "
                     "values the outcomes (default: the game's usual one).")] = None,
    trials: Annotated[int, typer.Option(min=100, help="One-sided rollout trials for sides "
                      "outside the bear-off database.")] = 2000,
    race_db: Annotated[Optional[int], typer.Option("--race-db", min=2, max=12, help="Bear-off database "
                       "points (default: the smallest cached one both sides fit, else 6).")] = None,
    cube_owner: Annotated[Optional[CubeOwner], typer.Option("--cube-owner", help="For the money hint: "
                          "the cube centred or owned by the side on roll (default: from the position).")] = None,
    x: Annotated[float, typer.Option("--cube-efficiency", "-x", min=0.0, max=1.0, help="Janowski's cube "
             "efficiency for the money hint.")] = 0.68,
    met: Annotated[Optional[Path], typer.Option("--met", help="A match equity table (CSV, see "
                   "docs/race.md) for the match hint (default: Kazaross-XG2).")] = None,
    plot: Annotated[Optional[Path], typer.Option("--plot", help="Draw the distributions to this "
                    ".png or .svg file.")] = None,
    two_sided: Annotated[bool, typer.Option("--two-sided", help="Also the exact two-sided P(win) "
                         "(both sides home with at most six checkers each; cubeless).")] = False,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Race odds for the side on roll: exact (one-sided formula) when both sides fit
    the bear-off database, else a labelled estimate with its standard error; the
    counting rules' and the odds' cube verdicts (money, and match play when the
    position says the score)."""
    from ..analysis.cube import cube_hints, read_met
    from ..analysis.race import race_odds

    try:
        ruleset = _rules(rules or "backgammon", None)
        setup, names = _setup_of(position, ruleset, game, turn, player)
        pos = setup.position
        if rules is None:
            ruleset = _rules("long" if pos.kind.value == "long" else "backgammon", None)
        odds = race_odds(pos, db_points=race_db, trials=trials, rules=ruleset.rules)
        hints = cube_hints(odds, setup, ruleset.rules, cube_owner=cube_owner.value if cube_owner else None,
                           x=x, met=read_met(met) if met else None)
        counts = []
        if pos.kind.value == "backgammon":
            from ..analysis.counts import all_counts

            counts = all_counts(pos)
        exact_two_sided = None
        if two_sided:
            from ..analysis.twosided import exact_p_win

            exact_two_sided = exact_p_win(pos)
    except (NardtoolsError, ValueError, OSError) as e:
        raise _fail(str(e)) from None
    if plot is not None:
        from ..analysis.plots import plot_race, save_figure

        mover = names[pos.player] or "XO"[pos.player]
        other = names[1 - pos.player] or "XO"[1 - pos.player]
        try:
            save_figure(plot_race(odds, (f"{mover} (on roll)", other)), plot)
        except ValueError as e:
            raise _fail(str(e), ExitCode.USAGE) from None
    if fmt is OutputFormat.json:
        report = odds.as_dict()
        report["position"] = str(pos)
        report["cube"] = [h.as_dict() for h in hints]
        report["counts"] = [{"name": c.name, "verdict": c.verdict, "formula": c.formula} for c in counts]
        report["two_sided_p_win"] = exact_two_sided
        typer.echo(json.dumps(report, indent=2))
        return
    typer.echo(str(pos))
    typer.echo(f"  {odds.method}")
    err = f" ± {odds.stderr:.4f}" if odds.stderr is not None else ""
    mars = "mars" if pos.kind.value == "long" else "gammon"
    typer.echo(f"  P(win) {odds.p_win:.4f}{err}   P({mars}) {odds.p_gammon:.4f}   "
               f"P(lose {mars}) {odds.p_lose_gammon:.4f}")
    if pos.kind.value == "long":
        typer.echo(f"  P(home mars) {odds.p_home_mars:.4f}   P(lose home mars) {odds.p_lose_home_mars:.4f}")
    typer.echo(f"  expected points at cube 1 ({ruleset.name} scoring): {odds.expected_points:+.4f}")
    if exact_two_sided is not None:
        typer.echo(f"  exact two-sided P(win) {exact_two_sided:.4f} (each side playing to win; "
                   f"the one-sided formula says {odds.p_win:.4f})")
    for label, side in zip(("on roll", "other"), odds.sides):
        typer.echo(f"  {label:<8} {side.pips:>3} pips, {side.expected_rolls:.3f} rolls, EPC {side.epc:.2f}"
                   + ("" if side.exact else " (estimated)"))
    for hint in hints:
        typer.echo(f"  cube, {hint}")
    for c in counts:
        typer.echo(f"  {c}")
    for note in odds.notes:
        typer.echo(f"  note: {note}")


bearoff_app = typer.Typer(help="One-sided bear-off databases: build, and show a position.",
                          no_args_is_help=True)
app.add_typer(bearoff_app, name="bearoff")


@bearoff_app.command("build")
def bearoff_build(
    points: Annotated[int, typer.Option("--points", "-p", min=1, max=12, help="Points covered "
                      "(12: every Long Nardy race, 17.4 million positions).")] = 6,
    policy: Annotated[str, typer.Option(help="exact (minimum expected rolls) or gnubg "
                      "(GNU Backgammon's quantised choices; not cached).")] = "exact",
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if it is cached.")] = False,
) -> None:
    """Build a database and keep it in the user cache (a folder of arrays)."""
    import shutil
    import time

    from rich.console import Console

    from ..analysis.bearoff import BearoffDatabase, cache_path, position_count

    err = Console(stderr=True)
    started = time.perf_counter()
    path = cache_path(points)

    def progress(part: str) -> None:
        err.print(f"  {time.perf_counter() - started:6.1f} s  {part}", highlight=False)

    if policy == "exact":
        if force:
            shutil.rmtree(path, ignore_errors=True)
        db = BearoffDatabase.cached(points, progress=progress)
        size = sum(f.stat().st_size for f in path.iterdir()) / 2**20
        where = f", {size:,.1f} MiB at {path}"
    else:
        db = BearoffDatabase.build(points, policy, progress=progress)
        where = ""
    typer.echo(f"{points} points: {position_count(points):,} positions in "
               f"{time.perf_counter() - started:.1f} s{where}")
    assert len(db) == position_count(points)


@bearoff_app.command("verify")
def bearoff_verify(
    points: Annotated[int, typer.Option("--points", "-p", min=1, max=12, help="Points covered.")] = 6,
) -> None:
    """Check a cached database against the CRC-32 of every array (large
    databases are otherwise checked only by shape and size when loaded)."""
    from ..analysis.bearoff import BearoffDatabase, cache_path

    path = cache_path(points)
    if BearoffDatabase.load(points, path, verify=True) is None:
        raise _fail(f"{path}: missing or damaged; `nardtools bearoff build --points {points} --force` "
                    "rebuilds it")
    typer.echo(f"{path}: every array matches its CRC-32")


@bearoff_app.command("show")
def bearoff_show(
    counts: Annotated[str, typer.Argument(help="Checkers on the 1-point, 2-point, ... e.g. 1,0,0,5,0,1.")],
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Rolls to bear off (and to the first checker off), mean, EPC and wastage."""
    from ..analysis.bearoff import BearoffDatabase

    try:
        board = [int(x) for x in counts.replace(" ", "").split(",")]
    except ValueError:
        raise _fail(f"expected checker counts such as 1,0,0,5,0,1, got {counts!r}", ExitCode.USAGE) from None
    points = max(6, len(board))
    try:
        db = BearoffDatabase.cached(points)
        dist = db.distribution(board)
        i = db.index(board)
    except ValueError as e:
        raise _fail(str(e), ExitCode.USAGE) from None
    gammon = db.gammon_dist[i]
    report: dict[str, Any] = {"counts": board, "index": i, "mean_rolls": db.mean_rolls(board), "epc": db.epc(board),
              "wastage": db.wastage(board), "pips": sum((k + 1) * n for k, n in enumerate(board)),
              "distribution": [float(x) for x in dist[:int(max(1, (dist > 0).nonzero()[0].max() + 1))]],
              "first_off_mean": float(db.gammon_mean[i]) if sum(board) == 15 else 0.0,
              "first_off": [float(x) for x in gammon[:int((gammon > 0).nonzero()[0].max() + 1)]]}
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(report, indent=2))
        return
    typer.echo(f"{tuple(board)}: {report['pips']} pips, index {i} in the {points}-point database")
    typer.echo("  rolls  P(all off)  P(first off)")
    for n in range(max(len(report["distribution"]), len(report["first_off"]))):
        p = report["distribution"][n] if n < len(report["distribution"]) else 0.0
        g = report["first_off"][n] if n < len(report["first_off"]) else 0.0
        typer.echo(f"  {n:>5}  {100 * p:>9.3f}%  {100 * g:>11.3f}%")
    typer.echo(f"  mean rolls {report['mean_rolls']:.6f}; EPC = 49/6 x mean = {report['epc']:.3f}; "
               f"wastage = EPC - pips = {report['wastage']:.3f}")


def main() -> None:
    """Entry point of the ``nardtools`` console script."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        sys.exit(130)
