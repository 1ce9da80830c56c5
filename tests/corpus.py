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


#: A cross-check over the whole corpus, parametrized by ``every``: by default
#: it runs on every fourth file (both collections, real and gnubg-made, in
#: their sorted order), and on all of them under ``-m slow``.
whole_corpus_when_slow = pytest.mark.parametrize(
    "every", [4, pytest.param(1, marks=pytest.mark.slow)], ids=["every-fourth-file", "every-file"])
