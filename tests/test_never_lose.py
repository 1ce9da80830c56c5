"""Never a wrong answer, never a silent failure (issue 60): each finding has
a test that failed before its change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nardtools.cli import app

from .corpus import CORPUS, needs_corpus, require_corpus

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "gnubg-standard-5-90001.mat"
CRAWFORD_MATCH = "gnubg-selfplay/gnubg-standard-3-90016.mat"  # 3 points: game 2, at 2-0, is the Crawford game


def run(*args: str, input: str | bytes | None = None, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    result = runner.invoke(app, list(args), input=input, env=env)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


# ---------------------------------------------------------------------------
# 3. the replay page's template

def test_a_name_that_spells_the_template_slot_stays_a_name(tmp_path: Path) -> None:
    text = FIXTURE.read_text().replace("gnubg :", "{{DATA}}{{SCRIPT}}{{DATA}} :", 1)
    record = tmp_path / "hostile.mat"
    record.write_text(text)
    plain = tmp_path / "plain.html"
    page = tmp_path / "page.html"
    assert run("replay", str(FIXTURE), "-o", str(plain)).exit_code == 0
    assert run("replay", str(record), "-o", str(page)).exit_code == 0
    assert page.stat().st_size < 1.2 * plain.stat().st_size  # not the page inside itself, thrice
    assert "{{DATA}}{{SCRIPT}}{{DATA}}" in page.read_text()


# ---------------------------------------------------------------------------
# 4. unbounded reads

def test_an_endless_file_is_refused_not_read_whole() -> None:
    result = run("validate", "/dev/zero")
    assert result.exit_code == 2 and "more than 256 MiB" in result.stdout + result.stderr


def test_standard_input_past_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from nardtools.notation import sniff

    monkeypatch.setattr(sniff, "MAX_INPUT", 1000)
    result = run("validate", "-", input=FIXTURE.read_bytes())
    assert result.exit_code == 2 and "standard input: more than" in result.stderr


# ---------------------------------------------------------------------------
# 6 and 7. scores by the results

def _crawford_record(tmp_path: Path) -> Path:
    """The 3-point match with game 2's header made 1-0 (the results make it 2-0, the Crawford game) and a
    double written into game 2."""
    require_corpus()
    text = (CORPUS / CRAWFORD_MATCH).read_text()
    header = " gnubg : 2                      root : 0\n  1)                             63: 24/18 18/15 \n  2) "
    assert header in text
    text = text.replace(header, header.replace("gnubg : 2", "gnubg : 1").replace(
        "  2) ", "  2)  Doubles => 2                Takes\n  3) "))
    path = tmp_path / "crawford.mat"
    path.write_text(text)
    return path


@needs_corpus
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_header_score_that_contradicts_the_results_is_warned_of_and_the_crawford_game_judged_by_them(
        tmp_path: Path, engine: str) -> None:
    path = _crawford_record(tmp_path)
    env = {"NARDTOOLS_ENGINE": "reference"} if engine == "reference" else {}
    result = run("validate", str(path), "-f", "json", env=env)
    report = json.loads(result.stdout)["files"][0]
    assert [w["rule"] for w in report["warnings"]] == ["score-mismatch"]
    assert "game 1's result makes it 2-0" in report["warnings"][0]["message"]
    assert [(e["game"], e["message"]) for e in report["errors"]] == [
        (2, "X may not double: no doubling in the Crawford game")]


def test_a_score_at_the_match_length_is_refused_where_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "past.mat"
    path.write_text(FIXTURE.read_text().replace(" gnubg : 0                      root : 0",
                                                " gnubg : 5                      root : 0", 1))
    validated = run("validate", str(path))
    assert validated.exit_code == 1
    assert f"{path}:5:1: game 1, turn 0: the score 5-0 is not below the match length 5" in validated.stdout
    for args in (["analyse", str(path)], ["replay", str(path), "--analyse", "-o", str(tmp_path / "p.html")],
                 ["stats", str(path), "--analyse"]):
        result = run(*args)
        assert result.exit_code in (0, 1), (args, result.stdout + result.stderr)  # judged, never exit 70


# ---------------------------------------------------------------------------
# 8. --met

@pytest.mark.parametrize("table, said", [
    ("0.5,0.6\n0.4,0.5\npost,0.5\n", ":3:1: a post row of 1 numbers: expected 2, one for each score [met-post]"),
    ("0.5,nan\n0.4,0.5\n", ":1:5: 'nan': expected a chance from 0 to 1 (or 0% to 100%) [met-chance]"),
    ("0.5,-0.2\n0.4,0.5\n", ":1:5: '-0.2': expected a chance from 0 to 1"),
    ("0.5,140\n0.4,0.5\n", ":1:5: '140': expected a chance from 0 to 1"),
    ("0.5,0.7\n0.4,0.5\n", ":2:1: 2-away 1-away is 0.4000 and 1-away 2-away 0.7000: expected two chances adding "
                           "to 1 [met-complement]"),
    ("0.5,0.6\n0.4\n", ":2:1: a row of 1 numbers: expected 2"),
    ("0.5,x\n0.4,0.5\n", ":1:5: 'x': expected a number [met-number]"),
])
def test_a_bad_match_equity_table_is_refused_where_it_enters(tmp_path: Path, table: str, said: str) -> None:
    met = tmp_path / "met.csv"
    met.write_text(table)
    result = run("analyse", str(FIXTURE), "--met", str(met))
    assert result.exit_code == 2 and f"{met}{said}" in result.stderr


# ---------------------------------------------------------------------------
# 9. a whole SGF match on one line

def test_an_sgf_match_on_one_line_is_read(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "backgammon" / "gnubg-5pt-analysed.sgf").read_text().replace("\n", "")
    assert len(text) > 10_000
    one = tmp_path / "one.sgf"
    one.write_text(text)
    result = run("validate", str(one), "-f", "json")
    report = json.loads(result.stdout)["files"][0]
    assert result.exit_code == 0 and report["format"] == "sgf" and report["games"] == 4


# ---------------------------------------------------------------------------
# 10. silent failures

def test_stats_refuses_an_output_it_cannot_write_and_a_text_file_holds_every_row(tmp_path: Path) -> None:
    assert run("stats", str(FIXTURE), "-o", str(tmp_path / "t.xlsx")).exit_code == 2
    assert not (tmp_path / "t.xlsx").exists()
    text = tmp_path / "turns.txt"
    assert run("stats", str(FIXTURE), "--table", "turns", "-o", str(text)).exit_code == 0
    assert "(153 rows)" in text.read_text() and "more rows" not in text.read_text()
    assert len([line for line in text.read_text().splitlines() if "│" in line]) >= 153


def test_a_match_without_its_header_in_a_folder_is_reported(tmp_path: Path) -> None:
    lines = FIXTURE.read_text().splitlines(keepends=True)
    (tmp_path / "headless.txt").write_text("".join(line for line in lines if "point match" not in line))
    (tmp_path / "notes.txt").write_text("a note, not a record\n")
    result = run("validate", str(tmp_path), "-f", "json")
    reports = {Path(r["path"]).name: r for r in json.loads(result.stdout)["files"]}
    assert set(reports) == {"headless.txt"} and "N point match" in reports["headless.txt"]["unreadable"]


def test_a_handout_analysed_again_carries_one_analysis(tmp_path: Path) -> None:
    first, second, deeper = tmp_path / "h1.nrd", tmp_path / "h2.nrd", tmp_path / "h3.nrd"
    assert run("analyse", str(FIXTURE), "-o", str(first)).exit_code == 0
    assert run("analyse", str(first), "-o", str(second)).exit_code == 0
    assert second.read_text() == first.read_text()
    assert run("analyse", str(first), "--ply", "1", "-o", str(deeper)).exit_code == 0
    assert "? ?" not in deeper.read_text() and "} {" not in deeper.read_text().replace("}\n{", "")
    notes = [line for line in deeper.read_text().splitlines() if "lost" in line]
    assert all(line.count("lost ") <= 2 for line in notes)


# ---------------------------------------------------------------------------
# 14. smaller

def test_names_reach_a_terminal_without_their_control_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from nardtools.cli.terminal import printable, terminal_text

    assert printable("Ann\x1b]0;owned\x07 \x9b2J\tok\n") == "Ann\\x1b]0;owned\\x07 \\x9b2J\tok\n"

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    with terminal_text():
        print("gn\x1b[2Jubg")
    assert screen.getvalue() == "gn\\x1b[2Jubg\n"


def test_an_output_keeps_its_mode_and_a_link_is_followed(tmp_path: Path) -> None:
    from nardtools._io import write_atomically

    private = tmp_path / "private.txt"
    private.write_text("old")
    private.chmod(0o600)
    write_atomically(private, "new")
    assert private.read_text() == "new" and private.stat().st_mode & 0o777 == 0o600
    link = tmp_path / "link.txt"
    link.symlink_to(private)
    write_atomically(link, "through the link")
    assert link.is_symlink() and private.read_text() == "through the link"


def test_a_cube_decision_that_costs_nothing_raises_no_alert() -> None:
    from nardtools.analysis.cubeful import CubeDecision

    close = CubeDecision(no_double=0.5, double_take=1.00003, double_pass=1.0)  # take 0.00003 worse than pass
    assert close.alert("take") is None and close.error("take") < 0.001
    assert CubeDecision(no_double=0.5, double_take=1.2, double_pass=1.0).alert("take") == "wrong take"


def test_debugging_is_off_for_zero() -> None:
    code = ("import os, sys; from nardtools.cli.common import debugging; "
            "sys.exit(debugging())")
    for value, on in (("0", False), ("", False), ("false", False), ("1", True), ("yes", True)):
        done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NARDTOOLS_DEBUG": value})
        assert done.returncode == int(on), value


def test_the_pip_line_after_a_hit_shows_the_opponents_new_count() -> None:
    from nardtools.analysis.annotate import annotate_game
    from nardtools.notation.mat import replay_text
    from nardtools.teaching.replay import describe

    text = " 1 point match\n\n Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5    64: 24/18 13/9\n  2) 66: 24/18(2) 13/7* 13/7\n"
    notes = annotate_game(replay_text(text).games[0])
    hit = notes[2]
    assert hit.pips_after[1] > hit.pips_before[1]
    line = next(s for s in describe(hit, ("A", "B")) if s.startswith("Pips:"))
    assert line.endswith(f"B {hit.pips_before[1]} → {hit.pips_after[1]}.")


def test_the_pip_plot_ends_on_the_final_position() -> None:
    from nardtools.analysis.annotate import annotate_game
    from nardtools.analysis.plots import plot_pips
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match

    game = replay_match(read_record(FIXTURE)).games[0]
    notes = annotate_game(game)
    fig = plot_pips(notes, ("gnubg", "root"))
    ends = [tuple(line.get_xydata()[-1]) for line in fig.axes[0].get_lines()]
    last = notes[-1]
    after = {last.player: last.pips_after[0], 1 - last.player: last.pips_after[1]}
    assert ends == [(last.index + 1, after[0]), (last.index + 1, after[1])]


def test_a_header_that_follows_a_misstated_result_stands(tmp_path: Path) -> None:
    """Game 1's record says 1 point where the game is worth 2 (warned of there);
    game 2's header follows the record's figure: no second warning, and game 2
    is played at the header's score."""
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match

    text = FIXTURE.read_text()
    assert "Wins 2 points" in text.split(" Game 2")[0]
    head, rest = text.split(" Game 2", 1)
    path = tmp_path / "misstated.mat"
    path.write_text(head.replace("Wins 2 points", "Wins 1 point") + " Game 2" + rest.replace(
        "root : 2", "root : 1", 1))
    replayed = replay_match(read_record(path))
    assert [p.rule for p in replayed.games[0].problems] == ["result"]
    assert replayed.games[1].problems == [] and replayed.games[1].game.score == (0, 1)


