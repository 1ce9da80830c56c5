"""Validation benchmark: ``nardtools validate`` on a folder of .mat files against
GNU Backgammon importing the same files (``import mat`` for each, in one
``gnubg -t`` run), on the same machine, in the same run.

    python benchmarks/validate.py [FOLDER] [--repeat 15] [--copies 10] [--python PATH]

FOLDER defaults to ../shared/corpus/gnubg-selfplay.  Each figure is the best
wall time of ``--repeat`` runs; nardtools is timed as the ``nardtools`` command
installed beside the interpreter (start-up included), once with one worker and
once with every core.  Each program is
also timed doing nothing (gnubg on an empty command file, nardtools on an
empty folder), so that start-up and the work itself can be told apart.
``--copies N`` validates N copies of the folder as well: the throughput on a
larger archive, where start-up matters less.  ``--python PATH`` times the
nardtools installed for another interpreter (say, a venv with a regular,
non-editable install, which starts faster than an editable one).
``--long-games N`` also validates an archive of N random Long Nardy games
(7-point matches, made in the run; gnubg cannot read them): games/s, also
with ``--rules long`` and each ``--set`` override of the head and block
options (each archive made under the rules it is validated by), ``--lenient``
and ``--encoding``; ``--rulesets`` adds an archive made under each other
named Long Nardy ruleset, validated with ``--rules NAME``.

Python runs from cached bytecode here, as it does for users (pip compiles it
at install; an editable install writes it at first import): an inherited
``PYTHONDONTWRITEBYTECODE`` is dropped for the runs, unless ``--no-bytecode``
asks to time compiling every module from source on every run.
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

from _commands import user_environment

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT.parent / "shared" / "corpus" / "gnubg-selfplay"


def best(cmd: list[str], repeat: int, **kw: object) -> tuple[float, str]:
    """The best wall time of ``repeat`` runs of ``cmd``, and its output."""
    times, out = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kw)
        times.append(time.perf_counter() - start)
        out = proc.stdout + proc.stderr
    return min(times), out


def gnubg_import(gnubg: str, files: list[str], repeat: int) -> tuple[float, int]:
    """Best wall time of one ``gnubg -t`` run importing ``files``, and its warnings."""
    with tempfile.NamedTemporaryFile("w", suffix=".cmd", delete=False) as f:
        f.write("set confirm new off\n")
        for path in files:
            f.write(f'import mat "{path}"\n')
        cmd_file = f.name
    t, out = best([gnubg, "-t", "-q", "-c", cmd_file], repeat)
    os.unlink(cmd_file)
    return t, out.count("WARNING")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--copies", type=int, default=10, help="also validate this many copies (0: skip)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter to run nardtools with")
    ap.add_argument("--long-games", type=int, default=1000, help="games of the Long Nardy archive (0: skip)")
    ap.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE if set")
    ap.add_argument("--rulesets", action="store_true", help="also an archive made under each named Long Nardy "
                    "ruleset, validated with --rules NAME")
    args = ap.parse_args()
    env = user_environment(keep_no_bytecode=args.no_bytecode)
    gnubg = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)
    script = Path(args.python).parent / "nardtools"  # the command users run, if installed there
    nard = [str(script) if script.exists() else args.python, *([] if script.exists() else ["-m", "nardtools.cli"]),
            "validate", "-q"]
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp, "empty")
        empty.mkdir()
        archives = [(f"{Path(args.folder).name}", Path(args.folder))]
        if args.copies > 1:
            big = Path(tmp, f"x{args.copies}")
            for i in range(args.copies):
                shutil.copytree(args.folder, big / f"copy{i}")
            archives.append((f"{args.copies} copies", big))
        print(f"{'benchmark':<58} {'wall s':>8} {'vs gnubg':>9}")
        if gnubg:
            t, _ = gnubg_import(gnubg, [], args.repeat)
            print(f"{'gnubg 1.07 start-up (empty command file)':<58} {t:>8.3f} {'-':>9}")
        t, _ = best([*nard, str(empty)], args.repeat, env=env)
        print(f"{'nardtools validate start-up (empty folder)':<58} {t:>8.3f} {'-':>9}")
        for label, folder in archives:
            files = sorted(str(p) for p in folder.rglob("*") if p.suffix in (".mat", ".txt"))
            anchor = None
            if gnubg:
                anchor, warnings = gnubg_import(gnubg, files, args.repeat)
                name = f"gnubg import mat, {label} ({len(files)} files, {warnings} warnings)"
                print(f"{name:<58} {anchor:>8.3f} {'1.00x':>9}")
            for jobs in sorted({1, cores}):
                t, _ = best([*nard, "-j", str(jobs), str(folder)], args.repeat, env=env)
                ratio = f"{t / anchor:.2f}x" if anchor else "-"
                name = f"nardtools validate, {label}, {jobs} worker{'s' if jobs > 1 else ''}"
                print(f"{name:<58} {t:>8.3f} {ratio:>9}")
        long_games = Path(tmp, "long")
        count = long_archive(long_games, args.long_games)
        if count:
            for jobs in sorted({1, cores}):
                t, _ = best([*nard, "-j", str(jobs), str(long_games)], args.repeat, env=env)
                name = f"nardtools validate, Long Nardy, {count:,} games, {jobs} worker{'s' if jobs > 1 else ''}"
                print(f"{name:<58} {t:>8.3f} {count / t:>8,.0f} games/s")
            # the paths a club takes: its ruleset named, options changed (each archive made
            # under the rules it is validated by), lenient, an encoding
            variants = [("long", {}, []), ("long", {}, ["--lenient"]), ("long", {}, ["--encoding", "cp1251"])]
            variants += [("long", {option: value}, ["--set", f"{option}={value}"])
                         for option, value in (("head", "doubles-list"), ("head", "none"),
                                               ("block", "opponent-in-home"), ("block", "none"),
                                               ("block-check", "every-step"), ("block-path", "mover"))]
            if args.rulesets:
                from nardtools.rules import rulesets

                variants += [(rs.name, {}, []) for rs in rulesets() if rs.rules.is_long and rs.name != "long"]
            for k, (ruleset, options, extra) in enumerate(variants):
                folder = long_games if ruleset == "long" and not options else Path(tmp, f"long-{k}")
                try:
                    n = count if folder == long_games else long_archive(folder, args.long_games, ruleset, options)
                except ValueError as e:  # gul-bara: .mat has no way to write dice carried over
                    print(f"  --rules {ruleset}: not measured ({str(e).split(';')[0]})")
                    continue
                t, _ = best([*nard, "-j", str(cores), "--rules", ruleset, *extra, str(folder)], args.repeat, env=env)
                name = f"  --rules {ruleset} {' '.join(extra)}"
                print(f"{name:<58} {t:>8.3f} {n / t:>8,.0f} games/s")
    if not gnubg:
        print("(GNU Backgammon not installed: apt-get install gnubg to measure the anchor)")


def long_archive(folder: Path, games: int, ruleset: str = "long", options: dict[str, str] | None = None) -> int:
    """Random 7-point Long Nardy matches under ``ruleset`` with ``options``
    (seeds 0, 1, ...) until ``games`` games, one file each."""
    from nardtools import find_ruleset
    from nardtools.notation.mat import export_mat
    from nardtools.notation.random_records import random_match
    from nardtools.notation.replay import replay_match

    folder.mkdir()
    total = seed = 0
    while total < games:
        record = random_match(find_ruleset(ruleset).with_options(options or {}), 7, seed)
        (folder / f"long-{seed:04d}.mat").write_text(export_mat(replay_match(record, rules=ruleset, options=options)))
        total += len(record.games)
        seed += 1
    return total


if __name__ == "__main__":
    main()
