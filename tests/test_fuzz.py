"""Fuzzing: mutated records and positions never raise anything but
nardtools' own errors, stay fast, and the compiled check never vouches for a
file the replay reads otherwise (``tests/mutate.py`` makes the mutants;
``benchmarks/fuzz.py`` runs hundreds of thousands of them offline)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .mutate import exercise, mutant

#: Seconds any single mutant may take (a 20,000-character line included).
BOUND = 5.0


@pytest.mark.parametrize("fmt, cases", [("mat", 250), ("nrd", 150), ("sgf", 150), ("position", 300)])
def test_mutants_are_read_or_refused_quickly(fmt, cases):
    @settings(max_examples=cases, deadline=None, derandomize=True)
    @given(st.integers(0, 2**31))
    def run(seed):
        data = mutant(fmt, seed)
        started = time.perf_counter()
        exercise(fmt, data)
        assert time.perf_counter() - started < BOUND, f"mutant({fmt!r}, {seed}) took too long"

    run()
