"""Plots of archive statistics with matplotlib (PNG or SVG, written atomically).

- :func:`plot_pips`: the pip counts of both sides across one game (and the
  race P(win) where exact);
- :func:`plot_dice`: how often each face (and each roll) came up against
  the expectation, with 95% bands of a fair die;
- :func:`plot_outcomes`: how games end (single, gammon, mars, koks...), by variant;
- :func:`plot_openings`: the win rate of the side that played each opening
  roll, with 95% Wilson intervals and sample sizes.
"""

from __future__ import annotations

import io
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Mapping, Sequence

from .._io import write_atomically
from ..errors import AnalysisError

KINDS = ("pips", "dice", "outcomes", "openings")


def plot_race(odds: Any, labels: Sequence[str] = ("on roll", "other"), title: str = "") -> Any:
    """A race's one-sided distributions: P(all off after exactly n rolls) for
    both sides (bars), and each side's rolls to its first checker off (and
    until all are home, where it matters) as lines."""
    import numpy as np

    fig, ax = _figure(9, 4.5)
    sides = odds.sides
    # up to the last roll any curve still gives a visible probability
    last = max(int(np.nonzero(a > 1e-4)[0].max()) + 2 if (a > 1e-4).any() else 2
               for s in sides for a in (s.distribution, s.first_off, s.all_home))
    x = np.arange(last)
    width = 0.4
    for k, (side, colour) in enumerate(zip(sides, ("#b08a3e", "#333333"))):
        exact = "" if side.exact else " (estimate)"
        ax.bar(x + (k - 0.5) * width, side.distribution[:last], width, color=colour,
               label=f"{labels[k]}: all off, mean {side.expected_rolls:.2f} rolls{exact}")
        if side.first_off[1:].any():
            ax.plot(x, side.first_off[:last], color=colour, ls="--", lw=1.2,
                    label=f"{labels[k]}: first checker off")
        if side.all_home[1:].any():
            ax.plot(x, side.all_home[:last], color=colour, ls=":", lw=1.2, label=f"{labels[k]}: all home")
    ax.set_xlabel("rolls")
    ax.set_ylabel("probability")
    _integer_ticks(ax)
    _legend_outside(ax)
    note = "exact" if odds.exact else f"estimate ± {odds.stderr:.3f}"
    ax.set_title(title or f"Race: P(win) for the side on roll {odds.p_win:.4f} ({note})")
    return fig


def _integer_ticks(ax: Any, axis: str = "x") -> None:
    """Whole-number ticks, few enough that their labels never run together."""
    from matplotlib.ticker import MaxNLocator

    getattr(ax, f"{axis}axis").set_major_locator(MaxNLocator(nbins=12, integer=True))


def _legend_outside(ax: Any, handles: Sequence[Any] | None = None) -> None:
    """The legend beside the plot, where it cannot hide data."""
    kwargs: dict[str, Any] = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0,
                              "fontsize": 8, "frameon": False}
    if handles is not None:
        ax.legend(handles=list(handles), **kwargs)
    else:
        ax.legend(**kwargs)


def _figure(width: float = 8, height: float = 4.5) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), dpi=100)


def save_figure(fig: Any, path: str | Path) -> Path:
    """Write ``fig`` to ``path`` (.png or .svg) atomically and close it."""
    import matplotlib.pyplot as plt

    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        plt.close(fig)
        raise AnalysisError(f"{path}: plots are written as .png or .svg, not {path.suffix or 'no suffix'}")
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, bbox_inches="tight", metadata={"Software": None} if fmt == "png" else None)
    plt.close(fig)
    write_atomically(path, buffer.getvalue())
    return path


def plot_pips(notes: Sequence[Any], names: Sequence[str], title: str = "") -> Any:
    """Pip counts before every play of one game (:class:`~.annotate.TurnNote`s),
    and after the last: the final position (0 for the side that bore off)."""
    fig, ax = _figure()
    series: dict[int, list[tuple[int, int]]] = {0: [], 1: []}
    pwin: list[tuple[int, float]] = []
    for n in notes:
        series[n.player].append((n.index, n.pips_before[0]))
        series[1 - n.player].append((n.index, n.pips_before[1]))
        if n.pwin_before is not None:
            pwin.append((n.index, n.pwin_before if n.player == 0 else 1 - n.pwin_before))
    if notes:
        last = notes[-1]
        series[last.player].append((last.index + 1, last.pips_after[0]))
        series[1 - last.player].append((last.index + 1, last.pips_after[1]))
    handles = []
    for side, colour in ((0, "#b08a3e"), (1, "#222222")):
        xs, ys = zip(*series[side]) if series[side] else ((), ())
        handles += ax.plot(xs, ys, color=colour, lw=2, label=f"{names[side]} pips")
    ax.set_xlabel("play")
    ax.set_ylabel("pip count")
    ax.grid(alpha=0.3)
    if pwin:
        ax2 = ax.twinx()
        xs, ps = zip(*pwin)
        handles += ax2.plot(xs, [100 * p for p in ps], color="#2a6fdb", ls="--", lw=1.5,
                            label=f"{names[0]} race P(win), %")
        ax2.set_ylim(0, 100)
        ax2.set_ylabel("race P(win), %")
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=len(handles), fontsize=8,
              frameon=False)  # below the plot, clear of the lines
    ax.set_title(title or "Pip counts")
    return fig


