"""Text diagrams: GNU Backgammon's frame exactly (committed goldens made by
gnubg itself, and a live comparison when gnubg is installed), and the Long
Nardy frame checked by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from nardtools import Position
from nardtools.notation.ids import Setup, parse_setup
from nardtools.notation.reading import read_record
from nardtools.notation.replay import replay_match
from nardtools.teaching.diagram import diagram

from .corpus import CORPUS, needs_corpus
from .gnubg_oracle import GNUBG, gnubg_show_board

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "diagrams"


def corpus_setups() -> Iterator[tuple[str, Setup, tuple[str, str]]]:
    """Twenty positions from the corpus by a fixed rule: the standard gnubg
    self-play matches (every other one), then real matches with owned cubes."""
    standard = sorted((CORPUS / "gnubg-selfplay").glob("gnubg-standard-*.mat"))[::2]
    real = sorted((CORPUS / "bglab-llabba").glob("*.txt"))
    picked = 0
    for k, path in enumerate(standard + real):
        replayed = replay_match(read_record(path))
        names = (replayed.record.players[0] or "X", replayed.record.players[1] or "O")
        games = [g for g in replayed.games if len(g.turns) > 8]
        if not games:
            continue
        g = games[k % len(games)]
        if path in real:  # prefer a turn after the cube was taken
            owned = [t for t in g.turns if t.cube_owner is not None]
            if not owned:
                continue
            turn = owned[len(owned) // 2]
        else:
            turn = g.turns[(7 * k + 3) % len(g.turns)]
        setup = replayed.setup_at(g.record.number, turn.action.number, player=turn.action.player)
        yield f"{path.name} game {g.record.number} turn {turn.action.number}", setup, names
        picked += 1
        if picked == 20:
            return


def _goldens() -> list[Path]:
    return sorted(GOLDEN.glob("*.txt"))


def _read_golden(path: Path) -> tuple[str, Setup, tuple[str, str], str]:
    text = path.read_text(encoding="utf-8")
    head, board = text.split("\n\n", 1)
    fields = dict(line.split(": ", 1) for line in head.splitlines())
    a, b = fields["names"].split(" | ")
    return fields["source"], parse_setup(fields["setup"]), (a, b), board


def test_there_are_twenty_goldens() -> None:
    assert len(_goldens()) == 20


@pytest.mark.parametrize("path", _goldens(), ids=lambda p: p.stem)
def test_diagram_equals_gnubg_golden(path: Path) -> None:
    _, setup, names, board = _read_golden(path)
    assert diagram(setup, names) == board


@needs_corpus
def test_goldens_are_the_corpus_positions() -> None:
    """The goldens' setups are what replaying the corpus gives today."""
    expected = [(source, str(setup), names) for source, setup, names in corpus_setups()]
    stored = [(source, str(setup), names) for source, setup, names, _ in map(_read_golden, _goldens())]
    assert stored == expected


@pytest.mark.oracle
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed")
@pytest.mark.parametrize("path", _goldens()[:6], ids=lambda p: p.stem)
def test_diagram_equals_live_gnubg(path: Path) -> None:
    _, setup, names, _ = _read_golden(path)
    assert diagram(setup, names) == gnubg_show_board(setup, names)


@pytest.mark.oracle
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed")
@pytest.mark.parametrize("text", [
    "backgammon O 6:3,5:3,4:3,25:2 / 24:2,13:5,8:3,6:5; cube 4 X; score 2-5/7",  # bar, owned cube
    "backgammon X 0:9,1:6 / 0:14,1:1; dice 21",  # borne off: off columns and counts
    "backgammon X 6:15 / 1:15; score 0-0/5",  # counts above five
    "backgammon O 24:2,13:5,8:3,6:5 / 24:2,13:5,8:3,6:5; cube 2 O; score 0-0/1",  # 1-point match
])
def test_diagram_corner_cases_equal_live_gnubg(text: str) -> None:
    setup = parse_setup(text)
    assert diagram(setup, ("alice", "bob")) == gnubg_show_board(setup, ("alice", "bob"))


