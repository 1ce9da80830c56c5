"""Archive statistics: the tables agree with the records, turn rows by hand,
dice tests, output formats, plots, and the Dask path equal to the local one."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nardtools.analysis.plots import plot_dice, plot_openings, plot_outcomes, save_figure, wilson
from nardtools.analysis.stats import SCHEMAS, chi2_sf, collect, dice_row, file_stats
from nardtools.cli import app
from nardtools.errors import AnalysisError
from nardtools.notation.reading import expand_paths, read_record
from nardtools.notation.replay import replay_match

from .corpus import CORPUS, needs_corpus

ROOT = Path(__file__).resolve().parent.parent

FIXTURE = ROOT / "tests" / "fixtures" / "gnubg-standard-5-90001.mat"
runner = CliRunner()
MULTIPLIER = {"single": 1, "gammon": 2, "backgammon": 3}


@needs_corpus
def test_games_table_agrees_with_the_records() -> None:
    archive = collect([CORPUS], jobs=2)
    files = expand_paths([CORPUS])
    assert archive.files == len(files) and not archive.unreadable
    rows = {(g["file"], g["game"]): g for g in archive.games}
    expected_games = 0
    for path in files:
        record = read_record(path)
        for grec in record.games:
            expected_games += 1
            row = rows[(path, grec.number)]
            assert (row["score0"], row["score1"]) == grec.score
            result = grec.result
            if result is None:
                assert row["winner_side"] is None or row["result_source"] == "replay"
                continue
            where = f"{path} game {grec.number}"
            assert row["winner_side"] == result.player, where
            # names that differ only in case are one player (the first spelling met)
            assert row["winner"].casefold() == (record.players[result.player] or "XO"[result.player]).casefold(), where
            assert row["record_points"] == result.value, where
            if row["points"] != result.value:  # a record that scores its own result wrongly is flagged
                match = replay_match(record)
                assert any(p.rule == "result" and p.game == grec.number for p in match.problems), where
            if result.note:
                assert row["outcome"] == result.note, where
            if row["ending"] == "bear-off" and row["variant"] != "long":
                # the kind the engine saw at the end, times the cube, is what the record scored
                assert row["points"] == row["cube"] * MULTIPLIER[row["outcome"]], where
    assert len(archive.games) == expected_games


def test_turn_rows_by_hand() -> None:
    stats = file_stats(str(FIXTURE), turns=True)
    turns = [t for t in stats.turns.rows() if t["game"] == 1]
    first, second = turns[0], turns[1]
    # 1) root 64: 24/18 18/14 -- the opening: 167 pips each, 10 pips used
    assert (first["player"], first["dice"], first["play"]) == ("root", "64", "24/18/14")
    assert (first["pips_before"], first["pips_opponent"], first["pips_after"]) == (167, 167, 157)
    assert first["dice_used"] == 2 and first["dice_lost"] == 0 and not first["race"]
    # 2) gnubg 21: 13/11* 24/23 -- hits the blot on root's 14 (gnubg's 11)
    assert (second["player"], second["dice"], second["play"]) == ("gnubg", "21", "24/23 13/11*")
    assert (second["pips_before"], second["pips_opponent"], second["pips_after"]) == (167, 157, 164)
    # 2) root 51: 25/20 24/23 -- enters from the bar: 157 + 11 for the hit checker
    third = turns[2]
    assert third["play"] == "bar/20 24/23" and third["pips_before"] == 157 + 11
    game = stats.games[0]
    assert (game["winner"], game["outcome"], game["points"], game["ending"], game["cube"]) == \
        ("root", "single", 2, "drop", 2)


def test_chi_square_and_dice_rows() -> None:
    assert chi2_sf(0, 5) == 1.0
    assert chi2_sf(9.236357, 5) == pytest.approx(0.1, abs=1e-6)  # the 90% point of chi2(5)
    assert chi2_sf(6.634897, 1) == pytest.approx(0.01, abs=1e-6)
    assert chi2_sf(37.56623, 20) == pytest.approx(0.01, abs=1e-6)
    rng = random.Random(5)
    fair = Counter("".join(map(str, sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True)))
                   for _ in range(20000))
    row = dice_row("fair", fair)
    assert row["rolls"] == 20000 and sum(row[f"face{f}"] for f in range(1, 7)) == 40000
    assert row["face_p_value"] > 0.001 and row["roll_p_value"] > 0.001
    assert row["doubles_rate"] == pytest.approx(1 / 6, abs=0.01)
    loaded = Counter(dict(fair.items()))
    loaded["66"] += 300  # a die that likes sixes
    assert dice_row("loaded", loaded)["face_p_value"] < 1e-6
    assert dice_row("nobody", Counter())["rolls"] == 0


def test_opening_rolls_are_left_out_of_backgammon_fairness() -> None:
    # backgammon's opening roll is the two players' single dice, never a double
    stats = file_stats(str(FIXTURE))
    rolled = sum(sum(c.values()) for c in stats.rolls.values())
    played = len(stats.turns) if stats.turns is not None else None  # (turn rows not asked for)
    assert played is None
    turns = list(file_stats(str(FIXTURE), turns=True).turns.rows())
    assert rolled == len([t for t in turns if t["index"] > 0])


def test_unreadable_files_are_listed_not_fatal(tmp_path: Path) -> None:
    good = tmp_path / "good.mat"
    good.write_bytes(FIXTURE.read_bytes())
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b"\xff\xfe\x00garbage 5 point match")
    archive = collect([good, bad])
    assert archive.files == 2 and len(archive.unreadable) <= 1
    assert len(archive.games) == len(read_record(good).games)


def test_cli_formats_and_dtypes(tmp_path: Path) -> None:
    examples = str(ROOT / "examples")
    out = tmp_path / "turns.parquet"
    result = runner.invoke(app, ["stats", examples, "--table", "turns", "--format", "parquet", "--output",
                                 str(out), "-q"])
    assert result.exit_code == 0, result.output
    turns = pd.read_parquet(out)
    assert {c: str(t) for c, t in turns.dtypes.items()} == SCHEMAS["turns"]
    for table in ("games", "players", "dice"):
        path = tmp_path / f"{table}.parquet"
        assert runner.invoke(app, ["stats", examples, "--table", table, "-f", "parquet", "-o", str(path),
                                   "-q"]).exit_code == 0
        frame = pd.read_parquet(path)
        assert {c: str(t) for c, t in frame.dtypes.items()} == SCHEMAS[table]
    games = pd.read_parquet(tmp_path / "games.parquet")
    assert games["turns"].sum() == len(turns)
    csv = tmp_path / "turns.csv"
    assert runner.invoke(app, ["stats", examples, "--table", "turns", "-f", "csv", "-o", str(csv), "-q"]).exit_code == 0
    assert len(pd.read_csv(csv)) == len(turns)
    js = tmp_path / "turns.json"
    assert runner.invoke(app, ["stats", examples, "--table", "turns", "-f", "json", "-o", str(js), "-q"]).exit_code == 0
    assert len(json.loads(js.read_text())) == len(turns)
    grouped = runner.invoke(app, ["stats", examples, "--group-by", "variant,outcome", "-f", "csv", "-q"])
    frame = pd.read_csv(pd.io.common.StringIO(grouped.output))
    assert frame["rows"].sum() == len(games)
    bad = runner.invoke(app, ["stats", examples, "--group-by", "nonsense", "-q"])
    assert bad.exit_code == 2 and "no column 'nonsense'" in bad.output
    shown = runner.invoke(app, ["stats", examples, "--table", "players", "-q"])
    assert shown.exit_code == 0 and "players (4 rows)" in shown.output and "white" in shown.output  # and gnubg, root


def test_plots_png_and_svg(tmp_path: Path) -> None:
    archive = collect([ROOT / "examples"])
    for fig, name in ((plot_dice(archive.all_rolls()), "dice"), (plot_outcomes(archive.games), "outcomes"),
                      (plot_openings(archive.games), "openings")):
        assert save_figure(fig, tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")
    for kind in ("dice", "outcomes", "openings"):
        svg = tmp_path / f"{kind}.svg"
        result = runner.invoke(app, ["plot", kind, str(ROOT / "examples"), "--output", str(svg), "-q"])
        assert result.exit_code == 0 and svg.read_text().startswith("<?xml")
    pips = tmp_path / "pips.png"
    result = runner.invoke(app, ["plot", "pips", str(FIXTURE), "--game", "2", "--output", str(pips), "-q"])
    assert result.exit_code == 0 and pips.stat().st_size > 5000
    assert runner.invoke(app, ["plot", "pips", str(FIXTURE), "--output", str(tmp_path / "x.jpg")]).exit_code == 2
    low, high = wilson(50, 100)
    assert low < 0.5 < high and math.isclose(low + high, 1.0)


def _forward_threads() -> int:
    from nardtools.core import forward_threads

    before = forward_threads(1)
    forward_threads(before)
    return before


@needs_corpus
def test_dask_path_gives_the_same_tables() -> None:
    pytest.importorskip("dask.distributed")
    from dask.distributed import Client, LocalCluster

    from nardtools.analysis.stats import Archive, run_dask

    paths = expand_paths([CORPUS / "gnubg-selfplay"])[:12]
    local = collect(paths, turns=True, jobs=1)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        remote = Archive(keep_turns=True)
        for stats in run_dask(paths, turns=True, client=client):
            remote.add(stats)
        threads = client.run(_forward_threads)  # (the cluster spreads the files: one thread per task)
    assert set(threads.values()) == {1}, threads
    remote.games.sort(key=lambda g: (g["file"], g["game"]))
    for table in ("games", "players", "dice", "turns"):
        a, b = local.frame(table), remote.frame(table)
        if table == "turns":
            a, b = (f.sort_values(["file", "game", "index"]).reset_index(drop=True) for f in (a, b))
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


def test_grouped_turns_stream_to_the_same_table() -> None:
    from nardtools.analysis.stats import GroupSink, group

    kept = collect([ROOT / "examples"], turns=True)
    sink = GroupSink("turns", ["player", "forced"])
    streamed = collect([ROOT / "examples"], turns=True, sink=sink)
    assert not streamed.turns and sink.rows == sum(len(t) for t in kept.turns)
    expected = group(kept.frame("turns"), ["player", "forced"])
    pd.testing.assert_frame_equal(sink.frame(), expected, check_exact=False, rtol=1e-12)
    with pytest.raises(AnalysisError, match="no column 'nonsense'"):
        GroupSink("turns", ["nonsense"])


@pytest.mark.parametrize("name", ["long-5pt-seed1.mat", "nardionline-7pt-seed2.mat", "yellowclub-5pt-seed5.mat"])
def test_race_figures_of_the_core_and_the_reference_agree_under_each_scoring_table(name, monkeypatch) -> None:
    """One equity (issue 22): the race figures are probabilities times the
    ruleset's points in the compiled core and in the reference alike (the core
    counted a home mars as a mars and valued both at 2; under nardionline a
    home mars is worth 3)."""
    from nardtools.analysis import stats

    path = str(ROOT / "examples" / "long-nardy" / name)
    fast = stats.file_stats(path, turns=True)
    assert fast.turns is not None
    monkeypatch.setattr(stats.collection, "core_file_stats", lambda *a, **k: None)
    slow = stats.file_stats(path, turns=True)
    assert slow.turns is not None
    rows = [(a, b) for a, b in zip(fast.turns.rows(), slow.turns.rows())]
    raced = [(a, b) for a, b in rows if a["race_exact"]]
    assert len(rows) == len(list(slow.turns.rows())) and len(raced) > 20
    for a, b in raced:
        for key in ("pwin_before", "pwin_after", "luck", "race_error"):
            assert a[key] == pytest.approx(b[key], abs=1e-6), (key, a["game"], a["turn"])


def test_race_equity_values_a_home_mars_by_the_scoring_table() -> None:
    """In a 6-point race both sides are home, so a mars is a home mars: worth 3
    under nardionline, 2 under long (the hard-coded 2P - 1 + Pg - Plg counted 2 for both)."""
    from nardtools import Position, find_ruleset
    from nardtools.analysis.annotate import race_equity
    from nardtools.analysis.race import race_odds

    position = Position.parse("long X 2:1,1:1 / 6:5,5:5,4:5")  # X bears off in a roll or two; O has none off
    odds = race_odds(position, db_points=6)
    assert odds.p_home_mars == pytest.approx(odds.p_gammon) and odds.p_gammon > 0.9
    long_equity, _ = race_equity(position, 6, find_ruleset("long").rules)
    online, _ = race_equity(position, 6, find_ruleset("nardionline").rules)
    p, g = odds.p_win, odds.p_gammon
    assert long_equity == pytest.approx((p - g) * 1 + g * 2 - (1 - p), abs=1e-9)
    assert online == pytest.approx((p - g) * 1 + g * 3 - (1 - p), abs=1e-9)


def test_a_given_encoding_keeps_the_compiled_path_for_plain_ascii(monkeypatch) -> None:
    """Issue 22: --encoding turned the compiled path off; for a plain ASCII
    file every encoding that extends ASCII reads the same text."""
    from nardtools.analysis.stats import collection as stats

    path = str(ROOT / "examples" / "long-nardy" / "nardionline-7pt-seed2.mat")
    plain = stats.file_stats(path, turns=True)
    calls: list[str | None] = []
    original = stats.core_file_stats

    def spy(*args: object, **kw: object) -> object:
        calls.append(kw.get("encoding"))  # type: ignore[arg-type]
        return original(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(stats, "core_file_stats", spy)
    given = stats.file_stats(path, turns=True, encoding="cp1251")
    assert calls == ["cp1251"] and given.games == plain.games
    assert given.turns is not None and plain.turns is not None
    assert list(given.turns.rows()) == list(plain.turns.rows())
    assert stats.core_file_stats(path, encoding="utf-16") is None  # UTF-16 reads ASCII otherwise: the reference


@pytest.mark.parametrize("name", ["long-nardy/long-5pt-seed1.mat", "backgammon/backgammon-5pt-seed6.mat"])
def test_the_cores_turn_columns_are_the_references_table(name, monkeypatch) -> None:
    """The turn rows the compiled core packs (text columns kept as codes and
    Arrow buffers) make the same Arrow table, frame and rows as the
    reference's replay, alone, renamed, and concatenated with each other."""
    from nardtools.analysis import stats

    path = str(ROOT / "examples" / name)
    fast = stats.file_stats(path, turns=True).turns
    monkeypatch.setattr(stats.collection, "core_file_stats", lambda *a, **k: None)
    slow = stats.file_stats(path, turns=True).turns
    assert fast is not None and slow is not None and len(fast) == len(slow) > 50
    assert isinstance(fast.columns["player"], stats.Coded) and isinstance(slow.columns["player"], list)
    pd.testing.assert_frame_equal(fast.arrow().to_pandas(), slow.arrow().to_pandas(), check_exact=False, rtol=1e-9)
    pd.testing.assert_frame_equal(fast.frame(), slow.frame(), check_exact=False, rtol=1e-9)
    names = stats.Names({"white": "Ann"})
    for t in (fast, slow):
        t.rename_players(names)
    both = stats.TurnColumns.concat([fast, slow, fast])
    table = both.arrow(["file", "player", "dice", "play", "luck"]).to_pandas()
    assert len(table) == 3 * len(fast) and "white" not in set(table["player"])
    assert table["play"].tolist() == 3 * [r["play"] for r in slow.rows()]
    assert [r["player"] for r in both.rows()] == table["player"].tolist()


