"""The project's habits, checked: the package type-checks under ``mypy --strict``
and the code is ``ruff``-clean (both configured in pyproject.toml).  Without
the tool a local run skips; under CI (``CI`` set) a missing tool fails."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _require(tool: str) -> None:
    if shutil.which(tool) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is not installed, and CI must run it (pip install -e '.[test]')")
        pytest.skip(f"{tool} is not installed")


def test_mypy_strict():
    _require("mypy")
    out = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_is_clean():
    _require("ruff")
    out = subprocess.run(["ruff", "check", "."], cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
