"""Notation: position identifiers and game-record formats.

Context-free notation lives on the core values (``str(Position)``,
``Play.parse``); this package holds the interchange formats: the native record
format (:mod:`.native`), ``.mat`` in its dialects (:mod:`.mat`), position
strings and IDs (:mod:`.ids`; the Position ID codec is the core's :mod:`nardtools.gnubg_id`), and validation
(:mod:`.validate`).  Its modules are imported when first used.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = ["position_from_id", "position_id"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(import_module("nardtools.gnubg_id"), name)
    raise AttributeError(f"module 'nardtools.notation' has no attribute {name!r}")


if TYPE_CHECKING:
    from ..gnubg_id import position_from_id, position_id
