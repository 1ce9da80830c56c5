"""Evaluating positions and ranking plays: ``evaluate`` and ``hint``.

An evaluation gives, for the side on roll (before its roll), the
probabilities of every outcome class its game scores (:data:`.probabilities.CLASSES`)
and the cubeless equity they are worth under the ruleset's scoring table.

Where the answer comes from (``Evaluation.evaluator``):

- **terminal**: a side has borne off all fifteen: the outcome, exactly;
- **bear-off database**: a race with both sides inside a cached one-sided
  database (:mod:`.race`; the 6-point one is built on first use): exact
  dice enumeration, each side playing to bear off fastest;
- **race network**: a race with both sides within the game's race network's
  points (:mod:`.racenet`: learned from the bear-off database), where no
  database answered (and always inside a look-ahead);
- **network**: the shipped network of the game (:mod:`.nets`, trained by
  self-play, :mod:`.training`), or GNU Backgammon's (``evaluator="gnubg"``,
  backgammon only, where ``gnubg-nn`` is installed).

**Rollouts** are :mod:`.rollout`'s.

**Ply**: 0-ply is the source above.  n-ply averages over the 21 rolls of the
side on roll: for each roll its best play by 0-ply, then that play's result
at (n-1)-ply, seen from this side.  ``hint`` at n-ply ranks every play at
0-ply, then looks deeper at the best ``MOVE_FILTER`` of them (those within
``FILTER_EQUITY`` of the best), as GNU Backgammon's move filters do; the rest
keep their 0-ply figures and say so.

The networks learn one ruleset's movement (``long``, ``backgammon``).  A
ruleset that changes the game (gul-bara's doubles and remainders, Dutch
tricktrack's hitting, koks scored apart from mars, hypergammon) is refused with
a message that names the difference; one that differs in a reading (the head
exception, the block rule, the Caucasian rule) is evaluated with a label that
says so: never a silent guess.

>>> from nardtools import Position
>>> from nardtools.analysis.evaluate import evaluate
>>> won = Position.from_points("long", {}, {1: 15})   # all off; the other side has none off: a (home) mars
>>> e = evaluate(won)
>>> e.evaluator, e.probabilities["win"], e.probabilities["win_home_mars"], e.equity
('terminal', 1.0, 1.0, 2.0)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import AnalysisError
from ..outcome import OutcomeKind, points_for
from .nets import WEIGHTS_DIR, Network, Networks
from .probabilities import CLASSES, equity, equity_weights, exact_where_finished, flip
from .rows import boards_of, finished, race_reach

if TYPE_CHECKING:
    from ..dice import Roll
    from ..engine import LegalPlay
    from ..play import Play
    from ..position import Position
    from ..rules import Rules, RulesLike

#: hint at n-ply looks deeper at this many plays at most ...
MOVE_FILTER = 8
#: ... of those within this much equity of the best at 0-ply.
FILTER_EQUITY = 0.16
#: Inside a look-ahead the main network values only this many of a roll's
#: results, the best by the game's pruning network (:mod:`.prunenet`), where one
#: is shipped for the main network in use; a roll with no more results is not screened.
PRUNE_KEEP = 8
#: The options of Rules that change how checkers move, which a network is tied to ...
MOVEMENT = ("hitting", "hit_after_home", "bar_first", "move_inside_home", "remainder", "double_reroll",
            "crazy_doubles", "head_limit", "head", "block", "block_check", "block_path", "caucasian", "bear_off")
#: ... and those of them (with koks scored apart and hypergammon's start) that change
#: the game so much that its evaluations would be guesses: refused.  The others
#: (a head or block reading, the Caucasian rule, exact bear-off) are evaluated
#: with a label that says the rules differ.
REFUSED = ("hitting", "hit_after_home", "bar_first", "remainder", "double_reroll", "crazy_doubles", "koks",
           "start")
TRAINED_ON = {"long": "long", "backgammon": "backgammon"}


#: How a ranking values a play's result: from the probabilities of the side
#: then on roll (the other side) and the result's rows, the player's equity.
PlayValue = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Evaluation:
    """What an evaluator says of a position, from the side on roll."""

    probabilities: dict[str, float]
    equity: float
    evaluator: str
    ply: int

    def as_dict(self) -> dict[str, Any]:
        return {"probabilities": dict(self.probabilities), "equity": self.equity, "evaluator": self.evaluator,
                "ply": self.ply}


@dataclass(frozen=True)
class RankedPlay:
    """One legal play as ``hint`` ranks it: the equity is the player's (who
    just played), ``loss`` how much less than the best play's."""

    play: Play
    result: Position
    equity: float
    loss: float
    evaluation: Evaluation = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {"play": str(self.play), "result": str(self.result), "equity": self.equity, "loss": self.loss,
                "ply": self.evaluation.ply, "evaluator": self.evaluation.evaluator,
                "probabilities": self.evaluation.probabilities}


