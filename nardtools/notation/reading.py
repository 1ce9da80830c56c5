"""Reading record files of any format: whole, or one game at a time.

:func:`open_record` sniffs a file's encoding and format and returns the
record's header with an iterator over its games, each read when it is asked
for, so that an archive of any size is read in memory bounded by its largest
game.  :func:`read_record` reads them all.  :func:`expand_paths` finds the
record files below folders.

>>> record, games = open_record("m.mat", b" 3 point match\\n\\n Game 1\\n a : 0   b : 0\\n  1) 31: 8/5 6/5\\n")
>>> record.format, record.encoding, [len(g.actions) for g in games], record.players
('mat', 'utf-8', [1], ('a', 'b'))
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .record import GameRecord, MatchRecord, RecordError
from .sniff import EncodingError, detect_format, looks_like_mat_body
from .source import RecordText

if TYPE_CHECKING:
    from .replay import ReplayedGame

#: File endings looked at inside directories.
RECORD_SUFFIXES = (".mat", ".txt", ".nrd", ".sgf")
#: The formats :func:`open_record` reads, as ``validate --help`` lists them.
FORMATS = {"mat": "Jellyfish .mat (GNU Backgammon, XG, Galaxy, Backgammon Studio, DailyGammon, GridGammon)",
           "nrd": "the native annotated format (.nrd)",
           "sgf": "GNU Backgammon's SGF (.sgf), with its analysis"}


def open_record(path: str | Path, data: bytes | str | None = None,
                encoding: str | None = None) -> tuple[MatchRecord, Iterator[GameRecord]]:
    """The header of a record file and an iterator over its games (``data``:
    the file's bytes, if already read; ``encoding`` overrides detection).

    Raises :class:`RecordError` when the file cannot be read or its format is
    unknown; syntax problems found while the games are read go to the
    header's ``errors``."""
    text = RecordText(str(path), data, encoding)
    fmt = detect_format(text.head())
    if fmt is None:
        raise RecordError("unknown format: not a native record (.nrd), not SGF (no '(;' at the start), "
                          "not a .mat file (no 'N point match' header)", path=str(path))
    record = MatchRecord(path=str(path), format=fmt, encoding=text.encoding, encoding_why=text.why)
    if fmt == "mat":
        from .mat import mat_games, mat_tags

        mat_tags(text.lines(), record)
        return record, mat_games(text.lines(), record, comments=False)
    if fmt == "sgf":
        from .sgf import sgf_games

        return record, sgf_games(text.text(), record)
    from .native import native_games

    return record, native_games(text.lines(), record)


def read_record(path: str | Path, data: bytes | str | None = None, encoding: str | None = None) -> MatchRecord:
    """Read a whole record file of any known format (see :func:`open_record`)."""
    record, games = open_record(path, data, encoding)
    record.games = list(games)
    return record


def _looks_like_record(path: Path) -> bool:
    """Whether a ``.txt`` file found in a folder is to be read: a record (a
    ``.mat`` match without its header too), or a file that cannot be a plain
    note (empty, binary, unreadable), which validation then reports."""
    try:
        with path.open("rb") as f:
            head = f.read(8192)
    except OSError:
        return True
    if not head:
        return True
    if b"\0" not in head:  # the sniffers' marks are ASCII: any 8-bit text shows them as Latin-1 does
        text = head.decode("latin-1").lstrip("\xef\xbb\xbf").replace("\r\n", "\n").replace("\r", "\n")
    else:
        try:
            text = RecordText(str(path), head).head()  # UTF-16, or binary: reported
        except (RecordError, EncodingError):
            return True
    return detect_format(text) is not None or looks_like_mat_body(text)


def expand_paths(paths: Iterable[str | Path]) -> list[str]:
    """Files named, and record files found below directories named, sorted.
    Inside directories every ``.mat`` and ``.nrd`` file is taken, and the
    ``.txt`` files that hold a record (or are empty or binary: they are
    reported, not skipped)."""
    files: list[str] = []
    for p in map(Path, paths):
        if str(p) != "-" and p.is_dir():
            files.extend(sorted(_records_below(str(p))))
        else:
            files.append(str(p))
    return files


def _records_below(folder: str) -> Iterator[str]:
    """The record files below ``folder`` (a walk by ``os.scandir``: a
    pathlib object a file costs more than validating a small one)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):   # (as Path.rglob: links to folders are not followed)
                yield from _records_below(entry.path)
                continue
            suffix = os.path.splitext(entry.name)[1].lower()
            if suffix in RECORD_SUFFIXES and entry.is_file() and (suffix != ".txt" or _looks_like_record(
                    Path(entry.path))):
                yield entry.path
        except OSError:
            continue


def read_games(source: str | Path, *, rules: str | None = None, encoding: str | None = None,
               lenient: bool = False) -> Iterator[ReplayedGame]:
    """Every game of a record file, read and replayed one at a time, each
    with its problems attached (``game.problems``), as python-chess's
    ``read_game`` does: memory stays bounded by one game whatever the size of
    the file.  ``rules`` overrides the record's ruleset; ``lenient`` applies
    illegal but physically possible plays and goes on.

    >>> from pathlib import Path
    >>> games = read_games(Path(__file__).parents[2] / "examples/backgammon/backgammon-5pt-seed6.mat")
    >>> first = next(games)
    >>> first.record.number, first.complete, len(first.problems)
    (1, True, 0)
    """
    from .replay import replay_games

    record, games = open_record(source, encoding=encoding)
    yield from replay_games(record, games, rules=rules, lenient=lenient)
