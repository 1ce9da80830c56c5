"""Commands of teaching: a position as a diagram or an image, a game as a
replay, and a game played against the evaluator with a tutor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    EncodingOpt,
    GameOpt,
    PlayerOpt,
    RulesOpt,
    SetOpt,
    SourceArg,
    TurnOpt,
    command,
    fail,
    read_source,
    replay_record,
    report_problems,
)
from .output import output_path, write_output

PANEL = "Teaching"


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    command(app, "show", PANEL)(show_command)
    command(app, "replay", PANEL)(replay_command)
    command(app, "play", PANEL)(play_command)


UnicodeOpt = Annotated[bool, typer.Option("--unicode", "-u", help="Box-drawing characters and round checkers.")]


def show_command(
    position: SourceArg,
    game: GameOpt = None,
    turn: TurnOpt = None,
    player: PlayerOpt = None,
    rules: RulesOpt = None,
    unicode: UnicodeOpt = False,
    image: Annotated[Path | None, typer.Option("--image", "-i", help="Also draw the board "
                     "to this .png or .svg file.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the diagram to this "
                      "file instead of the terminal.")] = None,
    names: Annotated[str | None, typer.Option("--names", help="Players' names, 'FIRST,SECOND' "
                     "(default: the record's).")] = None,
    encoding: EncodingOpt = None,
) -> None:
    """Draw a position as a text diagram, and optionally as an image.

    Backgammon in GNU Backgammon's frame, Long Nardy in its own."""
    from ..teaching.diagram import diagram

    if image is not None:
        output_path(image, (".png", ".svg"), "board image")
    if output is not None:
        output_path(output)
    if names is not None and names.count(",") != 1:
        raise fail(f"--names takes 'FIRST,SECOND', got {names!r}")
    source = read_source(position, rules, game, turn, player, encoding=encoding)
    shown = tuple(names.split(",", 1)) if names else source.names
    text = diagram(source.setup, shown, unicode=unicode)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_output(output, text)
        typer.echo(f"wrote {output}", err=True)
    if image is not None:
        from ..teaching.board_image import save_board

        save_board(image, source.setup, names=shown, cube=source.ruleset.rules.cube)
        typer.echo(f"wrote {image}", err=True)


def replay_command(
    record: Annotated[str, typer.Argument(help="A record file (`-` for standard input).")],
    game: GameOpt = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write one self-contained "
                      "HTML page here.")] = None,
    tui: Annotated[bool, typer.Option("--tui", help="Step through on the terminal (Enter for the "
                   "next turn, q to quit).")] = False,
    persian: Annotated[bool, typer.Option("--persian", help="Name each roll in Persian too "
                       "(shesh-besh, du-shesh...).")] = False,
    unicode: UnicodeOpt = False,
    rules: Annotated[str | None, typer.Option("--rules", "-r", help="Replay under this ruleset "
                     "instead of the one the record names.")] = None,
    encoding: EncodingOpt = None,
    analyse: Annotated[bool, typer.Option("--analyse", help="Add the evaluator's verdict on every turn: "
                       "the best play, the error and its mark, the luck (see `nardtools analyse`).")] = False,
    ply: Annotated[int, typer.Option("--ply", min=0, max=2, help="The analysis' look-ahead.")] = 0,
) -> None:
    """An annotated replay of a whole match, or of one game, as a page or on the terminal.

    Without --game the page holds every game of the match; --game N, one;
    --tui steps through one game on the terminal.

    Annotations: the dice and play of every turn, the record's comments and
    glyphs, forced moves, the number of legal plays, pip counts, race odds and
    race errors where exact, the rule of any illegal play (replayed leniently),
    the analysis the record carries (GNU Backgammon's, in SGF), and with
    --analyse the evaluator's best play, error mark and luck."""
    from ..analysis.analyse import recorded_analysis
    from ..teaching.replay import replay_html, replay_terminal

    if output is None and not tui:
        raise fail("say where the replay goes: --output replay.html, or --tui")
    if output is not None:
        output_path(output, (".html", ".htm"), "replay page")
    if tui and record == "-":
        raise fail("--tui reads the keys from standard input: give the record as a file")
    match = replay_record(record, rules, encoding=encoding, lenient=True)
    if not match.games:
        raise fail(f"{record}: no games to replay")
    numbers = {match.game(game).record.number} if game is not None or tui else None
    turns: dict[int, list[Any]] = dict(recorded_analysis(match))
    if analyse:
        from ..analysis.analyse import analyse_match

        done = analyse_match(match, ply=ply, games=numbers)
        turns = {number: done.entries(number) for number in done.games}  # plays and cube decisions
    if tui:
        replay_terminal(match, game, persian=persian, unicode=unicode,
                        analysis=turns.get(match.game(game).record.number, []))
    if output is not None:
        write_output(output, replay_html(match, game, persian=persian, analysis=turns))
        typer.echo(f"wrote {output}", err=True)
    report_problems(match.problems_of(numbers),
                    "the replay applies each illegal play that can be carried out and shows its rule")


