"""Where the library tells a long piece of work it starts unasked (building
a bear-off database on first use, say).  The command line points
:data:`notice` at stderr; a library user may too.  Nothing is said by default."""

from __future__ import annotations

from typing import Callable

#: Called with one line of text when the library starts (or goes on with)
#: work that takes a while and that the caller did not ask for by name.
notice: Callable[[str], None] | None = None


def say(text: str) -> None:
    """Tell :data:`notice`, if anyone listens."""
    if notice is not None:
        notice(text)
