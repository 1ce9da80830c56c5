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

import dataclasses
import functools
import itertools
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .core import compiled, pack_rules
from .core import reference_engine as reference_engine  # (part of this module's interface)
from .dice import Dice, Roll
from .errors import Violation, play_error
from .play import Play, Step, point_text
from .position import BAR, HEAD, OFF, GameKind, Position
from .rules import Rules, RulesLike, rules_for

_FIRST_TURN_DOUBLES = {3, 4, 6}
_OCCUPIED = bytes([0] + [1] * 255)  # bytes.translate table: any count > 0 -> 1
_SIX = b"\1" * 6
_QMAP = {kind: [0] + [kind.opponent_point(p) for p in range(1, 25)] + [0] for kind in GameKind}
_FACING = {kind: operator.itemgetter(*qmap) for kind, qmap in _QMAP.items()}  # opponent side -> my numbering


def on_first_turn(side: Sequence[int], rules: Rules) -> bool:
    """Whether a side plays its first turn, judged from its checkers when
    the game's history is not known: in Long Nardy, every checker still on
    the head (the head rule's first-turn exceptions); never in backgammon.
    The one definition of the reference and of playouts without a history
    (the compiled core's ``board.c`` computes the same); a game that knows
    its history asks :attr:`~nardtools.game.Game.first_turn`.

    >>> from nardtools import Position, find_ruleset
    >>> on_first_turn(Position.start("long").mover, find_ruleset("long").rules)
    True
    """
    return rules.is_long and side[HEAD] == sum(side) and side[HEAD] > 0


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

    def __init__(self, chosen: Sequence[_Candidate], turn: _Turn) -> None:
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
            lp = self._plays[i] = LegalPlay(_play(c), self._turn.result(c.me, c.hits))
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
            for t in c.hits:   # (as _Turn.result: each checker hit goes to the bar)
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
# One side's turn: facts shared by generation and checking.

