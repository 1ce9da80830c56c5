"""The compiled core against the Python reference, on the same inputs: the
legal plays (in order, with their steps and ranks) and the judgement of
written plays.  Used by ``tests/test_core.py`` (a sample) and
``benchmarks/differential.py`` (a million position-rolls and more).

Every named ruleset is compared, and beside them every value of every option
that changes what is legal, each on the ruleset of its game.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from nardtools import ALL_ROLLS, Position, Roll, Step, find_ruleset, rulesets
from nardtools.dice import Dice
from nardtools.judge import _judge
from nardtools.play import Play
from nardtools.playout import random_game
from nardtools.rules import Rules
from nardtools.turn import RolledTurn, legal_ends

#: Option values that change what is legal, on the ruleset of their game.
VARIANTS: list[tuple[str, dict[str, str]]] = [
    ("long", {"head": "doubles-list"}), ("long", {"head": "none"}), ("long", {"head-limit": "0"}),
    ("long", {"head-limit": "2"}), ("long", {"block": "none"}), ("long", {"block": "opponent-in-home"}),
    ("long", {"block-check": "every-step"}), ("long", {"block-path": "mover"}),
    ("long", {"block": "opponent-in-home", "block-path": "mover", "block-check": "every-step"}),
    ("long", {"bear-off": "exact"}), ("long", {"move-inside-home": "no"}),
    ("backgammon", {"bear-off": "exact"}), ("backgammon", {"caucasian": "yes"}),
    ("backgammon", {"hit-after-home": "yes"}), ("backgammon", {"bar-first": "no"}),
    ("backgammon", {"hitting": "no"}), ("backgammon", {"move-inside-home": "no"}),
    ("dutch", {"bar-first": "no"}),
]


def configurations() -> list[tuple[str, Rules]]:
    """``(label, rules)``: every named ruleset, then every variant."""
    out = [(rs.name, rs.rules) for rs in rulesets()]
    out += [(f"{name}+{','.join(f'{k}={v}' for k, v in options.items())}",
             find_ruleset(name).rules.with_options(options)) for name, options in VARIANTS]
    return out


def cases(rules: Rules, rng: random.Random, count: int) -> Iterator[tuple[Position, Roll | Dice, bool | None]]:
    """``count`` position-rolls from random games under ``rules``: each
    position with its own roll, and with random rolls and dice carried over."""
    made = 0
    while made < count:
        for turn in random_game(rules, rng):
            rolls: list[Roll | Dice] = [turn.roll, rng.choice(ALL_ROLLS)]
            if rng.random() < 0.2:
                rolls.append(Dice(tuple(rng.randint(1, 6) for _ in range(rng.randint(1, 3)))))
            for roll in rolls:
                yield turn.position, roll, turn.first_turn if rng.random() < 0.8 else None
                made += 1
                if made >= count:
                    return


def plays_agree(position: Position, roll: Roll | Dice, rules: Rules, first_turn: bool | None) -> list[Play]:
    """Assert the core's legal plays are the reference's; return them."""
    turn = RolledTurn(position, roll, rules, first_turn)
    fast = [(c.me, c.hits, c.steps, c.rank) for c in legal_ends(turn)]
    slow = [(c.me, c.hits, c.steps, c.rank) for c in legal_ends(turn, core=False)]
    assert fast == slow, (str(position), str(roll), first_turn)
    return [Play(tuple(Step(*s) for s in steps)) for _, _, steps, _ in fast]


def _written(play: Play, rng: random.Random) -> list[str | Play]:
    """The play as it was found, and written the ways records write it
    (the last: each checker's way as one move from start to end, no hits
    marked, which may read two ways and be refused as ambiguous)."""
    text = str(play)
    gnubg = " ".join(f"{s.source}/{s.target}{'*' if s.hit else ''}" for s in play.steps)
    return [play, text, gnubg, text.replace("bar", "25").replace("off", "0"), " ".join(reversed(gnubg.split())),
            _combined(play)]


def _combined(play: Play) -> str:
    """``13/7* 7/6`` as ``13/6``: consecutive steps of one checker joined."""
    ways: list[list[int]] = []
    for s in play.steps:
        if ways and ways[-1][-1] == s.source and s.source != 0:
            ways[-1].append(s.target)
        else:
            ways.append([s.source, s.target])
    return " ".join(f"{w[0]}/{w[-1]}" for w in ways)


def _wrong(play: Play, rng: random.Random) -> list[str]:
    """Plays that are often illegal: a step moved, dropped, doubled or swapped."""
    steps = list(play.steps)
    out = []
    if steps:
        i = rng.randrange(len(steps))
        s = steps[i]
        for delta in (-1, 1):
            t = s.target + delta
            if 0 <= t < s.source:
                out.append(" ".join(f"{x.source}/{x.target}" if j != i else f"{s.source}/{t}"
                                    for j, x in enumerate(steps)))
        out.append(" ".join(f"{x.source}/{x.target}" for j, x in enumerate(steps) if j != i))
        out.append(" ".join(f"{x.source}/{x.target}" for x in [*steps, s]))
    out.append(f"{rng.randint(2, 25)}/{rng.randint(0, 1)}")
    return out


def judgements_agree(position: Position, roll: Roll | Dice, rules: Rules, first_turn: bool | None,
                     plays: list[Play], rng: random.Random) -> int:
    """Assert the core judges every legal play (written several ways) as the
    reference does, and never calls a play legal that the reference does not
    (it may leave one to the reference); return the plays judged."""
    judged = 0
    for play in plays:
        for written in _written(play, rng):
            fast = _judge(position, roll, written, rules, first_turn)
            slow = _judge(position, roll, written, rules, first_turn, core=False)
            assert (fast.legal, fast.result, fast.play, fast.dice_used) == (
                slow.legal, slow.result, slow.play, slow.dice_used), (str(position), str(roll), str(written))
            judged += 1
        for written in _wrong(play, rng):
            try:
                fast = _judge(position, roll, written, rules, first_turn)
            except ValueError:
                continue
            slow = _judge(position, roll, written, rules, first_turn, core=False)
            assert fast.legal == slow.legal and (not fast.legal or (fast.result, fast.play) == (
                slow.result, slow.play)), (str(position), str(roll), written)
            judged += 1
    return judged
