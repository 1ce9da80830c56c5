"""Match equity tables: which one a game uses, and Long Nardy's own.

**Backgammon** uses Kazaross-XG2 (:func:`.cube.kazaross_xg2`), or any table
read with ``--met FILE`` (:func:`.cube.read_met`).

**Long Nardy** has no published table, so nardtools computes one.  Its
inputs are the game's outcome rates: how often a game ends in an oin
(ойн, a single win), a mars (марс), a home mars (домашний марс) and a koks
(кокс), measured by self-play of the shipped network (shipped in
``nardtools/data/long-outcomes.json`` with the command that measured them;
``python -m nardtools.analysis.met --games N`` measures them again).  At the
scores where it matters (both sides at most 5 away), the shares of each
side's wins are measured apart, both sides playing for the match
(:class:`ScorePlayer`; ``--by-score N``).  Each game is won by either side
with chance 1/2 (who starts is drawn), and a win of kind ``k`` is worth the
ruleset's points for ``k``, so that the chance of winning a match needing
``a`` points against ``b`` is, exactly::

    M(a, b) = sum over kinds k of  s_k / 2 * M(a - v_k, b) + t_k / 2 * M(a, b - v_k),
    M(a <= 0, b) = 1,  M(a, b <= 0) = 0

(``s_k``, ``t_k`` the kind's share of each side's wins at the score, the
money rates elsewhere; ``v_k`` its points).  The table is symmetric,
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
import math
from dataclasses import dataclass
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


@lru_cache(maxsize=1)
def _shipped() -> dict[str, Any]:
    """The shipped outcome counts (read once: every analysis of a Long Nardy match asks)."""
    data: dict[str, Any] = json.loads(RATES_FILE.read_text(encoding="utf-8"))
    return data


def outcome_rates() -> dict[str, float]:
    """Long Nardy's outcome rates by kind in money play, as shipped (they sum to 1)."""
    counts = _shipped()["counts"]
    total = sum(counts.values())
    return {k: counts[k] / total for k in KINDS}


Share = tuple[float, float, float, float]  # of a side's wins: oin, mars, home mars, koks


@dataclass(frozen=True)
class Shares:
    """How the wins of each side end: in money play (``money``), and at the
    scores measured (``by_score``: (a, b) -> the shares of the side needing
    ``a`` and of the side needing ``b``, for a <= b)."""

    money: Share
    by_score: tuple[tuple[tuple[int, int], tuple[Share, Share]], ...] = ()

    def at(self, a: int, b: int) -> tuple[Share, Share]:
        """The shares of the side needing ``a`` and of the other side."""
        found = dict(self.by_score)
        if (a, b) in found:
            return found[a, b]
        if (b, a) in found:
            theirs, mine = found[b, a]
            return mine, theirs
        return self.money, self.money


def outcome_shares(rules: Rules, rates: dict[str, float] | None = None) -> Shares:
    """The shares a table under ``rules`` uses: the money rates, and the
    shares measured at each score where the scoring table is the one they
    were measured under (``long``'s)."""
    from ..rules import find_ruleset

    money = tuple((rates or outcome_rates())[k] for k in KINDS)
    if abs(sum(money) - 1) > 1e-9 or min(money) < 0:
        raise AnalysisError("outcome rates must be non-negative and sum to 1")
    scores = _shipped().get("scores")
    if rates is not None or not scores or rules.scoring != find_ruleset(scores.get("ruleset", "long")).rules.scoring:
        return Shares(money)  # type: ignore[arg-type]
    by_score = []
    for key, counts in scores["by_score"].items():
        a, b = (int(v) for v in key.split("-"))
        if a == b:  # the two sides in the same place: one share, from both sides' wins
            counts = [{k: counts[0][k] + counts[1][k] for k in KINDS}] * 2
        pair = tuple(tuple(c[k] / max(sum(c.values()), 1) for k in KINDS) for c in counts)
        by_score.append(((a, b), pair))
    return Shares(money, tuple(sorted(by_score)))  # type: ignore[arg-type]


