"""The rules engine: legal plays for a position and roll, and the check of one play.

One generator serves the whole family; what differs between games lives in
:class:`~nardtools.rules.Rules` options.  A turn is never built greedily die by
die: every sequence of steps is explored (with memoisation), the end-of-turn
rules filter the results, then the maximum-dice and larger-die rules choose
among what is left.

>>> from nardtools import Position, Roll, find_ruleset
>>> long = find_ruleset("long").rules
>>> [str(p.play) for p in legal_plays(Position.start("long"), Roll(6, 6), long)]
['24/18(2)']
>>> check_play(Position.start("long"), Roll(6, 5), "24/18 24/19", long).violation
<Violation.HEAD: 'head-rule'>
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterator, Sequence

from .dice import Roll
from .errors import IllegalPlayError
from .play import Play, Step
from .position import BAR, HEAD, OFF, GameKind, Position
from .rules import Rules, Violation

_FIRST_TURN_DOUBLES = {3, 4, 6}


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
    or a resulting :class:`Position`) and :meth:`find`.
    """

    def __init__(self, plays: list[LegalPlay], position: Position, roll: Roll, rules: Rules,
                 first_turn: bool | None) -> None:
        self._plays = plays
        self._by_result = {p.result: p for p in plays}
        self.position, self.roll, self.rules, self.first_turn = position, roll, rules, first_turn

    def __len__(self) -> int:
        return len(self._plays)

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        return self._plays[i]

    def __iter__(self) -> Iterator[LegalPlay]:
        return iter(self._plays)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Position):
            return item in self._by_result
        if isinstance(item, (Play, str)):
            return check_play(self.position, self.roll, item, self.rules,
                              first_turn=self.first_turn).legal
        return False

    def find(self, result: Position) -> LegalPlay | None:
        """The legal play leading to ``result``, if any."""
        return self._by_result.get(result)

    @property
    def is_forced(self) -> bool:
        """True when there is exactly one legal play (possibly the empty one)."""
        return len(self._plays) == 1

    def __repr__(self) -> str:
        return f"<LegalPlays for {self.roll} ({len(self)}): {', '.join(str(p) or '-' for p in self._plays)}>"


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

    def __bool__(self) -> bool:
        return self.legal


# ---------------------------------------------------------------------------
# One side's turn: facts shared by generation and checking.

