"""The grammar of the native record format (docs/format.md), and nothing else.

Every node is a located tuple ``(kind, offset, value...)``; turning nodes into
records is :mod:`nardtools.notation.native`'s job.

>>> [n[0] for n in GAME.parse_string('[Game "long"] 1. X 64: 24/18/14 {ok} !', parse_all=True)]
['tag', 'number', 'roll', 'comment', 'glyph']
"""

from __future__ import annotations

import re

import pyparsing as pp

pp.ParserElement.set_default_whitespace_chars(" \t\r\n")


def _node(kind: str):  # type: ignore[no-untyped-def]
    def action(s: str, loc: int, toks: pp.ParseResults) -> tuple:  # type: ignore[type-arg]
        return (kind, loc, *toks)
    return action


NAME = pp.Regex(r"[A-Za-z0-9_-]+(?: [A-Za-z0-9_-]+)*").set_name("tag name")
STRING = pp.QuotedString('"', esc_char="\\").set_name("quoted value")
TAG = (pp.Suppress("[") + NAME + STRING + pp.Suppress("]")).set_name("tag").add_parse_action(_node("tag"))

SIDE = pp.Regex(r"[XO](?![\w])").set_name("side X or O")
DICE = pp.Regex(r"[1-6][1-6]:|\+[1-6]{1,4}:").set_name("dice such as 64: (or +5: for dice carried over)")
SUBMOVE = pp.Regex(
    r"(?:bar|b|\d{1,2})(?:/(?:off|o|\d{1,2})\*?)+(?:\([1-4]\))?(?![\w/])", re.IGNORECASE
).set_name("move such as 24/18")
PLAY = (pp.Literal("-").set_parse_action(lambda: "") | pp.Regex(r"\?{3,4}").set_parse_action(lambda: "????")
        | pp.Combine(
    pp.OneOrMore(SUBMOVE), join_string=" ", adjacent=False)).set_name("play")
BOARD_TEXT = (pp.Suppress("=") + STRING).set_name('= "position"').set_parse_action(lambda t: ("=", t[0]))
ROLL = (SIDE + DICE - pp.Optional(BOARD_TEXT | PLAY, default="")).set_name("roll").add_parse_action(_node("roll"))
BOARD = BOARD_TEXT.copy().set_name("board edit").add_parse_action(lambda s, loc, t: ("board", loc, t[0][1]))
CUBE_WORD = pp.one_of("double take drop beaver resign", as_keyword=True).set_name("cube word")
#: A count that fits the records' numbers (a longer run of digits is not one).
COUNT = pp.Regex(r"\d{1,9}(?!\d)").set_name("number").set_parse_action(lambda t: int(t[0]))
CUBE = (SIDE + CUBE_WORD + pp.Optional(pp.Suppress("=>") + COUNT, default=0)).set_name(
    "cube action").add_parse_action(_node("cube"))
NUMBER = pp.Regex(r"\d{1,9}\.(?:\.\.)?").set_name("move number").add_parse_action(_node("number"))
COMMENT = pp.QuotedString("{", end_quote_char="}", multiline=True).set_name("comment").add_parse_action(
    _node("comment"))
GLYPH = pp.Regex(r"!!|\?\?|!\?|\?!|!|\?").set_name("glyph").add_parse_action(_node("glyph"))
RESULT = (
    (SIDE + pp.Keyword("wins") + COUNT + pp.one_of("point points", as_keyword=True)
     + pp.Optional(pp.Suppress("(") + pp.Word(pp.alphas + "-") + pp.Suppress(")"), default=""))
    .set_name("result").add_parse_action(lambda s, loc, t: ("result", loc, t[0], t[2], t[4]))
    | pp.Literal("*").add_parse_action(lambda s, loc, t: ("result", loc, "", 0, ""))
)
MOVETEXT = pp.Forward()
VARIATION = (pp.Suppress("(") + pp.Group(MOVETEXT) + pp.Suppress(")")).set_name("variation").add_parse_action(
    lambda s, loc, t: ("variation", loc, list(t[0])))
MOVETEXT <<= pp.ZeroOrMore(NUMBER | RESULT | ROLL | CUBE | BOARD | COMMENT | VARIATION | GLYPH)
GAME = (pp.ZeroOrMore(TAG) + MOVETEXT).set_name("game")
