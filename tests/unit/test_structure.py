"""The structure that keeps one owner per rule: no import cycles (function-level imports count),
and every module in a layer so a lower one never reaches up, from the core to the front ends
(issue 9, "the structure that makes this hold"; issue 22, "package arrows for every layer")."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "jacked_vault"
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
    # (the one reader of JACKED_VAULT_DIR / JACKED_MEMORY_HARNESS)
    (
        "jacked_vault.hooks",
        "jacked_vault.harnesses",
        "jacked_vault.gitflow",
        "jacked_vault.status",
        "jacked_vault.environment",
    ),
    # --- front ends: option values turned into library calls (the CLI's and the review page's)
    ("jacked_vault.frontend",),
    # --- the MCP server and the review page, then the CLI that can start either
    (
        "jacked_vault.mcp",
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


# Dependencies at the top (issue 35.3). A function may import one of the package's own modules
# only in an entry point, whose start decides how fast a command, a hook or the server answers, or
# when that module is costly to load and a hot path does without it: it loads a HEAVY library at
# its top, or it is DEFERRED (the work only some runs do), or it imports such a module at its top.
# What each hot path loads is held by the tests that read its `sys.modules` (test_lean_cli,
# test_help, test_mcp_protocol, test_document, test_secrets_lazy, test_index_parallel).
ENTRY_POINTS = (
    "jacked_vault.cli",  # typer's command modules and the lean parser: `--help` loads every one
    "jacked_vault.frontend",  # the actions both parsers and the page call, one function a command
    "jacked_vault.hooks.dispatch",  # every harness hook starts here
    "jacked_vault.mcp.server",
    "jacked_vault.mcp.__main__",
)
HEAVY = frozenset({
    "pygit2", "jinja2", "markdown_it", "markupsafe", "starlette", "uvicorn", "anyio", "jsonschema",
    "fastjsonschema", "ruamel", "re2", "typer", "click", "tomlkit", "pydantic", "mcp", "mcp_types", "sqlite3",
    "multiprocessing", "concurrent", "decimal", "webbrowser",
})  # fmt: skip
DEFERRED = (
    "jacked_vault.document._config_check",  # generated schema checks (document/validate.py writes them)
    "jacked_vault.document._note_check",
    "jacked_vault.document._vault_check",
    "jacked_vault.document.reader",  # parsing and validating a note: only where bytes are read
    "jacked_vault.document.validate",
    "jacked_vault.safety.secrets",  # the scanner's rules: only where text may be stored or shown
    "jacked_vault.store.gate",  # the gate: only where bytes arrive
    "jacked_vault.store.audit",  # the audit chain: only where a write records or doctor verifies
    "jacked_vault.store.config",  # the vault's and this machine's configuration: only when a group,
    "jacked_vault.store.settings",  # a root or a setting is asked for (most hook starts ask none)
    "jacked_vault.store.tombstones",  # the rejected values: only when a store holds some or one is written
    "jacked_vault.store.children",  # long children (network git, a checkout, the distiller): only where one runs
    "jacked_vault.store.configfile",  # editing a person's config files: only install, enable, settings
    "jacked_vault.store.reviews",  # who reviewed what: only where a review is judged or proven
    "jacked_vault.store.trust",  # what a claimed review is worth: only where one is judged (most notes claim none)
    "jacked_vault.search.parallel",  # the workers of a big build
    "jacked_vault.search.mirror",  # git mirrored into rows: only when an index is behind HEAD or written
    "jacked_vault.sync.arrivals",  # judging what a pull brought: only when something arrived
    "jacked_vault.sync.merge",
    "jacked_vault.write",  # every write: never on a read
    "jacked_vault.recall.hot",
)


def _inside(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _lazy_attributes(modules: dict[str, Path]) -> dict[str, str]:
    """`package.name` -> the submodule a package's PEP 562 `__getattr__` (its `_LAZY`) loads for it."""
    out = {}
    for name, path in modules.items():
        if path.name == "__init__.py":
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_LAZY" for t in node.targets):
                    out |= {f"{name}.{k}": f"{name}.{v}" for k, v in ast.literal_eval(node.value).items()}
    return out


