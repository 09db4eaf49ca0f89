"""The MCP server for tests: in-process (`Client(inproc(...))`) or over stdio, with an explicit environment."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from jacked_vault.context import Context
from jacked_vault.mcp.server import Settings, build_server
from jacked_vault.notes import AddRequest, add

SERVER_ARGV = [sys.executable, "-m", "jacked_vault.mcp"]
REPO_ROOT = Path(__file__).resolve().parents[2]


def server_env(vault: Path, harness: str | None = "alpha", **extra: str) -> dict[str, str]:
    env = {
        "JACKED_VAULT_DIR": str(vault),
        "HOME": str(vault.parent),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(REPO_ROOT),
    }
    if harness is not None:
        env["JACKED_MEMORY_HARNESS"] = harness
    env.update(extra)
    return env


def inproc(vault: Path, work: Path, harness: str = "alpha", **extra: str):
    env = server_env(vault, harness, **extra)
    return build_server(Settings.from_env(environ=env, cwd=work))


def stdio(vault: Path, work: Path, harness: str = "alpha", **extra: str) -> Client:
    params = StdioServerParameters(
        command=SERVER_ARGV[0], args=SERVER_ARGV[1:], env=server_env(vault, harness, **extra), cwd=str(work)
    )
    return Client(params, read_timeout_seconds=60)


def run(fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    return anyio.run(fn, *args)


async def call(client: Client, tool: str, arguments: dict) -> tuple[bool, Any]:
    result = await client.call_tool(tool, arguments)
    return result.is_error, result.structured_content


def ok(pair: tuple[bool, Any]) -> dict:
    is_error, payload = pair
    assert not is_error, payload
    return payload


def err(pair: tuple[bool, Any], code: str) -> dict:
    is_error, payload = pair
    assert is_error, payload
    assert payload["error"]["code"] == code, payload
    return payload["error"]


def lib_add(vault: Path, work: Path, harness: str, title: str, body: str, **kw: Any) -> str:
    ctx = Context.create(vault=str(vault), cwd=work, harness=harness)
    kw.setdefault("group", "g")
    return add(ctx, AddRequest(title=title, body=body, **kw)).note.id
