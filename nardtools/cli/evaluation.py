"""The evaluator's commands: evaluate a position, rank the plays of a roll,
analyse a record."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..position import PLAYER_NAMES
from .common import (
    CrawfordOpt,
    CubeOpt,
    EncodingOpt,
    FormatOpt,
    GameOpt,
    OutputFormat,
    OwnerOpt,
    PlayerOpt,
    QuietOpt,
    RulesOpt,
    ScoreOpt,
    SetOpt,
    SourceArg,
    TurnOpt,
    command,
    fail,
    read_source,
    report_problems,
    weights_text,
    with_stakes,
)
from .output import echo_json

if TYPE_CHECKING:
    from ..analysis.analyse import MatchAnalysis
    from ..setup import Setup


def register(app: typer.Typer) -> None:
    """Add the evaluator's commands to ``app``."""
    command(app, "eval", panel="Analysis")(eval_command)
    command(app, "hint", panel="Analysis")(hint_command)
    command(app, "analyse", panel="Analysis")(analyse_command)


EvaluatorOpt = Annotated[str, typer.Option("--evaluator", help="nardtools (our network) or gnubg "
                                           "(GNU Backgammon's, backgammon only, needs gnubg-nn).")]
WeightsOpt = Annotated[Path | None, typer.Option("--weights", help="A network's weights file instead of "
                                                    "the shipped one (e.g. a training checkpoint).")]
PlyOpt = Annotated[int, typer.Option("--ply", min=0, max=2, help="Look-ahead: 0 (the network), 1 or 2.")]


def eval_command(
    position: SourceArg,
    ply: PlyOpt = 0,
    rules: RulesOpt = None,
    settings: SetOpt = None,
    game: GameOpt = None,
    turn: TurnOpt = None,
    player: PlayerOpt = None,
    evaluator: EvaluatorOpt = "nardtools",
    weights: WeightsOpt = None,
    rollout: Annotated[int, typer.Option("--rollout", min=0, max=1_000_000,
                                         help="Roll out this many games instead (0: no rollout).")] = 0,
    truncate: Annotated[int, typer.Option("--truncate", min=0, max=10_000,
                                          help="Stop each rollout game after this many plays (0: play on).")] = 0,
    luckless: Annotated[bool, typer.Option("--luckless", help=(
        "Take each roll's luck out of every rollout game (variance reduction: the same mean, a fraction of "
        "the standard error, some 20 times the cost a game)."))] = False,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**62, help="The rollout's dice.")] = 1,
    score: ScoreOpt = None,
    cube: CubeOpt = None,
    owner: OwnerOpt = None,
    crawford: CrawfordOpt = None,
    met: MetOpt = None,
    fmt: FormatOpt = OutputFormat.text,
    quiet: QuietOpt = False,
) -> None:
    """Evaluate a position: the probabilities of every outcome, the equity and the cube decision at the score.

    The cubeful equity and the cube decision use the position's own cube and
    score (a position text's suffix, a Match ID, an XGID), or --score,
    --cube, --owner and --crawford."""
    from ..analysis.analyse import at_stakes
    from ..analysis.evaluate import evaluate
    from ..analysis.rollout import rollout as roll_out
    from ..outcome import finished

    if (truncate or luckless) and not rollout:
        raise fail(f"{'--truncate' if truncate else '--luckless'} sets how a rollout is played: give --rollout too")
    source = read_source(position, rules, game, turn, player, settings=settings)
    setup, rs = with_stakes(source.setup, score, cube, owner, crawford), source.ruleset
    over = finished(setup.position, rs.rules)
    extra: dict[str, object] = {}
    if rollout:
        from .output import progress

        with progress(rollout, "rolling out", quiet or fmt is OutputFormat.json) as advance:
            done = roll_out(setup.position, rs.rules, rollout, truncate=truncate, seed=seed, luckless=luckless,
                            evaluator=evaluator, weights=weights_text(weights), progress=advance)
        result, extra = done.evaluation, {"games": done.games, "standard_error": done.standard_error}
    else:
        result = evaluate(setup.position, rs.rules, ply, evaluator=evaluator, weights=weights_text(weights))
    stakes = at_stakes(result, setup, rs.rules, _met(met)) if over is None else None  # (no cube after the game)
    decision = stakes["cube"] if stakes else None
    report = {"position": str(setup.position), "ruleset": rs.name, **result.as_dict(), **extra,
              "stakes": None if stakes is None else {"units": stakes["units"], "cubeful_equity":
                                                     stakes["cubeful_equity"], "cube_note": stakes["cube_note"]},
              "cube": [] if decision is None else [decision.as_dict()],
              "game_over": None if over is None else str(over.kind)}
    if fmt is OutputFormat.json:
        echo_json(report)
        return
    typer.echo(f"{setup.position}  [{rs.label}]")
    typer.echo(f"evaluator: {result.evaluator}")
    for name, value in result.probabilities.items():
        typer.echo(f"  {name.replace('_', ' '):<16} {100 * value:6.2f}%")
    error = f" ± {extra['standard_error']:.3f}" if extra else ""
    typer.echo(f"  {'equity':<16} {result.equity:+.3f}{error}  (cubeless, points per game at cube 1)")
    if stakes is not None:
        typer.echo(f"  {'cubeful':<16} {stakes['cubeful_equity']:+.3f}  ({stakes['units']}; "
                   f"{_stakes_text(setup)})")
        typer.echo(f"cube: {decision}" if decision is not None else f"cube: no double ({stakes['cube_note']})")
    if over is not None:
        typer.echo(f"game over: {PLAYER_NAMES[over.winner]} has won ({over.kind})")


