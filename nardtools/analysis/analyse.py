"""Analysing a played game: the error of every play, every cube decision and
the luck of every roll.

**At the score.**  Plays and cube decisions are judged by *cubeful* equity
(:mod:`.cubeful`): in a match as EMG at the match score through a match
equity table (Kazaross-XG2 by default for backgammon, nardtools' own for Long
Nardy: :mod:`.met`), in money play as money equity per unit of the cube, the
cube's owner, Jacoby and beaver as the ruleset has them.  ``money=True``
keeps the cubeless money judgement (points per game at cube 1, the score
ignored).

For every turn of a replayed record (:func:`analyse_match`):

- **best**: the best play of the roll by :func:`.evaluate.hint` at the chosen
  ply, and the equity of the play made, from the player's side (at 0-ply each
  result's value with the other side's best cube action, as GNU Backgammon's
  0-ply; at n-ply the look-ahead's probabilities valued the same way);
- **error** (>= 0): how much equity the play made lost against the best (a
  play that ties the best loses nothing);
- **luck**: what the roll gave, the best play's equity after this roll minus
  the average over the 21 rolls of the best play's equity after each, in the
  same units;
- **mark**, by the error, with GNU Backgammon 1.07's default thresholds
  (its ``show analysis``): ``doubtful`` from 0.030, ``error`` (gnubg's
  "bad") from 0.060, ``blunder`` (gnubg's "very bad") from 0.120.

**Cube decisions** (:class:`CubeAnalysis`): before each roll where the side
on roll could double (the ruleset's cube, its owner, the Crawford game, the
cube limit; not where a double can only lose), no double, double/take and
double/pass are valued; the doubler's action (``no double`` or ``double``)
and the taker's answer (``take``, ``pass``, ``beaver``) each get the proper
action, the equity lost, a mark by the same thresholds and GNU
Backgammon's alert: ``missed double``, ``wrong double``, ``wrong take``,
``wrong pass``.  A no-double is listed when it was close (doubling would have
cost less than 0.16) or a missed double, as gnubg counts them.

**A resignation** that ended a game (:mod:`.resignation`): the resigner's
equity playing on against what it resigned; a wrong resignation or a wrong
acceptance, reported beside the rates as GNU Backgammon does.

Per player: the unforced decisions (turns with more than one distinct
legal result), the error rate (mean equity lost per unforced decision), the
total error, the counts of errors and blunders, the cube decisions with their
error rate and alerts, and the total luck.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..notation.record import ActionKind
from .cubeful import ALERT_FLOOR, CubeDecision, cube_decision, cube_decisions
from .evaluate import Evaluator, PlayValue, rank_turns, valued
from .marks import mark_of
from .resignation import ResignationAnalysis, analyse_resignation
from .rows import boards_of

if TYPE_CHECKING:
    from ..game import Game
    from ..notation.replay import ReplayedGame, ReplayedMatch
    from ..position import Position
    from ..rules import Rules
    from .cube import MatchEquityTable
    from .cubeful import CubeState, Valuer
    from .evaluate import Evaluation

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
    mwc_per_emg: float = 0.0   # in a match: match winning chances per unit of equity

    @property
    def error_mwc(self) -> float | None:
        """In a match, the error as match winning chances lost."""
        return None if self.error is None or not self.mwc_per_emg else self.error * self.mwc_per_emg

    def as_dict(self) -> dict[str, Any]:
        return {"kind": "play", "turn": self.turn, "player": self.player, "dice": self.dice, "play": self.play,
                "best": self.best, "error": self.error, "error_mwc": self.error_mwc, "luck": self.luck,
                "mark": self.mark, "forced": self.forced, "equity": self.equity, "best_equity": self.best_equity,
                "evaluator": self.evaluator}


@dataclass(frozen=True)
class CubeAnalysis:
    """One cube decision as analysed: the action of ``player`` (``no
    double``, ``double``, ``take``, ``pass`` or ``beaver``), the proper one,
    the equity lost, its mark and GNU Backgammon's alert, with the three
    values behind them (the doubler's view, in the analysis' units)."""

    game: int
    turn: int          # the record's move number of the roll (or double) it precedes
    index: int         # the place, in the game's turns, of the play it precedes
    player: str
    side: int
    action: str
    best: str
    error: float
    mark: str | None
    alert: str | None
    decision: CubeDecision
    cube: int          # the cube before the decision
    evaluator: str
    where: tuple[int, int] = (0, 0)
    mwc_per_emg: float = 0.0

    @property
    def error_mwc(self) -> float | None:
        """In a match, the error as match winning chances lost."""
        return self.error * self.mwc_per_emg if self.mwc_per_emg else None

    def as_dict(self) -> dict[str, Any]:
        d = self.decision
        return {"kind": "cube", "turn": self.turn, "player": self.player, "action": self.action,
                "best": self.best, "error": self.error, "error_mwc": self.error_mwc, "mark": self.mark,
                "alert": self.alert,
                "proper": d.proper, "cube": self.cube, "no_double": d.no_double, "double_take": d.double_take,
                "double_pass": d.double_pass, "evaluator": self.evaluator}

    @property
    def text(self) -> str:
        """One line for a reader: ``missed double: double, take proper (no double -0.012, double/take
        +0.031, double/pass +1.000); lost 0.031``."""
        d = self.decision
        what = self.alert or (f"{self.action} ({self.mark})" if self.mark else self.action)
        lost = f"; lost {self.error:.3f}" if self.error > 1e-9 else ""
        return (f"{what}: {d.proper} proper (no double {d.no_double:+.3f}, double/take {d.double_take:+.3f}, "
                f"double/pass {d.double_pass:+.3f}){lost}")


#: gnubg's cube alerts, and the PlayerAnalysis counter of each.
ALERTS = {"missed double": "missed_doubles", "wrong double": "wrong_doubles", "wrong take": "wrong_takes",
          "wrong pass": "wrong_passes"}


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
    cube_decisions: int = 0
    cube_error_total: float = 0.0
    missed_doubles: int = 0
    wrong_doubles: int = 0
    wrong_takes: int = 0
    wrong_passes: int = 0
    resignation_errors: int = 0          # wrong resignations and wrong acceptances (outside the rates)
    resignation_error_total: float = 0.0

    @property
    def error_rate(self) -> float:
        """Mean equity lost per unforced decision."""
        return self.error_total / self.decisions if self.decisions else 0.0

    @property
    def cube_error_rate(self) -> float:
        """Mean equity lost per cube decision."""
        return self.cube_error_total / self.cube_decisions if self.cube_decisions else 0.0

    def add(self, t: TurnAnalysis | CubeAnalysis) -> None:
        """Count one of the player's turns or cube decisions."""
        if isinstance(t, CubeAnalysis):
            self.cube_decisions += 1
            self.cube_error_total += t.error
            if t.alert:
                setattr(self, ALERTS[t.alert], getattr(self, ALERTS[t.alert]) + 1)
            return
        self.luck += t.luck
        if not t.forced and t.error is not None:
            self.decisions += 1
            self.error_total += t.error
            self.errors += t.mark == "error"
            self.blunders += t.mark == "blunder"
            self.doubtful += t.mark == "doubtful"

    def add_resignation(self, lost: float) -> None:
        """Count what the player gave away resigning, or accepting a resignation."""
        self.resignation_errors += lost >= ALERT_FLOOR
        self.resignation_error_total += lost

    def absorb(self, other: PlayerAnalysis) -> None:
        """Add another file's or game's figures of the same player."""
        for f in dataclasses.fields(self):
            if f.name != "player":
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "decisions": self.decisions, "error_rate": self.error_rate,
                "error_total": self.error_total, "errors": self.errors, "blunders": self.blunders,
                "doubtful": self.doubtful, "luck": self.luck, "cube_decisions": self.cube_decisions,
                "cube_error_rate": self.cube_error_rate, "cube_error_total": self.cube_error_total,
                **{name: getattr(self, name) for name in ALERTS.values()},
                "resignation_errors": self.resignation_errors,
                "resignation_error_total": self.resignation_error_total}


