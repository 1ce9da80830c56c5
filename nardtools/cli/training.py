"""The training command: a network learned by self-play, on search targets
or rollouts, a race, pruning or outcome network, or an ensemble (see
docs/analysis.md, "Training")."""

from __future__ import annotations

import enum
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import Terminated, command, fail, weights_text


class TrainedGame(str, enum.Enum):
    """The games nardtools trains networks for (each by its standard ruleset)."""

    long = "long"
    backgammon = "backgammon"


class Inputs(str, enum.Enum):
    """A main network's encoding (nardtools.analysis.encodings.ENCODINGS)."""

    board = "board"
    contact = "contact"
    blocks = "blocks"


def register(app: typer.Typer) -> None:
    """Add the training command to ``app``."""
    command(app, "train", panel="Analysis")(train_command)


#: The options each kind of training reads (and :data:`_ANY_RUN_OPTIONS`): any other given is
#: refused, not silently ignored.
_TRAINING_OPTIONS = {
    "td": {"game", "games", "hidden", "rate", "trace", "seed", "checkpoint", "measure", "database"},
    "race": {"game", "games", "race", "epochs", "seed", "hidden", "race_db", "replies", "leaves", "halving", "jobs"},
    "search": {"game", "games", "search", "search_ply", "parent", "explore", "alternatives", "widen", "inputs",
               "with_run", "rollouts", "rollout_games", "rollout_truncate", "rollout_luckless", "rollout_weight",
               "collect_with", "prune_with", "epochs", "seed", "hidden", "halving", "rate", "jobs"},
    "prune": {"game", "games", "prune", "epochs", "seed", "hidden", "parent", "halving"},
    "outcomes": {"game", "games", "outcomes", "parent", "pull", "seed", "jobs"},
    "mean": {"game", "mean_of"},
}
#: The options of a --search run that concern its own positions, which a refit (--games 0) has none of.
_COLLECTING_OPTIONS = {"search_ply", "explore", "alternatives", "rollouts", "rollout_games", "rollout_truncate",
                       "rollout_luckless", "collect_with", "prune_with"}
#: What a resumed run of each kind still takes from the command line: how far to go (it keeps its settings).
_RESUMED_OPTIONS = {"td": {"games", "database"}, "race": {"race", "epochs"}, "search": {"search", "epochs", "jobs"},
                    "prune": {"prune", "epochs"}, "outcomes": {"outcomes", "jobs"}}
#: The options every kind of run reads, resumed or not.
_ANY_RUN_OPTIONS = {"output", "resume", "quiet"}


def _options(ctx: typer.Context) -> tuple[dict[str, str], set[str]]:
    """Every option's name and flag, and the names of those given on the command line."""
    flags = {param.name: param.opts[0] for param in ctx.command.params if param.name}
    sources = {name: ctx.get_parameter_source(name) for name in flags}  # (typer's own click: its enum, by name)
    return flags, {name for name, source in sources.items() if source is not None and source.name == "COMMANDLINE"}