MetOpt = Annotated[Path | None, typer.Option("--met", help="A match equity table (CSV) instead of the game's "
                                             "own.")]


def _met(path: Path | None) -> Any:
    from ..analysis.cube import read_met

    return read_met(path) if path is not None else None


def _stakes_text(s: Setup) -> str:
    """The cube and score of a setup, in words."""
    owner = "centred" if s.cube_owner is None else f"owned by {PLAYER_NAMES[s.cube_owner]}"
    where = f"score {s.score[0]}-{s.score[1]} to {s.match_length}" if s.match_length else "money play"
    return f"cube {s.cube} {owner}, {where}{', Crawford game' if s.crawford else ''}"


def hint_command(
    position: SourceArg,
    dice: Annotated[str, typer.Argument(help="The roll, e.g. 64.")],
    ply: PlyOpt = 0,
    top: Annotated[int, typer.Option("--top", min=1, help="Show the best K plays.")] = 10,
    rules: RulesOpt = None,
    settings: SetOpt = None,
    game: GameOpt = None,
    turn: TurnOpt = None,
    player: PlayerOpt = None,
    evaluator: EvaluatorOpt = "nardtools",
    weights: WeightsOpt = None,
    score: ScoreOpt = None,
    cube: CubeOpt = None,
    owner: OwnerOpt = None,
    crawford: CrawfordOpt = None,
    met: MetOpt = None,
    money: Annotated[bool, typer.Option("--money", help="Rank by cubeless money equity, the score and the "
                     "cube ignored.")] = False,
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Rank the legal plays of a roll by equity at the score, each with its loss against the best.

    Cubeful at the position's cube and score (or --score, --cube, --owner,
    --crawford); --money ranks by cubeless money equity."""
    from ..analysis.analyse import Judge
    from ..analysis.cubeful import CubeState
    from ..analysis.evaluate import hint
    from ..dice import Roll
    from ..outcome import finished

    roll = Roll.parse(dice)
    source = read_source(position, rules, game, turn, player, settings=settings)
    setup, rs = with_stakes(source.setup, score, cube, owner, crawford), source.ruleset
    over = finished(setup.position, rs.rules)
    if over is not None:
        raise fail(f"{setup.position}: the game is over ({PLAYER_NAMES[over.winner]} has won, {over.kind}): "
                   "no plays to rank")
    judge = Judge.for_match(rs.rules, setup.match_length, money=money, met=_met(met))
    state = CubeState.of_setup(setup, rs.rules)
    units = judge.units
    ranked = hint(setup.position, roll, rs.rules, ply, evaluator=evaluator, weights=weights_text(weights),
                  value=judge.play_value(state))
    report = {"position": str(setup.position), "dice": str(roll), "ruleset": rs.name, "units": units,
              "count": len(ranked), "plays": [r.as_dict() for r in ranked[:top]]}
    if fmt is OutputFormat.json:
        echo_json(report)
        return
    typer.echo(f"{setup.position}  dice {roll}  [{rs.label}]: {len(ranked)} legal "
               f"play{'s' if len(ranked) != 1 else ''}; {units}"
               + ("" if money else f", {_stakes_text(setup)}"))
    for i, r in enumerate(ranked[:top], 1):
        loss = f"-{r.loss:.3f}" if i > 1 else "      "
        typer.echo(f"  {i:>3}. {str(r.play) or '(no move)':<28} {r.equity:+.3f} {loss}  {r.evaluation.evaluator}")


def analyse_command(
    path: Annotated[str, typer.Argument(help="A record file (`-` for standard input).")],
    ply: PlyOpt = 0,
    game: GameOpt = None,
    rules: RulesOpt = None,
    settings: SetOpt = None,
    evaluator: EvaluatorOpt = "nardtools",
    weights: WeightsOpt = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the analysed games as the "
                                                   "annotated record a teacher hands out (.nrd): the record's "
                                                   "header, marks as glyphs, the best plays as comments.")] = None,
    lenient: Annotated[bool, typer.Option(help="Apply an illegal but physically possible play and go on "
                       "(as validate --lenient).")] = False,
    money: Annotated[bool, typer.Option("--money", help="Judge by cubeless money equity, the score and the "
                     "cube ignored (no cube decisions).")] = False,
    met: Annotated[Path | None, typer.Option("--met", help="A match equity table (CSV, see docs/analysis.md) "
                   "instead of the game's own (Kazaross-XG2; nardtools' for Long Nardy).")] = None,
    mwc: Annotated[bool, typer.Option("--mwc", help="In a match, show the errors as match winning chances "
                   "lost (percent) instead of EMG.")] = False,
    encoding: EncodingOpt = None,
    fmt: FormatOpt = OutputFormat.text,
    quiet: QuietOpt = False,
) -> None:
    """Analyse a record: every play's and cube decision's error, every roll's luck, each player's rates.

    Matches are judged at the score (cubeful, in EMG through a match equity
    table), money games by cubeful money equity; --money judges cubelessly.

    The record is replayed first, as `validate` does: each problem is
    reported on stderr (FILE:LINE:COL and the rule), a game's replay stops
    at its first illegal play (--lenient: applies it if it can be carried
    out), and the analysis covers what was replayed.  Exit codes as
    validate's: 0 no problems, 1 problems found."""
    from ..analysis.analyse import analyse_match
    from ..analysis.cube import read_met
    from ..analysis.handout import handout
    from .common import replay_record
    from .output import output_path, progress, write_output

    table = None
    if met is not None:
        if money:
            raise fail("--met and --money exclude each other (cubeless money play uses no match table)")
        table = read_met(met)
    if output is not None:
        output_path(output, (".nrd",), "annotated record")
    match = replay_record(path, rules, settings, encoding=encoding, lenient=lenient)
    numbers = [g.record.number for g in match.games]
    if not numbers:
        raise fail(f"{path}: no games to analyse")
    if game is not None and game not in numbers:
        raise fail(f"{path}: no game {game} (games {min(numbers)}-{max(numbers)})")
    chosen = {game} if game is not None else None
    total = sum(len(g.turns) for g in match.games if chosen is None or g.record.number in chosen)
    with progress(total, "analysing", quiet or fmt is OutputFormat.json) as advance:
        result = analyse_match(match, ply=ply, games=chosen, progress=advance, evaluator=evaluator,
                               weights=weights_text(weights), money=money, met=table)
    problems = match.problems_of(chosen)
    if output is not None:
        write_output(output, handout(match, result))
        if not quiet:
            which = f"game {game} of {len(numbers)}" if game is not None else f"all {len(numbers)} games"
            typer.echo(f"wrote {output}: {which}, annotated", err=True)
    if fmt is OutputFormat.json:
        echo_json({**result.as_dict(), "problems": [p.as_dict() for p in problems]})
    else:
        _print_analysis(result, mwc)
    report_problems(problems, "the analysis covers the plays that could be replayed", quiet)


