"""Telling record formats and text encodings apart.

Kept apart from the readers so that finding and sorting files (and the
compiled check in :mod:`nardtools.notation.validate`) do not load them.

>>> detect_format('[Game "long"]\\n1. X 64: 24/18/14')
'nrd'
>>> detect_format(" 5 point match\\n\\n Game 1\\n")
'mat'
>>> decode(b"\\xef\\xbb\\xbfJos\\xc3\\xa9\\r\\n"), decode("Jos\\xe9".encode("latin-1"))
('José\\n', 'José')

Records come from many sites and many years: :func:`detect_encoding` reads
UTF-8 (with or without a BOM), UTF-16 (with a BOM, or by its zero bytes),
Windows-1251 and KOI8-R (Russian sites) and Latin-1, by the rule documented
in ``docs/format.md``::

    >>> detect_encoding("Иван : 0   Пётр : 0".encode("cp1251"))
    ('cp1251', 'Cyrillic letters in Windows-1251')
    >>> detect_encoding("Иван : 0   Пётр : 0".encode("koi8-r"))
    ('koi8-r', 'Cyrillic letters in KOI8-R')
    >>> detect_encoding("José : 0".encode("latin-1"))
    ('latin-1', 'accented letters in Latin-1')
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from typing import BinaryIO

from ..errors import NardtoolsError

#: The ``.mat`` header line: ``N point match``.
MAT_HEADER = re.compile(r"^\s*(\d{1,9})\s+point\s+match\b", re.IGNORECASE)
_NATIVE_START = re.compile(r'^\s*\[[\w-]+(?: [\w-]+)*\s+"')
#: The encodings ``--encoding`` names most often; any codec Python knows is accepted.
KNOWN_ENCODINGS = ("utf-8", "utf-16", "cp1251", "koi8-r", "latin-1")
_SAMPLE = 1 << 16
_HIGH_RUNS = re.compile(rb"[\x80-\xff]+")
_UPPER_HALF = bytes(range(0xC0, 0xE0))
_LOWER_HALF = bytes(range(0xE0, 0x100))


class EncodingError(NardtoolsError, ValueError):
    """Bytes that are not text in any encoding we read (or in the one given)."""


def check_encoding(name: str) -> str:
    """The codec's canonical name; :class:`EncodingError` if Python has no such codec."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise EncodingError(f"unknown encoding {name!r}; for example {', '.join(KNOWN_ENCODINGS)}") from None


def detect_encoding(data: bytes, *, complete: bool = True) -> tuple[str, str]:
    """``(codec, why)`` for a record's bytes (``complete``: all of them, so that
    UTF-8 is checked to the end).  Raises :class:`EncodingError` for binary data."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig", "a UTF-8 byte order mark"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", "a UTF-16 byte order mark"
    head = data[:_SAMPLE]
    if b"\0" in head:
        even, odd = head[0::2].count(0), head[1::2].count(0)
        if odd > len(head) // 8 and even == 0:
            return "utf-16-le", "zero bytes in every other place (UTF-16 without a byte order mark)"
        if even > len(head) // 8 and odd == 0:
            return "utf-16-be", "zero bytes in every other place (UTF-16 without a byte order mark)"
        raise EncodingError("binary data, not a text record")
    try:
        (data if complete else _whole_chars(head)).decode("utf-8")
        return "utf-8", "valid UTF-8"
    except UnicodeDecodeError:
        pass
    return single_byte_encoding(data)


def _whole_chars(head: bytes) -> bytes:
    """``head`` without a UTF-8 sequence cut at its end."""
    for cut in range(1, 4):
        if len(head) >= cut and head[-cut] >= 0xC0:
            return head[:-cut]
    return head


def single_byte_encoding(data: bytes) -> tuple[str, str]:
    """Windows-1251, KOI8-R or Latin-1 (see ``docs/format.md``): Cyrillic words
    are runs of bytes above 0x7F, accented Latin letters stand alone among
    ASCII ones.  Russian text is mostly lower case, which Windows-1251 puts at
    E0-FF and KOI8-R at C0-DF."""
    runs = _HIGH_RUNS.findall(data[:1 << 20])
    high = sum(map(len, runs))
    paired = sum(len(r) for r in runs if len(r) > 1)
    joined = b"".join(runs)
    upper_half = len(joined) - len(joined.translate(None, _UPPER_HALF))
    lower_half = len(joined) - len(joined.translate(None, _LOWER_HALF))
    if high and paired >= 0.6 * high:
        if upper_half > lower_half:
            return "koi8-r", "Cyrillic letters in KOI8-R"
        return "cp1251", "Cyrillic letters in Windows-1251"
    return "latin-1", "accented letters in Latin-1"


def normalise(text: str) -> str:
    """LF line ends and tabs expanded to 8 columns, as every reader expects."""
    return text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(8)


def decode(data: bytes, encoding: str | None = None) -> str:
    """Text of a record file's bytes (see :func:`detect_encoding`), normalised."""
    codec = check_encoding(encoding) if encoding else detect_encoding(data)[0]
    try:
        return normalise(data.decode(codec))
    except UnicodeDecodeError as e:
        raise EncodingError(f"not {codec} text: {e.reason} at byte {e.start}") from None


