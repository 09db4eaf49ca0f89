"""The MCP server's shape (issue 22.6, 22.2): the SDK's public low-level `Server`, one module per
tool with a strict argument model, doctor's visible counts from the read policy, and the CLI's
`memory mcp` running the same `serve()` as `jacked-memory-mcp`."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from conftest import snapshot
from helpers.mcp_server import call, err, inproc, lib_add, ok, run, server_env
from mcp import Client

from jacked_vault.doctor.report import Report
from jacked_vault.mcp import tools as tools_package
from jacked_vault.search.policy import visible_findings

MCP_PACKAGE = Path(tools_package.__file__).resolve().parent.parent
TOOL_FILES = sorted(p.stem for p in (MCP_PACKAGE / "tools").glob("*.py") if p.stem not in ("__init__", "common"))


def test_the_server_is_the_sdks_public_low_level_server_with_one_module_per_tool(vault_path, tmp_path):
    from mcp.server import Server

    from jacked_vault.mcp.server import tool_modules

    server = inproc(vault_path, tmp_path)
    assert type(server) is Server  # the public class itself, not a subclass reaching into it
    modules = tool_modules()
    assert (
        sorted(m.__name__.rsplit(".", 1)[1] for m in modules)
        == TOOL_FILES
        == ["brief", "doctor", "read", "save", "search"]
    )

    async def go():
        async with Client(server) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert run(go) == [m.NAME for m in modules]
    for module in modules:
        assert module.Arguments.model_config["extra"] == "forbid" and module.Arguments.model_config["strict"] is True
        assert module.CODE.startswith("MEMORY_") and callable(module.call)


def test_no_private_sdk_name_is_used():
    """Issue 22.6: no private SDK module or name (`_lowlevel_server`, `fn_metadata`, `arg_model`),
    and nothing of MCPServer (the old server patched its internals; the low-level Server is the base).
    The same scan of the old server.py found all of them."""
    used: list[str] = []
    for path in sorted(MCP_PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("mcp", "mcp_types"):
                used += [
                    f"{path.name}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") or "._" in node.module
                ]
                if "mcpserver" in node.module:
                    used.append(f"{path.name}: {node.module}")
            elif isinstance(node, ast.Attribute) and node.attr in ("_lowlevel_server", "fn_metadata", "arg_model"):
                used.append(f"{path.name}: .{node.attr}")
    assert used == []


def test_arguments_are_taken_as_their_json_type_only(vault_path, tmp_path):
    """Strict models: a number in a string, a fraction for an integer, a JSON text for a list are
    refused with the tool's code (the old per-function models coerced them), and nothing is written."""
    before = snapshot(vault_path)
    calls = [
        ("memory_search", {"query": "x", "limit": "5"}, "MEMORY_SEARCH_FAILED", "limit"),
        ("memory_search", {"query": "x", "limit": 5.5}, "MEMORY_SEARCH_FAILED", "limit"),
        (
            "memory_save",
            {"title": "Strict", "body": "b", "group": "g", "tags": '["a"]'},
            "MEMORY_WRITE_REJECTED",
            "tags",
        ),
        ("memory_save", {"title": "Strict", "body": "b", "group": "g", "scope": 1}, "MEMORY_WRITE_REJECTED", "scope"),
        ("memory_brief", {"budget": True}, "MEMORY_BRIEF_FAILED", "budget"),
        ("memory_read", {"id": ["mem_20260101_abc"]}, "MEMORY_READ_FAILED", "id"),
    ]

    async def go():
        async with Client(inproc(vault_path, tmp_path)) as client:
            return [await call(client, tool, args) for tool, args, _, _ in calls]

    for (_, _, code, field), pair in zip(calls, run(go), strict=True):
        error = err(pair, code)
        assert error["reason"] == "JACKED_MEMORY_USAGE" and error["message"].startswith(
            f"invalid arguments: {field}"
        ), error
    assert snapshot(vault_path) == before


def test_an_unknown_prompt_or_prompt_argument_is_a_json_rpc_error(vault_path, tmp_path):
    from mcp.shared.exceptions import MCPError

    async def refused(name: str, arguments: dict[str, str]):
        async with Client(inproc(vault_path, tmp_path)) as client:
            try:
                await client.get_prompt(name, arguments)
            except MCPError as exc:
                return exc.error

    unknown = run(refused, "nothing", {})
    assert unknown.code == -32602 and unknown.message == "Unknown prompt: nothing"
    extra = run(refused, "brief", {"budget": "300"})  # the prompt takes repo only
    assert extra.code == -32602 and extra.message.startswith("MEMORY_BRIEF_FAILED: invalid arguments: budget")
    assert extra.data == {"code": "MEMORY_BRIEF_FAILED", "reason": "JACKED_MEMORY_USAGE"}


# -- doctor's visible counts: the read policy's rule ----------------------------------------------


