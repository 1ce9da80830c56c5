"""The networks' inputs: board rows encoded as the numbers a network reads.

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

>>> from nardtools import Position
>>> from nardtools.analysis.rows import boards_of
>>> x = encode(boards_of([Position.start("long")]))
>>> x.shape, float(x[0, 23 * 4 + 3])      # the head: 15 checkers, (15 - 3) / 2 beyond three
((1, 198), 6.0)
"""

from __future__ import annotations

import numpy as np

from ..errors import AnalysisError

INPUTS = 198


_PIPS = np.arange(1, 26, dtype=np.float32)


#: The compiled forward pass's encodings (csrc/net.h's NET_BOARD ...).
CORE_ENCODINGS = {("board", "backgammon"): 0, ("board", "long"): 0, ("race", "backgammon"): 1, ("race", "long"): 1,
                   ("contact", "backgammon"): 2, ("contact", "long"): 3, ("blocks", "long"): 4}


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
ENCODING_GAMES = {encoding: tuple(sorted(game for e, game in CORE_ENCODINGS if e == encoding))
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
    >>> from nardtools.analysis.rows import boards_of
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
    >>> from nardtools.analysis.rows import boards_of
    >>> start = boards_of([Position.start("long")])   # each head: the other's head 12 points ahead
    >>> (block_features(start) * ([6, 15, 90, 15, 15, 6, 15, 15] * 2)).round().tolist()
    [[1.0, 15.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 15.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
    """
    sides = np.asarray(boards, np.int64).reshape(-1, 2, 26)
    return np.concatenate([_block_side(sides[:, 0], sides[:, 1]), _block_side(sides[:, 1], sides[:, 0])], axis=1)


def encode_blocks(boards: np.ndarray) -> np.ndarray:
    """The (n, 214) float32 inputs of a Long Nardy blocks network (:data:`BLOCKS_INPUTS`)."""
    return np.concatenate([encode(boards), block_features(boards)], axis=1)
