"""The ruleset registry and its documentation."""

from pathlib import Path

import pytest

from nardtools import GameKind, RulesetError, find_ruleset, rulesets
from nardtools.rules import Rules

DOCS = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")


def test_every_ruleset_and_option_is_documented():
    for rs in rulesets():
        assert f"`{rs.name}`" in DOCS, rs.name
    for name in Rules.option_names():
        assert f"`{name}`" in DOCS, name


@pytest.mark.parametrize("name, game", [
    ("long-classic", GameKind.LONG), ("nardionline", GameKind.LONG), ("arena", GameKind.LONG),
    ("luckyea", GameKind.LONG), ("yellowclub", GameKind.LONG), ("play65", GameKind.BACKGAMMON),
    ("play65-long", GameKind.LONG), ("wikipedia", GameKind.LONG),
    ("wikipedia-backgammon", GameKind.BACKGAMMON), ("short-academic", GameKind.BACKGAMMON),
    ("tournament-2015", GameKind.BACKGAMMON), ("quentinc", GameKind.BACKGAMMON),
    ("gammon-site", GameKind.BACKGAMMON),
])
def test_every_row_of_the_rules_table_is_a_ruleset(name, game):
    assert find_ruleset(name).rules.game is game


def test_ruleset_options_follow_rules_md():
    classic = find_ruleset("long-classic").rules
    assert (classic.head, classic.block, classic.scoring) == ("doubles-list", "opponent-in-home", "classic")
    assert find_ruleset("arena").rules.head == "doubles-list"
    assert find_ruleset("luckyea").rules.head == "general"
    assert find_ruleset("yellowclub").rules.block == "ahead"
    assert find_ruleset("short-academic").rules.jacoby
    assert find_ruleset("tournament-2015").rules.condone_illegal
    assert not find_ruleset("quentinc").rules.dead_cube
    assert find_ruleset("play65").rules.beaver and find_ruleset("play65").rules.cube_limit == 64


def test_lookup_is_case_insensitive_and_knows_aliases():
    assert find_ruleset("GNUBG").name == "backgammon"
    assert find_ruleset("long-nardy").name == "long"


def test_unknown_names_and_values_are_errors():
    with pytest.raises(RulesetError, match="unknown ruleset 'chess'"):
        find_ruleset("chess")
    with pytest.raises(RulesetError, match="unknown option 'colour'"):
        find_ruleset("long").rules.with_options({"colour": "red"})
    with pytest.raises(RulesetError, match="is not yes/no"):
        find_ruleset("long").rules.with_options({"beaver": "perhaps"})
    with pytest.raises(RulesetError, match="not a whole number"):
        find_ruleset("long").rules.with_options({"cube-limit": "lots"})


def test_overridden_ruleset_is_marked():
    rs = find_ruleset("long").with_options({"block": "none"})
    assert rs.name == "long+" and rs.rules.block == "none"
    assert find_ruleset("long").rules.block == "ahead"