class _Turn:
    __slots__ = ("position", "rules", "roll", "kind", "long", "blocked", "blot", "limit",
                 "first_turn", "start_head", "caucasian", "exact_bearoff", "block",
                 "every_step", "opp", "qmap", "total_dice")

    def __init__(self, position: Position, roll: Roll, rules: Rules, first_turn: bool | None,
                 limit: int | None = None) -> None:
        self.position, self.rules, self.roll = position, rules, roll
        kind = self.kind = position.kind
        self.long = kind is GameKind.LONG
        opp = self.opp = position.opponent
        self.qmap = [0] + [kind.opponent_point(p) for p in range(1, 25)] + [0]
        counts = [0] + [opp[self.qmap[p]] for p in range(1, 25)] + [0]
        hold = 2 if rules.hitting else 1
        self.blocked = [c >= hold for c in counts]
        self.blot = [rules.hitting and c == 1 for c in counts]
        me = position.mover
        if first_turn is None:
            first_turn = self.long and me[HEAD] == sum(me) and me[HEAD] > 0
        self.first_turn = first_turn
        self.start_head = me[HEAD]
        self.limit = self._head_limit(first_turn) if limit is None else limit
        self.caucasian = rules.caucasian
        self.exact_bearoff = rules.bear_off == "exact"
        self.block = rules.block if self.long else "none"
        self.every_step = self.block != "none" and rules.block_check == "every-step"
        self.total_dice = len(roll.dice)

    def _head_limit(self, first_turn: bool) -> int:
        rules = self.rules
        if rules.head_limit <= 0:
            return 99
        if not first_turn or rules.head == "none":
            return rules.head_limit
        if rules.head == "doubles-list":
            ok = self.roll.is_double and self.roll.high in _FIRST_TURN_DOUBLES
            return rules.head_limit + 1 if ok else rules.head_limit
        return rules.head_limit + 1  # general: decided after generation

    # -------------------------------------------------------------- one step
    def step(self, me: list[int], s: int, d: int, hits: list[int], hitters: list[int]) -> tuple[int, bool] | Violation:
        """Check one die ``d`` from point ``s``; ``(target, hit)`` or the violation."""
        if me[s] <= 0:
            return Violation.NO_CHECKER
        if s != BAR and me[BAR] > 0:
            return Violation.BAR_FIRST
        t = s - d
        if t >= 1:
            if self.blocked[t]:
                return Violation.OPPONENT_POINT
            if s == HEAD and self.long and self.start_head - me[HEAD] >= self.limit:
                return Violation.HEAD
            if self.caucasian and me[t] > 0 and s in hitters and hitters.count(s) >= me[s]:
                return Violation.HIT_AND_HIDE
            return t, self.blot[t] and t not in hits
        if any(me[7:26]):
            return Violation.BEAR_OFF_NOT_HOME
        if t < 0 and (self.exact_bearoff or any(me[s + 1:7])):
            return Violation.BEAR_OFF_HIGHER
        return OFF, False

    def apply(self, me: list[int], s: int, t: int, hit: bool, hits: list[int], hitters: list[int]) -> None:
        me[s] -= 1
        me[t] += 1
        if self.caucasian:
            moving_hitter = s in hitters and hitters.count(s) > me[s]
            if moving_hitter:
                hitters.remove(s)
            if (hit and t <= 6) or (moving_hitter and t != OFF):
                hitters.append(t)
        if hit:
            hits.append(t)

    # --------------------------------------------------------- end of turn
    def block_ok(self, me: Sequence[int]) -> bool:
        """The six-block rule on a position of the mover (``me``)."""
        if self.block == "none":
            return True
        opp = self.opp
        if self.rules.block_path == "mover":
            return self._block_ok_mover(me)
        occupied = [False] * 26
        n = 0
        for p in range(1, 25):
            if me[p]:
                occupied[self.qmap[p]] = True
                n += 1
        if n < 6:
            return True
        run = 0
        for q in range(1, 26):
            if q <= 24 and occupied[q]:
                run += 1
                continue
            if run >= 6:
                lo = q - run
                if opp[OFF]:
                    pass
                elif self.block == "opponent-in-home":
                    if not any(opp[1:7]):
                        return False
                elif not any(opp[1:lo]):
                    return False
            run = 0
        return True

    def _block_ok_mover(self, me: Sequence[int]) -> bool:
        opp = self.opp
        for hi in range(24, 5, -1):
            lo = hi - 5
            if not all(me[p] for p in range(lo, hi + 1)):
                continue
            if lo >= 13:
                past = any(opp[1:lo - 12])
            elif hi <= 12:
                past = any(opp[1:lo + 12])
            else:
                past = any(opp[hi - 11:lo + 12])
            if self.block == "opponent-in-home":
                past = any(opp[1:7])
            if not past:
                return False
        return True

    def result(self, me: Sequence[int], hits: Sequence[int]) -> Position:
        opp = list(self.opp)
        for t in hits:
            opp[self.qmap[t]] -= 1
            opp[BAR] += 1
        p = self.position
        return Position(p.kind, tuple(opp), tuple(me), 1 - p.player)


# ---------------------------------------------------------------------------
# Generation

class _Candidate:
    __slots__ = ("rank", "steps", "me", "hits")

    def __init__(self, rank: tuple[int, int], steps: tuple[Step, ...], me: tuple[int, ...],
                 hits: tuple[int, ...]) -> None:
        self.rank, self.steps, self.me, self.hits = rank, steps, me, hits


