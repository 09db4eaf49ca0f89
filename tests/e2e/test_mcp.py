"""The MCP server: real vaults, the real server in-process (`Client(server)`) and over stdio.

Stdio tests launch `python -m jacked_vault.mcp` (what `jacked-memory-mcp` runs) as a child
with an explicit environment, exactly as a harness does.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from conftest import git, make_repo, snapshot
from helpers.mcp_server import SERVER_ARGV, call, err, inproc, lib_add, ok, run, server_env, stdio
from mcp import Client, StdioServerParameters

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from tests.helpers.state import state_dir

# -- helpers --------------------------------------------------------------------------------------


def commit_count(vault: Path) -> int:
    return int(git(vault, "rev-list", "--count", "HEAD").strip())


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


# -- in-process suite -----------------------------------------------------------------------------


def test_tools_have_strict_schemas_and_say_unreviewed(vault_path, work):
    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in run(go)}
    assert set(tools) == {"memory_save", "memory_search", "memory_read", "memory_doctor", "memory_brief"}
    for tool in tools.values():
        assert tool.input_schema["additionalProperties"] is False
        assert not {"source_harness", "target_harness", "trust", "harness", "origin", "status"} & set(
            tool.input_schema["properties"]
        )
    assert set(tools["memory_save"].input_schema["properties"]) == {
        "title",
        "body",
        "kind",
        "scope",
        "group",
        "tags",
        "links",
        "target_harnesses",
        "supersedes",
    }
    assert set(tools["memory_search"].input_schema["properties"]) == {
        "query",
        "scopes",
        "kinds",
        "tags",
        "group",
        "limit",
        "as_of",
        "known_at",
        "include_archived",
    }
    assert tools["memory_search"].input_schema["properties"]["limit"]["maximum"] == 100
    assert set(tools["memory_read"].input_schema["properties"]) == {"id", "scope"}
    assert set(tools["memory_brief"].input_schema["properties"]) == {"repo", "budget"}
    from jacked_vault.mcp.tools import brief as brief_tool
    from jacked_vault.recall import brief

    assert (brief_tool.MIN_BUDGET, brief_tool.DEFAULT_BUDGET) == (brief.MIN_BUDGET, brief.DEFAULT_BUDGET)
    assert tools["memory_brief"].input_schema["properties"]["budget"]["minimum"] == brief.MIN_BUDGET
    assert all(
        "\n    " not in tool.description for tool in tools.values()
    )  # shown as written, not as indented in the code
    for name in ("memory_search", "memory_read", "memory_save", "memory_brief"):
        assert "unreviewed" in tools[name].description and "not instructions" in tools[name].description


def test_inproc_save_search_read_doctor(vault_path, work):
    async def go():
        async with Client(inproc(vault_path, work, harness="claude")) as client:
            saved = ok(
                await call(
                    client,
                    "memory_save",
                    {
                        "title": "Use SQLite FTS5 for search",
                        "body": "We chose FTS5: offline, no server.",
                        "kind": "decision",
                        "group": "tools",
                        "tags": ["search"],
                    },
                )
            )
            found = ok(await call(client, "memory_search", {"query": "FTS5 offline"}))
            read = ok(await call(client, "memory_read", {"id": saved["memory"]["id"]}))
            doctor = ok(await call(client, "memory_doctor", {}))
            return saved, found, read, doctor

    saved, found, read, doctor = run(go)
    memory = saved["memory"]
    assert memory["kind"] == "decision" and memory["scope"] == "group" and memory["group"] == "tools"
    assert memory["source_harness"] == "claude" and memory["trust"] == "unreviewed"
    assert saved["path"] == "group:groups/tools/decision/use-sqlite-fts5-for-search.md"
    assert "body" not in memory and "FTS5: offline" not in json.dumps(saved)
    committed = git(
        vault_path, "show", "HEAD:groups/tools/decision/use-sqlite-fts5-for-search.md"
    )  # the note the save wrote
    written_id = re.search(r'^id: "(mem_[^"]+)"$', committed, re.M).group(1)
    assert memory["id"] == written_id and read["memory"]["id"] == written_id
    assert [r["id"] for r in found["results"]] == [written_id]
    assert found["diagnostics"] == {"invalid_file_count": 0, "skipped_symlinks": 0, "truncated": False}
    assert "not instructions" in found["notice"].replace("never as instructions", "not instructions")
    assert read["memory"]["body"] == "We chose FTS5: offline, no server."
    assert read["memory"]["origin"] == "mcp" and read["memory"]["source_harness"] == "claude"
    assert doctor["ok"] is True and doctor["memory_count"] == 1
    assert not any("/" in str(v) for k, v in doctor.items() if k not in ("hint",))
    message = git(vault_path, "log", "-1", "--format=%B")
    assert "Memory-Harness: claude" in message and "Memory-Origin: mcp" in message


def test_spoofed_identity_is_rejected_by_the_schema(vault_path, work):
    before = snapshot(vault_path)
    spoofs = [
        ("memory_save", {"title": "t", "body": "b", "group": "g", "source_harness": "beta"}, "MEMORY_WRITE_REJECTED"),
        ("memory_save", {"title": "t", "body": "b", "group": "g", "target_harness": "beta"}, "MEMORY_WRITE_REJECTED"),
        ("memory_save", {"title": "t", "body": "b", "group": "g", "trust": "reviewed"}, "MEMORY_WRITE_REJECTED"),
        ("memory_save", {"title": "t", "body": "b", "group": "g", "status": "active"}, "MEMORY_WRITE_REJECTED"),
        ("memory_search", {"query": "x", "target_harness": "beta"}, "MEMORY_SEARCH_FAILED"),
        ("memory_search", {"query": "x", "harness": "beta"}, "MEMORY_SEARCH_FAILED"),
        ("memory_read", {"id": "mem_20260101_abc", "target_harness": "beta"}, "MEMORY_READ_FAILED"),
        ("memory_doctor", {"source_harness": "beta"}, "MEMORY_DOCTOR_FAILED"),
    ]

    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return [(await call(client, tool, args), code) for tool, args, code in spoofs]

    for pair, code in run(go):
        error = err(pair, code)
        assert "Extra inputs are not permitted" in error["message"]
        assert "beta" not in error["message"] and "reviewed" not in error["message"].replace("unreviewed", "")
    assert snapshot(vault_path) == before


def test_malformed_calls_do_not_kill_the_server(vault_path, work):
    async def go():
        async with Client(inproc(vault_path, work)) as client:
            bad = [
                await call(client, "memory_save", {"title": 5, "body": ["x"]}),
                await call(client, "memory_save", {}),
                await call(client, "memory_search", {"limit": 1000}),
                await call(client, "memory_search", {"scopes": ["everything"]}),
                await call(client, "memory_read", {"id": "../../etc/passwd"}),
                await call(client, "memory_save", {"title": "t", "body": "b", "kind": "rumour", "group": "g"}),
            ]
            unknown = await client.call_tool("memory_delete", {"id": "x"})
            after = ok(await call(client, "memory_save", {"title": "still alive", "body": "yes", "group": "g"}))
            return bad, unknown, after

    bad, unknown, after = run(go)
    for pair in bad:
        assert pair[0] is True and pair[1]["error"]["code"].startswith("MEMORY_")
    assert "passwd" not in bad[4][1]["error"]["message"]
    assert unknown.is_error
    assert after["memory"]["id"].startswith("mem_")


def test_refused_writes_leave_nothing(vault_path, work):
    pem = "-----BEGIN RSA PRIVATE KEY-----"
    cases = [
        (
            {"title": "aws", "body": "key AKIAIOSFODNN7EXAMPLQ secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY1"},
            "SECRET",
        ),
        (
            {
                "title": "gh",
                "body": "token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123",
            },
            "SECRET",
        ),
        ({"title": "pem", "body": f"{pem}\nMIIEow\n"}, "SECRET"),
        ({"title": "secret in a tag", "body": "b", "tags": ["ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"]}, None),
        ({"title": "esc \x1b[31m red", "body": "b"}, "VALIDATION"),
        ({"title": "nul", "body": "a\x00b"}, "VALIDATION"),
        ({"title": "bidi", "body": "abc \u202e cba"}, "VALIDATION"),
        ({"title": "big", "body": "x" * (64 * 1024 + 1)}, "VALIDATION"),
        ({"title": "blank", "body": "  \n "}, "VALIDATION"),
        ({"title": "", "body": "b"}, "VALIDATION"),
        ({"title": "bad tag", "body": "b", "tags": ["Not A Slug"]}, "VALIDATION"),
        ({"title": "no group outside a repo", "body": "b", "group": None}, "USAGE"),
        ({"title": "project outside a repo", "body": "b", "scope": "project", "group": None}, "USAGE"),
    ]
    before = snapshot(vault_path)

    async def go():
        async with Client(inproc(vault_path, work)) as client:
            out = []
            for args, _ in cases:
                args = {"group": "g", **args}
                if args["group"] is None:
                    del args["group"]
                out.append(await call(client, "memory_save", args))
            return out

    for (args, reason), pair in zip(cases, run(go), strict=True):
        error = err(pair, "MEMORY_WRITE_REJECTED")
        if reason:
            assert error["reason"] == f"JACKED_MEMORY_{reason}", (args["title"], error)
        assert (
            "AKIA" not in error["message"] and "github_pat_" not in error["message"] and "ghp_" not in error["message"]
        )
        assert str(vault_path) not in error["message"]
    assert snapshot(vault_path) == before


def test_user_scope_needs_the_flag_and_an_explicit_request(vault_path, work):
    before = snapshot(vault_path)

    async def refused():
        async with Client(inproc(vault_path, work)) as client:
            return [
                await call(client, "memory_save", {"title": "u", "body": "b", "scope": "user"}),
                await call(client, "memory_search", {"query": "x", "scopes": ["user"]}),
                await call(client, "memory_read", {"id": "mem_20260101_abc", "scope": "user"}),
                await call(client, "memory_doctor", {"scopes": ["user", "group"]}),
            ]

    for pair in run(refused):
        assert "JACKED_MEMORY_ALLOW_USER_SCOPE=1" in err(pair, "MEMORY_SCOPE_DISABLED")["message"]
    assert snapshot(vault_path) == before

    # a user-scope note exists (written by the CLI): without the flag it is simply not there
    user_id = lib_add(
        vault_path, work, "alpha", "Prefer small commits", "Always, everywhere. tokuserx1", scope="user", group=None
    )

    async def without_flag():
        async with Client(inproc(vault_path, work)) as client:
            return (
                await call(client, "memory_read", {"id": user_id}),
                await call(client, "memory_read", {"id": "mem_20260101_missing"}),
                ok(await call(client, "memory_search", {"query": "tokuserx1"})),
            )

    hidden, missing, search = run(without_flag)
    assert err(hidden, "MEMORY_READ_FAILED")["message"].replace(user_id, "ID") == err(missing, "MEMORY_READ_FAILED")[
        "message"
    ].replace("mem_20260101_missing", "ID")
    assert search["results"] == []

    async def with_flag():
        async with Client(inproc(vault_path, work, JACKED_MEMORY_ALLOW_USER_SCOPE="1")) as client:
            return (
                ok(await call(client, "memory_search", {"query": "tokuserx1"})),
                ok(await call(client, "memory_search", {"query": "tokuserx1", "scopes": ["user"]})),
                await call(client, "memory_read", {"id": user_id}),
                ok(await call(client, "memory_read", {"id": user_id, "scope": "user"})),
                ok(await call(client, "memory_save", {"title": "User pref", "body": "tabs", "scope": "user"})),
                ok(await call(client, "memory_doctor", {"scopes": ["user"]})),
            )

    default_search, user_search, default_read, user_read, saved, doctor = run(with_flag)
    assert default_search["results"] == []  # not asked for: not searched
    assert [r["id"] for r in user_search["results"]] == [user_id]
    err(default_read, "MEMORY_READ_FAILED")
    assert user_read["memory"]["scope"] == "user"
    assert saved["path"].startswith("user:strategy/note/")
    assert doctor["memory_count"] == 2


def test_errors_carry_no_absolute_paths(tmp_path, work):
    missing_vault = tmp_path / "no-vault-here"

    async def go():
        async with Client(inproc(missing_vault, work)) as client:
            return [
                await call(client, "memory_save", {"title": "t", "body": "b", "group": "g"}),
                await call(client, "memory_search", {"query": "x"}),
                await call(client, "memory_read", {"id": "mem_20260101_abc"}),
                await call(client, "memory_doctor", {}),
            ]

    for pair, code in zip(
        run(go),
        ["MEMORY_WRITE_REJECTED", "MEMORY_SEARCH_FAILED", "MEMORY_READ_FAILED", "MEMORY_DOCTOR_FAILED"],
        strict=True,
    ):
        error = err(pair, code)
        assert error["reason"] == "JACKED_MEMORY_NO_VAULT"
        assert str(tmp_path) not in error["message"] and "<vault>" in error["message"]


def test_read_incomplete_and_search_diagnostics_without_paths(vault_path, work):
    note_id = lib_add(vault_path, work, "alpha", "Good note", "fine tokgoodx1")
    bad = vault_path / "groups" / "g" / "note" / "broken.md"
    bad.write_text("---\nschema: nope\n---\nbody\n")
    git(vault_path, "add", "groups/g/note/broken.md")
    git(vault_path, "commit", "-qm", "planted")

    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return (
                await call(client, "memory_read", {"id": note_id}),
                await call(client, "memory_read", {"id": "mem_20260101_01jdz5k6x9f3q8w2v7n4m1c0zz"}),
                ok(await call(client, "memory_search", {"query": "tokgoodx1"})),
                ok(await call(client, "memory_doctor", {})),
            )

    found, read, search, doctor = run(go)
    assert ok(found)["memory"]["id"] == note_id  # one refused file never blocks a good note (issue 18.8)
    assert "1 committed file(s) were refused" in err(read, "MEMORY_READ_INCOMPLETE")["message"]
    assert "broken.md" not in json.dumps(read)
    assert search["diagnostics"] == {"invalid_file_count": 1, "skipped_symlinks": 0, "truncated": False}
    assert [r["id"] for r in search["results"]] == [note_id]
    assert doctor["ok"] is False and doctor["invalid_file_count"] == 1 and "broken.md" not in json.dumps(doctor)


def test_superseding_needs_a_note_this_harness_can_see(vault_path, work):
    hidden = lib_add(vault_path, work, "beta", "Beta only", "for beta", targets=("beta",))
    visible = lib_add(vault_path, work, "beta", "For everyone", "shared")
    before = snapshot(vault_path)
    start = commit_count(vault_path)

    async def refused():
        async with Client(inproc(vault_path, work)) as client:
            return (
                await call(client, "memory_save", {"title": "New", "body": "b", "group": "g", "supersedes": [hidden]}),
                await call(
                    client,
                    "memory_save",
                    {"title": "New", "body": "b", "group": "g", "supersedes": ["mem_20260101_missing"]},
                ),
            )

    spoof, missing = run(refused)
    assert err(spoof, "MEMORY_WRITE_REJECTED")["message"].replace(hidden, "ID") == err(
        missing, "MEMORY_WRITE_REJECTED"
    )["message"].replace("mem_20260101_missing", "ID")
    assert snapshot(vault_path) == before

    async def allowed():
        async with Client(inproc(vault_path, work)) as client:
            return ok(
                await call(
                    client, "memory_save", {"title": "Newer", "body": "b", "group": "g", "supersedes": [visible]}
                )
            )

    assert run(allowed)["memory"]["id"]
    assert commit_count(vault_path) == start + 1
    from jacked_vault.notes import read
    from jacked_vault.search.policy import EVERYTHING

    ctx = Context.create(vault=str(vault_path), cwd=work, harness="beta")
    assert read(ctx, hidden, EVERYTHING).note.status == "active"
    assert read(ctx, visible, EVERYTHING).note.status == "superseded"


# -- over stdio -----------------------------------------------------------------------------------


def test_stdio_round_trip_concurrency_and_malformed_calls(vault_path, work):
    start = commit_count(vault_path)

    async def go():
        async with stdio(vault_path, work, harness="codex") as client:
            saved = ok(
                await call(
                    client,
                    "memory_save",
                    {
                        "title": "Retry flaky network calls",
                        "body": "Use exponential backoff. tokroundx1",
                        "kind": "lesson",
                        "group": "net",
                        "tags": ["network"],
                    },
                )
            )
            found = ok(
                await call(client, "memory_search", {"query": "tokroundx1", "kinds": ["lesson"], "tags": ["network"]})
            )
            read = ok(await call(client, "memory_read", {"id": saved["memory"]["id"]}))
            doctor = ok(await call(client, "memory_doctor", {}))

            spoof = await call(
                client, "memory_save", {"title": "x", "body": "y", "group": "net", "source_harness": "claude"}
            )
            malformed = await call(client, "memory_search", {"limit": "lots"})

            results: list = [None] * 20

            async def save(i: int) -> None:
                results[i] = await call(
                    client,
                    "memory_save",
                    {"title": f"Concurrent note {i}", "body": f"number {i} tokconcx{i}", "group": "net"},
                )

            async with anyio.create_task_group() as tg:
                for i in range(20):
                    tg.start_soon(save, i)
            alive = ok(await call(client, "memory_search", {"query": "Concurrent", "limit": 50}))
            return saved, found, read, doctor, spoof, malformed, results, alive

    saved, found, read, doctor, spoof, malformed, results, alive = run(go)
    assert saved["memory"]["source_harness"] == "codex"
    assert [r["id"] for r in found["results"]] == [saved["memory"]["id"]]
    assert read["memory"]["body"] == "Use exponential backoff. tokroundx1"
    assert doctor["ok"] and doctor["memory_count"] == 1
    err(spoof, "MEMORY_WRITE_REJECTED")
    err(malformed, "MEMORY_SEARCH_FAILED")
    ids = [ok(r)["memory"]["id"] for r in results]
    assert len(set(ids)) == 20
    assert len(alive["results"]) == 20
    # 1 + 20 saves = 21 commits, one parent each: a linear history
    assert commit_count(vault_path) == start + 21
    parents = git(vault_path, "rev-list", "--parents", "HEAD").splitlines()
    assert all(len(line.split()) <= 2 for line in parents)
    assert git(vault_path, "status", "--porcelain").strip() == ""
    assert len(list((vault_path / "groups" / "net" / "note").glob("*.md"))) == 20


def test_stdio_harness_isolation_search_read_backlinks_doctor(vault_path, work):
    target = lib_add(vault_path, work, "beta", "Shared design note", "everyone reads this")
    visible_link = lib_add(vault_path, work, "beta", "Alpha may see this backlink", "see it", links=(target,))
    for i in range(100):
        lib_add(vault_path, work, "beta", f"Beta backlink {i}", f"hidden {i}", links=(target,), targets=("beta",))
    lib_add(
        vault_path,
        work,
        "beta",
        "Beta dangling",
        "a link to nothing",
        links=("mem_20260101_doesnotexist",),
        targets=("beta",),
        allow_dangling_links=True,
    )

    async def go():
        async with stdio(vault_path, work, harness="beta") as beta:
            secret_note = ok(
                await call(
                    beta,
                    "memory_save",
                    {
                        "title": "Beta private plan",
                        "body": "only beta tokbetax1",
                        "group": "g",
                        "target_harnesses": ["beta"],
                    },
                )
            )
            beta_read = ok(await call(beta, "memory_read", {"id": target}))
            beta_doctor = ok(await call(beta, "memory_doctor", {}))
        async with stdio(vault_path, work, harness="alpha") as alpha:
            return (
                secret_note,
                beta_read,
                beta_doctor,
                (
                    ok(await call(alpha, "memory_search", {"query": "tokbetax1"})),
                    ok(await call(alpha, "memory_search", {"query": "Beta", "limit": 100})),
                    await call(alpha, "memory_read", {"id": secret_note["memory"]["id"]}),
                    await call(alpha, "memory_read", {"id": "mem_20260101_neverexisted"}),
                    ok(await call(alpha, "memory_read", {"id": target})),
                    ok(await call(alpha, "memory_doctor", {})),
                ),
            )

    secret_note, beta_read, beta_doctor, (search, broad, hidden, missing, read, doctor) = run(go)
    secret_id = secret_note["memory"]["id"]
    assert search["results"] == []
    assert all(r["id"] == visible_link or "backlink" not in r["title"].lower() for r in broad["results"])
    assert secret_id not in json.dumps(broad)
    hidden_error = err(hidden, "MEMORY_READ_FAILED")
    missing_error = err(missing, "MEMORY_READ_FAILED")
    assert hidden_error["message"].replace(secret_id, "ID") == missing_error["message"].replace(
        "mem_20260101_neverexisted", "ID"
    )
    assert hidden_error.keys() == missing_error.keys() and hidden_error["reason"] == missing_error["reason"]
    assert read["backlinks"] == [{"id": visible_link, "title": "Alpha may see this backlink"}]
    assert read["backlinks_truncated"] is False
    assert len(beta_read["backlinks"]) == 50 and beta_read["backlinks_truncated"] is True
    assert doctor["memory_count"] == 2 and beta_doctor["memory_count"] == 104
    assert doctor["broken_link_count"] == 0 and beta_doctor["broken_link_count"] == 1
    assert "beta" not in json.dumps(doctor).lower()


def test_stdio_user_scope_flag(vault_path, work):
    async def go():
        async with stdio(vault_path, work) as off:
            refused = await call(off, "memory_save", {"title": "u", "body": "b", "scope": "user"})
        async with stdio(vault_path, work, JACKED_MEMORY_ALLOW_USER_SCOPE="1") as on:
            implicit = ok(await call(on, "memory_save", {"title": "Group by default", "body": "b", "group": "g"}))
            explicit = ok(await call(on, "memory_save", {"title": "User when asked", "body": "b", "scope": "user"}))
        return refused, implicit, explicit

    refused, implicit, explicit = run(go)
    err(refused, "MEMORY_SCOPE_DISABLED")
    assert implicit["memory"]["scope"] == "group"
    assert explicit["memory"]["scope"] == "user"


def test_stdio_raw_garbage_does_not_kill_the_server(vault_path, work):
    """Bytes that are not JSON-RPC, then a real handshake: the server answers it."""
    proc = subprocess.Popen(
        SERVER_ARGV,
        cwd=work,
        env=server_env(vault_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    init = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    lines = [
        "this is not json",
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "garbage"}',
        "[1, 2",
        json.dumps(init),
    ]
    out, errs = proc.communicate(("\n".join(lines) + "\n").encode(), timeout=60)
    replies = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    assert any(r.get("id") == 7 and "result" in r for r in replies), (replies, errs)
    assert b"Traceback" not in out


@pytest.mark.parametrize("harness", [None, "", "Not A Slug", "all", "x" * 65])
def test_missing_or_bad_harness_exits_1_with_one_line(vault_path, work, harness):
    env = server_env(vault_path, harness)
    proc = subprocess.run(
        SERVER_ARGV, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "JACKED_MEMORY_HARNESS" in lines[0] and "Traceback" not in proc.stderr


def test_cli_mcp_command_checks_the_harness_too(vault_path, work):
    code = "import sys, jacked_vault.cli.mcp; from jacked_vault.cli.main import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, "memory", "mcp"],
        cwd=work,
        env=server_env(vault_path, None),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1 and "JACKED_MEMORY_HARNESS" in proc.stderr


def test_cli_mcp_command_serves(vault_path, work):
    code = "import sys, jacked_vault.cli.mcp; from jacked_vault.cli.main import main; sys.exit(main(sys.argv[1:]))"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", code, "memory", "mcp", "--vault", str(vault_path)],
        env=server_env(vault_path.parent / "elsewhere", "cursor"),
        cwd=str(work),
    )

    async def go():
        async with Client(params, read_timeout_seconds=60) as client:
            return ok(await call(client, "memory_save", {"title": "Via the CLI", "body": "b", "group": "g"}))

    saved = run(go)
    assert saved["memory"]["source_harness"] == "cursor"
    assert (vault_path / saved["path"].split(":", 1)[1]).is_file()


def test_repo_scope_from_env(vault_path, tmp_path, work):

    repo = tmp_path / "code" / "api"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:Acme/API.git")

    async def go():
        async with Client(inproc(vault_path, work, JACKED_MEMORY_REPO=str(repo))) as client:
            return (
                ok(await call(client, "memory_save", {"title": "Group from the repo", "body": "b"})),
                ok(
                    await call(client, "memory_save", {"title": "Private to the repo", "body": "b", "scope": "project"})
                ),
            )

    group_note, project_note = run(go)
    assert group_note["memory"]["group"] == "api"
    assert project_note["path"].startswith("project:note/")
    assert (repo / ".jacked" / "memory" / project_note["path"].split(":", 1)[1]).is_file()
    assert not re.search(r"/(tmp|home|root)/", json.dumps(project_note))


def test_an_unexpected_crash_is_an_error_result_without_its_text(vault_path, work, monkeypatch, capsys):
    from jacked_vault.mcp.tools import search

    def boom(session, args):
        raise RuntimeError("internal detail AKIAIOSFODNN7EXAMPLQ /very/secret/path")

    monkeypatch.setattr(search, "call", boom)

    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return await call(client, "memory_search", {"query": "x"}), await call(client, "memory_doctor", {})

    crashed, after = run(go)
    error = err(crashed, "MEMORY_SEARCH_FAILED")
    assert "RuntimeError" in error["message"]
    assert (
        "AKIA" not in json.dumps(crashed)
        and "/very/secret" not in json.dumps(crashed)
        and "Traceback" not in json.dumps(crashed)
    )
    ok(after)  # the server goes on
    assert "AKIA" not in capsys.readouterr().err


def test_a_secret_in_target_harnesses_is_refused_without_echo(vault_path, work):
    """Issue 9.5 through the MCP door: every field is scanned, the value never quoted back."""
    token = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"
    before = snapshot(vault_path)

    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return await call(
                client, "memory_save", {"title": "Targeted", "body": "b", "group": "g", "target_harnesses": [token]}
            )

    is_error, payload = run(go)
    assert is_error and token not in json.dumps(payload)
    assert snapshot(vault_path) == before


def test_search_as_of_and_known_at_over_mcp(vault_path, work):
    """Issue 9.12: MCP search has both time axes, with the CLI's meaning."""
    lib_add(vault_path, work, "alpha", "Backdated fact", "Held since 2020.", valid_from="2020-01-01T00:00:00.000Z")

    async def go():
        async with Client(inproc(vault_path, work)) as client:
            out = {}
            for label, args in {
                "now": {},
                "valid-2021": {"as_of": "2021-06-01T00:00:00Z"},
                "valid-2019": {"as_of": "2019-06-01T00:00:00Z"},
                "known-2021": {"as_of": "2021-06-01T00:00:00Z", "known_at": "2021-06-01T00:00:00Z"},
            }.items():
                payload = ok(await call(client, "memory_search", {"query": "backdated", **args}))
                out[label] = [r["title"] for r in payload["results"]]
            return out

    found = run(go)
    assert found["now"] == found["valid-2021"] == ["Backdated fact"]  # a backdated fact is found in its past
    assert found["valid-2019"] == []  # before it held
    assert found["known-2021"] == []  # the vault did not know it in 2021


