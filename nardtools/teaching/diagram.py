"""Text diagrams of positions: GNU Backgammon's frame, and a Long Nardy frame.

:func:`diagram` draws a :class:`~nardtools.notation.ids.Setup` (a position with
dice, cube and score).  Backgammon positions come out in GNU Backgammon's own
``show board`` frame, character for character (the Position ID and Match ID
lines, checkers as ``X``/``O`` with counts above five written ``6``..``F``, the
bar, the borne-off checkers, the side on roll, score and cube in the margin).
GNU Backgammon draws the record's first (left) player, our player 0, as ``O``
on top, and the second as ``X`` at the bottom; points are numbered from the
view of the side on roll, whose direction the ``v``/``^`` arrow shows.

>>> from nardtools.setup import Setup
>>> from nardtools import Position
>>> for line in diagram(Setup(Position.start(), dice=(3, 1)), names=("gnubg", "root")).splitlines():
...     print(line.rstrip())
 GNU Backgammon  Position ID: 4HPwATDgc/ABMA
                 Match ID   : MIEFAAAAAAAA
 +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: gnubg
 | X           O    |   | O              X |     0 points
 | X           O    |   | O              X |     Rolled 31
 | X           O    |   | O                |
 | X                |   | O                |
 | X                |   | O                |
^|                  |BAR|                  |     (Cube: 1)
 | O                |   | X                |
 | O                |   | X                |
 | O           X    |   | X                |
 | O           X    |   | X              O |
 | O           X    |   | X              O |     0 points
 +13-14-15-16-17-18------19-20-21-22-23-24-+     X: root

(The example strips trailing blanks; :func:`diagram` keeps GNU Backgammon's.)

Long Nardy (длинные нарды) has no bar and no hitting, and both sides travel the
same way round; its frame keeps the same shape, from the view of the side on
roll: that side's head (голова, point 24) at the top right and its home (дом,
points 1-6) at the bottom right; the opponent's head is at the bottom left, its
home at the top left.  It is nardtools' own frame, so its checkers are drawn
with the letters of the position text (player 0 ``X``, player 1 ``O``), and
the legend names each side by its letter.

In GNU Backgammon's frame the letters are GNU Backgammon's: our ``X`` is drawn
``O``.  A side without a name is labelled by its letter in the position text
(``O: player X``), so that the two conventions cannot be confused.

``unicode=True`` redraws either frame with box-drawing characters and ``●``/``○``,
the legend too (``●`` for the side drawn ``X``, ``○`` for ``O``).
"""

from __future__ import annotations

from typing import Sequence

from ..notation.ids import game_id
from ..position import PLAYER_NAMES, GameKind, Position
from ..setup import Setup

#: The letter each player's checkers are drawn with in GNU Backgammon's frame
#: (the record's first player, player 0, is ``O``); the Long Nardy frame uses
#: the position text's letters (:data:`~nardtools.position.PLAYER_NAMES`).
MARKS = ("O", "X")
#: The characters of the fifth row: a point's count when it has more than five.
_COUNT_CHARS = "     ?6789ABCDEF"
_RESULTS = ("single game", "gammon", "backgammon")
_BOX = str.maketrans({"+": "┼", "-": "─", "|": "│"})
_ROUND = str.maketrans({"X": "●", "O": "○"})


def diagram(setup: Setup | Position, names: Sequence[str] = ("", ""), *, unicode: bool = False,
            text_letters: bool = False) -> str:
    """The text diagram of ``setup``; see the module docstring.  ``names`` are
    the players' names (player 0 first).  ``text_letters`` draws GNU
    Backgammon's frame with the position text's letters (player 0 ``X``), as
    ``play`` does, where the prompt's position text calls the learner by them."""
    if isinstance(setup, Position):
        setup = Setup(setup)
    if setup.position.kind is GameKind.LONG:
        text = _long_frame(setup, names)
    else:
        text = _gnubg_frame(setup, [name or f"player {PLAYER_NAMES[i]}" for i, name in enumerate(names)])
        if text_letters:
            text = _text_letters(text)
    return _unicode(text) if unicode else text


