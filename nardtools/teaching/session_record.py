"""The record of a :class:`~.tutor.Session`: its games as native text, and
saving it so that a game played is never lost."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from .._io import write_atomically
from ..errors import ConversionError
from ..notation.convert import convert
from ..notation.native import tag_line
from ..notation.reading import read_record
from ..notation.replay import replay_match
from ..position import PLAYER_NAMES

if TYPE_CHECKING:
    from .tutor import Session


def record_text(session: Session) -> str:
    """The session's games in the native format, the tutor's findings as comments."""
    blocks = []
    for game, lines in session.games:
        tags = [("Game", session.rules.game.value), ("Ruleset", session.ruleset.name), ("X", session.names[0]),
                ("O", session.names[1]), ("MatchLength", str(session.length)),
                ("Score", f"{game.score[0]}-{game.score[1]}")]
        o = game.outcome
        result = (f"{PLAYER_NAMES[o.winner]} wins {o.points} point{'s' if o.points != 1 else ''} ({o.kind})"
                  if o is not None else "*")
        head = "\n".join(tag_line(k, v) for k, v in [*tags, ("Result", result)])
        blocks.append(head + "\n\n" + "\n".join(_numbered(lines)) + f"\n{result}\n")
    return "\n".join(blocks)


def save_record(session: Session, path: Path) -> list[str]:
    """Write the record to ``path`` (native, or ``.mat``/``.sgf`` by its
    suffix) atomically and say where it went, as lines.

    A game played is never lost: where ``path`` cannot be written (its
    folder removed, no room, no permission) the record goes to the same
    name in the current folder, then in the system's temporary folder,
    and the lines say so; where nothing can be written at all, the
    record itself is among the lines, to copy from the screen.  A format
    that cannot hold the record is written natively (``.nrd``) instead."""
    text, said = record_text(session), []
    suffix = path.suffix.lower()
    if suffix in (".mat", ".sgf"):
        try:
            text, _ = convert(replay_match(read_record("session.nrd", text)), suffix[1:])
        except ConversionError as e:
            path = path.with_suffix(".nrd")
            said.append(f"not saved as {suffix}: {e}; saved natively instead")
    failed: list[str] = []
    for place in dict.fromkeys([path, Path.cwd() / path.name, Path(tempfile.gettempdir()) / path.name]):
        try:
            write_atomically(place, text)
        except OSError as e:
            failed.append(f"{place}: {e.strerror or e}")
            continue
        if failed:
            said.append(f"could not save to {'; nor to '.join(failed)}")
        return [*said, f"saved: {place}"]
    return [*said, f"could not save to {'; nor to '.join(failed)}; the record follows, to copy:",
            *text.splitlines(), "not saved"]


def _numbered(lines: list[str]) -> list[str]:
    """A game's record lines with move numbers before the rolls: the number
    goes up each time the side that began plays again, as in every record."""
    out, number, starter = [], 0, None
    for line in lines:
        side, _, rest = line.partition(" ")
        if side in PLAYER_NAMES and rest[:2].isdigit() and rest[2:3] == ":":  # "X 53: ..."
            starter = side if starter is None else starter
            number += side == starter
            line = f"{number}. {line}"
        out.append(line)
    return out
