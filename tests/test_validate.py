"""Validation of records: the corpus is clean; corrupted copies are reported at
the right line and column, and the file's other games are still validated."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from nardtools.cli import app
from nardtools.notation.mat import read_mat, replay_text
from nardtools.notation.replay import replay_match
from nardtools.notation.validate import expand_paths, validate_paths

from .corpus import CORPUS, needs_corpus

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "gnubg-standard-5-90001.mat"  # gnubg 1.07 self-play, 4 games

runner = CliRunner()


def lines() -> list[str]:
    return FIXTURE.read_text().split("\n")


def replay_lines(ls: list[str]):
    return replay_text("\n".join(ls), path="x.mat")


def test_fixture_is_clean():
    r = replay_lines(lines())
    assert r.errors == []
    assert [g.complete for g in r.games] == [True, True, True, True]


def test_wrong_move_is_reported_at_its_play():
    ls = lines()
    assert ls[26] == "  2) 42: 6/4 8/4                 42: 13/11 24/20 "
    ls[26] = "  2) 42: 6/2 8/4                 42: 13/11 24/20 "  # two 4s for a 4-2
    r = replay_lines(ls)
    (err,) = r.errors
    assert (err.line, err.col, err.game, err.turn, err.dice) == (27, 10, 2, 2, "42")
    assert err.rule == "no-such-die" and "illegal play '8/4 6/2' with 42" in err.message
    assert "6/2 6/4" not in err.legal and len(err.legal) > 1
    assert [g.complete for g in r.games] == [True, False, True, True]


def test_wrong_dice_are_reported():
    ls = lines()
    ls[27] = ls[27].replace("32: 24/21 6/4", "31: 24/21 6/4")
    (err,) = replay_lines(ls).errors
    assert (err.line, err.col, err.dice) == (28, 10, "31")
    assert err.rule == "no-such-die"


def test_move_by_the_wrong_side():
    ls = lines()
    ls[28] = "  4)                             51: 6/5 10/5 "  # the left player's 32 is gone
    r = replay_lines(ls)
    (err,) = r.errors
    assert (err.line, err.col, err.rule) == (29, 34, "turn-order")
    assert "root plays, but gnubg is on roll" in err.message
    assert sum(g.complete for g in r.games) == 3


def test_truncated_game_is_reported_and_the_next_games_still_validated():
    ls = lines()
    end = next(i for i, l in enumerate(ls) if l.strip() == "Wins 1 point")
    cut = ls[:end - 3] + ls[end + 1:]  # game 2 loses its last moves and its result
    r = replay_lines(cut)
    (err,) = r.errors
    assert err.rule == "incomplete-game" and err.game == 2 and err.line == end - 3 + 1
    assert [g.complete for g in r.games] == [True, False, True, True]


def test_truncated_last_game_is_a_warning():
    ls = lines()
    r = replay_lines(ls[:-8])
    assert r.errors == []
    (warning,) = [p for p in r.problems if p.rule == "incomplete-game"]
    assert warning.severity == "warning" and "abandoned" in warning.message


def test_garbage_line():
    ls = lines()
    ls.insert(27, "  @@@ this is not a move @@@")
    r = replay_lines(ls)
    (err,) = r.errors
    assert (err.line, err.col, err.rule) == (28, 3, "syntax")
    assert all(g.complete for g in r.games)


def test_wrong_result_is_an_error():
    ls = lines()
    i = next(i for i, l in enumerate(ls) if l.strip() == "Wins 1 point")
    ls[i] = " " * 34 + "Wins 1 point"  # the right player claims game 2
    (err,) = replay_lines(ls).errors
    assert err.rule == "result" and "the game was won by X" in err.message


def test_lenient_replay_goes_on_after_a_condoned_play():
    ls = lines()
    ls[26] = "  2) 42: 6/4                     42: 13/11 24/20 "  # only one die played
    strict = replay_lines(ls)
    assert strict.errors[0].rule == "dice-not-used-in-full" and not strict.games[1].complete
    lenient = replay_text("\n".join(ls), path="x.mat", lenient=True)
    assert [p.rule for p in lenient.errors] == ["dice-not-used-in-full"]
    assert lenient.games[1].turns[-1].play  # the game went on after the condoned play


def test_validate_command_text_and_exit_codes(tmp_path):
    bad = tmp_path / "bad.mat"
    ls = lines()
    ls[27] = ls[27].replace("32: 24/21 6/4", "31: 24/21 6/4")
    bad.write_text("\n".join(ls))
    good = tmp_path / "good.mat"
    good.write_text(FIXTURE.read_text())
    result = runner.invoke(app, ["validate", str(good), str(bad), "-j", "1"])
    assert result.exit_code == 1
    assert result.output.startswith(f"{bad}:28:10: game 2, turn 3 (gnubg, 31): illegal play")
    assert "2 files, 8 games" in result.stderr
    assert runner.invoke(app, ["validate", str(good)]).exit_code == 0
    junk = tmp_path / "junk.mat"
    junk.write_text("hello\n")
    result = runner.invoke(app, ["validate", str(junk)])
    assert result.exit_code == 2 and "unreadable" in result.output


def test_validate_command_json(tmp_path):
    result = runner.invoke(app, ["validate", str(FIXTURE), "--format", "json", "-j", "1"])
    data = json.loads(result.stdout)
    assert data["summary"]["files"] == 1 and data["summary"]["games"] == 4
    assert set(data["summary"]) >= {"files", "games", "turns", "errors", "seconds"}
    (f,) = data["files"]
    assert set(f) >= {"path", "format", "games", "errors"} and f["format"] == "mat"


@needs_corpus
def test_whole_corpus_validates_with_no_errors():
    files = expand_paths([CORPUS])
    assert len(files) >= 100
    reports = list(validate_paths(files, jobs=2))
    assert [str(p) for r in reports for p in r.errors] == []
    assert not any(r.unreadable for r in reports)
    assert sum(r.games for r in reports) > 700


@needs_corpus
def test_corpus_winners_and_points_agree_with_the_records():
    for path in expand_paths([CORPUS / "gnubg-selfplay"]):
        replayed = replay_match(read_mat(Path(path).read_text(), path))
        for g in replayed.games:
            res = g.record.result
            if g.complete and res is not None:
                assert g.game.outcome.winner == res.player, path