def _text_letters(text: str) -> str:
    """GNU Backgammon's frame with ``X`` and ``O`` swapped on the board and in
    the legend's letters (the first 50 columns below the ID lines), never in
    a name."""
    swap = str.maketrans("XO", "OX")
    lines = text.split("\n")
    return "\n".join(lines[:2] + [line[:50].translate(swap) + line[50:] for line in lines[2:]])


def _points(position: Position) -> tuple[list[int], list[int], int, int]:
    """Player 1's checkers by its own point (index 0 = point 1, 24 = bar), then
    player 0's; and how many each has borne off (player 1, player 0)."""
    mine, theirs = position.side_of(1), position.side_of(0)
    x = [mine[p] for p in range(1, 25)] + [mine[25]]
    o = [theirs[p] for p in range(1, 25)] + [theirs[25]]
    return x, o, mine[0], theirs[0]


def _cell(x: list[int], o: list[int], i: int, row: int) -> str:
    """One point of the drawing, ``i`` from player 1's view; ``row`` 4 is the
    count row."""
    if row == 4:
        n, mark = (x[i], "X") if x[i] else (o[23 - i], "O")
        return " " + (mark if n == 5 else _COUNT_CHARS[n] if n > 5 else " ") + " "
    return " X " if x[i] > row else " O " if o[23 - i] > row else "   "


def _bar(n: int, mark: str, row: int) -> str:
    if row == 4:
        return mark if n == 5 else _COUNT_CHARS[n] if n > 5 else " "
    return mark if n > row else " "


def _off(n: int, mark: str, row: int) -> str:
    return "".join(mark if n > 5 * col + row else " " for col in range(3))


