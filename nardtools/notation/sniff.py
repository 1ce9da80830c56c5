"""Telling record formats apart, and reading a record file's bytes as text.

Kept apart from the readers so that finding and sorting files (and the
compiled check in :mod:`nardtools.notation.validate`) do not load them.

>>> detect_format('[Game "long"]\\n1. X 64: 24/18/14')
'nrd'
>>> detect_format(" 5 point match\\n\\n Game 1\\n")
'mat'
>>> decode(b"\\xef\\xbb\\xbfJos\\xc3\\xa9\\r\\n"), decode("Jos\\xe9".encode("latin-1"))
('José\\n', 'José')
"""

from __future__ import annotations

import re

#: The ``.mat`` header line: ``N point match``.
MAT_HEADER = re.compile(r"^\s*(\d+)\s+point\s+match\b", re.IGNORECASE)
_NATIVE_START = re.compile(r'^\s*\[\w+\s+"')


def decode(data: bytes) -> str:
    """Text of a record file: UTF-8 (BOM dropped) or latin-1; LF line ends; tabs expanded."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(8)


def looks_like_mat(text: str) -> bool:
    """Whether ``text`` has a ``N point match`` header within its first 200 lines."""
    return any(MAT_HEADER.match(line) for line in text.split("\n")[:200])


def looks_native(text: str) -> bool:
    """Whether ``text`` starts (after blank lines) with a ``[Tag "value"]`` line."""
    for line in text.split("\n"):
        if line.strip():
            return bool(_NATIVE_START.match(line))
    return False


def detect_format(text: str) -> str | None:
    """``"nrd"`` for the native format (it starts with a tag), ``"mat"`` when
    the text has a ``N point match`` header, else ``None``."""
    if looks_native(text):
        return "nrd"
    return "mat" if looks_like_mat(text) else None
