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
from typing import TYPE_CHECKING, Any, Callable

from .dice import Roll
from .engine import legal_plays
from .play import Play
from .game import Game, Match, Phase
from .position import PLAYER_NAMES, Position
from .rules import Rules, Ruleset

if TYPE_CHECKING:
    from .notation.record import GameRecord, MatchRecord


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


def selfplay(ruleset: Ruleset, games: int, seed: int, on_turn: Callable[[str], None] | None = None,
             on_game: Callable[[], None] | None = None) -> dict[str, Any]:
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
        if on_game:
            on_game()
    return {"ruleset": ruleset.name, "games": games, "turns": turns, "rechecked": rechecked,
            "outcomes": outcomes, "points": points, "seconds": time.perf_counter() - started,
            "rules": {k: str(v) for k, v in rules.items()}}


def random_match(ruleset: Ruleset, length: int, seed: int, *, players: tuple[str, str] = ("white", "black"),
                 max_games: int = 50, cube_rate: float = 0.04) -> "MatchRecord":
    """A whole match of random play, as a record (for example archives and tests).

    Doubles are offered at random when the rules allow (``cube_rate`` per turn)
    and taken seven times in ten.

    >>> from nardtools import find_ruleset
    >>> m = random_match(find_ruleset("long"), 3, seed=1)
    >>> max(g.score[0] for g in m.games) < 3 and m.games[-1].result is not None
    True
    """
    from .notation.record import AUTO_DOUBLES, Action, ActionKind, GameRecord, MatchRecord

    rng = random.Random(seed)
    record = MatchRecord(length=length, players=players)
    match = Match(ruleset, length)
    while len(record.games) < max_games and (match.winner is None) and (length or not record.games):
        game = match.new_game()
        grec = GameRecord(len(record.games) + 1, match.score, 0)
        record.games.append(grec)
        while game.phase is Phase.OPENING:
            game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        if game.auto_doubles:
            grec.tags.append((AUTO_DOUBLES, str(game.auto_doubles)))
        if game.phase is Phase.PLAY:  # the starter plays the opening dice
            _record_play(game, grec, rng)
        while game.phase is not Phase.OVER:
            player = game.on_roll
            if game.may_double() is None and rng.random() < cube_rate:
                game.double()
                grec.actions.append(Action(player, ActionKind.DOUBLE, 0, 0, value=game.cube * 2))
                if rng.random() < 0.7:
                    game.take()
                    grec.actions.append(Action(1 - player, ActionKind.TAKE, 0, 0))
                else:
                    game.drop()
                    grec.actions.append(Action(1 - player, ActionKind.DROP, 0, 0))
                    break
            game.roll(rng.randint(1, 6), rng.randint(1, 6))
            _record_play(game, grec, rng)
            while game.phase is Phase.PLAY:  # gul-bara: a crazy sequence, or the opponent's remainder
                _record_play(game, grec, rng)
        assert game.outcome is not None
        match.finish(game)
        grec.actions.append(Action(game.outcome.winner, ActionKind.WIN, 0, 0, value=game.outcome.points,
                                   match_won=match.winner is not None))
    return record


def _record_play(game: Game, grec: "GameRecord", rng: random.Random) -> None:
    from .notation.record import Action, ActionKind

    plays = game.legal_plays()
    choice = plays[rng.randrange(len(plays))]
    player, dice, carried, rolled = game.on_roll, game.dice, game.carried_over, game.rolled
    game.play(choice.play)
    if carried:
        assert dice is not None
        grec.actions.append(Action(player, ActionKind.ROLL, 0, 0, play=str(choice.play), part=dice.dice))
    else:
        grec.actions.append(Action(player, ActionKind.ROLL, 0, 0, roll=rolled, play=str(choice.play)))
