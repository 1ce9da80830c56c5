"""What every command shares: exit codes, options, error handling, inputs and outputs.

A command module declares its commands with :func:`command`, which turns
every error a user can cause into one line on stderr and a documented exit
code (see :class:`ExitCode`), never a traceback.
"""

from __future__ import annotations

import enum
import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Callable, TypeVar

import typer

from ..errors import NardtoolsError
from ..notation.reading import RECORD_SUFFIXES

if TYPE_CHECKING:
    from ..notation.record import MatchRecord
    from ..notation.replay import Problem, ReplayedMatch
    from ..rules import Ruleset
    from ..setup import Setup


class ExitCode(enum.IntEnum):
    """Every exit code of the CLI, in one place (the README's table)."""

    OK = 0
    FINDINGS = 1  # illegal plays or other errors found in the input (validate, check, convert)
    USAGE = 2  # bad options or input: unreadable files, positions, dice, rules; an unwritable output
    INTERNAL = 70  # a bug in nardtools (EX_SOFTWARE): please report it
    INTERRUPTED = 130  # Ctrl-C (SIGINT)
    TERMINATED = 143  # SIGTERM


class OutputFormat(str, enum.Enum):
    """Output formats of the commands that print a report."""

    text = "text"
    json = "json"


# ---------------------------------------------------------------------------
# Options shared by several commands: one spelling, one short flag each.

RulesOpt = Annotated[str | None, typer.Option(
    "--rules", "-r", help="Ruleset name or alias (see `nardtools rules`); default: the position's or "
    "the record's own.")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", "-s", metavar="OPTION=VALUE", help="Override one rule option; repeatable.")]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")]
FirstTurnOpt = Annotated[bool | None, typer.Option(
    "--first-turn/--later-turn", help="Whether this is the side's first turn (Long Nardy head "
    "exception); inferred from the position when omitted.")]
PositionArg = Annotated[str, typer.Argument(
    help="A position: `start`, position text, a gnubg Position ID[:Match ID] (`long:ID` for Long "
    "Nardy) or an XGID.")]
SourceArg = Annotated[str, typer.Argument(
    help="A position (any notation) or a record file (`-` for standard input).")]
GameOpt = Annotated[int | None, typer.Option("--game", "-g", min=1, help="Game number, for a record file.")]
TurnOpt = Annotated[int | None, typer.Option(
    "--turn", "-t", min=0, help="The position before this turn (default: after the last play).")]
PlayerOpt = Annotated[int | None, typer.Option(
    "--player", "-p", min=0, max=1, help="Which side's play of that turn (0 = first-named; default: the "
    "first in the record).")]
JobsOpt = Annotated[int, typer.Option("--jobs", "-j", min=0, help="Worker processes, 0 = every core.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress or summary on stderr.")]
EncodingOpt = Annotated[str | None, typer.Option(
    "--encoding", "-e", help="Read records in this encoding (default: detected; see docs/format.md).")]


def weights_text(weights: Path | None) -> str | None:
    """A ``--weights`` (or ``--parent``) option as the analysis takes it: the path's text, or None."""
    return str(weights) if weights else None


# ---------------------------------------------------------------------------
# Errors

def fail(message: str, code: ExitCode = ExitCode.USAGE) -> typer.Exit:
    """Print ``Error: message`` on stderr as one logical line and return the
    exit to raise (``raise fail(...) from None``)."""
    from rich.console import Console
    from rich.text import Text

    # Plain text (paths, positions, "[...]" tags), on one logical line so that
    # FILE:LINE:COL stays greppable at any terminal width.
    Console(stderr=True).print(Text.assemble(("Error:", "red"), " ", message), soft_wrap=True)
    return typer.Exit(int(code))


def os_error_text(e: OSError) -> str:
    """``PATH: reason`` for a failed file operation, naming the path the user gave."""
    where = e.filename if e.filename is not None else ""
    reason = e.strerror or str(e)
    return f"{where}: {reason}" if where else reason


F = TypeVar("F", bound=Callable[..., None])


