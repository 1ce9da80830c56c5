"""Commands about play: the rulesets, the legal plays of a roll, one play's
verdict, and random self-play."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import NardtoolsError
from .common import (
    ExitCode,
    FirstTurnOpt,
    FormatOpt,
    OutputFormat,
    PositionArg,
    QuietOpt,
    RulesOpt,
    SetOpt,
    command,
    fail,
    read_position,
    ruleset,
)
from .output import echo_json, progress

if TYPE_CHECKING:
    from ..engine import LegalPlays
    from ..rules import Ruleset

PANEL = "Play"


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    command(app, "rules", PANEL)(rules_command)
    command(app, "moves", PANEL)(moves_command)
    command(app, "check", PANEL)(check_command)
    command(app, "selfplay", PANEL)(selfplay_command)


def rules_command(
    name: Annotated[str | None, typer.Argument(help="Show this ruleset's options.")] = None,
    settings: SetOpt = None,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """List the named rulesets, or show every option of one."""
    from ..rules import rulesets

    if name is None:
        data = [r.as_dict() for r in rulesets()]
        if fmt is OutputFormat.json:
            echo_json(data)
            return
        for d in data:
            alias = f" (also {', '.join(d['aliases'])})" if d["aliases"] else ""
            typer.echo(f"{d['name']:<20} {d['game']:<11} {d['summary']}{alias}")
        return
    rs = ruleset(name, settings)
    report = rs.as_dict(options=True)
    if fmt is OutputFormat.json:
        echo_json(report)
        return
    typer.echo(f"{rs.name}: {rs.summary} [seed {rs.seed}]")
    for r in report["options"]:
        typer.echo(f"  {r['option']:<16} {r['value']:<18} {r['doc']}")


def _moves(text: str, dice: str, rules: str | None, settings: list[str] | None,
           first_turn: bool | None) -> tuple[str, LegalPlays]:
    """The ruleset's name and the legal plays of ``dice`` in the position ``text``."""
    from ..dice import Roll
    from ..engine import legal_plays

    setup, rs = read_position(text, rules, settings)
    return rs.name, legal_plays(setup.position, Roll.parse(dice), rs.rules, first_turn=first_turn)