def test_workers_take_runs_of_files_and_the_files_stay_in_order(tmp_path, monkeypatch) -> None:
    """run_local hands a worker STATS_RUN small files a task; a file too large
    to read at once is replayed here, in between; the results come in the
    files' order, as one process gives them."""
    from nardtools.analysis.stats import runners
    from nardtools.notation import source

    files = []
    for i in range(11):
        path = tmp_path / f"m{i:02d}.mat"
        path.write_bytes(FIXTURE.read_bytes())
        files.append(str(path))
    big = tmp_path / "m05.mat"
    big.write_bytes(FIXTURE.read_bytes() + b"\n" * 200)   # larger than the others: the one "too large" here
    monkeypatch.setattr(source, "IN_MEMORY", len(FIXTURE.read_bytes()) + 100)
    monkeypatch.setattr(runners, "STATS_RUN", 3)
    alone = [(s.path, s.games, len(s.turns)) for s in runners.run_local(files, turns=True, jobs=1)]
    many = [(s.path, s.games, len(s.turns)) for s in runners.run_local(files, turns=True, jobs=2)]
    assert many == alone and [p for p, _, _ in many] == files and all(g for _, g, _ in many)


@pytest.mark.parametrize("name", ["backgammon/backgammon-5pt-seed6.mat", "long-nardy/play65-long-5pt-seed4.mat"])
def test_an_analysed_file_the_core_reads_has_the_references_figures(name, monkeypatch) -> None:
    """With --analyse the compiled core's figures stand and the file is
    replayed only for the evaluator: its turn and player figures are those of
    the reference's replay, row for row."""
    from nardtools.analysis import stats

    path = str(ROOT / "examples" / name)
    fast = stats.file_stats(path, turns=True, analyse=0)
    assert stats.core_file_stats(path) is not None and fast.turns is not None and not fast.unreadable
    monkeypatch.setattr(stats.collection, "core_file_stats", lambda *a, **k: None)
    slow = stats.file_stats(path, turns=True, analyse=0)
    assert slow.turns is not None
    fast_rows, slow_rows = list(fast.turns.rows()), list(slow.turns.rows())
    assert len(fast_rows) == len(slow_rows) > 50
    assert sum(r["error"] is not None for r in fast_rows) > 50 and any(r["mark"] for r in fast_rows)
    for a, b in zip(fast_rows, slow_rows):
        for key in ("game", "index", "play", "best", "mark"):
            assert a[key] == b[key], (key, a["game"], a["index"])
        for key in ("error", "eval_luck", "luck", "pwin_before"):
            assert (a[key] is None) == (b[key] is None) and (a[key] is None or a[key] == pytest.approx(b[key], abs=1e-9))
    assert fast.analysis.keys() == slow.analysis.keys()
    for who in fast.analysis:
        assert fast.analysis[who] == slow.analysis[who]
    assert [g["game"] for g in fast.games] == [g["game"] for g in slow.games] and fast.turns_played == slow.turns_played


