"""Random playouts: whole games played by choosing uniformly among legal plays.

They feed property tests, oracle comparisons, benchmarks and example archives.

>>> import random
>>> from nardtools import find_ruleset
>>> turns = random_game(find_ruleset("long").rules, random.Random(1))
>>> turns[-1].result.is_finished()
True
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Callable

from .dice import Roll
from .engine import legal_plays
from .play import Play
from .game import Game, Phase
from .position import PLAYER_NAMES, Position
from .rules import Rules, Ruleset


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a playout: the position before, the roll, the play, the result."""

    position: Position
    roll: Roll
    play: Play
    result: Position
    first_turn: bool
    choices: int


def opening(rng: random.Random, rules: Rules) -> tuple[int, Roll]:
    """Throw the opening: ``(starter, first roll)`` under the ``opening`` option."""
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if a != b:
            break
    starter = 0 if a > b else 1
    if rules.opening == "play-opening-dice":
        return starter, Roll(a, b)
    return starter, Roll(rng.randint(1, 6), rng.randint(1, 6))


def random_game(rules: Rules, rng: random.Random, *, max_turns: int = 2000) -> list[Turn]:
    """Play one game to the end with uniformly random legal plays."""
    starter, roll = opening(rng, rules)
    position = Position.start(rules.start, player=starter)
    played = [0, 0]
    turns: list[Turn] = []
    for _ in range(max_turns):
        first = played[position.player] == 0
        plays = legal_plays(position, roll, rules, first_turn=first)
        choice = plays[rng.randrange(len(plays))]
        turns.append(Turn(position, roll, choice.play, choice.result, first, len(plays)))
        played[position.player] += 1
        position = choice.result
        if position.is_finished():
            return turns
        roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
    raise RuntimeError(f"game did not finish in {max_turns} turns")


def selfplay(ruleset: Ruleset, games: int, seed: int,
             on_turn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play ``games`` random games through :class:`~nardtools.game.Game`, so that
    every play is checked again by the single-play check and every ending is
    scored, and summarise them.

    >>> from nardtools import find_ruleset
    >>> s = selfplay(find_ruleset("long"), 2, seed=3)
    >>> s["games"], s["turns"] == s["rechecked"], sum(s["outcomes"].values())
    (2, True, 2)
    """
    rng = random.Random(seed)
    rules = ruleset.rules
    outcomes: dict[str, int] = {}
    turns = rechecked = points = 0
    started = time.perf_counter()
    for number in range(1, games + 1):
        game = Game(ruleset)
        while game.phase is Phase.OPENING:
            game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        while game.phase is not Phase.OVER:
            if game.phase is Phase.ROLL:
                game.roll(rng.randint(1, 6), rng.randint(1, 6))
            plays = game.legal_plays()
            choice = plays[rng.randrange(len(plays))]
            player, dice = game.on_roll, game.dice
            game.play(choice.play)  # raises if the single-play check disagrees
            turns += 1
            rechecked += 1
            if on_turn:
                on_turn(f"game {number} {PLAYER_NAMES[player]} {dice}: {choice.play or '(no move)'}")
        assert game.outcome is not None
        if on_turn:
            on_turn(f"game {number}: {game.outcome}")
        key = str(game.outcome.kind)
        outcomes[key] = outcomes.get(key, 0) + 1
        points += game.outcome.points
    return {"ruleset": ruleset.name, "games": games, "turns": turns, "rechecked": rechecked,
            "outcomes": outcomes, "points": points, "seconds": time.perf_counter() - started,
            "rules": {k: str(v) for k, v in rules.items()}}
