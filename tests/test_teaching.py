"""Annotations, board images, the terminal replay and the `show`/`replay` commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nardtools import Play, Position
from nardtools.analysis.annotate import annotate_game, race_equity
from nardtools.cli import app
from nardtools.notation.ids import Setup, parse_setup
from nardtools.notation.mat import replay_text
from nardtools.notation.reading import read_record
from nardtools.notation.replay import replay_match
from nardtools.teaching.board_image import _R, board_figure, save_board
from nardtools.teaching.replay import describe, replay_terminal

from .corpus import CORPUS, needs_corpus

ROOT = Path(__file__).resolve().parent.parent
ANNOTATED = ROOT / "examples" / "teaching" / "long-annotated.nrd"
runner = CliRunner()


def test_annotations_of_the_annotated_example() -> None:
    match = replay_match(read_record(ANNOTATED))
    notes = annotate_game(match.games[0])
    first = notes[0]
    # 1. X 43: 24/20/17 -- one checker from the head; the record's comment comes along
    assert (first.dice, first.play, first.player) == ("43", "24/20/17", 0)
    assert first.forced  # 24/20/17 and 24/21/17 end the same: one legal play
    assert first.comments and "head" in first.comments[0]
    assert first.pips_before == (360, 360) and first.pips_after == (353, 360)
    assert first.persian == "jar-se"
    assert [n.glyphs for n in notes if n.glyphs] == [("!",), ("?!",), ("??",)]
    # 40. X 44: - nothing can be played: forced, all four dice lost
    blocked = next(n for n in notes if n.turn == 40 and n.player == 0)
    assert blocked.forced and blocked.play == "" and blocked.dice_lost == 4 and blocked.dice_used == 0
    assert "No legal play" in " ".join(describe(blocked, ("white", "black")))


def test_race_figures_hand_checked() -> None:
    # X has one checker on its 1-point, O one on its 6: X wins whatever it rolls.
    text = (" 1 point match\n\n Game 1\n A : 0    B : 0\n"
            "  1) 31: 8/5 6/5    42: 8/4 6/4\n")
    notes = annotate_game(replay_text(text).games[0])
    assert not any(n.race for n in notes)  # the opening is no race
    end = Position.parse("backgammon X 2:1,1:1 / 6:2,0:13")
    equity, p_win = race_equity(end)  # type: ignore[misc]
    assert p_win == pytest.approx(1.0) and equity == pytest.approx(1.0)  # any roll bears both off (1-1 plays 2/1/off, 1/off)
    behind = Position.parse("backgammon X 6:2 / 1:1")
    e2 = race_equity(behind)
    assert e2 is not None and e2[1] == pytest.approx(4 / 36)  # only doubles 3-3..6-6 bear off 6,6


@needs_corpus
def test_race_figures_on_gnubg_bear_offs() -> None:
    """gnubg's own bear-off plays, judged by our exact race figures: the
    identities hold, and gnubg (which plays these from its own database)
    almost never loses race equity."""
    errors = []
    for path in sorted((CORPUS / "gnubg-selfplay").glob("gnubg-standard-*.mat"))[:8]:
        for game in replay_match(read_record(path)).games:
            for n in annotate_game(game):
                if not n.race_exact:
                    continue
                assert n.luck == pytest.approx(n.equity_best - n.equity_before)  # type: ignore[operator]
                assert n.race_error is not None and n.race_error >= 0
                assert n.race_error == 0 or n.best_play != n.play
                assert -2 <= n.equity_after <= 2 and 0 <= n.pwin_after <= 1  # type: ignore[operator]
                errors.append(n.race_error)
    assert len(errors) > 50
    assert sum(errors) / len(errors) < 0.005 and sum(e > 0.05 for e in errors) <= 1


def test_board_image_draws_every_checker_and_arrow(tmp_path: Path) -> None:
    setup = parse_setup("backgammon O bar:1,24:1,13:4,11:1,8:3,6:5 / 24:1,22:1,13:5,8:2,7:1,6:5; dice 33")
    fig = board_figure(setup, names=("a", "b"), last_play=Play.parse("13/7 8/7"))
    ax = fig.axes[0]
    checkers = [p for p in ax.patches if getattr(p, "radius", None) == _R]
    expected = sum(min(n, 5) for side in (setup.position.mover, setup.position.opponent) for n in side[1:26])
    assert len(checkers) == expected
    arrows = [p for p in ax.patches if type(p).__name__ == "FancyArrowPatch"]
    assert len(arrows) == 2
    numbers = {t.get_text() for t in ax.texts}
    assert {str(q) for q in range(1, 25)} <= numbers
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml")):
        path = save_board(tmp_path / f"b{suffix}", setup)
        assert path.read_bytes().startswith(magic)
    long_path = save_board(tmp_path / "long.png", Setup(Position.start("long"), dice=(6, 5)))
    assert long_path.stat().st_size > 10_000
    with pytest.raises(ValueError, match=r"png or \.svg"):
        save_board(tmp_path / "b.jpg", setup)


def test_terminal_replay_steps_on_enter() -> None:
    match = replay_match(read_record(ANNOTATED))
    answers = iter(["", "", "q"])
    out: list[str] = []
    shown = replay_terminal(match, ask=lambda prompt: next(answers), show=out.append, persian=True)
    assert shown == 3
    assert "Long Nardy" in out[0] and "the start" in out[0]
    assert "white rolled 43 (jar-se): 24/20/17" in out[1]


def test_cli_show_and_replay(tmp_path: Path) -> None:
    result = runner.invoke(app, ["show", "4HPwATDgc/ABMA:cAkAAAAAAAAA"])
    assert result.exit_code == 0 and result.output.startswith(" GNU Backgammon  Position ID: 4HPwATDgc/ABMA")
    image = tmp_path / "board.svg"
    result = runner.invoke(app, ["show", str(ANNOTATED), "--turn", "12", "--image", str(image)])
    assert result.exit_code == 0 and "Long Nardy" in result.output and image.exists()
    result = runner.invoke(app, ["show", str(ANNOTATED), "--turn", "999"])
    assert result.exit_code == 2 and "no turn 999" in result.output
    page = tmp_path / "replay.html"
    result = runner.invoke(app, ["replay", str(ANNOTATED), "--output", str(page)])
    assert result.exit_code == 0 and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    result = runner.invoke(app, ["replay", str(ANNOTATED)])
    assert result.exit_code == 2


def test_an_applied_illegal_play_is_annotated_with_its_rule() -> None:
    from nardtools.notation.native import read_native
    from nardtools.teaching.replay import game_frames

    record = read_native('[Game "long"]\n[Ruleset "long"]\n\n1. X 65: 24/18 24/19 O 31: 24/21/20\n*\n')
    match = replay_match(record, lenient=True)  # as `nardtools replay` does
    frames = game_frames(match.games[0], match.record.names)
    assert "Illegal play applied (rule: head-rule)." in frames[1].lines
    assert not any("Illegal" in line for line in frames[2].lines)


def test_positions_games_and_replays_show_themselves_in_notebooks():
    from nardtools import Game, Position, read_games
    from nardtools.notation.reading import read_record
    from nardtools.notation.replay import replay_match
    from nardtools.teaching.notebook import register

    class Formatter:  # IPython's, as far as registration goes
        def __init__(self) -> None:
            self.shown: dict[tuple[str, str], object] = {}

        def for_type_by_name(self, module: str, name: str, show: object) -> None:
            self.shown[module, name] = show

    class Shell:
        display_formatter = type("F", (), {"formatters": {"image/svg+xml": Formatter(), "text/html": Formatter()}})

    assert register() is False  # no shell running here
    shell = Shell()
    assert register(shell)
    svg_of, html_of = (shell.display_formatter.formatters[m].shown for m in ("image/svg+xml", "text/html"))
    svg = svg_of["nardtools.position", "Position"](Position.start("long"))
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    game = Game("backgammon", seed=2)
    game.start(0)
    game.roll(3, 1)
    assert "<svg" in svg_of["nardtools.game", "Game"](game)
    match = replay_match(read_record(Path(__file__).parent / "fixtures" / "gnubg-standard-5-90001.mat"))
    page = html_of["nardtools.notation.replay", "ReplayedMatch"](match)
    assert page.startswith("<iframe srcdoc=") and "&lt;script" in page
    assert eval(repr(Position.start("long"))) == Position.start("long")  # repr stays evaluable
    assert next(read_games(Path(__file__).parent / "fixtures" / "gnubg-standard-5-90001.mat")).complete