class _Turn:
    """What one side's turn with one roll needs to know, computed once."""

    def __init__(self, position: Position, roll: Roll | Dice, rules: RulesLike, first_turn: bool | None,
                 limit: int | None = None) -> None:
        rules = rules_for(position.kind, rules)
        self.position, self.rules, self.roll = position, rules, roll
        self.dice = roll.dice
        self.double = roll.is_double
        self.whole_roll = isinstance(roll, Roll)
        kind = self.kind = position.kind
        self.long = kind is GameKind.LONG
        self.opp = position.opponent
        self.qmap = _QMAP[kind]
        # the opponent's checkers on each of my points (none on off and bar):
        # blocked[p], my point p is closed to me; blot[p], a lone checker I can hit
        facing = list(_FACING[kind](self.opp))
        facing[0] = facing[BAR] = 0
        hold = 2 if rules.hitting else 1
        self.blocked = [n >= hold for n in facing]
        self.blot = [n == 1 for n in facing] if rules.hitting else [False] * 26
        me = position.mover
        if first_turn is None:
            first_turn = on_first_turn(me, rules)
        self.first_turn = first_turn
        self.start_head = me[HEAD]
        self.limit = self._head_limit(first_turn) if limit is None else limit
        self.caucasian = rules.caucasian
        self.exact_bearoff = rules.bear_off == "exact"
        self.block = rules.block if self.long else "none"
        if self.block != "none" and not self._block_possible():
            self.block = "none"  # no six-block can be illegal this turn
        self.every_step = self.block != "none" and rules.block_check == "every-step"
        self.total_dice = len(self.dice)

    def _head_limit(self, first_turn: bool) -> int:
        rules = self.rules
        if rules.head_limit <= 0:
            return 99
        if not first_turn or rules.head == "none":
            return rules.head_limit
        if rules.head == "doubles-list":
            ok = self.whole_roll and self.double and self.roll.high in _FIRST_TURN_DOUBLES
            return rules.head_limit + 1 if ok else rules.head_limit
        return rules.head_limit + 1  # general: decided after generation

    def _block_possible(self) -> bool:
        """Whether any six-block could be illegal this turn.  Under ``ahead`` a
        run is illegal only if it lies wholly below the opponent's most advanced
        checker (in its numbering): impossible once that checker is on its 6 or
        lower, or the opponent has borne off.  Under ``opponent-in-home`` no
        block is illegal once an opponent checker is home or off."""
        opp = self.opp
        if self.rules.block_path == "mover":
            return True  # borne-off checkers do not count in that reading
        if opp[OFF]:
            return False
        if self.block == "opponent-in-home":
            return not any(opp[1:7])
        lowest = next((q for q in range(1, 25) if opp[q]), 25)
        return lowest > 6

    # -------------------------------------------------------------- one step
    def step(self, me: list[int], s: int, d: int, hits: list[int], hitters: list[int]) -> tuple[int, bool] | Violation:
        """Check one die ``d`` from point ``s``; ``(target, hit)`` or the violation."""
        if me[s] <= 0:
            return Violation.NO_CHECKER
        rules = self.rules
        if s != BAR and me[BAR] > 0 and rules.bar_first:
            return Violation.BAR_FIRST
        t = s - d
        if t >= 1:
            if self.blocked[t]:
                return Violation.OPPONENT_POINT
            if s <= 6 and not rules.move_inside_home:
                return Violation.INSIDE_HOME
            if rules.hit_after_home and self.blot[t] and t not in hits and not any(me[1:7]):
                return Violation.NO_HIT
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
        """The six-block rule on a position of the mover (``me``).

        Runs are found on a byte string of occupied points, in the opponent's
        numbering (default) or the mover's (``block-path=mover``)."""
        if self.block == "none":
            return True
        mover_path = self.rules.block_path == "mover"
        # index i is the opponent's point i+1 (my 13..24, then my 1..12), or my point i+1
        order = list(me[1:25]) if mover_path else list(me[13:25]) + list(me[1:13])
        flags = bytes(order).translate(_OCCUPIED)
        i = flags.find(_SIX)
        while i >= 0:
            if not (self._window_ok(i + 1) if mover_path else self._run_ok(i + 1)):
                return False
            if mover_path:  # every window of six counts
                i = flags.find(_SIX, i + 1)
                continue
            end = flags.find(b"\0", i)
            if end < 0:
                break
            i = flags.find(_SIX, end)
        return True

    def _run_ok(self, lo: int) -> bool:
        """A run whose lowest point, in the opponent's numbering, is ``lo``."""
        opp = self.opp
        if opp[OFF]:
            return True
        if self.block == "opponent-in-home":
            return any(opp[1:7])
        return any(opp[1:lo])

    def _window_ok(self, lo: int) -> bool:
        """A window of my points ``lo..lo+5`` (MetinGames reading): legal iff an
        opponent checker on the board is past it along the opponent's path."""
        opp = self.opp
        if self.block == "opponent-in-home":
            return any(opp[1:7])
        hi = lo + 5
        if lo >= 13:
            return any(opp[1:lo - 12])
        if hi <= 12:
            return any(opp[1:lo + 12])
        return any(opp[hi - 11:lo + 12])  # strictly between the window's halves

    def result(self, me: Sequence[int], hits: Sequence[int]) -> Position:
        opp = list(self.opp)
        for t in hits:
            opp[self.qmap[t]] -= 1
            opp[BAR] += 1
        p = self.position
        return Position._trusted(p.kind, tuple(opp), tuple(me), 1 - p.player)


# ---------------------------------------------------------------------------
# Generation

class _Candidate:
    """A reachable end of turn; ``steps`` are ``(source, target, hit)`` triples."""

    __slots__ = ("hits", "me", "rank", "steps")

    def __init__(self, rank: tuple[int, int], steps: tuple[tuple[int, int, bool], ...],
                 me: tuple[int, ...], hits: tuple[int, ...]) -> None:
        self.rank, self.steps, self.me, self.hits = rank, steps, me, hits


def _play(c: _Candidate) -> Play:
    return Play(tuple(Step(*x) for x in c.steps))


_Key = tuple[tuple[int, ...], tuple[int, ...]]
_Steps = tuple[tuple[int, int, bool], ...]
#: Reachable ends of turn by rank: ``(dice used, die)`` where ``die`` is the die
#: a one-die play used (0 otherwise); within a rank, the first way found.
_Reach = dict[tuple[int, int], dict[_Key, _Steps]]