def test_games_the_evaluator_refuses_are_listed_as_not_analysed_not_as_illegal() -> None:
    """Under rules the networks refuse, stats --analyse still counts the
    games and says which were not analysed and why, from the compiled core's
    path (.mat) and the reference's (.nrd) alike; the games stay legal."""
    from nardtools.analysis import stats

    files = [str(ROOT / "examples" / "variants" / name) for name in ("hypergammon-3pt-seed8.mat", "gulbara-3pt-seed10.nrd")]
    archive = stats.collect(files, analyse=0)
    assert stats.core_file_stats(files[0]) is not None and stats.core_file_stats(files[1]) is None
    games = archive.frame("games")
    assert len(archive.unanalysed) == len(games) > 1 and not archive.problems and not archive.analysis
    assert all("network learned the" in why and "cannot evaluate them" in why for why in archive.unanalysed)
    assert {why.split(": game ")[0] for why in archive.unanalysed} == set(files)
    result = CliRunner().invoke(app, ["stats", *files, "--analyse", "--table", "players", "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert "illegal:" not in result.stderr and result.stderr.count("not analysed: ") == len(games)
    assert f"0 problems (games replayed leniently); {len(games)} games not analysed" in result.stderr


def test_the_players_table_is_folded_as_the_games_come_and_equals_the_games_tables_sums() -> None:
    """Without the games' rows kept (``stats --table players``: memory does
    not grow with the archive) the players table is the one folded from the
    games table by hand: games, wins, losses and points per player."""
    examples = [ROOT / "examples"]
    kept, folded = collect(examples, jobs=1), collect(examples, jobs=1, keep_games=False)
    assert folded.games == [] and folded.game_count == len(kept.games) > 20
    players = folded.frame("players").set_index("player")
    pd.testing.assert_frame_equal(kept.frame("players").set_index("player"), players)
    games = kept.frame("games")
    decided = games[games["winner_side"].notna()]
    for name in players.index:
        seated = [games["player0"] == name, games["player1"] == name]
        won = decided[((decided["player0"] == name) & (decided["winner_side"] == 0))
                      | ((decided["player1"] == name) & (decided["winner_side"] == 1))]
        assert players.loc[name, "games"] == seated[0].sum() + seated[1].sum()
        assert players.loc[name, "wins"] == len(won)
        assert players.loc[name, "points_won"] == won["points"].fillna(0).sum()


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_the_games_table_streams_to_a_file_as_the_table_in_memory_writes_it(tmp_path: Path, fmt: str,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """``stats --table games -o FILE`` writes the rows as they come, in
    chunks (three here), and the file is the text the table held in memory
    gives on standard output; Parquet reads back as the same frame."""
    from nardtools.analysis.stats import RowSink

    monkeypatch.setattr(RowSink, "CHUNK_ROWS", 12)
    # the table is sorted by file, and a file is counted once however often it is named
    folders = [str(ROOT / "examples" / "variants"), str(ROOT / "examples"),
               str(ROOT / "examples" / "variants" / ".." / "variants" / "dutch-3pt-seed9.nrd")]
    out = tmp_path / f"games.{fmt}"
    streamed = runner.invoke(app, ["stats", *folders, "--table", "games", "-o", str(out), "-q"])
    assert streamed.exit_code == 0, streamed.output
    in_memory = runner.invoke(app, ["stats", *folders, "--table", "games", "-f", fmt, "-q"])
    assert in_memory.exit_code == 0 and out.read_text(encoding="utf-8") == in_memory.stdout
    rows = len(json.loads(in_memory.stdout)) if fmt == "json" else in_memory.stdout.count("\n") - 1
    assert rows == len(collect([ROOT / "examples"], jobs=1).games) > 2 * RowSink.CHUNK_ROWS
    chosen = runner.invoke(app, ["stats", *folders, "--table", "games", "-c", "file,game,winner", "-o", str(out), "-q"])
    again = runner.invoke(app, ["stats", *folders, "--table", "games", "-c", "file,game,winner", "-f", fmt, "-q"])
    assert chosen.exit_code == 0 and out.read_text(encoding="utf-8") == again.stdout


def test_the_games_table_streams_to_parquet_and_reads_back_as_the_frame(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from nardtools.analysis.stats import RowSink

    monkeypatch.setattr(RowSink, "CHUNK_ROWS", 12)
    out = tmp_path / "games.parquet"
    assert runner.invoke(app, ["stats", str(ROOT / "examples"), "--table", "games", "-o", str(out), "-q"]).exit_code == 0
    expected = collect([ROOT / "examples"], jobs=1).frame("games")
    pd.testing.assert_frame_equal(pd.read_parquet(out), expected)
    empty = tmp_path / "none.json"
    sink = RowSink(empty, "json", "games")
    sink.close()
    assert json.loads(empty.read_text(encoding="utf-8")) == [] and not list(tmp_path.glob(".*.tmp"))
