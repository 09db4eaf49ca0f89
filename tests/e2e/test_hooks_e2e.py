"""The real `jacked _hook` processes as Claude Code runs them: stdin JSON in, exit 0 always."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, git, make_repo, write_machine_config
from helpers.capture import Builder
from helpers.processes import run_mark, wait_blocked_reading, wait_exited

from jacked_vault.write.init import init_vault
from tests.helpers.state import state_dir


def _hook(name: str, vault: Path, stdin: bytes | str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", name, "--vault", str(vault)],
        input=data,
        capture_output=True,
        cwd=cwd,
        env=cli_env(vault, **env),
        timeout=60,
    )


@pytest.fixture
def setup(tmp_path: Path):
    vault = tmp_path / "vault"
    init_vault(vault)
    write_machine_config(
        {
            "distill": {
                "command": [sys.executable, str(Path(__file__).parents[1] / "fakes" / "distiller.py"), "null"],
                "timeout_s": 20,
            }
        }
    )
    repo = tmp_path / "api"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/api.git")
    return vault, repo


def _log(vault: Path) -> list[str]:
    return (state_dir(vault) / "log").read_text().splitlines()


def test_session_start_prints_the_brief_and_logs(setup):
    vault, repo = setup
    payload = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    proc = _hook("session-start", vault, json.dumps(payload), cwd=repo)
    assert proc.returncode == 0
    out = proc.stdout.decode()
    assert (
        out.startswith(f"## jacked-vault memory for github.com/acme/api (group api; vault {vault.resolve()})")
        and "not instructions" in out
    )
    assert "hook=session-start brief" in _log(vault)[-1] and "pull=no-remote" in _log(vault)[-1]


@pytest.mark.parametrize("stdin", [b"", b"{not json", b"\xff\xfe\x00binary", b"[1,2,3]", b'{"cwd": 12}'])
def test_garbage_stdin_never_fails_the_session(setup, stdin: bytes):
    vault, repo = setup
    for name in ("session-start", "session-end", "pre-compact", "no-such-hook"):
        assert _hook(name, vault, stdin, cwd=repo).returncode == 0


def test_payload_arriving_late_on_a_non_blocking_stdin_is_read(setup, tmp_path: Path):
    vault, repo = setup
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "session-start", "--vault", str(vault)],
        stdin=read_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=cli_env(vault),
    )
    os.close(read_end)
    wait_blocked_reading(proc.pid)  # the hook is reading by now, with nothing there yet
    try:
        os.write(
            write_end, json.dumps({"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart"}).encode()
        )
    except BrokenPipeError:
        pass  # the hook gave up on stdin early: the assertion below says so
    finally:
        os.close(write_end)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert out.decode().startswith("## jacked-vault memory for github.com/acme/api (group api;")


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
    payload = {
        "session_id": "s-e2e",
        "transcript_path": str(transcript),
        "cwd": str(repo),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    mark = run_mark()
    proc = _hook("session-end", vault, json.dumps(payload), cwd=repo, **mark)
    assert proc.returncode == 0 and proc.stdout == b""
    # The detached drain carries the mark too: once every marked process has exited, its entry
    # and its log line are there (what the waits for nothing-happened in this file rely on).
    wait_exited(mark)
    entries = list((vault / "groups" / "api" / "episodic" / "github.com__acme__api").glob("today-*.md"))
    assert entries, _log(vault)
    text = entries[0].read_text()
    assert text.count("\n## ") == 1 and "| feature/queue" in text
    assert any("hook=drain" in line for line in _log(vault))
    assert git(vault, "status", "--porcelain") == ""
    assert not list((state_dir(vault) / "queue").glob("*.json"))


# --- hooks fired inside the distiller ------------------------------------------------------------

NESTED_AGENT = """
import json, subprocess, sys
python, vault, repo, transcript, record = sys.argv[1:6]
sys.stdin.buffer.read()
with open(record, "a") as fh:
    fh.write("call\\n")
# The agent this distiller runs has hooks enabled: SessionStart, then SessionEnd of its own session.
for name in ("session-start", "session-end"):
    payload = {"session_id": "nested-agent", "transcript_path": transcript, "cwd": repo, "hook_event_name": name}
    hook = subprocess.run([python, "-m", "jacked_vault.cli.main", "_hook", name, "--vault", vault],
                          input=json.dumps(payload).encode(), capture_output=True)
    with open(record + ".stdout", "ab") as fh:
        fh.write(hook.stdout)
