"""Match equity tables: which one a game uses, and Long Nardy's own.

**Backgammon** uses Kazaross-XG2 (:func:`.cube.kazaross_xg2`), or any table
read with ``--met FILE`` (:func:`.cube.read_met`).

**Long Nardy** has no published table, so nardtools computes one.  Its
inputs are the game's outcome rates: how often a game ends in an oin
(ойн, a single win), a mars (марс), a home mars (домашний марс) and a koks
(кокс), measured by self-play of the shipped network (shipped in
``nardtools/data/long-outcomes.json`` with the command that measured them;
``python -m nardtools.analysis.met --games N`` measures them again).  Each
game is won by either side with chance 1/2 (who starts is drawn), and a win of
kind ``k`` is worth the ruleset's points for ``k``, so that the chance of
winning a match needing ``a`` points against ``b`` is, exactly::

    M(a, b) = sum over kinds k of  r_k / 2 * ( M(a - v_k, b) + M(a, b - v_k) ),
    M(a <= 0, b) = 1,  M(a, b <= 0) = 0

(``r_k`` the kind's rate, ``v_k`` its points).  The table is symmetric,
``M(a, b) + M(b, a) = 1``, and falls as ``a`` grows.

**With the cube** (a ruleset that has one: Play65's), each entry is instead
the cubeful value of a game's start at that score by the cube model the
analysis uses (:mod:`.cubeful`: P(win) 1/2, the kinds' shares as above,
contact efficiency 0.68, the side on roll taking its best cube action, either
side first on roll with chance 1/2), its cash points looked up in the entries
already built (every score a game can lead to is nearer the end).  The Crawford game
(a side 1 away for the first time, with the Crawford rule) is played without
the cube, and the post-Crawford entries are built the same way with the
leader unable to gain by doubling.

>>> from nardtools import find_ruleset
>>> met = long_met(find_ruleset("long").rules)
>>> round(met.equity(1, 1), 3), round(met.equity(2, 1) + met.equity(1, 2), 6)
(0.5, 1.0)
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AnalysisError
from .cube import MatchEquityTable, kazaross_xg2

if TYPE_CHECKING:
    from ..rules import Rules

RATES_FILE = Path(__file__).resolve().parent.parent / "data" / "long-outcomes.json"
#: The longest match the computed tables cover.
LONG_MET_LENGTH = 25
KINDS = ("oin", "mars", "home-mars", "koks")


def default_met(rules: Rules) -> MatchEquityTable:
    """The table a game's match analysis uses by default."""
    return long_met(rules) if rules.is_long else kazaross_xg2()


def outcome_rates() -> dict[str, float]:
    """Long Nardy's outcome rates by kind, as shipped (they sum to 1)."""
    data = json.loads(RATES_FILE.read_text(encoding="utf-8"))
    counts = data["counts"]
    total = sum(counts.values())
    return {k: counts[k] / total for k in KINDS}


def long_met(rules: Rules, rates: dict[str, float] | None = None,
             length: int = LONG_MET_LENGTH) -> MatchEquityTable:
    """The Long Nardy table under ``rules``' scoring table (see the module docstring)."""
    from ..outcome import OutcomeKind, points_for

    values = tuple(points_for(OutcomeKind(k), rules) for k in KINDS)
    shares = tuple((rates or outcome_rates())[k] for k in KINDS)
    if abs(sum(shares) - 1) > 1e-9 or min(shares) < 0:
        raise AnalysisError("outcome rates must be non-negative and sum to 1")
    if rules.cube:
        return _long_met_with_cube(rules, shares, length)
    return _long_met(values, shares, length, rules.scoring)


