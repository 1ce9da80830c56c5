"""The house rules of the source (issue 63): no module of ``nardtools/`` or
``csrc/`` over 600 lines and no function over 80, but for the ones listed
here, each still to be split; a new one over either limit fails, and so does
an exception that no longer needs its place (so the list only shrinks)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE_LINES, FUNCTION_LINES = 600, 80

#: Modules over the limit, still to be split.
LONG_MODULES: dict[str, str] = {}
#: Functions over the limit, still to be split.
LONG_FUNCTIONS = {
    "nardtools/cli/training.py:train_command": "six kinds of run behind one command (training sub-commands)",
    "nardtools/analysis/searchnet.py:train_search": "one run's every setting as parameters (a config type)",
    "csrc/bearoff.c:bearoff_exact": "the exact two-sided recursion in one loop",
    "csrc/bearoff.c:bearoff_gnubg": "GNU Backgammon's database layout written in one pass",
    "csrc/stats.c:on_turn": "a turn's row and its side's running counts together",
    "csrc/bind_records.c:py_mat_stats": "argument parsing, the run and the result's packing together",
}


def _python_functions() -> dict[str, int]:
    found = {}
    for path in sorted((ROOT / "nardtools").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[f"{name}:{node.name}"] = max(found.get(f"{name}:{node.name}", 0),
                                                   node.end_lineno - node.lineno + 1)  # type: ignore[operator]
    return found


_C_HEAD = re.compile(r"^(?!(?:if|for|while|switch|else|return|typedef|struct|enum)\b)[A-Za-z_][\w \*]*?\b(\w+)\s*\(")


def _c_functions() -> dict[str, int]:
    """Each C function's lines, from its head (its parameters may span
    lines) to the closing brace in column 0."""
    found = {}
    for path in sorted((ROOT / "csrc").glob("*.c")):
        lines = path.read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(lines):
            head = _C_HEAD.match(lines[i])
            if head and not lines[i].rstrip().endswith(";"):
                k = i
                while k < len(lines) - 1 and not lines[k].rstrip().endswith((")", "{")) and ";" not in lines[k]:
                    k += 1
                body = lines[k].rstrip().endswith("{") or (k + 1 < len(lines) and lines[k + 1] == "{")
                if body and ";" not in lines[k]:
                    end = next(j for j in range(k + 1, len(lines)) if lines[j] == "}")
                    found[f"{path.relative_to(ROOT).as_posix()}:{head.group(1)}"] = end - i + 1
                    i = end
            i += 1
    return found


def test_no_module_is_over_its_limit_but_the_listed():
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for pattern in ("nardtools/**/*.py", "csrc/*.c", "csrc/*.h") for path in ROOT.glob(pattern)}
    assert len(sizes) > 100
    over = {name for name, n in sizes.items() if n > MODULE_LINES}
    assert over - set(LONG_MODULES) == set(), "split these, as docs/architecture.md's rooms"
    assert set(LONG_MODULES) - over == set(), "these are short now: take them off LONG_MODULES"


def test_no_function_is_over_its_limit_but_the_listed():
    lengths = {**_python_functions(), **_c_functions()}
    assert lengths["csrc/judge.c:judge_play"] > 10 and lengths["nardtools/engine.py:legal_plays"] > 10  # both read
    over = {name for name, n in lengths.items() if n > FUNCTION_LINES}
    assert over - set(LONG_FUNCTIONS) == set(), "split these into functions that say what each part does"
    assert set(LONG_FUNCTIONS) - over == set(), "these are short now: take them off LONG_FUNCTIONS"
