"""A sparse checkout per group (issue 21 item 5): `git sparse-checkout set groups/g1` (cone mode)
leaves the other groups, and `audit/`, out of the working tree. Skip-worktree entries are present
and unchanged (never "missing"), `doctor --repair` never materialises them, and search and add
keep working: the search index covers the committed tree (every group), the audit chain is read
from HEAD where the working tree does not hold it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, run_cli

from jacked_vault.store import audit

GROUPS = ("g1", "g2", "g3")


@pytest.fixture
def sparse_vault(vault_path: Path) -> Path:
    for group in GROUPS:
        done = run_cli(
            "memory",
            "add",
            "--title",
            f"Cache rule of {group}",
            "--body",
            f"redis eviction for {group}",
            "--group",
            group,
            vault=vault_path,
        )
        assert done.code == 0, done.err
    git(vault_path, "sparse-checkout", "set", "groups/g1")
    assert not (vault_path / "groups" / "g2").exists() and not (vault_path / "audit").exists()
    return vault_path


def _hidden(vault: Path) -> list[str]:
    return sorted(line[2:] for line in git(vault, "ls-files", "-t").splitlines() if line.startswith("S "))


def test_doctor_counts_hidden_groups_as_present(sparse_vault: Path):
    hidden = _hidden(sparse_vault)
    assert any(p.startswith("groups/g2/") for p in hidden) and any(p.startswith("audit/") for p in hidden)
    report = run_cli("memory", "doctor", "--json", vault=sparse_vault)
    assert report.code == 0, report.out + report.err
    assert report.json["ok"] is True
    assert (
        report.json["uncommitted"] == [] and report.json["derived_stale"] == [] and report.json["audit_problems"] == []
    )
    assert report.json["memory_count"] == 3  # the index covers the committed tree: every group


def test_repair_never_materialises_hidden_entries(sparse_vault: Path):
    head = git(sparse_vault, "rev-parse", "HEAD")
    hidden = _hidden(sparse_vault)
    repaired = run_cli("memory", "doctor", "--repair", "--json", vault=sparse_vault)
    assert repaired.code == 0, repaired.out + repaired.err
    assert git(sparse_vault, "rev-parse", "HEAD") == head  # nothing to settle, nothing committed
    assert _hidden(sparse_vault) == hidden
    assert not (sparse_vault / "groups" / "g2").exists() and not (sparse_vault / "audit").exists()


def test_search_and_add_keep_working(sparse_vault: Path):
    found = run_cli("memory", "search", "redis eviction", "--group", "g2", "--json", vault=sparse_vault)
    assert found.code == 0, found.err
    assert "Cache rule of g2" in found.out  # a hidden group's note: the index reads git, not the disk
    added = run_cli(
        "memory", "add", "--title", "Another g1 rule", "--body", "still writing", "--group", "g1", vault=sparse_vault
    )
    assert added.code == 0, added.err
    assert audit.verify(sparse_vault).problems == []  # chained to the last line HEAD holds
    assert git(sparse_vault, "status", "--porcelain") == ""
    assert not (sparse_vault / "groups" / "g2").exists() and not (sparse_vault / "groups" / "g3").exists()
    report = run_cli("memory", "doctor", "--json", vault=sparse_vault)
    assert report.code == 0 and report.json["ok"] is True, report.out
    assert report.json["memory_count"] == 4


def test_a_file_deleted_inside_the_checkout_is_still_missing(sparse_vault: Path):
    note = next((sparse_vault / "groups" / "g1").rglob("cache-rule-of-g1.md"))
    note.unlink()
    report = run_cli("memory", "doctor", "--json", vault=sparse_vault)
    assert report.code == 1
    missing = [u for u in report.json["uncommitted"] if u["state"] == "missing"]
    assert [u["path"].rsplit("/", 1)[-1] for u in missing] == ["cache-rule-of-g1.md"]
    assert missing[0]["repair"] == "restore"


def test_sync_keeps_the_sparse_checkout(sparse_vault: Path, tmp_path: Path):
    """libgit2 cannot check out a sparse tree: sync fast-forwards through git's read-tree."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    assert run_cli("memory", "remote", "set", str(remote), vault=sparse_vault).code == 0
    assert run_cli("memory", "push", vault=sparse_vault).code == 0
    other = tmp_path / "m2" / "vault"
    other.parent.mkdir()
    assert run_cli("memory", "init", "--from", str(remote), vault=other).code == 0
    for group in ("g1", "g3"):
        assert (
            run_cli(
                "memory", "add", "--title", f"From m2 in {group}", "--body", "x", "--group", group, vault=other
            ).code
            == 0
        )
    assert run_cli("memory", "push", vault=other).code == 0

    synced = run_cli("memory", "sync", vault=sparse_vault)
    assert synced.code == 0, synced.out + synced.err
    assert git(sparse_vault, "rev-parse", "HEAD").strip() != ""
    assert (sparse_vault / "groups" / "g1" / "note" / "from-m2-in-g1.md").is_file()
    hidden = _hidden(sparse_vault)
    assert "groups/g3/note/from-m2-in-g3.md" in hidden and "groups/g2/note/cache-rule-of-g2.md" in hidden
    assert not (sparse_vault / "groups" / "g3" / "note").exists()
    report = run_cli("memory", "doctor", "--json", vault=sparse_vault)
    assert report.code == 0 and report.json["ok"] is True, report.out
    assert report.json["memory_count"] == 5
