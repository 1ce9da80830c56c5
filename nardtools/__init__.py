"""nardtools: the reference toolkit for recorded games of nardy.

Long Nardy (длинные нарды) and backgammon (короткие нарды) share one core:
immutable positions, rolls and plays whose ``str`` is canonical notation, rule
options gathered into named rulesets, and one rules engine.

>>> from nardtools import Position, Roll, find_ruleset, legal_plays
>>> rules = find_ruleset("long").rules
>>> [str(p.play) for p in legal_plays(Position.start("long"), Roll(4, 4), rules)]
['24/16(2)']
"""

from .dice import ALL_ROLLS, Roll
from .engine import Judgement, LegalPlay, LegalPlays, apply_play, check_play, legal_plays, physical_result
from .errors import (
    AmbiguousPlayError,
    GameStateError,
    IllegalPlayError,
    InvalidPlayError,
    InvalidPositionError,
    NardtoolsError,
    RulesetError,
)
from .play import Play, Step
from .position import GameKind, Position, Status
from .rules import Rules, Ruleset, Violation, find_ruleset, rulesets

__version__ = "0.1.0"

__all__ = [
    "ALL_ROLLS", "AmbiguousPlayError", "GameKind", "GameStateError", "IllegalPlayError",
    "InvalidPlayError", "InvalidPositionError", "Judgement", "LegalPlay", "LegalPlays",
    "NardtoolsError", "Play", "Position", "Roll", "Rules", "Ruleset", "RulesetError", "Status", "Step",
    "Violation", "__version__", "apply_play", "check_play", "find_ruleset", "legal_plays",
    "physical_result", "rulesets",
]
