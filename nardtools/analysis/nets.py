"""Neural networks that evaluate positions: the input encoding, the
probabilities they give, and the equity those probabilities are worth.

A network sees a position from the side on roll, before the roll, and gives
the probabilities of every outcome class its game scores (all from the side on
roll, each class including the stronger ones):

- backgammon: ``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``,
  ``lose_backgammon`` (GNU Backgammon's five);
- Long Nardy: ``win``, ``win_mars`` (марс: the loser bore off nothing),
  ``win_home_mars`` (домашний марс: a mars with all fifteen home), ``win_koks``
  (кокс: a mars with a checker left in the starting quarter), and the same
  three for losing.  Home mars and koks exclude each other.

**Encoding** (198 inputs; each side in its own numbering, the side on roll
first): for every point 1-24, four units for the checkers there, ``n >= 1``,
``n >= 2``, ``n >= 3`` and ``(n - 3) / 2`` beyond three (Tesauro's); then each
side's bar ``/ 2`` and checkers off ``/ 15``; then each side's pip count
``/ 100``.  Swapping the two halves flips the position: the symmetry the
tests check.  A race network adds each side's checkers off as a
thermometer (:data:`RACE_INPUTS`); a contact network adds each side's
shots, prime, mobility and contact left (:func:`contact_features`); a Long
Nardy blocks network, how each side's checkers are blocked
(:func:`block_features`).

**Network**: one hidden layer of sigmoid units, sigmoid outputs; weights in a
``.npz`` with their metadata (game, training ruleset, games trained, the
command that made them).  Inference runs in the compiled core where it is
built (``csrc/net.c``, :meth:`Network.outputs`), this module's numpy being
the reference it is held to; numpy alone does it without the core.

>>> import numpy as np
>>> from nardtools import Position
>>> x = encode(boards_of([Position.start("long")]))
>>> x.shape, float(x[0, 23 * 4 + 3])      # the head: 15 checkers, (15 - 3) / 2 beyond three
((1, 198), 6.0)
"""

from __future__ import annotations

import io
import json
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import AnalysisError
from ..outcome import OutcomeKind, classify, points_for

if TYPE_CHECKING:
    from ..position import Position
    from ..rules import Rules

INPUTS = 198
#: The outcome classes of each game, in the networks' output order.
CLASSES = {
    "backgammon": ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"),
    "long": ("win", "win_mars", "win_home_mars", "win_koks", "lose_mars", "lose_home_mars", "lose_koks"),
}
#: Where each class goes when the position is seen from the other side.
_FLIP = {"backgammon": (3, 4, 1, 2), "long": (4, 5, 6, 1, 2, 3)}
_PIPS = np.arange(1, 26, dtype=np.float32)
WEIGHTS_DIR = Path(__file__).resolve().parent.parent / "data" / "nets"
FORMAT_VERSION = 1
#: Rows a network evaluates at once (numpy's inputs of that many rows at a time).
BATCH = 4096
#: The compiled forward pass's outputs, padded (csrc/net.h's NET_MAX_OUTPUTS).
_PADDED = 8
#: The compiled forward pass's encodings (csrc/net.h's NET_BOARD ...).
_CORE_ENCODINGS = {("board", "backgammon"): 0, ("board", "long"): 0, ("race", "backgammon"): 1, ("race", "long"): 1,
                   ("contact", "backgammon"): 2, ("contact", "long"): 3, ("blocks", "long"): 4}


def boards_of(positions: Iterable[Position]) -> np.ndarray:
    """Positions as the (n, 52) int8 rows the encoder reads: the side on roll's
    26 counts, then the other side's (0 off, 1-24, 25 bar; own numbering)."""
    return np.array([tuple(p.mover) + tuple(p.opponent) for p in positions], np.int8).reshape(-1, 52)


def encode(boards: np.ndarray) -> np.ndarray:
    """The (n, 198) float32 inputs of (n, 52) board rows (see the module docstring)."""
    n = len(boards)
    sides = np.asarray(boards, np.float32).reshape(n, 2, 26)
    points = sides[:, :, 1:25]
    x = np.empty((n, INPUTS), np.float32)
    units = x[:, :192].reshape(n, 2, 24, 4)
    units[..., 0] = points >= 1
    units[..., 1] = points >= 2
    units[..., 2] = points >= 3
    units[..., 3] = np.maximum(points - 3, 0) / 2
    x[:, 192:194] = sides[:, :, 25] / 2
    x[:, 194:196] = sides[:, :, 0] / 15
    x[:, 196:198] = sides[:, :, 1:26] @ _PIPS / 100
    return x


