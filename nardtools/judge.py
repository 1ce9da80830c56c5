"""Checking one written play against the rules (:func:`check_play`): the
readable reference of ``csrc/judge.c``.  A written play is cut into the
dice's steps every way it can be, each way tried on the board, and the
result judged against the legal ends of the turn (:mod:`.turn`): a
:class:`Judgement` that names the rule a play breaks.

>>> from nardtools import Position, Roll, find_ruleset
>>> long = find_ruleset("long").rules
>>> check_play(Position.start("long"), Roll(6, 5), "24/18 24/19", long).violation
<Violation.HEAD: 'head-rule'>
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .core import compiled, pack_rules
from .core import reference_engine as reference_engine  # (part of this module's interface)
from .dice import Dice, Roll
from .errors import Violation, play_error
from .play import Play, Step, point_text
from .position import BAR, HEAD, OFF, GameKind, Position
from .rules import RulesLike
from .turn import RolledTurn, legal_ends


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on one play: legal or the rule that fired, with an explanation.

    ``result`` is the position after the play when it is legal, or when it is
    illegal but could still be carried out on the board (for lenient replays).
    ``play`` is the canonical play (one step per die, hits marked) when known.
    """

    legal: bool
    violation: Violation | None
    message: str
    result: Position | None
    play: Play | None
    dice_used: tuple[int, ...] = ()  # the dice the play used, in order (when it could be played)
    warning: str = ""  # a legal play written with a hit mark where nothing is hit

    def __bool__(self) -> bool:
        return self.legal

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``nardtools check`` (without the legal plays)."""
        return {"legal": self.legal, "rule": str(self.violation) if self.violation else None,
                "message": self.message, "play": str(self.play) if self.play is not None else None,
                "result": str(self.result) if self.result else None, "warning": self.warning or None}


# ---------------------------------------------------------------------------
# Checking one play

@functools.lru_cache(maxsize=16384)
def _die_paths(step: Step, dice: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Ways to cover one written step with unused dice (one or several dice)."""
    s, t = step.source, step.target
    paths: list[tuple[int, ...]] = []
    distinct = sorted(set(dice), reverse=True)
    for k in range(1, len(dice) + 1):
        for combo in (itertools.permutations(dice, k) if k > 1 else [(d,) for d in distinct]):
            if combo in paths:
                continue
            total = sum(combo)
            before_last = s - total + combo[-1]
            if s - total == t or (t == OFF and s - total < 0 and before_last > 0 and
                                  all(s - sum(combo[:j]) > 0 for j in range(1, k))):
                paths.append(combo)
    return tuple(paths)


def _decompositions(written: Sequence[Step], dice: tuple[int, ...]) -> list[list[tuple[int, int, bool]]]:
    """Ways to cut the written moves into single-die segments ``(source, die,
    passing)`` using no more dice than the roll has.  ``passing`` marks a landing
    inside a combined move of a non-double (``11/6`` with 4-1): a record writes
    a hit there explicitly (``11/7*/6``), so such a landing should not hit."""
    # The common case first: every move is one die to a point on the board.
    # Then the cut is unique: a move one die long is never made of several.
    left = list(dice)
    for step in written:
        d = step.source - step.target
        if step.target == OFF or d not in left:
            break
        left.remove(d)
    else:
        return [[(step.source, step.source - step.target, False) for step in written]]
    out: list[list[tuple[int, int, bool]]] = []
    double = len(set(dice)) == 1

    def go(i: int, left: list[int], acc: list[tuple[int, int, bool]]) -> None:
        if i == len(written):
            out.append(acc[:])
            return
        step = written[i]
        for path in _die_paths(step, tuple(sorted(left, reverse=True))):
            rest = left[:]
            s = step.source
            for j, d in enumerate(path):
                rest.remove(d)
                acc.append((s, d, not double and j < len(path) - 1))
                s -= d
            go(i + 1, rest, acc)
            del acc[len(acc) - len(path):]

    go(0, list(dice), [])
    return out


