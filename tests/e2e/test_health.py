"""Hook health: `status` (and the brief's warning line) say whether the Claude Code hooks, the MCP
registrations and the post-merge hook are installed, when each last ran and how it ended; one
count of session and merge captures, pending and failed, for status, the brief, doctor and the
session-start hook."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from conftest import make_repo, run_cli

from jacked_vault.store.queue import enqueue
from tests.helpers.state import state_dir

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def machine(tmp_path: Path) -> tuple[Path, Path]:
    """A vault (HOME is its parent) and a code repo."""
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    repo = tmp_path / "api"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/api.git")
    return vault, repo


def _hook(name: str, vault: Path, repo: Path, payload: dict | None = None):
    return run_cli(
        "_hook", name, "--vault", str(vault), vault=vault, cwd=repo, stdin=json.dumps(payload or {"cwd": str(repo)})
    )


def _warnings(vault: Path, repo: Path) -> list[str]:
    return run_cli("memory", "brief", "--json", vault=vault, cwd=repo).json["warnings"]


def test_an_empty_failed_folder_counts_nothing_and_failed_merge_captures_count(machine):
    vault, repo = machine
    failed = state_dir(vault) / "queue" / "failed"
    failed.mkdir(parents=True)
    status = run_cli("memory", "status", "--json", vault=vault, cwd=repo).json
    nothing = {"pending": 0, "failed": 0}
    assert status["captures"] == {**nothing, "by_kind": {"session": nothing, "merge": nothing}}
    assert not any("capture" in w for w in _warnings(vault, repo))
    _hook("session-start", vault, repo)
    assert "drain-started" not in (state_dir(vault) / "log").read_text()
    cache = state_dir(vault)
    merge = {
        "repo": str(repo),
        "identity": "github.com/acme/api",
        "commit": SHA,
        "merge_kind": "merge",
        "branch": "main",
    }
    gave_up = enqueue(cache, merge, kind="merge", key=f"merge:{SHA}", tries=5, error="JACKED_MEMORY_LOCKED")
    gave_up.rename(failed / gave_up.name)
    enqueue(cache, {**merge, "commit": SHA[::-1]}, kind="merge", key=f"merge:{SHA[::-1]}", tries=1)
    captures = run_cli("memory", "status", "--json", vault=vault, cwd=repo).json["captures"]
    assert captures == {
        "pending": 1,
        "failed": 1,
        "by_kind": {"session": nothing, "merge": {"pending": 1, "failed": 1}},
    }
    assert {"1 capture(s) queued for retry", "1 capture(s) failed (see `jacked memory doctor`)"} <= set(
        _warnings(vault, repo)
    )
    doctor = run_cli("memory", "doctor", "--json", vault=vault)
    assert doctor.code == 0 and doctor.json["ok"] is True and doctor.json["captures"]["failed"] == 1
    assert [w["code"] for w in doctor.json["warnings"]] == ["FAILED_CAPTURES"] and "queue/failed" in doctor.json[
        "warnings"
    ][0]["fix"]


def test_status_shows_what_is_installed_and_how_each_hook_last_ran(machine, tmp_path: Path):
    """Issue 19.5: one table, per harness and part (mcp, brief, capture), in `status` and in `hooks
    status`: what is installed, where (a `--user` registration included), how, and each part's
    last run and how it ended; the cwd repo's post-merge too."""
    from jacked_vault.capture.merge import capture_merge_from_hook

    vault, repo = machine
    before = run_cli("memory", "status", "--json", vault=vault, cwd=repo).json["hooks"]
    assert (before["claude"]["state"], before["claude"]["last_run"], before["post_merge"]["state"]) == (
        "absent",
        None,
        "not-installed",
    )
    assert all(where["user"] == "absent" for where in before["mcp"].values())
    assert {part: row["state"] for part, row in before["harnesses"]["claude"].items()} == {
        "mcp": "absent",
        "brief": "absent",
        "capture": "absent",
    }
    for args in (("--claude",), ("--mcp", "claude", "--user"), ("--git", str(repo))):
        assert run_cli("memory", "hooks", "install", *args, vault=vault, cwd=repo).code == 0
    assert _hook("session-start", vault, repo).code == 0
    (state_dir(vault) / "queue").write_text("not a folder")  # the next capture cannot queue: a real failure
    assert _hook("pre-compact", vault, repo, {"cwd": str(repo), "session_id": "s1"}).code == 0  # hooks fail open
    (state_dir(vault) / "queue").unlink()
    capture_merge_from_hook(lambda: vault, str(repo))
    _serve_once(vault, repo)
    assert (
        run_cli(
            "_hook",
            "session-start",
            "--harness",
            "codex",
            "--vault",
            str(vault),
            vault=vault,
            cwd=repo,
            stdin=json.dumps({"cwd": str(repo)}),
        ).code
        == 0
    )
    _serve_once(vault, repo, harness="zed")  # a client that registered the server itself, and asked for the brief

    status = run_cli("memory", "status", "--json", vault=vault, cwd=repo)
    hooks = status.json["hooks"]
    assert hooks["claude"]["state"] == "installed" and hooks["claude"]["events"] == [
        "PreCompact",
        "SessionEnd",
        "SessionStart",
    ]
    claude_run = hooks["claude"]["last_run"]
    assert (
        claude_run["name"] == "pre-compact" and claude_run["ok"] is False and claude_run["outcome"].startswith("error ")
    )
    assert hooks["mcp"]["claude"]["user"] == "installed" and hooks["mcp"]["claude"]["project"] == "absent"
    assert hooks["mcp"]["claude"]["last_run"]["ok"] is True and hooks["mcp"]["claude"]["last_run"][
        "outcome"
    ].startswith("ended")
    assert hooks["post_merge"]["state"] == "installed" and hooks["post_merge"]["last_run"]["ok"] is True

    table = hooks["harnesses"]
    claude = table["claude"]
    assert claude["mcp"]["state"] == "installed" and claude["mcp"]["where"] == [f"user: {tmp_path / '.claude.json'}"]
    assert claude["mcp"]["last_run"]["outcome"].startswith("ended")
    settings = str(tmp_path / ".claude" / "settings.json")
    assert (
        claude["brief"]["state"] == "installed"
        and claude["brief"]["where"] == [settings]
        and "SessionStart" in claude["brief"]["via"]
    )
    assert claude["brief"]["last_run"]["name"] == "session-start" and claude["brief"]["last_run"]["ok"] is True
    assert claude["capture"]["state"] == "installed" and claude["capture"]["last_run"]["name"] == "pre-compact"
    assert claude["capture"]["last_run"]["ok"] is False
    assert table["codex"]["brief"]["last_run"]["name"] == "codex:session-start"  # its hook ran, whatever is installed
    assert table["zed"]["mcp"]["state"] == "elsewhere" and table["zed"]["mcp"]["last_run"]["outcome"].startswith(
        "ended"
    )
    assert table["zed"]["brief"]["state"] == "mcp" and table["zed"]["brief"]["last_run"]["ok"] is True
    assert table["zed"]["capture"]["state"] == "absent"
    assert {part: row["state"] for part, row in table["opencode"].items()} == {
        "mcp": "absent",
        "brief": "absent",
        "capture": "absent",
    }
    assert table["git"]["capture"]["state"] == "installed" and table["git"]["capture"]["where"] == [
        str(repo / ".git" / "hooks" / "post-merge")
    ]

    human = run_cli("memory", "status", vault=vault, cwd=repo).out
    block = human.split("hooks (per harness and part: state, where, last run):\n", 1)[1].splitlines()
    assert block[0].startswith("  claude    mcp      installed (jacked-memory-mcp) in user: ")
    assert (
        block[1].startswith("            brief    installed (hook (SessionStart)) in ") and ", ok: brief " in block[1]
    )
    assert block[2].startswith("            capture  installed") and "FAILED: error " in block[2]
    assert any(line.startswith("  zed       mcp      elsewhere") for line in block)
    assert (
        any(line.startswith("  nothing installed for ") and "opencode" in line for line in block)
        and "captures: 0 pending, 0 failed" in block
    )
    assert any(w.startswith("the last pre-compact hook run failed") for w in _warnings(vault, repo))

    # `hooks status` with no option shows the same table first (a --user registration is not `absent`)
    listed = run_cli("memory", "hooks", "status", "--json", vault=vault, cwd=repo)
    assert listed.code == 0
    rows = {(row["harness"], row["part"]): row for row in listed.json["harnesses"]}
    assert (
        rows[("claude", "mcp")]["state"] == "installed" and rows[("claude", "mcp")]["where"] == claude["mcp"]["where"]
    )
    assert rows[("git", "capture")]["state"] == "installed"
    text = run_cli("memory", "hooks", "status", vault=vault, cwd=repo).out
    assert text.startswith("claude    mcp      installed (jacked-memory-mcp) in user: ")