def command(app: typer.Typer, name: str, panel: str | None = None) -> Callable[[F], F]:
    """Register a command whose errors become one line and an exit code:
    errors in the input (our exceptions, files that cannot be read or
    written) exit 2, Ctrl-C 130, SIGTERM 143.  Anything else is a bug in
    nardtools: one line that says so, exit 70 (``NARDTOOLS_DEBUG=1`` lets the
    traceback through)."""

    def register(f: F) -> F:
        @functools.wraps(f)
        def run(*args: object, **kwargs: object) -> None:
            from .. import _notices
            from ..core import THREADS_PROBLEM
            from .terminal import terminal_text

            _notices.notice = _say
            if THREADS_PROBLEM:
                raise fail(THREADS_PROBLEM)
            try:
                with terminal_text():
                    f(*args, **kwargs)
            except (typer.Exit, typer.Abort):
                raise
            except Terminated:
                raise fail("terminated", ExitCode.TERMINATED) from None
            except KeyboardInterrupt:
                raise fail("interrupted", ExitCode.INTERRUPTED) from None
            except NardtoolsError as e:
                raise fail(str(e)) from None
            except BrokenPipeError:  # `nardtools ... | head`: the reader has all it wants
                _quiet_stdout()
                raise typer.Exit(int(ExitCode.OK)) from None
            except OSError as e:
                raise fail(os_error_text(e)) from None
            except Exception as e:
                if debugging():
                    raise
                raise fail(f"internal error in nardtools ({type(e).__name__}: {e}); please report it "
                           f"(NARDTOOLS_DEBUG=1 shows the traceback)", ExitCode.INTERNAL) from None

        app.command(name, rich_help_panel=panel)(run)
        return f

    return register


def debugging() -> bool:
    """Whether ``NARDTOOLS_DEBUG`` asks for tracebacks: set, and not ``0``,
    ``false``, ``no``, ``off`` or empty."""
    return os.environ.get("NARDTOOLS_DEBUG", "").strip().lower() not in ("", "0", "false", "no", "off")


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _say(text: str) -> None:
    typer.echo(f"nardtools: {text}", err=True)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the process stands so that ``finally`` blocks
    remove temporary files (see :func:`nardtools.cli.main`)."""


# ---------------------------------------------------------------------------
# Rules and positions

def rule_options(settings: list[str] | None) -> dict[str, str]:
    """``--set OPTION=VALUE`` items as a dict."""
    options = {}
    for item in settings or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise fail(f"--set expects OPTION=VALUE, got {item!r}")
        options[key.strip()] = value.strip()
    return options


def ruleset(name: str, settings: list[str] | None = None) -> Ruleset:
    """A named ruleset with ``--set`` overrides."""
    from ..rules import find_ruleset

    return find_ruleset(name).with_options(rule_options(settings))


def read_position(text: str, rules: str | None, settings: list[str] | None = None) -> tuple[Setup, Ruleset]:
    """A position in any notation and the ruleset to judge it by: the one
    named (a Position ID is then read in its game), else the usual one of the
    position's game.  A ruleset of another game is an error."""
    from ..notation.ids import Setup, parse_setup
    from ..position import Position
    from ..rules import DEFAULT_RULESET, game_mismatch

    named = ruleset(rules, settings) if rules else None
    if text.strip().lower() == "start":
        setup = Setup(Position.start(named.rules.start if named else "backgammon"))
    else:
        setup = parse_setup(text, named.rules.game if named else None)
    kind = setup.position.kind
    if named is None:
        return setup, ruleset(DEFAULT_RULESET[kind], settings)
    if named.rules.game is not kind:
        raise game_mismatch(named.name, named.rules.game, kind)
    return setup, named


def _is_file(text: str) -> bool:
    try:
        return text == "-" or Path(text).is_file()
    except (OSError, ValueError):  # a name too long for a file, a NUL byte
        return False


@dataclass
class Source:
    """A position to look at: from notation, or from a turn of a record."""

    setup: Setup
    ruleset: Ruleset
    names: tuple[str, str] = ("", "")
    match: ReplayedMatch | None = None


