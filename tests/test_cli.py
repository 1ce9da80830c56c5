"""The command line: exact output, exit codes, help on every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nardtools import __version__
from nardtools.cli import app, app_for

from .fresh import modules_after

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ["rules", "moves", "check", "selfplay", "validate", "convert", "pips", "race", "bearoff"]


@pytest.mark.parametrize("command", [*COMMANDS, "bearoff build", "bearoff show"])
def test_help_on_every_command(command):
    result = runner.invoke(app, [*command.split(), "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.output


@pytest.mark.parametrize("command", [info.name for info in app.registered_commands])
def test_the_script_builds_only_the_command_asked_for_and_it_behaves_the_same(command):
    lone = app_for([command, "--help"])
    assert [info.name for info in lone.registered_commands] == [command] and lone is not app
    assert runner.invoke(lone, [command, "--help"]).output == runner.invoke(app, [command, "--help"]).output
    wrong = runner.invoke(lone, [command, "--no-such-option"])
    assert wrong.exit_code == 2 and wrong.output == runner.invoke(app, [command, "--no-such-option"]).output


def test_the_whole_app_answers_anything_that_is_not_a_command():
    assert all(app_for(args) is app for args in ([], ["--help"], ["--version"], ["bearoff", "show"], ["valdate"]))
    assert "validate" in runner.invoke(app_for(["--help"]), ["--help"]).output


def test_every_command_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"nardtools {command}" in readme


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"nardtools {__version__}\n"


def test_moves_exact_output():
    result = runner.invoke(app, ["moves", "start", "33", "--rules", "long"])
    assert result.exit_code == 0
    assert result.output == (
        "long X 24:15 / 24:15  dice 33  [long]: 2 legal plays\n"
        "    1. 24/18(2)\n"
        "    2. 24/21 24/15\n"
    )


def test_moves_with_option_override_and_json():
    pos = "long O 24:15 / 24:14,4:1"
    result = runner.invoke(app, ["moves", pos, "62", "-r", "long", "--set", "head=doubles-list",
                                 "--format", "json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["ruleset"] == "long+"
    assert [p["play"] for p in data["plays"]] == ["24/18"]
    assert data["plays"][0]["result"] == "long X 24:14,4:1 / 24:14,18:1"


def test_check_illegal_exits_1_and_names_the_rule():
    result = runner.invoke(app, ["check", "start", "65", "24/18 24/19", "--rules", "long"])
    assert result.exit_code == 1
    assert "[head-rule]" in result.output
    assert "legal plays (1): 24/18/13" in result.output


def test_check_legal_exits_0():
    result = runner.invoke(app, ["check", "start", "31", "8/5 6/5"])
    assert result.exit_code == 0
    assert result.output.startswith("legal: 8/5 6/5\n")


def test_unknown_ruleset_is_one_red_line():
    result = runner.invoke(app, ["moves", "start", "31", "--rules", "chess"])
    assert result.exit_code == 2
    assert "unknown ruleset 'chess'" in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_errors_stay_on_one_line_and_keep_brackets():
    """An error names its file on one line at any terminal width (so that
    FILE:LINE:COL can be grepped), and text in brackets is not taken for markup."""
    long_name = "a-record-with-a-rather-long-name-[in brackets]-that-does-not-exist.nrd"
    result = runner.invoke(app, ["show", long_name], env={"COLUMNS": "30"})
    assert result.exit_code != 0
    line = next(line for line in result.stderr.splitlines() if line.startswith("Error:"))
    assert long_name in line


def test_bad_set_syntax_is_a_usage_error():
    result = runner.invoke(app, ["moves", "start", "31", "--set", "head"])
    assert result.exit_code == 2
    assert "OPTION=VALUE" in result.stderr


def test_bad_option_value():
    result = runner.invoke(app, ["moves", "start", "31", "-r", "long", "--set", "block=sometimes"])
    assert result.exit_code == 2
    assert "option block: 'sometimes' is not one of ahead, opponent-in-home, none" in result.stderr


def test_rules_listing_names_every_ruleset():
    result = runner.invoke(app, ["rules", "--format", "json"])
    names = {r["name"] for r in json.loads(result.stdout)}
    assert {"long-classic", "nardionline", "arena", "luckyea", "yellowclub", "play65",
            "short-academic", "tournament-2015", "quentinc", "gammon-site"} <= names


def test_batch_moves_on_the_bundled_examples():
    result = runner.invoke(app, ["moves", "--batch", str(ROOT / "examples" / "positions.txt")])
    assert result.exit_code == 0
    assert "long X 11:10,5:1,4:1,3:1,2:1,1:1 / 24:5,22:5,21:5  dice 65  [long]: 1 legal play\n    1. 11/5\n" in result.output


def test_selfplay_json():
    result = runner.invoke(app, ["selfplay", "-r", "nardionline", "-n", "3", "--seed", "4", "-f", "json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["games"] == 3 and data["turns"] > 0 and data["differences"] == [] and data["checked"]
    assert sum(data["outcomes"].values()) == 3


def test_console_script_help_starts_without_heavy_imports():
    assert not {"pandas", "matplotlib", "numpy"} & modules_after("from nardtools.cli import app")


def test_a_middle_game_hint_loads_no_race_or_bear_off_code():
    """The race's odds and the bear-off databases load when a position is a
    race, not for every hint: start-up is most of a 0-ply hint's time."""
    code = ("from nardtools.cli import main\nimport sys\nsys.argv = ['nardtools', 'hint', "
            "'long X 24:9,22:2,19:2,16:1,13:1 / 24:8,20:3,17:2,14:2', '53']\ntry:\n    main()\n"
            "except SystemExit:\n    pass")
    loaded = modules_after(code)
    assert "nardtools.analysis.evaluate" in loaded  # the hint really ran
    assert not {"nardtools.analysis.race", "nardtools.analysis.bearoff", "pandas", "matplotlib"} & loaded
    race = modules_after(code.replace("24:9,22:2,19:2,16:1,13:1 / 24:8,20:3,17:2,14:2", "6:3,5:2 / 6:2,4:3"))
    assert "nardtools.analysis.bearoff" in race