def _batch(path: Path, settings: list[str] | None, first_turn: bool | None) -> list[tuple[str, LegalPlays]]:
    """The reports of a ``RULESET | POSITION | DICE`` file, one per line."""
    from ..notation.sniff import read_text_file

    reports = []
    for lineno, line in enumerate(read_text_file(path).splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3:
            raise fail(f"{path}:{lineno}:1: expected RULESET | POSITION | DICE, got {line.strip()[:60]!r}")
        try:
            reports.append(_moves(parts[1], parts[2], parts[0] or None, settings, first_turn))
        except NardtoolsError as e:
            raise fail(f"{path}:{lineno}: {e}") from None
    if not reports:
        raise fail(f"{path}: no `RULESET | POSITION | DICE` lines in it")
    return reports


def moves_command(
    position: Annotated[str | None, typer.Argument(
        help="A position: `start`, position text, a gnubg Position ID[:Match ID] (`long:ID` for Long "
        "Nardy) or an XGID.")] = None,
    dice: Annotated[str | None, typer.Argument(help="The roll, e.g. 64.")] = None,
    rules: RulesOpt = None,
    settings: SetOpt = None,
    first_turn: FirstTurnOpt = None,
    batch: Annotated[Path | None, typer.Option(
        "--batch", "-b", help="Read `RULESET | POSITION | DICE` lines from a file instead.")] = None,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """List every legal play of a roll: one per distinct resulting position."""
    if batch is not None:
        if position is not None or dice is not None:
            raise fail("give POSITION and DICE, or --batch FILE, not both")
        reports = _batch(batch, settings, first_turn)
    elif position is None or dice is None:
        raise fail("give POSITION and DICE, or --batch FILE")
    else:
        reports = [_moves(position, dice, rules, settings, first_turn)]
    if fmt is OutputFormat.json:
        documents = [{"ruleset": name, **plays.as_dict()} for name, plays in reports]
        echo_json(documents if batch else documents[0])
        return
    for name, plays in reports:
        typer.echo(f"{plays.position}  dice {plays.roll}  [{name}]: "
                   f"{len(plays)} legal play{'s' if len(plays) != 1 else ''}")
        for i, p in enumerate(plays, 1):
            typer.echo(f"  {i:>3}. {str(p.play) or '(no move)'}")


def check_command(
    position: PositionArg,
    dice: Annotated[str, typer.Argument(help="The roll, e.g. 64.")],
    play: Annotated[str, typer.Argument(help="The play, e.g. '24/18 13/11' (quote it).")],
    rules: RulesOpt = None,
    settings: SetOpt = None,
    first_turn: FirstTurnOpt = None,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Judge one play: legal, or the rule that fired and the legal plays instead.

    Exits 1 when the play is illegal."""
    from ..dice import Roll
    from ..engine import legal_plays
    from ..judge import check_play

    setup, rs = read_position(position, rules, settings)
    roll = Roll.parse(dice)
    j = check_play(setup.position, roll, play, rs.rules, first_turn=first_turn)
    instead = [] if j.legal else legal_plays(setup.position, roll, rs.rules, first_turn=first_turn)
    report = {"ruleset": rs.name, **j.as_dict(), "legal_plays": [str(p.play) for p in instead]}
    if fmt is OutputFormat.json:
        echo_json(report)
    elif j.legal:
        typer.echo(f"legal: {j.play}\nresult: {j.result}")
        if j.warning:
            typer.echo(f"warning: {j.warning}", err=True)
    else:
        alternatives = report["legal_plays"]
        typer.echo(j.message)
        typer.echo(f"legal plays ({len(alternatives)}): " + ", ".join(a or "(no move)" for a in alternatives[:12])
                   + (" ..." if len(alternatives) > 12 else ""))
    if not j.legal:
        raise typer.Exit(int(ExitCode.FINDINGS))


def selfplay_command(
    rules: Annotated[str, typer.Option("--rules", "-r", help="Ruleset name or alias.")] = "long",
    settings: SetOpt = None,
    games: Annotated[int, typer.Option("--games", "-n", min=1, max=10_000_000, help="How many games.")] = 10,
    seed: Annotated[int, typer.Option(min=0, max=2**64 - 1, help="Random seed: the same games with either engine.")] = 1,
    check: Annotated[bool, typer.Option("--check/--no-check", help="Play every game again through the readable "
                                        "reference engine and report any play it would not allow.")] = True,
    show: Annotated[bool, typer.Option("--show", help="Print every turn.")] = False,
    fmt: FormatOpt = OutputFormat.text,
    quiet: QuietOpt = False,
) -> None:
    """Play random games, check every play with the reference engine, and summarise.

    The compiled core plays when it is built; --no-check skips the check."""
    from ..playout import selfplay

    rs: Ruleset = ruleset(rules, settings)
    with progress(games, "playing", quiet or show) as advance:
        summary = selfplay(rs, games, seed, check=check, on_turn=(lambda line: typer.echo(line)) if show else None,
                           on_game=advance)
    if fmt is OutputFormat.json:
        echo_json(summary)
    else:
        checked = (f"every play checked by the reference, {len(summary['differences'])} differences"
                   if summary["checked"] else "not checked")
        typer.echo(f"{summary['games']} games under {summary['ruleset']} ({summary['engine']} engine): "
                   f"{summary['turns']} turns, {checked}; {summary['seconds']:.2f} s")
        for kind, n in sorted(summary["outcomes"].items()):
            typer.echo(f"  {kind:<12} {n}")
        for line in summary["differences"][:20]:
            typer.echo(f"  difference: {line}")
    if summary["differences"]:
        raise typer.Exit(int(ExitCode.FINDINGS))
