"""Records of random play, for example archives, benchmarks and tests: the
engine plays every turn at random (:mod:`nardtools.playout` plays without a
record), and each game is written as record actions."""

from __future__ import annotations

import random

from ..game import Game, Match, Phase
from ..rules import Ruleset
from .record import AUTO_DOUBLES, Action, ActionKind, GameRecord, MatchRecord


def random_match(ruleset: Ruleset, length: int, seed: int, *, players: tuple[str, str] = ("white", "black"),
                 max_games: int = 50, cube_rate: float = 0.04) -> MatchRecord:
    """A whole match of random play, as a record (for example archives and tests).

    Doubles are offered at random when the rules allow (``cube_rate`` per turn)
    and taken seven times in ten.

    >>> from nardtools import find_ruleset
    >>> m = random_match(find_ruleset("long"), 3, seed=1)
    >>> max(g.score[0] for g in m.games) < 3 and m.games[-1].result is not None
    True
    """
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
            if game.why_no_double() is None and rng.random() < cube_rate:
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


def _record_play(game: Game, grec: GameRecord, rng: random.Random) -> None:
    plays = game.legal_plays()
    choice = plays[rng.randrange(len(plays))]
    player, dice, carried, rolled = game.on_roll, game.dice, game.carried_over, game.rolled
    game.play(choice.play)
    if carried:
        assert dice is not None
        grec.actions.append(Action(player, ActionKind.ROLL, 0, 0, play=str(choice.play), part=dice.dice))
    else:
        grec.actions.append(Action(player, ActionKind.ROLL, 0, 0, roll=rolled, play=str(choice.play)))
