"""Board images with matplotlib: PNG or SVG, backgammon and Long Nardy.

The board is drawn from one side's view (``view``, default the side on roll):
that side's points 1-6 at the bottom right, 7-12 bottom left, 13-18 top left,
19-24 top right, numbered from its own view, as in :mod:`.diagram`.  In Long
Nardy (длинные нарды) that puts its head (голова, point 24) at the top right and
the opponent's head across the board at the bottom left.  The dice, the cube
(in the middle when centred, on its owner's side otherwise), borne-off checkers
in the tray and arrows for the last play are drawn when given.

>>> from nardtools import Position
>>> from nardtools.setup import Setup
>>> figure = board_figure(Setup(Position.start("long"), dice=(6, 5)), names=("white", "black"))
>>> len(figure.axes)
1
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .._io import write_atomically
from ..errors import AnalysisError
from ..play import Play
from ..position import BAR, PLAYER_NAMES, GameKind, Position
from ..setup import Setup

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Colours of player 0's and player 1's checkers (player 0 = X, light).
CHECKER_COLOURS = (("#f4efe1", "#5b4a32"), ("#2b2b2b", "#000000"))
_BOARD, _FELT, _POINTS = "#7a4e2d", "#2f5d3a", ("#c9a36b", "#8c2f1f")
_R = 0.42  # checker radius


def _column_x(column: int) -> float:
    """Centre of point column 0..11 (left to right); the bar is between 5 and 6."""
    return column + 0.5 if column < 6 else column + 1.5


def _slot(point: int) -> tuple[float, bool]:
    """x of the view's ``point`` (1..24) and whether it is in the top half."""
    if point <= 12:
        return _column_x(12 - point), False
    return _column_x(point - 13), True


def board_figure(setup: Setup | Position, *, names: Sequence[str] = ("", ""), view: int | None = None,
                 last_play: Play | None = None, last_player: int | None = None,
                 title: str = "", ax: Axes | None = None, cube: bool | None = None) -> Figure:
    """Draw ``setup`` on a new figure (or on ``ax``) and return the figure.
    ``cube``: the game has a doubling cube to draw (the ruleset's ``cube``;
    default: backgammon has one, Long Nardy only when the setup shows it turned).

    ``last_play`` (by ``last_player``, default the side not on roll) is drawn
    as arrows from each step's source to its target."""
    import matplotlib

    if ax is None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyArrowPatch, Polygon, Rectangle

    if isinstance(setup, Position):
        setup = Setup(setup)
    p = setup.position
    view = p.player if view is None else view
    other = 1 - view
    mine, theirs = p.side_of(view), p.side_of(other)
    kind = p.kind
    if ax is None:
        fig, ax = plt.subplots(figsize=(8.4, 6.2), dpi=100)
    else:
        fig = ax.figure  # type: ignore[assignment]
    ax.set_xlim(-1.6, 15.0)
    ax.set_ylim(-1.4, 12.4)
    ax.set_aspect("equal")
    ax.axis("off")
    _frame(ax, Rectangle, Polygon)
    # checkers
    for point in range(1, 25):
        x, top = _slot(point)
        n, owner = mine[point], view
        if not n:
            n = theirs[kind.opponent_point(point)]
            owner = other
        _stack(ax, Circle, x, top, n, owner)
    if kind is GameKind.BACKGAMMON:
        _stack(ax, Circle, 6.5, False, mine[BAR], view, base=2.6, up=True)
        _stack(ax, Circle, 6.5, True, theirs[BAR], other, base=8.4, up=False)
    for n, who, top in ((mine[0], view, False), (theirs[0], other, True)):
        for i in range(n):  # borne-off checkers as slabs in the tray
            y = (10.8 - i * 0.3) if top else (0.2 + i * 0.3)
            ax.add_patch(Rectangle((13.1, y - 0.12), 0.5, 0.24, facecolor=CHECKER_COLOURS[who][0],
                                   edgecolor=CHECKER_COLOURS[who][1], lw=0.6, zorder=3))
    # the dice, in the right half, and the cube
    if setup.dice:
        for i, d in enumerate(setup.dice):
            _die(ax, Rectangle, Circle, 9.0 + i * 1.2, 5.5, d, CHECKER_COLOURS[p.player])
    cube_y = 5.5 if setup.cube_owner is None else (1.0 if setup.cube_owner == view else 10.0)
    if cube is None:
        cube = kind is GameKind.BACKGAMMON or setup.cube != 1 or setup.cube_owner is not None
    if cube:
        ax.add_patch(Rectangle((-1.45, cube_y - 0.5), 1.0, 1.0, facecolor="#fafafa", edgecolor="#333", zorder=4))
        ax.text(-0.95, cube_y, str(setup.cube if setup.cube > 1 else 64), ha="center", va="center",
                fontsize=11, weight="bold", zorder=5)
    if last_play is not None:
        _arrows(ax, FancyArrowPatch, last_play, view, 1 - p.player if last_player is None else last_player, kind)
    _legend(ax, Circle, p, view, names)
    if setup.match_length:
        ax.text(13.6, -1.05, f"{setup.score[0]}-{setup.score[1]} / {setup.match_length}",
                ha="right", va="center", fontsize=9)
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def _frame(ax: Axes, rectangle: type, polygon: type) -> None:
    """The board, its felt, the tray, and the points with their numbers from the view side."""
    ax.add_patch(rectangle((-0.35, -0.35), 14.05, 11.7, color=_BOARD, zorder=0))
    for x0 in (0, 7):
        ax.add_patch(rectangle((x0, 0), 6, 11, color=_FELT, zorder=1))
    ax.add_patch(rectangle((13.05, 0), 0.6, 11, color=_FELT, zorder=1))  # the tray
    for point in range(1, 25):
        x, top = _slot(point)
        colour = _POINTS[point % 2]
        tri = [(x - 0.5, 11), (x + 0.5, 11), (x, 6.4)] if top else [(x - 0.5, 0), (x + 0.5, 0), (x, 4.6)]
        ax.add_patch(polygon(tri, closed=True, color=colour, zorder=2))
        ax.text(x, 11.45 if top else -0.6, str(point), ha="center", va="center", fontsize=8, color="#222")


