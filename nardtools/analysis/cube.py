"""Cube hints in races: the counting rules' verdicts, and verdicts from the
race odds for money play (Janowski's cube model) and for match play (a match
equity table).

**Money.**  From the side on roll's race odds, ``W`` and ``L`` are the average
values of its wins and losses (a gammon or mars counts double, or as the
ruleset's scoring table says).  Janowski's model (1993) mixes a live cube (the
game's equity changes continuously; a cube is doubled exactly at the other
side's take point) and a dead cube with the cube efficiency ``x`` (0.68 is usual
for races)::

    live take point of a side with values W, L:   (L - 1/2) / (W + L + 1/2)
    dead equity:                                  p W - (1 - p) L
    live equity, linear between the take points:  owned / centred / the other side's
    cubeful equity:                               x * live + (1 - x) * dead

and the verdict compares no double (ND), double/take (DT, twice the equity
with the other side owning the cube) and double/pass (DP = 1).  ``x = 1`` is
the fully live cube (take point 20% without gammons), ``x = 0`` the dead cube
(25%).

**Match.**  With a match equity table ``M(a, b)`` (the chance of winning a
match needing ``a`` points against ``b``), each decision's match winning
chance is the sum over the outcomes of the race (single, gammon/mars, home
mars) of their probability times ``M`` after them, at the current cube for ND
and twice it for DT (a dead cube: the last roll's logic, conservative for long
races).  The default table is Kazaross-XG2 (shipped, with its notice); any
other can be read from a CSV file with :func:`read_met`.

>>> from nardtools import Position
>>> from nardtools.analysis.race import race_odds
>>> hint = money_hint(race_odds(Position.parse("backgammon X 3:1,2:1 / 6:2")))
>>> hint.verdict
'double, pass'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AnalysisError

if TYPE_CHECKING:  # the race module (and its bear-off databases) loads when a race is valued
    from .race import RaceOdds

#: The usual cube efficiency in races.
RACE_CUBE_EFFICIENCY = 0.68


@dataclass(frozen=True)
class CubeHint:
    """A verdict, where it came from, and the numbers behind it."""

    source: str
    verdict: str
    detail: str
    numbers: dict[str, float] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.source}: {self.verdict} ({self.detail})"

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "verdict": self.verdict, "detail": self.detail, "numbers": self.numbers}


def win_values(odds: RaceOdds, values: tuple[float, float, float] = (1, 2, 2)) -> tuple[float, float]:
    """Average value of a win and of a loss for the side on roll, with a
    single, a gammon/mars and a home mars worth ``values``."""
    from .race import valued_outcomes

    won, lost = valued_outcomes(odds, values)
    p, q = odds.p_win, 1 - odds.p_win
    return (won / p if p > 0 else values[0]), (lost / q if q > 0 else values[0])


def _take_point(w: float, l: float) -> float:
    """The live-cube take point of a side whose wins are worth ``w`` and losses ``l``."""
    return (l - 0.5) / (w + l + 0.5)


def _line(p: float, p0: float, e0: float, p1: float, e1: float) -> float:
    if p <= p0:
        return e0
    if p >= p1:
        return e1
    return e0 + (e1 - e0) * (p - p0) / (p1 - p0)


def money_equities(p: float, w: float, l: float, x: float) -> dict[str, float]:
    """Cubeful equities (per unit of the current cube) of the side on roll:
    ``centred``, ``owned`` (by it), ``theirs`` (the other side owns it)."""
    mine = _take_point(w, l)  # below it the other side cashes
    cash = 1 - _take_point(l, w)  # above it the side on roll cashes
    dead = p * w - (1 - p) * l
    live = {"centred": _line(p, mine, -1.0, cash, 1.0), "owned": _line(p, 0.0, -l, cash, 1.0),
            "theirs": _line(p, mine, -1.0, 1.0, w)}
    return {k: x * v + (1 - x) * dead for k, v in live.items()}


def money_hint(odds: RaceOdds, *, cube_owner: str = "centred", x: float = RACE_CUBE_EFFICIENCY,
               values: tuple[float, float, float] = (1, 2, 2)) -> CubeHint:
    """The money verdict for the side on roll (``cube_owner`` ``centred`` or ``owned``)."""
    if cube_owner not in ("centred", "owned"):
        raise AnalysisError("the side on roll can double only with the cube centred or its own")
    w, l = win_values(odds, values)
    p = odds.p_win
    eq = money_equities(p, w, l, x)
    nd = eq[cube_owner]
    dt = 2 * eq["theirs"]
    dp = 1.0
    opponent_take = 1 - _blend_take_point(l, w, x)
    word = "double" if cube_owner == "centred" else "redouble"
    if dt >= dp:  # the other side should pass
        verdict = f"{word}, pass" if dp > nd else "too good to double, pass"
    else:
        verdict = f"{word}, take" if dt > nd else "no double, take"
    numbers = {"p_win": p, "W": w, "L": l, "x": x, "no_double": nd, "double_take": dt, "double_pass": dp,
               "take_point": 1 - opponent_take, "double_point": _double_point(w, l, x, cube_owner)}
    detail = (f"P(win) {p:.4f}, W {w:.3f}, L {l:.3f}, x {x}: ND {nd:+.3f}, DT {dt:+.3f}, DP +1; "
              f"the other side can take up to P(win) {opponent_take:.3f}, "
              f"doubling from {numbers['double_point']:.3f}")
    exactness = "exact race odds" if odds.exact else "estimated race odds"
    return CubeHint(f"money, {exactness}, Janowski model", verdict, detail, numbers)


def _blend_take_point(w: float, l: float, x: float) -> float:
    """Janowski's take point with cube efficiency ``x``, for a side with values ``w``, ``l``."""
    return (l - 0.5) / (w + l + 0.5 * x)


