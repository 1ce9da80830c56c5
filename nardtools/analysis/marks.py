"""The marks of a decision by the equity it lost (doubtful, error, blunder)
and their glyphs in an annotated record: one scale for plays, cube actions
and resignations."""

from __future__ import annotations

#: (threshold, mark), the largest first: GNU Backgammon 1.07's defaults, as its
#: ``show analysis`` prints them (doubtful 0.030, bad 0.060, very bad 0.120).
MARKS = ((0.12, "blunder"), (0.06, "error"), (0.03, "doubtful"))
#: The glyph written into an annotated record for each mark.
GLYPHS = {"blunder": "??", "error": "?", "doubtful": "?!"}


def mark_of(error: float | None) -> str | None:
    """``doubtful``, ``error``, ``blunder`` or None for an error of that size.

    >>> mark_of(0.0), mark_of(0.05), mark_of(0.1), mark_of(0.5)
    (None, 'doubtful', 'error', 'blunder')
    """
    if error is None:
        return None
    return next((mark for threshold, mark in MARKS if error >= threshold - 1e-12), None)
