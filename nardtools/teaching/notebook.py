"""Pictures in notebooks: a position and a game as their board, a replayed
match as its replay page.

The values do not draw themselves (a value type imports nothing above it);
instead, when nardtools is imported inside IPython or Jupyter, :func:`register`
tells the running shell's display formatters how to show them, by type name,
so that nothing is imported before an object is shown.
"""

from __future__ import annotations

import html
import sys
from typing import Any


def position_svg(position: Any) -> str:
    """The board of a :class:`~nardtools.position.Position` (SVG text; no network, no files)."""
    from .board_image import board_image

    return board_image(position).decode("utf-8")


def game_svg(game: Any) -> str:
    """The board of a :class:`~nardtools.game.Game` with its dice, cube and score."""
    from ..dice import Roll
    from ..setup import Setup
    from .board_image import board_image

    dice = (game.dice.high, game.dice.low) if isinstance(game.dice, Roll) else None
    setup = Setup(game.position, dice=dice, cube=game.cube, cube_owner=game.cube_owner,
                  match_length=game.match_length, score=game.score, crawford=game.crawford)
    return board_image(setup, cube=game.rules.cube).decode("utf-8")


def match_html(match: Any) -> str:
    """The replay page of a :class:`~nardtools.notation.replay.ReplayedMatch`,
    in a sandboxed frame (self-contained; no network)."""
    from .replay import replay_html

    page = replay_html(match)
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" style="width:100%;height:760px;border:0" '
            'sandbox="allow-scripts"></iframe>')


#: (MIME type, module, class, how to show it)
SHOWN = (("image/svg+xml", "nardtools.position", "Position", position_svg),
         ("image/svg+xml", "nardtools.game", "Game", game_svg),
         ("text/html", "nardtools.notation.replay", "ReplayedMatch", match_html))


def register(shell: Any = None) -> bool:
    """Tell an IPython shell (default: the running one, if any) how to show
    nardtools' values; False when there is none."""
    if shell is None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return False
    formatters = shell.display_formatter.formatters
    for mime, module, name, show in SHOWN:
        formatters[mime].for_type_by_name(module, name, show)
    return True
