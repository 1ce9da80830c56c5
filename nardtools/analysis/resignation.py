"""A recorded resignation (сдача) judged as GNU Backgammon judges it: the
resigner's equity playing on against what the resignation gives.

Playing on is valued from the resigner's side, as if it were on roll (GNU
Backgammon's analysis swaps the board the same way), at the analysis' ply:
cubeful at the cube and score, with its right to double where it has one,
or cubeless money under ``--money``.  A resignation gives ``points`` (the
level resigned times the cube): in money play ``-points / cube`` per cube,
in a match the EMG of losing that many points now.  Then

- resigning gave away ``play on - resigned`` where that is positive: a
  *wrong resignation*, the resigner's error;
- accepting gave away ``resigned - play on`` where that is positive: a
  *wrong acceptance*, the acceptor's error (it should have played on);

each marked by the thresholds of every other decision (:data:`.marks.MARKS`).
Records keep only accepted resignations (a rejected one leaves no trace in
``.mat``), and, as in GNU Backgammon 1.07 (``analysis.c``, the resignation
case), neither error enters a player's error rates: they are reported beside
them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from ..notation.record import ActionKind
from ..outcome import Ending
from .cubeful import ALERT_FLOOR, cube_decision
from .marks import mark_of
from .probabilities import equity
from .rows import boards_of

if TYPE_CHECKING:
    from ..notation.replay import ReplayedGame
    from .analyse import Judge
    from .evaluate import Evaluator


@dataclass(frozen=True)
class ResignationAnalysis:
    """One recorded resignation, judged: the resigner's equity playing on
    and in resigning (the analysis' units), and each side's error."""

    game: int
    turn: int             # the record's move number of the resignation
    player: str           # who resigned
    side: int
    opponent: str         # who accepted
    level: str            # the kind resigned: single, gammon, backgammon; oin, mars, home-mars, koks
    points: int           # what the resignation gives: the level's points times the cube
    play_on: float        # the resigner's equity playing on
    resigned: float       # the resigner's equity in resigning
    evaluator: str
    where: tuple[int, int] = (0, 0)
    mwc_per_emg: float = 0.0

    @property
    def error(self) -> float:
        """What the resigner gave away by resigning instead of playing on."""
        return max(self.play_on - self.resigned, 0.0)

    @property
    def accept_error(self) -> float:
        """What the acceptor gave away by accepting instead of playing on."""
        return max(self.resigned - self.play_on, 0.0)

    @property
    def alert(self) -> str | None:
        """``wrong resignation``, ``wrong acceptance``, or None below what prints as 0.000."""
        if self.error >= ALERT_FLOOR:
            return "wrong resignation"
        return "wrong acceptance" if self.accept_error >= ALERT_FLOOR else None

    @property
    def mark(self) -> str | None:
        """The mark of the error made (the resigner's or the acceptor's)."""
        return mark_of(max(self.error, self.accept_error))

    @property
    def text(self) -> str:
        """One line for a reader: ``resigns gammon (8 points): wrong acceptance (blunder), play on -2.412,
        resign -2.000; lost 0.412``."""
        lost = f"; lost {max(self.error, self.accept_error):.3f}" if self.alert else ""
        verdict = f"{self.alert} ({self.mark})" if self.alert and self.mark else self.alert or "right"
        return (f"resigns {self.level} ({self.points} point{'s' if self.points != 1 else ''}): {verdict}, "
                f"play on {self.play_on:+.3f}, resign {self.resigned:+.3f}{lost}")

    def as_dict(self) -> dict[str, Any]:
        scale = self.mwc_per_emg or None
        return {"kind": "resignation", "turn": self.turn, "player": self.player, "opponent": self.opponent,
                "level": self.level, "points": self.points, "play_on": self.play_on, "resigned": self.resigned,
                "error": self.error, "accept_error": self.accept_error,
                "error_mwc": self.error * scale if scale else None,
                "accept_error_mwc": self.accept_error * scale if scale else None,
                "alert": self.alert, "mark": self.mark, "evaluator": self.evaluator}


def analyse_resignation(game: ReplayedGame, ev: Evaluator, names: Sequence[str], judge: Judge, *,
                        ply: int = 0) -> ResignationAnalysis | None:
    """The judgement of the resignation that ended ``game``, or None when it
    did not end by one."""
    outcome = game.game.outcome
    if outcome is None or outcome.ending is not Ending.RESIGN:
        return None
    loser = 1 - outcome.winner
    position = game.game.position
    if position.player != loser:
        position = position.flip()
    rows = boards_of([position])
    p, source = ev.static(rows, database=True)
    if ply:
        p = ev.values(rows, ply)
    label = source[0] if ply == 0 or source[0] == "terminal" else f"{source[0]}, {ply}-ply"
    cube = outcome.cube
    valuer = judge.valuer
    if valuer is None:  # cubeless money, per cube
        play_on = float(equity(p, ev.game, ev.rules)[0])
        resigned, scale = -outcome.points / cube, 0.0
    else:
        state = judge.state(game.game, loser, cube, game.game.cube_owner)
        x = valuer.efficiency(rows)  # playing on, with the right to double where it has one
        play_on = (cube_decision(p, rows, state, ev.rules, x=x, valuer=valuer).best if state.may_double(ev.rules)
                   else float(valuer.cubeful(p, state, x)[0]))
        resigned, scale = valuer.result_equity(state, -outcome.points), valuer.mwc_per_emg(state)
    said = next((a for a in reversed(game.record.actions) if a.kind in (ActionKind.RESIGN, ActionKind.WIN)), None)
    turn, where = (said.number, (said.line, said.col)) if said is not None else (0, (0, 0))
    return ResignationAnalysis(game.record.number, turn, names[loser], loser, names[outcome.winner],
                               outcome.kind.value, outcome.points, play_on, resigned, label, where, scale)

