"""After a purge (issue 32.6): a person forgets a note that was pushed and runs the purge `forget`
printed (history rewritten with git filter-repo or filter-branch, then force-pushed). Every old
clone still holds the old history: syncing it would merge that history (and the purged text)
back into the remote. The old clone recognises the rewritten remote, changes nothing, keeps
every note it has, and says the way on: a fresh clone (`init --from`) into a new folder and
`carry`, which re-adds through the gate this vault's notes the remote lacks. Two machines (one
HOME each), a real bare remote, the real CLI, the real purge commands."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, git, run_cli, snapshot
from helpers.state import state_dir
from helpers.sync_world import add_note, bare_remote, machine, team

from jacked_vault.context import Context
from jacked_vault.sync import pull_at_session_start, push, set_remote, sync
from jacked_vault.sync.carry import carry
from jacked_vault.write.transitions import transition

SECRET = "Tr0ub4dor-horse-staple-91"


def _add(vault: Path, title: str, body: str) -> dict:
    added = run_cli("memory", "add", "--group", "ops", "--title", title, "--body", body, "--json", vault=vault)
    assert added.code == 0, added.out + added.err
    return added.json


def _path_for(tool: str) -> str:
    """PATH with `git filter-repo` (the test extras install it beside this interpreter), or without
    it, so `forget` prints the filter-branch recipe."""
    import shutil

    bin_dir = str(Path(sys.executable).parent)
    if tool == "filter-repo":
        if not (Path(bin_dir) / "git-filter-repo").exists() and not shutil.which("git-filter-repo"):
            pytest.skip("git-filter-repo is not installed (pip install '.[test]' installs it)")
        return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    dirs = os.environ["PATH"].split(os.pathsep)
    return os.pathsep.join(d for d in dirs if not (Path(d) / "git-filter-repo").exists())


def _purged(tmp_path: Path, tool: str = "filter-branch") -> tuple[Path, Path, Path, dict, str]:
    """(laptop, desktop, remote, the desktop's unpushed note, the forgotten note's id): the laptop
    forgot a pushed note and purged it as `forget` said (a rewritten history, force-pushed); the
    desktop holds the old one."""
    remote = tmp_path / "shared.git"
    url = bare_remote(remote)
    laptop, desktop = tmp_path / "laptop" / "vault", tmp_path / "desktop" / "vault"
    for vault in (laptop, desktop):
        vault.parent.mkdir()
    assert run_cli("memory", "init", "--no-scan", vault=laptop).code == 0
    _add(laptop, "Deploy window", "Deploys on Tuesdays.")
    leaked = _add(laptop, "Staging login", f"How to reach staging. Admin uses {SECRET}.")  # index.md: 1st sentence
    assert run_cli("memory", "remote", "set", url, vault=laptop).code == 0
    assert run_cli("memory", "push", vault=laptop).code == 0
    assert run_cli("memory", "init", "--from", url, vault=desktop).code == 0
    unpushed = _add(desktop, "Desktop runbook", "Restart the workers after a deploy.")

    path = _path_for(tool)
    forgotten = run_cli("memory", "forget", leaked["memory"]["id"], "--json", vault=laptop, PATH=path)
    assert forgotten.code == 0, forgotten.out + forgotten.err
    purge = forgotten.json["purge"]
    assert purge["force_push"] and purge["reclone"] and purge["tool"] == f"git {tool}", purge
    script = "\n".join(["set -e", *purge["commands"]])  # what forget told the person to run, in one shell
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=laptop.parent, env=cli_env(laptop, PATH=path)
    )
    assert done.returncode == 0, done.stderr
    assert SECRET not in git(remote, "log", "-p", "--all"), "the purge reached the remote"
    return laptop, desktop, remote, unpushed, leaked["memory"]["id"]


@pytest.mark.parametrize("tool", ["filter-branch", "filter-repo"])
def test_an_old_clone_of_a_purged_remote_changes_nothing_and_says_the_way_on(tmp_path: Path, tool: str):
    _, desktop, remote, unpushed, _ = _purged(tmp_path, tool)
    purged_head = git(remote, "rev-parse", "main")
    before = snapshot(desktop)

    for _ in range(2):  # every run says the same, and changes nothing
        synced = run_cli("memory", "sync", "--json", vault=desktop)
        assert synced.code == 1, synced.out + synced.err
        error = synced.json["error"]
        assert error["code"] == "JACKED_MEMORY_SYNC" and error["details"]["rewritten"] is True, error
        assert "history was rewritten" in error["message"]
        assert "audit/" not in error["message"], "never blamed on this machine's own audit log"
        assert snapshot(desktop) == before
        assert git(remote, "rev-parse", "main") == purged_head
        assert SECRET not in git(remote, "log", "-p", "--all"), "the old history never goes back"
    assert (desktop / unpushed["path"].split(":", 1)[1]).is_file(), "every note here is kept"

    # a URL holding a token: the way on names it without printing it
    token_url = "https://someone:s3cr3t-t0ken@git.example.invalid/team/vault.git"
    git(desktop, "config", f"url.file://{remote}.insteadOf", token_url)
    git(desktop, "remote", "set-url", "origin", token_url)
    masked = run_cli("memory", "sync", "--json", vault=desktop)
    assert masked.json["error"]["details"]["rewritten"] is True, masked.out
    assert "s3cr3t" not in masked.out + masked.err
    assert f'--from "$(git -C {desktop} remote get-url origin)"' in masked.json["error"]["details"]["commands"][0]
    git(desktop, "remote", "set-url", "origin", f"file://{remote}")
    git(desktop, "config", "--unset", f"url.file://{remote}.insteadOf")

    pulled = pull_at_session_start(Context.create(vault=str(desktop), cwd=desktop.parent, harness="claude"))
    assert pulled.result == "rewritten", pulled
    assert snapshot(desktop) == before
    status = run_cli("memory", "status", "--json", vault=desktop).json["vault"]
    assert status["last_pull"]["result"] == "rewritten"
    assert "history was rewritten" in run_cli("memory", "status", vault=desktop).out
    assert state_dir(desktop).is_dir()


def test_a_rewound_remote_is_still_healed_by_the_next_sync(tmp_path: Path):
    """A server restored from an older backup (its branch moved back to an ancestor) is not a
    rewrite: the next sync pushes what it lost."""
    url = bare_remote(tmp_path / "shared.git")
    vault = tmp_path / "laptop" / "vault"
    vault.parent.mkdir()
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    assert run_cli("memory", "remote", "set", url, vault=vault).code == 0
    assert run_cli("memory", "push", vault=vault).code == 0
    backup = git(vault, "rev-parse", "HEAD").strip()
    _add(vault, "Pushed then lost", "The server lost this one.")
    assert run_cli("memory", "sync", vault=vault).code == 0
    git(tmp_path / "shared.git", "update-ref", "refs/heads/main", backup)  # the restore

    assert run_cli("memory", "sync", vault=vault).code == 0
    assert git(tmp_path / "shared.git", "rev-parse", "main") == git(vault, "rev-parse", "HEAD")


def test_a_rewound_remote_that_moved_on_is_healed_too(tmp_path: Path):
    """Restored from a backup, then a machine that never had the lost commits pushed on top: the
    remote holds no copy of them (nothing was rewritten), so the machine that has them merges and
    pushes them back."""
    remote = tmp_path / "shared.git"
    laptop, desktop = team([tmp_path / "laptop", tmp_path / "desktop"], remote)
    backup = git(remote, "rev-parse", "main").strip()
    lost = add_note(laptop, "Lost in the restore")
    push(laptop)
    git(remote, "update-ref", "refs/heads/main", backup)  # the restore
    later = add_note(desktop, "Pushed after the restore")
    assert sync(desktop).action == "pushed"

    assert sync(laptop).action == "merged"
    sync(desktop)
    for ctx in (laptop, desktop):
        assert (ctx.vault.root / lost.rel).is_file() and (ctx.vault.root / later.rel).is_file()
    assert git(remote, "rev-parse", "main") == git(laptop.vault.root, "rev-parse", "HEAD")


def test_the_way_on_carries_this_machines_notes_into_a_fresh_clone(tmp_path: Path):
    """The printed way, run as printed: a fresh clone, `carry` from the old folder, the folders
    swapped. The unpushed note is there (through the gate, unreviewed, its id kept), the purged
    note is not (its value is forgotten), and the next sync shares it without the old history."""
    laptop, desktop, remote, unpushed, leaked = _purged(tmp_path)
    accepted = _add(desktop, "Desktop decision", "We pin the toolchain.")
    assert run_cli("memory", "accept", accepted["memory"]["id"], vault=desktop).code == 0
    error = run_cli("memory", "sync", "--json", vault=desktop).json["error"]
    clone, carry_step, swap = error["details"]["commands"]
    shim = tmp_path / "bin"  # `jacked` on PATH: this test's interpreter
    shim.mkdir()
    (shim / "jacked").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m jacked_vault.cli.main "$@"\n')
    (shim / "jacked").chmod(0o755)
    env = {**cli_env(desktop), "PATH": f"{shim}:{os.environ['PATH']}"}
    for command in (clone, carry_step):  # as printed, in a shell
        done = subprocess.run(f"{command} --json", shell=True, capture_output=True, text=True, env=env)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    carried = json.loads(done.stdout)
    assert {c["id"]: c["was_reviewed"] for c in carried["carried"]} == {
        unpushed["memory"]["id"]: False,
        accepted["memory"]["id"]: True,
    }
    assert carried["not_carried"] == [{"id": leaked, "code": "FORGOTTEN"}], carried
    assert SECRET not in done.stdout + done.stderr
    subprocess.run(swap, shell=True, check=True)

    ids = {unpushed["memory"]["id"], accepted["memory"]["id"]}
    for note_id in ids:
        read = run_cli("memory", "read", note_id, "--json", vault=desktop)
        assert read.code == 0, read.out + read.err
        assert read.json["memory"]["trust"] == "unreviewed", "a review does not travel by copy"
    assert SECRET not in git(desktop, "log", "-p", "--all"), "the fresh clone never held the purged text"
    assert run_cli("memory", "doctor", "--json", vault=desktop).json["ok"]
    assert run_cli("memory", "sync", vault=desktop).code == 0
    assert SECRET not in git(remote, "log", "-p", "--all")
    assert run_cli("memory", "sync", vault=laptop).code == 0
    for note_id in ids:
        assert run_cli("memory", "read", note_id, "--json", vault=laptop).code == 0
    old = Path(f"{desktop}-before-rewrite")
    assert (old / unpushed["path"].split(":", 1)[1]).is_file(), "the old folder is kept as it was"


def test_carry_names_what_it_leaves_and_what_to_do_again(tmp_path: Path):
    """Carry re-creates only the live notes the vault lacks; a record, an invalid file and a note
    the gate refuses stay in the old folder, named; a transition made there is named with the
    command that makes it again here; nothing in the old folder is written."""
    remote = tmp_path / "shared.git"
    bare_remote(remote)
    first = machine(tmp_path / "first")
    waiting = add_note(first, "Waiting fact", status="candidate", origin="mcp")
    doubted = add_note(first, "Doubted fact", status="candidate", origin="mcp")
    set_remote(first, f"file://{remote}")
    push(first)
    old = machine(tmp_path / "old", remote)
    new = machine(tmp_path / "new", remote)
    transition(old, waiting.note.id, "accept")
    transition(old, doubted.note.id, "reject", reason="wrong")
    kept = add_note(old, "Only here")
    dropped = add_note(old, "Dropped here", status="candidate", origin="mcp")
    transition(old, dropped.note.id, "reject", reason="no")
    (old.vault.root / "groups/tools/note/junk.md").write_text("not a note\n")
    git(old.vault.root, "add", "groups/tools/note/junk.md")
    git(old.vault.root, "commit", "-qm", "a hand commit")
    before = snapshot(old.vault.root)

    result = carry(Context.create(vault=str(new.vault.root), cwd=new.vault.root, harness="tester"), old.vault.root)

    assert [c["id"] for c in result.carried] == [kept.note.id]
    assert result.already == []
    assert {(n.get("id") or n["path"], n["code"]) for n in result.not_carried} == {
        (dropped.note.id, "REJECTED"),
        ("groups/tools/note/junk.md", "VALIDATION"),
    }
    assert {r["id"]: r["command"] for r in result.redo} == {
        waiting.note.id: f"jacked memory accept {waiting.note.id}",
        doubted.note.id: f"jacked memory reject {doubted.note.id} --reason 'rejected on the old vault'",
    }
    assert snapshot(old.vault.root) == before
    again = carry(Context.create(vault=str(new.vault.root), cwd=new.vault.root, harness="tester"), old.vault.root)
    assert again.carried == [] and again.already == [kept.note.id], "a second carry finds it here"


def test_a_history_rewritten_from_its_first_commit_is_never_joined(tmp_path: Path):
    """Every commit rewritten (the first one too): the histories share no commit, but the remote
    holds copies of this vault's. `sync` and `remote set --join` refuse it as rewritten (a join
    would push the old history back) and change nothing."""
    remote = tmp_path / "shared.git"
    url = bare_remote(remote)
    laptop = machine(tmp_path / "laptop")
    set_remote(laptop, url)
    add_note(laptop, "Shared note")
    push(laptop)
    desktop = machine(tmp_path / "desktop", remote)
    set_remote(desktop, url)
    add_note(desktop, "Unpushed here")
    rogue = tmp_path / "rogue"
    subprocess.run(["git", "clone", "-q", url, str(rogue)], check=True)
    subprocess.run(
        ["git", "-C", str(rogue), "filter-branch", "-f", "--env-filter", "GIT_COMMITTER_NAME=rewriter", "--", "--all"],
        check=True, capture_output=True, env={**cli_env(), "FILTER_BRANCH_SQUELCH_WARNING": "1"},
    )  # fmt: skip
    git(rogue, "push", "-q", "--force", "origin", "main")
    before = snapshot(desktop.vault.root)

    synced = run_cli("memory", "sync", "--json", vault=desktop.vault.root)
    assert synced.json["error"]["details"].get("rewritten") is True, synced.out
    assert "--join" not in synced.json["error"]["message"]
    joined = run_cli("memory", "remote", "set", url, "--join", "--json", vault=desktop.vault.root)
    assert joined.code == 1 and joined.json["error"]["details"].get("rewritten") is True, joined.out
    assert snapshot(desktop.vault.root) == before
    assert "Unpushed" not in git(remote, "log", "--all", "--format=%s")
