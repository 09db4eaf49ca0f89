"""MCP over stdio on a generated vault: start-up, memory_save and memory_search.

    python bench/bench_mcp.py [--notes 10000] [--reps 100] [--spawns 9] [--baseline REF] [--start-only]

Every server is `python -m jacked_vault.mcp` with JACKED_MEMORY_HARNESS set, as a harness runs it.

- raw start: a bare line client (only the server's time): spawn -> `initialize` answered,
  and spawn -> the first `tools/call memory_search` answered; plus the server's CPU time
  (user + sys, start to exit), which other load on the machine does not inflate.
- client start: `mcp.Client` over stdio (what an SDK harness waits): spawn -> first search answered.
- memory_save / memory_search: one long-lived client per server, `--reps` calls each.
- the SDK's floor: `python -c 'import mcp'` (wall and CPU) beside `python -c pass`, and where
  `import mcp` goes (-X importtime): no server built on the SDK answers before that import ends.
- where the start-up goes: the phases of one server start, timed inside a fresh process.

`--start-only` measures only the raw start and the floor (a quick run for the first-answer budget).

`--baseline REF` (e.g. `main`) also runs everything against `git archive REF` in the same
run, spawns interleaved with this checkout's, and prints after/before ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._vaultgen import WORDS, generate_vault  # noqa: E402

BUDGETS_MS = {
    "raw: initialize answered": 300,
    "client start": 500,
    "memory_save": 40,
    "memory_search": 15,
}  # issue 21.7: 300
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}
FIRST_CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "memory_search", "arguments": {"query": "cache"}},
}

# One server start, phase by phase, in a fresh interpreter (run with the server's environment).
# The SDK has no lighter door: every `mcp.*` import runs `mcp/__init__`, which imports the client,
# `mcp.server` (and with it MCPServer) and the HTTP stack (starlette, uvicorn, sse, httpx).
PHASES = r"""
import json, time
t = [time.perf_counter()]
from jacked_vault.mcp.server import Settings, build_server
settings = Settings.from_env(); t.append(time.perf_counter())
import mcp_types; t.append(time.perf_counter())
import mcp.server.lowlevel, mcp.server.stdio; t.append(time.perf_counter())
build_server(settings); t.append(time.perf_counter())
from jacked_vault.context import Context
from jacked_vault.search.query import Filters
from jacked_vault.search.service import search
ctx = Context.create(vault=str(settings.vault_path), cwd=settings.cwd, harness=settings.harness)
search(ctx, "cache", Filters(target=settings.harness))
t.append(time.perf_counter())
print(json.dumps([b - a for a, b in zip(t, t[1:])]))
"""
PHASE_NAMES = (
    "jacked_vault.mcp.server + launch settings",
    "mcp_types (the SDK's pydantic wire types)",
    "rest of the SDK (`mcp/__init__`: client, server, HTTP stack)",
    "build_server (tool models and schemas, the SDK's server)",
    "first search (search modules, sqlite, FTS query)",
)
# Where the SDK import goes: `python -X importtime -c "import mcp"` (the same SDK for every
# server measured), cumulative microseconds, each module where it is first imported.
SDK_MODULES = (
    ("mcp", "all of `import mcp` (its __init__)"),
    ("mcp_types", "  mcp_types: pydantic wire types"),
    ("mcp_types._v2025_11_25", "    protocol 2025-11-25 models"),
    ("mcp_types._v2026_07_28", "    protocol 2026-07-28 models"),
    ("mcp.types", "  mcp.types: per-method types"),
    ("mcp.client", "  mcp.client (mcp/__init__ imports it)"),
    ("mcp.server", "    mcp.server (the client's in-memory transport imports it)"),
    ("mcp.server.lowlevel", "      mcp.server.lowlevel (the Server we use)"),
    ("mcp.server.streamable_http", "        HTTP transport (lowlevel imports it)"),
    ("mcp.server.mcpserver", "      mcp.server.mcpserver (MCPServer)"),
    ("pydantic", "  pydantic"),
)
# Ours, per server measured: the modules before and after the SDK (`IMPORT_PROBE`).
OWN_MODULES = (
    ("jacked_vault.mcp.server", "our server module and settings (before the SDK)"),
    ("jacked_vault.mcp.tools.save", "our tool modules (argument models)"),
)
IMPORT_PROBE = "from jacked_vault.mcp.server import Settings, build_server\nbuild_server(Settings.from_env())\n"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def raw_start(env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Seconds from spawn to the initialize answer and to the first tools/call answer, and the
    server's CPU seconds for its whole life (start, those two answers, exit): load-independent."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.mcp"], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    proc.stdin.flush()
    assert "result" in json.loads(proc.stdout.readline())
    initialized = time.perf_counter() - started
    proc.stdin.write(
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n' + json.dumps(FIRST_CALL).encode() + b"\n"
    )
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    called = time.perf_counter() - started
    assert not answer["result"]["isError"], answer
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return initialized, called, usage.ru_utime + usage.ru_stime


def phases(env: dict[str, str], cwd: Path) -> list[float]:
    out = subprocess.run([sys.executable, "-c", PHASES], cwd=cwd, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"the phase probe failed ({env['PYTHONPATH']}):\n{out.stderr[-2000:]}")
    return json.loads(out.stdout)


def import_costs(env: dict[str, str], cwd: Path, probe: str) -> dict[str, int]:
    """Cumulative microseconds per module that `probe` imports (`-X importtime`)."""
    import re

    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", probe],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"import time:\s+\d+ \|\s+(\d+) \|\s+(\S+)", err)}


def child(env: dict[str, str], code: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + sys) of `python -c code`."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, code
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def export(ref: str, into: Path) -> Path:
    """The tree of `ref` as plain files (read from the object store; no worktree is touched)."""
    into.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main() -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    from jacked_vault.context import Context
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--spawns", type=int, default=9, help="server starts per measurement (default 9)")
    parser.add_argument("--baseline", metavar="REF", help="also measure this git ref (e.g. main), interleaved")
    parser.add_argument("--start-only", action="store_true", help="only the raw start-up figures and the SDK's floor")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jacked-bench-mcp-") as tmp:
        root = Path(tmp)
        vault, work = root / "vault", root / "work"
        work.mkdir()
        generate_vault(vault, args.notes)
        search(Context.create(vault=str(vault), cwd=work, harness="bench"), "warm", Filters())  # a real vault is warm
        servers = {"this checkout": ROOT}
        if args.baseline:
            servers[f"baseline {args.baseline}"] = export(args.baseline, root / "baseline")
        envs = {
            name: {
                "JACKED_VAULT_DIR": str(vault),
                "JACKED_MEMORY_HARNESS": "bench",
                "HOME": str(root),
                "PATH": os.environ["PATH"],
                "PYTHONPATH": str(code),
            }
            for name, code in servers.items()
        }
        rng = random.Random(7)
        queries = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(args.reps)]
        figures: dict[str, dict[str, list[float]]] = {name: {} for name in servers}

        def record(name: str, what: str, seconds: float) -> None:
            figures[name].setdefault(what, []).append(seconds)

        async def client_start(env: dict[str, str]) -> float:
            started = time.perf_counter()
            async with Client(
                StdioServerParameters(command=sys.executable, args=["-m", "jacked_vault.mcp"], env=env, cwd=str(work))
            ) as client:
                assert not (await client.call_tool("memory_search", {"query": "cache"})).is_error
            return time.perf_counter() - started

        async def calls() -> None:
            """Every server's client open at once, the calls alternating between them."""
            async with AsyncExitStack() as stack:
                clients = {
                    name: await stack.enter_async_context(
                        Client(
                            StdioServerParameters(
                                command=sys.executable, args=["-m", "jacked_vault.mcp"], env=env, cwd=str(work)
                            )
                        )
                    )
                    for name, env in envs.items()
                }
                for i, words in enumerate(queries):
                    for name, client in clients.items():
                        started = time.perf_counter()
                        result = await client.call_tool(
                            "memory_save",
                            {"title": f"Bench note {name} {i} {words}", "body": f"Body {i}: {words}.", "group": "g1"},
                        )
                        record(name, "memory_save", time.perf_counter() - started)
                        assert not result.is_error, result.structured_content
                for words in queries:
                    for name, client in clients.items():
                        started = time.perf_counter()
                        assert not (await client.call_tool("memory_search", {"query": words, "limit": 20})).is_error
                        record(name, "memory_search", time.perf_counter() - started)

        floor: dict[str, list[float]] = {}  # the SDK alone, whichever server: the same package
        for _ in range(args.spawns):
            for what, code in (("python -c pass", "pass"), ("python -c 'import mcp'", "import mcp")):
                wall, cpu = child(envs["this checkout"], code)
                floor.setdefault(f"{what}: wall", []).append(wall)
                floor.setdefault(f"{what}: CPU", []).append(cpu)
            for module, micros in import_costs(envs["this checkout"], work, "import mcp").items():
                floor.setdefault(module, []).append(micros / 1e6)
            for name, env in envs.items():
                initialized, called, cpu = raw_start(env, work)
                record(name, "raw: initialize answered", initialized)
                record(name, "raw: first search answered", called)
                record(name, "raw: server CPU, whole life", cpu)
                if args.start_only:
                    continue
                record(name, "client start", anyio.run(client_start, env))
                for phase, seconds in zip(PHASE_NAMES, phases(env, work), strict=True):
                    record(name, phase, seconds)
                for module, micros in import_costs(env, work, IMPORT_PROBE).items():
                    record(name, f"import {module}", micros / 1e6)
        if not args.start_only:
            anyio.run(calls)

        print(
            f"{args.notes} notes over stdio; {args.spawns} spawns per server, interleaved;"
            f" load average {os.getloadavg()[0]:.2f}"
        )
        print("  median (p95); budgets: " + ", ".join(f"{row} ≤ {budget} ms" for row, budget in BUDGETS_MS.items()))
        names = list(servers)
        rows = [
            "raw: initialize answered",
            "raw: first search answered",
            "raw: server CPU, whole life",
            "client start",
            "memory_save",
            "memory_search",
        ]
        print(f"  {'':32}" + "".join(f"{name:>28}" for name in names) + ("   after/before" if len(names) > 1 else ""))
        for row in rows:
            if row not in figures[names[0]]:
                continue
            cells = [stats(figures[name][row]) for name in names]
            line = f"  {row:32}" + "".join(f"{ms(med) + ' (' + ms(p95) + ')':>28}" for med, p95 in cells)
            if len(names) > 1:
                line += f"   {cells[0][0] / cells[1][0]:.2f}"
            if row in BUDGETS_MS:
                line += "   PASS" if cells[0][0] * 1000 <= BUDGETS_MS[row] else "   MISS"
            print(line)
        print("the SDK's floor (the same package for every server; median):")
        for what in ("python -c pass", "python -c 'import mcp'"):
            wall, cpu = (statistics.median(floor[f"{what}: {kind}"]) for kind in ("wall", "CPU"))
            print(f"  {what:62}{ms(wall):>12} wall {ms(cpu):>12} CPU")
        print("where `import mcp` goes (-X importtime, cumulative where first imported; median):")
        for module, label in SDK_MODULES:
            print(f"  {label:62}{ms(statistics.median(floor.get(module, [float('nan')]))):>12}")
        if args.start_only:
            return
        print("where the start-up goes (medians; the rest is spawn, the session and the client):")
        print(f"  {'':62}" + "".join(f"{name[:14]:>16}" for name in names))
        for phase in PHASE_NAMES:
            print(f"  {phase:62}" + "".join(f"{ms(statistics.median(figures[name][phase])):>16}" for name in names))
        for module, label in OWN_MODULES:
            cells = [statistics.median(figures[name].get(f"import {module}", [0.0])) for name in names]
            print(f"  {label:62}" + "".join(f"{ms(cell):>16}" for cell in cells))


if __name__ == "__main__":
    main()
