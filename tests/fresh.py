"""What a fresh interpreter imports: for tests of start-up laziness."""

from __future__ import annotations

import os
import subprocess
import sys


def modules_after(code: str, **env: str) -> set[str]:
    """The modules a new interpreter holds after running ``code`` (with ``env`` on top of ours)."""
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True, env={**os.environ, **env}).stdout
    return set(out.split())