# -- issue 19.11 ----------------------------------------------------------------------------------


def test_a_tab_in_a_title_is_refused_by_the_cli_and_over_mcp(vault_path, work):
    """The contract refuses control characters in a title, a tab included (a body may hold one)."""
    from conftest import run_cli

    before = snapshot(vault_path)
    cli = run_cli(
        "memory", "add", "--group", "g", "--title", "Tabbed\ttitle", "--body", "b", "--json", vault=vault_path
    )
    assert cli.code == 1 and cli.json["error"]["code"] == "JACKED_MEMORY_VALIDATION", cli.out
    assert "U+0009" in cli.json["error"]["message"] and "Tabbed" not in cli.json["error"]["message"]

    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return await call(client, "memory_save", {"title": "Tabbed\ttitle", "body": "b", "group": "g"})

    error = err(run(go), "MEMORY_WRITE_REJECTED")
    assert error["reason"] == "JACKED_MEMORY_VALIDATION" and "U+0009" in error["message"]
    assert snapshot(vault_path) == before
    assert (
        run_cli("memory", "add", "--group", "g", "--title", "Tab in the body", "--body", "a\tb", vault=vault_path).code
        == 0
    )


def test_scope_disabled_carries_a_reason_like_every_other_error(vault_path, work):
    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return [
                await call(client, "memory_save", {"title": "u", "body": "b", "scope": "user"}),
                await call(client, "memory_search", {"query": "x", "scopes": ["user"]}),
                await call(client, "memory_read", {"id": "mem_20260101_abc", "scope": "user"}),
                await call(client, "memory_doctor", {"scopes": ["user"]}),
            ]

    for pair in run(go):
        assert set(err(pair, "MEMORY_SCOPE_DISABLED")) == {"code", "message", "reason"}
        assert pair[1]["error"]["reason"] == "JACKED_MEMORY_USAGE"


