"""The exceptions nardtools raises; every one derives from :class:`NardtoolsError`.

Syntax errors (*invalid*), rule violations (*illegal*) and *ambiguous* input are
distinct ``ValueError`` subclasses, as in python-chess, so callers can catch
exactly what they mean to handle.
"""

from __future__ import annotations

import enum
from typing import Any


class Violation(str, enum.Enum):
    """The rule a play breaks; ``str`` is a short stable name, ``describe()`` a sentence."""

    NO_CHECKER = "no-checker"
    BAR_FIRST = "bar-first"
    OPPONENT_POINT = "opponent-point"
    HEAD = "head-rule"
    SIX_BLOCK = "six-block"
    BEAR_OFF_NOT_HOME = "bear-off-not-all-home"
    BEAR_OFF_HIGHER = "bear-off-higher-point"
    NO_SUCH_DIE = "no-such-die"
    DICE_NOT_USED = "dice-not-used-in-full"
    LARGER_DIE = "larger-die"
    HIT_AND_HIDE = "hit-and-hide"
    NO_HIT = "no-hitting"
    INSIDE_HOME = "no-move-inside-home"
    AMBIGUOUS = "ambiguous-play"

    def __str__(self) -> str:
        return self.value

    def describe(self) -> str:
        """One sentence naming the rule."""
        return _VIOLATION_TEXT[self]


_VIOLATION_TEXT = {
    Violation.NO_CHECKER: "there is no checker of the mover on the source point",
    Violation.BAR_FIRST: "checkers on the bar must enter before any other checker moves",
    Violation.OPPONENT_POINT: "a checker may not land on a point held by the opponent",
    Violation.HEAD: "only one checker may leave the head (голова) per turn",
    Violation.SIX_BLOCK: "six consecutive points may not block every opponent checker (запирание)",
    Violation.BEAR_OFF_NOT_HOME: "bearing off starts only when all checkers are home",
    Violation.BEAR_OFF_HIGHER: "a larger die bears off only from the highest occupied point",
    Violation.NO_SUCH_DIE: "the move's distance matches no unused die of the roll",
    Violation.DICE_NOT_USED: "as many dice as possible must be played",
    Violation.LARGER_DIE: "when only one die can be played, the larger must be played if possible",
    Violation.HIT_AND_HIDE: "a checker that hit in its own home may not move on to cover itself (Caucasian rule)",
    Violation.NO_HIT: "no hitting until one of the mover's checkers has reached home",
    Violation.INSIDE_HOME: "checkers may not move inside the home",
    Violation.AMBIGUOUS: "the play text fits two plays that end differently (a combined move that can hit on "
                         "either way): write the point passed or mark the hit",
}


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


class AmbiguousPlayError(IllegalPlayError):
    """Play text that fits two legal plays that end differently: ``13/6``
    with 61 when a checker can be hit on 7 or on 12.  An
    :class:`IllegalPlayError` whose violation is ``ambiguous-play``, so that
    whoever refuses illegal plays refuses it too."""


def play_error(message: str, *, violation: Violation, position: Any = None, roll: Any = None,
               play: Any = None) -> IllegalPlayError:
    """The error for a play the engine refused: :class:`AmbiguousPlayError`
    when the text reads two ways, else :class:`IllegalPlayError`."""
    kind = AmbiguousPlayError if violation is Violation.AMBIGUOUS else IllegalPlayError
    return kind(message, violation=violation, position=position, roll=roll, play=play)


class RulesetError(NardtoolsError, ValueError):
    """An unknown ruleset or option name, or a bad option value."""


class GameStateError(NardtoolsError, ValueError):
    """An action that the game's state or rules do not allow now (e.g. a double
    in the Crawford game, a roll while a double awaits an answer)."""


class ConversionError(NardtoolsError, ValueError):
    """A record that the target format cannot express (dice carried over in
    ``.mat`` or SGF, a play SGF cannot write)."""


class AnalysisError(NardtoolsError, ValueError):
    """An analysis asked of input it does not apply to (race odds with
    contact, a bear-off position that does not fit a database, a match
    equity table that cannot be read, an unknown column...)."""
