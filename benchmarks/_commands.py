"""What the benchmarks that time nardtools as a command share."""

from __future__ import annotations

import os


def user_environment(keep_no_bytecode: bool = False) -> dict[str, str]:
    """This process's environment for the timed commands, but for
    ``PYTHONDONTWRITEBYTECODE`` (unless ``keep_no_bytecode``): some sandboxes
    set it, and then every start compiles nardtools' modules again (0.45-0.60 s
    for a 0-ply analysis of 0.32 s), where a user's installed package has its
    bytecode, as pip compiles it."""
    return {name: value for name, value in os.environ.items()
            if keep_no_bytecode or name != "PYTHONDONTWRITEBYTECODE"}
