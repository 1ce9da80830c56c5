"""Where the tests find the shared corpus of real and GNU Backgammon-made
matches: ``../shared/corpus`` beside the repository, or ``$NARDTOOLS_CORPUS``.
The tests that need it are marked ``needs_corpus``: without it they skip, but
under CI (``$CI`` set, as ``.ci/run`` does) they fail (``conftest.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("NARDTOOLS_CORPUS") or ROOT.parent / "shared" / "corpus")
needs_corpus = pytest.mark.corpus


def require_corpus() -> None:
    """Skip the test without the corpus; under CI, fail it."""
    if CORPUS.is_dir():
        return
    message = f"no corpus at {CORPUS} (set NARDTOOLS_CORPUS)"
    if os.environ.get("CI"):
        pytest.fail(message + ": under CI the corpus tests must run")
    pytest.skip(message)
