"""Analysing a played game: the error of every play and the luck of every roll.

For every turn of a replayed record (:func:`analyse_match`):

- **best**: the best play of the roll by :func:`.evaluate.hint` at the chosen
  ply, and the equity of the play made, from the player's side (cubeless,
  points per game under the ruleset's scoring table);
- **error** (≥ 0): how much equity the play made lost against the best (a
  play that ties the best loses nothing);
- **luck**: what the roll gave, the best play's equity after this roll minus
  the average over the 21 rolls of the best play's equity after each, both
  at 0-ply (so that the luck of every roll of a game sums, on average, to
  zero);
- **mark**, by the error, with GNU Backgammon 1.07's default thresholds
  (its ``show analysis``): ``doubtful`` from 0.030, ``error`` (gnubg's
  "bad") from 0.060, ``blunder`` (gnubg's "very bad") from 0.120.

Per player: the unforced decisions (turns with more than one distinct
legal result), the error rate (mean equity lost per unforced decision), the
total error, the counts of errors and blunders, and the total luck.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .evaluate import Evaluator, ranked_plays
from .nets import boards_of, equity

if TYPE_CHECKING:
    from ..notation.replay import ReplayedGame, ReplayedMatch

#: (threshold, mark), the largest first: GNU Backgammon 1.07's defaults, as its
#: ``show analysis`` prints them (doubtful 0.030, bad 0.060, very bad 0.120).
MARKS = ((0.12, "blunder"), (0.06, "error"), (0.03, "doubtful"))
#: The glyph written into an annotated record for each mark.
GLYPHS = {"blunder": "??", "error": "?", "doubtful": "?!"}


def mark_of(error: float | None) -> str | None:
    """``doubtful``, ``error``, ``blunder`` or None for an error of that size.

    >>> mark_of(0.0), mark_of(0.05), mark_of(0.1), mark_of(0.5)
    (None, 'doubtful', 'error', 'blunder')
    """
    if error is None:
        return None
    return next((mark for threshold, mark in MARKS if error >= threshold - 1e-12), None)


@dataclass(frozen=True)
class TurnAnalysis:
    """One play of a record as analysed (see the module docstring)."""

    game: int
    turn: int          # the record's move number
    index: int         # the play's place in the game's turns, from 0
    player: str
    side: int          # 0 the first-named player
    dice: str
    play: str
    best: str
    equity: float | None       # of the play made, for the player
    best_equity: float
    error: float | None        # None when the play made is not legal here
    luck: float
    mark: str | None
    forced: bool
    evaluator: str
    where: tuple[int, int] = (0, 0)  # the play's line and column in the record

    def as_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "player": self.player, "dice": self.dice, "play": self.play, "best": self.best,
                "error": self.error, "luck": self.luck, "mark": self.mark, "forced": self.forced,
                "equity": self.equity, "best_equity": self.best_equity, "evaluator": self.evaluator}


@dataclass
class PlayerAnalysis:
    """One player's figures over the turns analysed."""

    player: str
    decisions: int = 0
    error_total: float = 0.0
    errors: int = 0
    blunders: int = 0
    doubtful: int = 0
    luck: float = 0.0

    @property
    def error_rate(self) -> float:
        """Mean equity lost per unforced decision."""
        return self.error_total / self.decisions if self.decisions else 0.0

    def add(self, t: TurnAnalysis) -> None:
        """Count one of the player's turns."""
        self.luck += t.luck
        if not t.forced and t.error is not None:
            self.decisions += 1
            self.error_total += t.error
            self.errors += t.mark == "error"
            self.blunders += t.mark == "blunder"
            self.doubtful += t.mark == "doubtful"

    def absorb(self, other: PlayerAnalysis) -> None:
        """Add another file's or game's figures of the same player."""
        self.decisions += other.decisions
        self.error_total += other.error_total
        self.errors += other.errors
        self.blunders += other.blunders
        self.doubtful += other.doubtful
        self.luck += other.luck

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "decisions": self.decisions, "error_rate": self.error_rate,
                "error_total": self.error_total, "errors": self.errors, "blunders": self.blunders,
                "doubtful": self.doubtful, "luck": self.luck}


@dataclass
class MatchAnalysis:
    """Every analysed turn, game by game, and the players' figures."""

    ply: int
    games: dict[int, list[TurnAnalysis]] = field(default_factory=dict)
    players: list[PlayerAnalysis] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"ply": self.ply,
                "games": [{"game": g, "turns": [t.as_dict() for t in turns]} for g, turns in self.games.items()],
                "players": [p.as_dict() for p in self.players]}


def analyse_match(replayed: ReplayedMatch, *, ply: int = 0, games: set[int] | None = None,
                  evaluator: str = "nardtools", weights: str | None = None,
                  progress: Callable[[], None] | None = None) -> MatchAnalysis:
    """Analyse every turn of ``replayed`` (or of the game numbers in ``games``)."""
    rules = replayed.ruleset.rules
    ev = Evaluator(rules, weights=weights, evaluator=evaluator)
    names = tuple(n or f"player {i + 1}" for i, n in enumerate(replayed.record.players))
    result = MatchAnalysis(ply, players=[PlayerAnalysis(n) for n in names])
    for game in replayed.games:
        number = game.record.number
        if games is not None and number not in games:
            continue
        turns = analyse_game(game, ev, names, ply=ply, progress=progress)
        for t in turns:
            result.players[t.side].add(t)
        result.games[number] = turns
    return result


