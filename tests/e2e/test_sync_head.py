"""Sync of a vault whose branch holds no commit: a clear GIT error, nothing changed (issue 22.7:
`git.head_commit` is None there, and sync read `.id` from it: an internal error)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import git, run_cli


def test_sync_of_a_branch_with_no_commit_says_so_and_changes_nothing(tmp_path: Path):
    remote = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    assert run_cli("memory", "remote", "set", f"file://{remote}", vault=vault).code == 0
    git(vault, "update-ref", "-d", "refs/heads/main")
    refs = git(vault, "for-each-ref")
    synced = run_cli("memory", "sync", "--json", vault=vault)
    assert synced.code != 0
    assert synced.json["error"]["code"] == "JACKED_MEMORY_GIT"
    assert "the vault's branch has no commit" in synced.json["error"]["message"]
    assert git(vault, "for-each-ref") == refs
    assert git(remote, "for-each-ref") == ""