class _Attempt:
    """Simulates a written play die by die, remembering the deepest failure."""

    def __init__(self, turn: RolledTurn) -> None:
        self.turn = turn
        self.failure: tuple[int, Violation, str] | None = None
        self.success: tuple[list[int], list[int], list[Step], list[int]] | None = None
        self.alternative: Play | None = None  # another reading of the play, ending elsewhere

    def fail(self, depth: int, violation: Violation, where: str) -> None:
        if self.failure is None or depth > self.failure[0]:
            self.failure = (depth, violation, where)

    def run(self, segments: Sequence[tuple[int, int, bool]], strict: bool) -> bool:
        """Play the segments in order; ``strict`` refuses hits while passing."""
        turn = self.turn
        me = list(turn.position.mover)
        hits: list[int] = []
        hitters: list[int] = []
        done: list[Step] = []
        for s, d, passing in segments:
            r = turn.step(me, s, d, hits, hitters)
            if isinstance(r, Violation):
                self.fail(len(done), r, str(Step(s, max(s - d, 0))))
                return False
            t, hit = r
            if strict and hit and passing:
                return False
            turn.apply(me, s, t, hit, hits, hitters)
            done.append(Step(s, t, hit))
            if turn.every_step and not turn.block_ok(me):
                self.fail(len(done), Violation.SIX_BLOCK, str(done[-1]))
                return False
        self.success = (me, hits, done, [d for _, d, _ in segments])
        return True

    def search(self, written: Sequence[Step]) -> bool:
        """Try the moves as written, then every other order of their segments;
        first without hits inside combined moves, then with them.  A play found
        only with such a hit may read two ways (``13/6`` with 61 hitting on 7
        or on 12): :attr:`alternative` is then the other reading."""
        cuts = _decompositions(written, self.turn.dice)
        if not cuts:
            bad = next((w for i, w in enumerate(written)
                        if not _decompositions(written[:i + 1], self.turn.dice)), written[-1])
            self.fail(0, Violation.NO_SUCH_DIE, str(bad))
            return False
        for strict in (True, False):
            for cut in cuts:
                if self.run(cut, strict):
                    return self._found(cuts, strict)
            first_failure = self.failure
            for cut in cuts:  # every other order, each once, in itertools' order
                for order in dict.fromkeys(itertools.permutations(cut)):
                    if self.run(order, strict):
                        return self._found(cuts, strict)
            self.failure = first_failure
        return False

    def _found(self, cuts: Sequence[Sequence[tuple[int, int, bool]]], strict: bool) -> bool:
        """Keep the success; after one with hits while passing, look for a
        reading that ends differently (:attr:`alternative`)."""
        found, failure = self.success, self.failure
        assert found is not None
        self.alternative = None
        if not strict:
            end = (found[0], sorted(found[1]))
            for cut in cuts:
                for order in dict.fromkeys(itertools.permutations(cut)):
                    if self.run(order, False) and self.success is not None and \
                            (self.success[0], sorted(self.success[1])) != end:
                        self.alternative = Play(tuple(self.success[2]))
                        break
                if self.alternative is not None:
                    break
        self.success, self.failure = found, failure
        return True


def check_play(position: Position, roll: Roll | Dice, play: Play | str, rules: RulesLike = None, *,
               first_turn: bool | None = None) -> Judgement:
    """Judge one play, naming the rule that fired when it is illegal.

    A play that uses every die is judged by replaying its steps and checking the
    end-of-turn rules, without generating the other plays; only a play that
    leaves dice unused, or takes a second head checker under the ``general``
    reading, is compared with the full set of legal plays.  The compiled core
    confirms a legal play at once; the reference below explains the rest.

    A hit mark is notation, not part of the move: a legal play written with a
    ``*`` where no checker is hit stays legal, with a ``warning`` saying so
    (a hit written without its mark says nothing).

    >>> j = check_play(Position.start(), Roll(3, 1), "8/5 6/5*")
    >>> j.legal, j.warning
    (True, "'8/5 6/5*' marks a hit at 5, where no checker is hit")
    """
    text = play if isinstance(play, str) else str(play)
    if isinstance(play, str):
        play = Play.parse(play)
    judged = _judge(position, roll, play, rules, first_turn)
    marked = {s.target for s in play.steps if s.hit}
    hit = {s.target for s in judged.play.steps if s.hit} if judged.play is not None else set()
    if judged.legal and marked - hit:
        where = ", ".join(point_text(p) for p in sorted(marked - hit, reverse=True))
        judged = dataclasses.replace(judged, warning=f"{text.strip()!r} marks a hit at {where}, where no checker is hit")
    return judged