def test_convert_round_trip(tmp_path):
    source = ROOT / "tests" / "fixtures" / "gnubg-standard-5-90001.mat"
    nrd, mat, again = tmp_path / "a.nrd", tmp_path / "b.mat", tmp_path / "c.nrd"
    for src, dst in ((source, nrd), (nrd, mat), (mat, again)):
        result = runner.invoke(app, ["convert", str(src), str(dst)])
        assert result.exit_code == 0, result.stderr
        assert "4 games" in result.stderr
    assert nrd.read_text() == again.read_text()
    assert mat.read_text().startswith('; [EventDate "2026.11.29"]\n; [Variation "Backgammon"]\n\n 5 point match')
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically, nothing left behind


def test_convert_unreadable_source(tmp_path):
    junk = tmp_path / "junk.txt"
    junk.write_text("hello")
    result = runner.invoke(app, ["convert", str(junk), str(tmp_path / "out.nrd")])
    assert result.exit_code == 2 and "unknown format" in result.stderr
    assert not (tmp_path / "out.nrd").exists()


def test_pips_shows_counts_and_epc(tmp_path, monkeypatch):
    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path))
    result = runner.invoke(app, ["pips", "XGID=-CDB------------------cdc-:1:-1:1:52:3:1:0:5:10"])
    assert result.exit_code == 0
    assert "on roll   17 pips, EPC" in result.output
    assert "Thorp: L = 35 (x1.1 = 38.5), T = 40: redouble, take" in result.output
    data = json.loads(runner.invoke(app, ["pips", "start", "--no-epc", "-f", "json"]).stdout)
    assert [s["pips"] for s in data["sides"]] == [167, 167] and data["counts"] == []  # contact: no counts
    assert data["counts_note"] == "the counting rules are for races; this position has contact"
    race = json.loads(runner.invoke(app, ["pips", "backgammon X 6:5 / 6:4", "--no-epc", "-f", "json"]).stdout)
    assert len(race["counts"]) == 5 and race["counts_note"] is None


def test_pips_of_a_recorded_turn():
    record = ROOT / "tests" / "fixtures" / "gnubg-standard-5-90001.mat"
    result = runner.invoke(app, ["pips", str(record), "--game", "2", "--turn", "3", "--no-epc"])
    assert result.exit_code == 0 and result.output.startswith("backgammon X ")


def test_bearoff_show(tmp_path, monkeypatch):
    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path))
    result = runner.invoke(app, ["bearoff", "show", "5,4,0,0,0,0"])
    assert result.exit_code == 0
    assert "mean rolls 4.410129; EPC = 49/6 x mean = 36.016; wastage = EPC - pips = 23.016" in result.output
    assert runner.invoke(app, ["bearoff", "show", "x"]).exit_code == 2