@dataclass
class MatchAnalysis:
    """Every analysed turn and cube decision, game by game, and the players'
    figures; ``units`` says what the equities are."""

    ply: int
    games: dict[int, list[TurnAnalysis]] = field(default_factory=dict)
    players: list[PlayerAnalysis] = field(default_factory=list)
    cubes: dict[int, list[CubeAnalysis]] = field(default_factory=dict)
    resignations: dict[int, ResignationAnalysis] = field(default_factory=dict)  # by game, where one ended it
    units: str = "cubeless money equity"

    def entries(self, game: int) -> list[TurnAnalysis | CubeAnalysis]:
        """A game's plays and cube decisions in the order they were taken."""
        both: list[TurnAnalysis | CubeAnalysis] = [*self.cubes.get(game, []), *self.games.get(game, [])]
        return sorted(both, key=lambda t: (t.index, isinstance(t, TurnAnalysis)))

    def as_dict(self) -> dict[str, Any]:
        return {"ply": self.ply, "units": self.units,
                "games": [{"game": g, "turns": [t.as_dict() for t in self.entries(g)],
                           **({"resignation": self.resignations[g].as_dict()} if g in self.resignations else {})}
                          for g in self.games],
                "players": [p.as_dict() for p in self.players]}


class Judge:
    """How an analysis values plays and cube decisions: cubeless money
    (``valuer`` None), or cubeful by a :class:`~.cubeful.Valuer` at the
    cube and score of each decision."""

    def __init__(self, valuer: Valuer | None = None, *, match: bool = False) -> None:
        self.valuer, self.match = valuer, match
        self._values: dict[CubeState, PlayValue] = {}

    @classmethod
    def for_match(cls, rules: Rules, match_length: int, *, money: bool = False,
                  met: MatchEquityTable | None = None) -> Judge:
        """Cubeful at the record's stakes, or cubeless money when ``money``."""
        from .cubeful import Valuer
        from .met import default_met

        if money:
            return cls()
        return cls(Valuer(rules, met or (default_met(rules) if match_length else None)), match=bool(match_length))

    @property
    def units(self) -> str:
        if self.valuer is None:
            return "cubeless money equity"
        return f"EMG (match table {self.valuer.met.name})" if self.match else "cubeful money equity per cube"

    @staticmethod
    def state(g: Game, side: int, cube: int, owner: int | None) -> CubeState:
        """The cube and score of a decision of ``side`` in the game ``g``."""
        from .cubeful import CubeState

        return CubeState.under(g.rules, cube, owner, side, g.match_length, g.score, g.crawford)

    def decision(self, ev: Evaluator, position: Position, state: CubeState,
                 ply: int = 0) -> tuple[CubeDecision, str] | None:
        """The cube decision of ``position``'s side on roll at ``state``, and
        the evaluator that answered; None where it may not double (or the
        judgement is cubeless)."""
        return self.decisions(ev, [(position, state)], ply)[0]

    def decisions(self, ev: Evaluator, asked: Sequence[tuple[Position, CubeState]],
                  ply: int = 0) -> list[tuple[CubeDecision, str] | None]:
        """:meth:`decision` of many positions at once: one evaluation of them
        all, one valuation of those at the same stakes."""
        out: list[tuple[CubeDecision, str] | None] = [None] * len(asked)
        if self.valuer is None:
            return out
        valuer = self.valuer
        live = [i for i, (_, state) in enumerate(asked) if state.may_double(ev.rules)]
        if not live:
            return out
        rows = boards_of([asked[i][0] for i in live])
        p, source = ev.static(rows, database=True)
        if ply:
            p = ev.values(rows, ply)
        groups: dict[CubeState, list[int]] = {}
        for j, i in enumerate(live):
            groups.setdefault(asked[i][1], []).append(j)
        for state, members in groups.items():
            for j, d in zip(members, cube_decisions(p[members], rows[members], state, ev.rules, valuer=valuer)):
                out[live[j]] = d, source[j] if ply == 0 or source[j] == "terminal" else f"{source[j]}, {ply}-ply"
        return out

    def play_value(self, state: CubeState | None) -> PlayValue | None:
        """How :func:`.evaluate.ranked_plays` values a play's result for the player."""
        valuer = self.valuer
        if valuer is None or state is None:
            return None
        if state not in self._values:  # one per state: turns at the same stakes are valued together
            theirs = state.flipped()
            self._values[state] = lambda q, rows: -valuer.leaf(q, rows, theirs)
        return self._values[state]


