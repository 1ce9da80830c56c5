"""The compiled .mat check (nardtools/_fastmat.c); see nardtools.notation.validate."""

def vouch(data: bytes, /) -> tuple[int, int, int] | None:
    """``(games, complete games, turns)`` of a .mat file the replay would find
    nothing wrong in, or ``None`` when the file must be replayed."""

def deferred() -> tuple[int, int]:
    """Where the last ``vouch`` that returned ``None`` gave up: the record's
    line and the line of ``_fastmat.c`` that decided."""