print(json.dumps({"episodic": "Made the capture queue safe for concurrent drains.", "note": None}))
"""


def _marker_env() -> dict[str, str]:
    from jacked_vault.capture.distiller import MARKER_ENV

    return {MARKER_ENV: "1"}


def test_every_hook_does_nothing_inside_the_distiller(setup, tmp_path: Path):
    from jacked_vault.capture.queue import enqueue

    vault, repo = setup
    transcript = Builder(repo).realistic().write(tmp_path / "t.jsonl")
    queued = enqueue(
        state_dir(vault),
        {
            "session_id": "earlier",
            "transcript_path": str(transcript),
            "cwd": str(repo),
            "hook_event_name": "SessionEnd",
        },
    )
    head, log = (
        git(vault, "rev-parse", "HEAD"),
        (state_dir(vault) / "log").read_bytes() if (state_dir(vault) / "log").exists() else b"",
    )
    mark = run_mark()
    for name in ("session-start", "session-end", "pre-compact", "drain"):
        payload = {"session_id": "inner", "transcript_path": str(transcript), "cwd": str(repo), "hook_event_name": name}
        proc = _hook(name, vault, json.dumps(payload), cwd=repo, **_marker_env(), **mark)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b""), name
    wait_exited(mark)  # the hooks and whatever they started (a drain, had one been started) have exited
    assert [p.name for p in (state_dir(vault) / "queue").glob("*.json")] == [queued.name]
    assert git(vault, "rev-parse", "HEAD") == head and git(vault, "status", "--porcelain") == ""
    assert (
        (state_dir(vault) / "log").read_bytes() if (state_dir(vault) / "log").exists() else b""
    ) == log  # no line at all


def test_a_hook_inside_the_distiller_imports_nothing_of_the_vault(setup):
    vault, repo = setup
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "jacked_vault.cli.main",
            "_hook",
            "session-start",
            "--vault",
            str(vault),
        ],
        input=json.dumps({"cwd": str(repo)}).encode(),
        capture_output=True,
        cwd=repo,
        env=cli_env(vault, **_marker_env()),
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout == b""
    imported = {
        line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if line.startswith("import time:")
    }
    assert "jacked_vault.capture.marker" in imported
    assert not {
        m
        for m in imported
        if m.startswith(
            ("jacked_vault.hooks.dispatch", "jacked_vault.store", "jacked_vault.context", "typer", "pygit2")
        )
    }


def test_a_distiller_running_an_agent_with_hooks_captures_once(setup, tmp_path: Path):
    vault, repo = setup
    script = tmp_path / "agent_distiller.py"
    script.write_text(NESTED_AGENT)
    record = tmp_path / "calls"
    inner = Builder(repo, session="nested-agent").realistic().write(tmp_path / "nested.jsonl")
    write_machine_config(
        {
            "distill": {
                "command": [
                    sys.executable,
                    str(script),
                    sys.executable,
                    str(vault),
                    str(repo),
                    str(inner),
                    str(record),
                ],
                "timeout_s": 20,
            }
        }
    )
    outer = Builder(repo).realistic().write(tmp_path / "t.jsonl")
    payload = {
        "session_id": "outer",
        "transcript_path": str(outer),
        "cwd": str(repo),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    mark = run_mark()
    assert _hook("session-end", vault, json.dumps(payload), cwd=repo, **mark).returncode == 0
    wait_exited(mark)  # the hook, its detached drain and the distiller's nested hooks have exited
    assert any("hook=drain" in line for line in _log(vault))
    assert record.read_text() == "call\n"  # one triage call
    assert (tmp_path / "calls.stdout").read_bytes() == b""  # no brief printed into the nested agent's context
    [day] = (vault / "groups" / "api" / "episodic" / "github.com__acme__api").glob("today-*.md")
    assert day.read_text().count("\n## ") == 1  # one episodic entry
    assert not list((state_dir(vault) / "queue").glob("*.json"))


def test_a_hook_runs_for_the_harness_it_names(tmp_path: Path):
    """`jacked _hook session-start --harness codex`: the brief is built for codex (its notes, not
    claude's); a session-end queued for codex is captured as codex's session (issue 19)."""
    import json
    import subprocess
    import sys

    from conftest import cli_env, make_repo, run_cli

    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/code.git")
    run_cli(
        "memory",
        "add",
        "--title",
        "For codex only",
        "--body",
        "Codex reads this.",
        "--target",
        "codex",
        vault=vault,
        cwd=repo,
    )
    run_cli(
        "memory",
        "add",
        "--title",
        "For claude only",
        "--body",
        "Claude reads this.",
        "--target",
        "claude",
        vault=vault,
        cwd=repo,
    )
    payload = json.dumps({"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart"})
    out = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "session-start", "--harness", "codex"],
        input=payload,
        capture_output=True,
        text=True,
        env=cli_env(vault),
        cwd=repo,
    ).stdout
    assert "For codex only" in out and "For claude only" not in out
