"""The annotated record a teacher hands out (issue 21): ``analyse -o`` keeps
the record whole (game, ruleset, players, match length, scores, results) and
carries the analysis as glyphs and readable comments; the analysis reports a
record's problems as ``validate`` does; every command refuses a ruleset of
the other game; and the smaller findings of the issue, each with its test."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nardtools import Position, read_record, replay_match
from nardtools.analysis.analyse import analyse_match
from nardtools.analysis.handout import handout
from nardtools.analysis.marks import GLYPHS
from nardtools.cli import app
from nardtools.notation.replay import ReplayedMatch

from .corpus import CORPUS, needs_corpus, require_corpus

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LONG = EXAMPLES / "long-nardy" / "long-5pt-seed1.mat"
BACKGAMMON = EXAMPLES / "backgammon" / "backgammon-5pt-seed6.mat"  # a match with cube actions
SGF = EXAMPLES / "backgammon" / "gnubg-5pt-analysed.sgf"
HANDOUT_SOURCES = [LONG, BACKGAMMON, SGF, EXAMPLES / "long-nardy" / "play65-long-5pt-seed4.mat",
                   EXAMPLES / "long-nardy" / "arena-3pt-seed6.nrd", EXAMPLES / "teaching" / "long-annotated.nrd"]


def _summary(match: ReplayedMatch) -> tuple[object, ...]:
    """What a handout must keep of its record."""
    games = [(g.record.number, g.record.score, None if g.game.outcome is None else
              (g.game.outcome.winner, g.game.outcome.points, str(g.game.outcome.kind))) for g in match.games]
    return (match.ruleset.rules.game, match.ruleset.label, match.record.players, match.record.length, games)


def _check_handout(source: Path, tmp_path: Path, ply: int = 0) -> str:
    match = replay_match(read_record(source))
    analysis = analyse_match(match, ply=ply)
    text = handout(match, analysis)
    back = replay_match(read_record("handout.nrd", text))
    assert back.errors == [], back.errors[:3]
    assert _summary(back) == _summary(match)
    # the analysis rides along: a glyph for every mark, a comment for every play that was not the best
    turns = [t for ts in analysis.games.values() for t in ts]
    marked = sum(t.mark is not None for t in turns)
    # (and each double's and answer's mark: a missed double's verdict is a comment on its roll)
    marked += sum(c.mark is not None and c.action != "no double" for cs in analysis.cubes.values() for c in cs)
    glyphs = [gl for g in back.record.games for a in g.actions for gl in a.glyphs if gl in GLYPHS.values()]
    original = [gl for g in match.record.games for a in g.actions for gl in a.glyphs if gl in GLYPHS.values()]
    assert len(glyphs) == len(original) + marked
    lost = [t for t in turns if t.error is not None and t.error >= 1e-9]
    comments = [c for g in back.record.games for a in g.actions for c in a.after if "best " in c and ", lost " in c]
    assert len(comments) >= len(lost) > 0
    assert back.record.tag("Annotator").startswith("nardtools ")
    return text


@pytest.mark.parametrize("source", HANDOUT_SOURCES, ids=lambda p: p.name)
def test_the_handout_keeps_the_record_whole(source, tmp_path):
    _check_handout(source, tmp_path)


def test_the_long_nardy_handout_of_the_issue(tmp_path):
    # issue 21: it began '[Result "*"]' and read back as backgammon, with 9 errors
    out = tmp_path / "ln-annot.nrd"
    result = runner.invoke(app, ["analyse", str(LONG), "--game", "1", "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith('[Game "long"]\n[Ruleset "long"]\n[X "white"]\n[O "black"]\n[MatchLength "5"]')
    back = replay_match(read_record(out))
    assert back.errors == [] and len(back.games) == 1 and back.games[0].complete  # only the game analysed
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0
    said = runner.invoke(app, ["analyse", str(LONG), "--game", "2", "-o", str(out)])
    assert "game 2 of 9, annotated" in said.stderr


@needs_corpus
def test_handouts_of_corpus_matches(tmp_path):
    require_corpus()
    for folder in ("bglab-llabba", "gnubg-selfplay"):
        first = sorted((CORPUS / folder).iterdir())[0]
        _check_handout(first, tmp_path)


@pytest.mark.slow
@needs_corpus
def test_handouts_of_the_whole_corpus(tmp_path):
    require_corpus()
    for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mat", ".txt", ".sgf")):
        _check_handout(path, tmp_path)


# ---------------------------------------------------------------------------
# 2. The analysis reports the problems of a record, as validate does

def _illegal(tmp_path: Path, source: Path, cell: str, wrong: str) -> Path:
    text = source.read_text()
    assert cell in text
    bad = tmp_path / f"bad-{source.name}"
    bad.write_text(text.replace(cell, wrong, 1))
    return bad


BAD_BACKGAMMON = ("  4) 63: 25/22 8/2 ", "  4) 63: 25/22 8/1 ")  # 8/1 is no die of 63
BAD_LONG = ("  3) 41: 24/20/19 ", "  3) 41: 24/20/18 ")


def test_the_analysis_reports_an_illegal_play_and_exits_1(tmp_path):
    bad = _illegal(tmp_path, BACKGAMMON, *BAD_BACKGAMMON)
    result = runner.invoke(app, ["analyse", str(bad), "--format", "json", "-q"])
    assert result.exit_code == 1
    assert f"{bad}:10:10: game 1, turn 4 (white, 63): illegal play" in result.stderr
    assert "[no-such-die]" in result.stderr
    report = json.loads(result.stdout)
    assert [p["rule"] for p in report["problems"]] == ["no-such-die"]
    game1 = report["games"][0]["turns"]
    assert [t["turn"] for t in game1][-1] == 3 and len(report["games"]) == 3  # what could be replayed
    lenient = runner.invoke(app, ["analyse", str(bad), "--lenient", "--format", "json", "-q"])
    assert lenient.exit_code == 1 and len(json.loads(lenient.stdout)["games"][0]["turns"]) > 3


# ---------------------------------------------------------------------------
# 3. A ruleset of the other game is refused by every command

@pytest.mark.parametrize("record, rules", [(BACKGAMMON, "long"), (LONG, "backgammon"), (SGF, "nardionline")],
                         ids=["bg-long", "long-bg", "sgf-nardionline"])
@pytest.mark.parametrize("command", [
    ["analyse", "{f}"], ["replay", "{f}", "-o", "{out}/r.html"], ["convert", "{f}", "{out}/c.nrd"],
    ["show", "{f}", "-g", "1"], ["pips", "{f}", "-g", "1"], ["hint", "{f}", "31", "-g", "1"],
    ["eval", "{f}", "-g", "1"], ["race", "{f}", "-g", "1"], ["validate", "{f}"]], ids=lambda c: c[0])
def test_a_ruleset_of_the_other_game_is_refused(tmp_path, record, rules, command):
    args = [a.replace("{f}", str(record)).replace("{out}", str(tmp_path)) for a in command] + ["--rules", rules]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"ruleset {rules!r} is for" in result.output and "but the record is" in result.output
    assert not list(tmp_path.iterdir())  # nothing written


# ---------------------------------------------------------------------------
# 4. No cube and no Crawford game where the ruleset has no cube

def test_long_nardy_without_a_cube_draws_none_and_has_no_crawford_game():
    from nardtools.teaching.board_image import board_figure
    from nardtools.teaching.replay import page_data

    match = replay_match(read_record(LONG))
    assert not match.ruleset.rules.cube
    at_four = [g for g in match.games if 4 in g.record.score]
    assert at_four and not any(g.game.crawford for g in match.games)
    data = page_data(match)
    assert data["cube"] is False and not any(g["crawford"] for g in data["games"])
    assert data["ruleset"] == "long" and data["game_name"] == "Long Nardy"
    setup = match.setup_at(5, 3)
    figure = board_figure(setup, cube=match.ruleset.rules.cube)
    assert "64" not in [t.get_text() for t in figure.axes[0].texts]
    with_cube = replay_match(read_record(EXAMPLES / "long-nardy" / "play65-long-5pt-seed4.mat"))
    assert with_cube.ruleset.rules.cube and page_data(with_cube)["cube"] is True
    assert "64" in [t.get_text() for t in board_figure(Position.start("backgammon")).axes[0].texts]


def test_the_crawford_rule_needs_a_cube():
    from nardtools import find_ruleset
    from nardtools.game import Match

    for name, expected in (("long", False), ("play65-long", True), ("backgammon", True)):
        m = Match(find_ruleset(name), 5)
        m.score = (4, 2)
        assert m.new_game().crawford is expected, name


# ---------------------------------------------------------------------------
# 5. hint and eval take --player

def test_hint_and_eval_show_the_player_asked_for():
    first = runner.invoke(app, ["hint", str(LONG), "31", "--turn", "5", "--format", "json"])
    second = runner.invoke(app, ["hint", str(LONG), "31", "--turn", "5", "--player", "1", "--format", "json"])
    assert first.exit_code == second.exit_code == 0
    match = replay_match(read_record(LONG))
    assert json.loads(first.stdout)["position"] == str(match.setup_at(1, 5, player=0).position)
    assert json.loads(second.stdout)["position"] == str(match.setup_at(1, 5, player=1).position)
    assert json.loads(second.stdout)["position"].startswith("long O ")
    evaluated = runner.invoke(app, ["eval", str(LONG), "--turn", "5", "--player", "1", "--format", "json"])
    assert json.loads(evaluated.stdout)["position"] == json.loads(second.stdout)["position"]


# ---------------------------------------------------------------------------
# 7. Progress for the long runs

def test_rollouts_and_one_file_stats_report_progress():
    from nardtools.analysis.rollout import rollout
    from nardtools.analysis.stats import collect

    ticks: list[int] = []
    rollout(Position.start("long"), "long", games=5, truncate=2, progress=lambda: ticks.append(1))
    assert len(ticks) == 5
    games: list[int] = []
    archive = collect([str(LONG)], jobs=1, on_game=lambda: games.append(1))
    assert len(games) == len(archive.games) == 9


# ---------------------------------------------------------------------------
# 9. The smaller ones

def test_stats_follows_the_output_suffix_and_refuses_a_contradiction(tmp_path):
    out = tmp_path / "out.parquet"
    refused = runner.invoke(app, ["stats", str(LONG), "--format", "csv", "-o", str(out)])
    assert refused.exit_code == 2 and "out.parquet" in refused.output and not out.exists()
    assert runner.invoke(app, ["stats", str(LONG), "-o", str(out), "-q"]).exit_code == 0
    assert out.read_bytes()[:4] == b"PAR1"  # the suffix decided
    csv = tmp_path / "out.csv"
    assert runner.invoke(app, ["stats", str(LONG), "-o", str(csv), "-q"]).exit_code == 0
    assert csv.read_text().startswith("file,")


def test_an_unreadable_file_is_named_once(tmp_path):
    (tmp_path / "bin.mat").write_bytes(b"\0\1\2binary")
    result = runner.invoke(app, ["stats", str(tmp_path)])
    line = next(line for line in result.stderr.splitlines() if "unreadable:" in line)
    assert line.count("bin.mat") == 1 and line == f"{tmp_path / 'bin.mat'}: unreadable: binary data, not a text record"


@needs_corpus
def test_a_race_tie_is_no_race_error():
    # gnubg self-play in which database ties came out as race errors of 3e-8 (1.4e-9 on average)
    from nardtools.analysis.annotate import annotate_game
    from nardtools.analysis.stats import collect

    require_corpus()
    path = CORPUS / "gnubg-selfplay" / "gnubg-standard-3-90016.mat"
    match = replay_match(read_record(path))
    errors = [n.race_error for g in match.games for n in annotate_game(g) if n.race_error is not None]
    assert len(errors) > 10 and all(e == 0.0 or e >= 1e-6 for e in errors)
    players = collect([str(path)]).frame("players")  # the compiled core's figures
    assert all(m == 0.0 or m >= 1e-6 for m in players["race_error_mean"].dropna())


def test_hint_refuses_a_finished_game_and_eval_says_it_is_over():
    over = "backgammon O 6:2,off:13 / off:15"  # X has borne off every checker
    hinted = runner.invoke(app, ["hint", over, "31"])
    assert hinted.exit_code == 2 and "the game is over (X has won, single)" in hinted.stderr
    evaluated = runner.invoke(app, ["eval", over, "--format", "json"])
    report = json.loads(evaluated.stdout)
    assert report["game_over"] == "single" and report["cube"] == []


def test_usage_errors_are_one_line():
    result = subprocess.run([sys.executable, "-m", "nardtools.cli", "moves", "start", "31", "--no-such-option"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: nardtools moves: No such option: --no-such-option")
    missing = subprocess.run([sys.executable, "-m", "nardtools.cli", "hint", "start"], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "Missing argument" in missing.stderr


def test_a_hit_mark_where_nothing_is_hit_is_a_warning():
    result = runner.invoke(app, ["check", "start", "31", "8/5 6/5*"])
    assert result.exit_code == 0
    assert "warning: '8/5 6/5*' marks a hit at 5, where no checker is hit" in result.stderr
    clean = runner.invoke(app, ["check", "start", "31", "8/5 6/5"])
    assert clean.exit_code == 0 and "warning" not in clean.stderr


def test_the_readme_says_the_two_commands_plainly():
    text = (ROOT / "README.md").read_text()
    setup = text[text.index("## Set-up"):text.index("## Quick tour")]
    blocks = re.findall(r"```\n(.*?)\n```", setup, flags=re.DOTALL)
    assert len(blocks) == 2 and "pip install" in blocks[0] and blocks[1] == "python -m pytest -q"
    assert ".sgf" in text[text.index("In a folder every"):][:200]


# ---------------------------------------------------------------------------
# The bad-input matrix of the analysis commands, both games

def _inputs(tmp_path: Path) -> dict[str, dict[str, Path]]:
    empty_long = tmp_path / "empty-long.mat"
    empty_long.write_text('; [Variation "LongNardy"]\n\n 5 point match\n')
    empty = tmp_path / "empty.mat"
    empty.write_text("")
    return {"backgammon": {"illegal": _illegal(tmp_path, BACKGAMMON, *BAD_BACKGAMMON), "record": BACKGAMMON,
                           "empty": empty},
            "long": {"illegal": _illegal(tmp_path, LONG, *BAD_LONG), "record": LONG, "empty": empty_long}}


OTHER_RULES = {"backgammon": "long", "long": "backgammon"}


@pytest.mark.parametrize("game", ["backgammon", "long"])
@pytest.mark.parametrize("command", ["analyse", "replay", "hint", "eval"])
@pytest.mark.parametrize("case", ["illegal", "other-ruleset", "finished", "empty"])
def test_the_analysis_commands_on_bad_input(tmp_path, game, command, case):
    files = _inputs(tmp_path)[game]
    record = files["illegal" if case == "illegal" else "empty" if case == "empty" else "record"]
    out = tmp_path / "out"
    out.mkdir()
    args = {"analyse": ["analyse", str(record), "-q"], "replay": ["replay", str(record), "-o", str(out / "r.html")],
            "hint": ["hint", str(record), "31", "-g", "1"], "eval": ["eval", str(record), "-g", "1"]}[command]
    if case == "other-ruleset":
        args += ["--rules", OTHER_RULES[game]]
    result = runner.invoke(app, args)
    assert "Traceback" not in result.output
    if case == "other-ruleset":
        assert result.exit_code == 2 and "but the record is" in result.stderr
    elif case == "empty":
        assert result.exit_code == 2 and str(record) in result.stderr and not (out / "r.html").exists()
    elif case == "illegal":
        if command in ("analyse", "replay"):  # validate's report and exit code
            assert result.exit_code == 1 and f"{record}:" in result.stderr and "[no-such-die]" in result.stderr
        else:  # the position after the last play comes through the illegal one: said
            assert result.exit_code == 0 and "warning:" in result.stderr and "[no-such-die]" in result.stderr
    else:  # game 1 played to its end
        if command == "hint":
            assert result.exit_code == 2 and "the game is over" in result.stderr
        elif command == "eval":
            assert result.exit_code == 0 and "game over:" in result.stdout
        else:
            assert result.exit_code == 0, result.output


@pytest.mark.oracle
def test_the_marks_thresholds_are_gnubgs():
    """Issue 24, point 4: the marks' thresholds as GNU Backgammon 1.07's
    ``show analysis`` prints them (doubtful 0.030, bad 0.060, very bad 0.120)."""
    from nardtools.analysis.marks import MARKS

    from .gnubg_oracle import GNUBG

    if GNUBG is None:
        pytest.skip("GNU Backgammon is not installed")
    shown = subprocess.run([GNUBG, "-t", "-q"], input="show analysis\n", capture_output=True, text=True,
                           timeout=60).stdout
    found = {name: float(value) for value, name in re.findall(r"-(\d\.\d+) (doubtful|bad|very bad)\n", shown)}
    assert found == {"doubtful": 0.03, "bad": 0.06, "very bad": 0.12}
    assert {mark: threshold for threshold, mark in MARKS} == \
        {"doubtful": found["doubtful"], "error": found["bad"], "blunder": found["very bad"]}
