"""Notation: position identifiers and game-record formats.

Context-free notation lives on the core values (``str(Position)``,
``Play.parse``); this package holds the interchange formats: GNU Backgammon's
Position ID (:mod:`nardtools.notation.gnubg_id`) so far.
"""

from .gnubg_id import position_from_id, position_id

__all__ = ["position_from_id", "position_id"]
