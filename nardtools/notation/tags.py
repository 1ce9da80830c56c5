"""The rules a record's tags select (``Ruleset``, ``Variation``, ``RuleOptions``,
``CubeLimit``, ``Crawford``, ``Game``), kept apart from the replay so that the
compiled check of a file can ask without loading the engine.

>>> tags_ruleset((("Variation", "NackGammon"),)).rules.start
'nackgammon'
>>> tags_ruleset((("Ruleset", "long"), ("RuleOptions", "block=none"))).name
'long+'
"""

from __future__ import annotations

import functools
import re

from ..rules import Ruleset, find_ruleset, game_mismatch

#: A tag in a ``.mat`` comment line, ``; [Name "value"]`` (name, value): what
#: every format's reader and writer of ``.mat`` comments looks for (the
#: compiled core's csrc/mat.c reads the same pattern).
MAT_TAG = re.compile(r'\[\s*([^"\]\s][^"\]]{0,80}?)\s+"([^"]*)"\s*\]')

#: .mat ``Variation`` tags and the rulesets and options they select.
VARIATIONS: dict[str, tuple[str, dict[str, str]]] = {
    "backgammon": ("backgammon", {}),
    "nackgammon": ("backgammon", {"start": "nackgammon"}),
    "hypergammon": ("backgammon", {"start": "hypergammon"}),
    "longnardy": ("long", {}),
}


@functools.lru_cache(maxsize=1024)
def tags_ruleset(tags: tuple[tuple[str, str], ...], rules: str | None = None,
                 options: tuple[tuple[str, str], ...] = ()) -> Ruleset:
    """:func:`~nardtools.notation.replay.record_ruleset` of a record with these
    tags (the compiled check reads a file's tags and asks here)."""

    def tag(key: str) -> str:  # the last tag of that name, as MatchRecord.tag
        return next((v for k, v in reversed(tags) if k.lower() == key.lower()), "")

    extra: dict[str, str] = {}
    own = tag("Ruleset") or {"long": "long", "backgammon": "backgammon"}.get(tag("Game").lower(), "")
    variation = tag("Variation").replace(" ", "").lower()
    for key, (base, opts) in VARIATIONS.items():
        if variation.startswith(key):
            own = own or base
            extra.update(opts)
    if rules and own:
        said, named = find_ruleset(own).rules.game, find_ruleset(rules)
        if named.rules.game is not said:
            raise game_mismatch(named.name, named.rules.game, said, "the record")
    name = rules or own
    limit = tag("CubeLimit").strip()
    if limit == "1":
        extra["cube"] = "no"
    elif limit.isdigit() and len(limit) <= 6 and int(limit) > 1:
        extra["cube-limit"] = str(int(limit))
    if tag("Crawford").strip().lower() == "off":
        extra["crawford"] = "no"
    for item in filter(None, (tag("RuleOptions") or tag("Options")).split(";")):
        key, _, value = item.partition("=")
        extra[key.strip()] = value.strip()
    ruleset = find_ruleset(name or "backgammon")
    if ruleset.rules.is_long:
        extra.pop("start", None)
    return ruleset.with_options({**extra, **dict(options)})
