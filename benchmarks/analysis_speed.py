"""How long match analysis takes, against GNU Backgammon 1.07's own (issue
#23's acceptance): ``nardtools analyse`` of the corpus' seven-game 7-point
matches at 0-ply and 2-ply, and ``gnubg -t`` importing each and running
``analyse match`` at 0-ply and with its default settings (2-ply), both as
commands, start-up included, the best of ``--runs`` (the two taking turns);
then ``nardtools stats --analyse`` at 0-ply over the bglab-llabba folder
(games a second).

    python benchmarks/analysis_speed.py [--runs 5] [--matches 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _commands import user_environment  # noqa: E402

from tests.corpus import CORPUS  # noqa: E402
from tests.gnubg_oracle import GNUBG  # noqa: E402

#: The 7-point matches of seven games in the corpus.
MATCHES = ("crayon - Llabba 7pt Backgammon Studio 2023_05_23 13_07_53.txt",
           "Maciel - Llabba 7pt Backgammon Studio 2023_05_17 14_32_55.txt")


ENV = user_environment()


def _seconds(command: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(command, cwd=ROOT, capture_output=True, check=True, env=ENV)
    return time.perf_counter() - began


def best(commands: list[list[str]], runs: int) -> list[float]:
    """Each command's fastest of ``runs`` runs, the commands taking turns (so
    that a machine's slower and faster spells fall on all of them alike),
    after one run each unmeasured (which writes the bytecode cache where it
    is missing)."""
    for command in commands:
        _seconds(command)
    times = [[_seconds(command) for command in commands] for _ in range(runs)]
    return [min(column) for column in zip(*times)]


def gnubg_script(folder: Path, match: Path, ply: int | None) -> list[str]:
    lines = ["set confirm new off"]
    if ply is not None:  # else gnubg's default analysis (2-ply)
        lines += [f"set analysis chequerplay evaluation plies {ply}", f"set analysis cubedecision evaluation plies {ply}"]
    lines += [f'import mat "{match}"', "analyse match"]
    script = folder / f"analyse-{ply}.cmd"
    script.write_text("\n".join(lines) + "\n")
    return [str(GNUBG), "-t", "-q", "-c", str(script)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--matches", type=int, default=2)
    args = ap.parse_args()
    nardtools = [sys.executable, "-m", "nardtools"]
    print("| match | analysis | gnubg s | nardtools s | ratio |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in MATCHES[:args.matches]:
            match = CORPUS / "bglab-llabba" / name
            for label, ply, gnubg_ply in (("0-ply", 0, 0), ("2-ply (gnubg: its default)", 2, None)):
                ours_command = [*nardtools, "analyse", str(match), "--ply", str(ply)]
                if GNUBG:
                    theirs, ours = best([gnubg_script(Path(tmp), match, gnubg_ply), ours_command], args.runs)
                else:
                    theirs, (ours,) = float("nan"), best([ours_command], args.runs)
                print(f"| {name.split(' Backgammon')[0]} | {label} | {theirs:.2f} | {ours:.2f} | {ours / theirs:.2f}× |",
                      flush=True)
    folder = CORPUS / "bglab-llabba"
    games = sum(text.count("Game ") for text in (p.read_text(errors="replace") for p in folder.glob("*.txt")))
    with tempfile.TemporaryDirectory() as tmp:
        (seconds,) = best([[*nardtools, "stats", str(folder), "--analyse", "--output", f"{tmp}/s.csv"]], 1)
    print(f"\nstats --analyse at 0-ply over {folder.name} ({games:,} games): {seconds:.1f} s, {games / seconds:.0f} games/s")


if __name__ == "__main__":
    main()
