"""nardtools: the reference toolkit for recorded games of nardy.

Long Nardy (длинные нарды) and backgammon (короткие нарды) share one core:
immutable positions, rolls and plays whose ``str`` is canonical notation, rule
options gathered into named rulesets, and one rules engine.

>>> from nardtools import Position, Roll, find_ruleset, legal_plays
>>> rules = find_ruleset("long").rules
>>> [str(p.play) for p in legal_plays(Position.start("long"), Roll(4, 4), rules)]
['24/16(2)']
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: The public names and the modules they live in.  They are imported on first
#: use, so that a command pays only for what it needs (``nardtools validate``
#: on clean backgammon files never loads the rules engine).
_EXPORTS = {
    "ALL_ROLLS": "dice", "Roll": "dice",
    "LegalPlay": "engine", "LegalPlays": "engine", "legal_plays": "engine",
    "Judgement": "judge", "apply_play": "judge", "check_play": "judge", "physical_result": "judge",
    "Game": "game", "Match": "game", "Phase": "game",
    "AmbiguousPlayError": "errors", "GameStateError": "errors", "IllegalPlayError": "errors",
    "InvalidPlayError": "errors", "InvalidPositionError": "errors", "NardtoolsError": "errors",
    "RulesetError": "errors", "Violation": "errors",
    "Play": "play", "Step": "play",
    "GameKind": "position", "Position": "position", "Status": "position",
    "Setup": "setup", "Rules": "rules", "Ruleset": "rules", "find_ruleset": "rules", "rulesets": "rules",
    "evaluate": "analysis.evaluate", "hint": "analysis.evaluate", "read_games": "notation.reading",
    "read_record": "notation.reading", "replay_match": "notation.replay", "write_mat": "notation.mat",
    "write_native": "notation.native",
}

__all__ = [
    "ALL_ROLLS", "AmbiguousPlayError", "Game", "GameKind", "GameStateError", "IllegalPlayError",
    "InvalidPlayError", "InvalidPositionError", "Judgement", "LegalPlay", "LegalPlays",
    "Match", "NardtoolsError", "Phase", "Play", "Position", "Roll", "Rules", "Ruleset", "RulesetError", "Setup", "Status", "Step",
    "Violation", "__version__", "apply_play", "check_play", "evaluate", "find_ruleset", "hint", "legal_plays",
    "physical_result", "read_games", "read_record", "replay_match", "rulesets", "write_mat", "write_native",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nardtools' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


def _show_in_notebooks() -> None:
    """Inside IPython or Jupyter: positions, games and replays show as pictures."""
    import sys

    if "IPython" in sys.modules:
        from .teaching.notebook import register

        register()


_show_in_notebooks()


if TYPE_CHECKING:
    from .analysis.evaluate import evaluate, hint
    from .dice import ALL_ROLLS, Roll
    from .engine import LegalPlay, LegalPlays, legal_plays
    from .errors import (
        AmbiguousPlayError,
        GameStateError,
        IllegalPlayError,
        InvalidPlayError,
        InvalidPositionError,
        NardtoolsError,
        RulesetError,
        Violation,
    )
    from .game import Game, Match, Phase
    from .judge import Judgement, apply_play, check_play, physical_result
    from .notation.mat import write_mat
    from .notation.native import write_native
    from .notation.reading import read_games, read_record
    from .notation.replay import replay_match
    from .play import Play, Step
    from .position import GameKind, Position, Status
    from .rules import Rules, Ruleset, find_ruleset, rulesets
    from .setup import Setup