@functools.lru_cache(maxsize=8)
def load_network(game: str, path: str | None = None) -> Network:
    """The shipped network of ``game`` (``nardtools/data/nets/GAME.npz``), or
    the weights at ``path``; a clear error when missing or damaged."""
    where = Path(path) if path else WEIGHTS_DIR / f"{game}.npz"
    net = Network.load(where)
    if net.game != game:
        raise AnalysisError(f"{where}: a {net.game} network, not a {game} one")
    if net.is_race or net.is_prune:
        raise AnalysisError(f"{where}: a {'race' if net.is_race else 'pruning'} network, not a game's main one "
                            f"({'races only: it answers for them' if net.is_race else 'it screens plays'} "
                            "beside the main network)")
    return net.freeze()


def screens_for(pruner: Network, main: Network) -> bool:
    """Whether ``pruner`` was trained to screen for the main network
    ``main``: the weights it records (``screens_digest``) are ``main``'s, or,
    for a pruning network that records only a name (made before the digest
    was recorded), ``main`` has that name.  Another checkpoint of the same
    run, or a fine-tune, may share a name but never the weights.

    >>> screens_for(load_prune_network("long"), load_network("long"))
    True
    """
    digest = pruner.meta.get("screens_digest")
    return bool(digest == main.digest if digest else pruner.meta.get("screens") == main.name)


@functools.lru_cache(maxsize=8)
def load_prune_network(game: str, path: str | None = None) -> Network | None:
    """The shipped pruning network of ``game`` (``nardtools/data/nets/GAME-prune.npz``;
    ``None`` where none is shipped), or the one at ``path``."""
    where = Path(path) if path else WEIGHTS_DIR / f"{game}-prune.npz"
    if not path and not where.exists():
        return None
    net = Network.load(where)
    if net.game != game or not net.is_prune:
        raise AnalysisError(f"{where}: not a {game} pruning network")
    return net.freeze()


@functools.lru_cache(maxsize=8)
def load_race_network(game: str, path: str | None = None) -> Network | None:
    """The shipped race network of ``game`` (``nardtools/data/nets/GAME-race.npz``;
    ``None`` where none is shipped), or the one at ``path``."""
    where = Path(path) if path else WEIGHTS_DIR / f"{game}-race.npz"
    if not path and not where.exists():
        return None
    net = Network.load(where)
    if net.game != game or not net.is_race:
        raise AnalysisError(f"{where}: not a {game} race network")
    return net.freeze()


def load_networks(game: str, weights: str | None = None, race: str | bool | None = None) -> Networks:
    """A game's networks: the main one (``weights``, else the shipped one) and
    the race one (``race``: a path, ``None`` for the shipped one, ``False``
    for none)."""
    return Networks(load_network(game, weights),
                    None if race is False else load_race_network(game, race or None))


