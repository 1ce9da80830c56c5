"""Regenerate the example archives in this folder from seeded random play.

    python examples/make_examples.py

Each match is played by the engine (uniformly random legal plays, a random cube
where the ruleset has one), replayed under its ruleset and written as .mat.
"""

from __future__ import annotations

from pathlib import Path

from nardtools import find_ruleset
from nardtools.notation.mat import export_mat
from nardtools.notation.native import export_native
from nardtools.notation.random_records import random_match
from nardtools.notation.replay import replay_match

HERE = Path(__file__).resolve().parent

ARCHIVES = [
    # (folder, ruleset, match length, seed, format)
    ("long-nardy", "long", 5, 1, "mat"),
    ("long-nardy", "nardionline", 7, 2, "mat"),
    ("long-nardy", "long-classic", 3, 3, "mat"),
    ("long-nardy", "play65-long", 5, 4, "mat"),
    ("long-nardy", "yellowclub", 5, 5, "mat"),
    ("long-nardy", "arena", 3, 6, "nrd"),
    ("backgammon", "backgammon", 5, 6, "mat"),
    ("variants", "nackgammon", 3, 7, "mat"),
    ("variants", "hypergammon", 3, 8, "mat"),
    ("variants", "dutch", 3, 9, "nrd"),
    ("variants", "gulbara", 3, 10, "nrd"),
    ("variants", "crazy-gulbara", 3, 11, "nrd"),
]


def main(out: Path = HERE) -> None:
    for folder, ruleset, length, seed, fmt in ARCHIVES:
        record = random_match(find_ruleset(ruleset), length, seed)
        replayed = replay_match(record, rules=ruleset)
        assert not replayed.errors, replayed.errors
        path = out / folder / f"{ruleset}-{length}pt-seed{seed}.{fmt}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(export_mat(replayed) if fmt == "mat" else export_native(replayed), encoding="utf-8")
        print(f"{path.relative_to(out)}: {len(record.games)} games")


if __name__ == "__main__":
    main()