def plot_dice(rolls: Mapping[str, int], title: str = "") -> Any:
    """Faces (left) and the 21 rolls (right), counted over ``rolls`` (unordered
    rolls such as ``"63"`` -> times), against a fair die's expectation with a
    95% band (binomial, normal approximation)."""
    import matplotlib.pyplot as plt

    from ..dice import ALL_ROLLS
    from .stats import dice_row

    row = dice_row("(all)", Counter(rolls))
    n = row["rolls"]
    fig = plt.figure(figsize=(11, 4.2), dpi=100)
    ax = fig.add_subplot(1, 3, 1)
    bx = fig.add_subplot(1, 3, (2, 3))
    expected = 2 * n / 6  # each roll shows two faces
    band = 1.96 * math.sqrt(2 * n * (1 / 6) * (5 / 6))
    ax.bar(range(1, 7), [row[f"face{f}"] for f in range(1, 7)], color="#b08a3e")
    ax.axhline(expected, color="k", lw=1)
    ax.axhspan(expected - band, expected + band, color="k", alpha=0.12)
    ax.set_xticks(range(1, 7))
    ax.set_title(f"faces (p = {row['face_p_value']:.3f})" if n else "faces")
    labels = [f"{r.high}{r.low}" for r in ALL_ROLLS]
    probs = [(1 if r.is_double else 2) / 36 for r in ALL_ROLLS]
    x = list(range(len(labels)))
    bx.bar(x, [rolls.get(label, 0) for label in labels], color="#555", label="observed")
    bx.errorbar(x, [n * p for p in probs], yerr=[1.96 * math.sqrt(n * p * (1 - p)) for p in probs],
                fmt="_", color="#c00", lw=1, capsize=3, label="fair die: expectation, 95% band")
    bx.set_xticks(x, labels, rotation=90, fontsize=7)
    bx.legend(fontsize=8)
    bx.set_title(f"rolls (p = {row['roll_p_value']:.3f}, n = {n})" if n else "rolls")
    fig.suptitle(title or "Dice against a fair die")
    fig.tight_layout()
    return fig


def plot_outcomes(games: Sequence[dict[str, Any]], title: str = "") -> Any:
    """How games ended, by variant: counts of each outcome kind."""
    fig, ax = _figure(9, 4.5)
    by_variant: dict[str, Counter[str]] = defaultdict(Counter)
    for g in games:
        by_variant[g["variant"]][g["outcome"] or "unfinished"] += 1
    seen = {k for c in by_variant.values() for k in c}
    kinds = [k for k in _OUTCOME_ORDER if k in seen] + sorted(seen - set(_OUTCOME_ORDER))
    width = 0.8 / max(1, len(by_variant))
    for i, (variant, counter) in enumerate(sorted(by_variant.items())):
        total = sum(counter.values())
        xs = [k + i * width for k in range(len(kinds))]
        ax.bar(xs, [counter[k] / total for k in kinds], width, label=f"{variant} (n = {total})")
    ax.set_xticks([k + width * (len(by_variant) - 1) / 2 for k in range(len(kinds))], kinds,
                  rotation=30, ha="right", rotation_mode="anchor")
    ax.set_ylabel("share of games")
    _legend_outside(ax)
    ax.set_title(title or "Outcomes")
    return fig


#: Outcome kinds from the weakest win to the strongest, backgammon's then Long Nardy's.
_OUTCOME_ORDER = ("single", "gammon", "backgammon", "oin", "mars", "home-mars", "koks", "unfinished")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion.

    >>> [round(x, 4) for x in wilson(5, 10)]
    [0.2366, 0.7634]
    """
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def opening_table(games: Sequence[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """(opening roll, games, wins of the side that played it), rolls in order."""
    seen: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for g in games:
        if g["opening_roll"] and g["winner_side"] is not None and g["opening_side"] is not None:
            acc = seen[g["opening_roll"]]
            acc[0] += 1
            acc[1] += g["winner_side"] == g["opening_side"]
    return [(roll, n, w) for roll, (n, w) in sorted(seen.items(), key=lambda kv: (-int(kv[0][0]), -int(kv[0][1])))]


def plot_openings(games: Sequence[dict[str, Any]], title: str = "") -> Any:
    """Win rate of the side that played each opening roll, with 95% Wilson intervals."""
    fig, ax = _figure(10, 4.5)
    table = opening_table(games)
    xs = range(len(table))
    rates = [w / n for _, n, w in table]
    low = [r - wilson(w, n)[0] for r, (_, n, w) in zip(rates, table)]
    high = [wilson(w, n)[1] - r for r, (_, n, w) in zip(rates, table)]
    ax.errorbar(xs, rates, yerr=[low, high], fmt="o", color="#2a6fdb", capsize=3)
    ax.axhline(0.5, color="k", lw=0.8)
    ax.set_xticks(list(xs), [f"{roll}\nn={n}" for roll, n, _ in table], fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("wins of the side that played it")
    ax.set_title(title or "Win rate by opening roll")
    return fig