def _legend(ax: Axes, circle: type, p: Position, view: int, names: Sequence[str]) -> None:
    """Each side's name and pips beside a checker of its colour, next to where
    its checkers start: in Long Nardy the view's head is top right and the
    other side's bottom left; in backgammon the view is at the bottom."""
    other = 1 - view
    pips = p.pips()
    pip = {p.player: pips[0], 1 - p.player: pips[1]}
    if p.kind is GameKind.LONG:
        places = ((view, 13.6, 12.05, "right"), (other, 0.0, -1.05, "left"))
    else:
        places = ((other, 0.0, 12.05, "left"), (view, 0.0, -1.05, "left"))
    for who, x, y, align in places:
        label = f"{names[who]} ({PLAYER_NAMES[who]})" if len(names) > who and names[who] else PLAYER_NAMES[who]
        on_roll = "  (on roll)" if who == p.player and not p.is_finished() else ""
        text = ax.text(x, y, f"{label}: {pip[who]} pips{on_roll}", ha=align, va="center",
                       fontsize=9, color="#111", weight="bold" if on_roll else "normal")
        swatch_x = x - 0.35 if align == "left" else x + 0.35
        face, edge = CHECKER_COLOURS[who]
        ax.add_patch(circle((swatch_x, y), 0.22, facecolor=face, edgecolor=edge, lw=1.0, zorder=3))
        text.set_gid(f"label-{who}")


def _stack(ax: Axes, circle: type, x: float, top: bool, n: int, owner: int, *,
           base: float | None = None, up: bool | None = None) -> None:
    """Up to five checkers on a point, the count written on the last when more."""
    if not n:
        return
    face, edge = CHECKER_COLOURS[owner]
    going_up = (not top) if up is None else up
    y0 = (0.5 if not top else 10.5) if base is None else base
    step = 0.86 if going_up else -0.86
    for i in range(min(n, 5)):
        ax.add_patch(circle((x, y0 + i * step), _R, facecolor=face, edgecolor=edge, lw=1.0, zorder=3))
    if n > 5:
        ax.text(x, y0 + 4 * step, str(n), ha="center", va="center", fontsize=9, weight="bold",
                color=edge if owner == 0 else "#f0f0f0", zorder=4)


def _die(ax: Axes, rect: type, circle: type, x: float, y: float, value: int,
         colours: tuple[str, str]) -> None:
    face, edge = colours
    ax.add_patch(rect((x - 0.45, y - 0.45), 0.9, 0.9, facecolor=face, edgecolor=edge, lw=1.2, zorder=4))
    pip_colour = edge if face.startswith("#f") else "#f0f0f0"
    spots = {1: [(0, 0)], 2: [(-1, 1), (1, -1)], 3: [(-1, 1), (0, 0), (1, -1)],
             4: [(-1, -1), (-1, 1), (1, -1), (1, 1)], 5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
             6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}[value]
    for dx, dy in spots:
        ax.add_patch(circle((x + dx * 0.22, y + dy * 0.22), 0.07, color=pip_colour, zorder=5))


def _arrows(ax: Axes, arrow: type, play: Play, view: int, player: int, kind: GameKind) -> None:
    """One arrow per step; points are converted from the player's numbering to the view's."""
    def where(point: int) -> tuple[float, float]:
        if point == 0:
            return 13.35, (0.8 if player == view else 10.2)
        if point == BAR:
            return 6.5, (3.0 if player == view else 8.0)
        q = point if player == view else kind.opponent_point(point)
        x, top = _slot(q)
        return x, (8.2 if top else 2.8)

    for step in play.steps:
        ax.add_patch(arrow(where(step.source), where(step.target), arrowstyle="-|>", mutation_scale=14,
                           color="#e0a400", lw=2.0, zorder=6, connectionstyle="arc3,rad=0.15"))


def save_board(path: str | Path, setup: Setup | Position, **options: object) -> Path:
    """Draw ``setup`` (see :func:`board_figure`) and write it to ``path``: the
    format follows the suffix (``.png`` or ``.svg``); the file is written atomically."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise AnalysisError(f"{path}: board images are .png or .svg, not {path.suffix or 'no suffix'}")
    write_atomically(path, board_image(setup, fmt, **options))
    return path


def board_image(setup: Setup | Position, fmt: str = "svg", **options: object) -> bytes:
    """The board of ``setup`` (see :func:`board_figure`) as PNG or SVG bytes
    (what notebooks show for positions and games)."""
    import io

    import matplotlib.pyplot as plt

    fig = board_figure(setup, **options)  # type: ignore[arg-type]
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, bbox_inches="tight", metadata={"Software": None} if fmt == "png" else None)
    plt.close(fig)
    return buffer.getvalue()