def read_source(source: str, rules: str | None, game: int | None = None, turn: int | None = None,
                player: int | None = None, settings: list[str] | None = None,
                encoding: str | None = None) -> Source:
    """A position from notation, or from a record file before game G, turn T
    (after the last play of the game without a turn)."""
    if game is None and turn is None and player is None and not _is_file(source):
        try:
            setup, rs = read_position(source, rules, settings)
        except NardtoolsError as e:
            if Path(source).suffix.lower() in RECORD_SUFFIXES or os.sep in source:
                raise fail(f"{source}: no such record file (and not a position: {e})") from None
            raise
        return Source(setup, rs)
    if not _is_file(source):
        raise fail(f"{source}: no such record file (--game, --turn and --player pick a turn of a record)")
    match = replay_record(source, rules, settings, encoding=encoding, lenient=True)
    setup = match.setup_at(game, turn, player=player)
    chosen = match.game(game)
    errors = [p for p in chosen.problems if p.severity == "error"]
    for p in errors:  # the position is reached through an illegal play, or where the replay stopped: say so
        stop = chosen.stopped and p is errors[-1]
        if turn is None or p.turn < turn:
            then = "the replay stops there" if stop else "applied: the position shown comes after it"
            typer.echo(f"warning: {str(p).splitlines()[0]} ({then})", err=True)
    return Source(setup, match.ruleset, match.record.players, match)


ScoreOpt = Annotated[str | None, typer.Option(
    "--score", help="The match score before the game and its length, A-B/N (the first-named side's score "
    "first, as X-O), instead of what the position carries; 0-0/0 is money play.")]
CubeOpt = Annotated[int | None, typer.Option("--cube", min=1, help="The cube's value.")]
OwnerOpt = Annotated[str | None, typer.Option("--owner", help="Who owns the cube: X, O or centre.")]
CrawfordOpt = Annotated[bool | None, typer.Option("--crawford/--no-crawford", help="This is the Crawford game.")]


def with_stakes(setup: Setup, score: str | None, cube: int | None, owner: str | None,
                crawford: bool | None) -> Setup:
    """``setup`` with the score, cube and Crawford game the options give
    (each checked where it enters: an impossible state is a usage error)."""
    import dataclasses
    import re

    changes: dict[str, object] = {}
    if score is not None:
        m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*/\s*(\d+)\s*", score)
        if not m:
            raise fail(f"--score {score!r}: expected A-B/N, e.g. 3-5/7 (0-0/0 for money play)")
        a, b, n = (int(v) for v in m.groups())
        changes.update(score=(a, b), match_length=n)
    if cube is not None:
        changes["cube"] = cube
    if owner is not None:
        where = owner.strip().lower()
        if where not in ("x", "o", "centre", "center", "centred", "centered"):
            raise fail(f"--owner {owner!r}: expected X, O or centre")
        changes["cube_owner"] = {"x": 0, "o": 1}.get(where)
    if crawford is not None:
        changes["crawford"] = crawford
    if not changes:
        return setup
    try:
        return dataclasses.replace(setup, **changes)  # type: ignore[arg-type]
    except NardtoolsError as e:
        raise fail(f"--score/--cube/--owner/--crawford: {e}") from None


def problem_text(p: Problem) -> str:
    """A replay's problem as `validate` prints it (warnings say so)."""
    return ("warning: " if p.severity != "error" else "") + str(p)


def report_problems(problems: list[Problem], then: str, quiet: bool = False) -> None:
    """Print a replay's problems on stderr as `validate` prints them, say
    what was made of the record (``then``), and exit 1 if any is an error."""
    for p in problems:
        typer.echo(problem_text(p), err=True)
    errors = sum(p.severity == "error" for p in problems)
    if errors and not quiet:
        typer.echo(f"{errors} error{'s' if errors != 1 else ''} in the record: {then}", err=True)
    if errors:
        raise typer.Exit(int(ExitCode.FINDINGS))


def read_record_arg(path: str, encoding: str | None = None) -> MatchRecord:
    """The record in a file named on the command line (``-``: standard input)."""
    from ..notation.reading import read_record

    if path == "-":
        return read_record("<stdin>", standard_input(), encoding=encoding)
    return read_record(path, encoding=encoding)


def standard_input() -> bytes:
    """Standard input's bytes, to the readers' limit (an endless input is refused)."""
    from ..notation.sniff import read_limited

    return read_limited(sys.stdin.buffer, "standard input")


def replay_record(path: str, rules: str | None = None, settings: list[str] | None = None, *,
                  encoding: str | None = None, lenient: bool = False) -> ReplayedMatch:
    """Read and replay a record named on the command line."""
    from ..errors import RulesetError
    from ..notation.replay import replay_match

    record = read_record_arg(path, encoding)
    try:
        return replay_match(record, rules=rules, options=rule_options(settings), lenient=lenient)
    except RulesetError as e:  # a ruleset of the other game, an unknown name or option
        raise fail(f"{'<stdin>' if path == '-' else path}: {e}") from None