def test_double_on_offer() -> None:
    # gnubg will not set a doubled state from a Match ID, so this follows its
    # drawing rule: the offer shows beside the side that must answer.
    lines = diagram(parse_setup("backgammon X 6:15 / 1:15; doubled; score 0-0/5"), ("a", "b")).splitlines()
    assert lines[12].endswith("Cube offered at 2") and lines[8].endswith("     ")  # no cube in the middle
    assert "On roll" not in "".join(lines)


def test_long_nardy_frame_by_hand() -> None:
    # The start, player 1 (O, as the position text writes it) on roll: its head is on its 24
    # (top right), player 0's (X) on O's 12 (bottom left).
    text = diagram(Setup(Position.start("long", player=1), dice=(6, 3)), ("white", "black"))
    lines = text.splitlines()
    assert lines[0] == " Long Nardy      Position ID: long:AACA/z8AAID/Pw"
    assert lines[1].endswith("X: white") and lines[-1].endswith("O: black")
    assert lines[2].startswith(" |                  |   |                O |")
    assert lines[6].startswith(" |                  |   |               15 |")
    assert lines[8].startswith(" |15                |   |                  |")
    assert lines[12].startswith(" | X                |   |") and "rolled 63" in lines[12]
    assert "pips 360" in text and "money game" in text


def test_long_nardy_frame_places_opponent_points() -> None:
    # X (player 0) on roll, drawn X as the position text says: its 18 at the top left's right
    # end; the other side's (O) 23 is the mover's 11, its 7 the mover's 19.
    p = Position.parse("long X 24:12,18:1,10:2 / 24:13,23:1,7:1")
    rows = diagram(p).splitlines()
    top, bottom = rows[2], rows[12]
    assert top[2:20] == "                X " and top[25:28] == " O "  # X on 18, O on X's 19
    assert bottom[2:11] == " O  O  X "  # O on X's 12 (its head) and 11, X on 10


def test_sides_are_labelled_as_the_position_text_names_them() -> None:
    # issue 21: "long X ..." was drawn as "O: player 0"; the unicode legend kept X/O
    text = diagram(Position.parse("long X 24:13,19:2 / 24:14,18:1"))
    lines = text.splitlines()
    assert lines[-1].endswith(" X") and lines[1].endswith(" O")  # the mover X at the bottom, on roll
    assert lines[2][25:28] == " X " and "on roll" in lines[-2]   # X's 19, drawn X
    round_ = diagram(Position.parse("long X 24:13,19:2 / 24:14,18:1"), ("a", "b"), unicode=True).splitlines()
    assert round_[-1].endswith("●: a") and round_[1].endswith("○: b") and round_[2][25:28] == " ● "
    # GNU Backgammon's frame keeps its letters (our X is drawn O) and says whose they are
    bg = diagram(Position.start()).splitlines()
    assert bg[2].endswith("O: player X") and bg[-1].endswith("X: player O")
    assert diagram(Position.start(), ("a", "b"), unicode=True).splitlines()[2].endswith("○: a")


def test_unicode_frame() -> None:
    text = diagram(Position.start(), ("a", "b"), unicode=True)
    assert "●" in text and "○" in text and "┌" in text and "┘" in text and "X " not in text.split("\n")[3]


def test_each_frame_names_its_letters() -> None:
    # Long Nardy's own frame draws the position text's letters; GNU Backgammon's frame its own
    # (the record's first player O), as GNU Backgammon prints it
    long = diagram(Setup(Position.start("long", player=0)), ("first", "second"))
    assert "X: first" in long and "O: second" in long
    bg = diagram(Setup(Position.start("backgammon", player=0)), ("first", "second"))
    assert "O: first" in bg and "X: second" in bg
