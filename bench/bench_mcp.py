"""MCP over stdio on a generated vault: start-to-first-answer, memory_save and memory_search.

    python bench/bench_mcp.py [--notes 10000] [--reps 100]

A real stdio client (`mcp.Client` with `StdioServerParameters`) talks to the real server
(`python -m jacked_vault.mcp`) with JACKED_MEMORY_HARNESS set, as a harness would.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._vaultgen import WORDS, generate_vault  # noqa: E402


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(samples) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms (n={len(samples)})"


def main() -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    from jacked_vault.context import Context
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--reps", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jacked-bench-mcp-") as tmp:
        root = Path(tmp)
        vault, work = root / "vault", root / "work"
        work.mkdir()
        generate_vault(vault, args.notes)
        search(Context.create(vault=str(vault), cwd=work, harness="bench"), "warm", Filters())  # a real vault is warm
        env = {"JACKED_VAULT_DIR": str(vault), "JACKED_MEMORY_HARNESS": "bench", "HOME": str(root), "PATH": os.environ["PATH"],
               "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        params = StdioServerParameters(command=sys.executable, args=["-m", "jacked_vault.mcp"], env=env, cwd=str(work))
        rng = random.Random(7)
        queries = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(args.reps)]

        async def run():
            starts = []
            for _ in range(5):
                started = time.perf_counter()
                async with Client(params, read_timeout_seconds=120) as client:
                    assert not (await client.call_tool("memory_search", {"query": "cache"})).is_error
                starts.append(time.perf_counter() - started)
            saves, searches = [], []
            async with Client(params, read_timeout_seconds=120) as client:
                for i, words in enumerate(queries):
                    started = time.perf_counter()
                    result = await client.call_tool("memory_save", {"title": f"Bench note {i} {words}", "body": f"Body {i}: {words}.", "group": "g1"})
                    saves.append(time.perf_counter() - started)
                    assert not result.is_error, result.structured_content
                for words in queries:
                    started = time.perf_counter()
                    assert not (await client.call_tool("memory_search", {"query": words, "limit": 20})).is_error
                    searches.append(time.perf_counter() - started)
            return starts, saves, searches

        starts, saves, searches = anyio.run(run)
        print(f"{args.notes} notes over stdio")
        print(f"start -> first answered call: {summary(starts)}")
        print(f"memory_save:                  {summary(saves)}")
        print(f"memory_search:                {summary(searches)}")


if __name__ == "__main__":
    main()
