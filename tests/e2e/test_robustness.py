"""Errors, never tracebacks (issue 9 findings 16, 17; issue 13 item 6): a damaged repository, a
broken derived file, an impossible path or a hostile symlink gives a coded error with its fix,
or heals itself, and never runs anything it should not. Every command runs as a real process."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import git, make_repo, run_cli

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from tests.helpers.state import state_dir

COMMANDS = [
    ["search", "alpha"],
    ["status"],
    ["read", "mem_20260101_nothere"],
    ["add", "--group", "g", "--title", "Another", "--body", "b"],
    ["doctor"],
    ["doctor", "--reindex"],
    ["brief"],
]


def _no_traceback(result) -> None:
    assert "Traceback" not in result.err + result.out, result.err
    assert result.code in (0, 1, 2), (result.code, result.err)


@pytest.fixture
def seeded(vault_path: Path, tmp_path: Path) -> tuple[Path, str]:
    ctx = Context.create(vault=str(vault_path), cwd=tmp_path, harness="t")
    note = add(ctx, AddRequest(title="Alpha note", body="alpha body", group="g"))
    return vault_path, note.rel


def test_a_corrupt_loose_object_is_found_by_doctor_and_breaks_nothing_else(seeded):
    vault, rel = seeded
    sha = git(vault, "rev-parse", f"HEAD:{rel}").strip()
    obj = vault / ".git" / "objects" / sha[:2] / sha[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"not zlib at all")
    for args in COMMANDS:
        _no_traceback(run_cli("memory", *args, vault=vault))
    report = run_cli("memory", "doctor", "--json", vault=vault).json
    assert report["ok"] is False
    (problem,) = report["git_problems"]
    assert problem["code"] == "OBJECTS_MISSING_OR_CORRUPT" and problem["object"] == sha, problem
    assert f"hash-object -w -- {rel}" in problem["fix"], problem  # the working file is that version
    reindexed = run_cli("memory", "doctor", "--reindex", "--json", vault=vault).json
    assert [p["object"] for p in reindexed["git_problems"]] == [sha]  # said once, with its fix
    assert reindexed["invalid_files"] == []  # not again as an unreadable file


def test_a_branch_at_a_missing_commit_is_a_coded_error_with_the_fix(seeded):
    vault, _ = seeded
    (vault / ".git" / "refs" / "heads" / "main").write_text("0123456789012345678901234567890123456789\n")
    for args in COMMANDS:
        result = run_cli("memory", *args, "--json", vault=vault)
        _no_traceback(result)
        if result.code and args[0] != "doctor":
            assert result.json["error"]["code"] == "JACKED_MEMORY_GIT", result.out
    added = run_cli("memory", "add", "--group", "g", "--title", "T", "--body", "b", "--json", vault=vault)
    assert added.json["error"]["code"] == "JACKED_MEMORY_GIT" and "update-ref" in added.json["error"]["message"]
    assert run_cli("memory", "doctor", "--json", vault=vault).json["git_problems"][0]["code"] == "HEAD_UNRESOLVABLE"


def test_the_index_as_a_folder_is_a_clear_error(seeded):
    vault, _ = seeded
    index = state_dir(vault) / "index.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    index.mkdir()
    for args in COMMANDS:
        result = run_cli("memory", *args, "--json", vault=vault)
        _no_traceback(result)
    result = run_cli("memory", "search", "alpha", "--json", vault=vault)
    assert result.json["error"]["code"] == "JACKED_MEMORY_UNSAFE_PATH" and "mv " in result.json["error"]["message"]


@pytest.mark.parametrize("path", ["", "/tmp/" + "x" * 300 + "/vault"], ids=["empty", "over-long-name"])
def test_an_impossible_vault_path_is_a_usage_error(tmp_path: Path, path: str):
    for args in (["init", "--no-scan"], ["status"], ["search", "x"]):
        result = run_cli("memory", "--vault", path, *args, "--json", cwd=tmp_path, HOME=str(tmp_path))
        _no_traceback(result)
        assert result.code == 2 and result.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    assert not (tmp_path / "jacked-vault").exists()  # never a silent fallback to the default vault


def test_init_never_writes_into_a_code_repo(tmp_path: Path):
    repo = tmp_path / "api"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/api.git")
    head = git(repo, "rev-parse", "HEAD")
    result = run_cli("memory", "--vault", str(repo), "init", "--no-scan", "--json", cwd=tmp_path)
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_CONFIG"
    assert git(repo, "rev-parse", "HEAD") == head and not (repo / "vault.json").exists()


def test_a_symlinked_index_md_heals_instead_of_blocking_the_group(seeded, tmp_path: Path):
    vault, _ = seeded
    outside = tmp_path / "outside.md"
    outside.write_text("do not touch\n")
    index_md = vault / "groups" / "g" / "index.md"
    index_md.unlink()
    index_md.symlink_to(outside)
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "a symlinked index.md, as a remote once could bring it")
    added = run_cli("memory", "add", "--group", "g", "--title", "Beta note", "--body", "b", vault=vault)
    assert added.code == 0, added.err
    assert outside.read_text() == "do not touch\n" and not index_md.is_symlink() and "Beta note" in index_md.read_text()
    assert run_cli("memory", "doctor", "--json", vault=vault).json["ok"]


def test_a_dangling_symlink_at_the_commit_marker_is_never_followed(seeded, tmp_path: Path):
    vault, _ = seeded
    target = tmp_path / "planted-target"
    (state_dir(vault) / "committing").symlink_to(target)
    result = run_cli("memory", "add", "--group", "g", "--title", "Gamma note", "--body", "b", vault=vault)
    assert result.code == 0, result.err
    assert not target.exists()


def test_hooks_install_keeps_a_symlinked_settings_file(tmp_path: Path, vault_path: Path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_text(json.dumps({"theme": "dark"}))
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.symlink_to(real)
    result = run_cli("memory", "hooks", "install", "--claude", "--settings", str(settings), vault=vault_path)
    assert result.code == 0, result.err
    assert settings.is_symlink() and os.readlink(settings) == str(real)
    data = json.loads(real.read_text())
    assert data["theme"] == "dark" and "SessionStart" in data["hooks"]
