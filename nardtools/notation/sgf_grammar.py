"""The grammar of SGF (FF[4]), and nothing else: text to located game
trees (:func:`parse_trees`); :mod:`.sgf` gives them meaning.

>>> [[p.name for p in node] for node in next(parse_trees("(;FF[4]GM[6];W[31fehe]C[the best])")).nodes]
[['FF', 'GM'], ['W', 'C']]
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .record import RecordError

#: The longest property value read, in characters (an analysed move is a few thousand).
MAX_VALUE = 1 << 20


@dataclass
class Prop:
    """One property: its name, its values (unescaped), where it stands."""

    name: str
    values: list[str]
    line: int
    col: int

    @property
    def value(self) -> str:
        return self.values[0] if self.values else ""


@dataclass
class Tree:
    """A game tree: its main sequence of nodes and the trees that follow it
    (the first continues the main line; the others are variations)."""

    nodes: list[list[Prop]]
    children: list[Tree]
    line: int
    col: int


_SPACE = re.compile(r"\s*")
_IDENT = re.compile(r"[A-Za-z]+")
_VALUE_BODY = re.compile(r"(?:[^\\\]]|\\.)*", re.DOTALL)
_ESCAPE = re.compile(r"\\(\n|.)", re.DOTALL)


class _Scanner:
    """The SGF grammar over one text, one game tree at a time (FF[4]:
    ``Collection = GameTree+``, ``GameTree = "(" Sequence GameTree* ")"``,
    ``Sequence = Node+``, ``Node = ";" Property*``, ``Property = Ident Value+``)."""

    def __init__(self, text: str, path: str) -> None:
        self.text, self.path, self.pos = text, path, 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, pos: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def error(self, message: str, pos: int) -> RecordError:
        line, col = self.where(pos)
        text_line = self.text[self.line_starts[line - 1]:].split("\n", 1)[0][:200]
        return RecordError(message, path=self.path, line=line, col=col, source_line=text_line)

    def skip(self) -> None:
        m = _SPACE.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()

    def trees(self) -> Iterator[Tree]:
        """The top-level game trees; raises :class:`RecordError` where the text
        leaves the grammar (a located, fatal error: the rest cannot be framed)."""
        self.skip()
        if self.pos >= len(self.text):
            raise self.error("no game tree: an SGF file starts with '(;'", self.pos)
        while self.pos < len(self.text):
            if self.text[self.pos] != "(":
                raise self.error(f"expected '(' to start a game tree, found {self.text[self.pos]!r}", self.pos)
            yield self.tree(depth=0)
            self.skip()

    def tree(self, depth: int) -> Tree:
        opened = self.pos
        line, col = self.where(opened)
        if depth > 64:
            raise self.error("variations nested more than 64 deep", opened)
        self.pos += 1
        nodes: list[list[Prop]] = []
        children: list[Tree] = []
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.error(f"unbalanced brackets: the game tree opened at line {line}, column {col} is "
                                 "not closed (a truncated file?)", self.pos)
            ch = self.text[self.pos]
            if ch == ";" and not children:
                self.pos += 1
                nodes.append(self.node())
            elif ch == "(":
                if not nodes:
                    raise self.error("a game tree must start with a node ';' before any variation", self.pos)
                children.append(self.tree(depth + 1))
            elif ch == ")":
                if not nodes:
                    raise self.error("an empty game tree '()': expected a node ';'", self.pos)
                self.pos += 1
                return Tree(nodes, children, line, col)
            elif ch == ";":
                raise self.error("a node after the variations of a tree: expected '(' or ')'", self.pos)
            else:
                raise self.error(f"expected a node ';', a variation '(' or ')', found {ch!r}", self.pos)

    def node(self) -> list[Prop]:
        props: list[Prop] = []
        while True:
            self.skip()
            m = _IDENT.match(self.text, self.pos)
            if not m:
                if self.pos < len(self.text) and self.text[self.pos] not in ";()":
                    raise self.error(f"expected a property name (capital letters) or the end of the node, "
                                     f"found {self.text[self.pos]!r}", self.pos)
                return props
            start = self.pos
            name = "".join(c for c in m[0] if c.isupper())  # FF[3] lower-case letters are ignored
            self.pos = m.end()
            values = []
            while True:
                self.skip()
                if self.pos >= len(self.text) or self.text[self.pos] != "[":
                    break
                values.append(self.value())
            if not values:
                raise self.error(f"property {m[0]} has no value: expected '[' after its name", self.pos)
            line, col = self.where(start)
            props.append(Prop(name, values, line, col))

    def value(self) -> str:
        opened = self.pos
        m = _VALUE_BODY.match(self.text, self.pos + 1)
        assert m is not None
        end = m.end()  # at the closing ']', or at a backslash that ends the text
        if end >= len(self.text) or self.text[end] != "]":
            line, col = self.where(opened)
            raise self.error(f"truncated file: the value opened at line {line}, column {col} has no closing "
                             "']'" + (" (a backslash escapes the last character)" if self.text.endswith("\\")
                                      else ""), len(self.text))
        if end - opened > MAX_VALUE:
            raise self.error(f"a property value of {end - opened:,} characters (at most {MAX_VALUE:,})", opened)
        self.pos = end + 1
        return _ESCAPE.sub(lambda e: "" if e[1] == "\n" else e[1], m[0])


def parse_trees(text: str, path: str = "") -> Iterator[Tree]:
    """The game trees of SGF text, one at a time (see :class:`_Scanner`).

    >>> [len(t.nodes) for t in parse_trees("(;GM[6];W[31fehe])(;GM[6])")]
    [2, 1]
    >>> next(parse_trees("(;GM[6];C[open"))
    Traceback (most recent call last):
    ...
    nardtools.notation.record.RecordError: <text>:1:15: truncated file: the value opened at line 1, column 10 has no closing ']'
    """
    return _Scanner(text, path).trees()


def escape(text: str) -> str:
    """A property value as SGF writes it: ``\\`` and ``]`` escaped (what
    :func:`parse_trees` unescapes)."""
    return text.replace("\\", "\\\\").replace("]", "\\]")
