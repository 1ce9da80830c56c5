"""Pip counts and race detection, derived by hand."""

from nardtools import Position
from nardtools.analysis import count, is_race


def test_pip_counts():
    mover, opponent = count(Position.parse("backgammon X bar:1,6:14 / 1:15"))
    assert (mover.pips, mover.bar, mover.home, mover.on_board) == (25 + 84, 1, 14, 15)
    assert opponent.pips == 15
    assert count(Position.start("long"))[0].pips == 360


def test_backgammon_race():
    assert is_race(Position.parse("backgammon X 12:15 / 12:15"))      # my 12 vs its 12 = my 13: passed
    assert not is_race(Position.parse("backgammon X 14:15 / 12:15"))   # its 12 is my 13: contact
    assert not is_race(Position.parse("backgammon X bar:1,1:14 / 1:15"))


def test_long_nardy_race_needs_both_sides_on_their_first_twelve():
    assert is_race(Position.parse("long X 12:15 / 12:15"))
    assert not is_race(Position.parse("long X 12:15 / 13:15"))  # its 13 is my 1: it still passes my 12..1
    assert not is_race(Position.parse("long X 13:1,1:14 / 2:15"))  # my 13 is its 1: it may need to land there