class Evaluator:
    """The evaluator of one game under one ruleset: terminal positions and
    database races exact, the rest from a network."""

    def __init__(self, rules: Rules, *, weights: str | None = None, evaluator: str = "nardtools",
                 database: bool = True, race: str | bool | None = None, prune: bool | str = True) -> None:
        self.rules = rules
        self.game = rules.game.value
        self.caveat = _check_movement(rules, self.game)
        self.database = database
        if evaluator not in ("nardtools", "gnubg"):
            raise AnalysisError(f"unknown evaluator {evaluator!r}: nardtools or gnubg")
        if evaluator == "gnubg" and self.game != "backgammon":
            raise AnalysisError("GNU Backgammon's network evaluates backgammon only")
        self.evaluator, self.weights, self.race, self.prune = evaluator, weights, race, prune
        self._net: Any = None

    @property
    def net(self) -> Networks | _GnubgNet:
        """The networks (main and race), loaded when first needed (terminal
        positions and database races need none)."""
        if self._net is None:
            self._net = (_GnubgNet() if self.evaluator == "gnubg"
                         else load_networks(self.game, self.weights, self.race))
        return self._net  # type: ignore[no-any-return]

    @property
    def name(self) -> str:
        net = self.net
        return ("gnubg-nn" if isinstance(net, _GnubgNet) else net.name) + self.caveat

    @functools.cached_property
    def pruner(self) -> Network | None:
        """The pruning network that screens the look-ahead's plays: the
        game's shipped one where it was trained for the main network in use
        (its ``screens``) and ``prune`` is on, the one at ``prune`` when that
        is a path (it must screen for the main network in use), else ``None``."""
        net = self.net
        if not self.prune or not isinstance(net, Networks):
            return None
        if isinstance(self.prune, str):
            chosen = load_prune_network(self.game, self.prune)
            assert chosen is not None  # a path given loads or raises
            if not screens_for(chosen, net.main):
                raise AnalysisError(f"{self.prune}: a pruning network trained for {chosen.meta.get('screens')} "
                                    f"(weights {chosen.meta.get('screens_digest', 'unrecorded')}), not for "
                                    f"{net.name} (weights {net.main.digest})")
            return chosen
        shipped = load_prune_network(self.game)
        if shipped is None or self.weights is None:   # (the shipped pair: tests/test_prune.py holds that it
            return shipped                             # screens_for; no weights hashed at every start)
        return shipped if screens_for(shipped, net.main) else None

    # ------------------------------------------------------------ 0-ply
    def static(self, rows: np.ndarray, *, database: bool = False) -> tuple[np.ndarray, list[str]]:
        """0-ply probabilities of rows (each from its side on roll), and the
        source of each: terminal, database (when asked) or the network."""
        p, done, used = self.probabilities(rows, database=database)
        main = race_name = self.name
        net = self.net
        race = np.zeros(len(rows), bool)
        if isinstance(net, Networks) and net.race is not None:
            race, race_name = net.race_rows(rows), net.race.name + self.caveat
        return p, ["terminal" if d else f"bear-off database ({u} points)" if u else race_name if r else main
                   for d, u, r in zip(done, used, race)]

    def probabilities(self, rows: np.ndarray, *, database: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`static`'s probabilities, with which rows are finished games
        and the database (points) that gave each row, 0 for none."""
        done = finished(rows)
        used = np.zeros(len(rows), np.int64)
        p = np.zeros((len(rows), len(CLASSES[self.game])))
        if database and self.database:
            q, used = database_probabilities(self.rules, rows)
            p[used > 0] = q[used > 0]
        rest = ~done & (used == 0)
        if rest.any():
            p[rest] = self.net.probabilities(rows[rest])
        exact_where_finished(p, rows, self.game, self.rules)
        return p, done, used

    # ------------------------------------------------------------ look-ahead
    def successors(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`~.selfplay.roll_successors` of board rows (each roll's
        results, and their counts, rows x 21), screened by the :attr:`pruner`
        where there is one: of a roll with more than :data:`PRUNE_KEEP`
        results, only the best that many by the pruning network's cubeless
        equity, in their order.  A look-ahead's rolls, and the luck's, are
        valued on these."""
        from .selfplay import best_in_rolls, roll_successors

        after, counts = roll_successors(self.rules, rows)
        if self.pruner is None or counts.max(initial=0) <= PRUNE_KEEP:
            return after, counts
        keep = best_in_rolls(self.screen_values(after), counts, PRUNE_KEEP)
        return after[keep], np.minimum(counts, PRUNE_KEEP).astype(counts.dtype)

    def screen_values(self, rows: np.ndarray) -> np.ndarray:
        """The equity by which the :attr:`pruner` screens rows (for the side
        on roll): the linear equity of its raw outputs (:func:`.probabilities.equity_weights`,
        no :func:`.probabilities.consistent` pass: a screen), finished games' exactly."""
        pruner = self.pruner
        if pruner is None:
            raise AnalysisError(f"{self.name}: no pruning network screens for it")
        w, c = equity_weights(self.game, self.rules)
        # Both products multiplied and summed by numpy's own loops, not ``@``:
        # BLAS's matrix-vector kernel for this few columns now and then raises
        # a spurious "invalid value" flag (numpy/numpy#24067's kind), which
        # the test suite's filterwarnings turns into an error.
        value: np.ndarray = (pruner.outputs(rows) * w.astype(np.float32)).sum(axis=1) + c
        done = np.flatnonzero(finished(rows))
        if len(done):
            exact = np.zeros((len(done), len(w)))
            exact_where_finished(exact, rows[done], self.game, self.rules)
            value[done] = (exact * w).sum(axis=1) + c
        return value

    def values(self, rows: np.ndarray, ply: int) -> np.ndarray:
        """Probabilities of rows at ``ply`` (each from its side on roll): all
        rows' 21 rolls go through the network together, level by level (their
        results screened, :meth:`successors`)."""
        from ..dice import ALL_ROLLS
        from .selfplay import best_per_roll

        p, done, _ = self.probabilities(rows)
        todo = np.nonzero(~done)[0]
        if ply == 0 or not len(todo):
            return p
        after, counts = self.successors(rows[todo])
        q, _, _ = self.probabilities(after)
        best = best_per_roll(equity(q, self.game, self.rules), counts)
        deeper = q[best] if ply == 1 else self.values(after[best], ply - 1)
        weights = np.array([roll.weight / 36 for roll in ALL_ROLLS])
        seen = flip(deeper, self.game).reshape(len(todo), 21, -1)
        p[todo] = np.einsum("r,brk->bk", weights, seen)
        return p

    def evaluation(self, p: np.ndarray, source: str, ply: int) -> Evaluation:
        probabilities = {name: round(float(v), 6) for name, v in zip(CLASSES[self.game], p)}
        return Evaluation(probabilities, float(equity(p, self.game, self.rules)), source, ply)


def evaluate(position: Position, rules: RulesLike = None, ply: int = 0, *, evaluator: str = "nardtools",
             weights: str | None = None) -> Evaluation:
    """The probabilities and cubeless equity of ``position`` for the side on
    roll (see the module docstring)."""
    from ..rules import rules_for

    _check_ply(ply)
    ev = Evaluator(rules_for(position.kind, rules), weights=weights, evaluator=evaluator)
    rows = boards_of([position])
    p, source = ev.static(rows, database=True)
    if source[0] in ("terminal",) or source[0].startswith("bear-off"):
        return ev.evaluation(p[0], source[0], 0)
    if ply:
        p = ev.values(rows, ply)
    return ev.evaluation(p[0], f"{source[0]}, {ply}-ply", ply)


def hint(position: Position, roll: Roll, rules: RulesLike = None, ply: int = 0, *,
         evaluator: str = "nardtools", weights: str | None = None,
         first_turn: bool | None = None, value: PlayValue | None = None) -> list[RankedPlay]:
    """The legal plays of ``roll``, best first, each with the equity of its
    result for the side that plays and its loss against the best
    (``first_turn``: as for :func:`~nardtools.engine.legal_plays`)."""
    from ..rules import rules_for

    _check_ply(ply)
    ev = Evaluator(rules_for(position.kind, rules), weights=weights, evaluator=evaluator)
    return ranked_plays(ev, position, roll, ply, first_turn=first_turn, value=value)


def ranked_plays(ev: Evaluator, position: Position, roll: Roll, ply: int = 0, *,
                 first_turn: bool | None = None, value: PlayValue | None = None) -> list[RankedPlay]:
    """:func:`hint` by an evaluator already made (analysis ranks every turn
    of a game with one).  ``value`` values each result (default: the
    cubeless equity; analysis passes the cubeful one at the score)."""
    r = rank_turns(ev, [(position, roll, first_turn, value)], ply)[0]
    best = r.mine[r.order[0]]
    return [RankedPlay(r.plays[i].play, r.plays[i].result, float(r.mine[i]), float(max(best - r.mine[i], 0.0)),
                       ev.evaluation(flip(r.p[i], ev.game), r.source[i], r.plies[i])) for i in r.order]


@dataclass
class Ranking:
    """One turn's legal plays as :func:`rank_turns` ranks them: each play's
    result (a board row) and its probabilities (the other side's view), the player's value of it,
    the source and ply of its evaluation, and the order, best first."""

    plays: Sequence[LegalPlay]
    rows: np.ndarray  # the results' board rows, in the plays' order
    p: np.ndarray
    mine: np.ndarray
    source: list[str]
    plies: list[int]
    order: list[int]


def rank_turns(ev: Evaluator, turns: Sequence[tuple[Position, Roll, bool | None, PlayValue | None]],
               ply: int = 0) -> list[Ranking]:
    """The legal plays of many turns (position, roll, first turn, how a
    result is valued: None for the cubeless equity), each ranked as
    :func:`ranked_plays` ranks them, with one evaluation of all their results
    (and one look-ahead of all the plays that get one): at 0-ply, then the
    best :data:`MOVE_FILTER` within :data:`FILTER_EQUITY` at ``ply``."""
    from ..engine import legal_plays

    options = ev.rules
    per_turn = [legal_plays(position, roll, options, first_turn=first_turn) for position, roll, first_turn, _ in turns]
    sizes = [len(plays) for plays in per_turn]
    starts = np.cumsum([0, *sizes])
    rows = np.concatenate([plays.result_rows() for plays in per_turn]) if per_turn else np.zeros((0, 52), np.int8)
    p, source = ev.static(rows, database=True)
    plies = [0] * len(rows)

    parts = [slice(starts[k], starts[k + 1]) for k in range(len(turns))]
    valuers = [value for _, _, _, value in turns]
    mine = valued(ev, p, rows, parts, valuers)
    if ply:
        deeper: list[int] = []
        for k, values in enumerate(mine):
            order = np.argsort(-values, kind="stable")
            deeper += [int(starts[k] + i) for i in order[:MOVE_FILTER]
                       if values[i] >= values[order[0]] - FILTER_EQUITY and _by_network(source[starts[k] + i])]
        if deeper:
            p[deeper] = ev.values(rows[deeper], ply)
            for i in deeper:
                plies[i], source[i] = ply, f"{source[i]}, {ply}-ply"
            mine = valued(ev, p, rows, parts, valuers)
    for i in range(len(rows)):
        if _by_network(source[i]) and not plies[i]:
            source[i] = f"{source[i]}, 0-ply"
    out = []
    for k, plays in enumerate(per_turn):
        part = slice(starts[k], starts[k + 1])
        turn_plies, values = plies[part], mine[k]
        ranking = sorted(range(len(plays)), key=lambda i: (-turn_plies[i], -values[i]))
        out.append(Ranking(plays, rows[part], p[part], values, source[part], turn_plies, ranking))
    return out


def valued(ev: Evaluator, p: np.ndarray, rows: np.ndarray, parts: Sequence[slice],
           values: Sequence[PlayValue | None]) -> list[np.ndarray]:
    """Each part of the rows (results of a play: ``p`` the other side's
    probabilities) valued for the player by its own :data:`PlayValue`, None
    for the cubeless equity; the parts that share one valued in one call."""
    def cubeless(q: np.ndarray, _rows: np.ndarray) -> np.ndarray:
        return -equity(q, ev.game, ev.rules)

    out: list[np.ndarray] = [np.zeros(0)] * len(parts)
    groups: dict[int, list[int]] = {}
    for k, value in enumerate(values):
        groups.setdefault(id(value), []).append(k)
    for members in groups.values():
        value = values[members[0]] or cubeless
        take = np.concatenate([np.arange(len(rows))[parts[k]] for k in members])
        got = value(p[take], rows[take])
        offset = 0
        for k in members:
            n = parts[k].stop - parts[k].start
            out[k] = got[offset:offset + n]
            offset += n
    return out


def _by_network(source: str) -> bool:
    return source != "terminal" and not source.startswith("bear-off")


def _check_ply(ply: int) -> None:
    if not 0 <= ply <= 2:
        raise AnalysisError(f"ply {ply}: 0, 1 or 2")


def _check_movement(rules: Rules, game: str) -> str:
    """Refuse rules the network did not learn when they change the game
    (:data:`REFUSED`); for lesser differences (:data:`MOVEMENT`), the label
    that evaluations carry (see the module docstring)."""
    from ..rules import find_ruleset

    trained = find_ruleset(TRAINED_ON[game]).rules
    differ = [name for name in MOVEMENT if getattr(rules, name) != getattr(trained, name)]
    if game == "long" and rules.koks != trained.koks and \
            points_for(OutcomeKind.KOKS, rules) != points_for(OutcomeKind.MARS, rules):
        differ.append("koks")
    if rules.start == "hypergammon":
        differ.append("start")
    shown = ", ".join(f"{name}={getattr(rules, name)!r}" for name in differ)
    if any(name in REFUSED for name in differ):
        raise AnalysisError(f"the {game} network learned the {TRAINED_ON[game]!r} rules; these rules change "
                            f"the game ({shown}), so it cannot evaluate them (races: `nardtools race`)")
    return f" (learned under {TRAINED_ON[game]!r}; these rules differ: {shown})" if differ else ""


class _GnubgNet:
    """GNU Backgammon's 0-ply network through ``gnubg-nn`` (optional; GPL-3
    like nardtools, imported only when asked for)."""

    def __init__(self) -> None:
        try:
            import gnubg_nn  # type: ignore[import-untyped,import-not-found,unused-ignore]
        except ImportError:
            raise AnalysisError("--evaluator gnubg needs the gnubg-nn package (pip install gnubg-nn)") from None
        self.module = gnubg_nn

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """gnubg's five probabilities of each row (its board: the side on roll as side 1)."""
        return np.array([self.module.probabilities([row[27:52].tolist(), row[1:26].tolist()], 0) for row in rows])


def database_odds(rules: Rules, row: np.ndarray, points: int | None = None) -> tuple[np.ndarray, str] | None:
    """The outcome probabilities of a board row (its side on roll) from the
    bear-off database, when the position is a race both sides of which fit a
    cached database (or the ``points``-point one, built if need be); the
    database named.  ``None`` otherwise (:func:`database_probabilities` of one row)."""
    p, used = database_probabilities(rules, np.asarray(row, np.int8).reshape(1, 52), points)
    return (p[0], f"bear-off database ({used[0]} points)") if used[0] else None


def database_probabilities(rules: Rules, rows: np.ndarray, points: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The bear-off database's outcome probabilities of board rows (each
    from its side on roll), and the database (points) that gave each, 0
    where none did: a race both sides of which fit the smallest cached
    database of six points or more they fit (``points``: that one, built if
    need be).  The one-sided formula of :func:`.race.race_odds`, for every
    row at once."""
    rows = np.asarray(rows, np.int8).reshape(-1, 52)
    reach = race_reach(rows)   # (in_domain of each size, from one look at the rows)
    used = np.zeros(len(rows), np.int64)
    p = np.zeros((len(rows), len(CLASSES[rules.game.value])))
    if not ((reach > 0) & (reach <= 12)).any():
        return p, used
    from .bearoff import MAX_ROLLS, BearoffDatabase, cached_points, position_indices  # only for a race

    sizes = [points] if points else sorted(p for p in cached_points() if p >= 6) or [6]
    for size in reversed(sizes):  # the smallest database both sides fit
        used[(reach > 0) & (reach <= size)] = size
    point_mass = np.zeros(MAX_ROLLS)
    point_mass[0] = 1.0
    for size in sizes:
        take = np.nonzero(used == size)[0]
        if not len(take):
            continue
        db = BearoffDatabase.cached(int(size))
        sides = []
        for start in (1, 27):
            index = position_indices(rows[take, start:start + size], int(size))
            full = (rows[take, start - 1] == 0)[:, None]  # nothing off yet: a gammon (mars) can still happen
            arrays = []
            for table in (db.dist, db.gammon_dist, db.home_dist):
                padded = np.zeros((len(take), MAX_ROLLS))
                got = np.asarray(table[index], np.float64)
                padded[:, :got.shape[1]] = got
                arrays.append(padded)
            dist, first, home = arrays
            sides.append((dist, np.where(full, first, point_mass), np.where(full, home, point_mass), full[:, 0]))
        (pm, gm, hm, mover_full), (po, go, ho, opponent_full) = sides

        def tail(a: np.ndarray) -> np.ndarray:  # P(needs >= j rolls)
            return a[:, ::-1].cumsum(axis=1)[:, ::-1]

        win = np.clip((pm * tail(po)).sum(axis=1), 0.0, 1.0)
        gammon = np.where(opponent_full, (pm * tail(go)).sum(axis=1), 0.0)
        lose_gammon = np.where(mover_full, (po[:, :-1] * tail(gm)[:, 1:]).sum(axis=1), 0.0)
        if rules.is_long:
            home_mars = np.where(opponent_full, np.maximum(0.0, (pm * (tail(go) - tail(ho))).sum(axis=1)), 0.0)
            lose_home_mars = np.where(mover_full, np.maximum(0.0, (po[:, :-1] * (tail(gm) - tail(hm))[:, 1:])
                                                             .sum(axis=1)), 0.0)
            p[take] = np.stack([win, gammon, home_mars, 0 * win, lose_gammon, lose_home_mars, 0 * win], axis=1)
        else:
            p[take] = np.stack([win, gammon, 0 * win, lose_gammon, 0 * win], axis=1)
    return p, used
