"""Rolls of two dice (зары).

>>> r = Roll.parse("46")
>>> r, str(r), r.dice, r.weight
(Roll(6, 4), '64', (6, 4), 2)
>>> Roll(5, 5).dice
(5, 5, 5, 5)
>>> len(ALL_ROLLS), sum(r.weight for r in ALL_ROLLS)
(21, 36)
>>> Roll(6, 5).persian_name
'shesh-besh'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InvalidPlayError

# The Persian (Farsi) names of the 21 rolls, as listed in seed 001 ("Шиком при
# игре считается называть комбинации по-персидски"), in Latin transliteration
# and in the seed's Cyrillic.  The seed's shorter list calls 5:5 "ду-пяндж".
PERSIAN_NAMES: dict[tuple[int, int], tuple[str, str]] = {
    (1, 1): ("apek", "апек"),
    (2, 1): ("iki-bir", "ики-бир"),
    (2, 2): ("du-bara", "ду-бара"),
    (3, 1): ("se-ek", "се-ек"),
    (3, 2): ("se-bae-du", "сэ-бае-ду"),
    (3, 3): ("jut-se", "сджют-сэ"),
    (4, 1): ("jar-ek", "джеар-ек"),
    (4, 2): ("jar-du", "чар-ду"),
    (4, 3): ("jar-se", "джеар-се"),
    (4, 4): ("dor-jar", "дор-джар"),
    (5, 1): ("panj-ek", "пандж-ек"),
    (5, 2): ("panj-du", "пандж-ду"),
    (5, 3): ("panj-se", "пандж-се"),
    (5, 4): ("panj-jar", "пандж-джеар"),
    (5, 5): ("du-besh", "ду-беш"),
    (6, 1): ("shesh-ek", "шеш-ек"),
    (6, 2): ("shesh-du", "шеш-ду"),
    (6, 3): ("shesh-se", "шеш-се"),
    (6, 4): ("jar-shesh", "джеар-шеш"),
    (6, 5): ("shesh-besh", "шеш-беш"),
    (6, 6): ("du-shesh", "ду-шеш"),
}

_ROLL_RE = re.compile(r"\s*([1-6])\s*[-:x ]?\s*([1-6])\s*")


@dataclass(frozen=True, slots=True, order=True)
class Roll:
    """A roll of two dice, stored larger die first; ``str`` is ``"64"``."""

    high: int
    low: int

    def __post_init__(self) -> None:
        if not (1 <= self.high <= 6 and 1 <= self.low <= 6):
            raise InvalidPlayError(f"dice must be 1..6, got {self.high} and {self.low}")
        if self.low > self.high:
            hi, lo = self.low, self.high
            object.__setattr__(self, "high", hi)
            object.__setattr__(self, "low", lo)

    @classmethod
    def parse(cls, text: str) -> Roll:
        """Read ``"64"``, ``"6-4"``, ``"6:4"``, ``"4 6"`` (either order)."""
        m = _ROLL_RE.fullmatch(text)
        if not m:
            raise InvalidPlayError(f"cannot read dice {text!r}; expected two digits 1-6 such as '64'")
        return cls(int(m[1]), int(m[2]))

    @property
    def is_double(self) -> bool:
        """True for a double (куш, дубль)."""
        return self.high == self.low

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice to play: two values, or four for a double."""
        return (self.high,) * 4 if self.is_double else (self.high, self.low)

    @property
    def weight(self) -> int:
        """How many of the 36 equally likely throws give this roll."""
        return 1 if self.is_double else 2

    @property
    def pips(self) -> int:
        """Total pips of the roll (a double counts four times)."""
        return sum(self.dice)

    @property
    def persian_name(self) -> str:
        """The Persian name of the roll (seed 001), transliterated."""
        return PERSIAN_NAMES[(self.high, self.low)][0]

    @property
    def persian_name_ru(self) -> str:
        """The Persian name of the roll as written in seed 001 (Cyrillic)."""
        return PERSIAN_NAMES[(self.high, self.low)][1]

    def __str__(self) -> str:
        return f"{self.high}{self.low}"

    def __repr__(self) -> str:
        return f"Roll({self.high}, {self.low})"


#: The 21 distinct rolls, doubles included, highest first.
ALL_ROLLS: tuple[Roll, ...] = tuple(Roll(h, l) for h in range(6, 0, -1) for l in range(h, 0, -1))


@dataclass(frozen=True, slots=True)
class Dice:
    """Dice to play that are not a whole roll: the unplayed part of a roll
    passed to the opponent (gul-bara), or one double of crazy gul-bara's
    sequence played twice.  It offers the same view as :class:`Roll`.

    >>> Dice((5, 5)).dice, Dice((5, 5)).is_double, str(Dice((4,)))
    ((5, 5), True, '4')
    """

    values: tuple[int, ...]

    def __post_init__(self) -> None:
        if not 1 <= len(self.values) <= 4 or not all(1 <= v <= 6 for v in self.values):
            raise InvalidPlayError(f"dice to play must be one to four values 1..6, got {self.values}")
        object.__setattr__(self, "values", tuple(sorted(self.values, reverse=True)))

    @property
    def dice(self) -> tuple[int, ...]:
        """The values, largest first."""
        return self.values

    @property
    def is_double(self) -> bool:
        """True when every value is the same (the order of play cannot matter)."""
        return len(set(self.values)) == 1

    @property
    def high(self) -> int:
        """The largest value."""
        return self.values[0]

    @property
    def low(self) -> int:
        """The smallest value."""
        return self.values[-1]

    def __str__(self) -> str:
        return "".join(map(str, self.values))


_MASK = (1 << 64) - 1


class SplitMix64:
    """Seeded dice: SplitMix64, exactly as the compiled core draws them, so that
    a seed plays the same games with either engine (playouts, ``Game(seed=)``).

    >>> rng = SplitMix64(1)
    >>> [rng.die() for _ in range(8)]
    [6, 2, 1, 6, 4, 3, 4, 4]
    """

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next(self) -> int:
        """The next 64-bit number."""
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A number in ``0 .. n - 1``, every one equally likely."""
        limit = _MASK - (_MASK % n + 1) % n
        while True:
            x = self.next()
            if x <= limit:
                return x % n

    def die(self) -> int:
        return 1 + self.below(6)
