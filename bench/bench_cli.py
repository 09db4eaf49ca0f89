"""Whole-process figures for every command an agent calls, side by side with git (issue 12).

For each size (default 1k, 10k, 50k) and each layout (`spread`: 50 groups, notes of every kind;
`one-folder`: one group, every note a `decision`, so one folder holds them all) it builds a
vault (`bench/_vaultgen.py`), then times whole processes, median of `--repeat` runs:

- `jacked memory search WORDS` against `git grep -l WORDS` and `rg -l WORDS` (when rg is on PATH)
  on the same notes;
- `jacked memory add` against `git add FILE && git commit` of one new note, in a plain clone of
  the same vault (so the trees and the git index are the same size);
- `brief`, the SessionStart hook (`jacked _hook session-start`, JSON on stdin), `read ID`,
  `status`, `--help`;
- the MCP server (`jacked-memory-mcp`) from spawn to the first answered `memory_search`, and
  the p95 of 40 `memory_search` round trips on one running server.

It also prints each top-level dependency's import time (`python -X importtime`), and the
modules a read command loads (it should load neither pygit2, jsonschema nor pydantic).

Plain script, no pytest: the figures are the only claims. Ratios (ours / git) are the figures
to quote; absolute times depend on the machine and its load (printed with each size).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench._vaultgen import generate_vault  # noqa: E402

PY = sys.executable
# The console script, as a person or a harness runs it (python -m adds runpy's cost).
_SCRIPT = Path(PY).with_name("jacked")
JACKED = [str(_SCRIPT)] if _SCRIPT.exists() else [PY, "-m", "jacked_vault.cli.main"]
DEPENDENCIES = ("typer", "pygit2", "jsonschema", "fastjsonschema", "ruamel.yaml", "mcp", "pydantic", "sqlite3")


def _env(vault: Path) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE would make every run compile the package from source (an
    # installed wheel has its .pyc files): leave it out, and compile once up front (main).
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(JACKED_VAULT_DIR=str(vault), HOME=str(vault.parent), GIT_TERMINAL_PROMPT="0")
    return env


def median_ms(argv: list[str], *, repeat: int, env: dict | None = None, cwd: Path | None = None) -> float:
    """Median wall time of `argv` as a whole process."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"{argv} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:500]}")
    return statistics.median(times)


def mcp_first_answer_ms(vault: Path, *, repeat: int) -> float:
    """Spawn to the first answered tools/call (initialize, initialized, memory_search)."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "memory_search", "arguments": {"query": "cache"}},
        },
    ]
    env = _env(vault) | {"JACKED_MEMORY_HARNESS": "bench"}
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen(
            [PY, "-m", "jacked_vault.mcp.server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=vault.parent,
        )
        assert proc.stdin and proc.stdout
        proc.stdin.write((json.dumps(messages[0]) + "\n").encode())
        proc.stdin.flush()
        proc.stdout.readline()
        for message in messages[1:]:
            proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        proc.stdout.readline()
        times.append((time.perf_counter() - start) * 1000)
        proc.stdin.close()
        proc.wait(timeout=30)
    return statistics.median(times)


def mcp_search_p95_ms(vault: Path, calls: int = 40) -> float:
    """p95 of `memory_search` round trips on one running server (after initialize)."""
    env = _env(vault) | {"JACKED_MEMORY_HARNESS": "bench"}
    proc = subprocess.Popen(
        [PY, "-m", "jacked_vault.mcp.server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=vault.parent,
    )
    assert proc.stdin and proc.stdout

    def send(message: dict) -> None:
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    send(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    proc.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    words = ["cache", "deploy", "index", "auth", "retry", "schema", "logging", "queue"]
    times = []
    for n in range(calls):
        start = time.perf_counter()
        send(
            {
                "jsonrpc": "2.0",
                "id": n + 1,
                "method": "tools/call",
                "params": {
                    "name": "memory_search",
                    "arguments": {"query": f"{words[n % len(words)]} {words[(n + 3) % len(words)]}"},
                },
            }
        )
        proc.stdout.readline()
        times.append((time.perf_counter() - start) * 1000)
    proc.stdin.close()
    proc.wait(timeout=30)
    return statistics.quantiles(times, n=20)[-1]


def hook_ms(vault: Path, cwd: Path, *, repeat: int) -> float:
    """The SessionStart hook as Claude Code runs it: JSON on stdin, the brief on stdout."""
    payload = json.dumps(
        {"session_id": "bench", "hook_event_name": "SessionStart", "cwd": str(cwd), "source": "startup"}
    ).encode()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [*JACKED, "_hook", "session-start"], input=payload, env=_env(vault), cwd=cwd, capture_output=True
        )
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def import_ms(module: str) -> float:
    """A module's own cumulative import time in a fresh interpreter (python -X importtime)."""
    proc = subprocess.run([PY, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True)
    for line in reversed(proc.stderr.splitlines()):
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1]) / 1000
    return float("nan")


