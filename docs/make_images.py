"""Regenerate the images under docs/images from the bundled examples.

    python docs/make_images.py
"""

from __future__ import annotations

from pathlib import Path

from nardtools.notation.reading import read_record
from nardtools.notation.replay import replay_match
from nardtools.teaching.board_image import save_board

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, record, game, turn, player in [
        ("board-backgammon", "examples/backgammon/backgammon-5pt-seed6.mat", 1, 9, 1),
        ("board-long-nardy", "examples/teaching/long-annotated.nrd", 1, 12, 0),
    ]:
        match = replay_match(read_record(ROOT / record))
        setup = match.setup_at(game, turn, player=player)
        previous = [t for t in match.game(game).turns if t.after == setup.position]
        last = previous[-1] if previous else None
        for suffix in (".png", ".svg"):
            save_board(OUT / f"{name}{suffix}", setup, names=match.record.players,
                       last_play=last.play if last else None,
                       last_player=last.action.player if last else None,
                       title=f"{record.rsplit('/', 1)[-1]}, game {game}, before turn {turn}")
        print(f"docs/images/{name}.png/.svg")
    from nardtools.analysis.plots import plot_dice, plot_openings, plot_outcomes, save_figure
    from nardtools.analysis.stats import collect

    archive = collect([ROOT / "examples"])
    save_figure(plot_dice(archive.all_rolls(), "Dice of the bundled examples"), OUT / "plot-dice.png")
    save_figure(plot_openings(archive.games, "Win rate by opening roll (bundled examples)"),
                OUT / "plot-openings.png")
    for suffix in (".png", ".svg"):
        save_figure(plot_outcomes(archive.games, "Outcomes by variant (bundled examples)"),
                    OUT / f"plot-outcomes{suffix}")
    print("docs/images/plot-dice.png, plot-openings.png, plot-outcomes.png/.svg")


if __name__ == "__main__":
    main()
