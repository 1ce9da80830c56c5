"""nardtools installed without a C compiler: every command works, through the
readable reference (issue 22).  ``.ci/run`` installs the package with
``CC=false`` into a virtual environment and runs this script with that
environment's interpreter:

    python -m venv --system-site-packages /tmp/nocc
    /tmp/nocc/bin/python -m pip install 'setuptools>=77' wheel
    CC=false /tmp/nocc/bin/python -m pip install --no-build-isolation --no-deps .
    /tmp/nocc/bin/python tests/nocompiler.py

It checks that the compiled core is absent (not an empty namespace package
standing in for it), then runs ``moves``, ``check``, ``validate``, ``stats``
and ``analyse`` on the bundled examples and compares what they say with what
the rules say.  Exit 0 when all hold, 1 otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def main() -> int:
    failures = []
    with tempfile.TemporaryDirectory() as tmp:  # (run away from the source tree, which is not what is installed)
        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "nardtools.cli", *args], capture_output=True, text=True,
                                  cwd=tmp, timeout=600)

        probe = subprocess.run([sys.executable, "-c", "import nardtools, nardtools.core as c; "
                                "print(nardtools.__file__); print(c.CORE)"], capture_output=True, text=True, cwd=tmp)
        where, core = [*probe.stdout.splitlines(), "", ""][:2]
        if probe.returncode or core != "None" or where.startswith(str(ROOT)):
            failures.append(f"the installed package should have no core: {where!r}, CORE {core!r} {probe.stderr}")
        checks = [
            (run("moves", "start", "33", "--rules", "long"),
             lambda r: r.returncode == 0 and "24/18(2)" in r.stdout and "24/21 24/15" in r.stdout),
            (run("check", "start", "65", "24/18 24/19", "--rules", "long"),
             lambda r: r.returncode == 1 and "[head-rule]" in r.stdout),
            (run("validate", str(EXAMPLES), "-q"), lambda r: r.returncode == 0),
            (run("stats", str(EXAMPLES / "long-nardy"), "--format", "json", "-q"),
             lambda r: r.returncode == 0 and len(json.loads(r.stdout)) > 20),
            (run("analyse", str(EXAMPLES / "backgammon" / "backgammon-5pt-seed6.mat"), "--game", "1", "-q",
                 "-o", str(Path(tmp) / "handout.nrd")),
             lambda r: r.returncode == 0 and (Path(tmp) / "handout.nrd").read_text().startswith('[Game "backgammon"]')),
        ]
        for result, holds in checks:
            try:
                ok = holds(result)
            except (ValueError, OSError) as e:
                ok, result.stderr = False, f"{result.stderr}\n{e}"
            if not ok:
                failures.append(f"{' '.join(result.args[3:])}: exit {result.returncode}\n{result.stdout[-800:]}"
                                f"\n{result.stderr[-800:]}")
        for f in failures:
            print("no-compiler check FAILED:", f, file=sys.stderr)
        print(f"no-compiler check: {len(checks) + 1 - len(failures)} of {len(checks) + 1} hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
