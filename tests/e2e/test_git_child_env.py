"""A child git acts on the store, never on the repository a git hook's variables name: jacked
run from inside a hook inherits GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE… for the hook's repo."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from conftest import git, run_cli

from jacked_vault.store.gitfiles import REPO_ENV, child_env


def _tree_digest(path: Path) -> dict[str, str]:
    """Every file under `path` (its .git too), by content hash."""
    return {
        str(Path(root, name).relative_to(path)): hashlib.sha256(Path(root, name).read_bytes()).hexdigest()
        for root, _, names in os.walk(path)
        for name in names
    }


def test_git_repository_variables_are_all_dropped(monkeypatch):
    """Every variable git names as choosing a repository (`git rev-parse --local-env-vars`) is
    dropped from a child's environment; other variables and the extras pass."""
    local = subprocess.run(
        ["git", "rev-parse", "--local-env-vars"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "GIT_DIR" in local and set(local) <= REPO_ENV
    for name in local:
        monkeypatch.setenv(name, "/elsewhere")
    monkeypatch.setenv("JACKED_CHILD_ENV_PROBE", "kept")
    env = child_env({"LC_ALL": "C"})
    assert not set(env) & REPO_ENV
    assert env["JACKED_CHILD_ENV_PROBE"] == "kept" and env["LC_ALL"] == "C"


def test_add_push_and_sync_from_inside_a_git_hook_leave_the_hooks_repository_alone(tmp_path: Path):
    hook_repo = tmp_path / "project"
    hook_repo.mkdir()
    git(hook_repo, "init", "-q", "-b", "main")
    (hook_repo / "a.txt").write_text("project file\n")
    git(hook_repo, "add", "a.txt")
    git(hook_repo, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-q", "-m", "project")
    remote = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    assert run_cli("memory", "remote", "set", f"file://{remote}", "--json", vault=vault).code == 0
    before = _tree_digest(hook_repo)
    hook_env = {
        "GIT_DIR": str(hook_repo / ".git"),
        "GIT_WORK_TREE": str(hook_repo),
        "GIT_INDEX_FILE": str(hook_repo / ".git" / "index"),
        "GIT_COMMON_DIR": str(hook_repo / ".git"),
        "GIT_CONFIG_PARAMETERS": "'remote.origin.url'='file:///nowhere'",
    }
    for args in (("add", "--group", "g", "--title", "T", "--body", "b"), ("push",), ("sync",)):
        done = run_cli("memory", *args, "--json", vault=vault, **hook_env)
        assert done.code == 0, (args, done.out, done.err)
    assert _tree_digest(hook_repo) == before
    assert git(remote, "rev-parse", "main") == git(vault, "rev-parse", "HEAD")
    assert git(vault, "status", "--porcelain") == ""
