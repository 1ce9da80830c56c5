"""Cubeful equity: what the doubling cube adds to a position's outcome
probabilities, in money play and at a match score, and the cube decision
before a roll.

**The model** is Janowski's (1993), in the form GNU Backgammon generalised to
match play (Jørn Thyssen's notes); this module implements it afresh from
the formulas, for any scoring table (a single, a gammon or mars, a
backgammon, home mars or koks, each worth the ruleset's points).  From the
probabilities of the side on roll, its win values ``W`` and loss values ``L``
(the average points of a win and of a loss), and the cube efficiency ``x``:

- **dead cube**: the cubeless value (points per cube in money play; match
  winning chances, MWC, through the match equity table at the score);
- **live cube**: a piecewise-linear function of P(win) through the points
  where a side is doubled out: in money play the take point
  ``(L - 1/2) / (W + L + 1/2)`` and the cash point ``(L + 1) / (W + L + 1/2)``;
  in a match the cash points come from the table, level by level from the
  cube that would be dead downwards;
- **cubeful** = ``x * live + (1 - x) * dead``, with the cube centred, owned
  by the side on roll, or owned by the other side.

Cube efficiency ``x`` (gnubg's defaults for backgammon): 0.68 in contact;
in a race ``0.55 + 0.00125 * pips`` of the side on roll, within 0.6-0.7; 0.6
once both sides are home (the one-sided bear-off database's class); 0 when the
game is over or the ruleset has no cube.  Long Nardy has no published
efficiencies: the same numbers are used, the race's pips scaled by 167/360
(the two games' starting counts).  That is an assumption, stated wherever it
is used.

**Units.**  Money equities are *normalised*: points per unit of the current
cube.  In a match every value is first a MWC, then, for comparison and
errors, **EMG** (equivalent-to-money-game equity, gnubg's "Eq."): the MWC
mapped linearly so that losing the current cube's value is -1 and winning it
+1.  An error of 0.05 EMG at cube 2 is 0.05 of the 2 points at stake, scaled
to money.

**At the leaf** (a position after a play, the other side to roll), the side
on roll takes its best cube action: ``max(ND, min(DT, DP))`` when it may
double.  **A cube decision** compares no double (ND), double/take (DT: the
cube doubled and turned over) and double/pass (DP: +1 in money; in a match
the MWC of winning the current cube).

>>> import numpy as np
>>> state = CubeState()          # money, centred cube
>>> p = np.array([[0.70, 0.0, 0.0, 0.0, 0.0]])   # 70% wins, no gammons
>>> from nardtools import find_ruleset
>>> d = cube_decision(p, np.zeros((1, 52), np.int8), state, find_ruleset("backgammon").rules, x=np.array([0.68]))
>>> d.proper, round(d.no_double, 3), round(d.double_take, 3)
('double, take', 0.581, 0.596)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .probabilities import CLASSES, exclusive
from .rows import furthest

if TYPE_CHECKING:
    from ..rules import Rules
    from .cube import MatchEquityTable

#: gnubg's cube efficiencies (``set cube efficiency``): contact, race (factor,
#: coefficient, least, most) and the one-sided bear-off class.
CONTACT_X = 0.68
RACE_FACTOR_X, RACE_COEFFICIENT_X, RACE_MIN_X, RACE_MAX_X = 0.00125, 0.55, 0.6, 0.7
BEAROFF_X = 0.6
#: Long Nardy's race pips are scaled by this to backgammon's (starting counts 167 / 360).
LONG_PIP_SCALE = 167 / 360
_EPSILON = 1e-7
#: :meth:`Valuer.outcomes` of probabilities: P(win), and each kind's probability of winning and of losing (n, K).
Outcomes = tuple[np.ndarray, np.ndarray, np.ndarray]


#: The least equity a cube action must lose to raise an alert (half the
#: last digit printed).
ALERT_FLOOR = 0.0005


@dataclass(frozen=True)
class CubeState:
    """The cube and the score as one decision sees them: the cube's value and
    owner (side 0 or 1, None when centred), the side on roll, the match
    length (0 for money play), the score before the game, the Crawford game,
    and the money rules Jacoby and beaver.

    >>> s = CubeState(length=7, score=(3, 5))
    >>> s.away, s.flipped().away, s.doubled().owner
    ((4, 2), (2, 4), 1)
    """

    value: int = 1
    owner: int | None = None
    mover: int = 0
    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False

    @property
    def money(self) -> bool:
        return not self.length

    @property
    def away(self) -> tuple[int, int]:
        """Points the side on roll needs, and the other side."""
        return self.length - self.score[self.mover], self.length - self.score[1 - self.mover]

    @property
    def post_crawford(self) -> bool:
        """Scores reached from this game are looked up after the Crawford game:
        it is the Crawford game, or a side is already one point away."""
        return self.crawford or 1 in self.away

    @property
    def relative_owner(self) -> str:
        """``centred``, ``owned`` (by the side on roll) or ``theirs``."""
        return "centred" if self.owner is None else "owned" if self.owner == self.mover else "theirs"

    @classmethod
    def under(cls, rules: Rules, value: int, owner: int | None, mover: int, length: int,
              score: tuple[int, int], crawford: bool) -> CubeState:
        """A state under ``rules``: Jacoby and beaver as the ruleset has them,
        in money play only; the Crawford game only in a match."""
        return cls(value, owner, mover, length, (score[0], score[1]), bool(crawford and length),
                   jacoby=rules.jacoby and not length, beaver=rules.beaver and not length)

    @classmethod
    def of_setup(cls, setup: Any, rules: Rules) -> CubeState:
        """The state a :class:`~nardtools.setup.Setup` carries (its side on
        roll, cube, score and Crawford game)."""
        return cls.under(rules, setup.cube, setup.cube_owner, setup.position.player, setup.match_length,
                         setup.score, setup.crawford)

    def units(self, met_name: str = "") -> str:
        """What this state's equities are."""
        return "money equity per cube" if self.money else f"EMG at the score ({met_name or 'match table'})"

    def flipped(self) -> CubeState:
        """The same cube and score, the other side on roll."""
        return dataclasses.replace(self, mover=1 - self.mover)

    def doubled(self) -> CubeState:
        """After the side on roll doubles and the other side takes."""
        return dataclasses.replace(self, value=2 * self.value, owner=1 - self.mover)

    def may_double(self, rules: Rules) -> bool:
        """The side on roll may double, and a double could gain: the ruleset's
        rule (:func:`~nardtools.game.why_no_double`), and in a match not when
        the side already wins the match with the current cube (a post-Crawford
        leader among them): such a double can only lose."""
        from ..game import why_no_double

        if why_no_double(rules, self.mover, cube=self.value, cube_owner=self.owner, match_length=self.length,
                         score=self.score, crawford=self.crawford) is not None:
            return False
        return self.money or self.away[0] > self.value

    def cube_alive(self) -> bool:
        """In a match, whether the cube can still matter: not in the Crawford
        game, not when both sides win the match with the current cube, not at
        2-away 2-away (gnubg's rule: the cube is turned at once there)."""
        a, b = self.away
        return self.money or not (self.crawford or (a <= self.value and b <= self.value) or a == b == 2)