def test_the_read_policy_says_which_doctor_findings_a_harness_may_see():
    readable = [{"id": "mem_20260101_seen", "path": "group:groups/g/note/seen.md"}]
    report = Report(
        invalid_files=[
            {"path": "group:groups/g/bad.md"},
            {"path": "project:note/bad.md"},
            {"path": "user:strategy/bad.md"},
        ],
        duplicate_ids=[{"id": "mem_20260101_seen"}, {"id": "mem_20260101_hidden"}],
        broken_links=[{"id": "mem_20260101_hidden", "missing": "mem_x"}],
        skipped_symlinks=["vault:groups/link.md", "project:note/link.md"],
        uncommitted=[{"path": "group:groups/g/new.md"}],
        audit_problems=[
            {"path": "group:groups/g/note/seen.md"},
            {"path": "group:groups/g/note/hidden.md"},
            {"path": "vault:audit/2026-12.jsonl"},
        ],
        git_index_stale=["project:.jacked/memory"],
        git_problems=[{"path": "vault:.git"}],
        config_problems=[{"problem": "bad config"}],
    )
    seen = visible_findings(report, frozenset({"group"}), readable)
    assert seen["invalid_files"] == [{"path": "group:groups/g/bad.md"}]
    assert seen["duplicate_ids"] == [{"id": "mem_20260101_seen"}]
    assert seen["broken_links"] == []  # about a note it may not read
    assert seen["skipped_symlinks"] == ["vault:groups/link.md"]  # the vault holds the group store
    assert seen["uncommitted"] == [{"path": "group:groups/g/new.md"}]
    assert seen["audit_problems"] == [{"path": "group:groups/g/note/seen.md"}, {"path": "vault:audit/2026-12.jsonl"}]
    assert seen["git_index_stale"] == [] and seen["git_problems"] == [{"path": "vault:.git"}]
    assert seen["config_problems"] == [{"problem": "bad config"}]
    project = visible_findings(report, frozenset({"project"}), [])
    assert project["invalid_files"] == [{"path": "project:note/bad.md"}] and project["skipped_symlinks"] == [
        "project:note/link.md"
    ]
    assert project["git_problems"] == [] and project["audit_problems"] == []


def test_mcp_doctor_counts_a_duplicate_only_when_the_harness_may_read_the_note(vault_path, tmp_path):
    """Two notes share an id; for a harness they are not addressed to, doctor counts nothing."""
    note_id = lib_add(vault_path, tmp_path, "alpha", "Twin one", "b", targets=("beta",))
    first = next((vault_path / "groups").rglob("twin-one.md"))
    twin = first.with_name("twin-two.md")
    twin.write_text(first.read_text().replace('title: "Twin one"', 'title: "Twin two"'))
    subprocess.run(["git", "-C", str(vault_path), "add", str(twin)], check=True)
    subprocess.run(["git", "-C", str(vault_path), "commit", "-qm", "a twin"], check=True)

    async def doctor(harness: str):
        async with Client(inproc(vault_path, tmp_path, harness=harness)) as client:
            return ok(await call(client, "memory_doctor", {}))

    assert run(doctor, "beta")["duplicate_id_count"] == 1
    assert run(doctor, "alpha")["duplicate_id_count"] == 0 and note_id not in json.dumps(run(doctor, "alpha"))


def test_mcp_doctor_reads_no_note_row_beyond_what_doctor_itself_reads(vault_path, tmp_path, monkeypatch):
    """memory_doctor's own work is bounded by the findings, not the vault: it counts the notes the
    harness may read without building a row for each (before, it searched every note, unbounded);
    the count is the same, and a duplicate is still counted for a harness that may read it."""
    from jacked_vault.context import Context
    from jacked_vault.doctor import doctor as library_doctor
    from jacked_vault.search.readmodel import ReadModel

    for n in range(12):
        lib_add(vault_path, tmp_path, "alpha", f"Plain note {n}", "b")
    lib_add(vault_path, tmp_path, "alpha", "For beta only", "b", targets=("beta",))
    rows: list[str] = []
    real = ReadModel.doc

    def counted(self, row, *args, **kwargs):
        rows.append(row[2])
        return real(self, row, *args, **kwargs)

    monkeypatch.setattr(ReadModel, "doc", counted)
    library_doctor(Context.create(vault=str(vault_path), cwd=tmp_path, harness="alpha"))
    doctors_own = len(rows)

    async def doctor(harness: str):
        async with Client(inproc(vault_path, tmp_path, harness=harness)) as client:
            return ok(await call(client, "memory_doctor", {}))

    rows.clear()
    answer = run(doctor, "alpha")
    assert (answer["ok"], answer["memory_count"], len(rows)) == (True, 12, doctors_own)
    assert run(doctor, "beta")["memory_count"] == 13


# -- the CLI runs serve() ---------------------------------------------------------------------------


def test_cli_memory_mcp_serves_like_the_console_script(vault_path, tmp_path):
    """`jacked memory mcp` answers the handshake as `python -m jacked_vault.mcp` does, and refuses
    a launch without a harness with a JSON error under --json."""
    env = server_env(vault_path)
    hello = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }  # fmt: skip
    cli = [sys.executable, "-m", "jacked_vault.cli.main", "memory", "mcp"]
    out = subprocess.run(
        cli, input=json.dumps(hello) + "\n", env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "jacked-memory"
    before = snapshot(vault_path)
    refused = subprocess.run(
        [*cli, "--json"],
        input="",
        env=server_env(vault_path, None),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1 and json.loads(refused.stdout)["error"]["code"] == "JACKED_MEMORY_CONFIG", (
        refused.stdout
    )
    assert "JACKED_MEMORY_HARNESS is not set" in json.loads(refused.stdout)["error"]["message"]
    assert snapshot(vault_path) == before