#: A race network's inputs: :func:`encode`'s, then for each side fifteen
#: units ``off >= k`` (k = 1..15), the checkers borne off as a thermometer, so
#: that the network can tell a bear-off that needs one more roll from one that
#: does not (three checkers left against two) ...
RACE_INPUTS = INPUTS + 30
_OFF = np.arange(1, 16, dtype=np.float32)


def encode_race(boards: np.ndarray) -> np.ndarray:
    """The (n, 228) float32 inputs of a race network (:data:`RACE_INPUTS`).

    >>> x = encode_race(np.array([[13, 2] + [0] * 24 + [12, 3] + [0] * 24], np.int8))
    >>> x[0, INPUTS:].reshape(2, 15).sum(axis=1).tolist()       # 13 and 12 off
    [13.0, 12.0]
    """
    n = len(boards)
    x = np.empty((n, RACE_INPUTS), np.float32)
    x[:, :INPUTS] = encode(boards)
    off = np.asarray(boards, np.float32).reshape(n, 2, 26)[:, :, 0]
    x[:, INPUTS:] = (off[:, :, None] >= _OFF).reshape(n, 30)
    return x


#: A contact network's inputs: :func:`encode`'s, then four features for each
#: side (the side on roll first), the kind of knowledge gnubg's inputs add to
#: the raw board (:func:`contact_features`).
CONTACT_INPUTS = INPUTS + 8
#: A Long Nardy blocks network's inputs: :func:`encode`'s, then eight
#: features for each side, the side on roll first (:func:`block_features`).
BLOCKS_INPUTS = INPUTS + 16
#: Each encoding's input count (a network's ``encoding`` in its metadata).
ENCODINGS = {"board": INPUTS, "race": RACE_INPUTS, "contact": CONTACT_INPUTS, "blocks": BLOCKS_INPUTS}
#: The games whose positions each encoding is made for, those the compiled
#: forward pass has it for (the blocks: Long Nardy's, where a single checker
#: holds a point).
ENCODING_GAMES = {encoding: tuple(sorted(game for e, game in _CORE_ENCODINGS if e == encoding))
                  for encoding in ENCODINGS}
_BIT = np.int64(1) << np.arange(26, dtype=np.int64)
#: Each of the 36 rolls, ordered.
_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]


def check_encoding(game: str, encoding: str) -> None:
    """Raise :class:`AnalysisError` unless ``encoding`` is one of
    :data:`ENCODINGS` made for ``game``'s positions.

    >>> check_encoding("backgammon", "blocks")
    Traceback (most recent call last):
    nardtools.errors.AnalysisError: the inputs 'blocks' are for long, not backgammon
    """
    if encoding not in ENCODINGS:
        raise AnalysisError(f"no inputs {encoding!r}: one of {', '.join(ENCODINGS)}")
    if game not in ENCODING_GAMES[encoding]:
        raise AnalysisError(f"the inputs {encoding!r} are for {', '.join(ENCODING_GAMES[encoding])}, not {game}")


def _bits(where: np.ndarray) -> np.ndarray:
    """(n, k) booleans, k <= 26, as (n,) bit masks (bit p: point p)."""
    return where.astype(np.int64) @ _BIT[:where.shape[1]]


def _longest_run(mask: np.ndarray) -> np.ndarray:
    """The longest run of set bits of each mask."""
    run = np.zeros(len(mask), np.int64)
    mask = mask.copy()
    while mask.any():
        run += mask != 0
        mask &= mask << 1
    return run


