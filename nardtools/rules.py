"""Rule options, rule violations and named rulesets.

Every point where the source texts disagree (see ``docs/rules.md``) is an
*option*; a *ruleset* fixes all options at once and is found by name or alias.
Any option can then be overridden by name, as ``--set OPTION=VALUE`` does:

>>> rs = find_ruleset("luckyea")
>>> rs.rules.head, rs.rules.block
('general', 'ahead')
>>> r = rs.rules.with_options({"head": "doubles-list", "block": "opponent-in-home"})
>>> r.head, r.block
('doubles-list', 'opponent-in-home')
>>> find_ruleset("gnubg").name
'backgammon'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Union, get_args

from .errors import RulesetError
from .errors import Violation as Violation  # its home was here; errors.py holds it now (no import cycle)
from .position import LAYOUTS, GameKind

# ---------------------------------------------------------------------------
# Options

#: Points per outcome kind for each scoring table (the kinds are those of
#: :class:`nardtools.outcome.OutcomeKind`).  A kind a table omits scores as the
#: next lower kind that it has (koks -> mars, home mars -> mars).
SCORING_TABLES: dict[str, dict[str, int]] = {
    "backgammon": {"single": 1, "gammon": 2, "backgammon": 3},
    "classic": {"oin": 1, "mars": 2},
    "nardionline": {"oin": 1, "mars": 2, "home-mars": 3, "koks": 4},
    "luckyea": {"oin": 1, "mars": 2, "home-mars": 3},
    "yellowclub": {"oin": 1, "mars": 2, "home-mars": 2, "koks": 3},
    "wikipedia": {"oin": 1, "mars": 2, "home-mars": 3},
    "wikipedia-old": {"oin": 1, "mars": 2, "koks": 3, "home-mars": 4},
    "tricktrack": {"single": 1, "gammon": 2, "backgammon": 2},
}

#: The values of the options that name a reading (mypy checks every comparison with them).
Head = Literal["general", "doubles-list", "none"]
Block = Literal["ahead", "opponent-in-home", "none"]
BlockCheck = Literal["end-of-turn", "every-step"]
BlockPath = Literal["opponent", "mover"]
BearOff = Literal["overshoot", "exact"]
Opening = Literal["play-opening-dice", "reroll"]
Koks = Literal["start-quarter", "head", "none"]
Remainder = Literal["lost", "opponent"]
CrazyDoubles = Literal["none", "twice", "four-times"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "head": get_args(Head), "block": get_args(Block), "block-check": get_args(BlockCheck),
    "block-path": get_args(BlockPath), "bear-off": get_args(BearOff), "opening": get_args(Opening),
    "koks": get_args(Koks), "remainder": get_args(Remainder), "crazy-doubles": get_args(CrazyDoubles),
    "scoring": tuple(SCORING_TABLES), "start": tuple(LAYOUTS),
}


def _opt(default: Any, doc: str, seed: str) -> Any:
    return field(default=default, metadata={"doc": doc, "seed": seed})


@dataclass(frozen=True)
class Rules:
    """Every rule option, by value.  Option names on the command line use
    hyphens (``block-check``); the attributes use underscores.
    """

    game: GameKind = _opt(GameKind.BACKGAMMON, "board geometry: backgammon or long", "RULES.md")
    start: str = _opt("backgammon", "starting layout", "000 glossary, 001 list")
    hitting: bool = _opt(True, "a blot can be hit and sent to the bar", "004")
    hit_after_home: bool = _opt(
        False, "no hitting until one of the mover's checkers has reached its home", "002")
    bar_first: bool = _opt(
        True, "checkers off the board (on the bar) enter before any other checker moves; "
        "no = entered checkers may move first (seed 002 says both)", "002, 004")
    move_inside_home: bool = _opt(
        True, "checkers may move from one home point to another (no = gul-bara)", "001 гюльбар")
    remainder: Remainder = _opt(
        "lost", "dice that cannot be played are lost, or played by the opponent (gul-bara)", "001 гюльбар")
    double_reroll: bool = _opt(False, "a double played in full earns another roll (gul-bara)", "001 гюльбар")
    crazy_doubles: CrazyDoubles = _opt(
        "none", "after a double every higher double up to 6-6 is played too: each number twice "
        "(the seed's text), four times (the common form), or none", "001 бешеный гюльбар")
    head_limit: int = _opt(0, "checkers that may leave the head (24) per turn; 0 = no limit", "000, 001, 003")
    head: Head = _opt(
        "general", "first-turn head exception: general (whenever one head checker cannot "
        "play the roll in full), doubles-list (3-3, 4-4, 6-6 only) or none", "003; 000 Арена")
    block: Block = _opt(
        "none", "six-block rule: ahead (legal only with an opponent checker past it), "
        "opponent-in-home (legal once an opponent checker is home) or none", "001 yellowclub, 003; 000")
    block_check: BlockCheck = _opt(
        "end-of-turn", "judge the six-block on the end-of-turn position, or after every step",
        "000 'Промежуточное запирание'")
    block_path: BlockPath = _opt(
        "opponent", "count six-blocks along the opponent's path (default) or the mover's "
        "(MetinGames/Long-Narde reading)", "RULES.md")
    caucasian: bool = _opt(
        False, "a checker that hit in its own home may not move on to cover itself", "001 Короткие нарды")
    bear_off: BearOff = _opt(
        "overshoot", "a larger die bears off from the highest point (overshoot) or only "
        "exact dice bear off (gul-bara)", "000, 001")
    opening: Opening = _opt(
        "play-opening-dice", "after the opening roll the starter plays those dice, "
        "or rolls again (reroll)", "000, 003")
    scoring: str = _opt("backgammon", "points per outcome: " + "; ".join(
        f"{name} " + ", ".join(f"{kind} {points}" for kind, points in table.items())
        for name, table in SCORING_TABLES.items()), "000, 001, 003")
    koks: Koks = _opt(
        "start-quarter", "Long Nardy koks: a loser's checker still in the starting quarter "
        "(start-quarter), still on the head (head), or no koks (none)", "000 NardiOnline; 001")
    cube: bool = _opt(True, "the doubling cube is in use", "001 Play65, 004")
    cube_limit: int = _opt(64, "highest cube value", "001 Play65, 004")
    beaver: bool = _opt(False, "the taker may redouble at once and keep the cube", "001")
    jacoby: bool = _opt(False, "in money play gammons count single unless the cube was turned", "001")
    crawford: bool = _opt(True, "no doubling in the game after a side first reaches match point", "000, 004")
    auto_doubles: int = _opt(0, "automatic doubles on tied opening throws (0 = none; N = at most N)", "000 glossary")
    dead_cube: bool = _opt(
        True, "a double is allowed when either side already wins the match with the "
        "current cube (false = QuentinC's prohibition)", "000 QuentinC")
    condone_illegal: bool = _opt(
        False, "an illegal play stands when the opponent condones it by rolling", "000 tournament 2015")

    # ------------------------------------------------------------------ access
    @classmethod
    def option_names(cls) -> list[str]:
        """Option names as written on the command line."""
        return [f.name.replace("_", "-") for f in dataclasses.fields(cls)]

    @classmethod
    def option_doc(cls, name: str) -> tuple[str, str, tuple[str, ...] | None]:
        """``(description, seed, choices)`` of one option."""
        f = _field(name)
        return f.metadata["doc"], f.metadata["seed"], _CHOICES.get(name.replace("_", "-"))

    def get(self, name: str) -> Any:
        """The value of an option by its hyphenated name."""
        return getattr(self, _field(name).name)

    def with_options(self, options: Mapping[str, Any]) -> Rules:
        """A copy with options replaced; string values are parsed and checked.

        >>> Rules().with_options({"cube-limit": "16", "beaver": "yes"}).cube_limit
        16
        >>> Rules().with_options({"head": "sometimes"})
        Traceback (most recent call last):
        ...
        nardtools.errors.RulesetError: option head: 'sometimes' is not one of general, doubles-list, none
        """
        changes = {}
        for name, value in options.items():
            f = _field(name)
            changes[f.name] = _convert(name, f, value)
        return dataclasses.replace(self, **changes)

    def items(self) -> list[tuple[str, Any]]:
        """``(hyphenated name, value)`` for every option."""
        return [(f.name.replace("_", "-"), getattr(self, f.name)) for f in dataclasses.fields(self)]

    @property
    def is_long(self) -> bool:
        """True for Long Nardy geometry."""
        return self.game is GameKind.LONG

    @property
    def has_crawford_game(self) -> bool:
        """A match has a Crawford game: the rule is on and there is a cube to
        forbid (without one no game is the Crawford game).

        >>> Rules().has_crawford_game, Rules(cube=False).has_crawford_game
        (True, False)
        """
        return self.cube and self.crawford


def _field(name: str) -> dataclasses.Field[Any]:
    key = name.replace("-", "_")
    for f in dataclasses.fields(Rules):
        if f.name == key:
            return f
    raise RulesetError(
        f"unknown option {name!r}; known options: {', '.join(Rules.option_names())}"
    )


_TRUE = {"true", "yes", "on", "1"}
_MAX_OPTION = 2**15  # the largest number an option may be (a cube of 32768)
_FALSE = {"false", "no", "off", "0"}


def _convert(name: str, f: dataclasses.Field[Any], value: Any) -> Any:
    kind: Any = type(f.default)
    if not isinstance(value, str):
        converted = value
    elif kind is bool:
        low = value.lower()
        if low not in _TRUE | _FALSE:
            raise RulesetError(f"option {name}: {value!r} is not yes/no")
        converted = low in _TRUE
    elif kind is int:
        try:
            converted = int(value) if len(value) <= 6 else -1
        except ValueError:
            raise RulesetError(f"option {name}: {value!r} is not a whole number") from None
        if not 0 <= converted <= _MAX_OPTION:
            raise RulesetError(f"option {name}: {value[:20]!r} is not a whole number from 0 to {_MAX_OPTION}")
    elif kind is GameKind:
        try:
            converted = GameKind(value)
        except ValueError:
            raise RulesetError(f"option {name}: {value!r} is not backgammon or long") from None
    else:
        converted = value
    choices = _CHOICES.get(name.replace("_", "-"))
    if choices and converted not in choices:
        raise RulesetError(f"option {name}: {value!r} is not one of {', '.join(choices)}")
    return converted


# ---------------------------------------------------------------------------
# Named rulesets

@dataclass(frozen=True)
class Ruleset:
    """A named rule system: a full set of options, where it comes from, aliases."""

    name: str
    rules: Rules
    seed: str
    summary: str
    aliases: tuple[str, ...] = ()

    def with_options(self, options: Mapping[str, Any]) -> Ruleset:
        """The same ruleset with some options overridden (name keeps a ``+`` mark)."""
        if not options:
            return self
        return dataclasses.replace(self, name=self.name + "+", rules=self.rules.with_options(options))

    def as_dict(self, *, options: bool = False) -> dict[str, Any]:
        """The JSON form of ``nardtools rules``: name, aliases, game, seed and
        summary, and with ``options`` every option's value, description and seed."""
        out: dict[str, Any] = {"name": self.name, "aliases": list(self.aliases), "game": str(self.rules.game),
                               "seed": self.seed, "summary": self.summary}
        if options:
            out["options"] = [{"option": k, "value": str(v).lower() if isinstance(v, bool) else str(v),
                               "doc": Rules.option_doc(k)[0], "seed": Rules.option_doc(k)[1]}
                              for k, v in self.rules.items()]
        return out

    @property
    def base_name(self) -> str:
        """The registered name, without the ``+`` of overridden options."""
        return self.name.rstrip("+")

    @property
    def label(self) -> str:
        """The registered name and any options changed, as a reader wants it.

        >>> find_ruleset("long").with_options({"block": "none"}).label
        'long with block=none'
        """
        changed = self.overrides() if self.name.endswith("+") else {}
        return self.base_name + (" with " + ", ".join(f"{k}={v}" for k, v in changed.items()) if changed else "")

    def overrides(self) -> dict[str, str]:
        """Options whose values differ from the registered ruleset's, as text
        (what a record must write to be replayed under the same rules).

        >>> find_ruleset("long").with_options({"block": "none"}).overrides()
        {'block': 'none'}
        """
        base = find_ruleset(self.base_name).rules
        return {k: str(v).lower() if isinstance(v, bool) else str(v)
                for (k, v), (_, b) in zip(self.rules.items(), base.items()) if v != b}


