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
from dataclasses import dataclass

from .dice import Roll
from .engine import legal_plays
from .play import Play
from .position import Position
from .rules import Rules


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