class Valuer:
    """The cubeful values of positions for one game, ruleset, table and cube.

    ``values(p, rows, state)`` gives, for each row (a position with its side
    on roll, ``state.mover``), the side on roll's equity (normalised money or
    EMG) with its best cube action at the leaf; ``mwc`` gives match winning
    chances.
    """

    def __init__(self, rules: Rules, met: MatchEquityTable | None = None) -> None:
        from ..outcome import points_for

        self.rules = rules
        self.game = rules.game.value
        self.kinds = list(exclusive(np.zeros((1, len(CLASSES[self.game]))), self.game))
        self.values = np.array([points_for(k, rules) for k in self.kinds], float)
        if met is None:
            from .cube import kazaross_xg2
            met = kazaross_xg2()
        self.met = met
        #: The scalars of a state, kept: :meth:`_me` by (state, gain, loss) and
        #: :meth:`_mix`'s tables by (state, side, points, won).  A match's
        #: analysis asks each some thousands of times at a few dozen states.
        self._mwc: dict[tuple[CubeState, int, int], float] = {}
        self._tables: dict[tuple[CubeState, int, int, bool], np.ndarray] = {}

    # ------------------------------------------------------------ pieces
    def outcomes(self, p: np.ndarray) -> Outcomes:
        """P(win), and the probabilities of winning and of losing each kind (n, K)."""
        ex = exclusive(np.atleast_2d(p), self.game)
        won = np.stack([ex[k][0] for k in self.kinds], axis=1)
        lost = np.stack([ex[k][1] for k in self.kinds], axis=1)
        return np.atleast_2d(p)[:, 0], won, lost

    def efficiency(self, rows: np.ndarray) -> np.ndarray:
        """The cube efficiency of each row (see the module docstring)."""
        n = len(rows)
        if not self.rules.cube:
            return np.zeros(n)
        far = furthest(rows).astype(np.int64)
        back_mine, back_theirs = far[:, 0], far[:, 1]
        over = (back_mine == 0) | (back_theirs == 0)
        # contact exactly as .pips.is_race has it: in backgammon until the rearmost checkers have
        # passed each other; in Long Nardy (one way round) until both sides are on their points 1-12
        if self.game == "backgammon":
            contact = back_mine + back_theirs > 24
        else:
            contact = (back_mine > 12) | (back_theirs > 12)
        home = (back_mine <= 6) & (back_theirs <= 6)
        scale = 1.0 if self.game == "backgammon" else LONG_PIP_SCALE
        pips = rows[:, :26] @ np.arange(26) * scale
        race = np.clip(RACE_COEFFICIENT_X + RACE_FACTOR_X * pips, RACE_MIN_X, RACE_MAX_X)
        x = np.where(contact, CONTACT_X, np.where(home, BEAROFF_X, race))
        return np.where(over, 0.0, x)

    def _me(self, state: CubeState, gain: int, loss: int) -> float:
        """MWC of the side on roll after it wins ``gain`` points or loses ``loss``."""
        key = (state, gain, loss)
        mwc = self._mwc.get(key)
        if mwc is None:
            a, b = state.away
            mwc = self._mwc[key] = self.met.equity(a - gain, b - loss, post_crawford=state.post_crawford)
        return mwc

    def _table(self, state: CubeState, side: int, cube: int, won: bool) -> np.ndarray:
        """MWC of ``side`` (0 the side on roll, 1 the other) winning (or
        losing) each kind at ``cube``."""
        key = (state, side, cube, won)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = np.array([self._side_me(state, side, int(v * cube), won) for v in self.values])
        return table

    def _mix(self, state: CubeState, ratios: np.ndarray, cube: int, won: bool, side: int = 0) -> np.ndarray:
        """MWC (of ``side``: 0 the side on roll, 1 the other) when ``side``
        wins (or loses) at ``cube``, the kinds weighted by ``ratios`` (n, K)."""
        return np.asarray(ratios @ self._table(state, side, cube, won))

    def _side_me(self, state: CubeState, side: int, points: int, won: bool) -> float:
        if side == 0:
            return self._me(state, points, 0) if won else self._me(state, 0, points)
        return 1 - (self._me(state, 0, points) if won else self._me(state, points, 0))

    def eq_of_mwc(self, mwc: np.ndarray, state: CubeState) -> np.ndarray:
        """EMG of the side on roll: -1 losing the cube's value, +1 winning it."""
        win, lose = self._me(state, state.value, 0), self._me(state, 0, state.value)
        return (2 * mwc - (win + lose)) / (win - lose)

    def mwc_per_emg(self, state: CubeState) -> float:
        """Match winning chances per unit of EMG at this state (0 in money play)."""
        if state.money:
            return 0.0
        return (self._me(state, state.value, 0) - self._me(state, 0, state.value)) / 2

    def result_equity(self, state: CubeState, points: int) -> float:
        """The equity (normalised money, or EMG) of the side on roll when the
        game ends now with it winning ``points`` (losing, when negative): a
        resignation's worth.

        >>> from nardtools import find_ruleset
        >>> v = Valuer(find_ruleset("backgammon").rules)
        >>> v.result_equity(CubeState(value=2), -4), round(v.result_equity(CubeState(value=2, length=7), -2), 9)
        (-2.0, -1.0)
        """
        if state.money:
            return points / state.value
        mwc = self._me(state, points, 0) if points >= 0 else self._me(state, 0, -points)
        return float(self.eq_of_mwc(np.array(mwc), state))

    def mwc_of_eq(self, eq: np.ndarray, state: CubeState) -> np.ndarray:
        """The inverse of :meth:`eq_of_mwc`."""
        win, lose = self._me(state, state.value, 0), self._me(state, 0, state.value)
        return 0.5 * (eq * (win - lose) + (win + lose))

    # ------------------------------------------------------------ money
    def money(self, p: np.ndarray, state: CubeState, x: np.ndarray, parts: Outcomes | None = None) -> np.ndarray:
        """Normalised cubeful money equity of the side on roll, the cube as
        ``state`` has it (Janowski; ``parts``: :meth:`outcomes` of ``p``, if known)."""
        pw, won, lost = parts or self.outcomes(p)
        jacoby = state.jacoby and state.owner is None
        dead_values = np.ones_like(self.values) if jacoby else self.values
        dead = won @ dead_values - lost @ dead_values
        if not self.rules.cube:
            return np.asarray(dead)
        safe_w, safe_l = np.maximum(pw, _EPSILON), np.maximum(1 - pw, _EPSILON)
        w, l_ = (won @ self.values) / safe_w, (lost @ self.values) / safe_l
        tp = (l_ - 0.5) / (w + l_ + 0.5)
        cp = (l_ + 1.0) / (w + l_ + 0.5)
        owner = state.relative_owner
        if owner == "centred":
            low = -1.0 if jacoby else -l_ + (l_ - 1.0) * pw / tp
            high = 1.0 if jacoby else 1.0 + (w - 1.0) * (pw - cp) / (1.0 - cp)
            live = np.where(pw < tp, low, np.where(pw < cp, -1.0 + 2.0 * (pw - tp) / (cp - tp), high))
        elif owner == "owned":
            live = np.where(pw < cp, -l_ + (1.0 + l_) * pw / cp, 1.0 + (w - 1.0) * (pw - cp) / (1.0 - cp))
        else:
            live = np.where(pw < tp, -l_ + (l_ - 1.0) * pw / tp, -1.0 + (w + 1.0) * (pw - tp) / (1.0 - tp))
        out = dead * (1 - x) + live * x
        return np.asarray(np.where((pw <= _EPSILON) | (pw >= 1 - _EPSILON), dead, out))

    # ------------------------------------------------------------ match
    def dead_mwc(self, p: np.ndarray, state: CubeState, parts: Outcomes | None = None) -> np.ndarray:
        """MWC of the side on roll with the cube dead at its value (``parts``: :meth:`outcomes` of ``p``, if known)."""
        _, won, lost = parts or self.outcomes(p)
        c = state.value
        return np.asarray(won @ self._table(state, 0, c, True) + lost @ self._table(state, 0, c, False))

    def cash_points(self, ratios: tuple[np.ndarray, np.ndarray], state: CubeState) -> tuple[np.ndarray, np.ndarray]:
        """Each side's live-cube cash point at the current cube (in its own
        P(win)): from the cube that would be dead for a side downwards, each
        level's take point found on the line to the level above it."""
        a, b = state.away
        n0, n1 = a - 1, b - 1
        dead, levels = state.value, 0
        while n0 >= 2 * dead and n1 >= 2 * dead:
            levels += 1
            dead *= 2
        needs = (n0, n1)
        live: dict[tuple[int, int], np.ndarray] = {}
        cube = dead
        for level in range(levels, -1, -1):
            for k in (0, 1):
                win_r, lose_r = ratios[k], ratios[1 - k]
                cash = self._side_me(state, k, cube, True)
                if n0 < 2 * cube or n1 < 2 * cube:
                    # the doubled cube is dead (for one side at least); the taker
                    # redoubles at once when it costs nothing (a cube worth twice)
                    prime = 2 * cube if needs[k] < 2 * cube <= needs[1 - k] else cube
                    lose_all = self._mix(state, lose_r, 2 * prime, False, k)
                    win_all = self._mix(state, win_r, 2 * prime, True, k)
                    live[k, level] = (lose_all - cash) / (lose_all - win_all)
                else:
                    redouble_pass = self._side_me(state, k, 2 * cube, False)
                    win_all = self._mix(state, win_r, 2 * cube, True, k)
                    live[k, level] = 1 - live[1 - k, level + 1] * (cash - win_all) / (redouble_pass - win_all)
            cube //= 2
        return live[0, 0], live[1, 0]

    def match(self, p: np.ndarray, state: CubeState, x: np.ndarray, parts: Outcomes | None = None) -> np.ndarray:
        """Cubeful MWC of the side on roll, the cube as ``state`` has it
        (``parts``: :meth:`outcomes` of ``p``, if known)."""
        parts = parts or self.outcomes(p)
        dead = self.dead_mwc(p, state, parts)
        if not self.rules.cube or not state.cube_alive():
            return dead
        pw, won, lost = parts
        win_r = won / np.maximum(pw, 1e-300)[:, None] * (pw > 0)[:, None]
        lose_r = lost / np.maximum(1 - pw, 1e-300)[:, None] * (pw < 1)[:, None]
        win_r[pw <= 0, 0] = 1.0
        lose_r[pw >= 1, 0] = 1.0
        cp_me, cp_them = self.cash_points((win_r, lose_r), state)
        c = state.value
        cash, opp_cash = self._me(state, c, 0), self._me(state, 0, c)
        win_all = self._mix(state, win_r, c, True)
        lose_all = self._mix(state, lose_r, c, False)
        owner = state.relative_owner
        opp_tg, tg = 1.0 - cp_them, cp_me

        def rising(p0: np.ndarray | float, e0: np.ndarray | float, p1: np.ndarray | float, e1: np.ndarray | float
                   ) -> np.ndarray:
            span = np.where(np.abs(p1 - p0) > 0, p1 - p0, 1.0)
            return np.asarray(e0 + (e1 - e0) * (pw - p0) / span)

        if owner == "centred":
            live = np.where(pw <= opp_tg, np.where(opp_tg > 0, rising(0.0, lose_all, opp_tg, opp_cash), lose_all),
                            np.where(pw < tg, rising(opp_tg, opp_cash, tg, cash),
                                     np.where(tg < 1, rising(tg, cash, 1.0, win_all), win_all)))
        elif owner == "owned":
            live = np.where(pw <= tg, np.where(tg > 0, rising(0.0, lose_all, tg, cash), lose_all),
                            np.where(tg < 1, rising(tg, cash, 1.0, win_all), win_all))
        else:
            live = np.where(pw <= opp_tg, np.where(opp_tg > 0, rising(0.0, lose_all, opp_tg, opp_cash), lose_all),
                            rising(opp_tg, opp_cash, 1.0, win_all))
        return np.asarray(dead * (1 - x) + live * x)

    # ------------------------------------------------------------ decisions
    def cubeful(self, p: np.ndarray, state: CubeState, x: np.ndarray, parts: Outcomes | None = None) -> np.ndarray:
        """The side on roll's cubeful value holding the cube as it is: money
        normalised, or EMG at the score (at the current cube)."""
        if state.money:
            return self.money(p, state, x, parts)
        return self.eq_of_mwc(self.match(p, state, x, parts), state)

    def options(self, p: np.ndarray, state: CubeState, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """No double, double/take and double/pass for the side on roll, in its
        units at the current cube (money normalised, or EMG)."""
        parts = self.outcomes(p)   # (one split of p for both actions)
        nd = self.cubeful(p, state, x, parts)
        taken = state.doubled()
        if state.money:
            dt = 2 * self.money(p, taken, x, parts)
        else:
            dt = self.eq_of_mwc(self.match(p, taken, x, parts), state)
        return nd, dt, 1.0

    def leaf(self, p: np.ndarray, rows: np.ndarray, state: CubeState) -> np.ndarray:
        """The side on roll's value of each row with its best cube action."""
        x = self.efficiency(rows)
        if not state.may_double(self.rules):
            return self.cubeful(p, state, x)
        nd, dt, dp = self.options(p, state, x)
        return np.where((dt >= nd) & (dp >= nd), np.minimum(dt, dp), nd)


@dataclass(frozen=True)
class CubeDecision:
    """The cube decision of the side on roll before its roll: the values of
    no double, double/take and double/pass (its units: money normalised, or
    EMG), the proper action, and what the taker should answer."""

    no_double: float
    double_take: float
    double_pass: float
    redouble: bool = False
    beaver: bool = False

    @property
    def doubling(self) -> float:
        """The doubler's value of doubling, the taker answering best."""
        return min(self.double_take, self.double_pass)

    @property
    def best(self) -> float:
        return max(self.no_double, self.doubling)

    @property
    def should_double(self) -> bool:
        return self.double_take >= self.no_double and self.double_pass >= self.no_double

    @property
    def should_take(self) -> bool:
        return self.double_take < self.double_pass

    @property
    def should_beaver(self) -> bool:
        """Money play with beavers: the taker beavers when the double/take
        value is negative for the doubler (the taker is the favourite)."""
        return self.beaver and self.should_take and self.double_take < 0

    @property
    def proper(self) -> str:
        """The proper action, worded as GNU Backgammon words it."""
        word = "redouble" if self.redouble else "double"
        answer = "beaver" if self.should_beaver else "take" if self.should_take else "pass"
        if self.should_double:
            return f"{word}, {answer}"
        if self.no_double > self.double_pass or self.double_take > self.double_pass:
            return f"too good to {word}, {answer}"   # playing on beats cashing
        return f"no {word}, {answer}"

    def doubler_error(self, doubled: bool) -> float:
        """Equity the doubler lost by doubling or not."""
        return max(self.best - (self.doubling if doubled else self.no_double), 0.0)

    def taker_error(self, response: str) -> float:
        """Equity the taker lost by ``take``, ``pass`` or ``beaver`` (its own
        view: the doubler's value, sign reversed)."""
        answers = {"take": self.double_take, "pass": self.double_pass}
        if self.beaver:
            answers["beaver"] = 2 * self.double_take
        best = min(answers.values())
        return max(answers.get(response, self.double_take) - best, 0.0)

    def alert(self, action: str) -> str | None:
        """GNU Backgammon's cube alert for ``action`` (``no double``,
        ``double``, ``take``, ``pass``, ``beaver``): ``missed double``,
        ``wrong double``, ``wrong take``, ``wrong pass`` (or None).  A missed
        double is a double (not a too-good or optional one) not given.  A
        decision that costs less than :data:`ALERT_FLOOR` (what prints as
        0.000) raises no alert: no "wrong take -0.000"."""
        if self.error(action) < ALERT_FLOOR:
            return None
        if action == "no double":
            optional = abs(self.doubling - self.no_double) <= 1e-5
            return "missed double" if self.should_double and not optional else None
        if action == "double":
            return "wrong double"
        if action in ("take", "beaver"):
            return "wrong take" if self.double_take > self.double_pass else None
        return "wrong pass" if self.double_pass > self.double_take else None

    def error(self, action: str) -> float:
        """Equity lost by ``action``, by whichever side took it."""
        if action in ("no double", "double"):
            return self.doubler_error(action == "double")
        return self.taker_error(action)

    def best_action(self, action: str) -> str:
        """The proper action of the side that took ``action``."""
        if action in ("no double", "double"):
            return "double" if self.should_double else "no double"
        return "beaver" if self.should_beaver else "take" if self.should_take else "pass"

    def as_dict(self) -> dict[str, Any]:
        return {"proper": self.proper, "no_double": self.no_double, "double_take": self.double_take,
                "double_pass": self.double_pass}

    def __str__(self) -> str:
        word = "redouble" if self.redouble else "double"
        return (f"{self.proper} (no {word} {self.no_double:+.3f}, {word}/take {self.double_take:+.3f}, "
                f"{word}/pass {self.double_pass:+.3f})")

    def close(self) -> bool:
        """Close enough to count among a player's cube decisions (gnubg's
        rule: doubling costs less than 0.16)."""
        return self.best - min(self.double_take, 1.0) < 0.16


def cube_decision(p: np.ndarray, rows: np.ndarray, state: CubeState, rules: Rules,
                  met: MatchEquityTable | None = None, x: np.ndarray | None = None,
                  valuer: Valuer | None = None) -> CubeDecision:
    """The cube decision of the side on roll of ``rows[0]`` with probabilities ``p[0]``."""
    return cube_decisions(p, rows, state, rules, met, x, valuer)[0]


def cube_decisions(p: np.ndarray, rows: np.ndarray, state: CubeState, rules: Rules,
                   met: MatchEquityTable | None = None, x: np.ndarray | None = None,
                   valuer: Valuer | None = None) -> list[CubeDecision]:
    """The cube decision of the side on roll of each row (probabilities
    ``p``), all at the same stakes ``state``."""
    v = valuer or Valuer(rules, met)
    eff = v.efficiency(rows) if x is None else x
    nd, dt, dp = v.options(np.atleast_2d(p), state, eff)
    return [CubeDecision(float(a), float(b), float(dp), redouble=state.owner is not None,
                         beaver=state.money and state.beaver) for a, b in zip(nd, dt)]
