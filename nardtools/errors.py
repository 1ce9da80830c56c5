"""The exceptions nardtools raises; every one derives from :class:`NardtoolsError`.

Syntax errors (*invalid*), rule violations (*illegal*) and *ambiguous* input are
distinct ``ValueError`` subclasses, as in python-chess, so callers can catch
exactly what they mean to handle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .rules import Violation


class NardtoolsError(Exception):
    """Base class of every error raised by nardtools."""


class InvalidPositionError(NardtoolsError, ValueError):
    """A position text or layout that cannot be read, or a position that
    cannot occur; ``status`` holds the :class:`~nardtools.position.Status`
    flags of an impossible one."""

    def __init__(self, message: str, *, status: Any = None) -> None:
        super().__init__(message)
        self.status = status


class InvalidPlayError(NardtoolsError, ValueError):
    """Play or roll text that is not well-formed (a syntax error)."""


class IllegalPlayError(NardtoolsError, ValueError):
    """A well-formed play that the rules forbid in this position.

    ``violation`` names the rule that fired; ``position``, ``roll`` and ``play``
    are the input (kept as objects so callers can render them as they like).
    """

    def __init__(
        self, message: str, *, violation: Violation, position: Any = None,
        roll: Any = None, play: Any = None,
    ) -> None:
        super().__init__(message)
        self.violation = violation
        self.position = position
        self.roll = roll
        self.play = play


class AmbiguousPlayError(NardtoolsError, ValueError):
    """Play text that matches several different legal plays."""


class RulesetError(NardtoolsError, ValueError):
    """An unknown ruleset or option name, or a bad option value."""


class GameStateError(NardtoolsError, ValueError):
    """An action that the game's state or rules do not allow now (e.g. a double
    in the Crawford game, a roll while a double awaits an answer)."""


class AnalysisError(NardtoolsError, ValueError):
    """An analysis asked of input it does not apply to (race odds with
    contact, a bear-off position that does not fit a database, a match
    equity table that cannot be read, an unknown column...)."""