def _shots(hitter: np.ndarray, victim: np.ndarray) -> np.ndarray:
    """Of the 36 rolls, how many let ``hitter`` (n, 26 counts, own numbering)
    hit a blot of ``victim`` (backgammon): a checker lands on the blot with
    one die, or with the dice in turn through open points (doubles: up to
    four steps).  A hitter on the bar hits only from the bar, with both
    dice only when it has one checker there, and with a double's fewer
    steps the more it has there (it must enter them first)."""
    mine = victim[:, ::-1]   # the victim's point 25 - p, at p: the hitter's numbering
    blot = _bits(mine == 1) & ~np.int64(1 | 1 << 25)
    open_ = _bits(mine < 2) & ~np.int64(1 | 1 << 25)
    on_bar = hitter[:, 25].astype(np.int64)
    src = np.where(on_bar > 0, np.int64(1) << 25, _bits(hitter > 0) & ~np.int64(1))
    combine = on_bar <= 1
    steps = np.where(on_bar > 0, np.maximum(1, 5 - on_bar), 4)
    count = np.zeros(len(hitter), np.int64)
    for a, b in _ROLLS:
        if a == b:
            hit = np.zeros(len(hitter), bool)
            m = src
            for k in range(1, 5):
                m = m >> a
                hit |= ((m & blot) != 0) & (k <= steps)
                m = m & open_
        else:
            hit = ((src >> a) & blot) != 0
            hit |= ((src >> b) & blot) != 0
            hit |= combine & (((((src >> a) & open_) >> b) | (((src >> b) & open_) >> a)) & blot != 0)
        count += hit
    return count


def _long_there(opp: np.ndarray) -> np.ndarray:
    """A Long Nardy side's checkers (n, 26 counts) at the other side's
    points: its point q is the other's q + 12 (mod 24); no bar."""
    there = np.zeros_like(opp)
    there[:, 1:25] = np.roll(opp[:, 1:25], 12, axis=1)
    return there


def _rear_prime_behind(me: np.ndarray, there: np.ndarray, blocked: np.ndarray) -> tuple[np.ndarray, ...]:
    """Of one side (``me``; ``there`` the other side's checkers at its
    points, ``blocked`` the points it cannot land on, as bits): its rearmost
    checker's point, the longest run of blocked points in front of it, and
    its checkers with one of the other side's in front of them."""
    occupied = _bits(me > 0) & ~np.int64(1)
    rear = np.where(occupied > 0, np.floor(np.log2(np.maximum(occupied, 1))).astype(np.int64), 0)
    prime = _longest_run(blocked & ((np.int64(1) << rear) - 2))
    theirs = _bits(there[:, :25] > 0)
    front = np.where(theirs > 0, np.log2(np.maximum(theirs & -theirs, 1)).astype(np.int64), 26)
    behind = np.where(np.arange(26) > front[:, None], me, 0)[:, 1:26].sum(axis=1)
    return rear, prime, behind


def _side_features(me: np.ndarray, opp: np.ndarray, game: str) -> np.ndarray:
    """The four contact features of one side (:func:`contact_features`)."""
    n = len(me)
    if game == "long":   # no bar, no hitting
        there = _long_there(opp)
        blocked = _bits(there > 0)
        shots = np.zeros(n, np.int64)
    else:                # the opponent's point q is my point 25 - q, its bar my 0
        there = opp[:, ::-1]
        blocked = _bits(there >= 2) & ~np.int64(1 | 1 << 25)
        shots = _shots(opp, me)
    rear, prime, behind = _rear_prime_behind(me, there, blocked)
    mobile = np.zeros(n, np.int64)
    for a, b in _ROLLS:
        ok = np.zeros(n, bool)
        for d in {a, b}:
            ok |= (rear - d <= 0) | ((blocked >> np.maximum(rear - d, 0)) & 1 == 0)
        mobile += ok & (rear > 0)
    out = np.empty((n, 4), np.float32)
    out[:, 0] = shots.astype(np.float32) / np.float32(36)
    out[:, 1] = prime.astype(np.float32) / np.float32(6)
    out[:, 2] = mobile.astype(np.float32) / np.float32(36)
    out[:, 3] = behind.astype(np.float32) / np.float32(15)
    return out


