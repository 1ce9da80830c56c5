"""``nardtools play`` in the terminal, or driven by a script through
standard input: the session of :mod:`.tutor`, one command a line.

However the session ends (its end, ``quit``, the end of the input, Ctrl-C or
SIGTERM) the record is saved first (:meth:`.tutor.Session.finish`), and the
interruption then goes on to the caller (exit 130 or 143)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import NardtoolsError
from .diagram import diagram
from .tutor import Session


def play_in_terminal(session: Session, save_to: Path, *, interactive: bool,
                     ask: Callable[[str], str] = input, say: Callable[[str], None] = print) -> None:
    """Run ``session`` to its end, reading commands with ``ask`` and writing
    lines with ``say``; ``interactive`` draws the board before each question
    (a script gets the lines alone).  The record goes to ``save_to``."""

    def show(lines: list[str]) -> None:
        for line in lines:
            if interactive and line.startswith(("position: ", "cube: ")):
                say(diagram(session.setup(), session.names, text_letters=True))
            say(line)

    try:
        show(session.start())
        while not session.finished:
            try:
                text = ask("> " if interactive else "")
            except EOFError:
                break
            try:
                show(session.command(text))
            except NardtoolsError as e:  # a command out of place: said, and nothing changes
                say(f"error: {e}")
    finally:
        show(session.finish(save_to))
