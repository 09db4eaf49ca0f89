"""Issue 35's figures: the package's shape, and the start of its hot paths, this checkout beside another.

    python bench/bench_shape.py [--baseline REF] [--vault /tmp/bench-vaults/n10000-s1234] [--repeat 9]
                                [--no-mypy] [--no-timing]

The shape (read from the source, no import): modules and lines per module; the methods of the
index façade a caller sees (`index_methods_own_and_bases`: every method and property defined on
`SearchIndex` or on a base class of it in the package, a name once; `index_public_own_and_bases`:
those not starting with `_`); literal harness names compared outside the harness package (`==`,
`in`, `match`: a branch on which harness); the import edges between the package's own modules (one
module importing another, counted once) and those made inside a function (lazy; an edge imported
both ways counts in both), and how many lazy edges start outside the entry points that need a
fast start (cycles between packages: tests/unit/test_structure.py holds there are none); and, unless
`--no-mypy`, mypy's errors with `--disallow-untyped-defs --disallow-any-generics` added to the
checkout's own configuration.

The timing (unless `--no-timing`): `search`, `add`, the SessionStart hook (`_hook session-start`,
the hook's JSON on stdin) and the MCP server from spawn to its first answered `memory_search`,
each a whole process, wall and CPU medians of `--repeat` interleaved rounds, each checkout on its
own copy of `--vault` (`PYTHONPATH` picks the checkout; the cached vault is never written).

`--baseline REF`: that commit of this repository (`git archive`, compiled) measured the same way.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
HARNESS_NAMES = {"claude", "codex", "cursor", "opencode"}
# The entry points that may import lazily (issue 35.3): what a command, a hook or the server loads
# first decides how fast it starts.
ENTRY_POINTS = (
    "jacked_vault.cli",
    "jacked_vault.frontend",
    "jacked_vault.hooks.dispatch",
    "jacked_vault.mcp.server",
    "jacked_vault.mcp.__main__",
)
HARNESS_PACKAGES = ("jacked_vault.harnesses",)
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}}  # fmt: skip


# -- the shape, read from the source --------------------------------------------------------------


def modules(code: Path) -> dict[str, Path]:
    """Module name -> file of every module of `code`'s package."""
    out = {}
    for path in sorted((code / "jacked_vault").rglob("*.py")):
        parts = path.relative_to(code).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _inside(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _own_imports(tree: ast.Module, known: dict[str, Path]) -> list[tuple[str, bool]]:
    """(imported module of the package, made inside a function) for each import of one module."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            module = (child.module or "") if isinstance(child, ast.ImportFrom) else ""
            if isinstance(child, ast.ImportFrom) and child.level == 0 and module.startswith("jacked_vault"):
                names = [f"{module}.{a.name}" for a in child.names]
                found.extend((n if n in known else module, lazy) for n in names if n in known or module in known)
            elif isinstance(child, ast.Import):
                found.extend((a.name, lazy) for a in child.names if a.name in known)
            visit(child, inner)

    visit(tree, False)
    return found


def _harness_branches(tree: ast.Module) -> int:
    """Literal harness names compared in this module (`==`, `!=`, `in`, `match` cases)."""

    def names(node: ast.AST) -> int:
        if isinstance(node, ast.Constant):
            return int(node.value in HARNESS_NAMES)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return sum(names(e) for e in node.elts)
        return 0

    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            count += sum(names(part) for part in (node.left, *node.comparators))
        elif isinstance(node, ast.MatchValue):
            count += names(node.value)
    return count


def _methods_seen(classes: dict[str, ast.ClassDef], name: str) -> set[str]:
    """The names of the methods (properties too) a caller of class `name` sees: defined on it or on
    its bases found in the package, each name once."""
    node = classes.get(name)
    if node is None:
        return set()
    seen = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for base in node.bases:
        base_name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
        if base_name != name:
            seen |= _methods_seen(classes, base_name)
    return seen


def shape(code: Path) -> dict:
    """Every figure of the package's shape for one checkout."""
    known = modules(code)
    lines = {name: len(path.read_text().splitlines()) for name, path in known.items()}
    lazy: set[tuple[str, str]] = set()
    top: set[tuple[str, str]] = set()
    harness = 0
    harness_modules: Counter[str] = Counter()
    classes: dict[str, ast.ClassDef] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text())
        for target, inside_function in _own_imports(tree, known):
            if target == name:
                continue
            (lazy if inside_function else top).add((name, target))
        if not _inside(name, HARNESS_PACKAGES) and (found := _harness_branches(tree)):
            harness += found
            harness_modules[name] = found
        classes.update((node.name, node) for node in ast.walk(tree) if isinstance(node, ast.ClassDef))
    methods = _methods_seen(classes, "SearchIndex")
    sizes = sorted(lines.values())
    return {
        "modules": len(known),
        "lines": sum(sizes),
        "median_lines": statistics.median(sizes),
        "largest": sorted(lines.items(), key=lambda kv: -kv[1])[:5],
        "over_500": sum(n > 500 for n in sizes),
        "index_methods_own_and_bases": len(methods),
        "index_public_own_and_bases": sum(not m.startswith("_") for m in methods),
        "harness_branches": harness,
        "harness_modules": len(harness_modules),
        "import_edges": len(lazy | top),
        "lazy_edges": len(lazy),
        "lazy_per_1000_lines": round(1000 * len(lazy) / sum(sizes), 1),
        "lazy_outside_entry_points": sum(not _inside(source, ENTRY_POINTS) for source, _ in lazy),
    }


