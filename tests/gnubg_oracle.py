"""Running GNU Backgammon as an oracle (tests skip when it is absent)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Sequence

from nardtools.notation.ids import Setup

HERE = Path(__file__).resolve().parent
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)

_HEAD = " GNU Backgammon  Position ID:"


def gnubg_show_board(setup: Setup, names: Sequence[str]) -> str:
    """GNU Backgammon's ``show board`` for ``setup``, set through its Position
    ID and Match ID (the last board gnubg prints)."""
    assert GNUBG is not None
    length = setup.match_length
    script = "\n".join([
        "set player 0 human", "set player 1 human",
        f"new match {length}" if length else "new session",
        f"set player 0 name {names[0]}", f"set player 1 name {names[1]}",
        f"set matchid {setup.match_id}", f"set board {setup.position_id}", "show board", ""])
    out = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    start = out.rindex(_HEAD)
    lines = out[start:].split("\n")[:15]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Match analysis: GNU Backgammon's 0-ply ``analyse match`` against ours

def gnubg_analyse(files: Sequence[Path], folder: Path, ply: int = 0) -> list[tuple[Path, list[Path]]]:
    """GNU Backgammon's analysis of each record at ``ply`` (checker play and
    cube), saved as SGF with its text export: (the SGF, the text export's
    files, one per game)."""
    assert GNUBG is not None
    commands = ["set confirm new off", f"set analysis chequerplay evaluation plies {ply}",
                f"set analysis cubedecision evaluation plies {ply}"]
    for i, f in enumerate(files):
        commands += [f'import mat "{f}"', "analyse match", f'save match "{folder}/{i}.sgf"',
                     f'export match text "{folder}/{i}.txt"']
    script = folder / "analyse.cmd"
    script.write_text("\n".join(commands) + "\n", encoding="utf-8")
    subprocess.run([GNUBG, "-t", "-q", "-c", str(script)], capture_output=True, text=True, timeout=3600, check=True)
    out = []
    for i in range(len(files)):
        first = folder / f"{i}.txt"
        parts = sorted(folder.glob(f"{i}_*.txt"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
        out.append((folder / f"{i}.sgf", [first, *parts]))
    return out


_ALERT = re.compile(r"Alert: (missed double|wrong double|wrong take|wrong pass) \(\s*([-+]?\d+\.\d+)\)")


def gnubg_cube_alerts(parts: Sequence[Path]) -> list[list[tuple[str, str, str, float]]]:
    """Per game of a text export: each cube alert as (the Position ID it was
    given at, the player, the alert, the equity lost)."""
    games = []
    for part in parts:
        found = []
        text = part.read_text(encoding="utf-8")
        for block in re.split(r"\nMove number \d+:", text)[1:]:
            player = block.split()[0]
            pid = re.search(r"Position ID: (\S+)", block)
            for m in _ALERT.finditer(block):
                # an answer's alert is the taker's, printed in the doubler's block
                who = "taker" if m[1] in ("wrong take", "wrong pass") else player
                found.append((pid[1] if pid else "", who, m[1], abs(float(m[2]))))
        games.append(found)
    return games


def compare_match_analysis(sgf: Path, parts: Sequence[Path]) -> dict[str, Any]:
    """Our 0-ply analysis (``--evaluator gnubg``) of gnubg's saved match set
    against gnubg's own: the checker plays whose errors agree within 0.01
    (unforced, as gnubg reviewed them), and gnubg's cube alerts that we report
    in the same category at the same position.  gnubg also alerts where the
    action costs nothing (a "missed double" that was optional, or a cash at
    par: -0.000); nardtools raises no alert below
    :data:`~nardtools.analysis.cubeful.ALERT_FLOOR`, so those are counted
    apart (``free_alerts``), and the ones missed are listed (``missed``)."""
    from nardtools import read_record, replay_match
    from nardtools.analysis.analyse import analyse_match, recorded_analysis
    from nardtools.gnubg_id import position_id

    match = replay_match(read_record(sgf))
    ours = analyse_match(match, evaluator="gnubg")
    theirs = recorded_analysis(match)
    plays = agree = 0
    worst: list[tuple[float, int, int, str]] = []
    for number, turns in ours.games.items():
        reviews = {t.index: t for t in theirs.get(number, [])}
        for t in turns:
            r = reviews.get(t.index)
            if t.forced or t.error is None or r is None or r.error is None or r.forced:
                continue
            plays += 1
            gap = abs(t.error - r.error)
            agree += gap <= 0.01
            worst.append((gap, number, t.turn, t.play))
    from nardtools.analysis.cubeful import ALERT_FLOOR

    alerts = gnubg_cube_alerts(parts)
    found = reported = free = 0
    missed: list[tuple[int, str, str, float]] = []
    for g, game_alerts in zip(match.games, alerts):
        mine: set[tuple[str, str]] = set()
        for c in ours.cubes.get(g.record.number, []):
            if c.alert:
                position = g.turns[c.index].before if c.index < len(g.turns) else g.turns[-1].after
                mine.add((position_id(position), c.alert))
        reported += len(mine)
        for pid, _who, alert, lost in game_alerts:
            if lost < ALERT_FLOOR:  # gnubg's alerts that cost nothing (an optional double, a cash at par)
                free += 1
            elif (pid, alert) in mine:
                found += 1
            else:
                missed.append((g.record.number, pid, alert, lost))
    total = sum(len(a) for a in alerts) - free
    return {"plays": plays, "agree": agree, "cube_alerts": total, "cube_found": found, "cube_reported": reported,
            "free_alerts": free, "missed": missed, "worst": sorted(worst, reverse=True)[:5]}
