"""Draw the learning curves of training runs into docs/images/learning-curve.png:
the TD error and the win rate against a random player by games trained (the
runs' ``curve.csv``), and the strength of every snapshot (``snapshots/``)
against a yardstick: the heuristic player in Long Nardy, pubeval in
backgammon (where gnubg-nn is installed), points per game over ``--games``.

    python docs/learning_curve.py RUN_FOLDER [RUN_FOLDER ...] [--games 400]
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "images" / "learning-curve.png"


def strength(folder: Path, games: int) -> tuple[str, list[tuple[int, float]]]:
    """The yardstick's name, and (games trained, points per game against it)
    of every snapshot."""
    from nardtools import find_ruleset
    from nardtools.analysis.nets import Network
    from nardtools.analysis.selfplay import HeuristicPlayer, NetPlayer, series

    points = []
    name = ""
    for snapshot in sorted((folder / "snapshots").glob("games-*.npz")):
        net = Network.load(snapshot)
        ruleset = find_ruleset(net.game)
        name = "heuristic" if net.game == "long" else "pubeval"
        if net.game == "long":
            yardstick: object = HeuristicPlayer()
        else:
            try:
                sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
                from evaluator import Pubeval

                yardstick = Pubeval()
            except ImportError:
                return name, []
        result = series(ruleset, NetPlayer(net, ruleset), yardstick, games, seed=77)  # type: ignore[arg-type]
        points.append((int(net.meta["games"]), result.points_per_game))
        print(f"{folder.name}: {net.meta['games']:,} games: {result.points_per_game:+.3f} points per game",
              flush=True)
    return name, points


def main(folders: list[str], games: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (err, win, strong) = plt.subplots(1, 3, figsize=(15, 4), constrained_layout=True)
    for folder in folders:
        rows = list(csv.DictReader((Path(folder) / "curve.csv").open()))
        label = Path(folder).name
        trained = [int(r["games"]) for r in rows]
        err.plot(trained, [float(r["td_error"]) for r in rows], label=label, linewidth=0.8)
        measured = [(int(r["games"]), float(r["win_rate_vs_random"])) for r in rows if r["win_rate_vs_random"]]
        win.plot([g for g, _ in measured], [100 * w for _, w in measured], marker=".", label=label)
        yardstick, curve = strength(Path(folder), games)
        if curve:
            strong.plot([g for g, _ in curve], [v for _, v in curve], marker="o", label=f"{label} vs {yardstick}")
    err.set(title="mean squared TD error (per 1,000 games)", xlabel="games trained", yscale="log")
    win.set(title="0-ply wins against random (200 games)", xlabel="games trained", ylabel="%",
            ylim=(40, 101))
    strong.set(title=f"0-ply points per game against a yardstick ({games} games)", xlabel="games trained")
    strong.axhline(0, color="grey", linewidth=0.8)
    for ax in (err, win, strong):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best")
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--games", type=int, default=400)
    args = ap.parse_args()
    main(args.folders, args.games)
