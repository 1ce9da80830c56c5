"""Steps and plays, and their canonical text.

A :class:`Step` moves one checker by one die (or, as read from a record, by
several dice at once); a :class:`Play` is what a side does with a whole roll.
Points are the mover's own: 25 is the bar, 0 is off.

The canonical text sorts moves by descending source, joins one checker's steps
(``24/18/13``) unless it hit on the way, marks hits with ``*`` and repeats with
``(n)``.  The intermediate point of a checker using both dice of a non-double is
written (it decides legality); in a double it is implied and left out
(``24/16(2)`` for 4-4, ``24/4`` for 5-5) unless the checker hit there, or it
is the point a bear-off starts from (``11/5/off``: the bear-off may have to
wait for other checkers):

>>> str(Play.parse("13/11 24/18"))
'24/18 13/11'
>>> str(Play.parse("24/18 18/13"))
'24/18/13'
>>> str(Play.parse("b/22* 6/o"))
'bar/22* 6/off'
>>> str(Play.parse("24/18 24/18")), str(Play.parse("24/18(2)"))
('24/18(2)', '24/18(2)')
>>> str(Play.parse("24/20 20/16 24/20 20/16"))
'24/16(2)'
>>> str(Play.parse("Cannot Move")), str(Play(()))
('', '')
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from .errors import InvalidPlayError

OFF = 0
BAR = 25


def point_text(point: int) -> str:
    """``bar`` for 25, ``off`` for 0, else the number."""
    return "bar" if point == BAR else "off" if point == OFF else str(point)


@dataclass(frozen=True, slots=True)
class Step:
    """One checker moving from ``source`` to ``target`` (own numbering)."""

    source: int
    target: int
    hit: bool = False

    @property
    def distance(self) -> int:
        """Pips travelled (bear-off counts only to point 0)."""
        return self.source - self.target

    def __str__(self) -> str:
        return f"{point_text(self.source)}/{point_text(self.target)}{'*' if self.hit else ''}"

    def __repr__(self) -> str:
        return f"Step({self.source}, {self.target}{', hit=True' if self.hit else ''})"


@dataclass(frozen=True, slots=True)
class Play:
    """The steps one side makes with one roll, in the order played.

    Equality compares the steps in order; compare the resulting positions to
    ask whether two plays are the same move.
    """

    steps: tuple[Step, ...]

    @classmethod
    def parse(cls, text: str) -> Play:
        """Read a play leniently: ``bar``/``b``/``25``, ``off``/``o``/``0``,
        ``*`` hits, ``a/b/c`` chains, ``(n)`` repeats, commas or spaces.

        >>> Play.parse("24/13").steps
        (Step(24, 13),)
        >>> Play.parse("25/20*/14").steps
        (Step(25, 20, hit=True), Step(20, 14))
        >>> Play.parse("24/30")
        Traceback (most recent call last):
        ...
        nardtools.errors.InvalidPlayError: bad point '30' in play '24/30' (column 4): expected 1-24, bar or off
        """
        return _parse_cached(text)

    def __str__(self) -> str:
        return " ".join(_group(_chains(self.steps), _is_double(self.steps)))

    def __repr__(self) -> str:
        return f"Play.parse({str(self)!r})"

    def __len__(self) -> int:
        return len(self.steps)


@functools.lru_cache(maxsize=65536)
def _parse_cached(text: str) -> Play:
    """Play text to steps (plays are immutable, so parses are shared)."""
    steps: list[Step] = []
    stripped = text.strip()
    if not stripped or _NO_MOVE.fullmatch(stripped):
        return Play(())
    pos = 0
    for m in _TOKEN.finditer(text):
        gap = text[pos:m.start()]
        if gap.strip(" ,\t"):
            raise InvalidPlayError(
                f"unexpected {gap.strip()!r} in play {text!r} (column {pos + 1}): "
                f"expected moves such as 24/18"
            )
        pos = m.end()
        chain = _parse_chain(m.group("chain"), text, m.start())
        repeat = int(m.group("repeat") or 1)
        if repeat < 1 or repeat > 4:
            raise InvalidPlayError(f"bad repeat count in play {text!r}")
        steps.extend(chain * repeat)
    if text[pos:].strip(" ,\t"):
        raise InvalidPlayError(
            f"unexpected {text[pos:].strip()!r} in play {text!r} (column {pos + 1}): "
            f"expected moves such as 24/18"
        )
    return Play(tuple(steps))


_NO_MOVE = re.compile(r"(?i)(cannot\s+move|no\s+move|pass|-)")
# The look-behind keeps a search from restarting inside a run of letters or
# digits (a 10,000-character word would otherwise cost quadratic time).
_TOKEN = re.compile(r"(?<![0-9a-zA-Z*])(?P<chain>[0-9a-zA-Z]+\*?(?:/[0-9a-zA-Z]+\*?)+)(?:\((?P<repeat>\d)\))?")
_POINT_WORDS = {"bar": BAR, "b": BAR, "off": OFF, "o": OFF, **{str(p): p for p in range(26)}}


def _parse_point(word: str, text: str, col: int) -> int:
    point = _POINT_WORDS.get(word)
    if point is not None:
        return point
    w = word.lower()
    if w in _POINT_WORDS:
        return _POINT_WORDS[w]
    if w.isdigit() and len(w) <= 3 and int(w) <= 25:  # leading zeros
        return int(w)
    raise InvalidPlayError(
        f"bad point {word!r} in play {text!r} (column {col + 1}): expected 1-24, bar or off"
    )


def _parse_chain(chain: str, text: str, start: int) -> list[Step]:
    points: list[tuple[int, bool]] = []
    col = start
    for word in chain.split("/"):
        hit = word.endswith("*")
        points.append((_parse_point(word.rstrip("*"), text, col), hit))
        col += len(word) + 1
    steps = []
    for (a, _), (b, hit) in itertools.pairwise(points):
        if b >= a:
            raise InvalidPlayError(
                f"move {point_text(a)}/{point_text(b)} in play {text!r} does not go forward"
            )
        steps.append(Step(a, b, hit))
    return steps


def _chains(steps: tuple[Step, ...]) -> list[list[Step]]:
    """Group steps by checker: taken from the highest source down, a step
    continues a chain that ended on its source (without a hit there).  The
    grouping and the hit marks depend only on the set of steps and of points
    hit, not on the order the steps were played in."""
    chains: list[list[Step]] = []
    hit_points = {s.target for s in steps if s.hit}
    ordered = []
    for step in sorted(steps, key=lambda s: (s.source, s.target), reverse=True):
        hit = step.target in hit_points  # the first step onto a hit point gets the '*'
        hit_points.discard(step.target)
        ordered.append(Step(step.source, step.target, hit))
    for step in ordered:
        for chain in chains:
            last = chain[-1]
            if last.target == step.source and not last.hit and last.target != OFF:
                chain.append(step)
                break
        else:
            chains.append([step])
    return chains


def _chain_text(chain: list[Step], double: bool) -> str:
    parts = [point_text(chain[0].source)]
    for i, s in enumerate(chain):
        last = i == len(chain) - 1
        before_off = i == len(chain) - 2 and chain[-1].target == OFF
        if s.hit or last or before_off or not double:
            parts.append(point_text(s.target) + ("*" if s.hit else ""))
    return "/".join(parts)


def _is_double(steps: tuple[Step, ...]) -> bool:
    """Whether the steps come from a double: more than two steps, or two of equal
    length.  Intermediate points of a double are implied, so they are not written."""
    return len(steps) > 2 or (len(steps) == 2 and steps[0].distance == steps[1].distance)


def _group(chains: list[list[Step]], double: bool) -> list[str]:
    chains.sort(key=lambda c: (c[0].source, c[-1].target), reverse=True)
    out: list[str] = []
    counts: list[int] = []
    for chain in chains:
        text = _chain_text(chain, double)
        if out and out[-1] == text:
            counts[-1] += 1
        else:
            out.append(text)
            counts.append(1)
    return [t if n == 1 else f"{t}({n})" for t, n in zip(out, counts)]