def mypy_strict_errors(code: Path) -> int | None:
    """mypy's error count with the strict flags issue 35 names, over the checkout's configuration."""
    with tempfile.TemporaryDirectory(prefix="bench-shape-mypy-") as cache:
        proc = subprocess.run(
            [PY, "-m", "mypy", "--disallow-untyped-defs", "--disallow-any-generics", "--cache-dir", cache],
            cwd=code,
            capture_output=True,
            text=True,
        )
    found = re.search(r"Found (\d+) errors?", proc.stdout)
    return int(found.group(1)) if found else (0 if proc.returncode == 0 else None)


# -- the hot paths, timed ------------------------------------------------------------------------


def _env(code: Path, vault: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(code), JACKED_VAULT_DIR=str(vault), HOME=str(home), GIT_TERMINAL_PROMPT="0")
    env.update(JACKED_MEMORY_HARNESS="claude", GIT_CONFIG_NOSYSTEM="1")
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process(argv: list[str], env: dict[str, str], cwd: Path, stdin: bytes = b"") -> tuple[float, float]:
    """(wall ms, CPU ms) of one whole process, which must succeed."""
    before, start = _cpu(), time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, input=stdin, capture_output=True)
    wall, cpu = (time.perf_counter() - start) * 1000, (_cpu() - before) * 1000
    if proc.returncode:
        raise RuntimeError(f"{argv[2:6]} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-800:]}")
    return wall, cpu


def _rpc(proc: subprocess.Popen[bytes], message: dict) -> dict:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def _mcp_first_answer(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall ms from spawn to the first answered memory_search, the server's CPU ms for its life)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [PY, "-m", "jacked_vault.mcp"], env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    _rpc(proc, INIT)
    assert proc.stdin is not None
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    call = {"name": "memory_search", "arguments": {"query": "cache"}}
    answer = _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    wall = (time.perf_counter() - start) * 1000
    if answer.get("result", {}).get("isError", True):
        raise RuntimeError(f"memory_search failed: {answer}")
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def timings(codes: dict[str, Path], vault: Path, repeat: int, work: Path) -> dict[str, dict[str, tuple[float, float]]]:
    """label -> path -> (median wall ms, median CPU ms), rounds interleaved (order flips each round)."""
    setups = {}
    for label, code in codes.items():
        copy, home = work / f"vault-{label}", work / f"home-{label}"
        subprocess.run(["cp", "-a", str(vault), str(copy)], check=True)
        home.mkdir()
        env = _env(code, copy, home)
        _process([PY, "-m", "jacked_vault.cli.main", "memory", "search", "cache"], env, work)  # the index built
        setups[label] = env
    hook = json.dumps({"session_id": "bench", "hook_event_name": "SessionStart", "cwd": str(work), "source": "startup"})
    runs: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    labels = list(codes)
    for round_ in range(repeat):
        for label in labels if round_ % 2 == 0 else labels[::-1]:
            env = setups[label]
            title = f"Shape bench {round_} {time.time_ns()}"
            add = ["memory", "add", "--group", "g1", "--kind", "fact", "--title", title, "--body", "A small fact."]
            for path, argv, stdin in (
                ("search", ["memory", "search", "cache", "deploy"], b""),
                ("add", add, b""),
                ("hook session-start", ["_hook", "session-start"], hook.encode()),
            ):
                runs[(label, path)].append(_process([PY, "-m", "jacked_vault.cli.main", *argv], env, work, stdin))
            runs[(label, "mcp first answer")].append(_mcp_first_answer(env, work))
    out: dict[str, dict[str, tuple[float, float]]] = defaultdict(dict)
    for (label, path), samples in runs.items():
        out[label][path] = (statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples))
    return out


