"""Games between players that choose among legal plays: the engine of
training, of the strength benchmarks and of rollouts.

A *player* chooses one of the positions a roll can reach (``choose(rows)``:
rows of 52 int8, as :func:`.rows.boards_of` writes them, seen by the side
that rolls next).  The legal results come from the compiled core
(``successors``) or, without it, from the readable reference; the game's
rules are the ruleset's (the opening, the head rule's first turn, bearing
off), and a game ends when a side bears off its last checker.

>>> from nardtools import find_ruleset
>>> result = play_game(find_ruleset("long"), RandomPlayer(1), RandomPlayer(2), seed=7)
>>> result.winner in (0, 1), result.points >= 1
(True, True)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..errors import AnalysisError
from ..position import HEAD
from .nets import Network, Networks
from .probabilities import CLASSES, equity, exact_where_finished, outcome
from .rows import mover_won

if TYPE_CHECKING:
    from ..rules import Rules, Ruleset


class Player(Protocol):
    """Anything that picks one of the positions a roll can reach."""

    def choose(self, rows: np.ndarray) -> int: ...


class RandomPlayer:
    """A uniformly random legal play (seeded)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def choose(self, rows: np.ndarray) -> int:
        return int(self.rng.integers(len(rows)))


class HeuristicPlayer:
    """A Long Nardy player of simple principles, the yardstick of the
    networks (a club player would call its play sensible, if plain).  Of the
    positions a roll reaches it takes the one scoring best for the side that
    played:

    - progress: minus its pip count (a play that cannot use every die loses);
    - bearing off: 8 per checker off;
    - blocks (заборы): for every run of consecutive points it holds, 1 + 2 + ...
      + the run's length (a run of six counts 21), so longer blocks weigh more;
    - the head (голова) moving: minus 2 per checker still on the head;
    - spread: minus 1 per checker beyond three on a point other than the head.

    Ties go to the first play in the engine's order.
    """

    def choose(self, rows: np.ndarray) -> int:
        return int(np.argmax(heuristic_scores(rows)))


def heuristic_scores(rows: np.ndarray) -> np.ndarray:
    """:class:`HeuristicPlayer`'s score of each row, for the side that just played."""
    me = rows[:, 26:52].astype(np.int64)
    points = me[:, 1:25]
    held = points > 0
    run = np.zeros(len(rows), np.int64)
    blocks = np.zeros(len(rows), np.int64)
    for k in range(24):
        run = (run + 1) * held[:, k]
        blocks += run
    stacked = np.maximum(points[:, :23] - 3, 0).sum(axis=1)
    pips = points @ np.arange(1, 25)
    return -pips + 8 * me[:, 0] + blocks - 2 * me[:, HEAD] - stacked  # type: ignore[no-any-return]


