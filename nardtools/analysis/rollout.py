"""Rollouts (:func:`rollout`): games played from a position with the
network at 0-ply on both sides, to the end or truncated, with the first two
rolls stratified, and the standard error of the equity; plain
(:func:`play_out`) or with each roll's luck taken out
(:func:`play_out_luckless`, variance reduction).  Training's rollout
targets play the same games (:mod:`.searchnet`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import AnalysisError
from .evaluate import Evaluation, Evaluator
from .probabilities import CLASSES, equity, flip
from .rows import boards_of, finished, mover_won

if TYPE_CHECKING:
    from ..position import Position
    from ..rules import RulesLike


@dataclass(frozen=True)
class Rollout:
    """A rollout's result: the mean probabilities and equity, with the
    standard error of the equity."""

    evaluation: Evaluation
    games: int
    standard_error: float

    def as_dict(self) -> dict[str, Any]:
        return {**self.evaluation.as_dict(), "games": self.games, "standard_error": self.standard_error}


#: Games a rollout plays in lock step (one network call a turn for all of them).
ROLLOUT_BATCH = 144


def roll_pairs(k: np.ndarray) -> np.ndarray:
    """The ``k``-th (0 to 35) of the 36 ordered rolls, as rows of two dice
    (the stratified rolls of a rollout).

    >>> roll_pairs(np.array([0, 7, 35])).tolist()
    [[1, 1], [2, 2], [6, 6]]
    """
    return np.stack([k // 6 + 1, k % 6 + 1], axis=1)


def play_out(ev: Evaluator, boards: np.ndarray, dice_of: Callable[[int], np.ndarray], *,
             truncate: int = 0, seen: Callable[[np.ndarray, np.ndarray, int], None] | None = None) -> np.ndarray:
    """The games from ``boards`` (rows, each seen by its side on roll) played
    in lock step by ``ev`` at 0-ply on both sides
    (:func:`.selfplay.drive_many`: ``dice_of(plays)`` is a row of two dice for
    every game): each game's result as the side on roll at its start sees it,
    exact where the game ended, the network's probabilities where ``truncate``
    > 0 plays stopped it.  ``seen(rows, games, plays)``, when given, is told
    of every turn's chosen results (seen by the side that rolls next), the
    games they are of, and the plays made in each so far."""
    from .selfplay import best_per_roll, drive_many

    last = np.zeros((len(boards), len(CLASSES[ev.game])))

    def choose(rows: np.ndarray, counts: np.ndarray, turn: int, games: np.ndarray) -> np.ndarray:
        p, _, _ = ev.probabilities(rows)
        best = best_per_roll(equity(p, ev.game, ev.rules), counts)
        last[games] = p[best]  # as the side that rolls next sees it
        if seen is not None:
            seen(rows[best], games, turn + 1)
        return best

    done = drive_many(ev.rules, boards, dice_of, choose, stop_after=truncate)
    # the last play's mover is the starting side after an odd number of plays
    return np.where((done.plays % 2 == 0)[:, None], last, flip(last, ev.game))


#: Each roll's row in :data:`~nardtools.dice.ALL_ROLLS`, by its two dice (either order).
_ROLL_INDEX = np.zeros((7, 7), np.int64)


def _index_rolls() -> None:
    from ..dice import ALL_ROLLS

    for k, roll in enumerate(ALL_ROLLS):
        _ROLL_INDEX[roll.high, roll.low] = _ROLL_INDEX[roll.low, roll.high] = k


def play_out_luckless(ev: Evaluator, boards: np.ndarray, dice_of: Callable[[int], np.ndarray], *,
                      truncate: int = 0, max_turns: int = 10_000) -> np.ndarray:
    """:func:`play_out`'s games with each roll's luck taken out (variance
    reduction, as GNU Backgammon's rollouts do it).  Every turn the mover's
    best result of each of the 21 rolls is valued at 0-ply (among the results
    :meth:`Evaluator.successors` keeps, the look-ahead's screen); their mean,
    the position's 1-ply value, is what the roll was expected to bring, and
    the result of the roll played less that mean is the roll's luck, which
    the game's value gives back.  A game's value (its outcome, or the
    network's probabilities where ``truncate`` > 0 plays stopped it, less the
    luck of its rolls) is the start's 1-ply value plus, for each position it
    passed through after the first, its 1-ply less its 0-ply value: the same
    expectation as :func:`play_out`'s where the screen keeps the best play,
    since each roll's luck averages zero over the dice, and far less spread.
    A turn costs the 21 rolls' results instead of one roll's.  ``boards`` are
    unfinished games, each seen by its side on roll; values are from that
    side, one game's not clipped (a mean is a probability; clip it).

    >>> from nardtools.rules import find_ruleset
    >>> from nardtools.analysis.selfplay import start_board
    >>> ev = Evaluator(find_ruleset("long").rules)
    >>> start = start_board(find_ruleset("long"))[None, :]
    >>> one = play_out_luckless(ev, start, lambda turn: np.array([[6, 5]]), truncate=1)
    >>> bool(np.allclose(one, ev.values(start, 1)))  # a roll's game: the 1-ply value
    True
    """
    from ..dice import ALL_ROLLS
    from .selfplay import best_per_roll, check_one_turn_rolls

    check_one_turn_rolls(ev.rules)
    if not _ROLL_INDEX.any():
        _index_rolls()
    weights = np.array([roll.weight / 36 for roll in ALL_ROLLS])
    boards = np.array(boards, np.int8).reshape(-1, 52)
    if finished(boards).any():
        raise AnalysisError("a game that has ended has no play-out")
    value = np.zeros((len(boards), len(CLASSES[ev.game])))  # from each game's starting side
    plays = np.zeros(len(boards), np.int64)
    on = np.ones(len(boards), bool)
    for turn in range(truncate or max_turns):
        games = np.nonzero(on)[0]
        if not len(games):
            return value
        after, counts = ev.successors(boards[games])
        q, _, _ = ev.probabilities(after)  # each from the side that rolls next
        best = best_per_roll(equity(q, ev.game, ev.rules), counts).reshape(len(games), 21)
        dice = np.asarray(dice_of(turn)).reshape(-1, 2)[games]
        played = best[np.arange(len(games)), _ROLL_INDEX[dice[:, 0], dice[:, 1]]]
        expected = np.einsum("r,grk->gk", weights, q[best])
        starter_moved = (plays[games] % 2 == 0)[:, None]
        got, hoped = (np.where(starter_moved, flip(x, ev.game), x) for x in (q[played], expected))
        value[games] += hoped - got  # less the roll's luck
        boards[games] = after[played]
        plays[games] += 1
        ended = mover_won(boards[games])
        last = ended | (turn + 1 == truncate)
        value[games[last]] += got[last]
        on[games[ended]] = False
    if truncate:
        return value
    raise AnalysisError(f"a game ran past {max_turns} turns")


def rollout(position: Position, rules: RulesLike = None, games: int = 1296, *, truncate: int = 0, seed: int = 1,
            evaluator: str = "nardtools", weights: str | None = None, luckless: bool = False,
            progress: Callable[[], None] | None = None) -> Rollout:
    """Play ``games`` games from ``position`` with the network at 0-ply on
    both sides and average what happened, from the side on roll.

    Variance reduction: the first two rolls are stratified (game ``i`` starts
    with the ``i mod 36``-th roll, then the ``(i // 36) mod 36``-th, so that
    1,296 games cover every pair once); later dice come from ``seed``.  The
    games are played :data:`ROLLOUT_BATCH` at a time in lock step
    (:func:`.selfplay.drive_many`).
    ``truncate`` > 0 stops each game after that many plays and counts the
    network's probabilities there instead of an outcome (a truncated
    rollout).  ``luckless`` takes each roll's luck out of every game
    (:func:`play_out_luckless`: the same expectation, a fraction of the
    spread, a turn some 21 times the cost).  The standard error is that of
    the mean equity over the games.
    """
    from ..rules import rules_for

    if not 1 <= games <= 1_000_000:
        raise AnalysisError(f"a rollout of {games} games: 1 to 1,000,000")
    if not 0 <= truncate <= 10_000:
        raise AnalysisError(f"truncate at {truncate} plays: 0 (play to the end) to 10,000")
    options = rules_for(position.kind, rules)
    ev = Evaluator(options, weights=weights, evaluator=evaluator)
    start = boards_of([position])[0]
    p0, source = ev.static(start[None, :])
    if source[0] == "terminal":
        return Rollout(ev.evaluation(p0[0], "terminal", 0), games, 0.0)
    rng = np.random.default_rng(seed)
    results = np.zeros((games, len(CLASSES[ev.game])))
    play = play_out_luckless if luckless else play_out
    for first in range(0, games, ROLLOUT_BATCH):
        batch = np.arange(first, min(first + ROLLOUT_BATCH, games))

        def dice_of(plays: int, batch: np.ndarray = batch) -> np.ndarray:
            if plays < 2:  # stratified
                return roll_pairs((batch // 36 ** plays) % 36)
            return rng.integers(1, 7, (len(batch), 2))

        results[batch] = play(ev, np.repeat(start[None, :], len(batch), axis=0), dice_of, truncate=truncate)
        if progress is not None:
            for _ in batch:
                progress()
    values = equity(results, ev.game, options)
    mean = results.mean(axis=0).clip(0.0, 1.0)
    label = (f"{'luckless ' if luckless else ''}rollout of {games:,} games"
             f"{f', truncated at {truncate} plays' if truncate else ''}, {ev.name} at 0-ply")
    error = float(values.std(ddof=1) / np.sqrt(games)) if games > 1 else float("nan")
    return Rollout(dataclasses.replace(ev.evaluation(mean, label, 0), equity=float(values.mean())), games, error)
