"""Whole-process figures for every command an agent calls, side by side with git (issue 12).

For each size (default 1k, 10k, 50k) and each layout (`spread`: 50 groups, notes of every kind;
`one-folder`: one group, every note a `decision`, so one folder holds them all) it builds a
vault (`bench/_vaultgen.py`), then times whole processes, median of `--repeat` runs:

- `jacked memory search WORDS` against `git grep -l WORDS` and `rg -l WORDS` (when rg is on PATH)
  on the same notes;
- `jacked memory add` against `git add FILE && git commit` of one new note, in a plain clone of
  the same vault (so the trees and the git index are the same size);
- `brief`, `read ID`, `status`, `--help`;
- the MCP server (`jacked-memory-mcp`) from spawn to the first answered `memory_search`.

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
JACKED = [PY, "-m", "jacked_vault.cli.main"]
DEPENDENCIES = ("typer", "pygit2", "jsonschema", "fastjsonschema", "ruamel.yaml", "mcp", "pydantic", "sqlite3")


def _env(vault: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_")}
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
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_search", "arguments": {"query": "cache"}}},
    ]
    env = _env(vault) | {"JACKED_MEMORY_HARNESS": "bench"}
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen([PY, "-m", "jacked_vault.mcp.server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=vault.parent)
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
        "sys.stderr.write(' '.join(sorted({m.split('.')[0] for m in sys.modules} & {'pygit2', 'jsonschema', 'pydantic', 'ruamel', 'mcp', 'typer'})))\n"
    )
    proc = subprocess.run([PY, "-c", code], env=env, cwd=cwd, capture_output=True, text=True)
    return proc.stderr.strip().splitlines()[-1:] if proc.stderr.strip() else []


def bench_one(root: Path, n: int, layout: str, repeat: int) -> dict:
    vault = root / f"{layout}-{n}"
    generate_vault(vault, n, groups=1 if layout == "one-folder" else 50, kind="decision" if layout == "one-folder" else None)
    env = _env(vault)
    subprocess.run([*JACKED, "memory", "doctor", "--reindex"], env=env, capture_output=True)
    clone = root / f"{layout}-{n}-git"
    subprocess.run(["git", "clone", "-q", str(vault), str(clone)], check=True)
    words = ["cache", "deploy"]
    found = json.loads(subprocess.run([*JACKED, "memory", "search", *words, "--all", "--json"], env=env, capture_output=True, text=True).stdout)
    note_id = found["results"][0]["id"]
    group = "g0"
    out = {"size": n, "layout": layout, "load": os.getloadavg()[0]}
    out["search"] = median_ms([*JACKED, "memory", "search", *words], repeat=repeat, env=env, cwd=root)
    out["git_grep"] = median_ms(["git", "-C", str(vault), "grep", "-l", "-e", words[0], "--and", "-e", words[1]], repeat=repeat)
    out["rg"] = median_ms(["rg", "-l", words[0], str(vault / "groups")], repeat=repeat) if shutil.which("rg") else None
    counter = iter(range(10**6))
    out["add"] = _add_ms(env, root, group, repeat, counter)
    out["git_commit"] = _git_commit_ms(clone, group, repeat, counter)
    out["brief"] = median_ms([*JACKED, "memory", "brief", "--cwd", str(root)], repeat=repeat, env=env, cwd=root)
    out["read"] = median_ms([*JACKED, "memory", "read", note_id, "--all"], repeat=repeat, env=env, cwd=root)
    out["status"] = median_ms([*JACKED, "memory", "status"], repeat=repeat, env=env, cwd=root)
    out["help"] = median_ms([*JACKED, "--help"], repeat=repeat, env=env, cwd=root)
    out["mcp"] = mcp_first_answer_ms(vault, repeat=max(3, repeat // 2))
    out["search_loads"] = loaded_by(["memory", "search", *words], env, root)
    out["read_loads"] = loaded_by(["memory", "read", note_id, "--all"], env, root)
    out["brief_loads"] = loaded_by(["memory", "brief"], env, root)
    return out


def _add_ms(env: dict, cwd: Path, group: str, repeat: int, counter) -> float:
    times = []
    for _ in range(repeat):
        title = f"Bench add {next(counter)} {time.time_ns()}"
        start = time.perf_counter()
        proc = subprocess.run([*JACKED, "memory", "add", "--group", group, "--kind", "decision", "--title", title, "--body", "Measured."], env=env, cwd=cwd, capture_output=True)
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
    print("import time of each dependency (ms, cumulative, fresh interpreter):")
    print("  " + "  ".join(f"{m} {import_ms(m):.0f}" for m in DEPENDENCIES))
    print(f"  python -c pass: {median_ms([PY, '-c', 'pass'], repeat=args.repeat):.0f} ms")
    header = f"{'size':>6} {'layout':<10} {'load':>4} | {'search':>6} {'grep':>5} {'rg':>5} {'ratio':>5} | {'add':>5} {'git':>5} {'ratio':>5} | {'brief':>5} {'read':>5} {'status':>6} {'help':>5} {'mcp':>5}"
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
                    f"{n:>6} {layout:<10} {r['load']:4.1f} | {r['search']:6.0f} {r['git_grep']:5.0f} {rg} {r['search'] / r['git_grep']:5.2f} |"
                    f" {r['add']:5.0f} {r['git_commit']:5.0f} {r['add'] / r['git_commit']:5.2f} |"
                    f" {r['brief']:5.0f} {r['read']:5.0f} {r['status']:6.0f} {r['help']:5.0f} {r['mcp']:5.0f}",
                    flush=True,
                )
        print("\nheavy modules loaded (should be none but typer for search, read, brief):")
        for r in rows:
            print(f"  {r['size']:>6} {r['layout']:<10} search: {r['search_loads']}  read: {r['read_loads']}  brief: {r['brief_loads']}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
