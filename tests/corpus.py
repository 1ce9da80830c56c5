"""Where the tests find the shared corpus of real and GNU Backgammon-made
matches: ``../shared/corpus`` beside the repository, or ``$NARDTOOLS_CORPUS``.
The tests that need it skip without it (``needs_corpus``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("NARDTOOLS_CORPUS") or ROOT.parent / "shared" / "corpus")
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS} (set NARDTOOLS_CORPUS)")