def _double_point(w: float, l: float, x: float, owner: str) -> float:
    """The least P(win) at which double/take beats holding the cube (bisection
    on the model: holding is better at 1/2, doubling at certainty)."""
    def gain(p: float) -> float:
        eq = money_equities(p, w, l, x)
        return 2 * eq["theirs"] - eq[owner]

    lo, hi = 0.5, 1.0
    if gain(lo) > 0 or gain(hi) <= 0:
        return math.nan
    for _ in range(60):
        mid = (lo + hi) / 2
        if gain(mid) > 0:
            hi = mid
        else:
            lo = mid
    return hi


# ---------------------------------------------------------------------------
# Match play

@dataclass(frozen=True)
class MatchEquityTable:
    """Match winning chances: ``pre[a-1][b-1]`` for a side needing ``a``
    points against ``b`` before the Crawford game (a row or column 1 is the
    Crawford game itself), ``post[b-1]`` for a side needing ``b`` points
    against a side 1-away after it."""

    name: str
    pre: Sequence[Sequence[float]]
    post: Sequence[float]

    def equity(self, a: int, b: int, *, post_crawford: bool = False) -> float:
        """The chance of winning needing ``a`` points against ``b``."""
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if max(a, b) > len(self.pre):
            raise AnalysisError(f"{self.name} covers matches up to {len(self.pre)} points")
        if post_crawford and (a == 1) != (b == 1):
            return 1 - self.post[b - 1] if a == 1 else self.post[a - 1]
        return self.pre[a - 1][b - 1]


def read_met(path: str | Path) -> MatchEquityTable:
    """A table from a CSV file: ``#`` comment lines, a square of numbers (row
    ``a``, column ``b``; fractions or percentages), and optionally a row
    starting ``post`` with the post-Crawford equities.  Without one, the
    post-Crawford entries are taken from the table's row 1 mirrored.

    The table is checked where it enters: every entry a chance (0 to 1, or a
    percentage up to 100), the square square, the ``post`` row as long as
    it, and each pair of entries ``a``-away ``b``-away and ``b``-away
    ``a``-away adding to 1 within 0.01 (one side's chance is the other's
    loss); an error names the file, line and column, what was expected and
    the rule."""
    import csv

    from ..notation.sniff import read_text_file

    rows: list[tuple[float, ...]] = []
    lines: list[int] = []
    post: tuple[float, ...] = ()
    post_line = 0
    for lineno, text in enumerate(read_text_file(path).splitlines(), 1):
        cells = _cells(text, next(csv.reader([text]), []))
        if not cells or cells[0][0].startswith("#"):
            continue
        if cells[0][0].lower() == "post":
            post, post_line = tuple(_fraction(c, path, lineno, col) for c, col in cells[1:]), lineno
        else:
            rows.append(tuple(_fraction(c, path, lineno, col) for c, col in cells))
            lines.append(lineno)
    if not rows:
        raise AnalysisError(f"{path}: no rows: expected a square table of numbers [met-square]")
    for row, lineno in zip(rows, lines):
        if len(row) != len(rows):
            raise AnalysisError(f"{path}:{lineno}:1: a row of {len(row)} numbers: expected {len(rows)}, as many "
                                f"as the table has rows [met-square]")
    if post and len(post) != len(rows):
        raise AnalysisError(f"{path}:{post_line}:1: a post row of {len(post)} numbers: expected {len(rows)}, one "
                            f"for each score [met-post]")
    for a in range(len(rows)):
        for b in range(a + 1):
            if abs(rows[a][b] + rows[b][a] - 1) > 0.01:
                raise AnalysisError(
                    f"{path}:{lines[a]}:1: {a + 1}-away {b + 1}-away is {rows[a][b]:.4f} and {b + 1}-away "
                    f"{a + 1}-away {rows[b][a]:.4f}: expected two chances adding to 1 [met-complement]")
    if not post:
        post = tuple(1 - rows[0][b] for b in range(len(rows)))
    return MatchEquityTable(Path(path).stem, tuple(rows), post)


