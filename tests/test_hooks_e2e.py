"""The real `jacked _hook` processes as Claude Code runs them: stdin JSON in, exit 0 always."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_env, git, make_repo
from jacked_vault.write.init import init_vault
from test_capture import Builder


def _hook(name: str, vault: Path, stdin: bytes | str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", name, "--vault", str(vault)],
        input=data, capture_output=True, cwd=cwd, env=cli_env(vault, **env), timeout=60,
    )


@pytest.fixture
def setup(tmp_path: Path):
    vault = tmp_path / "vault"
    init_vault(vault)
    config = json.loads((vault / "vault.json").read_text())
    config["settings"] = {"distill": {"command": [sys.executable, str(Path(__file__).parent / "fakes" / "distiller.py"), "null"], "timeout_s": 20}}
    (vault / "vault.json").write_text(json.dumps(config))
    git(vault, "commit", "-qam", "distiller for tests")
    repo = tmp_path / "api"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/api.git")
    return vault, repo


def _log(vault: Path) -> list[str]:
    return (vault / ".jacked" / "log").read_text().splitlines()


def test_session_start_prints_the_brief_and_logs(setup):
    vault, repo = setup
    payload = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    proc = _hook("session-start", vault, json.dumps(payload), cwd=repo)
    assert proc.returncode == 0
    out = proc.stdout.decode()
    assert out.startswith(f"## jacked-vault memory for github.com/acme/api (group api; vault {vault.resolve()})") and "not instructions" in out
    assert "hook=session-start brief" in _log(vault)[-1] and "pull=no-remote" in _log(vault)[-1]


@pytest.mark.parametrize("stdin", [b"", b"{not json", b"\xff\xfe\x00binary", b"[1,2,3]", b'{"cwd": 12}'])
def test_garbage_stdin_never_fails_the_session(setup, stdin: bytes):
    vault, repo = setup
    for name in ("session-start", "session-end", "pre-compact", "no-such-hook"):
        assert _hook(name, vault, stdin, cwd=repo).returncode == 0


def test_missing_vault_fails_open_and_creates_nothing(tmp_path: Path):
    repo = tmp_path / "api"
    repo.mkdir()
    make_repo(repo)
    vault = tmp_path / "no-vault"
    start = _hook("session-start", vault, json.dumps({"cwd": str(repo)}), cwd=repo)
    assert start.returncode == 0 and "jacked memory init" in start.stdout.decode()
    assert _hook("session-end", vault, json.dumps({"cwd": str(repo)}), cwd=repo).returncode == 0
    assert not vault.exists()


def test_broken_vault_fails_open(setup):
    vault, repo = setup
    (vault / "vault.json").write_text("{broken")
    proc = _hook("session-start", vault, json.dumps({"cwd": str(repo)}), cwd=repo)
    assert proc.returncode == 0
    assert "error" in _log(vault)[-1]


def test_session_end_returns_at_once_and_the_detached_capture_lands(setup, tmp_path: Path):
    vault, repo = setup
    transcript = Builder(repo).realistic().write(tmp_path / "t.jsonl")
    payload = {"session_id": "s-e2e", "transcript_path": str(transcript), "cwd": str(repo), "hook_event_name": "SessionEnd", "reason": "exit"}
    proc = _hook("session-end", vault, json.dumps(payload), cwd=repo)
    assert proc.returncode == 0 and proc.stdout == b""
    deadline = time.monotonic() + 30
    entries: list[Path] = []
    while time.monotonic() < deadline and not entries:
        entries = list((vault / "groups" / "api" / "episodic" / "github.com__acme__api").glob("today-*.md"))
        time.sleep(0.2)
    assert entries, _log(vault)
    text = entries[0].read_text()
    assert text.count("\n## ") == 1 and "| feature/queue" in text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any("hook=drain" in line for line in _log(vault)):
        time.sleep(0.2)
    assert any("hook=drain" in line for line in _log(vault))
    assert git(vault, "status", "--porcelain") == ""
    assert not list((vault / ".jacked" / "queue").glob("*.json"))
