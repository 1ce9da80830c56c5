"""Regenerate the example archives in this folder from seeded random play.

    python examples/make_examples.py

Each match is played by the engine (uniformly random legal plays, a random cube
where the ruleset has one), replayed under its ruleset and written as .mat.
"""

from __future__ import annotations

from pathlib import Path

from nardtools import find_ruleset
from nardtools.notation.mat import export_mat
from nardtools.notation.replay import replay_match
from nardtools.playout import random_match

HERE = Path(__file__).resolve().parent

ARCHIVES = [
    # (folder, ruleset, match length, seed)
    ("long-nardy", "long", 5, 1),
    ("long-nardy", "nardionline", 7, 2),
    ("long-nardy", "long-classic", 3, 3),
    ("long-nardy", "play65-long", 5, 4),
    ("long-nardy", "yellowclub", 5, 5),
    ("backgammon", "backgammon", 5, 6),
]


def main(out: Path = HERE) -> None:
    for folder, ruleset, length, seed in ARCHIVES:
        record = random_match(find_ruleset(ruleset), length, seed)
        replayed = replay_match(record, rules=ruleset)
        assert not replayed.errors, replayed.errors
        path = out / folder / f"{ruleset}-{length}pt-seed{seed}.mat"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(export_mat(replayed), encoding="utf-8")
        print(f"{path.relative_to(out)}: {len(record.games)} games")


if __name__ == "__main__":
    main()
