"""The ``nardtools`` command line.  Each command parses its options, calls the
library, and renders; no game logic lives here.  One module per group of
commands (play, records, analysis, archives, teaching, bearoff); :mod:`.common` holds
what they share: options, exit codes, errors, inputs and outputs.

Exit codes (see README): 0 success, 1 findings (an illegal play, errors in a
record), 2 bad input or usage, 70 a bug in nardtools, 130 interrupted (Ctrl-C),
143 terminated (SIGTERM).
"""

from __future__ import annotations

import copy
import os
import signal
import sys
from types import FrameType
from typing import Annotated, NoReturn

import typer

from .. import __version__
from . import analysis, archives, bearoff, evaluation, play, records, teaching, training
from .common import ExitCode, Terminated

app = typer.Typer(
    name="nardtools",
    help="Validate, analyse and teach recorded games of Long Nardy and backgammon.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"nardtools {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[bool | None, typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")] = None,
) -> None:
    """Validate, analyse and teach recorded games of Long Nardy and backgammon."""


for _module in (play, records, analysis, evaluation, training, archives, teaching, bearoff):
    _module.register(app)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def app_for(args: list[str]) -> typer.Typer:
    """The application that runs ``nardtools ARGS``: when ARGS name a command
    (not a group, an option or a typo), the whole app with only that command
    registered, so that typer builds one command's parser instead of every
    command's (about 20 ms of a 100 ms ``validate``); otherwise :data:`app`
    itself, whose help lists every command and whose errors suggest names.

    >>> [c.name for c in app_for(["validate", "x.mat"]).registered_commands]
    ['validate']
    >>> app_for(["--help"]) is app and app_for(["bearoff", "build"]) is app
    True
    """
    name = args[0] if args else None
    chosen = [info for info in app.registered_commands if info.name == name]
    if not chosen:
        return app
    lone = copy.copy(app)
    lone.registered_commands = chosen
    lone.registered_groups = []
    return lone


def main() -> None:
    """Entry point of the ``nardtools`` console script.  SIGTERM is raised as
    an exception where the process stands, like Ctrl-C, so that no partial or
    temporary file is left behind."""
    signal.signal(signal.SIGTERM, _terminate)
    args = sys.argv[1:]
    try:
        code = typer.main.get_command(app_for(args)).main(args, prog_name="nardtools", standalone_mode=False)
    except _CLICK_ERRORS as e:  # a usage error: one line, as every other error
        sys.exit(_usage_error(e))
    except typer.Abort:
        sys.exit(int(ExitCode.INTERRUPTED))
    except Terminated:
        sys.exit(int(ExitCode.TERMINATED))
    except KeyboardInterrupt:
        sys.exit(int(ExitCode.INTERRUPTED))
    sys.exit(code if isinstance(code, int) else 0)


def run() -> NoReturn:
    """The ``nardtools`` console script and ``python -m nardtools``: :func:`main`,
    then, its output flushed, the process ends at once (``os._exit``).  By
    then a command's work is done (outputs written atomically and closed,
    process pools shut down), and the interpreter's teardown, which frees
    numpy and every module one by one, would only delay the exit: 20-30 ms, a
    tenth of a 0-ply analysis of a 7-game match.  :func:`main` itself returns
    by ``SystemExit``, for callers in the same process."""
    try:
        main()
        code: object = 0
    except SystemExit as e:
        code = e.code
    if code is not None and not isinstance(code, int):   # sys.exit's rule: a message, and 1
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe (``| head``): the exit Python gives it
            code = code or 120
    os._exit(code or 0)


def _click_errors() -> tuple[type[Exception], ...]:
    """Click's usage-error class: typer's own copy of click where it has one
    (typer 0.28 on: its commands then raise only that one, and click itself,
    some 10 ms to import, is left alone), else click's."""
    import importlib

    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            return (importlib.import_module(name).ClickException,)
        except (ImportError, AttributeError):
            pass
    return ()


_CLICK_ERRORS = _click_errors()


def _usage_error(e: Exception) -> int:
    """Print a usage error as one line on stderr (``Error: nardtools CMD: ...``,
    with where to read the command's help); its exit code (2).  A bare
    ``nardtools`` shows the help."""
    if type(e).__name__ == "NoArgsIsHelpError":
        e.show()  # type: ignore[attr-defined]
        return 0
    ctx = getattr(e, "ctx", None)
    where = ctx.command_path if ctx is not None else "nardtools"
    message = " ".join(e.format_message().split())  # type: ignore[attr-defined]
    typer.echo(f"Error: {where}: {message} (see '{where} --help')", err=True)
    return int(getattr(e, "exit_code", ExitCode.USAGE))