def test_a_misstated_result_is_counted_by_the_core_as_the_reference_counts_it(tmp_path: Path) -> None:
    """Issue 60, archives of real size: a record whose result is not the
    game's worth (a warning) no longer sends its file to the slow path; the
    core's rows are the reference's, the warning counted."""
    from nardtools.analysis.stats.collection import core_file_stats, file_stats_from_record
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match
    from nardtools.notation.validate import vouched

    path = tmp_path / "misstated.mat"
    path.write_text(FIXTURE.read_text().replace("Wins 2 points", "Wins 1 point", 1))
    fast = core_file_stats(str(path))
    reference = file_stats_from_record(replay_match(read_record(path), lenient=True))
    assert fast is not None and fast.games == reference.games
    assert [g["warnings"] for g in fast.games] == [1, 0, 0, 0]
    assert (fast.luck, fast.race, fast.rolls) == (reference.luck, reference.race, reference.rolls)
    assert vouched(str(path)) is None  # validate still hands it to the reference, which says so


@needs_corpus
def test_a_resignation_whose_figure_is_not_its_worth_is_counted_by_the_core() -> None:
    from nardtools.analysis.stats.collection import core_file_stats, file_stats_from_record
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match

    require_corpus()
    path = next((CORPUS / "bglab-llabba").glob("Minchy - Llabba*"))  # game 10: "Wins 4016 points", worth 12
    fast = core_file_stats(str(path))
    reference = file_stats_from_record(replay_match(read_record(path), lenient=True))
    assert fast is not None and fast.games == reference.games and fast.games[-1]["warnings"] == 1