def _key(me: list[int], hits: list[int]) -> _Key:
    return tuple(me), tuple(sorted(hits)) if hits else ()


def _generate(turn: _Turn) -> _Reach:
    """Every position reachable with any prefix of any order of the dice: each
    distinct die of those left is tried in turn, every checker from the bar
    down, and a state (board, hits, dice left, hitters) is explored once.  A
    rank's ends keep the order they were first reached in, with the first way
    found to each: that order and those steps are the canonical ones, which
    the compiled core reproduces."""
    reach: _Reach = {}
    seen: set[object] = set()
    me = list(turn.position.mover)
    steps: list[tuple[int, int, bool]] = []
    hits: list[int] = []
    hitters: list[int] = []
    roll = turn.roll
    total = turn.total_dice
    every_step = turn.every_step

    def visit(remaining: tuple[int, ...]) -> None:
        used = total - len(remaining)
        rank = (used, 0)
        if used == 1 and not turn.double and total == 2:  # which die was used
            rank = (1, roll.high if remaining[0] != roll.high else roll.low)
        reach.setdefault(rank, {}).setdefault(_key(me, hits), tuple(steps))
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
                    steps.append((s, t, hit))
                    visit(rest)
                    steps.pop()
                me[s] += 1
                me[t] -= 1
                if hit:
                    hits.pop()
                if turn.caucasian:
                    hitters[:] = saved_hitters

    visit(turn.dice)
    return reach


def _select(turn: _Turn, reach: _Reach) -> list[_Candidate]:
    """Apply the end-of-turn rules, the head exception and the maximum-dice rules.

    Ranks are visited from the most dice down (and, for one die, the larger
    first); the first rank with a play that passes the end-of-turn rules gives
    the legal plays: that is the maximum-dice rule and the larger-die rule."""
    block_ok = turn.block_ok
    general = (turn.long and turn.first_turn and turn.rules.head == "general"
               and turn.limit > turn.rules.head_limit)
    base = turn.rules.head_limit
    start_head = turn.start_head
    if general:
        # the second head checker is allowed only if no play with one uses every die
        full = reach.get((turn.total_dice, 0), {})
        general = any(start_head - k[0][HEAD] <= base and block_ok(k[0]) for k in full)
    for rank in sorted(reach, reverse=True):
        level = reach[rank]
        if general:
            level = {k: v for k, v in level.items() if start_head - k[0][HEAD] <= base}
        legal = [_Candidate(rank, steps, key[0], key[1]) for key, steps in level.items() if block_ok(key[0])]
        if legal:
            return legal
    return []


# ---------------------------------------------------------------------------
# The compiled core (nardtools._core, see nardtools.core) does the same search
# in C and gives the same plays, in the same order, with the same steps
# (tests/test_core.py); the search above is the reference it follows, and the
# fallback when the core is absent or NARDTOOLS_ENGINE=reference.

def _legal(turn: _Turn, *, core: bool = True) -> Sequence[_Candidate]:
    """The legal ends of turn, from the core when it is there."""
    compiled_core = compiled() if core else None
    if compiled_core is not None:
        rows = compiled_core.legal_plays(pack_rules(turn.rules), turn.position.mover, turn.opp, turn.dice,
                                         turn.whole_roll, int(turn.first_turn))
        if rows is not None:
            return [_Candidate((used, die), steps, me, _hit_points(mask)) for used, die, me, mask, steps in rows]
    return _select(turn, _generate(turn))


@functools.lru_cache(maxsize=4096)
def _hit_points(mask: int) -> tuple[int, ...]:
    """The points of a mask of hits (bit p: point p), in order."""
    return tuple(p for p in range(1, 25) if mask >> p & 1)


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
    turn = _Turn(position, roll, rules, first_turn)
    return LegalPlays(_legal(turn), turn)


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

    def __init__(self, turn: _Turn) -> None:
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
    turn = _Turn(position, roll, rules, first_turn)
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
        chosen = list(_legal(turn, core=core))
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
