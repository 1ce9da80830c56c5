"""Converting a replayed record to another format, and saying what it loses.

The native format holds everything a record can say; ``.mat`` has no place
for comments inside the moves, glyphs, variations, analyses or the tags of
single games, and none at all for dice carried over (gul-bara).  SGF holds
comments, glyphs (as marks), analyses and variations (as subtrees), but not
the tags of single games, or carried dice.  :func:`convert`
writes what fits and lists the rest; what cannot be written at all is a
:class:`ConversionError`.

>>> from nardtools.notation.native import read_native
>>> from nardtools.notation.replay import replay_match
>>> text = '[Game "backgammon"]\\n[X "a"]\\n[O "b"]\\n\\n1. X 31: 8/5 6/5 {the best} !\\n*\\n'
>>> out, dropped = convert(replay_match(read_native(text)), "mat")
>>> dropped
['1 comment', '1 glyph']
"""

from __future__ import annotations

from typing import Any

from ..errors import ConversionError
from .record import AUTO_DOUBLES, Action

__all__ = ["ConversionError", "convert", "mat_losses", "sgf_losses"]


def convert(replayed: Any, fmt: str) -> tuple[str, list[str]]:
    """``(text, what was left out)`` for a replayed match written as ``fmt``
    (``mat``, ``sgf`` or ``nrd``)."""
    if fmt == "mat":
        from .mat import export_mat

        return export_mat(replayed), mat_losses(replayed)
    if fmt == "sgf":
        from .sgf_writer import export_sgf

        return export_sgf(replayed), sgf_losses(replayed)
    if fmt == "nrd":
        from .native import export_native

        return export_native(replayed), []
    raise ConversionError(f"unknown record format {fmt!r}: mat, sgf or nrd")


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def mat_losses(replayed: Any) -> list[str]:
    """What a ``.mat`` file of ``replayed`` leaves out, one note per kind."""
    return _losses(replayed, in_movetext=False)


def sgf_losses(replayed: Any) -> list[str]:
    """What an SGF file of ``replayed`` leaves out, one note per kind."""
    return _losses(replayed, in_movetext=True)


def _losses(replayed: Any, in_movetext: bool) -> list[str]:
    """The notes of what a format leaves out; ``in_movetext``: it keeps the
    comments, glyphs, analyses and variations of the moves (SGF does)."""
    comments = glyphs = variations = analyses = 0
    game_tags: set[str] = set()

    def visit(actions: tuple[Action, ...] | list[Action]) -> None:
        nonlocal comments, glyphs, variations, analyses
        for a in actions:
            comments += len(a.before) + len(a.after)
            glyphs += len(a.glyphs)
            variations += len(a.variations)
            analyses += a.review is not None
            for v in a.variations:
                visit(v)

    first_tags = dict(replayed.record.tags)
    for g in replayed.games:
        visit(g.record.actions)
        comments += len(g.record.closing)
        game_tags |= {k for k, v in g.record.tags if first_tags.get(k) != v
                      and k not in ("Score", "GameNumber", "Result", AUTO_DOUBLES)}
    notes = []
    if not in_movetext:
        from .mat import mat_name

        changed = [name for name in replayed.record.players if mat_name(name) != name]
        if changed:
            notes.append("names the format cannot hold as they are: " + ", ".join(map(repr, changed)))
        if comments:
            notes.append(_count(comments, "comment"))
        if glyphs:
            notes.append(_count(glyphs, "glyph"))
        if analyses:
            notes.append(_count(analyses, "analysis") if analyses == 1 else f"{analyses} analyses")
        if variations:
            notes.append(_count(variations, "variation"))
    if game_tags:
        notes.append("tags that differ from game to game: " + ", ".join(sorted(game_tags)))
    return notes