def contact_features(boards: np.ndarray, game: str) -> np.ndarray:
    """The (n, 8) contact features of board rows: for each side (the side on
    roll first), seen from that side,

    0. *shots*: the rolls of 36 with which the other side hits one of its
       blots (:func:`_shots`; none in Long Nardy, where nothing is hit);
    1. *prime*: the longest run of points the other side holds (backgammon:
       two checkers or more; Long Nardy: one) in front of its rearmost
       checker, in sixths;
    2. *mobility*: the rolls of 36 with which its rearmost checker can take
       a step (a die landing on a point not held, or bearing off);
    3. *behind*: its checkers that still have one of the other side's in
       front of them (a checker on the other side's bar is in front of all),
       in fifteenths: how much contact is left.

    >>> from nardtools import Position
    >>> start = boards_of([Position.start("backgammon")])    # only 55 keeps the back checkers in
    >>> (contact_features(start, "backgammon") * ([36, 6, 36, 15] * 2)).round().tolist()
    [[0.0, 1.0, 35.0, 15.0, 0.0, 1.0, 35.0, 15.0]]
    """
    sides = np.asarray(boards, np.int64).reshape(-1, 2, 26)
    return np.concatenate([_side_features(sides[:, 0], sides[:, 1], game),
                           _side_features(sides[:, 1], sides[:, 0], game)], axis=1)


def encode_contact(boards: np.ndarray, game: str) -> np.ndarray:
    """The (n, 206) float32 inputs of a contact network (:data:`CONTACT_INPUTS`)."""
    return np.concatenate([encode(boards), contact_features(boards, game)], axis=1)


def _run_from(held: np.ndarray, length: int) -> np.ndarray:
    """The lowest point of each mask's lowest run of ``length`` set bits (0: none)."""
    m = held.copy()
    for i in range(1, length):
        m &= held >> i
    return np.where(m > 0, np.log2(np.maximum(m & -m, 1)).astype(np.int64), 0)