def train_command(
    ctx: typer.Context,
    game: Annotated[TrainedGame, typer.Option("--game", help="The game to learn (its standard ruleset).")] = (
        TrainedGame.long),
    games: Annotated[int | None, typer.Option("--games", min=0, max=100_000_000, help=(
        "Train until this many games in all (default 100,000); with --race, the self-play games whose race "
        "positions it learns (default 5,000); with --outcomes, the games whose outcomes it learns; with "
        "--search, the self-play games whose positions it collects (default 5,000; 0: none, a refit of the "
        "--with-run runs' positions alone)."))] = None,
    race: Annotated[bool, typer.Option("--race", help="Train the game's race network instead: supervised on "
                                       "the bear-off database's odds of self-play race positions.")] = False,
    search: Annotated[bool, typer.Option("--search", help=(
        "Train the game's main network on search targets instead: supervised on the --parent evaluator's "
        "look-ahead (--search-ply) of self-play positions, one generation."))] = False,
    prune: Annotated[bool, typer.Option("--prune", help=(
        "Train the game's pruning network instead: supervised on the --parent evaluator's probabilities of "
        "every result of self-play positions' rolls; it screens a roll's plays inside the look-ahead "
        "(--hidden default 64, or an eighth of the main network's units where that is more)."))] = False,
    outcomes: Annotated[bool, typer.Option("--outcomes", help=(
        "Refit the game's main network's output layer instead: to the outcomes of --games self-play games "
        "(default 40,000) of the --parent at 0-ply, its hidden layer kept."))] = False,
    mean_of: Annotated[list[Path] | None, typer.Option("--mean-of", help=(
        "Instead of training: one network whose output logits are the mean of these main networks' (give it "
        "two or more times; an ensemble evaluated as one forward pass, their hidden units side by side), "
        "written to the --output folder's checkpoint.npz."))] = None,
    pull: Annotated[float, typer.Option("--pull", min=0.0, max=1.0, help=(
        "With --outcomes: how strongly the refitted weights are held to the parent's (an L2 penalty)."))] = 1e-4,
    search_ply: Annotated[int, typer.Option("--search-ply", min=0, max=2, help=(
        "With --search: the look-ahead whose probabilities are the targets (0: the parent's own, for a run "
        "whose targets are all --rollouts)."))] = 1,
    parent: Annotated[Path | None, typer.Option("--parent", help=(
        "With --search: the main network whose look-ahead is learned; with --prune: the one it screens for; "
        "with --outcomes: the one refitted (default the shipped one)."))] = None,
    explore: Annotated[float, typer.Option("--explore", min=0.0, max=1.0, help=(
        "With --search: the chance that a self-play side plays a random result instead of its best."))] = 0.1,
    alternatives: Annotated[int, typer.Option("--alternatives", min=0, max=50, help=(
        "With --search: other results of each roll kept beside the position rolled from."))] = 2,
    widen: Annotated[bool, typer.Option("--widen/--fresh", help=(
        "With --search: start from the parent network widened to --hidden units, or from random weights."))] = True,
    inputs: Annotated[Inputs | None, typer.Option("--inputs", help=(
        "With --search: the network's inputs, the board alone, with each side's contact features "
        "(shots, prime, mobility, contact left) or, in Long Nardy, with its block features (how its "
        "checkers are blocked); default the parent's."))] = None,
    with_run: Annotated[list[Path] | None, typer.Option("--with-run", help=(
        "With --search: also fit the positions and targets of this finished search run (its own parent's "
        "look-ahead); repeat for several."))] = None,
    rollouts: Annotated[int, typer.Option("--rollouts", min=0, max=10_000_000, help=(
        "With --search: this many of the positions (drawn by the seed) learn instead the mean result of "
        "--rollout-games games played out from them to the end by the parent at 0-ply."))] = 0,
    rollout_games: Annotated[int, typer.Option("--rollout-games", min=1, max=1296, help=(
        "With --rollouts: games a position, the first roll stratified over the 36."))] = 36,
    rollout_truncate: Annotated[int, typer.Option("--rollout-truncate", min=0, max=10_000, help=(
        "With --rollouts: stop each game after this many plays and count the parent's 0-ply probabilities "
        "there (a truncated rollout; 0: play to the end)."))] = 0,
    rollout_luckless: Annotated[bool, typer.Option("--rollout-luckless", help=(
        "With --rollouts: take each roll's luck out of every game (variance reduction: every turn values all "
        "21 rolls; far less noise a game, some 20 times the cost)."))] = False,
    rollout_weight: Annotated[float, typer.Option("--rollout-weight", min=0.0, max=1.0, help=(
        "With --rollouts or --with-run: a rolled-out position learns this share of its rollout and the "
        "rest of its look-ahead target (--search-ply; 0: the parent's own), the rollouts' noise shrunk "
        "towards it."))] = 1.0,
    collect_with: Annotated[Path | None, typer.Option("--collect-with", help=(
        "With --search: the main network whose self-play gives the positions (default the parent): "
        "another player's positions, valued by the parent."))] = None,
    prune_with: Annotated[Path | None, typer.Option("--prune-with", help=(
        "With --search: the pruning network that screens the look-ahead of the targets and rollouts (it must "
        "screen for the --parent; default the shipped one where it does): a run whose targets do not depend "
        "on what is shipped."))] = None,
    epochs: Annotated[int | None, typer.Option("--epochs", min=1, max=10_000, help=(
        "With --race, --search or --prune: fit until this many epochs in all (default 30; a resumed run, "
        "the epochs it was started with)."))] = None,
    race_db: Annotated[int, typer.Option("--race-db", min=2, max=12, help=(
        "With --race: the bear-off database (points) whose odds it learns, built and cached if need be; "
        "the network answers for races within those points."))] = 10,
    replies: Annotated[bool, typer.Option("--replies/--no-replies", help=(
        "With --race: also learn the replies to one result of each roll (the positions a 1-ply look-ahead "
        "weighs)."))] = True,
    halving: Annotated[int | None, typer.Option("--halving", min=1, max=10_000, help=(
        "With --race or --search: epochs between halvings of the learning rate (default 8)."))] = None,
    leaves: Annotated[int, typer.Option("--leaves", min=0, max=21, help=(
        "With --race: also learn the opponent's best reply to this many of its 21 rolls, after the play chosen "
        "and after one other (the positions a 1-ply look-ahead weighs, as it weighs them)."))] = 0,
    jobs: Annotated[int, typer.Option("--jobs", min=1, max=64, help=(
        "With --race or --search: processes that compute the targets of the positions collected; with "
        "--outcomes: that play the games (a resumed --search or --outcomes run: its own, unless given)."))] = 1,
    output: Annotated[Path | None, typer.Option("--output", help="The run's folder (default train-GAME); "
                                                   "it must not hold a run already.")] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Continue the run kept in this folder "
                                                   "(its settings and seed).")] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**62, help="The run's seed (dice and weights).")] = 1,
    hidden: Annotated[int | None, typer.Option("--hidden", min=4, max=1024, help=(
        "Hidden units (default 128; with --search, the parent's).") )] = None,
    rate: Annotated[float | None, typer.Option("--rate", min=1e-6, max=1.0, help=(
        "Self-play (TD) training: the learning rate per position (default 0.01); with --search: Adam's "
        "rate, halved every --halving epochs (default 0.001; lower to fine-tune a --parent on new targets)."))] = None,
    trace: Annotated[float, typer.Option("--lambda", min=0.0, max=1.0,
                                         help="Self-play (TD) training: TD(lambda)'s lambda.")] = 0.7,
    checkpoint: Annotated[int, typer.Option("--checkpoint", min=1,
                                            help="Self-play (TD) training: games between checkpoints.")] = 1000,
    measure: Annotated[int, typer.Option("--measure", min=1, help=(
        "Self-play (TD) training: games between measurements against a random player."))] = 5000,
    database: Annotated[bool | None, typer.Option("--database/--no-database", help=(
        "Self-play (TD) training: races inside the bear-off database learn its odds as their target "
        "(default: on for a new run; a resumed run keeps its setting unless this is given)."))] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Train a network by self-play (TD(lambda)), with checkpoints and resume."""
    import os
    import sys

    # One game at a time is a chain of small matrix products: BLAS threads only
    # contend (set before numpy loads; run several trainings for more cores).
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")

    from ..analysis.training import Settings, Trainer
    from .output import progress

    command_line = " ".join(["nardtools", *sys.argv[1:]])
    if resume is not None and output is not None:
        raise fail("--resume continues a run in its own folder; leave out --output")
    search = search or (resume is not None and (resume / "targets").is_dir())  # a search run resumes as one
    prune = prune or (resume is not None and (resume / "targets.npy").is_file())  # a pruning run resumes as one
    outcomes = outcomes or (resume is not None and (resume / "outcomes").is_dir())  # an outcome refit resumes as one
    if sum((race, search, prune, outcomes, bool(mean_of))) > 1:
        raise fail("--race, --search, --prune, --outcomes and --mean-of make different networks: choose one")
    if mean_of and resume is not None:
        raise fail("--mean-of writes a new network at once: there is no run to --resume")
    kind = ("race" if race else "search" if search else "prune" if prune else "outcomes" if outcomes
            else "mean" if mean_of else "td")
    flags, given = _options(ctx)
    reads = _RESUMED_OPTIONS[kind] if resume is not None else _TRAINING_OPTIONS[kind]
    unread = ", ".join(flag for name, flag in flags.items() if name in given - reads - _ANY_RUN_OPTIONS)
    what = {"td": "a self-play (TD) run", "race": "a --race run", "search": "a --search run", "prune": "a --prune run",
            "outcomes": "an --outcomes run", "mean": "--mean-of"}
    if unread and resume is not None:
        takes = " and ".join(flag for name, flag in flags.items() if name in _RESUMED_OPTIONS[kind] - {kind})
        raise fail(f"{unread}: a resumed run keeps the settings it was started with ({what[kind]} continues "
                   f"with {takes})")
    if unread:
        raise fail(f"{unread}: not read by {what[kind]} (nardtools train --help says which kind of run reads each "
                   "option)")
    for option, flag in (("rollout_games", "--rollout-games"), ("rollout_truncate", "--rollout-truncate"),
                         ("rollout_luckless", "--rollout-luckless")):
        if option in given and not rollouts:
            raise fail(f"{flag} sets how each of --rollouts is played: give --rollouts too")
    if "rollout_weight" in given and not (rollouts or with_run):
        raise fail("--rollout-weight weighs rollouts against the look-ahead: give --rollouts or --with-run too")
    if games == 0 and not (search and resume is None):
        raise fail("--games 0 collects nothing: only a new --search run takes it (with --with-run, a refit)")
    if games == 0:
        collecting = ", ".join(flag for name, flag in flags.items() if name in given & _COLLECTING_OPTIONS)
        if collecting:
            raise fail(f"{collecting}: not read by a refit (--games 0 collects no positions to look at or roll out)")
        if not with_run:
            raise fail("--games 0 collects nothing: name the runs whose positions it refits with --with-run")
    if search and resume is None and search_ply == 0 and not rollouts:
        raise fail("--search-ply 0 learns the parent's own probabilities: give --rollouts for the targets")
    folder = resume or output or Path(f"train-{game.value}{'' if kind == 'td' else '-' + kind}")
    if resume is None and (folder / "checkpoint.npz").exists():
        raise fail(f"{folder} holds a run already: continue it with --resume {folder}, or choose --output")
    if mean_of:
        _mean_of(game.value, mean_of, folder, command_line)
        return
    if race:
        _train_race(game.value, folder, resume is not None, games, epochs, seed, hidden or 128, race_db, replies, leaves,
                    halving, jobs, command_line, quiet)
        return
    if prune:
        _train_prune(game.value, folder, resume is not None, games, epochs, seed, hidden, parent, halving,
                     command_line, quiet)
        return
    own_jobs = jobs if "jobs" in given else None  # None: a resumed run's own
    if outcomes:
        _train_outcomes(game.value, folder, resume is not None, 40_000 if games is None else games, seed, parent, pull,
                        own_jobs, command_line, quiet)
        return
    if search:
        _train_search(game.value, folder, resume is not None, games, epochs, search_ply, seed, hidden, parent,
                      explore, alternatives, widen, inputs.value if inputs else None, rate, halving, with_run or [],
                      rollouts, rollout_games, rollout_truncate, rollout_luckless, rollout_weight, collect_with,
                      prune_with, own_jobs, command_line, quiet)
        return
    games = 100_000 if games is None else games
    if resume is not None:
        trainer = Trainer.resume(resume)
        if database is not None:
            trainer.settings.database = database
    else:
        trainer = Trainer(Settings(game.value, hidden=hidden or 128, rate=rate or Settings.rate, trace=trace, seed=seed,
                                   checkpoint=checkpoint, measure=measure,
                                   database=True if database is None else database))
    trainer.commands.append(command_line)
    start = trainer.games
    with progress(max(games - start, 0), f"training {trainer.settings.game}", quiet) as advance:
        try:
            trainer.run(games, folder, progress=lambda _: advance())
        except (KeyboardInterrupt, Terminated):
            trainer.save(folder / "checkpoint.npz")  # resumable where it stopped
            raise
    typer.echo(f"{trainer.games:,} games in all ({trainer.games - start:,} now) in {trainer.seconds:.0f} s; "
               f"checkpoint {folder / 'checkpoint.npz'}, learning curve {folder / 'curve.csv'}")


def _train_race(game: str, folder: Path, resume: bool, games: int | None, epochs: int | None, seed: int,
                hidden: int, points: int, replies: bool, leaves: int, halving: int | None, jobs: int, command_line: str,
                quiet: bool) -> None:
    from ..analysis.racenet import train_race
    from .output import progress

    games = 5000 if games is None else games

    with progress(0 if resume else games, f"collecting {game} race positions", quiet) as advance:
        net = train_race(game, folder, games=games, epochs=epochs, seed=seed, hidden=hidden, points=points, jobs=jobs,
                         replies=replies, leaves=leaves, halving=halving, resume=resume, commands=[command_line],
                         progress=lambda n: advance(n), report=_epoch_report(quiet))
    _fitted("race", net, folder)


def _train_search(game: str, folder: Path, resume: bool, games: int | None, epochs: int | None, ply: int, seed: int,
                  hidden: int | None, parent: Path | None, explore: float, alternatives: int, widen: bool,
                  encoding: str | None, rate: float | None, halving: int | None, with_runs: list[Path], rollouts: int,
                  rollout_games: int, rollout_truncate: int, rollout_luckless: bool, rollout_weight: float,
                  collector: Path | None, prune: Path | None, jobs: int | None, command_line: str, quiet: bool) -> None:
    from ..analysis.searchnet import train_search

    def progress(stage: str, done: int, total: int) -> None:
        if not quiet and (stage != "collecting" or done % 500 == 0 or done == total):
            typer.echo(f"{stage}: {done:,} of {total:,}", err=True)

    net = train_search(game, folder, games=5000 if games is None else games, epochs=epochs, ply=ply, seed=seed,
                       hidden=hidden, weights=weights_text(parent), explore=explore, alternatives=alternatives,
                       rate=rate, halving=halving, widen_from=widen, resume=resume, encoding=encoding,
                       with_runs=with_runs, rollouts=rollouts, rollout_games=rollout_games,
                       rollout_truncate=rollout_truncate, rollout_luckless=rollout_luckless,
                       rollout_weight=rollout_weight, collector=weights_text(collector), prune=weights_text(prune),
                       commands=[command_line], jobs=jobs, progress=progress, report=_epoch_report(quiet))
    _fitted("main", net, folder)


def _train_prune(game: str, folder: Path, resume: bool, games: int | None, epochs: int | None, seed: int,
                 hidden: int | None, parent: Path | None, halving: int | None, command_line: str, quiet: bool) -> None:
    from ..analysis.prunenet import POSITIONS, train_prune

    def progress(stage: str, done: int, total: int) -> None:
        if not quiet and stage == "targets":
            typer.echo(f"valuing {total:,} positions", err=True)

    net = train_prune(game, folder, games=300 if games is None else games, positions=POSITIONS, epochs=epochs,
                      hidden=hidden, seed=seed, weights=weights_text(parent), halving=halving, resume=resume,
                      commands=[command_line], progress=progress, report=_epoch_report(quiet))
    _fitted("pruning", net, folder)


def _train_outcomes(game: str, folder: Path, resume: bool, games: int, seed: int, parent: Path | None, pull: float,
                    jobs: int | None, command_line: str, quiet: bool) -> None:
    from ..analysis.outcomenet import train_outcomes

    def progress(stage: str, done: int, total: int) -> None:
        if not quiet and (stage == "refit" or done % 10_000 == 0 or done == total):
            typer.echo(f"refitting the outputs to {total:,} positions' outcomes" if stage == "refit"
                       else f"{stage}: {done:,} of {total:,}", err=True)

    net = train_outcomes(game, folder, games=games, seed=seed, weights=weights_text(parent), pull=pull, jobs=jobs,
                         resume=resume, commands=[command_line], progress=progress)
    how = net.meta["outcomes"]
    before, after = how["held_out_cross_entropy"]
    typer.echo(f"main network's outputs refitted to {how['positions']:,} positions of {how['games']:,} games: "
               f"held-out cross-entropy {before:.4f} before, {after:.4f} after ({how['held_out_positions']:,} "
               f"positions of every tenth game); checkpoint {folder / 'checkpoint.npz'}")


def _epoch_report(quiet: bool) -> Callable[[int, float, dict[str, float]], None]:
    """What a supervised fit says after each epoch (nothing with --quiet)."""
    def report(epoch: int, loss: float, held_out: dict[str, float]) -> None:
        if not quiet:
            typer.echo(f"epoch {epoch}: loss {loss:.5f}, held-out P(win) error mean {held_out['mean_win_error']:.4f} "
                       f"worst {held_out['worst_win_error']:.3f}", err=True)

    return report


def _mean_of(game: str, members: list[Path], folder: Path, command_line: str) -> None:
    from ..analysis.nets import Network

    nets = [Network.load(path) for path in members]
    for path, net in zip(members, nets, strict=True):
        if net.game != game:
            raise fail(f"{path}: a {net.game} network, not {game} (--game)")
    mean = Network.mean_of(nets)
    mean.meta["commands"] = [command_line]
    mean.save(folder / "checkpoint.npz")
    typer.echo(f"the mean of {len(nets)} networks, {mean.w1.shape[1]:,} hidden units: {folder / 'checkpoint.npz'}")


def _fitted(kind: str, net: Any, folder: Path) -> None:
    typer.echo(f"{kind} network after {net.meta['epochs']} epochs on {net.meta['positions']:,} positions: held-out "
               f"P(win) error mean {net.meta['mean_win_error']:.4f}, worst {net.meta['worst_win_error']:.3f}; "
               f"checkpoint {folder / 'checkpoint.npz'}")
