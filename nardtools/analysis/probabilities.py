"""The probabilities a network gives, and what they are worth.

A network sees a position from the side on roll, before the roll, and gives
the probabilities of every outcome class its game scores (all from the side on
roll, each class including the stronger ones):

- backgammon: ``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``,
  ``lose_backgammon`` (GNU Backgammon's five);
- Long Nardy: ``win``, ``win_mars`` (марс: the loser bore off nothing),
  ``win_home_mars`` (домашний марс: a mars with all fifteen home), ``win_koks``
  (кокс: a mars with a checker left in the starting quarter), and the same
  three for losing.  Home mars and koks exclude each other.

This module is their algebra: seen from the other side (:func:`flip`), a
finished game's (:func:`outcome`), made consistent, split into exclusive
kinds, and valued as points (:func:`equity`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..outcome import OutcomeKind, classify, points_for
from .rows import finished

if TYPE_CHECKING:
    from ..rules import Rules

#: The outcome classes of each game, in the networks' output order.
CLASSES = {
    "backgammon": ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"),
    "long": ("win", "win_mars", "win_home_mars", "win_koks", "lose_mars", "lose_home_mars", "lose_koks"),
}


#: Where each class goes when the position is seen from the other side.
_FLIP = {"backgammon": (3, 4, 1, 2), "long": (4, 5, 6, 1, 2, 3)}


def flip(p: np.ndarray, game: str) -> np.ndarray:
    """Probabilities (rows) as the other side sees them.

    >>> flip(np.array([0.7, 0.2, 0.01, 0.1, 0.02]), "backgammon").round(2).tolist()
    [0.3, 0.1, 0.02, 0.2, 0.01]
    """
    q = np.empty_like(p)
    q[..., 0] = 1.0 - p[..., 0]
    for a, b in enumerate(_FLIP[game], start=1):
        q[..., a] = p[..., b]
    return q


def outcome(game: str, loser: Any, rules: Rules) -> np.ndarray:
    """The probabilities of a finished game from the winner's side: 1 for every
    class the win reaches (the loser's checkers decide; ``classify``)."""
    kind = classify(loser, rules)
    target = np.zeros(len(CLASSES[game]), np.float32)
    target[0] = 1.0
    if game == "backgammon":
        target[1] = kind in (OutcomeKind.GAMMON, OutcomeKind.BACKGAMMON)
        target[2] = kind is OutcomeKind.BACKGAMMON
    else:
        target[1] = kind is not OutcomeKind.OIN
        target[2] = kind is OutcomeKind.HOME_MARS
        target[3] = kind is OutcomeKind.KOKS
    return target


def consistent(p: np.ndarray, game: str) -> np.ndarray:
    """Probabilities (rows) made consistent, as a network's separate outputs
    need not be: each class at most the one it belongs to (a gammon is a win;
    home mars and koks, which exclude each other, together at most the mars).

    >>> consistent(np.array([0.3, 0.4, 0.5, 0.2, 0.1]), "backgammon").tolist()
    [0.3, 0.3, 0.3, 0.2, 0.1]
    """
    q = np.array(p, np.float64)
    win = np.clip(q[..., 0], 0.0, 1.0)
    q[..., 0] = win
    if game == "backgammon":
        q[..., 1] = np.minimum(q[..., 1], win)
        q[..., 2] = np.minimum(q[..., 2], q[..., 1])
        q[..., 3] = np.minimum(q[..., 3], 1.0 - win)
        q[..., 4] = np.minimum(q[..., 4], q[..., 3])
        return q
    for mars, whole in ((1, win), (4, 1.0 - win)):
        q[..., mars] = np.minimum(q[..., mars], whole)
        parts = q[..., mars + 1] + q[..., mars + 2]
        scale = np.where(parts > q[..., mars], q[..., mars] / np.maximum(parts, 1e-300), 1.0)
        q[..., mars + 1] *= scale
        q[..., mars + 2] *= scale
    return q


def exact_where_finished(p: np.ndarray, rows: np.ndarray, game: str, rules: Rules) -> np.ndarray:
    """``p`` (rows of probabilities, each from its side on roll) with the
    finished games' rows replaced by their outcome; returns the mask of them."""
    done = finished(rows)
    for i in np.nonzero(done)[0]:
        if not rows[i, 1:26].any():  # the side on roll has won already
            p[i] = outcome(game, rows[i, 26:], rules)
        else:  # the side that just played has
            p[i] = flip(outcome(game, rows[i, :26], rules), game)
    return done


def exclusive(p: np.ndarray, game: str) -> dict[OutcomeKind, tuple[np.ndarray, np.ndarray]]:
    """For each kind of win, (P(the side on roll wins so), P(it loses so)),
    from the cumulative classes (clipped at 0 where a network's outputs cross)."""
    if game == "backgammon":
        win, wg, wb, lg, lb = (p[..., i] for i in range(5))
        lose = 1.0 - win
        return {OutcomeKind.SINGLE: (np.maximum(win - wg, 0), np.maximum(lose - lg, 0)),
                OutcomeKind.GAMMON: (np.maximum(wg - wb, 0), np.maximum(lg - lb, 0)),
                OutcomeKind.BACKGAMMON: (wb, lb)}
    win, wm, wh, wk, lm, lh, lk = (p[..., i] for i in range(7))
    lose = 1.0 - win
    return {OutcomeKind.OIN: (np.maximum(win - wm, 0), np.maximum(lose - lm, 0)),
            OutcomeKind.MARS: (np.maximum(wm - wh - wk, 0), np.maximum(lm - lh - lk, 0)),
            OutcomeKind.HOME_MARS: (wh, lh), OutcomeKind.KOKS: (wk, lk)}


def equity(p: np.ndarray, game: str, rules: Rules) -> np.ndarray:
    """Cubeless points per game for the side on roll under the ruleset's
    scoring table (``points_for``), from probabilities (rows).

    >>> from nardtools import find_ruleset
    >>> float(equity(np.array([1.0, 1.0, 0.0, 0.0, 0.0]), "backgammon", find_ruleset("backgammon").rules))
    2.0
    """
    total = np.zeros(p.shape[:-1])
    for kind, (won, lost) in exclusive(p, game).items():
        total = total + points_for(kind, rules) * (won - lost)
    return total


def equity_weights(game: str, rules: Rules) -> tuple[np.ndarray, float]:
    """``(w, c)`` with ``p @ w + c`` the :func:`equity` of consistent
    probabilities ``p`` (:func:`consistent`'s: no class above the one it
    belongs to), where :func:`equity` is linear: the cheap equity that screens
    a roll's results by a network's raw outputs.

    >>> from nardtools import find_ruleset
    >>> w, c = equity_weights("backgammon", find_ruleset("backgammon").rules)
    >>> w.tolist(), c
    ([2.0, 1.0, 1.0, -1.0, -1.0], -1.0)
    """
    if game == "backgammon":
        s, g, b = (points_for(k, rules) for k in (OutcomeKind.SINGLE, OutcomeKind.GAMMON, OutcomeKind.BACKGAMMON))
        return np.array([2.0 * s, g - s, b - g, s - g, g - b]), -float(s)
    o, m, h, k = (points_for(kind, rules) for kind in (OutcomeKind.OIN, OutcomeKind.MARS, OutcomeKind.HOME_MARS,
                                                       OutcomeKind.KOKS))
    return np.array([2.0 * o, m - o, h - m, k - m, o - m, m - h, m - k]), -float(o)
