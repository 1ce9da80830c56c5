"""One side's turn with the dice rolled (:class:`RolledTurn`: what legal
plays and the check of a play share) and the search for its legal ends
(:func:`legal_ends`): the readable reference the compiled core follows.

A turn is never built greedily die by die: every sequence of steps is
explored (with memoisation), the end-of-turn rules filter the results, then
the maximum-dice and larger-die rules choose among what is left.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence

from .core import compiled, pack_rules
from .core import reference_engine as reference_engine  # (part of this module's interface)
from .dice import Dice, Roll
from .errors import Violation
from .play import Play, Step
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


# ---------------------------------------------------------------------------
# One side's turn: facts shared by generation and checking.

class RolledTurn:
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

class Candidate:
    """A reachable end of turn; ``steps`` are ``(source, target, hit)`` triples."""

    __slots__ = ("hits", "me", "rank", "steps")

    def __init__(self, rank: tuple[int, int], steps: tuple[tuple[int, int, bool], ...],
                 me: tuple[int, ...], hits: tuple[int, ...]) -> None:
        self.rank, self.steps, self.me, self.hits = rank, steps, me, hits


def candidate_play(c: Candidate) -> Play:
    return Play(tuple(Step(*x) for x in c.steps))


_Key = tuple[tuple[int, ...], tuple[int, ...]]
_Steps = tuple[tuple[int, int, bool], ...]
#: Reachable ends of turn by rank: ``(dice used, die)`` where ``die`` is the die
#: a one-die play used (0 otherwise); within a rank, the first way found.
_Reach = dict[tuple[int, int], dict[_Key, _Steps]]


def _key(me: list[int], hits: list[int]) -> _Key:
    return tuple(me), tuple(sorted(hits)) if hits else ()


def _generate(turn: RolledTurn) -> _Reach:
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


def _select(turn: RolledTurn, reach: _Reach) -> list[Candidate]:
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
        legal = [Candidate(rank, steps, key[0], key[1]) for key, steps in level.items() if block_ok(key[0])]
        if legal:
            return legal
    return []


# ---------------------------------------------------------------------------
# The compiled core (nardtools._core, see nardtools.core) does the same search
# in C and gives the same plays, in the same order, with the same steps
# (tests/test_core.py); the search above is the reference it follows, and the
# fallback when the core is absent or NARDTOOLS_ENGINE=reference.

def legal_ends(turn: RolledTurn, *, core: bool = True) -> Sequence[Candidate]:
    """The legal ends of turn, from the core when it is there."""
    compiled_core = compiled() if core else None
    if compiled_core is not None:
        rows = compiled_core.legal_plays(pack_rules(turn.rules), turn.position.mover, turn.opp, turn.dice,
                                         turn.whole_roll, int(turn.first_turn))
        if rows is not None:
            return [Candidate((used, die), steps, me, _hit_points(mask)) for used, die, me, mask, steps in rows]
    return _select(turn, _generate(turn))


@functools.lru_cache(maxsize=4096)
def _hit_points(mask: int) -> tuple[int, ...]:
    """The points of a mask of hits (bit p: point p), in order."""
    return tuple(p for p in range(1, 25) if mask >> p & 1)