def at_stakes(evaluation: Evaluation, setup: Any, rules: Rules, met: MatchEquityTable | None = None) -> dict[str, Any]:
    """An evaluation at the cube and score ``setup`` carries (:mod:`.cubeful`):
    the units, the cubeful equity of the side on roll holding the cube as it
    is, and its cube decision where it may double (else why not).  The match
    table is the game's own unless ``met`` is given."""
    from ..game import why_no_double
    from .cubeful import CubeState, Valuer
    from .met import default_met
    from .probabilities import CLASSES

    state = CubeState.of_setup(setup, rules)
    valuer = Valuer(rules, met or (default_met(rules) if state.length else None))
    p = np.array([[evaluation.probabilities[c] for c in CLASSES[valuer.game]]])
    rows = boards_of([setup.position])
    x = valuer.efficiency(rows)
    out: dict[str, Any] = {"units": state.units(valuer.met.name), "cubeful_equity": float(valuer.cubeful(p, state, x)[0]),
                           "cube": None, "cube_note": ""}
    if state.may_double(rules):
        out["cube"] = cube_decision(p, rows, state, rules, x=x, valuer=valuer)
    else:
        out["cube_note"] = why_no_double(rules, state.mover, cube=state.value, cube_owner=state.owner,
                                         match_length=state.length, score=state.score, crawford=state.crawford) \
            or "a double cannot gain here (the side on roll already wins the match with the cube as it is)"
    return out


