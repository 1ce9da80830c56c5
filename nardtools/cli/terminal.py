"""What a command prints to a terminal: text, never commands to the terminal."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from typing import Iterator, TextIO

#: What a terminal would take for a command rather than text: the C0 controls
#: but tab, line feed and carriage return; DEL; the C1 controls.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    r"""``text`` with every character a terminal would obey written out
    (``\x1b``) instead: a name in a record cannot move the cursor, clear the
    screen or retitle the window.

    >>> printable("Ann\x1b[2J")
    'Ann\\x1b[2J'
    """
    return _CONTROLS.sub(lambda m: f"\\x{ord(m[0]):02x}", text)


class _PrintableStream(io.TextIOBase):
    """A terminal's standard output that writes :func:`printable` text."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding


@contextlib.contextmanager
def terminal_text() -> Iterator[None]:
    """While a command runs, what it prints to a terminal is :func:`printable`
    (records' names and comments included); a pipe or a file gets the text as
    it is."""
    if not sys.stdout.isatty():
        yield
        return
    terminal = sys.stdout
    sys.stdout = _PrintableStream(terminal)
    try:
        yield
    finally:
        sys.stdout = terminal
