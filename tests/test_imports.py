"""No import cycle among nardtools' modules: neither the graph of
module-level imports nor the graph with every import inside a function too
(``TYPE_CHECKING`` blocks left out; a module may import the packages it
lives in) has a cycle, and every module imports alone in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "nardtools"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _targets(node: ast.AST, package: str, modules: dict[str, Path]) -> set[str]:
    """The modules an import statement names (relative ones resolved in ``package``)."""
    if isinstance(node, ast.ImportFrom):
        base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
        target = ".".join(base + ([node.module] if node.module else []))
        return {f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names}
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    return set()


def _package(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The nardtools modules ``name`` imports when it is loaded."""
    package = _package(name, path)
    found: set[str] = set()
    for statement in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.dump(statement.test):
            continue
        for node in ast.walk(statement) if isinstance(statement, (ast.If, ast.Try)) else [statement]:
            found |= _targets(node, package, modules)
    return {m for m in found if m in modules and m != name}


def test_the_module_level_import_graph_has_no_cycle():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 40 and graph["nardtools.engine"]  # the graph is really read
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            assert state.get(dep) != 1, "import cycle: " + " -> ".join([*path, name, dep])
            if dep not in state:
                visit(dep, [*path, name])
        state[name] = 2

    for name in graph:
        if name not in state:
            visit(name, [])


def _every_import(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The nardtools modules ``name`` may import: at module level and inside
    its functions, ``TYPE_CHECKING`` blocks left out, its own packages too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test) for n in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) not in typing_only:
            found |= _targets(node, _package(name, path), modules)
    return {m for m in found if m in modules and m != name and not name.startswith(m + ".")}


def test_no_import_cycle_even_through_imports_inside_functions():
    """Tarjan's strongly connected components of the whole graph: none has
    more than one module."""
    modules = _modules()
    graph = {name: _every_import(name, path, modules) for name, path in modules.items()}
    assert graph["nardtools.analysis.handout"] >= {"nardtools.notation.native"}  # function-level edges are read
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    assert not cycles, cycles


#: docs/architecture.md's layers, bottom first: a module imports its own
#: layer and the ones below, never one above, at module level and inside
#: functions alike (``TYPE_CHECKING`` blocks left out).  The package's
#: ``__init__`` is its public face, above everything.
LAYERS = (
    ("values", ("nardtools.position", "nardtools.dice", "nardtools.play", "nardtools.setup", "nardtools.gnubg_id",
                "nardtools.errors", "nardtools._io", "nardtools._notices")),
    ("rules", ("nardtools.rules", "nardtools.outcome")),
    ("engine", ("nardtools.engine", "nardtools.turn", "nardtools.judge", "nardtools.game", "nardtools.core",
                "nardtools.playout", "nardtools._core", "nardtools._workers")),
    ("records", ("nardtools.notation",)),
    ("analysis", ("nardtools.analysis",)),
    ("teaching", ("nardtools.teaching",)),
    ("command line", ("nardtools.cli", "nardtools.__main__")),
    ("package", ("nardtools",)),
)


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the layer ``module`` belongs to."""
    for i, (_, members) in enumerate(LAYERS):
        if any(module == m or (module.startswith(m + ".") and m != "nardtools") for m in members):
            return i
    raise AssertionError(f"{module} is in no layer of docs/architecture.md: add it to LAYERS")


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a layer above the importer's, as ``a (layer) -> b (layer)``."""
    out = []
    for name, imported in sorted(graph.items()):
        for target in sorted(imported):
            if layer_of(target) > layer_of(name):
                out.append(f"{name} ({LAYERS[layer_of(name)][0]}) -> {target} ({LAYERS[layer_of(target)][0]})")
    return out


def _whole_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _every_import(name, path, modules) for name, path in modules.items()}


def test_no_module_imports_a_layer_above_its_own():
    graph = _whole_graph()
    assert graph["nardtools.analysis.handout"] >= {"nardtools.notation.native"}  # function-level edges are read
    assert not layer_violations(graph)


def test_a_planted_layer_violation_is_found():
    """The check is no formality: an import of the command line from a value
    type, or of the records from the engine, inside a function, is named."""
    graph = _whole_graph()
    graph["nardtools.position"] = graph["nardtools.position"] | {"nardtools.cli.common"}
    graph["nardtools.core"] = graph["nardtools.core"] | {"nardtools.notation.source"}
    assert layer_violations(graph) == [
        "nardtools.core (engine) -> nardtools.notation.source (records)",
        "nardtools.position (values) -> nardtools.cli.common (command line)"]


def test_every_module_imports_alone():
    names = [n for n in _modules() if not n.endswith("__main__")]
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    failed = []
    for name in names:  # one fresh interpreter per module: what it needs, it imports itself
        done = subprocess.run([sys.executable, "-c", code, name], cwd=ROOT, capture_output=True, text=True,
                              check=False)
        if done.returncode:
            failed.append(f"{name}: {done.stderr.strip().splitlines()[-1]}")
    assert not failed, failed


def test_no_two_public_classes_share_a_name():
    """A name says one thing: a public class's name (one without a leading
    underscore) is given once in the whole package."""
    where: dict[str, list[str]] = {}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where.setdefault(node.name, []).append(name)
    assert len(where) > 50  # the classes are really read
    assert {n: m for n, m in where.items() if len(m) > 1} == {}
