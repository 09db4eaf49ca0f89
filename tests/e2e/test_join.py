"""Two vaults made apart, both holding notes (issue 17 finding 10, SPEC 10): pointing one at the
other's remote never merges them, and never pushes a private note into a team remote, unless a
person asks with `remote set URL --join`; then the join is one commit through the gate, with
vault.json merged and its audit lines, and doctor is clean on both machines."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import git, run_cli
from helpers.sync_world import bare_remote, vault_in

PRIVATE = ("--group", "personal", "--title", "My private note", "--body", "Only on this laptop.")


@pytest.fixture
def apart(tmp_path: Path) -> tuple[Path, Path, str]:
    """(laptop vault with a private note, team vault pushed to `url` with its own notes)."""
    url = bare_remote(tmp_path / "team.git")
    team = vault_in(tmp_path / "team")
    run_cli("memory", "init", "--no-scan", vault=team)
    run_cli("memory", "group", "map", "github.com/acme/api", "platform", vault=team)
    assert (
        run_cli("memory", "add", "--group", "platform", "--title", "Team rule", "--body", "Shared.", vault=team).code
        == 0
    )
    run_cli("memory", "remote", "set", url, vault=team)
    assert run_cli("memory", "push", vault=team).code == 0
    laptop = vault_in(tmp_path / "laptop")
    run_cli("memory", "init", "--no-scan", vault=laptop)
    run_cli("memory", "group", "map", "github.com/me/dotfiles", "personal", vault=laptop)
    assert run_cli("memory", "add", *PRIVATE, vault=laptop).code == 0
    return laptop, team, url


def _remote_head(url: str) -> str:
    return subprocess.run(
        ["git", "ls-remote", url, "refs/heads/main"], capture_output=True, text=True, check=True
    ).stdout


def test_remote_set_refuses_to_join_two_vaults_with_notes_and_changes_nothing(apart):
    laptop, _, url = apart
    config = (laptop / ".git" / "config").read_bytes()
    head, remote_head = git(laptop, "rev-parse", "HEAD"), _remote_head(url)
    refused = run_cli("memory", "remote", "set", url, "--json", vault=laptop)
    assert refused.code == 1 and refused.json["error"]["code"] == "JACKED_MEMORY_SYNC", refused.out
    assert "--join" in refused.json["error"]["message"]
    assert (laptop / ".git" / "config").read_bytes() == config and git(laptop, "rev-parse", "HEAD") == head
    assert git(laptop, "for-each-ref", "refs/remotes") == ""
    assert _remote_head(url) == remote_head


def test_sync_refuses_an_unrelated_remote_set_by_hand(apart):
    laptop, _, url = apart
    git(laptop, "remote", "add", "origin", url)
    head, remote_head = git(laptop, "rev-parse", "HEAD"), _remote_head(url)
    refused = run_cli("memory", "sync", "--json", vault=laptop)
    assert refused.code == 1 and "--join" in refused.json["error"]["message"], refused.out
    assert git(laptop, "rev-parse", "HEAD") == head and _remote_head(url) == remote_head
    assert (
        "My private note"
        not in subprocess.run(
            ["git", "-C", str(laptop), "log", "-p", "origin/main"], capture_output=True, text=True
        ).stdout
    )


def test_join_merges_both_vaults_through_the_gate_and_doctor_is_clean_on_both(apart):
    laptop, team, url = apart
    joined = run_cli("memory", "remote", "set", url, "--join", "--json", vault=laptop)
    assert joined.code == 0 and joined.json["joined"] is True, joined.out + joined.err
    groups = run_cli("memory", "group", "list", "--json", vault=laptop).json
    names = {g["name"] for g in groups["groups"]}
    assert {"platform", "personal"} <= names, groups
    found = {
        r["title"]
        for r in run_cli("memory", "search", "rule", "private", "--all", "--json", vault=laptop).json["results"]
    }
    assert found == {"Team rule", "My private note"}
    assert run_cli("memory", "doctor", "--json", vault=laptop).json["ok"]
    assert run_cli("memory", "sync", "--json", vault=laptop).code == 0
    assert run_cli("memory", "sync", "--json", vault=team).code == 0
    doctor = run_cli("memory", "doctor", "--json", vault=team).json
    assert doctor["ok"], doctor
    assert "My private note" in {
        r["title"] for r in run_cli("memory", "search", "private", "--all", "--json", vault=team).json["results"]
    }