def _serve_once(vault: Path, repo: Path, harness: str = "claude") -> None:
    """Start the MCP server over stdio as the harness would, list its tools (get the brief), close it."""
    from helpers.mcp_server import stdio

    async def go():
        async with stdio(vault, repo, harness=harness) as client:
            await client.list_tools()
            if harness != "claude":
                await client.get_prompt("brief")

    anyio.run(go)


def test_every_harness_family_fills_its_rows(machine, tmp_path: Path):
    """Codex, Cursor and OpenCode hooks (their families' status) appear in the table with the last
    run of their own hooks, told apart by the harness each hook line names."""
    vault, repo = machine
    assert run_cli("memory", "hooks", "install", "--codex", "--cursor", "--opencode", vault=vault, cwd=repo).code == 0
    for harness in ("codex", "cursor", "opencode"):
        assert (
            run_cli(
                "_hook",
                "session-start",
                "--harness",
                harness,
                "--vault",
                str(vault),
                vault=vault,
                cwd=repo,
                stdin=json.dumps({"cwd": str(repo)}),
            ).code
            == 0
        )
    table = run_cli("memory", "status", "--json", vault=vault, cwd=repo).json["hooks"]["harnesses"]
    for harness in ("codex", "cursor", "opencode"):
        assert table[harness]["brief"]["state"] == "installed" and table[harness]["capture"]["state"] == "installed", (
            harness,
            table[harness],
        )
        assert table[harness]["brief"]["last_run"]["name"] == f"{harness}:session-start", table[harness]["brief"]
        assert table[harness]["capture"]["last_run"] is None
    assert table["claude"]["brief"]["state"] == "absent" and table["claude"]["brief"]["last_run"] is None
    assert table["opencode"]["brief"]["where"] == [str(repo / ".opencode" / "plugins" / "jacked-vault.js")]
    assert table["cursor"]["brief"]["where"] == [str(repo / ".cursor" / "hooks.json")]
    assert table["codex"]["brief"]["where"] == [str(tmp_path / ".codex" / "config.toml")]
