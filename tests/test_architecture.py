"""The import graph of advisor/ and bot/, read with ast: every import counts, at the top of a
module or inside a function, because a cycle hidden in a function is still a cycle a reader
must hold in their head."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("advisor", "bot")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _targets(node: ast.AST, module: str, is_package: bool, known: set[str]) -> list[str]:
    """The project modules one import statement loads (a name imported from a package is the
    submodule when there is one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        anchor = module.split(".")
        anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
        base = ".".join([*anchor, *([base] if base else [])])
    found = []
    for alias in node.names:
        if f"{base}.{alias.name}" in known:
            found.append(f"{base}.{alias.name}")
        elif base in known:
            found.append(base)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges.update(_targets(node, name, path.name == "__init__.py", known))
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_imports_inside_functions():
    # cli.py starts the bot from inside its command functions only: the graph must still see it.
    assert "bot.web" in import_graph()["advisor.cli"]


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_core_imports_no_bot_except_the_cli():
    graph = import_graph()
    offenders = {
        m: sorted(t for t in targets if t.split(".")[0] == "bot")
        for m, targets in graph.items()
        if m.startswith("advisor") and m != "advisor.cli"
    }
    assert {m: t for m, t in offenders.items() if t} == {}


def test_no_listener_imports_another_listener():
    graph = import_graph()
    listeners = {m for m in graph if m.startswith("bot.listeners.")}
    assert {m: sorted(graph[m] & listeners) for m in listeners if graph[m] & listeners} == {}


def test_the_readme_quick_start_runs_what_ci_runs():
    # The README promises its test command is .ci/run: each check .ci/run makes is in that command.
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    quick = next(line for line in readme.splitlines() if line.startswith('pip install ".[test]"'))
    ci = [
        line.replace("python3 -m", "python -m")
        for line in (root / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        # `source .ci/postgres.sh` starts the tests' PostgreSQL (without it the tests start their own)
        if line and not line.startswith(("#", "set ", "cd ", "python3 -m pip", "source .ci/"))
    ]
    assert quick.split(" && ")[1:] == ci


def test_docs_architecture_lists_every_module_and_no_module_that_is_gone():
    """docs/architecture.md is a newcomer's map: every module of advisor/ and bot/ is on it by
    its path, and every path on it is a module that exists."""
    doc = (ROOT / "docs" / "architecture.md").read_text()
    listed = set(re.findall(r"`((?:advisor|bot)/[\w/]+\.py)`", doc))
    # Alembic's revision files are named by the migrations/ entry, not one by one.
    modules = {
        p.relative_to(ROOT).as_posix()
        for p in _modules().values()
        if p.name != "__init__.py" and "migrations/versions" not in p.as_posix()
    }
    assert not modules - listed, f"modules missing from docs/architecture.md: {sorted(modules - listed)}"
    assert not listed - modules, f"docs/architecture.md names modules that do not exist: {sorted(listed - modules)}"
