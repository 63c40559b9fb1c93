"""The package's layering: `audit/` is grouped by stage, and imports run down the stages only.

Top to bottom: the front ends (`cli.py`, `pytest_plugin.py`), then run, report, research, draft (`audit init`),
attribution,
evaluation, register, text, and the ground floor every stage imports (`audit/model/`, what flows between
the stages; `audit/measures/`, the measure declarations; `errors.py`). Every `import audit.…` and
`from audit.… import` counts, at module level and inside functions alike, since a function-level import is
still an arrow between two modules. The test reads the source with `ast` and imports nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "audit"

# top to bottom; a module may import its own stage or any stage below it
STAGES = ("front", "run", "report", "research", "draft", "attribution", "evaluation", "register", "text", "ground")
GROUND_PACKAGES = {"model", "measures"}
GROUND_MODULES = {"audit", "audit.errors"}
FRONT_MODULES = {"audit.cli", "audit.pytest_plugin"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _stage(module: str) -> str:
    if module in GROUND_MODULES:
        return "ground"
    if module in FRONT_MODULES:
        return "front"
    package = module.split(".")[1]
    if package in GROUND_PACKAGES:
        return "ground"
    if package not in STAGES:
        raise AssertionError(f"{module}: audit/{package}/ is in no stage; add it to tests/test_layers.py")
    return package


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The longest module of the package that `name` (a dotted name) is or lies in."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _edges(modules: dict[str, Path]) -> set[tuple[str, str, int]]:
    """(importer, imported, line) for every import of a module of the package, wherever it stands."""
    edges = set()
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[:len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                # `from audit.x import y` imports the module audit.x.y when there is one, else audit.x
                names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                         for alias in node.names]
            for name in names:
                if name != "audit" and not name.startswith("audit."):
                    continue
                target = _target(name, modules)
                if target is not None and target != module:
                    edges.add((module, target, node.lineno))
    return edges


@pytest.fixture(scope="module")
def package_imports():
    """The package's modules and every import between them, read when a test asks (not while every test process
    collects)."""
    modules = _modules()
    return modules, _edges(modules)

#: Upward imports not yet removed, each with why it is there and what would remove it. The list only shrinks:
#: an entry that no longer occurs fails the test until it is struck from here.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    # two checks explain a reference's difference by experiment (causes.py) while checking: the attribution
    # engine is called from below;
    # removing them means the checks returning what differs and the attribution stage explaining and deciding it
    ("audit.evaluation.checks.comparison", "audit.attribution.causes"): "causes found by experiment",
    ("audit.evaluation.checks.value", "audit.attribution.causes"): "causes found by experiment",
    # the claim model asks the sandbox which modules a listing may import (a function-level import, at
    # validation); the sandbox's view of the environment would have to move below the register
    ("audit.register.book", "audit.evaluation.sandbox.environment"): "a listing's imports, at validation",
}


def _upward(edges) -> list[str]:
    rank = {stage: i for i, stage in enumerate(STAGES)}
    return sorted(f"{a}:{line} -> {b}  ({_stage(a)} imports {_stage(b)})" for a, b, line in edges
                  if rank[_stage(b)] < rank[_stage(a)])


def _cycles(edges) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {}
    for a, b, _ in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def _cycle_edges(edges, component) -> list[str]:
    members = set(component)
    return sorted(f"{a}:{line} -> {b}" for a, b, line in edges if a in members and b in members)


def test_the_reader_finds_the_package_imports(package_imports):
    MODULES, EDGES = package_imports
    assert ("audit.cli", "audit.errors") in {(a, b) for a, b, _ in EDGES}
    assert len(MODULES) > 100 and len(EDGES) > 300


def test_the_reader_counts_every_form_of_import(tmp_path):
    # module level, inside a function, `import x.y as z`, a submodule named after `import`, a relative import
    source = tmp_path / "chapter.py"
    source.write_text("from audit.errors import AuditError\n"
                      "from . import scan\n"
                      "def read():\n"
                      "    from audit.run import audit\n"
                      "    import audit.register.claims as claims\n", encoding="utf-8")
    other = tmp_path / "other.py"
    other.write_text("", encoding="utf-8")
    modules = {"audit.text.chapter": source, "audit.errors": other, "audit.text.scan": other, "audit.run": other,
               "audit.run.audit": other, "audit.register.claims": other}
    assert {(a, b, line) for a, b, line in _edges(modules)} == {
        ("audit.text.chapter", "audit.errors", 1), ("audit.text.chapter", "audit.text.scan", 2),
        ("audit.text.chapter", "audit.run.audit", 4), ("audit.text.chapter", "audit.register.claims", 5)}
    assert len(_upward(_edges(modules))) == 2


def test_every_module_lies_in_a_stage(package_imports):
    MODULES, EDGES = package_imports
    for module in MODULES:
        assert _stage(module) in STAGES


def test_no_import_runs_up_the_stages(package_imports):
    MODULES, EDGES = package_imports
    upward = _upward({edge for edge in EDGES if edge[:2] not in ALLOWED_UPWARD})
    assert not upward, f"{len(upward)} imports run up the stages:\n" + "\n".join(upward)


def test_the_allowed_upward_imports_only_shrink(package_imports):
    MODULES, EDGES = package_imports
    present = {(a, b) for a, b, _ in EDGES}
    gone = sorted(f"{a} -> {b}" for a, b in ALLOWED_UPWARD if (a, b) not in present or not _upward({(a, b, 0)}))
    assert not gone, "no longer upward; strike from ALLOWED_UPWARD:\n" + "\n".join(gone)


def test_no_import_cycle(package_imports):
    MODULES, EDGES = package_imports
    cycles = _cycles(EDGES)
    assert not cycles, f"{len(cycles)} import cycles:\n" + "\n\n".join(
        "\n".join(_cycle_edges(EDGES, component)) for component in cycles)


@pytest.mark.parametrize("edges, upward, cycles", [
    ({("audit.run.audit", "audit.text.chapter", 1)}, 0, 0),
    ({("audit.register.claims", "audit.evaluation.evaluator", 3)}, 1, 0),
    ({("audit.report.writer", "audit.report.index", 1), ("audit.report.index", "audit.report.writer", 2)}, 0, 1),
    ({("audit.errors", "audit.cli", 1)}, 1, 0),
    ({("audit.model.results", "audit.errors", 1)}, 0, 0),
])
def test_the_checks_can_fail(edges, upward, cycles):
    assert len(_upward(edges)) == upward
    assert len(_cycles(edges)) == cycles


def test_every_declared_measure_has_its_exact_definition():
    # the catalogue declares (ground floor), the chapter evaluator defines: one definition for each name
    from audit.evaluation.definitions import DEFINITIONS
    from audit.measures.catalogue import CATALOGUE
    assert list(DEFINITIONS) == list(CATALOGUE)


#: Modules that are one table (data, not logic) and may be longer; none today.
TABLES: set[str] = set()
MAX_LINES = 800


def _too_long(modules: dict[str, Path], tables: set[str] = TABLES) -> list[str]:
    lines = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules.items()}
    return sorted(f"{name}: {n} lines" for name, n in lines.items() if n > MAX_LINES and name not in tables)


def test_no_module_passes_800_lines_unless_it_is_one_table(tmp_path):
    """A newcomer reads a module whole: past 800 lines, split it by what its parts do."""
    assert _too_long(_modules()) == []
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    assert _too_long({"audit.long": long}) == ["audit.long: 801 lines"]  # the check can fail
    assert _too_long({"audit.long": long}, {"audit.long"}) == []