_BG = Rules()
_LONG = Rules(
    game=GameKind.LONG, start="long", hitting=False, head_limit=1, head="general",
    block="ahead", opening="reroll", scoring="classic", cube=False,
)

RULESETS: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    """Add a ruleset to the registry (names and aliases must be new)."""
    for key in (ruleset.name, *ruleset.aliases):
        if key in RULESETS:
            raise RulesetError(f"ruleset name {key!r} is taken")
        RULESETS[key] = ruleset
    return ruleset


def find_ruleset(name: str) -> Ruleset:
    """A ruleset by name or alias (case-insensitive)."""
    try:
        return RULESETS[name.lower()]
    except KeyError:
        raise RulesetError(
            f"unknown ruleset {name!r}; known: {', '.join(sorted(r.name for r in rulesets()))}"
        ) from None


def rulesets() -> list[Ruleset]:
    """Every registered ruleset once, in registration order."""
    seen: dict[str, Ruleset] = {}
    for rs in RULESETS.values():
        seen.setdefault(rs.name, rs)
    return list(seen.values())


def _r(base: Rules, **changes: Any) -> Rules:
    return dataclasses.replace(base, **changes)


for _rs in [
    Ruleset("backgammon", _BG, "004, 001", "Standard backgammon as GNU Backgammon plays it: "
            "cube to 64, Crawford in matches, single/gammon/backgammon 1/2/3.",
            ("bg", "gnubg", "short", "short-nardy")),
    Ruleset("long", _LONG, "000, 001, 003", "Long Nardy with the seed texts' most common "
            "readings: general head exception, block legal with an opponent checker "
            "ahead, oin 1 / mars 2.", ("long-nardy", "nardy")),
    Ruleset("long-classic", _r(_LONG, head="doubles-list", block="opponent-in-home"),
            "000 first section", "Head exception on 6-6/4-4/3-3; a six-block is allowed once "
            "an opponent checker is home; oin 1 / mars 2."),
    Ruleset("nardionline", _r(_LONG, scoring="nardionline", koks="start-quarter"), "000 NardiOnline",
            "oin 1, mars 2, home mars 3, koks 4 (a checker left in the starting quarter)."),
    Ruleset("arena", _r(_LONG, head="doubles-list"), "000 'Нарды Длинные: Арена'",
            "doubles-list head exception (3-3, 4-4, 6-6) on each side's first turn."),
    Ruleset("luckyea", _r(_LONG, head="general", block="ahead", scoring="luckyea"), "003",
            "General head exception (second side too), no full lock, oin/mars/home mars 1/2/3."),
    Ruleset("yellowclub", _r(_LONG, block="ahead", scoring="yellowclub", koks="head"), "001 yellowclub FAQ",
            "Block forbidden with no opponent checker ahead; oin 1, mars and home mars 2, koks 3."),
    Ruleset("play65-long", _r(_LONG, cube=True, beaver=True, crawford=True, scoring="classic"),
            "001 Play65", "Long Nardy on Play65: cube to 64 with beaver, mars x2."),
    Ruleset("wikipedia-long", _r(_LONG, scoring="wikipedia", koks="head"), "001 Wikipedia",
            "Wikipedia's Long Nardy: mars 2, home mars 3, koks only by agreement.",
            ("wikipedia",)),
    Ruleset("wikipedia-long-old", _r(_LONG, scoring="wikipedia-old", koks="head"), "001 Wikipedia (older copy)",
            "The older Wikipedia copy: mars 2, koks 3, home mars 4."),
    Ruleset("gulbara", _r(_LONG, move_inside_home=False, bear_off="exact", remainder="opponent",
                          double_reroll=True), "001 гюльбар",
            "Gul-bara on the Long Nardy board: unplayable dice go to the opponent, a double "
            "played in full earns another roll, no moves inside the home, exact bear-off.",
            ("gul-bara",)),
    Ruleset("crazy-gulbara", _r(_LONG, move_inside_home=False, bear_off="exact", remainder="opponent",
                                double_reroll=True, crazy_doubles="twice"), "001 бешеный гюльбар",
            "Crazy gul-bara: after a double every higher double up to 6-6 is played, each number "
            "twice as the seed says (--set crazy-doubles=four-times for the common form).",
            ("crazy-gul-bara",)),
    Ruleset("play65", _r(_BG, beaver=True), "001 Play65",
            "Backgammon on Play65: cube to 64, beaver, mars x2, koks x3."),
    Ruleset("wikipedia-backgammon", _BG, "001 Wikipedia", "Backgammon per Wikipedia: 1/2/3."),
    Ruleset("short-academic", _r(_BG, jacoby=True, beaver=True, auto_doubles=1), "001 Короткие нарды",
            "Jacoby rule, beaver and one automatic double; add --set caucasian=yes for the "
            "Caucasian reading."),
    Ruleset("caucasian", _r(_BG, caucasian=True), "001 Короткие нарды",
            "Short nardy with the Caucasian rule: no hit-and-hide in one's own home."),
    Ruleset("tournament-2015", _r(_BG, crawford=True, condone_illegal=True), "000 турнир 2015",
            "Crawford, cube centred at 1, gammons always count, an illegal play stands if "
            "condoned."),
    Ruleset("quentinc", _r(_BG, dead_cube=False), "000 QuentinC",
            "Doubling forbidden when either side already wins the match with the current cube."),
    Ruleset("gammon-site", _r(_BG, crawford=True), "004",
            "Cube to 64, Crawford, resignation at single/gammon/backgammon, koks x3."),
    Ruleset("nackgammon", _r(_BG, start="nackgammon"), "000 glossary, 001",
            "Backgammon from the nackgammon start: 2 on 24, 2 on 23, 4 on 13, 3 on 8, 4 on 6."),
    Ruleset("hypergammon", _r(_BG, start="hypergammon"), "000 glossary, 001",
            "Backgammon with three checkers each, on 24, 23 and 22."),
    Ruleset("dutch", _r(_BG, start="tricktrack", hit_after_home=True, scoring="tricktrack"), "002",
            "Dutch tricktrack: all checkers enter from off the board; no hitting before a "
            "checker of one's own is home; 2 points if the loser has not started bearing "
            "off, else 1.  --set bar-first=no for the reading that lets entered checkers move "
            "before all have entered.", ("tricktrack", "dutch-tricktrack")),
]:
    register(_rs)