class NetPlayer:
    """The play whose result the network likes best for the side that played
    (0-ply, cubeless equity under the ruleset's scoring); a finished game
    counts as its exact outcome."""

    def __init__(self, net: Network | Networks, ruleset: Ruleset) -> None:
        self.net, self.rules, self.game = net, ruleset.rules, net.game

    def values(self, rows: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
        """Probabilities of each row for the side that rolls next (its opponent
        just played); finished games exact.  ``x``, the rows' inputs, serves
        a single network (training)."""
        if isinstance(self.net, Networks):
            p = self.net.probabilities(rows)
        else:
            p = self.net.outputs(rows).astype(np.float64) if x is None else self.net(x)
        exact_where_finished(p, rows, self.game, self.rules)
        return p

    def choose(self, rows: np.ndarray) -> int:
        if len(rows) == 1:
            return 0
        return int(np.argmin(equity(self.values(rows), self.game, self.rules)))


@dataclass
class GameResult:
    """How a game ended: the winner (0 the side that moved first), the points
    at cube 1 and the number of turns."""

    winner: int
    points: int
    turns: int


def successors(rules: Rules, board: np.ndarray, dice: tuple[int, ...]) -> np.ndarray:
    """The positions a roll can reach from ``board`` (one row of 52), as rows
    seen by the side that rolls next; one row (the same board, sides swapped)
    when nothing can be played."""
    from ..core import compiled, pack_rules
    from ..turn import on_first_turn

    mover, opponent = tuple(int(v) for v in board[:26]), tuple(int(v) for v in board[26:])
    first_turn = on_first_turn(mover, rules)
    core = compiled()
    if core is not None:
        data = core.successors(pack_rules(rules), mover, opponent, dice, True, int(first_turn))
        if data is not None:
            return np.frombuffer(data, np.int8).reshape(-1, 52)
    from ..dice import Roll
    from ..engine import legal_plays
    from ..position import Position

    position = Position._trusted(rules.game, mover, opponent, 0)
    plays = legal_plays(position, Roll(dice[0], dice[-1]), rules, first_turn=first_turn)
    return np.array([tuple(p.result.mover) + tuple(p.result.opponent) for p in plays], np.int8).reshape(-1, 52)


def roll_successors(rules: Rules, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each board row and each of the 21 rolls (``ALL_ROLLS`` order), the
    positions the roll reaches (:func:`successors`), one after another, and
    their counts (boards x 21): the look-ahead's whole first step in one call."""
    from ..core import compiled, pack_rules

    boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 52)
    core = compiled()
    if core is not None:
        got = core.roll_successors(pack_rules(rules), boards.tobytes())
        if got is not None:
            rows, counts = got
            return (np.frombuffer(rows, np.int8).reshape(-1, 52),
                    np.frombuffer(counts, np.int32).reshape(len(boards), 21))
    from ..dice import ALL_ROLLS

    parts = [successors(rules, board, roll.dice) for board in boards for roll in ALL_ROLLS]
    counts = np.array([len(part) for part in parts], np.int32).reshape(len(boards), 21)
    return (np.concatenate(parts) if parts else np.zeros((0, 52), np.int8)), counts


def best_per_roll(value: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The index, in :func:`roll_successors`' rows, of the result each roll's
    mover likes best: the least ``value`` (the equity for the side that rolls
    next) within each group of ``counts``.

    >>> best_per_roll(np.array([0.3, -0.2, 0.5, 0.1]), np.array([[2, 1, 1]])).tolist()
    [1, 2, 3]
    """
    sizes = counts.ravel()
    starts = np.cumsum(sizes) - sizes
    # every row equal to its group's least, then the first of them in each group (as argmin picks)
    least = np.flatnonzero(value == np.repeat(np.minimum.reduceat(value, starts), sizes))
    return least[np.searchsorted(least, starts)]  # type: ignore[no-any-return]


def best_in_rolls(value: np.ndarray, counts: np.ndarray, keep: int) -> np.ndarray:
    """Which of :func:`roll_successors`' rows are among the ``keep`` each
    roll's mover likes best (the least ``value``, the earlier among equals;
    every row of a roll with no more), as a mask; by the compiled core where
    it is in use.

    >>> best_in_rolls(np.array([0.3, -0.2, 0.5, 0.1, 0.1, 0.4]), np.array([[4, 2]]), 2).tolist()
    [False, True, False, True, True, True]
    """
    from ..core import compiled

    value = np.ascontiguousarray(value, np.float64)
    sizes = np.ascontiguousarray(counts, np.int32).ravel()
    core = compiled()
    if core is not None:
        out = np.empty(len(value), np.uint8)
        core.best_of_groups(value, sizes, keep, out)
        return out.view(bool)
    roll = np.repeat(np.arange(len(sizes)), sizes)
    order = np.lexsort((value, roll))  # each roll's rows, least value first (lexsort is stable)
    rank = np.empty(len(value), np.int64)
    rank[order] = np.arange(len(value)) - (np.cumsum(sizes) - sizes)[roll[order]]
    kept: np.ndarray = rank < keep
    return kept


def start_board(ruleset: Ruleset) -> np.ndarray:
    from ..position import Position

    position = Position.start(ruleset.rules.start)
    return np.array(tuple(position.mover) + tuple(position.opponent), np.int8)


def opening_roll(rng: np.random.Generator, ruleset: Ruleset) -> tuple[int, int]:
    """The first roll of a game: backgammon plays the two different dice of
    the opening throw; Long Nardy's starter rolls afresh (any roll)."""
    while True:
        a, b = (int(v) for v in rng.integers(1, 7, 2))
        if a != b or ruleset.rules.opening == "reroll":
            return a, b


def turn_dice(die1: int, die2: int) -> tuple[int, ...]:
    """The dice a roll gives to play: a double four times (the one place
    board-row games expand them; :attr:`~nardtools.dice.Roll.dice` for rolls).

    >>> turn_dice(3, 3), turn_dice(6, 1)
    ((3, 3, 3, 3), (6, 1))
    """
    return (die1,) * 4 if die1 == die2 else (die1, die2)


@dataclass
class Drive:
    """Where :func:`drive` stopped: the board (from the side now on roll) and
    the plays made (the game is over when :func:`.rows.mover_won` says so)."""

    board: np.ndarray
    plays: int


def drive(rules: Rules, board: np.ndarray, dice_of: Callable[[int], tuple[int, int]],
          choose: Callable[[np.ndarray, int], int], *, stop_after: int = 0, max_turns: int = 10_000) -> Drive:
    """One game of :func:`drive_many`, the turn driver of every board-row
    game loop (self-play, rollouts, training): turn ``k`` rolls
    ``dice_of(k)``, the side on roll picks one of the results (``choose(rows,
    k)``: rows seen by the side that rolls next), and the game ends when a
    side has no checker left in play (:func:`.rows.mover_won`, whatever the
    ruleset's count), or after ``stop_after`` plays when that is given."""
    done = drive_many(rules, board[None, :], lambda k: np.array([dice_of(k)]),
                      lambda rows, _counts, k, _games: np.array([choose(rows, k)]),
                      stop_after=stop_after, max_turns=max_turns)
    return Drive(done.boards[0], int(done.plays[0]))


def dice_successors(rules: Rules, boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each board row and its roll (a row of ``dice``, two dice), the
    positions the roll reaches (:func:`successors`), one board's after
    another's, and how many each: a turn of many games in one call."""
    from ..core import compiled, pack_rules

    boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 52)
    dice = np.ascontiguousarray(dice, np.int8).reshape(-1, 2)
    core = compiled()
    if core is not None:
        got = core.dice_successors(pack_rules(rules), boards.tobytes(), dice.tobytes())
        if got is not None:
            return np.frombuffer(got[0], np.int8).reshape(-1, 52), np.frombuffer(got[1], np.int32)
    parts = [successors(rules, board, turn_dice(int(a), int(b))) for board, (a, b) in zip(boards, dice)]
    return (np.concatenate(parts) if parts else np.zeros((0, 52), np.int8)), np.array([len(p) for p in parts], np.int32)


@dataclass
class DriveMany:
    """Where :func:`drive_many` stopped: each game's board (from the side now
    on roll) and the plays made in it."""

    boards: np.ndarray
    plays: np.ndarray


def check_one_turn_rolls(rules: Rules) -> None:
    """Refuse rulesets where a roll is more than one turn (gul-bara's doubles,
    remainders, re-rolls): self-play and rollouts cover the others."""
    if rules.crazy_doubles != "none" or rules.remainder != "lost" or rules.double_reroll:
        raise AnalysisError("self-play and rollouts cover rulesets where a roll is one turn (not gul-bara's "
                            "doubles, remainders or re-rolls)")


def drive_many(rules: Rules, boards: np.ndarray, dice_of: Callable[[int], np.ndarray],
               choose: Callable[[np.ndarray, np.ndarray, int, np.ndarray], np.ndarray], *, stop_after: int = 0,
               max_turns: int = 10_000) -> DriveMany:
    """Many games in lock step: turn ``k`` rolls ``dice_of(k)`` (a row of two
    dice for every game, played or not, so that each game's dice do not
    depend on when the others end), the games still on choose together
    (``choose(rows, counts, k, games)``: every result of every game's roll,
    seen by the side that rolls next, one game's after another's, how many
    each, and which games they are; the index in ``rows`` of each game's
    choice, as :func:`best_per_roll` gives it), and a game ends when a side
    has no checker left in play (:func:`.rows.mover_won`, whatever the
    ruleset's count) or after ``stop_after`` plays when that is given.
    First turns and doubles are the engine's
    (:func:`~nardtools.turn.on_first_turn`, :func:`turn_dice`).  Rulesets
    where a roll is more than one turn (gul-bara's doubles, remainders,
    re-rolls) are :class:`~nardtools.game.Game`'s."""
    check_one_turn_rolls(rules)
    boards = np.array(boards, np.int8).reshape(-1, 52)
    plays = np.zeros(len(boards), np.int64)
    on = np.ones(len(boards), bool)
    for turn in range(max_turns):
        games = np.nonzero(on)[0]
        if not len(games):
            return DriveMany(boards, plays)
        dice = np.asarray(dice_of(turn)).reshape(-1, 2)[games]
        rows, counts = dice_successors(rules, boards[games], dice)
        boards[games] = rows[np.asarray(choose(rows, counts, turn, games))]
        plays[games] += 1
        on[games] = ~mover_won(boards[games])
        if stop_after and turn + 1 >= stop_after:
            return DriveMany(boards, plays)
    raise AnalysisError(f"a game ran past {max_turns} turns")


def play_game(ruleset: Ruleset, first: Player, second: Player, seed: int, *,
              on_turn: Callable[[np.ndarray, np.ndarray, int], None] | None = None,
              max_turns: int = 10_000) -> GameResult:
    """One game, ``first`` moving first; ``on_turn(board, rows, chosen)`` is
    told of every turn (the position before the roll, the results of the
    roll, the one chosen)."""
    rules = ruleset.rules
    rng = np.random.default_rng(seed)
    players = (first, second)
    start = start_board(ruleset)
    before = [start]

    def dice_of(turn: int) -> tuple[int, int]:
        if turn == 0:
            return opening_roll(rng, ruleset)
        a, b = (int(v) for v in rng.integers(1, 7, 2))
        return a, b

    def choose(rows: np.ndarray, turn: int) -> int:
        chosen = players[turn % 2].choose(rows)
        if on_turn is not None:
            on_turn(before[0], rows, chosen)
        before[0] = rows[chosen]
        return chosen

    done = drive(rules, start, dice_of, choose, max_turns=max_turns)
    game = rules.game.value
    won = outcome(game, done.board[:26], rules)
    return GameResult((done.plays - 1) % 2, round(float(equity(won, game, rules))), done.plays)


@dataclass
class MatchResult:
    """A series of money games between two players, each moving first in half."""

    games: int
    wins: int        # by the first player named
    points: int      # the first player's net points
    by_kind: dict[int, int]

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def points_per_game(self) -> float:
        return self.points / self.games if self.games else 0.0

    def standard_error(self) -> float:
        """Of the win rate (binomial)."""
        p = self.win_rate
        return float(np.sqrt(p * (1 - p) / self.games)) if self.games else 0.0

    def __add__(self, other: MatchResult) -> MatchResult:
        """Two parts of a series as one (see ``first`` in :func:`series`)."""
        kinds = dict(self.by_kind)
        for k, n in other.by_kind.items():
            kinds[k] = kinds.get(k, 0) + n
        return MatchResult(self.games + other.games, self.wins + other.wins, self.points + other.points, kinds)


def series(ruleset: Ruleset, a: Player, b: Player, games: int, seed: int,
           progress: Callable[[], None] | None = None, *, first: int = 0, paired: bool = False) -> MatchResult:
    """``games`` games of ``a`` against ``b``, alternating who starts; game i
    uses the dice of seed ``seed * 1_000_003 + i`` whoever plays them
    (``paired``: of ``i // 2``, so that each pair of games plays the same
    dice with the seats swapped, and luck cancels within the pair).  Games
    ``first`` to ``first + games - 1`` of the series: its parts, played apart
    (in processes) and added, are the whole series."""
    wins = points = 0
    by_kind: dict[int, int] = {}
    for i in range(first, first + games):
        a_first = i % 2 == 0
        result = play_game(ruleset, a if a_first else b, b if a_first else a,
                           seed * 1_000_003 + (i // 2 if paired else i))
        a_won = (result.winner == 0) == a_first
        wins += a_won
        points += result.points if a_won else -result.points
        by_kind[result.points] = by_kind.get(result.points, 0) + 1
        if progress:
            progress()
    return MatchResult(games, wins, points, by_kind)


def series_in_processes(part: Callable[[int, int], MatchResult], games: int, jobs: int, *,
                        unit: int = 1) -> MatchResult:
    """Games 0 to ``games - 1`` of a :func:`series`, ``part(first, count)``
    playing games ``first`` to ``first + count - 1`` (a picklable callable),
    split over ``jobs`` processes in whole multiples of ``unit`` games (2 for
    :func:`series`' seat-swapped pairs): their sum, the same results however
    many processes play them."""
    units = -(-games // unit)
    bounds = [unit * (units * k // jobs) for k in range(jobs + 1)]
    parts = [(lo, min(hi, games) - lo) for lo, hi in itertools.pairwise(bounds) if min(hi, games) > lo]
    if len(parts) == 1:
        return part(*parts[0])
    from multiprocessing import Pool

    from ..core import single_threaded

    with Pool(len(parts), initializer=single_threaded) as pool:
        results = pool.starmap(part, parts)
    total = results[0]
    for r in results[1:]:
        total = total + r
    return total


__all__ = ["CLASSES", "GameResult", "HeuristicPlayer", "MatchResult", "NetPlayer", "Player", "RandomPlayer", "play_game",
           "roll_successors", "series", "series_in_processes", "successors"]