class _Building:
    """A table being built: the entries so far, looked up as a finished one."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.pre: dict[tuple[int, int], float] = {}
        self.post: dict[int, float] = {}

    def equity(self, a: int, b: int, *, post_crawford: bool = False) -> float:
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if post_crawford and (a == 1) != (b == 1):
            return 1 - self.post[b] if a == 1 else self.post[a]
        return self.pre[a, b]


@lru_cache(maxsize=16)
def _long_met_with_cube(rules: Rules, shares: tuple[float, ...], length: int) -> MatchEquityTable:
    import numpy as np

    from .cubeful import CONTACT_X, CubeState, Valuer

    table = _Building(f"nardtools Long Nardy with the cube ({rules.scoring} scoring)")
    valuer = Valuer(rules, table)  # type: ignore[arg-type]
    # a game's start: P(win) 1/2, each kind won (and lost) in its share; the classes are cumulative
    by_kind = dict(zip(KINDS, shares))
    half = 0.5 * np.array([1.0, 1 - by_kind["oin"], by_kind["home-mars"], by_kind["koks"]])
    p = np.concatenate([half, half[1:]])[None, :]
    x = np.array([CONTACT_X])
    crawford_rule = rules.has_crawford_game

    def on_roll(state: CubeState) -> float:
        """MWC of the side on roll at the start, taking its best cube action."""
        nd = float(valuer.match(p, state, x)[0])
        if not state.may_double(rules):
            return nd
        dt = float(valuer.match(p, state.doubled(), x)[0])
        dp = table.equity(state.away[0] - state.value, state.away[1], post_crawford=state.post_crawford)
        return min(dt, dp) if dt >= nd and dp >= nd else nd

    def start(a: int, b: int, crawford: bool) -> float:
        """MWC of the side needing ``a``: either side may be first on roll."""
        n = length + 1
        mine = CubeState(1, None, 0, n, (n - a, n - b), crawford)
        return 0.5 * on_roll(mine) + 0.5 * (1 - on_roll(mine.flipped()))

    table.post[1] = 0.5
    for total in range(2, 2 * length + 1):
        for a in range(max(1, total - length), min(length, total - 1) + 1):
            b = total - a
            if a == 1 and b == 1:
                table.pre[1, 1] = 0.5
            elif a == 1 or b == 1:
                trailer = max(a, b)
                if trailer not in table.post:
                    table.post[trailer] = 1 - start(1, trailer, False)  # the trailer's chance
                # the Crawford game (without the rule: a game like any other with a side 1 away)
                value = start(a, b, crawford_rule)
                table.pre[a, b] = value
            else:
                table.pre[a, b] = start(a, b, False)
    pre = tuple(tuple(table.pre[a, b] for b in range(1, length + 1)) for a in range(1, length + 1))
    post = tuple(table.post[b] for b in range(1, length + 1))
    return MatchEquityTable(table.name, pre, post)


@lru_cache(maxsize=16)
def _long_met(values: tuple[int, ...], shares: tuple[float, ...], length: int, scoring: str) -> MatchEquityTable:
    m: dict[tuple[int, int], float] = {}

    def at(a: int, b: int) -> float:
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        return m[a, b]

    for total in range(2, 2 * length + 1):  # M(a, b) needs only smaller a + b
        for a in range(max(1, total - length), min(length, total - 1) + 1):
            b = total - a
            m[a, b] = sum(r / 2 * (at(a - v, b) + at(a, b - v)) for v, r in zip(values, shares))
    pre = tuple(tuple(m[a, b] for b in range(1, length + 1)) for a in range(1, length + 1))
    post = tuple(1 - pre[0][b] for b in range(length))
    return MatchEquityTable(f"nardtools Long Nardy ({scoring} scoring)", pre, post)


def measure_rates(games: int, seed: int = 1, ruleset: str = "long") -> dict[str, Any]:
    """Self-play ``games`` games of the shipped network (0-ply, both sides)
    and count how each ended."""
    from ..rules import find_ruleset
    from .evaluate import load_networks
    from .nets import CLASSES, outcome
    from .selfplay import NetPlayer, play_game

    rs = find_ruleset(ruleset)
    net = load_networks("long")
    player = NetPlayer(net, rs)
    counts = dict.fromkeys(KINDS, 0)
    classes = CLASSES["long"]
    for i in range(games):
        kinds: list[str] = []

        def watch(_board: Any, rows: Any, chosen: int, kinds: list[str] = kinds) -> None:
            from .nets import mover_won

            row = rows[chosen]
            if mover_won(row):
                won = outcome("long", row[:26], rs.rules)
                kinds.append("koks" if won[classes.index("win_koks")] else
                             "home-mars" if won[classes.index("win_home_mars")] else
                             "mars" if won[classes.index("win_mars")] else "oin")

        play_game(rs, player, player, seed + i, on_turn=watch)
        counts[kinds[-1]] += 1
    return {"counts": counts, "games": games, "seed": seed, "ruleset": ruleset, "network": net.name,
            "command": f"python -m nardtools.analysis.met --games {games} --seed {seed}"}


def main(argv: list[str] | None = None) -> None:
    """Measure the outcome rates again and write them where the tables read them."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, default=RATES_FILE)
    args = parser.parse_args(argv)
    data = measure_rates(args.games, args.seed)
    tmp = args.output.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.output)
    print(json.dumps(data))


if __name__ == "__main__":
    main()