def long_met(rules: Rules, rates: dict[str, float] | None = None,
             length: int = LONG_MET_LENGTH) -> MatchEquityTable:
    """The Long Nardy table under ``rules``' scoring table (see the module
    docstring); ``rates`` replaces the shipped money rates (and then no
    shares by score are used)."""
    from ..outcome import OutcomeKind, points_for

    values = tuple(points_for(OutcomeKind(k), rules) for k in KINDS)
    shares = outcome_shares(rules, rates)
    if rules.cube:
        return _long_met_with_cube(rules, shares, length)
    return _long_met(values, shares, length, rules.scoring)


def _filling(name: str, length: int) -> tuple[MatchEquityTable, list[list[float]], list[float]]:
    """A table to fill in, entry by entry (its lists, 0-based: ``pre[a - 1][b
    - 1]``, ``post[b - 1]``; NaN until set), and look up as it grows: the one
    lookup is :meth:`MatchEquityTable.equity`."""
    pre, post = [[math.nan] * length for _ in range(length)], [math.nan] * length
    return MatchEquityTable(name, pre, post), pre, post


def _filled(table: MatchEquityTable) -> MatchEquityTable:
    """The table filled in, frozen; every entry set."""
    pre, post = tuple(tuple(row) for row in table.pre), tuple(table.post)
    assert not any(math.isnan(v) for v in (*post, *(v for row in pre for v in row))), table.name
    return MatchEquityTable(table.name, pre, post)


@lru_cache(maxsize=16)
def _long_met_with_cube(rules: Rules, shares: Shares, length: int) -> MatchEquityTable:
    import numpy as np

    from .cubeful import CONTACT_X, CubeState, Valuer

    table, pre, post = _filling(f"nardtools Long Nardy with the cube ({rules.scoring} scoring)", length)
    valuer = Valuer(rules, table)
    x = np.array([CONTACT_X])
    crawford_rule = rules.has_crawford_game

    def start_probabilities(mine: Share, theirs: Share) -> np.ndarray:
        """A game's start: P(win) 1/2, each side's wins ending in its shares
        (the network's classes are cumulative: a mars counts its home mars and koks)."""
        def half(share: Share) -> list[float]:
            return [0.5 * (1 - share[0]), 0.5 * share[2], 0.5 * share[3]]
        return np.array([[0.5, *half(mine), *half(theirs)]])

    def on_roll(state: CubeState, p: np.ndarray) -> float:
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
        share_a, share_b = shares.at(a, b)
        return (0.5 * on_roll(mine, start_probabilities(share_a, share_b))
                + 0.5 * (1 - on_roll(mine.flipped(), start_probabilities(share_b, share_a))))

    post[0] = 0.5
    for total in range(2, 2 * length + 1):
        for a in range(max(1, total - length), min(length, total - 1) + 1):
            b = total - a
            if a == 1 and b == 1:
                pre[0][0] = 0.5
            elif a == 1 or b == 1:
                trailer = max(a, b)
                if math.isnan(post[trailer - 1]):
                    post[trailer - 1] = 1 - start(1, trailer, False)  # the trailer's chance
                # the Crawford game (without the rule: a game like any other with a side 1 away)
                pre[a - 1][b - 1] = start(a, b, crawford_rule)
            else:
                pre[a - 1][b - 1] = start(a, b, False)
    return _filled(table)


@lru_cache(maxsize=16)
def _long_met(values: tuple[int, ...], shares: Shares, length: int, scoring: str) -> MatchEquityTable:
    table, pre, post = _filling(f"nardtools Long Nardy ({scoring} scoring)", length)
    at = table.equity
    for total in range(2, 2 * length + 1):  # M(a, b) needs only smaller a + b
        for a in range(max(1, total - length), min(length, total - 1) + 1):
            b = total - a
            mine, theirs = shares.at(a, b)
            pre[a - 1][b - 1] = sum(r / 2 * at(a - v, b) + q / 2 * at(a, b - v)
                                    for v, r, q in zip(values, mine, theirs))
    for b in range(length):  # no Crawford rule without the cube: after it as before it
        post[b] = 1 - pre[0][b]
    return _filled(table)