def _judge(position: Position, roll: Roll | Dice, play: Play | str, rules: RulesLike, first_turn: bool | None,
           *, core: bool = True) -> Judgement:
    if isinstance(play, str):
        play = Play.parse(play)
    turn = RolledTurn(position, roll, rules, first_turn)
    compiled_core = compiled() if core else None
    if compiled_core is not None:
        judged = compiled_core.judge(pack_rules(turn.rules), position.mover, turn.opp, turn.dice, turn.whole_roll,
                                     int(turn.first_turn), tuple((st.source, st.target) for st in play.steps))
        if judged is not None:
            steps, mover, opponent, dice_used = judged
            return Judgement(True, None, "legal", Position._trusted(position.kind, mover, opponent, 1 - position.player),
                             Play(tuple(Step(*st) for st in steps)), dice_used)
    head, head_limit = turn.rules.head, turn.rules.head_limit
    attempt = _Attempt(turn)
    written = play.steps
    if len(written) > turn.total_dice:
        return _illegal(Violation.NO_SUCH_DIE, f"{len(written)} moves for {turn.total_dice} dice",
                        position, roll, play)
    if not attempt.search(written):
        assert attempt.failure is not None
        _, violation, where = attempt.failure
        return _illegal(violation, where, position, roll, play)
    assert attempt.success is not None
    me, hits, done, dice_used = attempt.success
    used = len(dice_used)
    result = turn.result(me, hits)
    canonical = Play(tuple(done))
    if attempt.alternative is not None:
        readings = f"{canonical} or {attempt.alternative}; write the point passed or mark the hit"
        return Judgement(False, Violation.AMBIGUOUS, f"ambiguous play {str(play)!r} with {roll}: it reads as "
                         f"{readings} [{Violation.AMBIGUOUS}]", None, play)
    if not turn.block_ok(me):
        return _illegal(Violation.SIX_BLOCK, "", position, roll, canonical, result)
    heads = turn.start_head - me[HEAD] if turn.long else 0
    needs_generation = used < turn.total_dice or (
        turn.long and turn.first_turn and head == "general" and heads > head_limit)
    if needs_generation:
        chosen = list(legal_ends(turn, core=core))
        if (tuple(me), tuple(sorted(hits))) not in {(c.me, c.hits) for c in chosen}:
            most = max((c.rank[0] for c in chosen), default=0)
            if heads > head_limit and most == used:
                violation = Violation.HEAD
            elif most > used:
                violation = Violation.DICE_NOT_USED
            else:
                violation = Violation.LARGER_DIE
            return _illegal(violation, "", position, roll, canonical, result)
    return Judgement(True, None, "legal", result, canonical, tuple(dice_used))


def _illegal(violation: Violation, where: str, position: Position, roll: Roll | Dice, play: Play,
             result: Position | None = None) -> Judgement:
    at = f" at {where}" if where else ""
    message = f"illegal play {str(play) or '(no move)'!r} with {roll}{at}: {violation.describe()} [{violation}]"
    if result is None:
        result = physical_result(position, play)
    return Judgement(False, violation, message, result, play)


def physical_result(position: Position, play: Play) -> Position | None:
    """Carry out ``play`` on the board ignoring the rules of play, if it can be done
    at all (each source holds a checker, no landing on an opponent's made point
    or, in Long Nardy, on any opponent checker); ``None`` otherwise.

    This is what a lenient replay applies when an illegal play was condoned.
    """
    me = list(position.mover)
    opp = list(position.opponent)
    kind = position.kind
    for step in play.steps:
        s, t = step.source, step.target
        if me[s] <= 0 or (kind is GameKind.LONG and s == BAR):
            return None
        if t != OFF:
            q = kind.opponent_point(t)
            if opp[q] >= (1 if kind is GameKind.LONG else 2):
                return None
            if opp[q] == 1:
                opp[q] = 0
                opp[BAR] += 1
        me[s] -= 1
        me[t] += 1
    return Position(kind, tuple(opp), tuple(me), 1 - position.player)


def apply_play(position: Position, roll: Roll | Dice, play: Play | str, rules: RulesLike = None, *,
               first_turn: bool | None = None) -> Position:
    """The position after a legal play; raises :class:`IllegalPlayError` otherwise.

    >>> from nardtools import find_ruleset
    >>> bg = find_ruleset("backgammon").rules
    >>> str(apply_play(Position.start(), Roll(3, 1), "8/5 6/5", bg))
    'backgammon O 24:2,13:5,8:3,6:5 / 24:2,13:5,8:2,6:4,5:2'
    """
    j = check_play(position, roll, play, rules, first_turn=first_turn)
    if not j.legal:
        assert j.violation is not None
        raise play_error(f"{j.message} in position {position}", violation=j.violation,
                         position=position, roll=roll, play=play)
    assert j.result is not None
    return j.result
