"""Validation benchmark: ``nardtools validate`` on a folder of .mat files against
GNU Backgammon importing the same files (``import mat`` for each, in one
``gnubg -t`` run), on the same machine, in the same run.

    python benchmarks/validate.py [FOLDER] [--repeat 3]

FOLDER defaults to ../shared/corpus/gnubg-selfplay.  Each figure is the best
wall time of ``--repeat`` runs; nardtools is timed as a command (start-up and
kernel loading included), once with one worker and once with every core.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT.parent / "shared" / "corpus" / "gnubg-selfplay"


def best(cmd: list[str], repeat: int, **kw) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kw)
        times.append(time.perf_counter() - start)
        out = proc.stdout + proc.stderr
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files = sorted(str(p) for p in Path(args.folder).glob("*") if p.suffix in (".mat", ".txt"))
    gnubg = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)
    rows = []
    anchor = None
    if gnubg:
        with tempfile.NamedTemporaryFile("w", suffix=".cmd", delete=False) as f:
            f.write("set confirm new off\n")
            for path in files:
                f.write(f'import mat "{path}"\n')
            cmd_file = f.name
        anchor, out = best([gnubg, "-t", "-q", "-c", cmd_file], args.repeat)
        os.unlink(cmd_file)
        warnings = out.count("WARNING")
        rows.append((f"gnubg 1.07 import mat ({len(files)} files, {warnings} warnings)", anchor))
    nard = [sys.executable, "-m", "nardtools.cli", "validate", "-q", args.folder]
    for jobs in (1, os.cpu_count() or 1):
        t, out = best(nard + ["-j", str(jobs)], args.repeat)
        rows.append((f"nardtools validate, {jobs} worker{'s' if jobs > 1 else ''}", t))
    print(f"{'benchmark':<52} {'wall s':>8} {'vs gnubg':>9}")
    for name, t in rows:
        ratio = f"{t / anchor:.2f}x" if anchor else "-"
        print(f"{name:<52} {t:>8.2f} {ratio:>9}")
    if not gnubg:
        print("(GNU Backgammon not installed: apt-get install gnubg to measure the anchor)")


if __name__ == "__main__":
    main()