def _points_word(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _match_words(length: int) -> str:
    return "1 point match" if length == 1 else f"{length} points match"


def _margin(setup: Setup, names: Sequence[str]) -> list[str]:
    """The seven margin strings, top (player 0) to bottom (player 1)."""
    margin = [f"O: {names[0]}", _points_word(setup.score[0]), "", "", "", _points_word(setup.score[1]),
              f"X: {names[1]}"]
    state = ""
    if setup.double_offered:
        # the side that must answer the double is the one not on roll
        margin[4 if setup.on_roll == 0 else 2] = f"Cube offered at {setup.cube * 2}"
    else:
        if setup.dice:
            state = f"Rolled {setup.dice[0]}{setup.dice[1]}"
        elif not setup.position.is_finished():
            state = "On roll"
        if setup.cube_owner is None:
            cube = "(Crawford game)" if setup.crawford else f"(Cube: {setup.cube})"
            margin[3] = (_match_words(setup.match_length) + " " if setup.match_length else "") + cube
        else:
            owner = setup.cube_owner
            margin[6 if owner else 0] = f"{MARKS[owner]}: {names[owner]} (Cube: {setup.cube})"
            if setup.match_length:
                margin[3] = _match_words(setup.match_length)
    if setup.resigned:
        state += f", resigns {_RESULTS[setup.resigned - 1]}"
    if not setup.double_offered:
        margin[4 if setup.on_roll == 1 else 2] = state
    return margin


def _gnubg_frame(setup: Setup, names: Sequence[str]) -> str:
    x, o, off_x, off_o = _points(setup.position)
    margin = _margin(setup, names)
    x_on_roll = setup.on_roll == 1
    high = " +13-14-15-16-17-18------19-20-21-22-23-24-+     "
    low = " +12-11-10--9--8--7-------6--5--4--3--2--1-+     "
    lines = [f" GNU Backgammon  Position ID: {setup.position_id}",
             f"                 Match ID   : {setup.match_id}",
             (high if x_on_roll else low) + margin[0]]
    for row in range(5):  # the top half, player 1's points 13..24
        line = (" |" + "".join(_cell(x, o, i, row) for i in range(12, 18)) + "| " + _bar(o[24], "O", row)
                + " |" + "".join(_cell(x, o, i, row) for i in range(18, 24)) + "| " + _off(off_o, "O", row))
        if row < 4:
            line += " " + (margin[row + 1] if row < 2 else "")
        lines.append(line)
    lines.append(("v" if x_on_roll else "^") + "|                  |BAR|                  |     " + margin[3])
    for row in (4, 3, 2, 1, 0):  # the bottom half, player 1's points 12..1
        line = (" |" + "".join(_cell(x, o, i, row) for i in range(11, 5, -1)) + "| " + _bar(x[24], "X", row)
                + " |" + "".join(_cell(x, o, i, row) for i in range(5, -1, -1)) + "| " + _off(off_x, "X", row))
        if row < 4:
            line += " " + (margin[5 - row] if row < 2 else "")
        lines.append(line)
    lines.append((low if x_on_roll else high) + margin[6])
    return "\n".join(lines) + "\n"


def _long_cell(mover: tuple[int, ...], opponent: tuple[int, ...], point: int, row: int,
               marks: tuple[str, str]) -> str:
    """Point ``point`` (the mover's numbering) of a Long Nardy frame."""
    theirs = GameKind.LONG.opponent_point(point)
    n, mark = (mover[point], marks[0]) if mover[point] else (opponent[theirs], marks[1])
    if row == 4 and n > 5:
        return f"{n:>2} "
    return f" {mark} " if n > row else "   "


def _long_frame(setup: Setup, names: Sequence[str]) -> str:
    """Long Nardy, drawn from the view of the side on roll (see the module docstring)."""
    p = setup.position
    me, them = p.player, 1 - p.player
    marks = (PLAYER_NAMES[me], PLAYER_NAMES[them])

    def who(i: int) -> str:
        return f"{PLAYER_NAMES[i]}: {names[i]}" if names[i] else PLAYER_NAMES[i]

    pips = p.pips()
    state = (f"rolled {setup.dice[0]}{setup.dice[1]}" if setup.dice
             else "on roll" if not p.is_finished() else "game over")
    middle = (f"{setup.score[0]}-{setup.score[1]} in a {setup.match_length} point match" if setup.match_length
              else "money game")
    if setup.cube != 1 or setup.cube_owner is not None:
        middle += f", cube {setup.cube}" + ("" if setup.cube_owner is None else f" ({PLAYER_NAMES[setup.cube_owner]})")
    top = [f"pips {pips[1]}, off {p.opponent[0]}", "its head: 12 (its 24)", "its home: 13-18", "", ""]
    bottom = ["head: 24", "home: 1-6", "", f"pips {pips[0]}, off {p.mover[0]}", state]

    def half(points: range, row: int) -> str:
        return "".join(_long_cell(p.mover, p.opponent, q, row, marks) for q in points)

    lines = [f" Long Nardy      Position ID: {game_id(setup)}",
             " +13-14-15-16-17-18------19-20-21-22-23-24-+     " + who(them)]
    for row in range(5):
        lines.append(" |" + half(range(13, 19), row) + "|   |" + half(range(19, 25), row) + "|     "
                     + top[row])
    lines.append(" |                  |   |                  |     " + middle)
    for i, row in enumerate((4, 3, 2, 1, 0)):
        lines.append(" |" + half(range(12, 6, -1), row) + "|   |" + half(range(6, 0, -1), row) + "|     "
                     + bottom[i])
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+     " + who(me))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _unicode(text: str) -> str:
    """Box-drawing characters and round checkers (not GNU Backgammon's frame any more)."""
    lines = text.splitlines()
    frame = [i for i, line in enumerate(lines) if line[1:2] in ("|", "+")]
    for i, line in enumerate(lines):  # the legend: "X: name" becomes "●: name"
        legend = line[49:]
        if legend[:2] in ("X:", "O:") or legend in ("X", "O"):
            lines[i] = line[:49] + legend.translate(_ROUND)
    for i in frame:
        board = lines[i][:49].translate(_ROUND).translate(_BOX)
        if i == frame[0]:
            board = board.replace("┼", "┌", 1)[::-1].replace("┼", "┐", 1)[::-1]
        elif i == frame[-1]:
            board = board.replace("┼", "└", 1)[::-1].replace("┼", "┘", 1)[::-1]
        lines[i] = board + lines[i][49:]
    return "\n".join(lines) + "\n"
