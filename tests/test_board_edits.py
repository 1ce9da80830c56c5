"""Board edits in .mat records (FORMATS.md 1.2): Snowie's ``Illegal play (...)``
and XG's ``; Set Pos=``; read, replayed from the recorded board, written back."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from nardtools import Position
from nardtools.notation.ids import Setup, read_snowie, snowie, xg_position
from nardtools.notation.mat import read_mat, write_mat
from nardtools.notation.native import read_native, write_native
from nardtools.notation.record import ActionKind
from nardtools.notation.replay import replay_match

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "gnubg-standard-5-90001.mat"
FORMATS_EXAMPLE = ("25;0;1;0;1;alice;bob;0;15;18;2;-1;0;3;-2;8;0;-1;3;0;0;-1;0;-1;0;0;-1;0;0;0;0;"
                   "-2;-2;-3;-2;0;1;0;4;3;")


def _lines_with(text: str, line_no: int, new: str) -> str:
    lines = text.split("\n")
    lines[line_no - 1] = new
    return "\n".join(lines)


def test_formats_example_reads() -> None:
    setup, names = read_snowie(FORMATS_EXAMPLE)
    p = setup.position
    assert names == ("alice", "bob") and setup.match_length == 25 and setup.score == (15, 18)
    assert setup.cube == 2 and setup.cube_owner == 1 and setup.dice == (4, 3)
    assert sum(p.mover) == 15 and sum(p.opponent) == 15
    assert (p.mover[1], p.mover[3], p.mover[6], p.mover[24]) == (3, 8, 3, 1)
    assert p.opponent[25 - 19] == 2 and p.opponent[25 - 21] == 3  # negative values: the other side
    assert read_snowie(snowie(setup, names))[0] == setup


def test_snowie_illegal_play_replays_from_the_recorded_board() -> None:
    text = FIXTURE.read_text()
    original = replay_match(read_mat(text, "x.mat"))
    game = original.games[0]
    turn = game.turns[5]  # gnubg's 62 in row 3 ... any play in the middle of the game
    a = turn.action
    after = turn.after  # the next side on roll
    cell = f"{a.roll}: Illegal play ({snowie(Setup(after))})"
    line = text.split("\n")[a.line - 1]
    edited = line[:a.col - 1] + cell + (" " * 4 if a.player == 0 else "") + (
        line[a.col - 1 + len(f"{a.roll}: {a.play}"):] if a.player == 0 else "")
    record = read_mat(_lines_with(text, a.line, edited), "x.mat")
    assert not record.errors
    edit = [b for b in record.games[0].actions if b.kind is ActionKind.SET_BOARD]
    assert len(edit) == 1 and edit[0].board == after and edit[0].roll == a.roll
    replayed = replay_match(record)
    assert [p.rule for p in replayed.errors] == []
    warnings = [p for p in replayed.problems if p.rule == "board-edit"]
    assert len(warnings) == 1 and warnings[0].line == a.line
    assert replayed.games[0].game.outcome == game.game.outcome  # the rest of the game replays as before
    # written back as the same cell, and through the native format
    again = read_mat(write_mat(record), "y.mat")
    assert [b.board for b in again.games[0].actions if b.kind is ActionKind.SET_BOARD] == [after]
    native = write_native(record)
    assert native == write_native(read_native(native))
    assert [b.board for b in read_native(native).games[0].actions if b.kind is ActionKind.SET_BOARD] == [after]


def test_xg_set_pos_line() -> None:
    text = FIXTURE.read_text()
    original = replay_match(read_mat(text, "x.mat"))
    game = original.games[0]
    turn = next(t for t in game.turns[8:] if t.action.player == 0)  # the first cell of its line
    position = turn.before  # set the board to what it is anyway: nothing else changes
    lines = text.split("\n")
    lines.insert(turn.action.line - 1, f"; Set Pos={xg_position(Setup(position))}/1")
    record = read_mat("\n".join(lines), "x.mat")
    assert not record.errors
    edits = [b for b in record.games[0].actions if b.kind is ActionKind.SET_BOARD]
    assert len(edits) == 1 and edits[0].board == position and edits[0].player == turn.action.player
    replayed = replay_match(record)
    assert not replayed.errors and replayed.games[0].game.outcome == game.game.outcome
    assert any(p.rule == "board-edit" and p.severity == "warning" for p in replayed.problems)
    written = write_mat(record)
    assert f"; Set Pos={xg_position(Setup(position))}/1" in written
    assert [b.board for b in read_mat(written).games[0].actions if b.kind is ActionKind.SET_BOARD] == [position]


def test_set_pos_to_a_new_position_then_legal_play() -> None:
    # a bear-off set up by XG: X (player 1, bottom, uppercase) two checkers on its 1-point
    bear_off = Position.parse("backgammon O 1:2 / 2:1,1:1")  # b (player 1) to play, a has two left
    xg = xg_position(Setup(bear_off))
    assert xg[1] == "B" and xg[23] == "a" and xg[24] == "a"  # uppercase: player 1 from its own 1-point
    text = (" 1 point match\n\n Game 1\n a : 0                          b : 0\n"
            f"; Set Pos={xg}/1\n"
            "  1)                              21: 1/off 1/off\n"
            "                                  Wins 1 point\n")
    record = read_mat(text, "x.mat")
    assert not record.errors, record.errors
    board = record.games[0].actions[0].board
    assert board == bear_off
    replayed = replay_match(record)
    assert not replayed.errors, replayed.errors
    assert replayed.games[0].game.outcome is not None and replayed.games[0].game.outcome.winner == 1


def test_bad_board_edits_are_reported_at_their_place() -> None:
    text = FIXTURE.read_text()
    lines = text.split("\n")
    lines[7] = "  2) 21: Illegal play (1;2;3)               51: 25/20 24/23"
    record = read_mat("\n".join(lines), "x.mat")
    assert any(e.line == 8 and "Snowie position" in str(e) for e in record.errors)
    native = '[Game "backgammon"]\n\n1. X = "backgammon X 6:16 / 1:15"\n*\n'
    bad = read_native(native, "n.nrd")
    assert bad.errors and bad.errors[0].line == 3
    assert Position.parse("backgammon X 6:15 / 1:15")  # (the text itself is fine with 15)


_MAT_FRAGMENTS = ["  1) ", " 21: ", "Illegal play (", ")", ";", "0", "1", "-2", "15", "alice", "\n", "; Set Pos=",
                  "-", "a", "B", "p", "/1", "/", " 31: 8/5 6/5", " Doubles => 2", " Takes", " Wins 1 point"]
_NATIVE_FRAGMENTS = ["X 21: ", "O 31: ", '= "', '"', "backgammon X 6:15 / 1:15", "long O 24:15 / 24:15",
                     "backgammon O 6:16 / 1:15", "24/18", " ", "\n", "1. ", "{c}", "X wins 1 point", "="]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_MAT_FRAGMENTS), max_size=60))
def test_fuzz_board_edits_in_mat(parts):
    text = " 5 point match\n Game 1\n a : 0                          b : 0\n" + "".join(parts)
    record = read_mat(text)  # syntax problems are collected, not raised
    replay_match(record)
    write_mat(record)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_NATIVE_FRAGMENTS), max_size=40))
def test_fuzz_board_edits_in_native(parts):
    record = read_native('[Game "backgammon"]\n' + "".join(parts))
    replay_match(record)
    write_native(record)


def test_replay_frames_show_board_edits() -> None:
    from nardtools.teaching.replay import game_frames, replay_html

    text = FIXTURE.read_text()
    original = replay_match(read_mat(text, "x.mat"))
    turn = next(t for t in original.games[0].turns[8:] if t.action.player == 0)
    lines = text.split("\n")
    lines.insert(turn.action.line - 1, f"; Set Pos={xg_position(Setup(turn.before))}/1")
    match = replay_match(read_mat("\n".join(lines), "x.mat"))
    frames = game_frames(match.games[0], match.record.names)
    edit = [f for f in frames if f.note is None and "sets the board" in f.lines[0]]
    assert len(edit) == 1 and edit[0].position == turn.before
    assert len(frames) == 1 + len(match.games[0].turns) + 1
    assert frames[0].position.mover == Position.start().mover  # the start, not the edited board
    assert "sets the board" in replay_html(match)