def _block_side(me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """The eight block features of one side (:func:`block_features`)."""
    n = len(me)
    theirs = _long_there(opp)
    held = _bits(theirs > 0)
    _, prime, behind = _rear_prime_behind(me, theirs, held)
    there = theirs[:, 1:25] > 0                             # the points 1-24 the opponent holds
    count = me[:, 1:25]
    reach = np.concatenate([np.zeros((n, 1), np.int64), np.cumsum(there, axis=1)], axis=1)
    p = np.arange(1, 25)
    held_ahead = reach[:, p - 1] - reach[:, np.maximum(p - 7, 0)]   # held points among p-6 .. p-1
    home_only = (count[:, 6:] <= 0).all(axis=1, keepdims=True)
    playable = np.zeros(n, np.int64)
    for d in range(1, 7):
        lands = np.zeros((n, 24), bool)
        lands[:, d:] = ~there[:, :24 - d]                 # from p > d onto p - d, when not held
        lands[:, :d] = home_only                          # off the board, when all are home
        playable += ((count > 0) & lands).any(axis=1)
    out = np.empty((n, 8), np.float32)
    out[:, 0] = prime.astype(np.float32) / np.float32(6)
    out[:, 1] = behind.astype(np.float32) / np.float32(15)
    out[:, 2] = (count * held_ahead).sum(axis=1).astype(np.float32) / np.float32(90)
    out[:, 3] = (count * (held_ahead >= 3)).sum(axis=1).astype(np.float32) / np.float32(15)
    out[:, 4] = (count * (held_ahead >= 5)).sum(axis=1).astype(np.float32) / np.float32(15)
    out[:, 5] = (6 - playable).astype(np.float32) / np.float32(6)
    for k, length in ((6, 4), (7, 5)):
        low = _run_from(held, length)
        above = np.where((low[:, None] > 0) & (p > low[:, None] + length - 1), count, 0).sum(axis=1)
        out[:, k] = above.astype(np.float32) / np.float32(15)
    return out


def block_features(boards: np.ndarray) -> np.ndarray:
    """The (n, 16) block features (блок: points held in a row) of Long Nardy
    board rows: for each side (the side on roll first), seen from that side,
    where a point the other side holds (one checker is enough) cannot be
    landed on,

    0. *prime*: the longest run of points the other side holds in front of
       its rearmost checker, in sixths (as :func:`contact_features`);
    1. *behind*: its checkers with one of the other side's in front of
       them, in fifteenths (as :func:`contact_features`);
    2. *held ahead*: over its checkers, the points the other side holds
       among the six in front of each (those a die lands on), in ninetieths;
    3. *hemmed*: its checkers with at least three of those six held, in
       fifteenths;
    4. *shut in*: ... with at least five held;
    5. *dead dice*: the die values, of six, with which none of its checkers
       can take a step (onto a point not held; off the board when all are
       home), in sixths;
    6. *behind a 4-block*: its checkers above the other side's lowest run of
       four held points, in fifteenths;
    7. *behind a 5-block*: the same for a run of five.

    >>> from nardtools import Position
    >>> start = boards_of([Position.start("long")])   # each head: the other's head 12 points ahead
    >>> (block_features(start) * ([6, 15, 90, 15, 15, 6, 15, 15] * 2)).round().tolist()
    [[1.0, 15.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 15.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
    """
    sides = np.asarray(boards, np.int64).reshape(-1, 2, 26)
    return np.concatenate([_block_side(sides[:, 0], sides[:, 1]), _block_side(sides[:, 1], sides[:, 0])], axis=1)


def encode_blocks(boards: np.ndarray) -> np.ndarray:
    """The (n, 214) float32 inputs of a Long Nardy blocks network (:data:`BLOCKS_INPUTS`)."""
    return np.concatenate([encode(boards), block_features(boards)], axis=1)


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


def furthest(rows: np.ndarray) -> np.ndarray:
    """Each side's furthest checker from home in board rows (n, 52): the
    highest point 1-25 (25 the bar) that holds one, 0 when the side has none
    left in play; (n, 2) int8, by the compiled core where it is in use.

    >>> furthest(np.array([[0, 0, 3] + [0] * 23 + [15] + [0] * 25], np.int8)).tolist()
    [[2, 0]]
    """
    from ..core import compiled

    rows = np.ascontiguousarray(rows, np.int8).reshape(-1, 52)
    core = compiled()
    if core is not None:
        out = np.empty((len(rows), 2), np.int8)
        core.furthest(rows, out)
        return out
    held = rows.reshape(-1, 2, 26)[:, :, :0:-1] != 0   # points 25 down to 1
    return np.where(held.any(axis=2), 25 - held.argmax(axis=2), 0).astype(np.int8)


def finished(rows: np.ndarray) -> np.ndarray:
    """Which rows (n, 52) are finished games: a side has no checker left in
    play (whatever the ruleset's number of checkers: hypergammon has three)."""
    return (furthest(rows) == 0).any(axis=1)  # type: ignore[no-any-return]


def mover_won(rows: np.ndarray) -> Any:
    """Whether the side that just played (each row's second half) has borne
    off its last checker: for one row (52) or many (n, 52)."""
    rows = np.asarray(rows)
    won = furthest(rows)[:, 1] == 0
    return won[0] if rows.ndim == 1 else won


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


#: The rows of the core's point table (csrc/net.h NET_TABLE_ROWS: 2 sides x 24 points x 0-15 checkers).
_TABLE_ROWS = 48 * 16
#: The core's forward-pass arguments of frozen networks (Network._compiled_weights).
_COMPILED: weakref.WeakKeyDictionary[Network, tuple[Any, ...]] = weakref.WeakKeyDictionary()
#: The digests of frozen networks (Network.digest): each evaluator asks for its main network's.
_DIGESTS: weakref.WeakKeyDictionary[Network, str] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, eq=False)
class Network:
    """A one-hidden-layer network and what is known of how it was made."""

    game: str
    w1: np.ndarray  # (INPUTS, hidden)
    b1: np.ndarray
    w2: np.ndarray  # (hidden, classes)
    b2: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def random(cls, game: str, hidden: int, seed: int, *, race_points: int = 0, encoding: str = "board") -> Network:
        """Small random weights (training starts here); with ``race_points``,
        a race network for the races within those points; ``encoding`` the
        main network's inputs (:data:`ENCODINGS`)."""
        check_encoding(game, encoding)
        rng = np.random.default_rng(seed)
        k = len(CLASSES[game])
        meta: dict[str, Any] = {"game": game, "hidden": hidden, "games": 0}
        if race_points:
            meta.update(kind="race", points=race_points)
        elif encoding != "board":
            meta.update(encoding=encoding)
        return cls(game, (rng.standard_normal((RACE_INPUTS if race_points else ENCODINGS[encoding], hidden)) * 0.1)
                   .astype(np.float32), np.zeros(hidden, np.float32),
                   (rng.standard_normal((hidden, k)) * 0.1).astype(np.float32), np.zeros(k, np.float32), meta)

    @classmethod
    def mean_of(cls, members: list[Network]) -> Network:
        """One network whose output logits are the mean of the members' (an
        ensemble evaluated as one forward pass): their hidden layers side by
        side, each one's output weights divided by their number. The members
        are main networks of one game and one encoding; the metadata keeps
        their game, encoding and latest generation, says how it was made
        (``method``), and keeps each one's name, digest, method and commands
        under ``members``.

        >>> a, b = Network.random("long", 4, seed=1), Network.random("long", 6, seed=2)
        >>> both = Network.mean_of([a, b])
        >>> x = np.random.default_rng(3).random((5, a.inputs), dtype=np.float32)
        >>> logit = lambda p: np.log(p / (1 - p))
        >>> both.w1.shape[1], bool(np.allclose(logit(both(x)), (logit(a(x)) + logit(b(x))) / 2, atol=1e-4))
        (10, True)
        """
        if len(members) < 2:
            raise AnalysisError("a mean of networks needs two or more of them")
        first = members[0]
        for net in members:
            if net.is_race or net.is_prune or (net.game, net.encoding) != (first.game, first.encoding):
                raise AnalysisError(f"{net.name} [{net.digest}]: a mean is of main networks of one game and one "
                                    f"encoding ({first.game}, {first.encoding})")
        k = len(members)
        w1 = np.concatenate([net.w1 for net in members], axis=1)
        generation = max(int(net.meta.get("generation", 0)) for net in members)
        meta: dict[str, Any] = {"game": first.game, "hidden": w1.shape[1],
                                **({"encoding": first.encoding} if first.encoding != "board" else {}),
                                **({"generation": generation} if generation else {}),
                                "method": f"the mean of {k} networks' output logits, their {w1.shape[1]:,} hidden "
                                          "units side by side (members)",
                                "members": [{"name": net.name, "digest": net.digest, "hidden": int(net.w1.shape[1]),
                                             "method": net.meta.get("method", ""),
                                             "commands": net.meta.get("commands", [])} for net in members]}
        return cls(first.game, w1, np.concatenate([net.b1 for net in members]),
                   np.concatenate([net.w2 for net in members]) / np.float32(k),
                   np.stack([net.b2 for net in members]).mean(axis=0, dtype=np.float64).astype(np.float32), meta)

    @property
    def is_race(self) -> bool:
        """A race network (:mod:`.racenet`), not a game's main one."""
        return self.meta.get("kind") == "race"

    @property
    def is_prune(self) -> bool:
        """A pruning network (:mod:`.prunenet`), not a game's main one."""
        return self.meta.get("kind") == "prune"

    @property
    def encoding(self) -> str:
        """Its inputs (:data:`ENCODINGS`): ``board``, a race network's ``race``,
        ``contact`` (the board and :func:`contact_features`), or Long Nardy's
        ``blocks`` (the board and :func:`block_features`)."""
        return str(self.meta.get("encoding") or ("race" if self.is_race else "board"))

    @property
    def inputs(self) -> int:
        """How many inputs its encoding gives."""
        return ENCODINGS[self.encoding]

    @property
    def compiled_encoding(self) -> int:
        """Its encoding's number in the compiled forward pass (``csrc/net.h``)."""
        return _CORE_ENCODINGS[self.encoding, self.game]

    def encode(self, rows: np.ndarray) -> np.ndarray:
        """Board rows as this network's inputs."""
        if self.encoding == "contact":
            return encode_contact(rows, self.game)
        if self.encoding == "blocks":
            return encode_blocks(rows)
        return encode_race(rows) if self.is_race else encode(rows)

    @property
    def stem(self) -> str:
        """The shipped file's name without ``.npz``: the game, ``-race`` for a race
        network, ``-prune`` for a pruning one."""
        return f"{self.game}-race" if self.is_race else f"{self.game}-prune" if self.is_prune else self.game

    @property
    def name(self) -> str:
        """How results name the network: game, version and games trained
        (a race network: the positions it learned)."""
        version = self.meta.get("version", "dev")
        if self.is_race or self.is_prune:
            return (f"nardtools-{self.game}-{'race' if self.is_race else 'prune'}-{version} "
                    f"({self.meta.get('positions', 0):,} positions)")
        if self.meta.get("members"):  # (:meth:`mean_of`)
            return f"nardtools-{self.game}-{version} (the mean of {len(self.meta['members'])} networks)"
        if self.meta.get("generation"):  # trained on search targets (.searchnet)
            rollouts, outcomes = int(self.meta.get("rollouts", 0)), int(self.meta.get("outcomes", {}).get("positions", 0))
            return (f"nardtools-{self.game}-{version} (generation {self.meta['generation']}: "
                    f"{self.meta.get('positions', 0):,} positions at {self.meta.get('ply', 1)}-ply"
                    f"{f', {rollouts:,} on rollouts' if rollouts else ''}"
                    f"{f'; outputs refitted to {outcomes:,} self-play outcomes' if outcomes else ''})")
        return f"nardtools-{self.game}-{version} ({self.meta.get('games', 0):,} games)"

    @property
    def digest(self) -> str:
        """A short checksum of its weights (SHA-256, 16 hex digits): two
        networks of one name but other weights differ in it.

        >>> net = Network.random("long", 4, seed=1)
        >>> net.digest == Network.random("long", 4, seed=1).digest != Network.random("long", 4, seed=2).digest
        True
        """
        kept = _DIGESTS.get(self)
        if kept is not None:
            return kept
        import hashlib

        sha = hashlib.sha256()
        for array in (self.w1, self.b1, self.w2, self.b2):
            sha.update(np.ascontiguousarray(array, np.float32).tobytes())
        digest = sha.hexdigest()[:16]
        if not self.w1.flags.writeable:   # (kept only for weights that cannot change: freeze)
            _DIGESTS[self] = digest
        return digest

    def hidden(self, x: np.ndarray) -> np.ndarray:
        return sigmoid(x @ self.w1 + self.b1)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Probabilities (rows of ``CLASSES[game]``) of encoded inputs (rows):
        float32 throughout but the output layer's sums, in double, as the
        compiled core's are (summed in float over 1,024 hidden units they
        drift some 1e-6 from the exact outputs)."""
        logits = self.hidden(x).astype(np.float64) @ self.w2.astype(np.float64) + self.b2
        return sigmoid(logits.astype(np.float32))

    def outputs(self, rows: np.ndarray) -> np.ndarray:
        """The raw outputs (float32 rows) of board rows (n, 52): by the compiled
        core's forward pass (``csrc/net.c``) where it is in use, else by
        numpy (:meth:`__call__` of :meth:`encode`), the reference it is held to,
        in slices of :data:`BATCH` rows, so that a 2-ply look-ahead's tens of
        thousands of positions never hold their inputs all at once."""
        from ..core import compiled

        rows = np.ascontiguousarray(rows, np.int8).reshape(-1, 52)
        core = compiled()
        if core is None:
            return np.concatenate([self(self.encode(rows[k:k + BATCH])) for k in range(0, len(rows), BATCH)]
                                  or [np.zeros((0, len(self.b2)), np.float32)])
        weights = self._compiled_weights(core)
        out = np.empty((len(rows), weights[2]), np.float32)
        core.net_forward(*weights[:7], rows, out, weights[7])
        return out

    def _compiled_weights(self, core: Any) -> tuple[Any, ...]:
        """The arguments of the core's forward pass before the rows: the
        encoding, sizes and weights (the outputs padded to eight), and the
        point table (``net_table``), kept with a network whose weights are
        read-only (:meth:`freeze`), made for each call otherwise."""
        kept = _COMPILED.get(self)
        if kept is not None:
            return kept
        hidden, k = self.w2.shape
        w2 = np.zeros((hidden, _PADDED), np.float32)
        w2[:, :k] = self.w2
        b2 = np.zeros(_PADDED, np.float32)
        b2[:k] = self.b2
        args = (self.compiled_encoding, hidden, k, np.ascontiguousarray(self.w1), np.ascontiguousarray(self.b1), w2, b2)
        if self.w1.flags.writeable:   # (weights that may still change: a table would go stale)
            return (*args, None)
        table = np.empty((_TABLE_ROWS, hidden), np.float32)
        core.net_table(*args, table)
        _COMPILED[self] = kept = (*args, table)
        return kept

    def freeze(self) -> Network:
        """This network with its weights made read-only (a shipped network, shared
        by every evaluator of the process): the core then keeps its point table."""
        for array in (self.w1, self.b1, self.w2, self.b2):
            array.flags.writeable = False
        return self

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities of board rows (n, 52): :meth:`outputs` made :func:`consistent`."""
        return consistent(self.outputs(rows), self.game)

    def save(self, path: Path) -> None:
        """Write the weights and metadata as one ``.npz``, atomically."""
        buffer = io.BytesIO()
        meta = {**self.meta, "format": FORMAT_VERSION, "game": self.game}
        np.savez(buffer, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2, meta=np.array(json.dumps(meta)))
        from .._io import write_atomically

        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> Network:
        """Read weights written by :meth:`save`; a missing, damaged or foreign
        file is an :class:`AnalysisError` naming it."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                arrays = [np.asarray(data[k], np.float32) for k in ("w1", "b1", "w2", "b2")]
        except FileNotFoundError:
            raise AnalysisError(f"{path}: no such weights file") from None
        except (OSError, ValueError, KeyError, EOFError) as e:
            raise AnalysisError(f"{path}: not a nardtools weights file ({type(e).__name__}: {e})") from None
        game = meta.get("game")
        if meta.get("format") != FORMAT_VERSION or game not in CLASSES:
            raise AnalysisError(f"{path}: weights of format {meta.get('format')!r} for {game!r}; "
                                f"this nardtools reads format {FORMAT_VERSION}")
        w1, b1, w2, b2 = arrays
        net = cls(game, w1, b1, w2, b2, meta)
        k = len(CLASSES[game])
        if net.is_race and not 2 <= int(meta.get("points", 0)) <= 12:
            raise AnalysisError(f"{path}: a race network needs its points (2 to 12), not {meta.get('points')!r}")
        if net.encoding not in ENCODINGS or (net.encoding == "race") != net.is_race:
            raise AnalysisError(f"{path}: weights for inputs {net.encoding!r}, which this nardtools does not encode")
        if game not in ENCODING_GAMES[net.encoding]:
            raise AnalysisError(f"{path}: weights for inputs {net.encoding!r}, which are not made for {game}")
        if w1.shape[0] != net.inputs or w1.shape[1] != b1.shape[0] or w2.shape != (b1.shape[0], k) or b2.shape != (k,):
            raise AnalysisError(f"{path}: the weights' shapes do not fit a {game} network")
        if not all(np.isfinite(a).all() for a in arrays):
            raise AnalysisError(f"{path}: the weights hold NaN or infinite numbers")
        return net


def in_domain(rows: np.ndarray, points: int) -> np.ndarray:
    """Which board rows (n, 52) are unfinished races with both sides within
    ``points`` points (none beyond, none on the bar); for ``points`` <= 12
    such sides can never meet again, in either game.

    >>> rows = np.zeros((2, 52), np.int8)
    >>> rows[0, 6], rows[0, 26 + 3] = 15, 15        # both sides home: a race within 6 points
    >>> rows[1, 24], rows[1, 26 + 3] = 15, 15       # one side still on its 24-point
    >>> in_domain(rows, 6).tolist()
    [True, False]
    """
    reach = race_reach(rows)
    return (reach > 0) & (reach <= points)


def race_reach(rows: np.ndarray) -> np.ndarray:
    """The furthest point either side of each row (n, 52) still holds (25:
    the bar), 0 for a finished game: a row is in :func:`in_domain` of
    ``points`` when its reach is 1 to ``points``."""
    far = furthest(rows)
    return np.where((far > 0).all(axis=1), far.max(axis=1), 0)


@dataclass(frozen=True, eq=False)
class Networks:
    """A game's main network and, where it has one, its race network, which
    answers for the races within its points (its metadata's ``points``)."""

    main: Network
    race: Network | None = None

    @property
    def game(self) -> str:
        return self.main.game

    @property
    def name(self) -> str:
        return self.main.name

    def race_rows(self, rows: np.ndarray) -> np.ndarray:
        """Which rows the race network answers for."""
        if self.race is None:
            return np.zeros(len(rows), bool)
        return in_domain(rows, int(self.race.meta["points"]))

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities of board rows, each from the network that answers for it."""
        race = self.race_rows(rows)
        if not race.any():   # (no copy of the rows: most of a look-ahead's are in contact)
            return self.main.probabilities(rows)
        out = np.empty((len(rows), len(CLASSES[self.game])))
        out[race] = self.race.probabilities(rows[race])  # type: ignore[union-attr]
        if not race.all():
            out[~race] = self.main.probabilities(rows[~race])
        return out


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function, clipped where exp would overflow."""
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
    return out
