"""What can be said of every turn of a replayed game: the automatic annotations.

For each play :func:`annotate_game` gives a :class:`TurnNote`: the dice and the
play, pip counts before and after, how many legal plays there were (a *forced*
move had one), the dice used and lost, the record's comments and glyphs, and
the rule when the record's play was illegal but applied (a lenient replay).

In a race (no contact left; see :func:`~nardtools.analysis.pips.is_race`)
whose both sides fit the bear-off database, the race figures are exact:

- ``equity_before``: the cubeless race equity of the side on roll before it
  rolls: every outcome's probability times its points under the ruleset's
  scoring table, at cube 1 (a single, a gammon or mars, a home mars: under
  ``nardionline`` a home mars is worth 3; no backgammon is possible once both
  sides are home);
- ``equity_best`` / ``equity_after``: after the roll, played best / as played
  (the opponent's odds with the opponent on roll, from the mover's side);
- ``luck = equity_best - equity_before``: what the roll gave or took;
- ``race_error = equity_best - equity_after``: what the play lost.

Outside the database these are left empty (``None``) rather than guessed:
one-sided rollouts would make the error figures noise.  ``race_points``
widens the database (8 or 10 points; built once and cached).

>>> from nardtools.notation.mat import replay_text
>>> text = " 1 point match\\n\\n Game 1\\n A : 0    B : 0\\n  1) 31: 8/5 6/5    42: 8/4 6/4\\n"
>>> notes = annotate_game(replay_text(text).games[0])
>>> [(n.dice, n.play, n.legal_plays, n.pips_after) for n in notes]
[('31', '8/5 6/5', 16, (163, 167)), ('42', '8/4 6/4', 14, (161, 163))]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..engine import legal_plays
from ..notation.replay import ReplayedGame
from ..play import Step
from ..position import Position
from ..rules import Rules
from .pips import is_race
from .race import expected_points, fits, race_odds

#: Race equities closer than this are a tie (the bear-off database's odds
#: carry about seven digits): a play that ties the best loses nothing, and
#: never shows a race error such as 1e-9.
RACE_TIE = 1e-6


@dataclass(frozen=True)
class TurnNote:
    """One play and what is known of it; see the module docstring."""

    game: int
    turn: int  # the record's move number
    index: int  # 0-based position of this play in the game
    player: int
    dice: str  # e.g. "63", or "+55" for dice carried over
    play: str  # canonical
    written: str  # as the record wrote it ("" when it writes no text of its own: SGF)
    before: Position
    after: Position
    pips_before: tuple[int, int]  # (mover, opponent)
    pips_after: tuple[int, int]  # (mover, opponent)
    legal_plays: int
    forced: bool
    dice_used: int
    dice_lost: int
    legal: bool
    rule: str = ""  # the rule that fired when an illegal play was applied
    comments: tuple[str, ...] = ()
    glyphs: tuple[str, ...] = ()
    persian: str = ""  # the roll's Persian name (seed 001), when it is a roll
    race: bool = False
    race_exact: bool = False
    equity_before: float | None = None
    equity_best: float | None = None
    equity_after: float | None = None
    pwin_before: float | None = None
    pwin_after: float | None = None
    best_play: str = ""
    cube: int = 1
    steps: tuple[Step, ...] = ()  # the play's steps, one per die, in the mover's numbering

    @property
    def luck(self) -> float | None:
        """What the roll gave (positive) or took, in race equity."""
        if self.equity_best is None or self.equity_before is None:
            return None
        return self.equity_best - self.equity_before

    @property
    def race_error(self) -> float | None:
        """Race equity lost by the play against the best one (0 for the best)."""
        if self.equity_best is None or self.equity_after is None:
            return None
        return max(0.0, self.equity_best - self.equity_after)

    def as_dict(self) -> dict[str, Any]:
        """Plain values (positions as text) for JSON and tables."""
        d = asdict(self)
        d["before"], d["after"] = str(self.before), str(self.after)
        d["luck"], d["race_error"] = self.luck, self.race_error
        d["steps"] = [str(step) for step in self.steps]
        return d


def race_equity(position: Position, db_points: int = 6, rules: Rules | None = None) -> tuple[float, float] | None:
    """``(equity, P(win))`` of the side on roll when ``position`` is a race
    with both sides in the ``db_points`` bear-off database, else None.  The
    equity is every outcome's probability times its points under the scoring
    table of ``rules`` (default: the game's usual ruleset), as
    :func:`.race.expected_points` values them."""
    if not (fits(position.mover, db_points) and fits(position.opponent, db_points) and is_race(position)):
        return None
    odds = race_odds(position, db_points=db_points, rules=rules)
    odds.p_win = min(1.0, max(0.0, odds.p_win))  # (sums of float32 distributions)
    return expected_points(odds, position, rules), odds.p_win


def annotate_game(replayed: ReplayedGame, *, race_points: int = 6, race: bool = True) -> list[TurnNote]:
    """The :class:`TurnNote` of every play of ``replayed``; see the module docstring."""
    rules = replayed.game.rules
    problems = {(p.line, p.col): p.rule for p in replayed.problems}
    notes = []
    for i, t in enumerate(replayed.turns):
        a = t.action
        assert t.dice is not None
        roll = a.roll if not a.part else None
        dice = "".join(map(str, t.dice.dice)) if not roll else f"{roll.high}{roll.low}"
        plays = legal_plays(t.before, t.dice, rules, first_turn=t.first_turn)
        used = len(t.play.steps)
        figures: dict[str, Any] = {}
        if race and is_race(t.before):
            figures["race"] = True
            before = race_equity(t.before, race_points, rules)
            after = race_equity(t.after, race_points, rules)
            if before is not None and after is not None:
                best_equity, best = -9.0, ""
                for lp in plays:
                    e = race_equity(lp.result, race_points, rules)
                    assert e is not None  # a race stays a race, and no checker leaves home
                    if -e[0] > best_equity:
                        best_equity, best = -e[0], str(lp.play)
                if best_equity - (-after[0]) < RACE_TIE:  # a tie with the best: the play made is a best play
                    best, best_equity = str(t.play), -after[0]
                figures.update(race_exact=True, equity_before=before[0], pwin_before=before[1],
                               equity_after=-after[0], pwin_after=1 - after[1],
                               equity_best=best_equity, best_play=best)
        notes.append(TurnNote(
            game=replayed.record.number, turn=a.number, index=i, player=a.player,
            dice=("+" + dice) if a.part else dice, play=str(t.play),
            written="" if a.by_effect else a.play or "",  # (SGF writes moves, not a play's text)
            before=t.before, after=t.after, pips_before=t.before.pips(), pips_after=t.after.flip().pips(),
            legal_plays=len(plays), forced=len(plays) == 1, dice_used=used,
            dice_lost=max(0, len(t.dice.dice) - used), legal=t.legal,
            rule="" if t.legal else problems.get((a.line, a.play_col), "condoned"),
            comments=a.before + a.after, glyphs=a.glyphs,
            persian=roll.persian_name if roll else "", cube=t.cube, steps=t.play.steps, **figures))
    return notes
