"""The structure that keeps one owner per rule: no import cycles (function-level imports count),
and the core packages layered so a lower one never reaches up (issue 9, "the structure that
makes this hold")."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "jacked_vault"
# Lowest first: a module may import its own layer and the ones before it, never one after.
# `context` (which vault, repo, group and harness a command acts for) and repo identity sit with
# the store: they read configuration and git metadata, nothing above.
LAYERS = [
    ("jacked_vault.errors", "jacked_vault.resources", "jacked_vault.render"),
    ("jacked_vault.safety",),
    ("jacked_vault.document",),
    ("jacked_vault.store", "jacked_vault.context", "jacked_vault.groups.identity"),
    ("jacked_vault.search",),
    ("jacked_vault.recall",),
    ("jacked_vault.write",),
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and node.module
                and node.module.startswith("jacked_vault")
            ):
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def _cycles(graph: dict[str, set[str]], nodes: list[str]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in nodes:
        if v not in index:
            visit(v)
    return found


def _layer(module: str) -> int | None:
    for number, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return number
    return None


def test_no_module_imports_itself_back():
    modules = _modules()
    assert _cycles(_imports(modules), sorted(modules)) == []


def test_core_packages_never_import_a_higher_layer():
    graph = _imports(_modules())
    upward = []
    for source, targets in sorted(graph.items()):
        low = _layer(source)
        if low is None:
            continue
        for target in sorted(targets):
            high = _layer(target)
            if high is None or high > low:
                upward.append(f"{source} -> {target}")
    assert upward == []


TESTS = Path(__file__).resolve().parent


def _test_module_imports(path: Path) -> list[str]:
    """The test modules (test_*.py in tests/) that `path` imports, at any level of the file."""
    names = {p.stem for p in TESTS.rglob("test_*.py")}
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [f"tests.{a.name}" for a in node.names] if node.module == "tests" else [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        found += [m for m in modules if m.removeprefix("tests.").split(".")[0] in names]
    return found


def test_no_test_module_imports_another():
    """Shared helpers and fixtures live in tests/helpers/ (or conftest.py): a test module is never
    imported, so running one module never collects or runs another's module-level code."""
    imports = {str(p.relative_to(TESTS)): _test_module_imports(p) for p in sorted(TESTS.rglob("*.py"))}
    assert {path: found for path, found in imports.items() if found} == {}


def test_the_import_check_sees_a_test_module_import(tmp_path: Path):
    module = tmp_path / "test_probe.py"
    module.write_text(
        "import os\nfrom helpers.mcp_server import inproc\n\n"
        "def f():\n    from test_sync import x\n    import tests.test_ui\n    from tests import test_capture\n"
    )
    assert sorted(_test_module_imports(module)) == ["test_sync", "tests.test_capture", "tests.test_ui"]
