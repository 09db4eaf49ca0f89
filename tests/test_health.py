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
    return run_cli("_hook", name, "--vault", str(vault), vault=vault, cwd=repo, stdin=json.dumps(payload or {"cwd": str(repo)}))


def _warnings(vault: Path, repo: Path) -> list[str]:
    return run_cli("memory", "brief", "--json", vault=vault, cwd=repo).json["warnings"]


def test_an_empty_failed_folder_counts_nothing_and_failed_merge_captures_count(machine):
    vault, repo = machine
    failed = vault / ".jacked" / "queue" / "failed"
    failed.mkdir(parents=True)
    status = run_cli("memory", "status", "--json", vault=vault, cwd=repo).json
    nothing = {"pending": 0, "failed": 0}
    assert status["captures"] == {**nothing, "by_kind": {"session": nothing, "merge": nothing}}
    assert not any("capture" in w for w in _warnings(vault, repo))
    _hook("session-start", vault, repo)
    assert "drain-started" not in (vault / ".jacked" / "log").read_text()
    cache = vault / ".jacked"
    merge = {"repo": str(repo), "identity": "github.com/acme/api", "commit": SHA, "merge_kind": "merge", "branch": "main"}
    gave_up = enqueue(cache, merge, kind="merge", key=f"merge:{SHA}", tries=5, error="JACKED_MEMORY_LOCKED")
    gave_up.rename(failed / gave_up.name)
    enqueue(cache, {**merge, "commit": SHA[::-1]}, kind="merge", key=f"merge:{SHA[::-1]}", tries=1)
    captures = run_cli("memory", "status", "--json", vault=vault, cwd=repo).json["captures"]
    assert captures == {"pending": 1, "failed": 1, "by_kind": {"session": nothing, "merge": {"pending": 1, "failed": 1}}}
    assert {"1 capture(s) queued for retry", "1 capture(s) failed (see `jacked memory doctor`)"} <= set(_warnings(vault, repo))
    doctor = run_cli("memory", "doctor", "--json", vault=vault)
    assert doctor.code == 0 and doctor.json["ok"] is True and doctor.json["captures"]["failed"] == 1
    assert [w["code"] for w in doctor.json["warnings"]] == ["FAILED_CAPTURES"] and "queue/failed" in doctor.json["warnings"][0]["fix"]


def test_status_shows_what_is_installed_and_how_each_hook_last_ran(machine, tmp_path: Path):
    from jacked_vault.capture.merge import capture_merge_from_hook

    vault, repo = machine
    before = run_cli("memory", "status", "--json", vault=vault, cwd=repo).json["hooks"]
    assert (before["claude"]["state"], before["claude"]["last_run"], before["post_merge"]["state"]) == ("absent", None, "not-installed")
    assert all(where["user"] == "absent" for where in before["mcp"].values())
    for args in (("--claude",), ("--mcp", "claude", "--user"), ("--git", str(repo))):
        assert run_cli("memory", "hooks", "install", *args, vault=vault, cwd=repo).code == 0
    assert _hook("session-start", vault, repo).code == 0
    (vault / ".jacked" / "queue").write_text("not a folder")  # the next capture cannot queue: a real failure
    assert _hook("pre-compact", vault, repo, {"cwd": str(repo), "session_id": "s1"}).code == 0  # hooks fail open
    (vault / ".jacked" / "queue").unlink()
    capture_merge_from_hook(str(vault), str(repo))
    _serve_once(vault, repo)

    status = run_cli("memory", "status", "--json", vault=vault, cwd=repo)
    hooks = status.json["hooks"]
    assert hooks["claude"]["state"] == "installed" and hooks["claude"]["events"] == ["PreCompact", "SessionEnd", "SessionStart"]
    claude_run = hooks["claude"]["last_run"]
    assert claude_run["name"] == "pre-compact" and claude_run["ok"] is False and claude_run["outcome"].startswith("error ")
    assert hooks["mcp"]["claude"]["user"] == "installed" and hooks["mcp"]["claude"]["project"] == "absent"
    assert hooks["mcp"]["claude"]["last_run"]["ok"] is True and hooks["mcp"]["claude"]["last_run"]["outcome"].startswith("ended")
    assert hooks["post_merge"]["state"] == "installed" and hooks["post_merge"]["last_run"]["ok"] is True
    human = run_cli("memory", "status", vault=vault, cwd=repo).out
    (line,) = [text for text in human.splitlines() if text.startswith("hooks: ")]
    assert "claude installed, last pre-compact" in line and "FAILED" in line and "mcp claude (user)" in line
    assert "post-merge installed" in line and "captures 0 pending, 0 failed" in line
    assert any(w.startswith("the last pre-compact hook run failed") for w in _warnings(vault, repo))


def _serve_once(vault: Path, repo: Path) -> None:
    """Start the MCP server over stdio as Claude Code would, list its tools, close it."""
    from test_mcp import stdio

    async def go():
        async with stdio(vault, repo, harness="claude") as client:
            await client.list_tools()

    anyio.run(go)
