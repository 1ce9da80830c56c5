"""The compiled .mat check (nardtools/_fastmat.c); see nardtools.notation.validate."""

def vouch(data: bytes, /) -> tuple[int, int, int] | None:
    """``(games, complete games, turns)`` of a .mat file the replay would find
    nothing wrong in, or ``None`` when the file must be replayed."""

def deferred() -> tuple[int, int]:
    """Where the last ``vouch`` that returned ``None`` gave up: the record's
    line and the line of ``_fastmat.c`` that decided."""

def play(mover: list[int] | tuple[int, ...], opponent: list[int] | tuple[int, ...], d1: int, d2: int,
         text: str, /) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The sides after a backgammon play written as ``text`` (26 counts each,
    own numbering: 0 off, 25 the bar), when it is legal; ``None`` when it is
    not or when the compiled check cannot tell."""
