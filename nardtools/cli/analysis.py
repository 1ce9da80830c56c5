"""Commands of analysis of one position: pip counts and race odds."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import AnalysisError
from .common import (
    EncodingOpt,
    FormatOpt,
    GameOpt,
    OutputFormat,
    PlayerOpt,
    RulesOpt,
    SourceArg,
    TurnOpt,
    command,
    fail,
    read_source,
)
from .output import echo_json, output_path

if TYPE_CHECKING:
    from ..analysis.reports import RaceReport

PANEL = "Analysis"


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    command(app, "pips", PANEL)(pips_command)
    command(app, "race", PANEL)(race_command)


def pips_command(
    position: SourceArg,
    game: GameOpt = None,
    turn: TurnOpt = None,
    player: PlayerOpt = None,
    rules: RulesOpt = None,
    epc: Annotated[bool, typer.Option("--epc/--no-epc", help="Effective pip counts for sides "
                   "bearing off (uses the 6-point bear-off database, built on first use).")] = True,
    encoding: EncodingOpt = None,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Pip counts, and the counting rules in a backgammon race.

    The rules (Kleinman, Thorp, Keith, 8-9-12, Trice) are shown with their
    formulas; the side on roll is the leader L."""
    from ..analysis.reports import pip_report

    source = read_source(position, rules, game, turn, player, encoding=encoding)
    report = pip_report(source.setup, epc=epc)
    data = report.as_dict()
    if fmt is OutputFormat.json:
        echo_json(data)
        return
    typer.echo(data["position"])
    for label, side in zip(("on roll", "other"), data["sides"]):
        extra = f", EPC {side['epc']:.2f} (wastage {side['wastage']:.2f})" if side["epc"] is not None else ""
        typer.echo(f"  {label:<8} {side['pips']:>3} pips{extra}")
    for c in report.counts:
        typer.echo(f"  {c}")
    if report.counts_note:
        typer.echo(f"  ({report.counts_note})")


class CubeOwner(str, enum.Enum):
    centred = "centred"
    owned = "owned"


def race_command(
    position: Annotated[str, typer.Argument(help="A race position (any notation; '; cube 2 X; score "
                        "1-3/7' adds the match state) or a record file.")],
    game: GameOpt = None,
    turn: TurnOpt = None,
    player: PlayerOpt = None,
    rules: Annotated[str | None, typer.Option("--rules", "-r", help="Ruleset whose scoring table "
                     "values the outcomes and whose cube the verdicts are for (default: the game's usual "
                     "one, or the record's).")] = None,
    trials: Annotated[int, typer.Option(min=100, max=10_000_000, help="One-sided rollout trials for "
                      "sides outside the bear-off database.")] = 2000,
    race_db: Annotated[int | None, typer.Option("--race-db", min=2, max=12, help="Bear-off database "
                       "points (default: the smallest cached one both sides fit, else 6).")] = None,
    cube_owner: Annotated[CubeOwner | None, typer.Option("--cube-owner", help="For the money hint: "
                          "the cube centred or owned by the side on roll (default: from the position).")] = None,
    x: Annotated[float, typer.Option("--cube-efficiency", "-x", min=0.0, max=1.0, help="Janowski's cube "
             "efficiency for the money hint.")] = 0.68,
    met: Annotated[Path | None, typer.Option("--met", help="A match equity table (CSV, see "
                   "docs/race.md) for the match hint (default: Kazaross-XG2).")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", help="Draw the distributions to this "
                    ".png or .svg file.")] = None,
    two_sided: Annotated[bool, typer.Option("--two-sided", help="Also the exact two-sided P(win) "
                         "(both sides home with at most six checkers each; cubeless).")] = False,
    encoding: EncodingOpt = None,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Race odds for the side on roll, with cube verdicts and counting rules.

    Exact (the one-sided formula) when both sides fit the bear-off database,
    else a labelled estimate with its standard error; the cube verdicts of
    those odds (money, and match play when the position says the score)."""
    from ..analysis.cube import read_met
    from ..analysis.reports import race_report

    if plot is not None:
        output_path(plot, (".png", ".svg"), "plot")
    source = read_source(position, rules, game, turn, player, encoding=encoding)
    try:
        report = race_report(source.setup, source.ruleset, trials=trials, db_points=race_db,
                             cube_owner=cube_owner.value if cube_owner else None, x=x,
                             met=read_met(met) if met else None, two_sided=two_sided)
    except AnalysisError as e:
        if source.match is None:
            raise
        raise fail(f"{position}, game {game or 1}" + (f", turn {turn}" if turn else ", after the last play")
                   + f": {e}") from None
    pos, odds = source.setup.position, report.odds
    if plot is not None:
        from ..analysis.plots import plot_race, save_figure

        names = source.names
        mover = names[pos.player] or "XO"[pos.player]
        other = names[1 - pos.player] or "XO"[1 - pos.player]
        save_figure(plot_race(odds, (f"{mover} (on roll)", other)), plot)
    if fmt is OutputFormat.json:
        echo_json(report.as_dict())
        return
    _print_race(report)


def _print_race(report: RaceReport) -> None:
    """A race report as text: the odds, each side's figures, the cube and the counting rules."""
    pos, odds = report.setup.position, report.odds
    typer.echo(str(pos))
    typer.echo(f"  {odds.method}")
    err = f" ± {odds.stderr:.4f}" if odds.stderr is not None else ""
    mars = "mars" if pos.kind.value == "long" else "gammon"
    typer.echo(f"  P(win) {odds.p_win:.4f}{err}   P({mars}) {odds.p_gammon:.4f}   "
               f"P(lose {mars}) {odds.p_lose_gammon:.4f}")
    if pos.kind.value == "long":
        typer.echo(f"  P(home mars) {odds.p_home_mars:.4f}   P(lose home mars) {odds.p_lose_home_mars:.4f}")
    typer.echo(f"  expected points at cube 1 ({report.ruleset.label} scoring): {odds.expected_points:+.4f}")
    if report.two_sided_p_win is not None:
        typer.echo(f"  exact two-sided P(win) {report.two_sided_p_win:.4f} (each side playing to win; "
                   f"the one-sided formula says {odds.p_win:.4f})")
    for label, side in zip(("on roll", "other"), odds.sides):
        typer.echo(f"  {label:<8} {side.pips:>3} pips, {side.expected_rolls:.3f} rolls, EPC {side.epc:.2f}"
                   + ("" if side.exact else " (estimated)"))
    for hint in report.cube:
        typer.echo(f"  cube, {hint}")
    if report.cube_note:
        typer.echo(f"  ({report.cube_note})")
    for c in report.counts:
        typer.echo(f"  {c}")
    if report.counts_note:
        typer.echo(f"  ({report.counts_note})")
    for note in odds.notes:
        typer.echo(f"  note: {note}")
