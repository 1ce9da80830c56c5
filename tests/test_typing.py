"""The package type-checks under ``mypy --strict`` (configured in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.skipif(shutil.which("mypy") is None, reason="mypy is not installed")
def test_mypy_strict():
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-m", "mypy"], cwd=root, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