# -- the report -------------------------------------------------------------------------------


def checkout(ref: str, work: Path) -> Path:
    """`ref` of this repository, extracted and compiled (a checkout would compile in every run)."""
    target = work / f"code-{ref.replace('/', '_')}"
    target.mkdir()
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def print_shape(figures: dict[str, dict]) -> None:
    labels = list(figures)
    print(f"{'shape':<34}" + "".join(f"{label:>16}" for label in labels))
    for key in (
        "modules", "lines", "median_lines", "over_500", "index_methods_own_and_bases", "index_public_own_and_bases",
        "harness_branches", "harness_modules", "import_edges", "lazy_edges", "lazy_per_1000_lines",
        "lazy_outside_entry_points", "mypy_strict_errors",
    ):  # fmt: skip
        print(f"{key:<34}" + "".join(f"{figures[label].get(key, '-')!s:>16}" for label in labels))
    for label in labels:
        largest = ", ".join(f"{name.removeprefix('jacked_vault.')} {n}" for name, n in figures[label]["largest"])
        print(f"{label}: largest modules: {largest}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", metavar="REF", help="also measure this commit (e.g. main), interleaved")
    parser.add_argument("--vault", type=Path, default=Path("/tmp/bench-vaults/n10000-s1234"))
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--no-mypy", action="store_true")
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-shape-"))
    try:
        codes = {"this checkout": ROOT}
        if args.baseline:
            codes = {args.baseline: checkout(args.baseline, work), **codes}
        for code in codes.values():
            compileall.compile_dir(str(code / "jacked_vault"), quiet=1)
        figures = {label: shape(code) for label, code in codes.items()}
        if not args.no_mypy:
            for label, code in codes.items():
                figures[label]["mypy_strict_errors"] = mypy_strict_errors(code)
        print_shape(figures)
        if args.no_timing:
            return 0
        if not (args.vault / ".git").is_dir():
            print(f"\n{args.vault}: not there (bench/bench_scale.py makes it); no timing")
            return 1
        print(f"\ntiming: copies of {args.vault}, {args.repeat} interleaved rounds, load {os.getloadavg()[0]:.2f}")
        times = timings(codes, args.vault, args.repeat, work)
        labels = list(codes)
        print(f"{'ms (median)':<22}" + "".join(f"{label + ' wall':>22}{'cpu':>8}" for label in labels)
              + ("   ratio wall, cpu" if len(labels) == 2 else ""))  # fmt: skip
        for path in ("search", "add", "hook session-start", "mcp first answer"):
            cells = "".join(f"{times[label][path][0]:>22.1f}{times[label][path][1]:>8.1f}" for label in labels)
            ratio = ""
            if len(labels) == 2:
                (ow, oc), (nw, nc) = times[labels[0]][path], times[labels[1]][path]
                ratio = f"   {nw / ow:.2f}x, {nc / oc:.2f}x"
            print(f"{path:<22}{cells}{ratio}")
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