def play_command(
    rules: Annotated[str, typer.Option("--rules", "-r", help="The ruleset (see `nardtools rules`); the "
                                       "evaluator covers long and backgammon and their readings.")] = "long",
    settings: SetOpt = None,
    side: Annotated[str, typer.Option("--as", help="Your side: X (first-named) or O.")] = "X",
    ply: Annotated[int, typer.Option("--ply", min=0, max=2, help="The bot's look-ahead (the tutor's too): "
                                     "0, 1 or 2.")] = 0,
    tutor: Annotated[bool, typer.Option("--tutor/--no-tutor", help="Warn before a play or cube action "
                                        "that loses at least 0.030 (doubtful).")] = True,
    seed: Annotated[int | None, typer.Option("--seed", min=0, max=2**31, help="The dice (default: chosen at "
                                             "random and printed, to play the same dice again).")] = None,
    match: Annotated[int, typer.Option("--match", min=0, max=64, help="A match to N points (0: one money "
                                       "game).")] = 0,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Where to save the game (.nrd, or "
                                                   ".mat/.sgf by suffix); default: a file in the current "
                                                   "folder, named on quit.")] = None,
    name: Annotated[str, typer.Option("--name", help="Your name in the record.")] = "you",
    evaluator: Annotated[str, typer.Option("--evaluator", help="nardtools, or gnubg (backgammon, needs "
                                           "gnubg-nn).")] = "nardtools",
    web: Annotated[bool, typer.Option("--web", help="Play in the browser: a page served on 127.0.0.1 (a free "
                                      "port, a token in its URL), opened for you.")] = False,
) -> None:
    """Play a game or a match against nardtools, with a tutor that warns of costly plays.

    Type plays in the usual notation, or moves, hint, undo, resign [LEVEL],
    quit; at the cube double or roll, take or pass; accept or reject when the
    bot resigns; keep after a warning.  When
    standard input is not a terminal, one command per line: before each of
    your plays a line `position: ...` gives the position with its dice, and
    the bot's plays come as `bot plays: ...`.  The game is saved as a record
    that validate, replay and analyse read."""
    import secrets
    import sys
    import time

    from ..teaching.tutor import Session
    from .common import ruleset

    if side.upper() not in ("X", "O"):
        raise fail(f"--as {side!r}: expected X or O")
    if output is not None:
        output_path(output, (".nrd", ".mat", ".sgf"), "game record")
    if seed is None:
        seed = secrets.randbelow(2**31)
    session = Session(ruleset(rules, settings), human="XO".index(side.upper()), ply=ply, tutor=tutor, seed=seed,
                      match=match, names=(name, "nardtools"), evaluator=evaluator)
    path = output or Path(f"nardtools-play-{time.strftime('%Y%m%d-%H%M%S')}.nrd")
    typer.echo(f"seed: {seed} (--seed {seed} plays the same dice again)")
    if web:
        from ..teaching.play_web import play_in_browser

        play_in_browser(session, path, say=typer.echo)
        return
    from ..teaching.play_terminal import play_in_terminal

    play_in_terminal(session, path, interactive=sys.stdin.isatty(), say=typer.echo)
