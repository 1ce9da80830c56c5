"""Never a wrong answer, never a traceback (issue 13): every item has a test
that failed before the change, and a matrix of bad inputs runs every command."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nardtools import IllegalPlayError, InvalidPositionError, Position, Roll, check_play, legal_plays
from nardtools.cli import app
from nardtools.errors import NardtoolsError, RulesetError

from .corpus import CORPUS

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "gnubg-standard-5-90001.mat"
LONG_MAT = ROOT / "examples" / "long-nardy" / "long-5pt-seed1.mat"
GULBARA = ROOT / "examples" / "variants" / "gulbara-3pt-seed10.nrd"
TEACHING = ROOT / "examples" / "teaching" / "long-annotated.nrd"


def run(*args: str, input: str | bytes | None = None):
    result = runner.invoke(app, list(args), input=input)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


# ---------------------------------------------------------------------------
# Wrong answers

def test_a_long_nardy_position_is_judged_by_long_nardy_rules():
    result = run("check", "long X 24:15 / 24:15", "31", "24/23 24/21")
    assert result.exit_code == 1 and "[head-rule]" in result.stdout
    moves = run("moves", "long X 24:15 / 24:15", "31", "-f", "json")
    assert json.loads(moves.stdout)["ruleset"] == "long"
    assert [p["play"] for p in json.loads(moves.stdout)["plays"]] == ["24/21/20"]
    with pytest.raises(IllegalPlayError):  # the library too: the position's own game by default
        from nardtools import apply_play

        apply_play(Position.start("long"), Roll(3, 1), "24/23 24/21")
    assert [str(p.play) for p in legal_plays(Position.start("long"), Roll(3, 1))] == ["24/21/20"]


def test_a_ruleset_of_another_game_is_an_error():
    result = run("moves", "long X 24:15 / 24:15", "31", "--rules", "backgammon")
    assert result.exit_code == 2
    assert "ruleset 'backgammon' is for backgammon, but the position is Long Nardy" in result.stderr
    with pytest.raises(RulesetError, match="is for Long Nardy, but the position is backgammon"):
        check_play(Position.start(), Roll(3, 1), "8/5 6/5", "long")


def test_a_long_nardy_position_id_comes_back_as_long_nardy():
    shown = run("show", "long X 24:14,18:1 / 24:15")
    ident = re.search(r"Position ID: (\S+)", shown.stdout)[1]
    assert ident.startswith("long:")
    again = run("show", ident)
    assert again.stdout.startswith(" Long Nardy") and "15" not in again.stdout.split("\n")[5][:10]
    assert run("pips", ident, "-f", "json").stdout.count('"pips": 360') == 1


@pytest.mark.parametrize("text, reason", [
    ("backgammon X 6:16 / 6:1", "has 16 checkers, at most 15"),
    ("backgammon X 6:3000000000 / 6:1", "has 3000000000 checkers"),
    ("backgammon X 6:5 / 19:1", "both sides have checkers on X (on roll)'s point 6"),
    ("long X 24:14,12:1 / 24:15", "both sides have checkers on X (on roll)'s point 12"),
    ("long X bar:1,24:14 / 24:15", "on the bar, which Long Nardy does not have"),
])
def test_impossible_positions_are_refused_where_they_are_made(text, reason):
    with pytest.raises(InvalidPositionError, match=re.escape(reason)):
        Position.parse(text)
    with pytest.raises(InvalidPositionError, match="negative count"):
        Position.from_points("backgammon", {6: -1}, {})
    for command in ("show", "pips", "moves"):
        args = [command, text] + (["31"] if command == "moves" else [])
        result = run(*args)
        assert result.exit_code == 2 and reason in result.stderr


def test_bearoff_show_refuses_bad_counts():
    for counts in ("1,-2", "3,x", "9,9", "1," * 13 + "1"):
        result = run("bearoff", "show", counts)
        assert result.exit_code == 2 and "Error:" in result.stderr


def test_no_money_verdict_without_a_cube_and_no_counts_with_contact(tmp_path, monkeypatch):
    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path))
    race = json.loads(run("race", "long X 6:5,5:5,4:5 / 6:5,5:5,3:5", "-f", "json").stdout)
    assert race["cube"] == [] and "plays without the doubling cube" in race["cube_note"]
    assert race["counts"] == [] and "Long Nardy" in race["counts_note"]
    cubed = json.loads(run("race", "long X 6:5,5:5,4:5 / 6:5,5:5,3:5", "-r", "play65-long", "-f", "json").stdout)
    assert [h["source"].split(",")[0] for h in cubed["cube"]] == ["money"]
    pips = run("pips", "start", "--no-epc")
    assert "Kleinman" not in pips.stdout and "this position has contact" in pips.stdout


def test_a_score_past_the_match_length_is_an_error():
    result = run("race", "backgammon X 6:5 / 6:4; score 9-4/7")
    assert result.exit_code == 2 and "the score 9-4 has already won the 7-point match" in result.stderr


def _stopping_record(tmp_path: Path) -> Path:
    """A game whose third turn cannot be played at all (no checker on 3)."""
    text = (" 3 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
            "  2) 64: 24/18 13/9              53: 13/8 13/10\n"
            "  3) 21: 3/1 3/2                 11: 6/5 6/5 8/7 8/7\n"
            "  4) 66: 24/18 18/12 13/7 13/7   22: 6/4 6/4 8/6 8/6\n")
    path = tmp_path / "stops.mat"
    path.write_text(text)
    return path


def test_a_turn_past_where_the_replay_stopped_says_so(tmp_path):
    record = _stopping_record(tmp_path)
    result = run("pips", str(record), "--turn", "4")
    assert result.exit_code == 2
    assert "no turn 4 in game 1: the replay stopped at game 1, turn 3 (line 7)" in result.stderr
    page = tmp_path / "r.html"
    replayed = run("replay", str(record), "-o", str(page))  # the page is written, the problem said: exit 1
    assert replayed.exit_code == 1 and ":7:" in replayed.stderr
    assert "The replay stops here: game 1, turn 3 (line 7)" in page.read_text()


def test_a_double_without_its_value_is_written_with_it(tmp_path):
    native = tmp_path / "d.nrd"
    native.write_text('[Game "backgammon"]\n[X "a"]\n[O "b"]\n[MatchLength "5"]\n\n'
                      "1. X 31: 8/5 6/5 O double\n2. X take O 42: 8/4 6/4\n*\n")
    out = tmp_path / "d.mat"
    assert run("convert", str(native), str(out)).exit_code == 0
    assert "Doubles => 2" in out.read_text() and "=> 0" not in out.read_text()


# ---------------------------------------------------------------------------
# Outputs: checked before the work, written atomically, interrupted cleanly

@pytest.mark.parametrize("args", [
    ["show", "start", "--image", "{bad}/b.png"], ["show", "start", "--output", "{bad}/b.txt"],
    ["race", "backgammon X 6:5 / 6:4", "--plot", "{bad}/p.png"], ["replay", str(FIXTURE), "-o", "{bad}/r.html"],
    ["stats", str(FIXTURE), "-f", "csv", "-o", "{bad}/s.csv"], ["plot", "dice", str(FIXTURE), "-o", "{bad}/p.png"],
    ["convert", str(FIXTURE), "{bad}/c.nrd"],
])
@pytest.mark.parametrize("bad", ["missing-folder", "a-folder"])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, args, bad):
    folder = tmp_path / "exists"
    folder.mkdir()
    where = str(tmp_path / "no-such-folder") if bad == "missing-folder" else str(folder)
    args = [a.replace("{bad}", where) for a in args]
    if bad == "a-folder":  # the output named is itself a folder
        target = Path(next(a for a in args if where in a))
        target.mkdir()
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.count("Error:") == 1 and where in result.stderr
    assert not list(tmp_path.rglob(".*.tmp"))


def test_an_interrupted_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    from nardtools import _io

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_io.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _io.write_atomically(tmp_path / "out.txt", "data")
    assert list(tmp_path.iterdir()) == []


def test_a_write_error_names_the_path_given(tmp_path):
    from nardtools import _io

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        with pytest.raises(OSError) as info:
            _io.write_atomically(locked / "out.txt", "data")
        assert info.value.filename == str(locked / "out.txt")
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_command_exits_with_one_line(sig, code):
    # As from a terminal: a run started in the background (`.ci/run &`) inherits
    # SIGINT ignored, which Python respects; the child gets it back.
    process = subprocess.Popen([sys.executable, "-m", "nardtools.cli", "selfplay", "-n", "10000000", "--show"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stdout is not None and process.stdout.readline()  # it is playing
    os.killpg(process.pid, sig)
    try:
        _out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        _out, err = process.communicate()
        pytest.fail(f"still running 60 s after signal {sig}; its stderr: {err[-2000:]}")
    assert process.returncode == code
    assert "Traceback" not in err and err.strip().startswith("Error:")


def test_an_unreachable_dask_scheduler_fails_within_seconds():
    pytest.importorskip("distributed")
    started = time.perf_counter()
    result = run("stats", str(FIXTURE), "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9")
    assert result.exit_code == 2 and "tcp://127.0.0.1:9" in result.stderr
    assert time.perf_counter() - started < 20


# ---------------------------------------------------------------------------
# The matrix: every command, bad inputs of every kind

def _files(tmp: Path) -> dict[str, Path]:
    tmp.mkdir(exist_ok=True)
    files = {"missing": tmp / "no-such-record.mat", "empty": tmp / "empty.mat", "junk": tmp / "junk.mat",
             "folder": tmp / "a-folder", "truncated": tmp / "truncated.mat", "wrong": tmp / "wrong-move.mat",
             "huge": tmp / "huge-numbers.mat"}
    files["empty"].write_bytes(b"")
    files["junk"].write_bytes(bytes(range(256)) * 8)
    files["folder"].mkdir(exist_ok=True)
    text = FIXTURE.read_text()
    files["truncated"].write_text(text[:700])
    files["wrong"].write_text(text.replace("1) 31: 8/5 6/5", "1) 31: 8/4 6/5", 1) if "1) 31: 8/5 6/5" in text
                              else re.sub(r"(\d\d): (\d+)/(\d+)", r"\1: 24/2", text, count=1))
    files["huge"].write_text(re.sub(r"Game 2", "Game " + "9" * 5000, text.replace(" 5 point match", " " + "9" * 60 + " point match")))
    return files


BAD_POSITIONS = ["backgamon X 6:1 / 6:1", "long X 24:16 / 24:15", "XGID=garbage", "x" * 300, "4HPwATDgc/ABMA:" + "x" * 12,
                 "XGID=-b----E-C---eE---c-e----B-:-1:0:1:52:0:0:0:7:10",
                 "XGID=-b----E-C---eE---c-e----B-:" + "9" * 20 + ":0:1:52:0:0:0:7:10",
                 "XGID=-b----E-C---eE---c-e----B-:0:0:1:99:0:0:0:7:10", "backgammon X 6:5 / 6:4; cube 3 X"]
RECORD_COMMANDS = [["validate", "{f}"], ["convert", "{f}", "{out}/c.nrd"], ["pips", "{f}", "-g", "1"], ["show", "{f}", "-g", "1"],
                   ["replay", "{f}", "-o", "{out}/r.html"], ["stats", "{f}"], ["plot", "dice", "{f}", "-o", "{out}/p.png"],
                   ["plot", "pips", "{f}", "-o", "{out}/p.png"], ["race", "{f}", "-g", "1"], ["moves", "--batch", "{f}"],
                   ["analyse", "{f}", "-g", "1"], ["eval", "{f}", "-g", "1"]]
POSITION_COMMANDS = [["moves", "{p}", "31"], ["check", "{p}", "31", "8/5 6/5"], ["pips", "{p}"], ["race", "{p}"], ["show", "{p}"],
                     ["eval", "{p}"], ["hint", "{p}", "31"]]
OTHER = [["moves", "start", "7"], ["moves", "start", "99"], ["check", "start", "x", "8/5"], ["check", "start", "31", "8/5 x/y"],
         ["check", "start", "31", "99/1"], ["moves", "start", "31", "--set", "head=sometimes"],
         ["moves", "start", "31", "--set", "cube-limit=" + "9" * 5000], ["moves", "start", "31", "--rules", "chess"],
         ["selfplay", "-n", "0"], ["selfplay", "-r", "chess"], ["bearoff", "build", "--points", "99"],
         ["bearoff", "build", "--policy", "nope"], ["bearoff", "show", "1,-2"], ["race", "backgammon X 6:2 / 6:2", "--trials", "5"],
         ["race", "backgammon X 6:2 / 6:2", "--met", "{f}"], ["stats", "{f}", "--columns", "nonsense"],
         ["stats", "{f}", "--group-by", "nonsense"], ["validate", "{f}", "--encoding", "nonsense"], ["rules", "chess"],
         ["rules", "long", "--set", "nonsense=1"], ["pips", "start", "-g", "0"], ["show", "start", "--names", "a"],
         ["replay", "{f}"], ["moves", "start"], ["eval", "start", "--ply", "7"], ["hint", "start", "31", "--weights", "{f}"],
         ["hint", "start", "31", "--top", "0"], ["train", "--games", "0"], ["train", "--resume", "{out}/nothing"],
         ["train", "--game", "chess"], ["analyse", "{f}", "-g", "99"], ["analyse", "{f}", "-o", "{out}/x.txt"],
         ["eval", "start", "-r", "gulbara"], ["eval", "start", "--evaluator", "gnubg", "-r", "long"],
         ["play", "--as", "Z"], ["play", "-r", "gulbara"], ["play", "-r", "chess"], ["play", "-o", "{out}/x.txt"],
         ["play", "-o", "{out}/no-folder/x.nrd"], ["play", "--ply", "7"], ["play", "--seed", "-1"],
         ["play", "--match", "999"], ["play", "--set", "nonsense=1"], ["play", "--evaluator", "gnubg", "-r", "long"],
         ["play", "--evaluator", "nonsense"]]


def _matrix() -> list[tuple[str, list[str], str]]:
    cases = [(kind, cmd, kind) for kind in ("missing", "empty", "junk", "folder", "truncated", "wrong", "huge")
             for cmd in RECORD_COMMANDS]
    cases += [(p, cmd, "position") for p in BAD_POSITIONS for cmd in POSITION_COMMANDS]
    cases += [("wrong", cmd, "other") for cmd in OTHER]
    return cases


@pytest.mark.parametrize("subject, command, kind", _matrix(), ids=lambda x: x if isinstance(x, str) else " ".join(x)[:40])
def test_bad_input_matrix(tmp_path, subject, command, kind):
    files = _files(tmp_path / "in")
    out = tmp_path / "out"
    out.mkdir()
    source = str(files[subject]) if kind != "position" else subject
    args = [a.replace("{f}", source).replace("{p}", source).replace("{out}", str(out)) for a in command]
    result = run(*args)
    assert result.exit_code in (0, 1, 2)
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) <= 1
    if result.exit_code == 2 and errors:  # one message naming the input
        named = [a for a in args[1:] if len(a) > 1 and not a.startswith("-")]
        assert any(a[:40] in errors[0] or Path(a).name in errors[0] for a in named) or kind == "other", errors[0]
    assert not list(tmp_path.rglob(".*.tmp"))


# ---------------------------------------------------------------------------
# Found by fuzzing

def test_one_bad_file_does_not_stop_a_folder(tmp_path):
    (tmp_path / "good.mat").write_bytes(FIXTURE.read_bytes())
    (tmp_path / "bad.mat").write_bytes(b"\0\1\2binary")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("just notes, not a record\n")
    result = run("validate", str(tmp_path), "-f", "json")
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    by_name = {Path(f["path"]).name: f for f in data["files"]}
    assert set(by_name) == {"good.mat", "bad.mat", "empty.txt"}  # notes are not records
    assert by_name["good.mat"]["games"] == 4 and by_name["bad.mat"]["unreadable"]
    assert "empty" in by_name["empty.txt"]["unreadable"]


@pytest.mark.parametrize("text", [
    ' 1 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5   ' + "9" * 50000 + ': 8/4\n',
    '[Game "backgammon"]\n[MatchLength "five"]\n[GameNumber "x"]\n\n1. X 31: 8/5 6/5\n*\n',
    '[Game "long"]\n\n1. X 64: 24/18/14 ' + "(" * 100 + ")" * 100 + "\n*\n",
])
def test_records_that_crashed_the_readers_are_reported(tmp_path, text):
    path = tmp_path / ("r.nrd" if text.startswith("[") else "r.mat")
    path.write_text(text)
    result = run("validate", str(path))
    assert result.exit_code in (1, 2) and result.stdout.strip()


def test_a_megabyte_line_costs_linear_time(tmp_path):
    path = tmp_path / "long-line.mat"
    lines = FIXTURE.read_text().split("\n")
    lines.insert(10, "24/18 " * 200_000)
    path.write_text("\n".join(lines))
    started = time.perf_counter()
    result = run("validate", str(path))
    assert time.perf_counter() - started < 10
    assert "a line of 1,200,000 characters: no line of a record is longer than 10,000" in result.stdout


def test_what_mat_cannot_hold_is_an_error_or_a_note(tmp_path):
    result = run("convert", str(GULBARA), str(tmp_path / "g.mat"))
    assert result.exit_code == 2 and "the .mat format has no way to write dice carried over" in result.stderr
    assert not (tmp_path / "g.mat").exists()
    back = run("convert", str(TEACHING), str(tmp_path / "t.mat"))
    assert back.exit_code == 0 and re.search(r"not written: \d+ comments", back.stderr)
    assert re.search(r"not written: \d+ glyphs", back.stderr)


def test_studio_tags_survive_conversion_to_native(tmp_path):
    studio = next((CORPUS / "bglab-llabba").glob("*Backgammon Studio*.txt"), None)
    if studio is None:
        pytest.skip(f"no corpus at {CORPUS} (set NARDTOOLS_CORPUS)")
    out = tmp_path / "s.nrd"
    assert run("convert", str(studio), str(out)).exit_code == 0
    text = out.read_text()
    for tag in ("Player 1", "Player 2", "Match ID", "EventTime", "ClockType", "Unrated", "Crawford", "CubeLimit"):
        assert f"[{tag} " in text, tag
    again = tmp_path / "s.mat"
    assert run("convert", str(out), str(again)).exit_code == 0
    assert '; [Match ID "' in again.read_text()


def test_a_malformed_variation_tag_is_read_alike_by_both_paths():
    from nardtools.notation.validate import replay_file, vouched

    base = FIXTURE.read_text().split("\n", 1)[1]
    for tag in ('; [Variation "NackGammon"', '; [Variation x "NackGammon"]', '; [Variation-x "NackGammon"]',
                '; [ Variation  "Nack Gammon" ]', '; [Variation "NackGammon"] [Variation "Backgammon"]'):
        data = (tag + "\n" + base).encode()
        quick = vouched("v.mat", data=data)
        full = replay_file("v.mat", data=data)
        if quick is not None:
            assert not full.problems and (quick.games, quick.turns) == (full.games, full.turns), tag


def test_a_hostile_name_does_not_blank_the_replay_page(tmp_path):
    text = FIXTURE.read_text().replace("gnubg", "<!--<script>", 1)
    record = tmp_path / "hostile.mat"
    record.write_text(text)
    page = tmp_path / "r.html"
    assert run("replay", str(record), "-o", str(page)).exit_code == 0
    html = page.read_text()
    start = html.index('<script id="data"')
    data = html[html.index(">", start) + 1:html.index("</script>", start)]
    assert "<" not in data and ">" not in data  # nothing the HTML parser could take for markup
    assert json.loads(data)["names"][0] == "<!--<script>"


def test_memory_is_bounded_by_the_game_not_the_file(tmp_path, monkeypatch):
    import tracemalloc

    from nardtools.notation import source
    from nardtools.notation.validate import replay_file

    monkeypatch.setattr(source, "IN_MEMORY", 1 << 16)  # stream anything over 64 KiB ...
    monkeypatch.setattr(source, "_BLOCK", 1 << 16)  # ... in blocks of 64 KiB
    head, games = FIXTURE.read_text().split(" Game 1", 1)
    first = games.split(" Game 2")[0]  # root wins 2 points
    head = head.replace(" 5 point match", " 9999 point match")
    score = " gnubg : 0                      root : 0"
    assert score in first

    def archive(copies: int) -> Path:  # ends with an illegal play; each header's score the results' own
        path = tmp_path / f"{copies}.mat"
        path.write_text(head + "".join(f" Game {i + 1}" + first.replace(score, f" gnubg : 0   root : {2 * i}")
                                       for i in range(copies))
                        + f" Game 99999\n a : 0   b : {2 * copies}\n  1) 31: 8/4 6/5\n")
        return path

    replay_file(str(archive(10)))  # everything imported and cached before measuring
    peaks = []
    for copies in (200, 800):
        path = archive(copies)
        tracemalloc.start()
        report = replay_file(str(path))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert report.games == copies + 1 and len(report.errors) == 1
    assert peaks[1] < 1.3 * peaks[0], peaks  # four times the file, not four times the memory


# ---------------------------------------------------------------------------
# Files and archives

@pytest.mark.parametrize("codec, why", [("cp1251", "Windows-1251"), ("koi8-r", "KOI8-R"), ("latin-1", "Latin-1"),
                                        ("utf-16", "UTF-16"), ("utf-16-le", "UTF-16 without")])
def test_encodings_are_detected_and_said(tmp_path, codec, why):
    names = ("José", "Müller") if codec == "latin-1" else ("Иван Петров", "Пётр")
    text = (f" 1 point match\n\n Game 1\n {names[0]} : 0                 {names[1]} : 0\n"
            "  1) 31: 8/5 6/5                 42: 8/4 6/4\n")
    path = tmp_path / "e.mat"
    path.write_bytes(text.encode(codec))
    result = run("validate", str(path), "-f", "json")
    data = json.loads(result.stdout)["files"][0]
    assert data["encoding"].startswith(codec.split("-le")[0].replace("latin-1", "latin")) or codec in data["encoding"]
    shown = run("show", str(path))
    assert names[0] in shown.stdout.replace("  ", " ") or names[0][:5] in shown.stdout
    said = run("validate", str(path))
    assert why.split()[0] in said.stderr
    if not codec.startswith("utf-16"):
        forced = run("validate", str(path), "--encoding", "latin-1", "-f", "json")
        assert json.loads(forced.stdout)["files"][0]["encoding"] == "iso8859-1"


def test_an_abandoned_game_is_a_warning(tmp_path):
    path = tmp_path / "a.mat"
    path.write_text(" 3 point match\n\n Game 1\n a : 0                b : 0\n"
                    "  1) 31: 8/5 6/5                 42: 8/4 6/4\n  2) 64:\n")
    result = run("validate", str(path), "-f", "json")
    data = json.loads(result.stdout)["files"][0]
    assert result.exit_code == 0 and data["errors"] == [] and data["complete_games"] == 0
    assert {w["rule"] for w in data["warnings"]} == {"abandoned", "incomplete-game"}


def test_a_fragment_at_match_point_infers_the_crawford_game(tmp_path):
    path = tmp_path / "f.mat"
    path.write_text(" 5 point match\n\n Game 7\n a : 4                b : 2\n"
                    "  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Takes                        42: 8/4 6/4\n")
    data = json.loads(run("validate", str(path), "-f", "json").stdout)["files"][0]
    assert data["errors"] == []
    assert "crawford-inferred" in {w["rule"] for w in data["warnings"]}


@pytest.mark.parametrize("cell", [
    "21: Illegal play (0;0;0;0;1;a;b;0;0;0;1;0;0;-2;0;0;0;0;5;0;3;0;0;0;-5;5;0;0;0;-3;0;-5;0;0;0;0;2;0;0;0;)",
    "21:    Illegal play (0;0;0;0;1;a;b;0;0;0;1;0;0;-2;0;0;0;0;5;0;3;0;0;0;-5;5;0;0;0;-3;0;-5;0;0;0;0;2;0;0;0)",
    "21: illegal play: (0; 0; 0; 0; 1; a; b; 0; 0; 0; 1; 0; 0; -2; 0; 0; 0; 0; 5; 0; 3; 0; 0; 0; -5; 5; 0; 0; 0; "
    "-3; 0; -5; 0; 0; 0; 0; 2; 0; 0; 0;) ",
])
def test_snowie_board_lines_of_several_producers(tmp_path, cell):
    path = tmp_path / "s.mat"
    path.write_text(" 1 point match\n\n Game 1\n a : 0                          b : 0\n"
                    f"  1) 31: 8/5 6/5                 {cell}\n")
    data = json.loads(run("validate", str(path), "-f", "json").stdout)["files"][0]
    assert data["errors"] == [] and "board-edit" in {w["rule"] for w in data["warnings"]}


def test_records_from_standard_input():
    text = FIXTURE.read_text()
    result = run("validate", "-", "-f", "json", input=text)
    assert json.loads(result.stdout)["summary"]["games"] == 4
    assert run("pips", "-", "-g", "2", "-t", "3", input=text).stdout.startswith("backgammon")
    stats = run("stats", "-", "-f", "csv", "-q", input=text)
    assert stats.stdout.count("\n") == 5


def test_names_are_one_player_whatever_their_case_and_aliases(tmp_path):
    text = FIXTURE.read_text()
    names = re.search(r"\n (\S+) : 0 +(\S+) : 0", text).groups()
    (tmp_path / "a.mat").write_text(text)
    (tmp_path / "b.mat").write_text(text.replace(names[0], names[0].upper()))
    aliases = tmp_path / "aliases.txt"
    aliases.write_text(f"# one player\n{names[1]} = Someone\n")
    rows = json.loads(run("stats", str(tmp_path / "a.mat"), str(tmp_path / "b.mat"), "--table", "players",
                          "--aliases", str(aliases), "-f", "json", "-q").stdout)
    assert {r["player"]: r["games"] for r in rows} == {names[0]: 8, "Someone": 8}
    strict = json.loads(run("stats", str(tmp_path / "a.mat"), str(tmp_path / "b.mat"), "--table", "players",
                            "--case-sensitive", "-f", "json", "-q").stdout)
    assert len(strict) == 3


# ---------------------------------------------------------------------------
# Output people read

@pytest.mark.parametrize("width", [80, 100])
def test_tables_fit_the_terminal(width):
    from nardtools.analysis.stats import collect
    from nardtools.cli.tables import render

    archive = collect([str(ROOT / "examples")], jobs=1)
    for table in ("games", "players", "dice"):
        frame = archive.frame(table)
        text = render(frame, title=table, rows=5, width=width)
        lines = text.splitlines()
        body = [line for line in lines if line.startswith(("┃", "│", "|"))]
        assert all(len(line) <= width for line in body), table
        header = next(line for line in lines if line.startswith("┃"))
        shown = [c.strip() for c in header.strip("┃").split("┃")]
        assert all(c in frame.columns for c in shown), shown  # no header cut or folded


def test_json_says_booleans_and_rounds_floats():
    data = json.loads(run("stats", str(ROOT / "examples"), "--table", "turns", "-f", "json", "-q").stdout)
    assert isinstance(data[0]["forced"], bool) and isinstance(data[0]["legal"], bool)
    floats = [v for row in data for v in row.values() if isinstance(v, float)]
    assert floats and all(len(repr(v).split(".")[-1].split("e")[0]) <= 6 for v in floats)
    help_text = run("rules", "long").stdout + run("rules", "long", "-f", "json").stdout
    assert "SCORING_TABLES" not in help_text


def test_help_summaries_are_one_line_and_validate_names_its_formats():
    from nardtools.notation.reading import FORMATS

    for command in app.registered_commands:
        first = (command.callback.__doc__ or "").strip().split("\n")[0]
        assert first.endswith("."), first
    text = run("validate", "--help").stdout.replace("\n", " ")
    for word in ("Jellyfish .mat", "SGF", "native", "UTF-8", "Windows-1251", "KOI8-R", "Latin-1", "UTF-16"):
        assert word in text, word
    assert len(FORMATS) == 3


def test_a_cached_database_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path))
    first = run("bearoff", "build", "--points", "3")
    assert "built in" in first.stdout
    again = run("bearoff", "build", "--points", "3")
    assert "already cached" in again.stdout and "built in" not in again.stdout


def test_implicit_database_builds_are_announced(tmp_path, monkeypatch):
    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path))
    result = run("pips", "backgammon X 6:5 / 6:4")
    assert "building the 6-point bear-off database" in result.stderr


def test_errors_are_ours(tmp_path):
    """Anything a user can type reaches the library as one of our errors."""
    from nardtools.notation.ids import parse_setup

    for text in ("", ";", "long", "long X", "XGID=", "long:", "long:xx", "x" * 10_000, "long X 24:15 / 24:15; dice 7"):
        with pytest.raises(NardtoolsError):
            parse_setup(text)


def _overlapping_ticks(fig, ax) -> bool:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
    return any(a.overlaps(b) for a, b in itertools.pairwise(boxes))


def test_plots_are_readable(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from nardtools.analysis.annotate import annotate_game
    from nardtools.analysis.plots import plot_outcomes, plot_pips, plot_race
    from nardtools.analysis.race import race_odds
    from nardtools.analysis.stats import collect
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match

    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path))
    race = plot_race(race_odds(Position.parse("long X 12:2,9:4,6:9 / 11:3,8:6,5:6"), trials=200))
    assert not _overlapping_ticks(race, race.axes[0])
    outcomes = plot_outcomes(collect([str(ROOT / "examples")], jobs=1).games)
    assert not _overlapping_ticks(outcomes, outcomes.axes[0])
    match = replay_match(read_record(LONG_MAT))
    pips = plot_pips(annotate_game(match.games[0]), match.record.names)
    for fig in (race, outcomes, pips):  # every legend stands clear of the plotted data
        fig.canvas.draw()
        ax = fig.axes[0]
        legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
        assert not legend.overlaps(ax.get_window_extent(fig.canvas.get_renderer()))
        plt.close(fig)


def test_board_image_labels_each_side_by_its_own_checkers():
    import matplotlib.pyplot as plt

    from nardtools.teaching.board_image import board_figure

    fig = board_figure(Position.parse("long X 24:13,19:2 / 24:14,18:1"), names=("white", "black"))
    labels = {t.get_gid(): t for t in fig.axes[0].texts if t.get_gid()}
    mover, other = labels["label-0"], labels["label-1"]
    assert mover.get_position()[1] > 11 and mover.get_position()[0] > 7  # top right, by its head (24)
    assert other.get_position()[1] < 0 and other.get_position()[0] < 7  # bottom left, by its head
    # each side by its letter in the position text ("long X ..." is white's position, on roll: issue 21)
    assert mover.get_text().startswith("white (X)") and other.get_text().startswith("black (O)")
    swatches = [p for p in fig.axes[0].patches if getattr(p, "radius", None) == 0.22]
    assert len(swatches) == 2  # the legend: a checker of each colour beside its label
    plt.close(fig)


def test_a_play_with_a_long_word_is_refused_in_linear_time():
    """Fuzzing found a 10,000-character word after a play that took seconds: the
    play pattern restarted inside the word at every character (quadratic).
    At 200,000 characters a quadratic parse would take minutes."""
    from nardtools.errors import InvalidPlayError
    from nardtools.play import Play

    with pytest.raises(InvalidPlayError, match="unexpected '1111"):
        Play.parse("23/19 19/18*" + "1" * 200_000)