#: The most bytes any input is read to: no record, archive file or batch of
#: positions comes near it, and an endless input (``/dev/zero``, a pipe that
#: never ends) stops here with an error instead of filling the memory.
MAX_INPUT = 256 << 20


class InputTooLarge(EncodingError):
    """An input longer than :data:`MAX_INPUT` bytes."""


def read_limited(source: str | Path | BinaryIO, what: str = "") -> bytes:
    """All the bytes of a file (any kind: a device or a pipe too) or of an
    open binary stream, refusing past :data:`MAX_INPUT`.

    Raises :class:`InputTooLarge` (its message begins with ``what``, when
    given), ``OSError`` when the file cannot be read."""
    if isinstance(source, (str, Path)):
        with open(source, "rb") as f:
            return read_limited(f, what)
    data = source.read(MAX_INPUT + 1)
    if len(data) > MAX_INPUT:
        raise InputTooLarge((f"{what}: " if what else "") + f"more than {MAX_INPUT >> 20} MiB; no record or "
                            "batch is this large (an endless input?): not read")
    return data


def read_text_file(path: str | Path) -> str:
    """A small text file of ours (a batch of positions): UTF-8, a BOM allowed.
    Raises :class:`EncodingError` for binary or other text or one too large,
    ``OSError`` when it cannot be read."""
    data = read_limited(path, str(path))
    if b"\0" in data:
        raise EncodingError(f"{path}: binary data, not a text file")
    try:
        return normalise(data.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise EncodingError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def looks_like_mat(text: str) -> bool:
    """Whether ``text`` has a ``N point match`` header within its first 200 lines."""
    return any(MAT_HEADER.match(line) for line in text.split("\n", 200)[:200])


_MAT_BODY = (re.compile(r"^\s*Game\s+\d{1,9}\s*$", re.IGNORECASE | re.MULTILINE),
             re.compile(r"^\s*\d{1,9}\)\s+(?:[1-6][1-6]:|Doubles)", re.IGNORECASE | re.MULTILINE))


def looks_like_mat_body(text: str) -> bool:
    """Whether ``text`` has the games of a ``.mat`` file (a ``Game N`` line
    and numbered moves), header or not: a match whose ``N point match`` line
    was lost is still a record, to be reported, not a note to pass over.

    >>> looks_like_mat_body(" Game 1\\n a : 0   b : 0\\n  1) 31: 8/5 6/5\\n")
    True
    """
    return all(pattern.search(text) for pattern in _MAT_BODY)


def looks_native(text: str) -> bool:
    """Whether ``text`` starts (after blank lines) with a ``[Tag "value"]`` line."""
    for line in text.split("\n", 200)[:200]:
        if line.strip():
            return bool(_NATIVE_START.match(line))
    return False


_SGF_START = re.compile(r"\A[\s\ufeff]*\(\s*;")


def looks_sgf(text: str) -> bool:
    """Whether ``text`` starts (after white space) with an SGF game tree ``(;``."""
    return bool(_SGF_START.match(text))


def detect_format(text: str) -> str | None:
    """``"nrd"`` for the native format (it starts with a tag), ``"sgf"`` for
    SGF (it starts with ``(;``), ``"mat"`` when the text has a ``N point
    match`` header, else ``None``.

    >>> detect_format("(;FF[4]GM[6]")
    'sgf'
    """
    if looks_native(text):
        return "nrd"
    if looks_sgf(text):
        return "sgf"
    return "mat" if looks_like_mat(text) else None