def analyse_match(replayed: ReplayedMatch, *, ply: int = 0, games: set[int] | None = None,
                  evaluator: str = "nardtools", weights: str | None = None, money: bool = False,
                  met: MatchEquityTable | None = None,
                  progress: Callable[[], None] | None = None) -> MatchAnalysis:
    """Analyse every turn and cube decision of ``replayed`` (or of the game
    numbers in ``games``): cubeful at the score, or cubeless money with
    ``money``; ``met`` the match equity table (default: the game's)."""
    rules = replayed.ruleset.rules
    ev = Evaluator(rules, weights=weights, evaluator=evaluator)
    judge = Judge.for_match(rules, replayed.record.length, money=money, met=met)
    names = tuple(n or f"player {i + 1}" for i, n in enumerate(replayed.record.players))
    result = MatchAnalysis(ply, players=[PlayerAnalysis(n) for n in names])
    for game in replayed.games:
        number = game.record.number
        if games is not None and number not in games:
            continue
        turns = analyse_game(game, ev, names, ply=ply, progress=progress, judge=judge)
        cubes = analyse_cube(game, ev, names, judge, ply=ply)
        entries: list[TurnAnalysis | CubeAnalysis] = [*turns, *cubes]
        for t in entries:
            result.players[t.side].add(t)
        result.games[number] = turns
        result.cubes[number] = cubes
        resigned = analyse_resignation(game, ev, names, judge, ply=ply)
        if resigned is not None:
            result.resignations[number] = resigned
            result.players[resigned.side].add_resignation(resigned.error)
            result.players[1 - resigned.side].add_resignation(resigned.accept_error)
    result.units = judge.units
    return result


def analyse_game(game: ReplayedGame, ev: Evaluator, names: Sequence[str], *, ply: int = 0,
                 progress: Callable[[], None] | None = None, judge: Judge | None = None) -> list[TurnAnalysis]:
    """The :class:`TurnAnalysis` of every turn of one replayed game, by the
    evaluator ``ev`` (its rules are the game's); cubeless money unless a
    ``judge`` says otherwise."""
    from ..dice import ALL_ROLLS, Roll
    from .selfplay import best_per_roll

    judge = judge or Judge()
    chosen = [(index, t) for index, t in enumerate(game.turns)
              if not t.action.part and isinstance(t.dice, Roll)]  # dice carried over: rulesets the networks refuse
    states = [judge.state(game.game, t.action.player, t.cube, t.cube_owner) if judge.valuer else None
              for _, t in chosen]
    worths = [judge.play_value(state) for state in states]
    if not chosen:
        return []
    rankings = rank_turns(ev, [(t.before, t.dice, t.first_turn, worth)  # type: ignore[misc]  # chosen: Roll dice
                               for (_, t), worth in zip(chosen, worths)], ply)
    # luck: every roll's best result at 0-ply, for every turn at once
    after, counts = ev.successors(boards_of([t.before for _, t in chosen]))
    p, _, _ = ev.probabilities(after, database=True)
    starts = np.concatenate([[0], np.cumsum(counts.sum(axis=1))])
    weights = np.array([roll.weight / 36 for roll in ALL_ROLLS])
    luck_values = valued(ev, p, after, [slice(starts[k], starts[k + 1]) for k in range(len(chosen))], worths)
    turns: list[TurnAnalysis] = []
    for k, ((index, t), state, r) in enumerate(zip(chosen, states, rankings)):
        a = t.action
        best = r.order[0]
        found = np.nonzero((r.rows == boards_of([t.after])[0]).all(axis=1))[0]
        made = int(found[0]) if len(found) else None
        error = None if made is None else max(float(r.mine[best] - r.mine[made]), 0.0)
        mine = luck_values[k]
        best_by_roll = mine[best_per_roll(-mine, counts[k:k + 1])]
        luck = float(best_by_roll[ALL_ROLLS.index(t.dice)] - weights @ best_by_roll)
        forced = len(r.plays) == 1
        scale = judge.valuer.mwc_per_emg(state) if judge.valuer and state else 0.0
        turns.append(TurnAnalysis(game.record.number, a.number, index, names[a.player], a.player, str(t.dice),
                                  str(t.play), str(r.plays[best].play), None if made is None else float(r.mine[made]),
                                  float(r.mine[best]), error, luck, None if forced else mark_of(error), forced,
                                  r.source[best], (a.line, a.col), scale))
        if progress:
            progress()
    return turns


