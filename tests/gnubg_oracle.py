"""Running GNU Backgammon as an oracle (tests skip when it is absent)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Sequence

from nardtools.notation.ids import Setup

HERE = Path(__file__).resolve().parent
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)

_HEAD = " GNU Backgammon  Position ID:"


def gnubg_show_board(setup: Setup, names: Sequence[str]) -> str:
    """GNU Backgammon's ``show board`` for ``setup``, set through its Position
    ID and Match ID (the last board gnubg prints)."""
    assert GNUBG is not None
    length = setup.match_length
    script = "\n".join([
        "set player 0 human", "set player 1 human",
        f"new match {length}" if length else "new session",
        f"set player 0 name {names[0]}", f"set player 1 name {names[1]}",
        f"set matchid {setup.match_id}", f"set board {setup.position_id}", "show board", ""])
    out = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    start = out.rindex(_HEAD)
    lines = out[start:].split("\n")[:15]
    return "\n".join(lines) + "\n"
