"""GNU Backgammon's SGF: read as gnubg writes it (checked against the same
match in ``.mat`` and against gnubg's own text export of its analysis),
written so that gnubg loads it, round trips through ``.mat`` and the native
format, and bad files refused with a located error.

The fixtures in ``tests/fixtures/sgf`` and ``examples/backgammon/gnubg-5pt-analysed.sgf``
were made by GNU Backgammon 1.07 from ``tests/fixtures/gnubg-standard-5-90001.mat``
(``tests/fixtures/sgf/make.sh``);
the corpus tests make more from the shared corpus when gnubg is installed."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nardtools.cli import app
from nardtools.notation.convert import convert
from nardtools.notation.reading import read_record
from nardtools.notation.record import ActionKind, RecordError
from nardtools.notation.replay import ReplayedMatch, replay_match
from nardtools.notation.sgf import read_sgf
from nardtools.notation.sgf_grammar import parse_trees
from nardtools.notation.sgf_writer import export_sgf

from .corpus import CORPUS, needs_corpus, whole_corpus_when_slow
from .gnubg_oracle import GNUBG

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
PLAIN = FIXTURES / "sgf" / "gnubg-standard-5-90001.sgf"
ANALYSED = ROOT / "examples" / "backgammon" / "gnubg-5pt-analysed.sgf"
MAT = FIXTURES / "gnubg-standard-5-90001.mat"
EXAMPLES = sorted(ROOT.glob("examples/**/*.mat")) + sorted(ROOT.glob("examples/**/*.nrd"))
runner = CliRunner()


def _summary(match: ReplayedMatch, ruleset: bool = True) -> tuple:
    """What a record says, whatever its format: the match (and the ruleset
    it is replayed under), and per game its score, every play (canonical)
    and cube action in order, and the outcome."""
    games = []
    for g in match.games:
        plays = {id(t.action): str(t.play) for t in g.turns}
        acts = [(a.player, a.kind.value, plays.get(id(a), "")) for a in g.record.actions
                if id(a) in plays or a.kind in (ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.DROP,
                                                ActionKind.BEAVER)]
        outcome = g.game.outcome
        games.append((g.record.number, g.record.score, acts,
                      (outcome.winner, outcome.points) if outcome else None))
    return match.record.length, match.record.players, match.ruleset.name if ruleset else "", games


def _comments(match: ReplayedMatch) -> list[str]:
    return [c for g in match.games for a in g.record.actions for c in (*a.before, *a.after)]


def test_gnubg_sgf_reads_as_the_same_match_as_its_mat():
    sgf, mat = replay_match(read_record(PLAIN)), replay_match(read_record(MAT))
    assert read_record(PLAIN).format == "sgf" and not sgf.problems
    assert _summary(sgf) == _summary(mat)
    assert sum(len(g.turns) for g in sgf.games) == sum(len(g.turns) for g in mat.games) > 100
    assert [a for a in _summary(sgf)[3][2][2] if a[1] == "double"]  # the match has cube actions


def _gnubg_cube_export(path: Path) -> list[dict[int, float]]:
    """Per game of gnubg's text export, by move number: the cubeless equity
    of its cube analysis before the roll."""
    games = []
    parts = sorted(path.parent.glob(path.stem + "_*.txt"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    for part in [path, *parts]:
        text = part.read_text(encoding="utf-8")
        found = {}
        for number, block in re.findall(r"\nMove number (\d+):(.*?)(?=\nMove number |\Z)", text, re.S):
            m = re.search(r"\n\d-ply cubeless equity ([-+]\d+\.\d+)", block)
            if m and " to play " in block.split("\n", 1)[0]:
                found[int(number)] = float(m[1])
        games.append(found)
    return games


def _gnubg_text_export(path: Path) -> list[dict[int, tuple[str, float, float, float]]]:
    """Per game of gnubg's text export (``NAME.txt``, ``NAME_002.txt``...), by
    move number (gnubg counts plays and cube actions): the dice, the luck, the
    equity of the play made (starred) and of the best (listed first)."""
    games = []
    parts = sorted(path.parent.glob(path.stem + "_*.txt"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    for part in [path, *parts]:
        found = {}
        text = part.read_text(encoding="utf-8")
        for number, block in re.findall(r"\nMove number (\d+):(.*?)(?=\nMove number |\Z)", text, re.S):
            m = re.search(r"Rolled (\d\d) \(([-+]?\d+\.\d+)\):\n(.*?)\n\n", block, re.S)
            if not m:
                continue
            moves = re.findall(r"^(\*?)\s+\d+\. Cubeful \d-ply\s+(.*?)\s+Eq\.:\s+([-+]?\d+\.\d+)", m[3], re.M)
            played = next((mv for mv in moves if mv[0]), None)
            if played is not None:  # (None: the play made is not among those listed)
                found[int(number)] = (m[1], float(m[2]), float(played[2]), float(moves[0][2]))
        games.append(found)
    return games


def _compare_with_text_export(match: ReplayedMatch, export: Path) -> int:
    """Check every analysed play the text export reports against ours; how many."""
    from nardtools.analysis.analyse import recorded_analysis

    analysed = recorded_analysis(match)
    reported = _gnubg_text_export(export)
    assert len(reported) == len(match.games)
    compared = 0
    for g, by_number in zip(match.games, reported):
        moves = [a for a in g.record.actions if a.kind in (ActionKind.ROLL, ActionKind.DOUBLE, ActionKind.TAKE,
                                                            ActionKind.DROP)]
        turn_of = {id(t.action): i for i, t in enumerate(g.turns)}
        ours = {t.index: t for t in analysed.get(g.record.number, [])}
        for number, (dice, luck, equity, best) in by_number.items():
            action = moves[number - 1]
            assert str(action.roll) in (dice, dice[::-1]), (g.record.number, number, action)
            t = ours[turn_of[id(action)]]
            # (gnubg prints three decimals of the values it stores with five or six)
            assert (t.luck, t.equity, t.best_equity) == pytest.approx((luck, equity, best), abs=5.1e-4), \
                (g.record.number, number, t)
            compared += 1
    return compared


def test_gnubg_analysis_is_read_as_gnubg_reports_it():
    from nardtools.teaching.replay import game_frames

    match = replay_match(read_record(ANALYSED))
    assert _summary(match) == _summary(replay_match(read_record(MAT)))
    export = FIXTURES / "sgf" / "gnubg-standard-5-90001-analysed.txt"
    assert _compare_with_text_export(match, export) > 100
    cubes = 0  # the cube analyses before the rolls: their cubeless equity as gnubg prints it
    for g, by_number in zip(match.games, _gnubg_cube_export(export)):
        moves = [a for a in g.record.actions if a.kind in (ActionKind.ROLL, ActionKind.DOUBLE, ActionKind.TAKE,
                                                            ActionKind.DROP)]
        for number, cubeless in by_number.items():
            review = moves[number - 1].review
            assert review is not None and review.cube is not None
            assert review.cube[0] == pytest.approx(cubeless, abs=5.1e-4), (g.record.number, number)
            cubes += 1
    assert cubes > 50
    lines = [line for f in game_frames(match.games[0], match.record.names) for line in f.lines]
    assert any(line.startswith("Cube before the roll (gnubg 0-ply): no double ") for line in lines)


def test_analysis_marks_and_comments_survive_sgf_and_the_native_format():
    match = replay_match(read_record(ANALYSED))
    reviews = [a.review for g in match.games for a in g.record.actions if a.review is not None]
    assert len(reviews) > 100 and all(r.raw for r in reviews)
    text, dropped = convert(match, "nrd")
    assert dropped == []
    # issue 21: a reader sees each review as one readable comment on its move; GNU Backgammon's
    # raw properties are kept out of the way, in one block at the end of each game
    assert "{gnubg 0-ply: best 24/18 18/14 +0.031 (played); luck +0.031}" in text
    assert text.count("{[%sgf-reviews") == len(match.games) and "{[%sgf A[" not in text
    body = re.sub(r"\{\[%sgf-reviews\n.*?\n\]\}", "", text, flags=re.DOTALL)
    assert "aggk" not in body and " ver 3 " not in body
    native = replay_match(read_record("m.nrd", text))
    assert [a.review for g in native.games for a in g.record.actions if a.review] == reviews
    assert not any(c.startswith("gnubg ") for g in native.games for a in g.record.actions for c in a.after)
    again = replay_match(read_record("m.sgf", export_sgf(native)))
    assert _summary(again) == _summary(match)
    assert [a.review for g in again.games for a in g.record.actions if a.review] == reviews
    assert [a.glyphs for g in again.games for a in g.record.actions] == \
        [a.glyphs for g in match.games for a in g.record.actions]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_round_trip_through_sgf(path: Path):
    match = replay_match(read_record(path))
    if any(a.part for g in match.games for a in g.record.actions):
        with pytest.raises(Exception, match="carried over"):
            export_sgf(match)
        return
    text = export_sgf(match)
    back = replay_match(read_record(path.with_suffix(".sgf").name, text))
    assert _summary(back) == _summary(match)
    assert sorted(_comments(back)) == sorted(_comments(match))
    assert export_sgf(back) == text  # written again, the same text
    if match.ruleset.rules.is_long:
        assert "GM[106]" in text and "GM[6]" not in text
    mat, _ = convert(back, "mat")
    assert _summary(replay_match(read_record("back.mat", mat))) == _summary(match)


def test_native_comments_and_glyphs_survive_sgf():
    text = ('[Game "backgammon"]\n[X "ann"]\n[O "bob"]\n[MatchLength "3"]\n\n'
            '1. X 31: 8/5 6/5 {a point [made\\]} ! O 64: 24/18/14 ?? {too bold}\n'
            '2. X double {early?} O take X 52: 13/8 13/11 !?\n*\n')
    match = replay_match(read_record("t.nrd", text))
    back = replay_match(read_record("t.sgf", export_sgf(match)))
    assert _summary(back) == _summary(match)
    assert _comments(back) == ["a point [made\\]", "too bold", "early?"]
    assert [a.glyphs for a in back.games[0].record.actions] == [("!",), ("??",), (), (), ("!?",)]


def test_native_variations_are_written_as_subtrees_and_read_back():
    text = ('[Game "backgammon"]\n[X "a"]\n[O "b"]\n\n1. X 31: 8/5 6/5 O 64: 24/18/14 (O 64: 24/14 {or}) '
            '(O 64: 13/7 13/9 {also}) 2. X 21: 13/11 6/5 {end}\n*\n')
    match = replay_match(read_record("v.nrd", text))
    written, dropped = convert(match, "sgf")
    assert dropped == [] and written.count("(;") == 4  # the game, and three branches
    back = replay_match(read_record("v.sgf", written))
    second = back.games[0].record.actions[1]
    assert [[(v.play, v.after) for v in var] for var in second.variations] == \
        [[("24/14", ("or",))], [("13/7 13/9", ("also",))]]
    assert _summary(back) == _summary(match) and _comments(back) == ["end"] and not back.errors
    assert export_sgf(back) == written


def test_variations_are_kept_as_the_records_variations():
    record = read_sgf("(;GM[6]MI[length:1][game:0][ws:0][bs:0];W[31hefe](;B[64aggk])(;B[64aglp]C[or this]))")
    _, second = record.games[0].actions
    assert second.play == "24/18 18/14" and len(second.variations) == 1
    assert second.variations[0][0].play == "24/18 13/9" and second.variations[0][0].after == ("or this",)
    match = replay_match(record)
    assert not match.errors and len(match.games[0].turns) == 2


def test_a_resignation_after_the_roll_and_a_board_set_up():
    record = read_sgf("(;GM[6]MI[length:5][game:0][ws:0][bs:0]PW[a]PB[b]RE[W+2R]"
                      ";W[31hefe];B[64aggk];PL[W]DI[66])")
    kinds = [(a.kind, str(a.roll) if a.roll else "") for a in record.games[0].actions]
    assert kinds[-2:] == [(ActionKind.RESIGN, "66"), (ActionKind.WIN, "")]
    match = replay_match(record)
    assert match.games[0].game.outcome.points == 2 and not match.errors
    assert "PL[W]DI[66]" in export_sgf(match) and "RE[W+2R]" in export_sgf(match)
    setup = read_sgf("(;GM[6]MI[length:0][game:0][ws:0][bs:0];PL[B]AE[a:y]AW[a][a][f]AB[x][x][y];B[31hefe])")
    board = setup.games[0].actions[0]
    assert board.kind is ActionKind.SET_BOARD and board.board is not None and board.board.player == 1
    assert board.board.side_of(0)[1] == 2 and board.board.side_of(0)[6] == 1 and board.board.side_of(1)[25] == 1


BAD = [
    ("(;GM[6]MI[length:3];W[31hefe]", "unbalanced brackets", (1, 30)),
    ("(;GM[6];C[open", "truncated file", (1, 15)),
    ("(;GM[6];C[ends with a backslash\\", "backslash", (1, 33)),
    ("(;GM[1]PB[go player])", "unknown game: GM[1]", (1, 3)),
    ("(;GM[6]\n;W[31hxqq])", None, None),  # a legal SGF value, an impossible play: the replay says so
    ("(;GM[6]\n;W[3]\n)", "cannot read the move W[3]", (2, 2)),
    ("(;GM[6])\n)", "expected '(' to start a game tree", (2, 1)),
    ("GM[6]", "unknown format", None),
    ("(;GM[6];W[31hefe]]", "expected a property name", (1, 18)),
    ("(;GM[6]W)", "has no value", (1, 9)),
    ("(;GM[6]RU[Hypergammon2];W[31hefe])", "not a variant nardtools knows", (1, 8)),
]


@pytest.mark.parametrize("text, message, where", BAD, ids=[b[0][:24] for b in BAD])
def test_bad_sgf_gives_a_located_error(text: str, message: str | None, where: tuple[int, int] | None):
    try:
        record = read_record("bad.sgf", text)
    except RecordError as e:
        assert message is not None and message in str(e) and where is None
        return
    errors = [e for e in record.errors if e.severity == "error"]
    if message is None:
        assert not errors and replay_match(record).errors
        return
    assert errors and message in errors[0].bare_message, [str(e) for e in errors]
    assert (errors[0].line, errors[0].col) == where
    assert errors[0].path == "bad.sgf"


def test_unknown_properties_are_skipped_with_a_warning():
    record = read_sgf("(;GM[6]MI[length:1][game:0][ws:0][bs:0]ZZ[x];W[31hefe]TB[aa])")
    assert [e.severity for e in record.errors] == ["warning", "warning"]
    assert "ZZ[x]" in str(record.errors[0]) and len(record.games[0].actions) == 1


def test_parse_trees_is_linear_on_long_values():
    text = "(;GM[6];C[" + "x\\]" * 200_000 + "])"
    assert len(next(parse_trees(text)).nodes[1][0].value) == 400_000


def test_every_command_that_reads_records_reads_sgf(tmp_path: Path):
    disguised = tmp_path / "match.txt"  # sniffed by content, not by name
    disguised.write_bytes(PLAIN.read_bytes())
    for args in (["validate", str(disguised)], ["stats", str(PLAIN)], ["pips", str(PLAIN), "--game", "2"],
                 ["analyse", str(PLAIN), "--game", "1", "--format", "json"],
                 ["show", str(PLAIN), "--game", "1", "--turn", "3"],
                 ["replay", str(PLAIN), "-o", str(tmp_path / "m.html")],
                 ["convert", str(PLAIN), str(tmp_path / "m.mat")],
                 ["convert", str(tmp_path / "m.mat"), str(tmp_path / "m.sgf")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
    assert _summary(replay_match(read_record(tmp_path / "m.sgf"))) == _summary(replay_match(read_record(MAT)))
    assert runner.invoke(app, ["validate", str(tmp_path)]).exit_code == 0


# ---------------------------------------------------------------------------
# GNU Backgammon as the oracle, on the shared corpus

needs_gnubg = pytest.mark.skipif(GNUBG is None and not os.environ.get("CI"), reason="GNU Backgammon is not installed")


def _gnubg(commands: list[str], tmp_path: Path) -> str:
    assert GNUBG is not None, "GNU Backgammon is required under CI"
    script = tmp_path / "run.cmd"
    script.write_text("\n".join(["set confirm new off", *commands]) + "\n", encoding="utf-8")
    done = subprocess.run([GNUBG, "-t", "-q", "-c", str(script)], capture_output=True, text=True, timeout=600)
    return done.stdout + done.stderr


def _corpus() -> list[Path]:
    return sorted(CORPUS.rglob("*.mat")) + sorted(CORPUS.rglob("*.txt"))


@needs_corpus
@needs_gnubg
@whole_corpus_when_slow
def test_gnubg_sgf_of_the_whole_corpus_reads_as_its_mat(tmp_path: Path, every: int):
    files = [f for f in _corpus() if f.name != "README.md"][::every]
    out = _gnubg([c for i, f in enumerate(files) for c in (f'import mat "{f}"', f'save match "{tmp_path}/{i}.sgf"')],
                 tmp_path)
    assert "WARNING" not in out
    games = 0
    for i, f in enumerate(files):
        sgf, mat = replay_match(read_record(tmp_path / f"{i}.sgf")), replay_match(read_record(f))
        # (gnubg keeps no cube limit: a .mat file's CubeLimit tag is not in its SGF)
        assert _summary(sgf, ruleset=False) == _summary(mat, ruleset=False), f
        assert not sgf.errors, (f, sgf.errors[:1])
        games += len(sgf.games)
        # and gnubg's SGF through the native format and back: nothing lost
        native = replay_match(read_record("m.nrd", convert(sgf, "nrd")[0]))
        again = replay_match(read_record("m.sgf", export_sgf(native)))
        assert _summary(again) == _summary(sgf) and sorted(_comments(again)) == sorted(_comments(sgf)), f
    assert len(files) >= 100 // every and games >= 700 // every


@pytest.mark.slow
@needs_corpus
@needs_gnubg
def test_gnubg_analysis_of_the_corpus_is_read_as_gnubg_reports_it(tmp_path: Path):
    """The 40 GNU Backgammon self-play matches, analysed by gnubg at 0-ply,
    saved and exported as text: the SGF reads as the .mat, and every analysed
    play's luck, equity and best equity is the text export's."""
    files = sorted((CORPUS / "gnubg-selfplay").glob("*.mat"))
    commands = ["set analysis chequerplay evaluation plies 0", "set analysis cubedecision evaluation plies 0"]
    for i, f in enumerate(files):
        commands += [f'import mat "{f}"', "analyse match", f'save match "{tmp_path}/{i}.sgf"',
                     f'export match text "{tmp_path}/{i}.txt"']
    assert "WARNING" not in _gnubg(commands, tmp_path)
    compared = games = 0
    for i, f in enumerate(files):
        match = replay_match(read_record(tmp_path / f"{i}.sgf"))
        assert _summary(match, ruleset=False) == _summary(replay_match(read_record(f)), ruleset=False), f
        games += len(match.games)
        compared += _compare_with_text_export(match, tmp_path / f"{i}.txt")
    assert len(files) == 40 and games > 100 and compared > 3000


@needs_corpus
@needs_gnubg
def test_gnubg_loads_our_sgf_and_replays_it_to_the_same_result(tmp_path: Path):
    files = [f for f in _corpus() if f.name != "README.md"] + [FIXTURES / "gnubg-standard-5-90001.mat"]
    commands = []
    for i, f in enumerate(files):
        (tmp_path / f"{i}.sgf").write_text(export_sgf(replay_match(read_record(f))), encoding="utf-8")
        commands += [f'load match "{tmp_path}/{i}.sgf"', f'export match mat "{tmp_path}/{i}.back.mat"']
    out = _gnubg(commands, tmp_path)
    assert "WARNING" not in out and "rror" not in out, out[:2000]
    for i, f in enumerate(files):
        ours = _summary(replay_match(read_record(f)))
        # ours read back, and written as .mat: the same match
        sgf = replay_match(read_record(tmp_path / f"{i}.sgf"))
        assert _summary(sgf) == ours and not sgf.errors, f
        assert _summary(replay_match(read_record("m.mat", convert(sgf, "mat")[0]))) == ours, f
        back = _summary(replay_match(read_record(tmp_path / f"{i}.back.mat")))
        # (gnubg writes "rolled, then resigned" as dice without a play: not a play either way)
        assert ours[:2] == back[:2] and [g[:2] + g[3:] for g in ours[3]] == [g[:2] + g[3:] for g in back[3]], f
        assert [g[2] for g in ours[3]] == [g[2] for g in back[3]], f


@needs_gnubg
def test_gnubg_reads_our_board_set_up_as_the_same_position(tmp_path: Path):
    from nardtools.setup import Setup

    text = ('[Game "backgammon"]\n[X "white"]\n[O "black"]\n[MatchLength "3"]\n\n'
            '= "backgammon X 6:5,8:3,13:5,20:2 / 6:5,8:3,13:5,24:1,bar:1"\n*\n')
    match = replay_match(read_record("b.nrd", text))
    board = match.games[0].record.actions[0].board
    assert board is not None and not match.errors
    sgf = tmp_path / "b.sgf"
    sgf.write_text(export_sgf(match), encoding="utf-8")
    out = _gnubg([f'load match "{sgf}"', "show board"], tmp_path)
    assert re.findall(r"Position ID: (\S+)", out)[-1] == Setup(board).position_id
    assert read_record(sgf).games[0].actions[0].board == board
