"""Pushes happen by themselves, and status tells the truth (issue 18 findings 2 and 5).

`sync.push` (machine config or vault.json): `session-end` (default: the detached SessionEnd
drain syncs and pushes), `after-write` (every write starts a detached push), `manual`. A failed
push is retried at the next trigger and shown by `status` and the brief; it never blocks.
`status` shows the remote, the last pull and push with their outcome, the candidates waiting
for review and the agents' write mode, and never a sync that did not happen."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, make_repo, run_cli, write_machine_config


def _remote_head(remote: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(remote), "rev-parse", "main"], capture_output=True, text=True
    ).stdout.strip()


def _head(vault: Path) -> str:
    return subprocess.run(["git", "-C", str(vault), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


@pytest.fixture
def machine(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(vault with a remote and one pushed note, the bare remote, a code repo)."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    run_cli("memory", "remote", "set", f"file://{remote}", vault=vault)
    run_cli("memory", "add", "--group", "g", "--title", "First", "--body", "b", vault=vault)
    assert run_cli("memory", "push", vault=vault).code == 0
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/code.git")
    return vault, remote, repo


def _hook(vault: Path, name: str, payload: dict | None = None) -> None:
    subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", name],
        input=json.dumps(payload or {}), capture_output=True, text=True,
        env=cli_env(vault), cwd=vault.parent, timeout=120,
    )  # fmt: skip


def test_the_session_end_drain_pushes_by_default(machine):
    vault, remote, _ = machine
    run_cli("memory", "add", "--group", "g", "--title", "Second", "--body", "b", vault=vault)
    assert _remote_head(remote) != _head(vault)
    _hook(vault, "drain")  # what SessionEnd starts, detached; run here to its end
    assert _remote_head(remote) == _head(vault)
    status = run_cli("memory", "status", "--json", vault=vault).json["vault"]
    assert status["ahead"] == 0 and status["last_push"]["result"] == "ok"
    assert status["push_policy"] == "session-end"


def test_after_write_pushes_each_write_in_the_background(machine):
    vault, remote, _ = machine
    write_machine_config({"sync": {"push": "after-write"}})
    started = time.monotonic()
    assert run_cli("memory", "add", "--group", "g", "--title", "Third", "--body", "b", vault=vault).code == 0
    assert time.monotonic() - started < 20
    deadline = time.monotonic() + 30
    while _remote_head(remote) != _head(vault) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _remote_head(remote) == _head(vault)


def test_manual_never_pushes_by_itself(machine):
    vault, remote, _ = machine
    run_cli("memory", "group", "list", vault=vault)
    config = json.loads((vault / "vault.json").read_text())
    assert config  # vault.json may carry the policy too: the shared default
    write_machine_config({"sync": {"push": "manual"}})
    run_cli("memory", "add", "--group", "g", "--title", "Fourth", "--body", "b", vault=vault)
    _hook(vault, "drain")
    assert _remote_head(remote) != _head(vault)
    assert run_cli("memory", "status", "--json", vault=vault).json["vault"]["ahead"] == 1


def test_the_brief_says_a_manual_vault_differs_from_its_remote_with_loose_or_packed_refs(machine):
    vault, _, repo = machine
    write_machine_config({"sync": {"push": "manual"}})
    warning = "the vault differs from its remote and pushes are manual"
    assert not any(warning in w for w in run_cli("memory", "brief", "--json", vault=vault, cwd=repo).json["warnings"])
    run_cli("memory", "add", "--group", "g", "--title", "Unpushed", "--body", "b", vault=vault)
    assert any(warning in w for w in run_cli("memory", "brief", "--json", vault=vault, cwd=repo).json["warnings"])
    subprocess.run(
        ["git", "-C", str(vault), "pack-refs", "--all", "--prune"], check=True
    )  # refs/remotes/origin/* packed
    assert not (vault / ".git" / "refs" / "remotes" / "origin" / "main").exists()
    assert any(warning in w for w in run_cli("memory", "brief", "--json", vault=vault, cwd=repo).json["warnings"])


def test_a_failed_push_is_shown_and_retried_at_the_next_trigger(machine, tmp_path: Path):
    vault, remote, repo = machine
    moved = tmp_path / "moved.git"
    remote.rename(moved)  # the remote is gone for a while
    run_cli("memory", "add", "--group", "g", "--title", "Fifth", "--body", "b", vault=vault)
    _hook(vault, "drain")
    status = run_cli("memory", "status", "--json", vault=vault).json["vault"]
    assert status["last_push"]["result"] == "failed" and status["ahead"] == 1
    assert "last push failed" in run_cli("memory", "status", vault=vault).out
    brief = run_cli("memory", "brief", "--json", vault=vault, cwd=repo).json
    assert any("push" in w for w in brief["warnings"]), brief["warnings"]
    moved.rename(remote)
    _hook(vault, "drain")
    assert _remote_head(remote) == _head(vault)
    assert run_cli("memory", "status", "--json", vault=vault).json["vault"]["last_push"]["result"] == "ok"


def test_status_tells_the_truth(tmp_path: Path):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/code.git")
    _hook(vault, "session-start", {"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart"})
    status = run_cli("memory", "status", "--json", vault=vault).json["vault"]
    assert status["remote"] is None and status["last_pull"] is None and status["last_push"] is None, status
    assert "last sync" not in run_cli("memory", "status", vault=vault).out
    run_cli("memory", "add", "--group", "g", "--title", "Waiting", "--body", "b", "--json", vault=vault)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(tmp_path / "r.git")], check=True)
    run_cli("memory", "remote", "set", f"file://{tmp_path / 'r.git'}", vault=vault)
    run_cli("memory", "push", vault=vault)
    from jacked_vault.context import Context
    from jacked_vault.notes import AddRequest, add

    add(
        Context.create(vault=str(vault), cwd=repo, harness="claude"),
        AddRequest(title="A candidate", body="b", status="candidate", origin="mcp"),
    )
    status = run_cli("memory", "status", "--json", vault=vault).json["vault"]
    assert status["remote"] and status["last_push"]["result"] == "ok"
    assert status["candidates"] == 1 and status["agents"] == "active"
    text = run_cli("memory", "status", vault=vault).out
    assert "no remote" not in text and "1 candidate" in text and "agents write: active" in text