def _cells(line: str, record: list[str]) -> list[tuple[str, int]]:
    """A CSV line's non-blank cells, each with its column (1-based), found in
    order: two equal entries get their own columns."""
    out, at = [], 0
    for cell in record:
        text = cell.strip()
        if text:
            at = line.find(text, at)
            out.append((text, at + 1))
            at += len(text)
    return out


def _fraction(text: str, path: str | Path, line: int, col: int) -> float:
    """A table entry as a chance: a fraction, or a percentage (``55%``, or a
    number above 1)."""
    where = f"{path}:{line}:{col}"
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise AnalysisError(f"{where}: {text[:20]!r}: expected a number [met-number]") from None
    if text.endswith("%") or value > 1:
        value /= 100
    if not 0 <= value <= 1:  # (NaN fails this too)
        raise AnalysisError(f"{where}: {text[:20]!r}: expected a chance from 0 to 1 (or 0% to 100%) [met-chance]")
    return value


@lru_cache(None)
def kazaross_xg2() -> MatchEquityTable:
    """The Kazaross-XG2 table (shipped in ``nardtools/data``; see its notice)."""
    return read_met(Path(__file__).resolve().parent.parent / "data" / "met-kazaross-xg2.csv")


def match_hint(odds: RaceOdds, *, length: int, score: tuple[int, int], cube: int = 1, crawford: bool = False,
               met: MatchEquityTable | None = None, values: tuple[int, int, int] = (1, 2, 2)) -> CubeHint:
    """The dead-cube match verdict for the side on roll; ``score`` is (side on
    roll, other side).  A 1-away score outside the Crawford game is post-Crawford."""
    met = met or kazaross_xg2()
    a, b = length - score[0], length - score[1]
    post_crawford = not crawford and (a == 1 or b == 1)
    p = odds.p_win
    outcomes = [  # (probability, points at cube 1, the side on roll wins)
        (p - odds.p_gammon, values[0], True), (odds.p_gammon - odds.p_home_mars, values[1], True),
        (odds.p_home_mars, values[2], True),
        (1 - p - odds.p_lose_gammon, values[0], False),
        (odds.p_lose_gammon - odds.p_lose_home_mars, values[1], False), (odds.p_lose_home_mars, values[2], False),
    ]

    def mwc(level: int) -> float:
        total = 0.0
        for prob, pts, won in outcomes:
            if prob <= 0:
                continue
            x, y = (a - pts * level, b) if won else (a, b - pts * level)
            total += prob * met.equity(x, y, post_crawford=post_crawford or crawford)
        return total

    if crawford:
        nd = mwc(cube)
        return CubeHint(f"match, {met.name}", "no double (Crawford game)", f"MWC {nd:.4f}", {"no_double": nd})
    nd, dt, dp = mwc(cube), mwc(2 * cube), met.equity(a - cube, b, post_crawford=post_crawford)
    if dt >= dp:
        verdict = "double, pass" if dp > nd else "too good to double, pass"
    else:
        verdict = "double, take" if dt > nd else "no double, take"
    detail = (f"{a}-away vs {b}-away, cube {cube}: MWC ND {nd:.4f}, DT {dt:.4f}, DP {dp:.4f} "
              "(dead cube)")
    return CubeHint(f"match, {met.name}", verdict, detail, {"no_double": nd, "double_take": dt, "double_pass": dp})


def cube_hints(odds: RaceOdds, setup: Any, rules: Any, *, cube_owner: str | None = None,
               x: float = RACE_CUBE_EFFICIENCY, met: MatchEquityTable | None = None) -> list[CubeHint]:
    """The hints for a :class:`~nardtools.notation.ids.Setup`: money play when
    the side on roll may double (``cube_owner`` overrides the setup's cube),
    and match play when the setup has a match length.  Outcomes are valued by
    ``rules``' scoring table."""
    from ..game import why_no_double
    from .race import outcome_values

    values = outcome_values(rules)
    pos = setup.position
    owner = cube_owner or ("centred" if setup.cube_owner is None
                           else "owned" if setup.cube_owner == pos.player else "")
    crawford = setup.crawford and setup.match_length
    held = {"centred": None, "owned": pos.player}.get(owner, setup.cube_owner)
    why_not = why_no_double(rules, pos.player, cube=setup.cube, cube_owner=held, match_length=setup.match_length,
                            score=setup.score, crawford=bool(crawford))
    if why_not is not None and not crawford:  # (the Crawford game's hint below still gives the MWC)
        return [CubeHint("the rules", "no double", why_not)]
    hints = [money_hint(odds, cube_owner=owner, x=x, values=values)] if owner and not crawford else []
    if setup.match_length:
        score = (setup.score[pos.player], setup.score[1 - pos.player])
        hints.append(match_hint(odds, length=setup.match_length, score=score, cube=setup.cube,
                                crawford=setup.crawford, met=met, values=values))
    return hints
