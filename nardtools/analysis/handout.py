"""The annotated record a teacher hands out (:func:`handout`): a record
with an analysis written into it, in the native format, that can be
analysed again without carrying two analyses."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from ..notation.record import Action, ActionKind
from .marks import GLYPHS, mark_of

if TYPE_CHECKING:
    from ..notation.replay import ReplayedMatch
    from .analyse import MatchAnalysis


def handout(replayed: ReplayedMatch, analysis: MatchAnalysis) -> str:
    """The annotated record a teacher hands out, in the native format: the
    analysed games of ``replayed`` with the record's header (game, ruleset,
    players, match length, scores and results), each analysed play's mark as
    a glyph and, where it was not the best, a comment naming the best play and
    the equity lost; an ``Annotator`` tag says by what."""
    from collections import Counter

    from .. import __version__
    from ..notation.native import export_native

    by_cell = {t.where: t for turns in analysis.games.values() for t in turns}
    cubes = {c.where: c for entries in analysis.cubes.values() for c in entries if c.alert or c.mark}
    resigns = {r.where: r for r in analysis.resignations.values()}
    used = Counter(t.evaluator for t in by_cell.values()).most_common(1)
    main = used[0][0] if used else f"{analysis.ply}-ply"

    def annotate(action: Action) -> Action:
        action = _without_analysis(action)
        glyphs, note = action.glyphs, action.after
        c = cubes.get((action.line, action.col))
        if c is not None:
            # a cube action's own mark; a missed double's comment goes on the roll it preceded
            if c.mark and action.kind is not ActionKind.ROLL:
                glyphs = (*glyphs, GLYPHS[c.mark])
            note = (*note, f"cube: {c.text}")
        r = resigns.get((action.line, action.col))
        if r is not None:
            glyphs, note = (*glyphs, GLYPHS[r.mark]) if r.mark else glyphs, (*note, r.text)
        t = by_cell.get((action.line, action.col)) if action.kind is ActionKind.ROLL else None
        if t is not None and t.error is not None:
            glyphs = glyphs + ((GLYPHS[t.mark],) if t.mark else ())
            by = "" if t.evaluator == main else f"{t.evaluator}: "
            if t.error >= 1e-9:
                note = (*note, f"{by}best {t.best} {t.best_equity:+.3f}; played {t.equity:+.3f}, lost {t.error:.3f}")
        if glyphs == action.glyphs and note == action.after:
            return action
        return dataclasses.replace(action, glyphs=glyphs, after=note)

    tags = [("Annotator", f"nardtools {__version__}: {main}; {analysis.units}")]
    return export_native(replayed, games=set(analysis.games), annotate=annotate, tags=tags)


#: The comments :func:`handout` writes on a play (after the evaluator's name
#: when it is not the main one) and on a cube action; the group is the equity
#: lost.
_PLAY_NOTE = re.compile(r"^(?:[^:{}]+: )?best .+ [+-]\d+\.\d{3}; played [+-]\d+\.\d{3}, lost (\d+\.\d{3})$")
_CUBE_NOTE = re.compile(r"^cube: .+ proper \(no double [+-]\d+\.\d{3}, double/take [+-]\d+\.\d{3}, "
                        r"double/pass [+-]\d+\.\d{3}\)(?:; lost (\d+\.\d{3}))?$")
_RESIGN_NOTE = re.compile(r"^resigns .+ \(\d+ points?\): .+, play on [+-]\d+\.\d{3}, resign [+-]\d+\.\d{3}"
                          r"(?:; lost (\d+\.\d{3}))?$")


def _without_analysis(action: Action) -> Action:
    """``action`` without what an earlier :func:`handout` put on it (its
    comments, and the mark glyphs that went with them), so that a handout
    analysed again carries one analysis, the new one, not both."""
    found = [(c, _PLAY_NOTE.match(c) or _CUBE_NOTE.match(c) or _RESIGN_NOTE.match(c)) for c in action.after]
    ours = [(c, m) for c, m in found if m is not None]
    if not ours:
        return action
    # a play's mark is its glyph; a cube action's too, but for a missed double's, noted on the roll that followed
    marked = sum(1 for c, m in ours if m[1] is not None and mark_of(float(m[1])) is not None
                 and (not c.startswith("cube: ") or action.kind is not ActionKind.ROLL))
    glyphs = list(action.glyphs)
    for _ in range(marked):
        if glyphs and glyphs[-1] in GLYPHS.values():
            glyphs.pop()
    dropped = {c for c, _ in ours}
    return dataclasses.replace(action, glyphs=tuple(glyphs), after=tuple(c for c in action.after if c not in dropped))
