"""The bear-off database commands: build one, verify it, show a position."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from .common import ExitCode, FormatOpt, OutputFormat, command, fail
from .output import echo_json

bearoff_app = typer.Typer(help="One-sided bear-off databases: build, verify, and show a position.",
                          no_args_is_help=True)

PointsOpt = Annotated[int, typer.Option("--points", min=1, max=12, help="Points covered (12: every Long "
                                        "Nardy race, 17.4 million positions).")]


class Policy(str, enum.Enum):
    exact = "exact"
    gnubg = "gnubg"


def register(app: typer.Typer) -> None:
    """Add the ``bearoff`` group to ``app``."""
    command(bearoff_app, "build")(bearoff_build)
    command(bearoff_app, "verify")(bearoff_verify)
    command(bearoff_app, "show")(bearoff_show)
    app.add_typer(bearoff_app, name="bearoff", rich_help_panel="Analysis")


def bearoff_build(
    points: PointsOpt = 6,
    policy: Annotated[Policy, typer.Option(help="exact (minimum expected rolls) or gnubg "
                      "(GNU Backgammon's quantised choices; not cached).")] = Policy.exact,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if it is cached.")] = False,
) -> None:
    """Build a database and keep it in the user cache (a folder of arrays)."""
    import shutil
    import time

    from rich.console import Console

    from ..analysis.bearoff import BearoffDatabase, cache_path, position_count

    err = Console(stderr=True, highlight=False)
    started = time.perf_counter()
    path = cache_path(points)

    def progress(part: str) -> None:
        err.print(f"  {time.perf_counter() - started:6.1f} s  {part}")

    if policy is Policy.exact:
        if not force and BearoffDatabase.load(points, path) is not None:
            typer.echo(f"{points} points: {position_count(points):,} positions, already cached at {path}")
            return
        shutil.rmtree(path, ignore_errors=True)
        BearoffDatabase.cached(points, progress=progress)
        size = sum(f.stat().st_size for f in path.iterdir()) / 2**20
        where = f", {size:,.1f} MiB at {path}"
    else:
        BearoffDatabase.build(points, policy.value, progress=progress)
        where = " (gnubg's policy: not cached)"
    typer.echo(f"{points} points: {position_count(points):,} positions built in "
               f"{time.perf_counter() - started:.1f} s{where}")


def bearoff_verify(points: PointsOpt = 6) -> None:
    """Check a cached database against the CRC-32 of every array (large
    databases are otherwise checked only by shape and size when loaded)."""
    from ..analysis.bearoff import BearoffDatabase, cache_path

    path = cache_path(points)
    if BearoffDatabase.load(points, path, verify=True) is None:
        raise fail(f"{path}: missing or damaged; `nardtools bearoff build --points {points} --force` "
                   "rebuilds it", ExitCode.FINDINGS)
    typer.echo(f"{path}: every array matches its CRC-32")


def bearoff_show(
    counts: Annotated[str, typer.Argument(help="Checkers on the 1-point, 2-point, ... e.g. 1,0,0,5,0,1.")],
    fmt: FormatOpt = OutputFormat.text,
) -> None:
    """Rolls to bear off (and to the first checker off), mean, EPC and wastage."""
    from ..analysis.bearoff import BearoffDatabase, board_counts

    board = board_counts(counts)
    db = BearoffDatabase.cached(max(6, len(board)))
    report = db.report(board)
    if fmt is OutputFormat.json:
        echo_json(report.as_dict())
        return
    typer.echo(f"{tuple(board)}: {report.pips} pips, index {report.index} in the "
               f"{db.points}-point database")
    typer.echo("  rolls  P(all off)  P(first off)")
    for n in range(max(len(report.distribution), len(report.first_off))):
        p = report.distribution[n] if n < len(report.distribution) else 0.0
        g = report.first_off[n] if n < len(report.first_off) else 0.0
        typer.echo(f"  {n:>5}  {100 * p:>9.3f}%  {100 * g:>11.3f}%")
    typer.echo(f"  mean rolls {report.mean_rolls:.6f}; EPC = 49/6 x mean = {report.epc:.3f}; "
               f"wastage = EPC - pips = {report.wastage:.3f}")