def _import_targets(node: ast.Import | ast.ImportFrom, modules: dict[str, Path], lazy: dict[str, str]) -> set[str]:
    """The package's modules an import statement names (a PEP 562 name: the submodule behind it)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    found = set()
    for alias in node.names:
        full = f"{node.module}.{alias.name}"
        found.add(lazy.get(full) or (full if full in modules else node.module or ""))
    return {t for t in found if t in modules}


def _loaded_with(target: str, importer: str, modules: dict[str, Path]) -> set[str]:
    """`target` and the packages holding it that are not `importer`'s own (those load first)."""
    parts = target.split(".")
    own = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 2)}
    return {".".join(parts[:i]) for i in range(2, len(parts) + 1)} & set(modules) - own


def _costly(modules: dict[str, Path], lazy: dict[str, str]) -> set[str]:
    """The modules that load a HEAVY library or a DEFERRED module when imported (at their tops)."""
    tops: dict[str, set[str]] = {}
    costly = {name for name in modules if _inside(name, DEFERRED)}
    for name, path in modules.items():
        tops[name] = set()
        for node in ast.parse(path.read_text()).body:
            statements = [node] if isinstance(node, (ast.Import, ast.ImportFrom)) else []
            if isinstance(node, ast.Try):
                statements = [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
            for statement in statements:
                if isinstance(statement, ast.ImportFrom) and statement.level:
                    continue
                roots = [statement.module or ""] if isinstance(statement, ast.ImportFrom) else [
                    a.name for a in statement.names
                ]  # fmt: skip
                if any(r.split(".")[0] in HEAVY for r in roots):
                    costly.add(name)
                for target in _import_targets(statement, modules, lazy):
                    tops[name] |= _loaded_with(target, name, modules)
    while True:
        more = {name for name, targets in tops.items() if name not in costly and targets & costly}
        if not more:
            return costly
        costly |= more


def _lazy_imports(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """The imports of the package's own modules made inside a function of one module."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                names = [child.module or ""] if isinstance(child, ast.ImportFrom) else [a.name for a in child.names]
                if any(n.split(".")[0] == "jacked_vault" for n in names):
                    found.append(child)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text()), False)
    return found


def _unjustified_lazy_imports(modules: dict[str, Path]) -> list[str]:
    lazy = _lazy_attributes(modules)
    costly = _costly(modules, lazy)
    out = []
    for name, path in sorted(modules.items()):
        if _inside(name, ENTRY_POINTS):
            continue
        for node in _lazy_imports(path):
            named = _import_targets(node, modules, lazy)
            cheap = sorted(t for t in named if not _loaded_with(t, name, modules) & costly)
            if cheap:
                out.append(f"{name}:{node.lineno} imports {', '.join(cheap)} inside a function")
    return out


def test_the_library_imports_its_own_modules_at_the_top():
    assert _unjustified_lazy_imports(_modules()) == []


def test_the_lazy_import_check_sees_a_cheap_module_imported_in_a_function(tmp_path: Path):
    package = tmp_path / "jacked_vault"
    (package / "store").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "store" / "__init__.py").write_text("")
    (package / "store" / "cheap.py").write_text("X = 1\n")
    (package / "store" / "heavy.py").write_text("import pygit2\n")
    (package / "store" / "user.py").write_text(
        "def f():\n    from jacked_vault.store.heavy import Y\n    from jacked_vault.store.cheap import X\n"
    )
    modules = {
        ".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
        for p in package.rglob("*.py")
    }
    assert _unjustified_lazy_imports(modules) == [
        "jacked_vault.store.user:3 imports jacked_vault.store.cheap inside a function"
    ]


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


TESTS = Path(__file__).resolve().parents[1]
KINDS = ("unit", "e2e")  # the folders of test modules (tests/README.md says what goes where)


def _test_module_imports(path: Path) -> list[str]:
    """The test modules (test_*.py under tests/) that `path` imports, at any level of the file."""
    names = {p.stem for p in TESTS.rglob("test_*.py")}
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        found += [m for m in modules if m.split(".")[-1] in names]
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
        "def f():\n    from test_sync import x\n    import tests.e2e.test_ui\n    from tests.e2e import test_capture\n"
    )
    assert sorted(_test_module_imports(module)) == ["test_sync", "tests.e2e.test_capture", "tests.e2e.test_ui"]


def _mapped_test_modules(readme: str) -> list[str]:
    """The test modules tests/README.md lists (`- \\`unit/test_x.py\\`: …` lines), in its order."""
    return [line.split("`")[1] for line in readme.splitlines() if line.startswith(tuple(f"- `{k}/" for k in KINDS))]


def test_the_tests_map_lists_every_test_module_once():
    """Tests a reader can find (issue 35.6): tests/README.md places every test module under the
    package it tests first; a new module goes there too, in tests/unit/ or tests/e2e/."""
    listed = _mapped_test_modules((TESTS / "README.md").read_text())
    present = sorted(p.relative_to(TESTS).as_posix() for kind in KINDS for p in (TESTS / kind).glob("test_*.py"))
    assert sorted(set(listed)) == present and len(listed) == len(set(listed))
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == [], "a test module belongs in tests/unit/ or tests/e2e/"


def test_the_tests_map_check_sees_a_missing_and_a_doubled_module():
    listed = _mapped_test_modules(
        "## store\n- `unit/test_a.py`: one\n- `e2e/test_a.py`: again\ntext `unit/test_b.py`\n"
    )
    assert listed == ["unit/test_a.py", "e2e/test_a.py"]


# What starts a process of ours, or a real program standing in for a collaborator: a unit test
# module uses none of these (tests/README.md).
STARTS = frozenset({"run_cli", "cli_fork", "executable", "Popen", "fork", "playwright"})
STARTING_HELPERS = frozenset(
    {
        "capture", "codex_model", "count_scans", "fake_ssh", "faults", "homes", "mcp_server", "sync_world",
        "team_world", "terminal", "ui_world", "git_server", "processes", "main_process", "add_loop",
        "post_merge", "anthropic_model", "forge", "cli_fork",
    }
)  # fmt: skip


def _starts(path: Path) -> list[str]:
    """What in `path` starts a process of ours or a collaborator's program: names of STARTS it uses,
    helpers of STARTING_HELPERS it imports, and the modules it would run (`-m jacked_vault...`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if name in STARTS:
            found.append(name)
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = [*node.module.split("."), *(a.name for a in node.names)]
            found += [a.name for a in node.names if a.name in STARTS]
            found += [
                f"helpers.{p}" for p in parts if p in STARTING_HELPERS and "helpers" in node.module.split(".") + parts
            ]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[-1] in STARTING_HELPERS]
    return found


def test_a_unit_test_module_starts_nothing_of_ours():
    """tests/unit/ runs the library in the test's own process (issue 35.6: unit and end-to-end apart)."""
    starting = {p.name: _starts(p) for p in sorted((TESTS / "unit").glob("test_*.py"))}
    assert {name: found for name, found in starting.items() if found} == {}


def test_the_unit_check_sees_a_module_that_starts_the_cli(tmp_path: Path):
    module = tmp_path / "test_probe.py"
    module.write_text(
        "import subprocess, sys\nfrom conftest import run_cli\nfrom helpers import sync_world\n\n"
        "def f():\n    subprocess.run([sys.executable, '-m', 'jacked_vault.cli.main'])\n"
    )
    assert sorted(set(_starts(module))) == ["executable", "helpers.sync_world", "run_cli"]
