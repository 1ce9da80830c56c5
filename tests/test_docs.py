"""The docs' command examples run as written, on files in the repository."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nardtools.cli import app

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Examples not run here, and why.
SKIP = {
    "--points 12": "builds 8.4 GiB for 6 minutes",
    "--tui": "waits for keys on the terminal",
    "--scheduler tcp://10.0.0.5": "needs that Dask cluster",
    "pip install": "installs",
    "train --game": "trains a network for hours",
}


def _examples() -> list[tuple[str, str, str]]:
    """``(document, command, its comment)`` for every command line in a code block."""
    found = []
    for doc in DOCS:
        in_block = False
        for line in doc.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                in_block = not in_block
                continue
            command, _, comment = line.partition("  #")
            if in_block and re.match(r"(cat \S+ \| )?nardtools \w", command.strip()):
                found.append((doc.name, command.strip(), comment))
    return found


EXAMPLES = _examples()


def test_the_docs_have_examples_and_point_inside_the_repository():
    assert len(EXAMPLES) > 30
    for doc in DOCS:
        assert "../shared" not in doc.read_text(encoding="utf-8"), doc.name


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("doc, command, comment", EXAMPLES, ids=[f"{d}: {c[:50]}" for d, c, _ in EXAMPLES])
def test_doc_example_runs_as_written(doc, command, comment, tmp_path, monkeypatch, cache):
    for marker, why in SKIP.items():
        if marker in command:
            pytest.skip(why)
    monkeypatch.chdir(tmp_path)  # outputs land here; inputs come from the repository
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.setenv("NARDTOOLS_CACHE", str(cache))
    stdin = None
    if command.startswith("cat "):
        source, command = command[4:].split(" | ", 1)
        stdin = (ROOT / source).read_bytes()
    args = shlex.split(command)[1:]
    if args[:1] == ["convert"] and args[1] == "match.nrd":  # the second half of a round trip
        runner = CliRunner()
        runner.invoke(app, ["convert", "examples/long-nardy/long-5pt-seed1.mat", "match.nrd"])
    result = CliRunner().invoke(app, args, input=stdin)
    assert "Traceback" not in result.stdout + result.stderr
    expected = 1 if "exit 1" in comment else 0
    assert result.exit_code == expected, (command, result.stderr[-500:])
