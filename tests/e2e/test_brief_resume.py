"""Issue 33.6: a resumed or compacted session is told only what changed since its own brief.

The real `jacked _hook session-start` runs in a subprocess, fed the stdin JSON Claude Code and
Codex send (`session_id`, `source`: startup, resume, clear, compact). What a session was told is
machine-local (`.git/jacked/briefs.jsonl`); the vault's working tree is never touched.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, git, make_repo, run_cli

from jacked_vault.write.init import init_vault

HEADER = "## jacked-vault memory for github.com/acme/api (group api;"


def _start(vault: Path, repo: Path, harness: str, session: str, source: str) -> str:
    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": "SessionStart", "source": source}
    done = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "session-start", "--harness", harness],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=repo,
        env=cli_env(vault),
        timeout=60,
        check=True,
    )
    if harness == "codex":  # hookSpecificOutput.additionalContext
        return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return done.stdout.strip()


def _add(vault: Path, repo: Path, title: str) -> None:
    added = run_cli(
        "memory", "add", "--kind", "decision", "--title", title, "--body", "Why: it holds.", vault=vault, cwd=repo
    )
    assert added.code == 0, added.err


@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_a_resume_or_compact_adds_only_what_changed_since_this_sessions_brief(tmp_path: Path, harness: str):
    vault, repo = tmp_path / "vault", tmp_path / "api"
    init_vault(vault)
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/api.git")
    _add(vault, repo, "Use SQLite FTS5 for search")

    first = _start(vault, repo, harness, "s1", "startup")
    assert first.startswith(HEADER) and "Use SQLite FTS5 for search" in first

    again = _start(vault, repo, harness, "s1", "resume")
    assert "\n" not in again and "nothing changed since this session's brief" in again, again

    _add(vault, repo, "Pin typer below 1.0")
    changed = _start(vault, repo, harness, "s1", "resume")
    assert "Pin typer below 1.0" in changed and "Use SQLite FTS5 for search" not in changed, changed
    assert "Pin typer below 1.0" in changed.splitlines()[-2] and changed.endswith("\n  > Why: it holds.")  # summary too
    assert "since this session's brief" in changed and not changed.startswith(HEADER)
    assert "not instructions" in changed  # quoted vault text stays marked as data

    compacted = _start(vault, repo, harness, "s1", "compact")
    assert "\n" not in compacted and "nothing changed" in compacted, compacted

    for session, source in (("s2", "resume"), ("s1", "startup"), ("s1", "clear")):  # a brief it never had
        full = _start(vault, repo, harness, session, source)
        assert full.startswith(HEADER) and "Use SQLite FTS5 for search" in full and "Pin typer" in full, source
    assert git(vault, "status", "--porcelain") == ""  # what sessions were told stays on this machine