def _generate(turn: _Turn) -> dict[tuple[tuple[int, ...], tuple[int, ...]], _Candidate]:
    """Every position reachable with any prefix of any order of the dice."""
    out: dict[tuple[tuple[int, ...], tuple[int, ...]], _Candidate] = {}
    seen: set[object] = set()
    me = list(turn.position.mover)
    steps: list[Step] = []
    hits: list[int] = []
    hitters: list[int] = []
    total = turn.total_dice
    every_step = turn.every_step

    def visit(remaining: tuple[int, ...]) -> None:
        used = total - len(remaining)
        key = (tuple(me), tuple(sorted(hits)))
        rank = (used, 0)
        if used == 1:  # which die was used (a bear-off may travel less than its die)
            rank = (1, turn.roll.high if remaining[0] != turn.roll.high else turn.roll.low)
        prev = out.get(key)
        if prev is None or rank > prev.rank:
            out[key] = _Candidate(rank, tuple(steps), key[0], key[1])
        if not remaining:
            return
        for i, d in enumerate(remaining):
            if d in remaining[:i]:
                continue
            rest = remaining[:i] + remaining[i + 1:]
            for s in range(25, 0, -1):
                if not me[s]:
                    continue
                r = turn.step(me, s, d, hits, hitters)
                if isinstance(r, Violation):
                    continue
                t, hit = r
                saved_hitters = hitters[:] if turn.caucasian else hitters
                turn.apply(me, s, t, hit, hits, hitters)
                state = (tuple(me), tuple(sorted(hits)), rest, tuple(sorted(hitters)))
                if state not in seen and (not every_step or turn.block_ok(me)):
                    seen.add(state)
                    steps.append(Step(s, t, hit))
                    visit(rest)
                    steps.pop()
                me[s] += 1
                me[t] -= 1
                if hit:
                    hits.pop()
                if turn.caucasian:
                    hitters[:] = saved_hitters

    visit(turn.roll.dice)
    return out


def _select(turn: _Turn, cands: dict[tuple[tuple[int, ...], tuple[int, ...]], _Candidate]) -> list[_Candidate]:
    """Apply the end-of-turn rules, the head exception and the maximum-dice rules."""
    legal = [c for c in cands.values() if turn.block_ok(c.me)]
    if turn.long and turn.first_turn and turn.rules.head == "general" and turn.limit > turn.rules.head_limit:
        base = turn.rules.head_limit
        within = [c for c in legal if turn.start_head - c.me[HEAD] <= base]
        if any(c.rank[0] == turn.total_dice for c in within):
            legal = within
    if not legal:
        return []
    most = max(c.rank[0] for c in legal)
    legal = [c for c in legal if c.rank[0] == most]
    if most == 1 and not turn.roll.is_double:
        larger = [c for c in legal if c.rank[1] == turn.roll.high]
        if larger:
            legal = larger
    return legal


def legal_plays(position: Position, roll: Roll, rules: Rules, *, first_turn: bool | None = None) -> LegalPlays:
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
    turn = _Turn(position, roll, rules, first_turn)
    chosen = _select(turn, _generate(turn))
    plays = [LegalPlay(Play(c.steps), turn.result(c.me, c.hits)) for c in chosen]
    if not plays:  # every candidate broke an end-of-turn rule: nothing may be played
        plays = [LegalPlay(Play(()), position.flip())]
    return LegalPlays(plays, position, roll, rules, turn.first_turn)


# ---------------------------------------------------------------------------
# Checking one play

def _die_paths(step: Step, dice: tuple[int, ...]) -> list[tuple[int, ...]]:
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
    return paths


def _decompositions(written: Sequence[Step], dice: tuple[int, ...]) -> list[list[tuple[int, int]]]:
    """Ways to cut the written moves into single-die segments ``(source, die)``
    using no more dice than the roll has (a double offers its die four times)."""
    out: list[list[tuple[int, int]]] = []

    def go(i: int, left: list[int], acc: list[tuple[int, int]]) -> None:
        if i == len(written):
            out.append(acc[:])
            return
        step = written[i]
        for path in _die_paths(step, tuple(left)):
            rest = left[:]
            s = step.source
            for d in path:
                rest.remove(d)
                acc.append((s, d))
                s -= d
            go(i + 1, rest, acc)
            del acc[len(acc) - len(path):]

    go(0, list(dice), [])
    return out


