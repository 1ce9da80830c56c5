"""The rules engine: legal plays for a position and roll.

One generator serves the whole family; what differs between games lives in
:class:`~nardtools.rules.Rules` options.  A turn is never built greedily die by
die: every sequence of steps is explored (with memoisation), the end-of-turn
rules filter the results, then the maximum-dice and larger-die rules choose
among what is left.

>>> from nardtools import Position, Roll, find_ruleset
>>> long = find_ruleset("long").rules
>>> [str(p.play) for p in legal_plays(Position.start("long"), Roll(6, 6), long)]
['24/18(2)']

The search is :mod:`.turn`'s; the check of one written play, :mod:`.judge`'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .core import reference_engine as reference_engine  # (part of this module's interface)
from .dice import Dice, Roll
from .play import Play
from .position import BAR, Position
from .rules import RulesLike
from .turn import Candidate, RolledTurn, candidate_play, legal_ends


@dataclass(frozen=True, slots=True)
class LegalPlay:
    """A legal play and the position it leads to (the opponent then on roll)."""

    play: Play
    result: Position

    def __str__(self) -> str:
        return str(self.play)


class LegalPlays(Sequence[LegalPlay]):
    """The legal plays of one roll: one per distinct resulting position.

    Supports ``len``, iteration, indexing, ``in`` (for a :class:`Play`, its text,
    or a resulting :class:`Position`) and :meth:`find`.  Plays are built on
    first access, so counting or sampling them stays cheap.
    """

    def __init__(self, chosen: Sequence[Candidate], turn: RolledTurn) -> None:
        self._chosen = chosen
        self._turn = turn
        self._plays: list[LegalPlay | None] = [None] * len(chosen)
        self._by_result: dict[Position, LegalPlay] | None = None
        self.position, self.roll, self.rules = turn.position, turn.roll, turn.rules
        self.first_turn = turn.first_turn

    def __len__(self) -> int:
        return len(self._chosen) or 1

    def _make(self, i: int) -> LegalPlay:
        if not self._chosen:  # nothing can be played: the empty play
            return LegalPlay(Play(()), self.position.flip())
        lp = self._plays[i]
        if lp is None:
            c = self._chosen[i]
            lp = self._plays[i] = LegalPlay(candidate_play(c), self._turn.result(c.me, c.hits))
        return lp

    def result_rows(self) -> Any:
        """The plays' results, in order, as the (n, 52) int8 board rows an
        evaluator reads (the side then on roll first: see
        :func:`nardtools.analysis.rows.boards_of`), without making the plays:
        a ranking values every result and names only a few plays.

        >>> plays = legal_plays(Position.start("backgammon"), Roll(6, 5))
        >>> rows = plays.result_rows()
        >>> [tuple(r) for r in rows] == [tuple(lp.result.mover) + tuple(lp.result.opponent) for lp in plays]
        True
        """
        import numpy as np

        if not self._chosen:
            flipped = self.position.flip()
            return np.array([tuple(flipped.mover) + tuple(flipped.opponent)], np.int8)
        rows = np.empty((len(self._chosen), 52), np.int8)
        rows[:, :26] = self._turn.opp
        rows[:, 26:] = [c.me for c in self._chosen]
        qmap = self._turn.qmap
        for i, c in enumerate(self._chosen):
            for t in c.hits:   # (as RolledTurn.result: each checker hit goes to the bar)
                rows[i, qmap[t]] -= 1
                rows[i, BAR] += 1
        return rows

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            return [self._make(j) for j in range(len(self))[i]]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return self._make(i % len(self))

    def __iter__(self) -> Iterator[LegalPlay]:
        return (self._make(i) for i in range(len(self)))

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Position):
            return self.find(item) is not None
        if isinstance(item, (Play, str)):
            from .judge import check_play

            return check_play(self.position, self.roll, item, self.rules,
                              first_turn=self.first_turn).legal
        return False

    def find(self, result: Position) -> LegalPlay | None:
        """The legal play leading to ``result``, if any."""
        if self._by_result is None:
            self._by_result = {p.result: p for p in self}
        return self._by_result.get(result)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``nardtools moves``: the position, the dice, and every play with its result."""
        return {"position": str(self.position), "dice": str(self.roll), "count": len(self),
                "plays": [{"play": str(p.play), "result": str(p.result)} for p in self]}

    @property
    def is_forced(self) -> bool:
        """True when there is exactly one legal play (possibly the empty one)."""
        return len(self) == 1

    def __repr__(self) -> str:
        return f"<LegalPlays for {self.roll} ({len(self)}): {', '.join(str(p) or '-' for p in self)}>"


def legal_plays(position: Position, roll: Roll | Dice, rules: RulesLike = None, *,
                first_turn: bool | None = None) -> LegalPlays:
    """All legal plays for ``roll``: one per distinct resulting position.

    ``first_turn`` says whether this is the side's first turn of the game (it
    matters for the Long Nardy head exception); ``None`` infers it from the
    position: all of the side's checkers still on the head.  When nothing can
    be played the result holds one empty play.

    >>> from nardtools import find_ruleset
    >>> bg = find_ruleset("backgammon").rules
    >>> plays = legal_plays(Position.start(), Roll(3, 1), bg)
    >>> len(plays), str(plays[0])
    (16, '24/23 24/21')
    """
    turn = RolledTurn(position, roll, rules, first_turn)
    return LegalPlays(legal_ends(turn), turn)