def measure_rates(games: int, seed: int = 1, ruleset: str = "long") -> dict[str, Any]:
    """Self-play ``games`` games of the shipped network (0-ply, both sides)
    and count how each ended."""
    from ..rules import find_ruleset
    from .evaluate import load_networks
    from .selfplay import NetPlayer, play_game

    rs = find_ruleset(ruleset)
    net = load_networks("long")
    player = NetPlayer(net, rs)
    counts = dict.fromkeys(KINDS, 0)
    for i in range(games):
        kinds: list[str] = []
        play_game(rs, player, player, seed + i, on_turn=_kind_watcher(rs.rules, kinds))
        counts[kinds[-1]] += 1
    return {"counts": counts, "games": games, "seed": seed, "ruleset": ruleset, "network": net.name,
            "command": f"python -m nardtools.analysis.met --games {games} --seed {seed}"}


class ScorePlayer:
    """The shipped network playing for the match: it picks the result with
    the best dead-cube match winning chances at the score (each kind of win
    worth what the table says it is worth there), not the best money equity."""

    def __init__(self, net: Any, rules: Rules, table: MatchEquityTable, side: int, away: tuple[int, int]) -> None:
        from .cubeful import CubeState, Valuer

        self.net, self.rules, self.valuer = net, rules, Valuer(rules, table)
        length = max(away)
        # the other side's state: it is on roll after this side's play
        self.theirs = CubeState(1, None, 1 - side, length, (length - away[0], length - away[1]))

    def choose(self, rows: Any) -> int:
        import numpy as np

        from .probabilities import exact_where_finished

        if len(rows) == 1:
            return 0
        p = self.net.probabilities(rows)
        exact_where_finished(p, rows, "long", self.rules)
        return int(np.argmin(self.valuer.dead_mwc(p, self.theirs)))


def measure_score_shares(games: int, seed: int = 1, ruleset: str = "long", most: int = 5) -> dict[str, Any]:
    """For each score with both sides at most ``most`` away (the side needing
    ``a`` against ``b``, a <= b), ``games`` games of the network playing for
    the match (:class:`ScorePlayer`, by the money-rate table), each side first
    in half of them: how each side's wins ended."""
    from ..rules import find_ruleset
    from .evaluate import load_networks
    from .selfplay import play_game

    rs = find_ruleset(ruleset)
    net = load_networks("long")
    table = long_met(rs.rules, outcome_rates())  # by the money rates alone, whatever was measured before
    out: dict[str, Any] = {}
    for a in range(1, most + 1):
        for b in range(a, most + 1):
            if a == b == 1:
                continue
            counts = [dict.fromkeys(KINDS, 0), dict.fromkeys(KINDS, 0)]  # the side needing a, the side needing b
            for i in range(games):
                first = i % 2  # which of the two moves first
                away = (a, b) if first == 0 else (b, a)
                players = (ScorePlayer(net, rs.rules, table, 0, away), ScorePlayer(net, rs.rules, table, 1, away))
                kinds: list[str] = []
                result = play_game(rs, players[0], players[1], seed + i, on_turn=_kind_watcher(rs.rules, kinds))
                winner = result.winner if first == 0 else 1 - result.winner
                counts[winner][kinds[-1]] += 1
            out[f"{a}-{b}"] = counts
    return {"by_score": out, "games_per_score": games, "seed": seed, "most": most, "ruleset": ruleset,
            "command": f"python -m nardtools.analysis.met --by-score {games} --seed {seed}"}


def _kind_watcher(rules: Rules, kinds: list[str]) -> Any:
    from .probabilities import CLASSES, outcome
    from .rows import mover_won

    classes = CLASSES["long"]

    def watch(_board: Any, rows: Any, chosen: int) -> None:
        row = rows[chosen]
        if mover_won(row):
            won = outcome("long", row[:26], rules)
            kinds.append("koks" if won[classes.index("win_koks")] else
                         "home-mars" if won[classes.index("win_home_mars")] else
                         "mars" if won[classes.index("win_mars")] else "oin")
    return watch


def main(argv: list[str] | None = None) -> None:
    """Measure the outcome rates again and write them where the tables read them."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20000, help="money-play games for the overall rates")
    parser.add_argument("--by-score", type=int, default=0, metavar="GAMES",
                        help="instead, games per score for the shares by score (kept beside the rates)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, default=RATES_FILE)
    args = parser.parse_args(argv)
    if args.by_score:
        data = json.loads(args.output.read_text(encoding="utf-8"))
        data["scores"] = measure_score_shares(args.by_score, args.seed)
    else:
        data = measure_rates(args.games, args.seed)
    tmp = args.output.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.output)
    print(json.dumps(data))


if __name__ == "__main__":
    main()
