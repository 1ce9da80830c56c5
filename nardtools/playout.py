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
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .core import compiled, pack_rules
from .dice import Dice, Roll, SplitMix64
from .errors import GameStateError
from .game import Game, Phase
from .outcome import BACKGAMMON_KINDS, LONG_KINDS, OutcomeKind
from .play import Play
from .position import PLAYER_NAMES, Position
from .rules import Rules, Ruleset


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a playout: the position before, the roll, the play, the result."""

    position: Position
    roll: Roll | Dice
    play: Play
    result: Position
    first_turn: bool
    choices: int


def random_game(rules: Rules, rng: random.Random, *, max_turns: int = 2000) -> list[Turn]:
    """Play one money game to the end with uniformly random legal plays,
    through the game machine (:class:`~nardtools.game.Game`: its opening
    throw, automatic doubles, gul-bara's sequences and remainders); one
    :class:`Turn` a play, its ``roll`` the dice that play played."""
    game = Game(rules)
    while game.phase is Phase.OPENING:
        game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
    turns: list[Turn] = []
    for _ in range(max_turns):
        if game.phase is Phase.ROLL:
            game.roll(rng.randint(1, 6), rng.randint(1, 6))
        position, dice, first = game.position, game.dice, game.first_turn
        assert dice is not None
        plays = game.legal_plays()
        choice = plays[rng.randrange(len(plays))]
        game.play(choice.play)
        turns.append(Turn(position, dice, choice.play, choice.result, first, len(plays)))
        if game.phase is Phase.OVER:
            return turns
    raise RuntimeError(f"game did not finish in {max_turns} turns")


#: The trace events of a playout (four numbers each; see :class:`Playout`).
EV_OPENING, EV_ROLL, EV_PLAY, EV_END = range(4)
_MASK = (1 << 64) - 1


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed`` (any game can be
    played again alone, and runs split across workers)."""
    return SplitMix64((SplitMix64(seed).next() + index) & _MASK).next()


@dataclass(frozen=True, slots=True)
class Playout:
    """One random money game: who won, how, for how many points, in how
    many turns; with ``events`` when traced, four numbers each:
    ``(EV_OPENING, die, die, 0)``, ``(EV_ROLL, die, die, 0)``,
    ``(EV_PLAY, n, k, 0)`` (the ``k``-th of ``n`` legal plays) and
    ``(EV_END, winner, points, 0)``."""

    winner: int
    kind: OutcomeKind
    points: int
    turns: int
    events: tuple[tuple[int, int, int, int], ...] = ()


#: Plays after which a playout is abandoned (no game of any ruleset comes near).
MAX_PLAYS = 100_000


def playouts(ruleset: Ruleset, games: int, seed: int, *, first: int = 0, trace: bool = False,
             core: bool = True) -> list[Playout]:
    """Games ``first`` .. ``first + games - 1`` of ``seed``, each played to its
    end with uniformly random legal plays: by the compiled core when it is
    built (and ``core``), else by :class:`~nardtools.game.Game` with the same
    random numbers, so both give the same games.

    >>> from nardtools import find_ruleset
    >>> [g.winner for g in playouts(find_ruleset("long"), 4, seed=1)]
    [1, 1, 1, 0]
    """
    compiled_core = compiled() if core else None
    if compiled_core is not None:
        got = compiled_core.playouts(pack_rules(ruleset.rules), games, seed, first, trace)
        if got is not None:
            return _decoded(ruleset, *got)
    return [_played(ruleset, game_seed(seed, first + i), trace) for i in range(games)]


def _decoded(ruleset: Ruleset, results: bytes, events: bytes | None) -> list[Playout]:
    kinds = LONG_KINDS if ruleset.rules.is_long else BACKGAMMON_KINDS
    rows = list(struct.iter_unpack("<4i", results))
    traces: list[tuple[tuple[int, int, int, int], ...]] = []
    if events is not None:
        game: list[tuple[int, int, int, int]] = []
        for ev in struct.iter_unpack("<4i", events):
            row = (ev[0], ev[1], ev[2], 0) if ev[0] == EV_PLAY else (EV_END, ev[1], ev[3], 0) \
                if ev[0] == EV_END else ev
            game.append(row)
            if ev[0] == EV_END:
                traces.append(tuple(game))
                game = []
    return [Playout(w, kinds[k - 1], p, t, traces[i] if traces else ()) for i, (w, k, p, t) in enumerate(rows)]


def _played(ruleset: Ruleset, seed: int, trace: bool) -> Playout:
    rng = SplitMix64(seed)
    events: list[tuple[int, int, int, int]] = []
    game = Game(ruleset)
    while game.phase is Phase.OPENING:
        a, b = rng.die(), rng.die()
        events.append((EV_OPENING, a, b, 0))
        game.opening_roll(a, b)
    for _ in range(MAX_PLAYS):
        if game.phase is Phase.OVER:
            break
        if game.phase is Phase.ROLL:
            a, b = rng.die(), rng.die()
            events.append((EV_ROLL, a, b, 0))
            game.roll(a, b)
        plays = game.legal_plays()
        k = rng.below(len(plays))
        events.append((EV_PLAY, len(plays), k, 0))
        game.play(plays[k].play)
    else:
        raise GameStateError(f"a playout did not end in {MAX_PLAYS:,} plays")
    outcome = game.outcome
    assert outcome is not None
    events.append((EV_END, outcome.winner, outcome.points, 0))
    return Playout(outcome.winner, outcome.kind, outcome.points, sum(game.turns_played),
                   tuple(events) if trace else ())


def replay_playout(ruleset: Ruleset, playout: Playout, on_turn: Callable[[str], None] | None = None) -> str | None:
    """Play a traced game again through :class:`~nardtools.game.Game` with the
    reference engine alone: ``None`` when every play was among the legal plays
    it finds, in the same number, and the game ended alike; else what differs."""
    from .core import reference_engine

    game = Game(ruleset)
    with reference_engine():
        for kind, a, b, _ in playout.events:
            if kind == EV_OPENING:
                game.opening_roll(a, b)
            elif kind == EV_ROLL:
                game.roll(a, b)
            elif kind == EV_PLAY:
                player, dice = game.on_roll, game.dice
                plays = game.legal_plays()
                if len(plays) != a:
                    return f"{game.position} to play {dice}: {a} legal plays, the reference finds {len(plays)}"
                game.play(plays[b].play)
                if on_turn:
                    on_turn(f"{PLAYER_NAMES[player]} {dice}: {plays[b].play or '(no move)'}")
            elif (game.outcome is None or (game.outcome.winner, game.outcome.points) != (a, b)
                    or game.outcome.kind is not playout.kind):
                return f"the game ends {a}, {b} points, {playout.kind}; the reference: {game.outcome}"
    return None


def selfplay(ruleset: Ruleset, games: int, seed: int, *, check: bool = True,
             on_turn: Callable[[str], None] | None = None,
             on_game: Callable[[], None] | None = None) -> dict[str, Any]:
    """Play ``games`` random games (:func:`playouts`) and summarise them; with
    ``check``, play each again through :class:`~nardtools.game.Game` with the
    reference engine alone (:func:`replay_playout`), so that every play of the
    compiled core is checked by the readable rules.

    >>> from nardtools import find_ruleset
    >>> s = selfplay(find_ruleset("long"), 2, seed=3)
    >>> s["games"], s["turns"] > 0, s["differences"], sum(s["outcomes"].values())
    (2, True, [], 2)
    """
    outcomes: dict[str, int] = {}
    turns = points = 0
    differences: list[str] = []
    started = time.perf_counter()
    batch = 1 if on_turn else 64 if check else 4096
    for first in range(0, games, batch):
        for i, game in enumerate(playouts(ruleset, min(batch, games - first), seed, first=first,
                                          trace=check or on_turn is not None), first + 1):
            if check or on_turn:
                difference = replay_playout(ruleset, game, None if on_turn is None else _numbered(on_turn, i))
                if difference:
                    differences.append(f"game {i}: {difference}")
            if on_turn:
                on_turn(f"game {i}: {PLAYER_NAMES[game.winner]} wins {game.points} ({game.kind})")
            outcomes[str(game.kind)] = outcomes.get(str(game.kind), 0) + 1
            turns += game.turns
            points += game.points
            if on_game:
                on_game()
    return {"ruleset": ruleset.name, "games": games, "seed": seed, "turns": turns, "checked": check,
            "differences": differences, "outcomes": outcomes, "points": points,
            "engine": "core" if compiled() is not None else "reference",
            "seconds": time.perf_counter() - started,
            "rules": {k: str(v) for k, v in ruleset.rules.items()}}


def _numbered(on_turn: Callable[[str], None], number: int) -> Callable[[str], None]:
    return lambda line: on_turn(f"game {number} {line}")
