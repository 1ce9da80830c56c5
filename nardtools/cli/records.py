"""Commands about record files: validate them, convert them."""

from __future__ import annotations

import enum
import time
from pathlib import Path
from typing import Annotated

import typer

from ..notation.reading import FORMATS, RECORD_SUFFIXES
from .common import (
    EncodingOpt,
    ExitCode,
    FormatOpt,
    JobsOpt,
    OutputFormat,
    QuietOpt,
    SetOpt,
    command,
    fail,
    problem_text,
    rule_options,
    ruleset,
    standard_input,
)
from .output import echo_json, output_path, write_output

PANEL = "Records"
_READS = "; ".join(FORMATS.values())


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    command(app, "validate", PANEL)(validate_command)
    command(app, "convert", PANEL)(convert_command)


ReplayRulesOpt = Annotated[str | None, typer.Option(
    "--rules", "-r", help="Replay under this ruleset instead of the one the record names.")]


def validate_command(
    paths: Annotated[list[Path], typer.Argument(help="Record files or folders (`-` for standard input).")],
    rules: ReplayRulesOpt = None,
    settings: SetOpt = None,
    lenient: Annotated[bool, typer.Option(help="Apply an illegal but physically possible play "
                       "and go on (an opponent may condone it).")] = False,
    jobs: JobsOpt = 0,
    encoding: EncodingOpt = None,
    fmt: FormatOpt = OutputFormat.text,
    quiet: QuietOpt = False,
) -> None:
    """Replay every game of every record and report each illegal move.

    Reads: Jellyfish .mat (GNU Backgammon, XG, Galaxy, Backgammon Studio,
    DailyGammon, GridGammon), GNU Backgammon's SGF (.sgf) and the native
    annotated format (.nrd), in UTF-8, UTF-16, Windows-1251, KOI8-R or
    Latin-1 (detected).  In folders: .mat, .nrd, .sgf, and .txt files that
    hold a record.

    Each problem is printed as FILE:LINE:COL: game G, turn T (player, dice):
    message, naming the rule that fired and the legal plays.  Exit codes: 0 no
    errors, 1 illegal moves or other errors found, 2 a file could not be read."""
    import os

    from ..notation.reading import expand_paths
    from ..notation.validate import validate_paths

    options = rule_options(settings)
    if rules or options:
        ruleset(rules or "backgammon", settings)  # fail early on unknown names
    if encoding:
        from ..notation.sniff import check_encoding

        check_encoding(encoding)
    missing = [p for p in paths if str(p) != "-" and not p.exists()]
    if missing:
        raise fail(f"{missing[0]}: no such file or folder")
    files = expand_paths(paths)
    if not files:
        raise fail(f"no record files in {', '.join(map(str, paths))} (looked for {', '.join(RECORD_SUFFIXES)})")
    stdin = standard_input() if "-" in files else None
    started = time.perf_counter()
    reports = []
    stream = validate_paths(files, rules, options, lenient, jobs or os.cpu_count() or 1,
                            encoding=encoding, stdin=stdin)
    from .output import progress

    with progress(len(files), "validating", quiet or fmt is not OutputFormat.text or len(files) <= 4) as advance:
        for report in stream:
            advance()
            reports.append(report)
            if fmt is OutputFormat.text:
                if report.unreadable:
                    typer.echo(f"{report.path}: unreadable: {report.unreadable}")
                for p in report.problems:
                    typer.echo(problem_text(p))
                if not quiet and report.encoding not in ("utf-8", "utf-8-sig", "ascii") and not report.unreadable:
                    typer.echo(f"{report.path}: read as {report.encoding} ({report.encoding_why})", err=True)
    seconds = time.perf_counter() - started
    summary = {"files": len(reports), "games": sum(r.games for r in reports),
               "turns": sum(r.turns for r in reports),
               "errors": sum(len(r.errors) for r in reports),
               "warnings": sum(len(r.problems) - len(r.errors) for r in reports),
               "unreadable": sum(bool(r.unreadable) for r in reports), "seconds": round(seconds, 3)}
    if fmt is OutputFormat.json:
        echo_json({"files": [r.as_dict() for r in reports], "summary": summary})
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
    sgf = "sgf"


def convert_command(
    source: Annotated[str, typer.Argument(help="A record file (`-` for standard input): " + _READS + ".")],
    target: Annotated[Path, typer.Argument(help="The file to write (written atomically).")],
    to: Annotated[RecordFormat | None, typer.Option("--to", help="Output format "
                  "(default: from the target's ending, else nrd).")] = None,
    rules: ReplayRulesOpt = None,
    settings: SetOpt = None,
    encoding: EncodingOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Convert a record between .mat, .sgf and .nrd, plays written canonically.

    The games are replayed, so plays are written in canonical form.  Says what
    the target format cannot hold; exits 1 if the record has illegal moves."""
    from ..notation.convert import convert
    from .common import replay_record

    fmt = to or {".mat": RecordFormat.mat, ".sgf": RecordFormat.sgf}.get(target.suffix.lower(), RecordFormat.nrd)
    output_path(target)
    replayed = replay_record(source, rules, settings, encoding=encoding)
    text, dropped = convert(replayed, fmt.value)
    write_output(target, text)
    errors = replayed.errors
    for p in errors:
        typer.echo(str(p), err=True)
    if not quiet:
        for note in dropped:
            typer.echo(f"{target}: not written: {note}", err=True)
        typer.echo(f"{source} -> {target} ({fmt.value}): {len(replayed.games)} games, "
                   f"{replayed.turns} plays, {len(errors)} errors", err=True)
    if errors:
        raise typer.Exit(int(ExitCode.FINDINGS))
