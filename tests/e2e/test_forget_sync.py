"""A forget reaches the other machines (issue 18.12, SPEC 5.2 and 10): the laptop forgets a note it
had pushed; the desktop's plain `sync` applies it as the transition it is (no --accept-deletions):
the file is gone there too, the tombstone holds, nothing is quarantined, doctor is clean. Two real
machines (one HOME each), a real bare remote, the real CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import git, run_cli
from helpers.state import state_dir


def _bare(path: Path) -> str:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return f"file://{path}"


def _machine(tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    home.mkdir()
    return home / "vault"


def test_a_forget_made_on_one_machine_is_applied_by_the_others_sync(tmp_path: Path):
    url = _bare(tmp_path / "shared.git")
    laptop, desktop = _machine(tmp_path, "laptop"), _machine(tmp_path, "desktop")
    assert run_cli("memory", "init", "--no-scan", vault=laptop).code == 0
    kept = run_cli(
        "memory",
        "add",
        "--group",
        "ops",
        "--title",
        "Deploy window",
        "--body",
        "Deploys on Tuesdays.",
        "--json",
        vault=laptop,
    ).json
    secret = run_cli(
        "memory",
        "add",
        "--group",
        "ops",
        "--title",
        "Staging login",
        "--body",
        "Admin uses Tr0ub4dor-horse-staple-91.",
        "--json",
        vault=laptop,
    ).json
    assert run_cli("memory", "remote", "set", url, vault=laptop).code == 0
    assert run_cli("memory", "push", vault=laptop).code == 0
    assert run_cli("memory", "init", "--from", url, vault=desktop).code == 0
    rel = secret["path"].split(":", 1)[1]
    assert (desktop / rel).exists()

    forgotten = run_cli("memory", "forget", secret["memory"]["id"], "--json", vault=laptop)
    assert forgotten.code == 0, forgotten.out + forgotten.err
    assert run_cli("memory", "sync", "--json", vault=laptop).code == 0
    assert git(tmp_path / "shared.git", "rev-parse", "main") == git(laptop, "rev-parse", "HEAD")

    synced = run_cli("memory", "sync", "--json", vault=desktop)

    assert synced.code == 0, synced.out + synced.err
    assert not (desktop / rel).exists(), "the forget was applied without --accept-deletions"
    assert git(desktop, "rev-parse", "HEAD") == git(laptop, "rev-parse", "HEAD"), (
        "a plain fast-forward: nothing of the desktop's own"
    )
    assert git(desktop, "status", "--porcelain") == ""
    assert not (state_dir(desktop) / "quarantine").exists()
    doctor = run_cli("memory", "doctor", "--json", vault=desktop)
    assert doctor.json["ok"] is True, doctor.out
    assert run_cli("memory", "read", kept["memory"]["id"], "--json", vault=desktop).code == 0
    again = run_cli(
        "memory",
        "add",
        "--group",
        "ops",
        "--title",
        "Staging login",
        "--body",
        "Admin uses Tr0ub4dor-horse-staple-91.",
        "--json",
        vault=desktop,
    )
    assert again.json["error"]["code"] == "JACKED_MEMORY_TOMBSTONED"