def test_race_json_plot_and_cube_hints(tmp_path, monkeypatch):
    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path))
    text = "backgammon X 6:3,5:3,4:3,3:2,2:2 / 6:3,5:3,4:3,3:3,2:2,1:1; score 2-4/7"
    plot = tmp_path / "race.png"
    result = runner.invoke(app, ["race", text, "--format", "json", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["exact"] is True and 0 < data["p_win"] < 1
    assert {"p_gammon", "p_lose_gammon", "p_home_mars", "expected_points"} <= set(data)
    assert [set(s) >= {"pips", "epc", "expected_rolls"} for s in data["sides"]] == [True, True]
    assert [c["source"].split(",")[0] for c in data["cube"]] == ["money", "match"]
    assert len(data["counts"]) == 5 and plot.read_bytes().startswith(b"\x89PNG")
    text_out = runner.invoke(app, ["race", text]).output
    assert "cube, money" in text_out and "Kazaross" in text_out.replace("kazaross", "Kazaross")
    assert runner.invoke(app, ["race", "start"]).exit_code == 2  # not a race: a clear error
    assert runner.invoke(app, ["bearoff", "verify", "--points", "6"]).exit_code == 0


def test_race_two_sided(tmp_path, monkeypatch):
    monkeypatch.setenv("NARDTOOLS_CACHE", str(tmp_path))
    data = json.loads(runner.invoke(app, ["race", "backgammon X 6:2 / 2:1", "--two-sided", "-f", "json"]).stdout)
    assert data["two_sided_p_win"] == pytest.approx(4 / 36)  # only 3-3 to 6-6 bear both off at once
    result = runner.invoke(app, ["race", "backgammon X 6:3,5:3,4:3,3:2,2:2 / 6:3,5:3,4:3,3:3,2:2,1:1",
                                 "--two-sided"])
    assert result.exit_code == 2 and "at most 6 checkers" in result.stderr


def test_package_exports_are_lazy_and_complete():
    """``import nardtools`` loads no engine; every name in ``__all__`` resolves."""
    import nardtools

    assert set(nardtools.__all__) == set(nardtools._EXPORTS) | {"__version__"}
    assert not {"nardtools.engine", "numpy"} & modules_after("import nardtools")
    for name in nardtools.__all__:
        assert getattr(nardtools, name) is not None


def test_a_short_flag_means_one_thing_in_every_command():
    import typer

    flags: dict[str, set[str]] = {}

    def walk(command) -> None:  # type: ignore[no-untyped-def]
        for sub in getattr(command, "commands", {}).values():
            walk(sub)
        for param in getattr(command, "params", []):
            longs = [o for o in param.opts + param.secondary_opts if o.startswith("--")]
            for short in (o for o in param.opts + param.secondary_opts if o[:1] == "-" and o[:2] != "--"):
                flags.setdefault(short, set()).add(longs[0] if longs else param.name)

    walk(typer.main.get_command(app))
    assert flags and all(len(meaning) == 1 for meaning in flags.values()), flags


def test_the_console_script_ends_at_once_with_its_output_and_exit_code(tmp_path):
    """``python -m nardtools`` (as the ``nardtools`` script) ends without the
    interpreter's teardown once its output is flushed: the whole output, on a
    pipe and in a file, the same as in process, and each exit code kept."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "nardtools"]
    batch = ["moves", "--batch", str(ROOT / "examples" / "positions.txt")]
    expected = runner.invoke(app, batch)
    assert expected.exit_code == 0 and expected.stdout.count("\n") > 20
    piped = subprocess.run([*command, *batch], capture_output=True, text=True)
    assert (piped.returncode, piped.stdout) == (0, expected.stdout)
    with open(tmp_path / "out.txt", "w") as out:
        assert subprocess.run([*command, *batch], stdout=out).returncode == 0
    assert (tmp_path / "out.txt").read_text() == expected.stdout
    missing = subprocess.run([*command, "validate", str(tmp_path / "none.mat")], capture_output=True, text=True)
    assert missing.returncode == 2 and "none.mat" in missing.stderr
    record = (ROOT / "tests" / "fixtures" / "gnubg-standard-5-90001.mat").read_text()
    (tmp_path / "illegal.mat").write_text(record.replace("64: 24/18 18/14", "64: 24/14 18/14", 1))
    illegal = subprocess.run([*command, "validate", str(tmp_path / "illegal.mat")], capture_output=True, text=True)
    assert illegal.returncode == 1 and "illegal.mat:7:" in illegal.stdout + illegal.stderr


def test_nardtools_threads_sets_the_split_and_a_bad_value_stops_every_command():
    """``NARDTOOLS_THREADS`` (1 to 16) sets the threads a process splits its
    large batches over; any other value leaves the default in the library and
    makes every command exit 2 with one line naming the variable (with the
    compiled core or without)."""
    import os
    import subprocess
    import sys

    from nardtools.core import compiled

    env = {k: v for k, v in os.environ.items() if k != "NARDTOOLS_THREADS"}
    probe = [sys.executable, "-c", "from nardtools.core import forward_threads, THREADS_PROBLEM as p; "
                                   "print(forward_threads(1), p)"]
    if compiled() is not None:  # (without it nothing is split: forward_threads is always 1)
        for value, threads in (("3", "3"), (" 1 ", "1"), ("16", "16")):
            got = subprocess.run(probe, capture_output=True, text=True, env={**env, "NARDTOOLS_THREADS": value})
            assert got.stdout.split() == [threads, "None"], (value, got.stderr)
    default = subprocess.run(probe, capture_output=True, text=True, env=env).stdout.split()[0]
    for value, engine in (("0", ""), ("17", ""), ("two", ""), ("1.5", "reference")):
        wrong = {**env, "NARDTOOLS_THREADS": value, "NARDTOOLS_ENGINE": engine}
        got = subprocess.run(probe, capture_output=True, text=True, env=wrong)
        assert got.stdout.split()[0] == (default if not engine else "1") and f"NARDTOOLS_THREADS={value}:" in got.stdout
        run = subprocess.run([sys.executable, "-m", "nardtools", "rules"], capture_output=True, text=True, env=wrong)
        assert run.returncode == 2 and not run.stdout, value
        assert run.stderr.strip() == f"Error: NARDTOOLS_THREADS={value}: expected a whole number of threads from 1 to 16"