def analyse_cube(game: ReplayedGame, ev: Evaluator, names: Sequence[str], judge: Judge, *,
                 ply: int = 0) -> list[CubeAnalysis]:
    """The cube decisions of one replayed game (see the module docstring):
    none under cubeless money or a ruleset without the cube."""

    valuer = judge.valuer
    if valuer is None or not ev.rules.cube:
        return []
    turn_of = {id(t.action): i for i, t in enumerate(game.turns)}
    actions = game.record.actions

    def position_at(index: int) -> Any:
        if index < len(game.turns):
            return game.turns[index].before
        return game.turns[-1].after if game.turns else None

    # first the decisions the record asks about (the flow needs only the rules), then all judged at once
    asked: list[tuple[Any, CubeState]] = []
    plan: list[tuple[Any, int, int, str, int, int]] = []  # action, index, side, what was done, cube, decision
    seen = 0          # turns replayed before the action at hand
    offer: tuple[int, int, int] | None = None  # the double's decision, index, cube
    doubled_before: set[int] = set()

    def ask(index: int, side: int, cube: int, owner: int | None) -> int | None:
        position = position_at(index)
        state = judge.state(game.game, side, cube, owner)
        if position is None or not state.may_double(ev.rules):
            return None
        asked.append((position, state))
        return len(asked) - 1

    for a in actions:
        if a.kind is ActionKind.DOUBLE and id(a) in game.offers:
            owner = game.turns[seen - 1].cube_owner if seen else None
            cube = game.offers[id(a)] // 2
            k = ask(seen, a.player, cube, owner)
            if k is not None:
                plan.append((a, seen, a.player, "double", cube, k))
                offer = (k, seen, cube)
                doubled_before.add(seen)
        elif a.kind in (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER) and offer is not None:
            k, index, cube = offer
            action = {ActionKind.TAKE: "take", ActionKind.DROP: "pass", ActionKind.BEAVER: "beaver"}[a.kind]
            plan.append((a, index, a.player, action, cube, k))
            offer = None
        elif id(a) in turn_of:
            index = turn_of[id(a)]
            t = game.turns[index]
            if index not in doubled_before and not a.part:
                k = ask(index, a.player, t.cube, t.cube_owner)
                if k is not None:
                    plan.append((a, index, a.player, "no double", t.cube, k))
            seen = index + 1
    judged = judge.decisions(ev, asked, ply)
    out: list[CubeAnalysis] = []
    for a, index, side, action, cube, k in plan:
        found = judged[k]
        assert found is not None  # asked only where it may double
        d, source = found
        error = d.error(action)
        c = CubeAnalysis(game.record.number, a.number, index, names[side], side, action, d.best_action(action),
                         error, mark_of(error), d.alert(action), d, cube, source, (a.line, a.col),
                         valuer.mwc_per_emg(asked[k][1]))
        if action != "no double" or c.alert or c.decision.close():
            out.append(c)
    return out


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