def _print_analysis(result: MatchAnalysis, mwc: bool) -> None:
    """The analysis as text: each game's marked plays, cube alerts and
    resignation, then the players' rates."""
    from ..analysis.analyse import CubeAnalysis

    as_mwc = mwc and result.units.startswith("EMG")

    def lost_text(t: Any) -> str:
        return f"-{100 * t.error_mwc:.2f}%" if as_mwc and t.error_mwc is not None else f"-{t.error:.3f}"

    typer.echo(f"Equities: {result.units}" + ("; errors as match winning chances lost" if as_mwc else ""))
    for number in result.games:
        typer.echo(f"Game {number}")
        for t in result.entries(number):
            if isinstance(t, CubeAnalysis):
                if t.alert or t.mark:
                    typer.echo(f"  {t.turn:>3}. {t.player:<12} cube {t.cube}: {t.action:<9} "
                               f"{t.alert or t.mark:<13} {lost_text(t)}  {t.decision.proper} proper")
            elif t.mark or t.error is None:
                lost = "illegal here" if t.error is None else lost_text(t)
                typer.echo(f"  {t.turn:>3}. {t.player:<12} {t.dice} {t.play:<24} {t.mark or '':<8} {lost}  "
                           f"best {t.best}")
        resigned = result.resignations.get(number)
        if resigned is not None:
            typer.echo(f"  {resigned.turn:>3}. {resigned.player:<12} {resigned.text}")
    typer.echo(f"{'player':<16} {'decisions':>9} {'error rate':>10} {'errors':>6} {'blunders':>8} "
               f"{'cube':>5} {'cube rate':>9} {'cube errors':>11} {'luck':>7}")
    for p in result.players:
        cube_errors = p.missed_doubles + p.wrong_doubles + p.wrong_takes + p.wrong_passes
        typer.echo(f"{p.player:<16} {p.decisions:>9} {p.error_rate:>10.4f} {p.errors:>6} {p.blunders:>8} "
                   f"{p.cube_decisions:>5} {p.cube_error_rate:>9.4f} {cube_errors:>11} {p.luck:>+7.3f}")
    wrong = [p for p in result.players if p.resignation_errors]
    if wrong:
        typer.echo("resignations (outside the rates): " + "; ".join(
            f"{p.player} {p.resignation_errors} wrong, lost {p.resignation_error_total:.3f}" for p in wrong))
