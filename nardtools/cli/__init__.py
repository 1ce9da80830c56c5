"""The ``nardtools`` command line.  Each command parses its options, calls the
library, and renders; no game logic lives here.  One module per group of
commands (play, records, analysis, archives, teaching, bearoff); :mod:`.common` holds
what they share: options, exit codes, errors, inputs and outputs.

Exit codes (see README): 0 success, 1 findings (an illegal play, errors in a
record), 2 bad input or usage, 70 a bug in nardtools, 130 interrupted (Ctrl-C),
143 terminated (SIGTERM).
"""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import Annotated

import typer

from .. import __version__
from . import analysis, archives, bearoff, evaluation, play, records, teaching
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


for _module in (play, records, analysis, evaluation, archives, teaching, bearoff):
    _module.register(app)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def main() -> None:
    """Entry point of the ``nardtools`` console script.  SIGTERM is raised as
    an exception where the process stands, like Ctrl-C, so that no partial or
    temporary file is left behind."""
    signal.signal(signal.SIGTERM, _terminate)
    try:
        app()
    except Terminated:
        sys.exit(int(ExitCode.TERMINATED))
    except KeyboardInterrupt:
        sys.exit(int(ExitCode.INTERRUPTED))