class _Attempt:
    """Simulates a written play die by die, remembering the deepest failure."""

    def __init__(self, turn: _Turn) -> None:
        self.turn = turn
        self.failure: tuple[int, Violation, str] | None = None
        self.success: tuple[list[int], list[int], list[Step], int] | None = None

    def fail(self, depth: int, violation: Violation, where: str) -> None:
        if self.failure is None or depth > self.failure[0]:
            self.failure = (depth, violation, where)

    def run(self, segments: Sequence[tuple[int, int]]) -> bool:
        turn = self.turn
        me = list(turn.position.mover)
        hits: list[int] = []
        hitters: list[int] = []
        done: list[Step] = []
        for s, d in segments:
            r = turn.step(me, s, d, hits, hitters)
            if isinstance(r, Violation):
                self.fail(len(done), r, str(Step(s, max(s - d, 0))))
                return False
            t, hit = r
            turn.apply(me, s, t, hit, hits, hitters)
            done.append(Step(s, t, hit))
            if turn.every_step and not turn.block_ok(me):
                self.fail(len(done), Violation.SIX_BLOCK, str(done[-1]))
                return False
        self.success = (me, hits, done, len(segments))
        return True

    def search(self, written: Sequence[Step]) -> bool:
        """Try the moves as written, then every other order of their segments."""
        cuts = _decompositions(written, self.turn.roll.dice)
        if not cuts:
            bad = next((w for i, w in enumerate(written)
                        if not _decompositions(written[:i + 1], self.turn.roll.dice)), written[-1])
            self.fail(0, Violation.NO_SUCH_DIE, str(bad))
            return False
        for cut in cuts:
            if self.run(cut):
                return True
        first_failure = self.failure
        for cut in cuts:
            for order in set(itertools.permutations(cut)):
                if self.run(order):
                    return True
        self.failure = first_failure
        return False


def check_play(position: Position, roll: Roll, play: Play | str, rules: Rules, *,
               first_turn: bool | None = None) -> Judgement:
    """Judge one play, naming the rule that fired when it is illegal.

    A play that uses every die is judged by replaying its steps and checking the
    end-of-turn rules, without generating the other plays; only a play that
    leaves dice unused, or takes a second head checker under the ``general``
    reading, is compared with the full set of legal plays.
    """
    if isinstance(play, str):
        play = Play.parse(play)
    turn = _Turn(position, roll, rules, first_turn)
    attempt = _Attempt(turn)
    written = play.steps
    if len(written) > turn.total_dice:
        return _illegal(Violation.NO_SUCH_DIE, f"{len(written)} moves for {turn.total_dice} dice",
                        position, roll, play, rules)
    if not attempt.search(written):
        assert attempt.failure is not None
        _, violation, where = attempt.failure
        return _illegal(violation, where, position, roll, play, rules)
    assert attempt.success is not None
    me, hits, done, used = attempt.success
    result = turn.result(me, hits)
    canonical = Play(tuple(done))
    if not turn.block_ok(me):
        return _illegal(Violation.SIX_BLOCK, "", position, roll, canonical, rules, result)
    heads = turn.start_head - me[HEAD] if turn.long else 0
    needs_generation = used < turn.total_dice or (
        turn.long and turn.first_turn and rules.head == "general" and heads > rules.head_limit)
    if needs_generation:
        chosen = _select(turn, _generate(turn))
        if (tuple(me), tuple(sorted(hits))) not in {(c.me, c.hits) for c in chosen}:
            most = max((c.rank[0] for c in chosen), default=0)
            if heads > rules.head_limit and most == used:
                violation = Violation.HEAD
            elif most > used:
                violation = Violation.DICE_NOT_USED
            else:
                violation = Violation.LARGER_DIE
            return _illegal(violation, "", position, roll, canonical, rules, result)
    return Judgement(True, None, "legal", result, canonical)


def _illegal(violation: Violation, where: str, position: Position, roll: Roll, play: Play,
             rules: Rules, result: Position | None = None) -> Judgement:
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


def apply_play(position: Position, roll: Roll, play: Play | str, rules: Rules, *,
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
        raise IllegalPlayError(f"{j.message} in position {position}", violation=j.violation,
                               position=position, roll=roll, play=play)
    assert j.result is not None
    return j.result