# -- issue 19.4: the brief over MCP ---------------------------------------------------------------


@pytest.fixture
def briefed(tmp_path, vault_path):
    """A code repo with a decision for every harness and one addressed to codex only."""
    repo = tmp_path / "code" / "api"
    (repo / "src").mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/api.git")
    for harness, title, targets in (
        ("alpha", "Use SQLite FTS5 for search", ("all",)),
        ("alpha", "Codex only zebrahandoff", ("codex",)),
    ):
        ctx = Context.create(vault=str(vault_path), cwd=repo, harness=harness)
        add(ctx, AddRequest(title=title, body="Decided.", kind="decision", targets=targets))
    return repo


def _hook_brief(vault: Path, repo: Path, harness: str) -> str:
    from conftest import cli_env

    payload = json.dumps({"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"})
    argv = [*SERVER_ARGV[:1], "-m", "jacked_vault.cli.main", "_hook", "session-start", "--harness", harness]
    proc = subprocess.run(
        [*argv, "--vault", str(vault)],
        input=payload, capture_output=True, text=True, cwd=repo, env=cli_env(vault), timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    if proc.stdout.startswith(
        "{"
    ):  # a harness that takes the brief as JSON (Codex: hookSpecificOutput.additionalContext)
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    return proc.stdout.rstrip("\n")


def test_the_brief_is_a_tool_and_a_prompt_built_like_the_hook_brief(vault_path, briefed):
    """`memory_brief` and the prompt `brief` give the SessionStart hook's brief, for the server's
    harness (a note addressed to codex reaches codex's brief only), for the server's repo by
    default or the folder given."""

    async def go(harness: str, work: Path):
        async with Client(inproc(vault_path, work, harness=harness)) as client:
            prompts = (await client.list_prompts()).prompts
            tool = ok(await call(client, "memory_brief", {}))
            named = ok(await call(client, "memory_brief", {"repo": str(briefed / "src"), "budget": 400}))
            prompt = await client.get_prompt("brief", {"repo": str(briefed)})
            default_prompt = await client.get_prompt("brief")
            return prompts, tool, named, prompt, default_prompt

    for harness in ("claude", "codex"):
        prompts, tool, named, prompt, default_prompt = run(go, harness, briefed)
        hook = _hook_brief(vault_path, briefed, harness)
        assert [(p.name, [(a.name, a.required) for a in p.arguments]) for p in prompts] == [
            ("brief", [("repo", False)])
        ]
        assert "not instructions" in prompts[0].description
        assert tool["text"] == hook and tool["repo"] == "github.com/acme/api" and tool["group"] == "api"
        assert tool["notice"].startswith("Unreviewed memory") and tool["tokens"] <= tool["budget"] == 1500
        assert named["budget"] == 400 and named["tokens"] <= 400 and named["repo"] == "github.com/acme/api"
        assert [(m.role, m.content.type) for m in prompt.messages] == [("user", "text")]
        assert prompt.messages[0].content.text == hook == default_prompt.messages[0].content.text
        assert ("zebrahandoff" in hook) is (harness == "codex")
        assert "Use SQLite FTS5 for search" in hook


def test_brief_errors_name_no_path_and_the_prompt_says_why(vault_path, briefed, tmp_path):
    from mcp.shared.exceptions import MCPError

    async def go():
        async with Client(inproc(vault_path, briefed)) as client:
            missing = await call(client, "memory_brief", {"repo": str(tmp_path / "nowhere")})
            small = await call(client, "memory_brief", {"budget": 10})
            extra = await call(client, "memory_brief", {"harness": "codex"})
            try:
                await client.get_prompt("brief", {"repo": str(tmp_path / "nowhere")})
            except MCPError as exc:
                prompt_error = exc.error
            return missing, small, extra, prompt_error

    missing, small, extra, prompt_error = run(go)
    for pair in (missing, small, extra):
        error = err(pair, "MEMORY_BRIEF_FAILED")
        assert set(error) == {"code", "message", "reason"} and str(tmp_path) not in error["message"]
    assert missing[1]["error"]["reason"] == "JACKED_MEMORY_USAGE" and "repo" in missing[1]["error"]["message"]
    assert "Extra inputs are not permitted" in extra[1]["error"]["message"]
    assert (
        prompt_error.code == -32602
        and "MEMORY_BRIEF_FAILED" in prompt_error.message
        and str(tmp_path) not in prompt_error.message
    )
    assert prompt_error.data == {"code": "MEMORY_BRIEF_FAILED", "reason": "JACKED_MEMORY_USAGE"}


def test_stdio_brief_is_logged_for_status(vault_path, briefed):
    async def go():
        async with stdio(vault_path, briefed, harness="cursor") as client:
            await client.get_prompt("brief")
            return ok(await call(client, "memory_brief", {}))

    assert run(go)["repo"] == "github.com/acme/api"
    log = (state_dir(vault_path) / "log").read_text()
    assert log.count("mcp cursor brief ok ") == 2, log
