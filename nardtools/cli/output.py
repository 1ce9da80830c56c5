"""Where the commands' results go: outputs checked before any work, written
atomically; progress bars; JSON."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Callable, Iterator

import typer

from .common import fail


def output_path(path: Path, suffixes: tuple[str, ...] = (), what: str = "output") -> Path:
    """Check, before any work is done, that ``path`` can be written: its
    folder exists, it is not a folder, and it has one of ``suffixes``."""
    if suffixes and path.suffix.lower() not in suffixes:
        raise fail(f"{path}: the {what} is a {' or '.join(suffixes)} file")
    if path.is_dir():
        raise fail(f"{path}: is a folder; give a file name for the {what}")
    folder = path.parent
    if not folder.is_dir():
        raise fail(f"{path}: no folder {folder} to write the {what} in")
    if not os.access(folder, os.W_OK):
        raise fail(f"{path}: the folder {folder} is not writable")
    return path


def write_output(path: Path, data: str | bytes) -> None:
    """Write a whole output atomically (see :func:`nardtools._io.write_atomically`)."""
    from .._io import write_atomically

    write_atomically(path, data)


@contextlib.contextmanager
def progress(total: int | None, what: str, quiet: bool = False) -> Iterator[Callable[..., None]]:
    """A progress bar on stderr when it is a terminal (and not ``quiet``);
    yields the function to call once per unit done.  ``total`` None: not
    known in advance (the bar counts what is done)."""
    if quiet or (total is not None and total < 2) or not sys.stderr.isatty():  # (rich is not even imported then)
        yield lambda *_: None
        return
    from rich.console import Console
    from rich.progress import MofNCompleteColumn, Progress

    err = Console(stderr=True)
    columns = (*Progress.get_default_columns(), MofNCompleteColumn()) if total is None else ()
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda *_: bar.advance(task)


#: Digits after the point that JSON output keeps (probabilities to a millionth).
JSON_DIGITS = 6


def _rounded(data: object) -> object:
    if isinstance(data, float):
        return data if data != data else round(data, JSON_DIGITS)  # NaN stays NaN (null below)
    if isinstance(data, dict):
        return {k: _rounded(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_rounded(v) for v in data]
    return data


def echo_json(data: object) -> None:
    """A JSON document on stdout: floats rounded to :data:`JSON_DIGITS` places,
    NaN as ``null``, booleans as booleans."""
    text = json.dumps(_rounded(data), ensure_ascii=False, indent=2)
    typer.echo(text.replace("NaN", "null"))