def loaded_by(argv: list[str], env: dict, cwd: Path) -> list[str]:
    """Which of the heavy dependencies a command imports."""
    code = (
        "import sys, runpy\n"
        f"sys.argv = {['jacked', *argv]!r}\n"
        "from jacked_vault.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(' '.join(sorted({m.split('.')[0] for m in sys.modules} & {'pygit2', 'jsonschema', "
        "'fastjsonschema', 'pydantic', 'ruamel', 'mcp', 'typer', 'click'})))\n"
    )
    proc = subprocess.run([PY, "-c", code], env=env, cwd=cwd, capture_output=True, text=True)
    return proc.stderr.strip().splitlines()[-1:] if proc.stderr.strip() else []


def bench_one(root: Path, n: int, layout: str, repeat: int) -> dict:
    vault = root / f"{layout}-{n}"
    generate_vault(
        vault, n, groups=1 if layout == "one-folder" else 50, kind="decision" if layout == "one-folder" else None
    )
    env = _env(vault)
    subprocess.run([*JACKED, "memory", "doctor", "--reindex"], env=env, capture_output=True)
    clone = root / f"{layout}-{n}-git"
    subprocess.run(["git", "clone", "-q", str(vault), str(clone)], check=True)
    words = ["cache", "deploy"]
    found = json.loads(
        subprocess.run(
            [*JACKED, "memory", "search", *words, "--all", "--json"], env=env, capture_output=True, text=True
        ).stdout
    )
    note_id = found["results"][0]["id"]
    group = "g0"
    out = {"size": n, "layout": layout, "load": os.getloadavg()[0]}
    out["search"] = median_ms([*JACKED, "memory", "search", *words], repeat=repeat, env=env, cwd=root)
    out["git_grep"] = median_ms(
        ["git", "-C", str(vault), "grep", "-l", "-e", words[0], "--and", "-e", words[1]], repeat=repeat
    )
    out["rg"] = median_ms(["rg", "-l", words[0], str(vault / "groups")], repeat=repeat) if shutil.which("rg") else None
    counter = iter(range(10**6))
    out["add"] = _add_ms(env, root, group, repeat, counter)
    out["git_commit"] = _git_commit_ms(clone, group, repeat, counter)
    out["brief"] = median_ms([*JACKED, "memory", "brief", "--cwd", str(root)], repeat=repeat, env=env, cwd=root)
    out["read"] = median_ms([*JACKED, "memory", "read", note_id, "--all"], repeat=repeat, env=env, cwd=root)
    out["status"] = median_ms([*JACKED, "memory", "status"], repeat=repeat, env=env, cwd=root)
    out["help"] = median_ms([*JACKED, "--help"], repeat=repeat, env=env, cwd=root)
    out["hook"] = hook_ms(vault, root, repeat=repeat)
    out["mcp"] = mcp_first_answer_ms(vault, repeat=max(3, repeat // 2))
    out["mcp_p95"] = mcp_search_p95_ms(vault)
    out["search_loads"] = loaded_by(["memory", "search", *words], env, root)
    out["read_loads"] = loaded_by(["memory", "read", note_id, "--all"], env, root)
    out["brief_loads"] = loaded_by(["memory", "brief"], env, root)
    return out


def _add_ms(env: dict, cwd: Path, group: str, repeat: int, counter) -> float:
    times = []
    for _ in range(repeat):
        title = f"Bench add {next(counter)} {time.time_ns()}"
        start = time.perf_counter()
        proc = subprocess.run(
            [*JACKED, "memory", "add", "--group", group, "--kind", "decision", "--title", title, "--body", "Measured."],
            env=env,
            cwd=cwd,
            capture_output=True,
        )
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode:
            raise RuntimeError(proc.stderr.decode(errors="replace")[:500])
    return statistics.median(times)


def _git_commit_ms(clone: Path, group: str, repeat: int, counter) -> float:
    times = []
    for _ in range(repeat):
        rel = f"groups/{group}/decision/bench-git-{next(counter)}-{time.time_ns()}.md"
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_text("---\ntitle: bench\n---\n\nMeasured.\n")
        start = time.perf_counter()
        subprocess.run(["git", "-C", str(clone), "add", rel], check=True)
        subprocess.run(["git", "-C", str(clone), "commit", "-q", "-m", "bench"], check=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--layouts", default="spread,one-folder")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--keep", help="build the vaults here and keep them")
    args = parser.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="jacked-bench-cli-"))
    root.mkdir(parents=True, exist_ok=True)
    import compileall

    import jacked_vault

    compileall.compile_dir(str(Path(jacked_vault.__file__).parent), quiet=1)  # as an installed wheel has them
    print(f"command: {' '.join(JACKED)}  (python {sys.version.split()[0]}, {os.cpu_count()} cpus)")
    print("import time of each dependency (ms, cumulative, fresh interpreter):")
    print("  " + "  ".join(f"{m} {import_ms(m):.0f}" for m in DEPENDENCIES))
    print(f"  python -c pass: {median_ms([PY, '-c', 'pass'], repeat=args.repeat):.0f} ms")
    header = (
        f"{'size':>6} {'layout':<10} {'load':>4} | {'search':>6} {'grep':>5} {'rg':>5} {'ratio':>5} | {'add':>5} "
        f"{'git':>5} {'ratio':>5} |"
        f" {'brief':>5} {'hook':>5} {'read':>5} {'status':>6} {'help':>5} | {'mcp':>5} {'p95':>5}"
    )
    print("\nwhole-process medians, ms (ratio = ours / git)")
    print(header)
    rows = []
    try:
        for n in [int(s) for s in args.sizes.split(",")]:
            for layout in args.layouts.split(","):
                r = bench_one(root, n, layout, args.repeat)
                rows.append(r)
                rg = f"{r['rg']:5.0f}" if r["rg"] is not None else "    -"
                print(
                    f"{n:>6} {layout:<10} {r['load']:4.1f} | {r['search']:6.0f} {r['git_grep']:5.0f} {rg} "
                    f"{r['search'] / r['git_grep']:5.2f} |"
                    f" {r['add']:5.0f} {r['git_commit']:5.0f} {r['add'] / r['git_commit']:5.2f} |"
                    f" {r['brief']:5.0f} {r['hook']:5.0f} {r['read']:5.0f} {r['status']:6.0f} {r['help']:5.0f} | "
                    f"{r['mcp']:5.0f} {r['mcp_p95']:5.1f}",
                    flush=True,
                )
        print("\nheavy modules loaded (the budget: none for search, read, brief):")
        for r in rows:
            print(
                f"  {r['size']:>6} {r['layout']:<10} search: {r['search_loads']}  read: {r['read_loads']}  brief: "
                f"{r['brief_loads']}"
            )
        print("\nbudgets (issue 12), each row: met / missed")
        for r in rows:
            checks = [
                (
                    "search <= 100 ms" if r["size"] <= 10_000 else "search <= 130 ms",
                    r["search"] <= (100 if r["size"] <= 10_000 else 130),
                ),
                ("search <= 1.2x git grep", r["search"] <= 1.2 * r["git_grep"]),
                (
                    "add <= 1.5x git" if r["size"] <= 10_000 else "add < git",
                    r["add"] <= (1.5 if r["size"] <= 10_000 else 1.0) * r["git_commit"],
                ),
                ("brief <= 150 ms", r["brief"] <= 150),
                ("hook <= 150 ms", r["hook"] <= 150),
                ("read <= 100 ms", r["read"] <= 100),
                ("mcp first answer <= 500 ms", r["mcp"] <= 500),
                ("mcp search p95 <= 15 ms", r["mcp_p95"] <= 15),
            ]
            print(
                f"  {r['size']:>6} {r['layout']:<10} "
                + "; ".join(f"{name}: {'met' if ok else 'MISSED'}" for name, ok in checks)
            )
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
