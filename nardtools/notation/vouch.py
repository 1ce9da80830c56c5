"""Which ``.mat`` files the compiled core may read alone: their bytes and the
ruleset their tags give, read the way the reference reads them (the core
vouches for a file only where it would report nothing; see
:mod:`nardtools.notation.validate` and :mod:`nardtools.analysis.stats`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..core import compiled
from ..errors import NardtoolsError
from .source import IN_MEMORY
from .tags import tags_ruleset

if TYPE_CHECKING:
    from ..rules import Ruleset


def mat_file(path: str, data: bytes | None = None, rules: str | None = None,
             options: Mapping[str, str] | None = None, encoding: str | None = None) -> tuple[bytes, Ruleset] | None:
    """A ``.mat`` file's bytes and the ruleset it is replayed under (its tags',
    or ``rules`` and ``options`` on top of them, as
    :func:`~nardtools.notation.replay.record_ruleset` decides), when the core
    can read it alone; ``None`` when the core is absent, the file is standard
    input, not a regular file or larger than
    :data:`~nardtools.notation.source.IN_MEMORY`, cannot be read, has tags
    the core does not read as the reference does, or is not plain ASCII
    while an ``encoding`` is given (the core reads bytes as UTF-8; plain
    ASCII reads the same in any encoding that extends it).  The reference
    then reads it, and reports whatever is wrong."""
    return mat_files([(path, data)], rules, options, encoding)[0]


def mat_files(files: Sequence[tuple[str, bytes | None]], rules: str | None = None,
              options: Mapping[str, str] | None = None,
              encoding: str | None = None) -> list[tuple[bytes, Ruleset] | None]:
    """:func:`mat_file` of each ``(path, data)`` (``data`` ``None``: read from
    ``path``), the files to read read in one call that frees the interpreter."""
    core = compiled()
    if core is None:
        return [None] * len(files)
    to_read = [path for path, data in files if data is None and path != "-"]
    read = iter(core.mat_read_files(to_read, IN_MEMORY) if to_read else ())
    overrides = tuple(sorted((options or {}).items()))
    out: list[tuple[bytes, Ruleset] | None] = []
    for path, data in files:
        if data is None:
            got = next(read) if path != "-" else None
            data, tags = got if got is not None else (b"", None)
        else:
            tags = core.mat_tags(data)
        if tags is None or (encoding is not None and not (data.isascii() and _extends_ascii(encoding))):
            out.append(None)
            continue
        try:
            out.append((data, tags_ruleset(tuple(tags), rules, overrides)))
        except NardtoolsError:  # an unknown ruleset, a ruleset of the other game: the reference says so
            out.append(None)
    return out


_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n\r"


@functools.lru_cache(maxsize=64)
def _extends_ascii(encoding: str) -> bool:
    """Whether ``encoding`` reads plain ASCII as ASCII (UTF-8, Windows-1251,
    KOI8-R, Latin-1 do; UTF-16 does not)."""
    try:
        return _ASCII.decode(encoding) == _ASCII.decode("ascii")
    except (LookupError, UnicodeDecodeError):
        return False