#: What the functions that judge plays accept as rules: the options, a
#: ruleset, its name, or ``None`` for the usual ruleset of the position's game.
RulesLike = Union[Rules, Ruleset, str, None]  # noqa: UP007 - a runtime alias, read by Python 3.10 too

#: The ruleset a position is judged by when none is named.
DEFAULT_RULESET = {GameKind.BACKGAMMON: "backgammon", GameKind.LONG: "long"}


def rules_for(kind: GameKind, rules: RulesLike = None) -> Rules:
    """The options to judge a position of game ``kind`` by: ``rules`` as given
    (options, a ruleset or its name), or the game's usual ruleset.  Rules of
    another game are refused.

    >>> rules_for(GameKind.LONG).head_limit
    1
    >>> rules_for(GameKind.LONG, "backgammon")
    Traceback (most recent call last):
    ...
    nardtools.errors.RulesetError: ruleset 'backgammon' is for backgammon, but the position is Long Nardy (use a Long Nardy ruleset such as 'long', or leave the rules out)
    """
    if type(rules) is Rules:  # the hot path: options already resolved
        options = rules
        name = ""
    elif rules is None:
        return find_ruleset(DEFAULT_RULESET[kind]).rules
    elif isinstance(rules, str):
        found = find_ruleset(rules)
        options, name = found.rules, found.name
    elif isinstance(rules, Ruleset):
        options, name = rules.rules, rules.name
    elif isinstance(rules, Rules):
        options, name = rules, ""
    else:
        raise RulesetError(f"rules are a Rules, a Ruleset or a ruleset's name, not {rules!r}")
    if options.game is not kind:
        raise game_mismatch(name or "these rules", options.game, kind)
    return options


#: Each game's name in prose.
GAME_NAMES = {GameKind.BACKGAMMON: "backgammon", GameKind.LONG: "Long Nardy"}


def game_mismatch(name: str, rules_game: GameKind, position_game: GameKind, what: str = "the position") -> RulesetError:
    """The error for rules of one game applied to a position (or ``what``) of another."""
    quoted = f"ruleset {name!r}" if name != "these rules" else name
    return RulesetError(
        f"{quoted} is for {GAME_NAMES[rules_game]}, but {what} is {GAME_NAMES[position_game]} "
        f"(use a {GAME_NAMES[position_game]} ruleset such as {DEFAULT_RULESET[position_game]!r}, "
        f"or leave the rules out)")
