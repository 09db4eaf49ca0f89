"""The structure that keeps one owner per rule: no import cycles (function-level imports count),
and every module in a layer so a lower one never reaches up, from the core to the front ends
(issue 9, "the structure that makes this hold"; issue 22, "package arrows for every layer")."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "jacked_vault"
# Lowest first: a module may import its own layer and the ones before it, never one after. A
# module's layer is that of the longest name below that is it or a package holding it, and every
# module has one (`test_every_module_has_a_layer`).
# `context` (which vault, repo, group and harness a command acts for) sits with the store, as
# repo identity (`store.identity`) does: they read configuration and git metadata, nothing above.
LAYERS = [
    ("jacked_vault", "jacked_vault.errors", "jacked_vault.resources", "jacked_vault.render", "jacked_vault.registry"),
    ("jacked_vault.safety",),
    ("jacked_vault.document",),
    ("jacked_vault.store", "jacked_vault.context"),
    ("jacked_vault.search",),
    ("jacked_vault.recall",),
    ("jacked_vault.write",),
    # --- features, above the core: each may use the others, none knows an installer or a front end
    (
        "jacked_vault.capture",
        "jacked_vault.episodic",
        "jacked_vault.groups",
        "jacked_vault.sync",
        "jacked_vault.doctor",
        "jacked_vault.notes",
        "jacked_vault.review",
    ),
    # --- what a person's machine has installed and where a command's vault and harness come from
    # (the one reader of JACKED_VAULT_DIR / JACKED_MEMORY_HARNESS); `jacked_vault.mcp` itself holds
    # only the server's name, which a registration writes
    (
        "jacked_vault.hooks",
        "jacked_vault.harnesses",
        "jacked_vault.gitflow",
        "jacked_vault.status",
        "jacked_vault.environment",
        "jacked_vault.mcp",
    ),
    # --- front ends: option values turned into library calls (the CLI's and the review page's)
    ("jacked_vault.frontend",),
    # --- the MCP server and the review page, then the CLI that can start either
    (
        "jacked_vault.mcp.server",
        "jacked_vault.mcp.tools",
        "jacked_vault.mcp.settings",
        "jacked_vault.mcp.stdio",
        "jacked_vault.mcp.protocol",
        "jacked_vault.mcp.__main__",
        "jacked_vault.ui",
    ),
    ("jacked_vault.cli",),
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
    """The layer of the longest LAYERS name that is `module` or a package holding it."""
    best: tuple[int, int] | None = None  # (length of the name matched, layer)
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), number)
    return None if best is None else best[1]


def test_no_module_imports_itself_back():
    modules = _modules()
    assert _cycles(_imports(modules), sorted(modules)) == []


def _package(module: str) -> str:
    """The package a module's folder makes (`jacked_vault.X`), or the top-level module itself."""
    return ".".join(module.split(".")[:2])


def test_no_package_imports_itself_back():
    """Folders are layers (issue 35.4): no cycle between packages either, so a package can be read,
    moved or tested with only the packages below it."""
    graph: dict[str, set[str]] = defaultdict(set)
    for source, targets in _imports(_modules()).items():
        graph[_package(source)] |= {_package(t) for t in targets} - {_package(source)}
    assert _cycles(graph, sorted(graph)) == []


def test_the_package_check_sees_a_package_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(defaultdict(set, graph), ["a", "b", "c", "d"]) == [["a", "b", "c"]]


def test_every_module_has_a_layer():
    """Every module is placed by its own package's name, not only by the bare `jacked_vault`."""
    named = [p for layer in LAYERS for p in layer if p != "jacked_vault"]
    modules = [m for m in sorted(_modules()) if m != "jacked_vault"]
    unplaced = [m for m in modules if not any(m == p or m.startswith(p + ".") for p in named)]
    assert unplaced == [], "a module LAYERS does not place: add its package to the layer it belongs to"


def test_no_module_imports_a_higher_layer():
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


def _mapped_test_modules(readme: str) -> list[str]:
    """The test modules tests/README.md lists (`- \\`test_x.py\\`: …` lines), in its order."""
    return [line.split("`")[1] for line in readme.splitlines() if line.startswith("- `test_")]


def test_the_tests_map_lists_every_test_module_once():
    """Tests a reader can find (issue 35.6): tests/README.md places every test module under the
    package it tests first; a new module goes there too."""
    listed = _mapped_test_modules((TESTS / "README.md").read_text())
    present = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert sorted(set(listed)) == present and len(listed) == len(set(listed))


def test_the_tests_map_check_sees_a_missing_and_a_doubled_module():
    listed = _mapped_test_modules("## store\n- `test_a.py`: one\n- `test_a.py`: again\ntext `test_b.py`\n")
    assert listed == ["test_a.py", "test_a.py"]
