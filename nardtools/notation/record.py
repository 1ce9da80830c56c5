"""Game records as read from a file: located, not yet judged.

A reader turns text into these values (syntax only); :mod:`nardtools.notation.replay`
asks the rules engine whether the record is legal.  Every action keeps the
line and column it was read from, so an error can point at it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..dice import Roll
from ..errors import NardtoolsError
from ..position import Position

#: Syntax problems a reader reports in one file before it stops reading it.
MAX_ERRORS = 1000

#: The tag of a game whose opening throw tied and doubled the cube
#: automatically (``Rules.auto_doubles``): how many times.  Records leave out
#: the tied throws, so without it the cube of such a game is unknown.  It
#: belongs to one game in every format (in ``.mat`` a comment after the score line).
AUTO_DOUBLES = "AutoDoubles"


class RecordError(NardtoolsError, ValueError):
    """A record that cannot be read, with its location.  ``severity`` is
    ``"warning"`` for what a reader skipped with a note and went on."""

    def __init__(self, message: str, *, path: str = "", line: int = 0, col: int = 0,
                 source_line: str = "", severity: str = "error") -> None:
        where = f"{path or '<text>'}:{line}:{col}: " if line else f"{path}: " if path else ""
        super().__init__(f"{where}{message}")
        self.path, self.line, self.col, self.source_line = path, line, col, source_line
        self.bare_message = message
        self.severity = severity


class ActionKind(str, enum.Enum):
    """What one cell of a record says."""

    ROLL = "roll"  # dice and the play made with them (possibly none)
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    WIN = "win"  # "Wins N points": after a bear-off, a drop or a resignation
    LOSE = "lose"  # "Losses N point" (Backgammon Galaxy): informational
    RESIGN = "resign"  # "Resigns", or "????" after the dice
    SET_BOARD = "set-board"  # a board edit: Snowie's "Illegal play (...)" (with the dice), XG's "; Set Pos="

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Review:
    """An analysis a record carries for one action, as another program stored
    it (GNU Backgammon's ``A``, ``DA`` and ``LU`` properties in SGF).

    ``plays`` are the candidate plays the analysis ranked, each as written
    (``"24/18 18/14"``, no hit marks) with its equity for the mover, in the
    order stored; ``played`` is the index of the play made among them.
    ``luck`` is the luck of the roll.  ``cube``, when the cube decision before
    the roll was analysed: the cubeless equity, and the cubeful values of no
    double and of double/take as the program stored them (GNU Backgammon:
    equities in money play, match winning chances in a match).  ``raw`` keeps
    the properties exactly as read, so that writing the record back in the
    same format loses nothing.
    """

    evaluator: str = ""
    plays: tuple[tuple[str, float], ...] = ()
    played: int | None = None
    luck: float | None = None
    cube: tuple[float, float, float] | None = None
    raw: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def best(self) -> tuple[str, float] | None:
        """The best candidate play and its equity."""
        return max(self.plays, key=lambda p: p[1]) if self.plays else None

    @property
    def error(self) -> float | None:
        """Equity the play made lost against the best candidate (>= 0)."""
        best = self.best
        if best is None or self.played is None or not 0 <= self.played < len(self.plays):
            return None
        return max(0.0, best[1] - self.plays[self.played][1])

    def cube_text(self, money: bool, label: str = "cube") -> str:
        """The cube decision before the roll, after ``label``, or ``""``.

        >>> Review("gnubg 2-ply", cube=(0.41, 0.52, 0.49)).cube_text(money=True)
        'cube (gnubg 2-ply): no double +0.520, double/take +0.490 (cubeful equities); cubeless equity +0.410'
        """
        if self.cube is None:
            return ""
        cubeless, no_double, take = self.cube
        if money:
            values = f"no double {no_double:+.3f}, double/take {take:+.3f} (cubeful equities)"
        else:
            values = (f"no double {100 * no_double:.1f}%, double/take {100 * take:.1f}% "
                      "(cubeful match winning chances)")
        return f"{label} ({self.evaluator}): {values}; cubeless equity {cubeless:+.3f}"

    def text(self, money: bool) -> str:
        """The review as a reader wants it, on one line: the best play and its
        equity, the play made and what it lost, the luck, the cube decision.
        A handout writes it as a comment (the raw data goes elsewhere).

        >>> r = Review("gnubg 0-ply", (("24/18 18/14", 0.05), ("24/14", -0.02)), played=1, luck=0.031)
        >>> r.text(money=True)
        'gnubg 0-ply: best 24/18 18/14 +0.050; played 24/14 -0.020, lost 0.070; luck +0.031'
        """
        parts = []
        best = self.best
        if best is not None:
            played = self.plays[self.played] if self.played is not None and 0 <= self.played < len(self.plays) \
                else None
            if played is None or played == best:
                parts.append(f"best {best[0]} {best[1]:+.3f}" + ("" if played is None else " (played)"))
            else:
                parts.append(f"best {best[0]} {best[1]:+.3f}; played {played[0]} {played[1]:+.3f}, "
                             f"lost {self.error:.3f}")
        if self.luck is not None:
            parts.append(f"luck {self.luck:+.3f}")
        if self.cube is not None:
            parts.append(self.cube_text(money))
        return f"{self.evaluator}: " + "; ".join(parts) if parts else ""


@dataclass(frozen=True, slots=True)
class Action:
    """One located cell: ``player`` 0 is the left (first-named) player."""

    player: int
    kind: ActionKind
    line: int
    col: int
    number: int = 0  # the move number of the line, 0 when none
    roll: Roll | None = None
    play: str | None = None  # the play text as written; None for no play cell
    play_col: int = 0  # column of the play text
    value: int = 0  # cube value offered, or points won/lost
    match_won: bool = False
    dice_order: tuple[int, int] | None = None  # dice as written (for round trips)
    part: tuple[int, ...] = ()  # dice that are not a new roll: the rest of a crazy sequence,
    #                             or the opponent's unplayed dice (gul-bara); written "+55:"
    note: str = ""  # the outcome kind written with a result, e.g. "mars"
    before: tuple[str, ...] = ()  # comments before the action
    after: tuple[str, ...] = ()  # comments after it
    glyphs: tuple[str, ...] = ()  # annotation glyphs: ! ? !! ?? !? ?!
    variations: tuple[tuple[Action, ...], ...] = ()  # alternatives from the position before it
    board: Position | None = None  # SET_BOARD: the position from then on; its ``player`` rolls next
    review: Review | None = None  # an analysis stored with the action (SGF)
    by_effect: bool = False  # the play says where checkers went, not in which order (SGF): see the replay


@dataclass
class GameRecord:
    """One game of a match: players' score before it and its actions."""

    number: int
    score: tuple[int, int]
    line: int
    actions: list[Action] = field(default_factory=list)
    tags: list[tuple[str, str]] = field(default_factory=list)  # native format: the game's own tags
    closing: tuple[str, ...] = ()  # comments after the last action

    @property
    def result(self) -> Action | None:
        """The ``Wins`` action that ends the game, if the record has one."""
        wins = [a for a in self.actions if a.kind is ActionKind.WIN]
        return wins[-1] if wins else None

    def rows(self) -> list[tuple[int, Action | None, Action | None]]:
        """The actions laid out as numbered rows of a left (player 0) and a right
        (player 1) cell, as both writers print them; results are left out.  A
        board edit without dice (XG's ``Set Pos``) is a row of its own,
        numbered 0, and ends the row before it."""
        rows: list[tuple[int, Action | None, Action | None]] = []
        numbered = 0
        for a in self.actions:
            if a.kind in (ActionKind.WIN, ActionKind.LOSE):
                continue
            if a.kind is ActionKind.SET_BOARD and a.roll is None:
                rows.append((0, a, None))
                continue
            if a.player == 0 or not rows or rows[-1][2] is not None or rows[-1][0] == 0:
                numbered += 1
                number = numbered
                rows.append((number, a, None) if a.player == 0 else (number, None, a))
            else:
                rows[-1] = (rows[-1][0], rows[-1][1], a)
        return rows


@dataclass
class MatchRecord:
    """A whole file: tags, comments, the match length, the games."""

    path: str = ""
    format: str = "mat"
    length: int = 0
    players: tuple[str, str] = ("", "")
    tags: list[tuple[str, str]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    games: list[GameRecord] = field(default_factory=list)
    errors: list[RecordError] = field(default_factory=list)  # syntax problems found while reading
    encoding: str = "utf-8"  # the text encoding the file was read in
    encoding_why: str = ""  # how it was chosen: detected from what, or given

    @property
    def names(self) -> tuple[str, str]:
        """The players' names, ``X`` and ``O`` standing in for missing ones."""
        return (self.players[0] or "X", self.players[1] or "O")

    def tag(self, key: str, default: str = "") -> str:
        """The value of the last tag named ``key`` (case-insensitive)."""
        for k, v in reversed(self.tags):
            if k.lower() == key.lower():
                return v
        return default
