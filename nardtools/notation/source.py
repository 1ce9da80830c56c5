"""A record file's text, line by line, in bounded memory.

:class:`RecordText` decodes a file (or bytes already read) in blocks, so that
reading a record of any size holds one block and one line at a time; it can
go through the lines more than once (a ``.mat`` file's tags are gathered
before its games are replayed).  A line longer than :data:`MAX_LINE`
characters is not a line of any record: it comes out as an :class:`Overlong`
marker, which the readers report, so that a megabyte of junk on one line costs
time linear in its size and no more.

>>> text = RecordText("a.mat", " 1 point match\\r\\n\\r\\n Game 1\\r x" + "y" * 20000 + "\\n")
>>> [(type(line).__name__, len(line)) for line in text.lines()]
[('str', 14), ('str', 0), ('str', 7), ('Overlong', 0)]
>>> text.encoding, text.why
('utf-8', 'valid UTF-8')
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator
from stat import S_ISREG

from .record import RecordError
from .sniff import (
    MAX_INPUT,
    EncodingError,
    InputTooLarge,
    check_encoding,
    detect_encoding,
    read_limited,
    single_byte_encoding,
)

#: The longest line a record may have, in characters.
MAX_LINE = 10_000
#: Files up to this size are read into memory at once; larger ones in blocks.
IN_MEMORY = 8 << 20
_BLOCK = 1 << 20


#: How much of an overlong line's start is kept (for the format sniffers).
_START = 256


class Overlong(str):
    """Stands for a line longer than :data:`MAX_LINE`; ``length`` says how
    long, ``start`` is its first characters (an SGF file may be one line)."""

    length: int
    start: str

    def __new__(cls, length: int, start: str = "") -> Overlong:
        made = super().__new__(cls, "")
        made.length, made.start = length, start[:_START]
        return made


class RecordText:
    """The decoded lines of a record file (``data``: its bytes, if already read).

    ``encoding`` is the codec used and ``why`` the reason (detected, or given).
    Raises :class:`RecordError` when the file cannot be read, is empty or binary.
    """

    def __init__(self, path: str, data: bytes | str | None = None, encoding: str | None = None) -> None:
        self.path = path
        self._data = data.encode("utf-8") if isinstance(data, str) else data
        try:
            if self._data is None:
                stat = os.stat(path)
                if not S_ISREG(stat.st_mode) or stat.st_size <= IN_MEMORY:  # (a device or a pipe: read once)
                    self._data = read_limited(path)
                elif stat.st_size > MAX_INPUT:
                    raise InputTooLarge(f"{stat.st_size >> 20:,} MiB; no record is larger than "
                                        f"{MAX_INPUT >> 20} MiB: not read")
            if self._data is not None and not self._data:
                raise RecordError("empty file: no record in it", path=path)
            if encoding:
                self.encoding, self.why = check_encoding(encoding), "given"
            elif self._data is not None:
                self.encoding, self.why = detect_encoding(self._data)
            else:
                self.encoding, self.why = self._detect_in_blocks()
        except OSError as e:
            raise RecordError(f"cannot read: {e.strerror or e}", path=path) from None
        except EncodingError as e:
            raise RecordError(str(e), path=path) from None

    def _blocks(self) -> Iterator[bytes]:
        if self._data is not None:
            for i in range(0, len(self._data), _BLOCK):
                yield self._data[i:i + _BLOCK]
            return
        with open(self.path, "rb") as f:
            while block := f.read(_BLOCK):
                yield block

    def _detect_in_blocks(self) -> tuple[str, str]:
        """Detection for a file too large to hold: its head decides, and UTF-8
        is checked to the end as the blocks go by."""
        blocks = self._blocks()
        head = next(blocks, b"")
        if not head:
            raise RecordError("empty file: no record in it", path=self.path)
        codec, why = detect_encoding(head, complete=False)
        if codec != "utf-8":
            return codec, why
        decoder = codecs.getincrementaldecoder("utf-8")()
        try:
            decoder.decode(head)
            for block in blocks:
                if b"\0" in block:
                    raise EncodingError("binary data, not a text record")
                decoder.decode(block)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return single_byte_encoding(head)
        return codec, why

    def lines(self) -> Iterator[str]:
        """Every line, without its line end (LF, CRLF or CR), tabs expanded to
        8 columns; an :class:`Overlong` marker in place of an overlong line."""
        decoder = codecs.getincrementaldecoder(self.encoding)(errors="strict")
        pending: list[str] = []  # pieces of the line not yet ended
        start = ""  # the start of an overlong line
        size = 0  # its length so far
        carry = ""  # a CR at the end of a block: the next block may start with its LF
        try:
            for block in self._blocks():
                text = carry + decoder.decode(block)
                carry = "\r" if text.endswith("\r") else ""
                parts = (text[:-1] if carry else text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
                for part in parts[:-1]:
                    yield _line(pending, size + len(part), part, start)
                    pending, size, start = [], 0, ""
                size += len(parts[-1])
                if size <= MAX_LINE:
                    pending.append(parts[-1])
                elif pending or not start:  # only its length and its start are kept now
                    start, pending = ("".join(pending) + parts[-1])[:_START], []
            text = carry + decoder.decode(b"", final=True)
            parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for part in parts[:-1]:
                yield _line(pending, size + len(part), part, start)
                pending, size, start = [], 0, ""
            if size + len(parts[-1]):
                yield _line(pending, size + len(parts[-1]), parts[-1], start)
        except UnicodeDecodeError as e:
            raise RecordError(f"not {self.encoding} text: {e.reason} (use --encoding to name the file's "
                              "encoding)", path=self.path) from None

    def text(self) -> str:
        """The whole text, line ends made LF (for formats not framed by lines,
        such as SGF, which may hold a whole match on one line)."""
        decoder = codecs.getincrementaldecoder(self.encoding)(errors="strict")
        try:
            text = "".join(decoder.decode(block) for block in self._blocks()) + decoder.decode(b"", final=True)
        except UnicodeDecodeError as e:
            raise RecordError(f"not {self.encoding} text: {e.reason} (use --encoding to name the file's "
                              "encoding)", path=self.path) from None
        return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")

    def head(self, lines: int = 200) -> str:
        """The first ``lines`` lines (the format sniffers look at no more)."""
        chunks = []
        for line in self.lines():
            chunks.append(line.start if isinstance(line, Overlong) else line)
            if len(chunks) == lines:
                break
        return "\n".join(chunks)


def _line(pieces: list[str], size: int, last: str, start: str = "") -> str:
    if size > MAX_LINE:
        return Overlong(size, start or ("".join(pieces) + last[:_START]))
    return ("".join(pieces) + last).expandtabs(8)