def analyse_game(game: ReplayedGame, ev: Evaluator, names: Sequence[str], *, ply: int = 0,
                 progress: Callable[[], None] | None = None) -> list[TurnAnalysis]:
    """The :class:`TurnAnalysis` of every turn of one replayed game, by the
    evaluator ``ev`` (its rules are the game's)."""
    from ..dice import ALL_ROLLS, Roll
    from .selfplay import best_per_roll, roll_successors

    rules = ev.rules
    turns: list[TurnAnalysis] = []
    for index, t in enumerate(game.turns):
        a = t.action
        if a.part or not isinstance(t.dice, Roll):  # dice carried over: rulesets the networks refuse
            continue
        ranked = ranked_plays(ev, t.before, t.dice, ply, first_turn=t.first_turn)
        best = ranked[0]
        made = next((r for r in ranked if r.result == t.after), None)
        error = None if made is None else max(best.equity - made.equity, 0.0)
        after, counts = roll_successors(rules, boards_of([t.before]))
        p, _ = ev.static(after, database=True)
        value = equity(p, ev.game, rules)
        best_by_roll = [-float(v) for v in value[best_per_roll(value, counts)]]
        averages = sum(roll.weight / 36 * v for roll, v in zip(ALL_ROLLS, best_by_roll))
        luck = best_by_roll[ALL_ROLLS.index(t.dice)] - averages
        forced = len(ranked) == 1
        turns.append(TurnAnalysis(game.record.number, a.number, index, names[a.player], a.player, str(t.dice),
                                  str(t.play), str(best.play), None if made is None else made.equity,
                                  best.equity, error, luck, None if forced else mark_of(error), forced,
                                  best.evaluation.evaluator, (a.line, a.col)))
        if progress:
            progress()
    return turns


def recorded_analysis(replayed: ReplayedMatch) -> dict[int, list[TurnAnalysis]]:
    """The analysis a record carries, by game number: each play's stored
    review (GNU Backgammon's, read from SGF) as a :class:`TurnAnalysis`, its
    candidate plays written canonically (the legal play with the same effect),
    marked by this module's thresholds.  Plays without a review are left out;
    so are games without any.

    >>> from pathlib import Path
    >>> from nardtools import read_record, replay_match
    >>> sgf = Path(__file__).parents[2] / "examples/backgammon/gnubg-5pt-analysed.sgf"
    >>> first = recorded_analysis(replay_match(read_record(sgf)))[1][0]
    >>> first.turn, first.player, first.play, first.best, first.error, first.luck
    (1, 'root', '24/18/14', '24/18/14', 0.0, 0.03066)
    """
    names = replayed.record.names
    out: dict[int, list[TurnAnalysis]] = {}
    for g in replayed.games:
        rules = g.game.rules
        for index, t in enumerate(g.turns):
            review = t.action.review
            if review is None or not review.plays or t.dice is None:
                continue

            best = review.best
            assert best is not None
            played = review.plays[review.played] if review.played is not None and \
                0 <= review.played < len(review.plays) else None
            a = t.action
            out.setdefault(g.record.number, []).append(TurnAnalysis(
                g.record.number, a.number, index, names[a.player], a.player, str(t.dice), str(t.play),
                _canonical(t, best[0], rules), played[1] if played else None, best[1], review.error, review.luck or 0.0,
                mark_of(review.error), len(review.plays) == 1, review.evaluator, (a.line, a.col)))
    return out


def _canonical(turn: Any, text: str, rules: Any) -> str:
    """A play as a review wrote it (``24/18 18/14``), in canonical notation:
    the legal play with the same effect in the turn's position."""
    from ..notation.replay import same_effect

    play = same_effect(turn.before, turn.dice, text, rules, turn.first_turn)
    return str(play) if play is not None else text


def handout(replayed: ReplayedMatch, analysis: MatchAnalysis) -> str:
    """The annotated record a teacher hands out, in the native format: the
    analysed games of ``replayed`` with the record's header (game, ruleset,
    players, match length, scores and results), each analysed play's mark as
    a glyph and, where it was not the best, a comment naming the best play and
    the equity lost; an ``Annotator`` tag says by what."""
    from collections import Counter

    from .. import __version__
    from ..notation.native import export_native
    from ..notation.record import Action, ActionKind

    by_cell = {t.where: t for turns in analysis.games.values() for t in turns}
    used = Counter(t.evaluator for t in by_cell.values()).most_common(1)
    main = used[0][0] if used else f"{analysis.ply}-ply"

    def annotate(action: Action) -> Action:
        t = by_cell.get((action.line, action.col)) if action.kind is ActionKind.ROLL else None
        if t is None or t.error is None:
            return action
        glyphs = action.glyphs + ((GLYPHS[t.mark],) if t.mark else ())
        by = "" if t.evaluator == main else f"{t.evaluator}: "
        note = () if t.error < 1e-9 else (
            f"{by}best {t.best} {t.best_equity:+.3f}; played {t.equity:+.3f}, lost {t.error:.3f}",)
        return dataclasses.replace(action, glyphs=glyphs, after=action.after + note)

    tags = [("Annotator", f"nardtools {__version__}: {main}")]
    return export_native(replayed, games=set(analysis.games), annotate=annotate, tags=tags)
