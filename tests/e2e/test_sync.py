"""Sharing a vault through a real bare remote: two clones as two machines, never losing a note."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import git, run_cli
from helpers import sync_world
from helpers.sync_world import add_note, machine

from jacked_vault.context import Context
from jacked_vault.doctor import doctor
from jacked_vault.errors import VaultError
from jacked_vault.store.audit import verify
from jacked_vault.sync import push, set_remote, sync
from jacked_vault.write.transitions import transition
from tests.helpers.state import state_dir

two_machines = sync_world.two_machines  # the fixture: (laptop, desktop, remote)


def _ids(ctx: Context) -> set[str]:
    from jacked_vault.search.index import SearchIndex

    index = SearchIndex(ctx.vault)
    index.refresh()
    try:
        return index.read.ids()
    finally:
        index.close()


def test_interleaved_writes_on_two_machines_all_land(two_machines):
    a, b, _ = two_machines
    a1 = add_note(a, "From the laptop", status="candidate")
    b1 = add_note(b, "From the desktop")
    assert sync(a).action == "pushed"
    result = sync(b)  # diverged: both added notes and index.md
    assert result.action == "merged"
    b2 = add_note(b, "Desktop again")
    transition(b, a1.note.id, "accept")
    a2 = add_note(a, "Laptop again")  # written before the laptop has seen the desktop's merge
    sync(a)
    transition(a, b1.note.id, "reject", reason="duplicate")
    for ctx in (a, b, a, b):
        sync(ctx)
    expected = {a1.note.id, a2.note.id, b1.note.id, b2.note.id}
    for ctx in (a, b):
        assert _ids(ctx) == expected
        assert verify(ctx.vault.root).problems == []
        report = doctor(ctx)
        assert report.ok, report.to_json()
        assert git(ctx.vault.root, "status", "--porcelain") == ""
    assert git(a.vault.root, "rev-parse", "HEAD") == git(b.vault.root, "rev-parse", "HEAD")


def test_same_title_on_two_machines_keeps_both_notes(two_machines):
    a, b, _ = two_machines
    mine = add_note(a, "Use FTS5", body="laptop version")
    theirs = add_note(b, "Use FTS5", body="desktop version")
    sync(a)
    result = sync(b)
    assert result.renamed == ["groups/tools/note/use-fts5.md -> groups/tools/note/use-fts5-2.md"]
    sync(a)
    for ctx in (a, b):
        assert _ids(ctx) == {mine.note.id, theirs.note.id}
        assert doctor(ctx).ok, doctor(ctx).to_json()


def test_hand_edit_of_the_same_note_on_both_sides_stops_and_explains(two_machines):
    a, b, _ = two_machines
    shared = add_note(a, "Shared")
    sync(a)
    sync(b)
    for ctx, text in ((a, "laptop edit"), (b, "desktop edit")):
        path = ctx.vault.root / shared.rel
        path.write_text(path.read_text().replace("Shared body.", text))
        git(ctx.vault.root, "commit", "-qam", "hand edit")
    sync(a)
    head_before = git(b.vault.root, "rev-parse", "HEAD")
    with pytest.raises(VaultError) as err:
        sync(b)
    assert err.value.code == "SYNC" and shared.rel in err.value.message and "git -C" in err.value.message
    assert git(b.vault.root, "rev-parse", "HEAD") == head_before
    assert "desktop edit" in (b.vault.root / shared.rel).read_text()
    # issue 32.1: the way it prints is safe (never a plain `git merge`, which takes what arrives
    # unjudged and pairs files by content), and following it settles the sync
    assert "merge origin" not in err.value.message
    *by_hand, again = err.value.details["commands"]
    assert all(f"`{command}`" in err.value.message for command in err.value.details["commands"])
    assert again == "jacked memory sync"
    for command in by_hand:
        subprocess.run(command, shell=True, check=True)
    assert sync(b).action == "merged"
    sync(a)
    assert git(a.vault.root, "rev-parse", "HEAD") == git(b.vault.root, "rev-parse", "HEAD")
    for ctx in (a, b):
        assert "laptop edit" in (ctx.vault.root / shared.rel).read_text()
        assert git(ctx.vault.root, "status", "--porcelain") == ""


def test_a_note_deleted_there_and_changed_here_is_settled_as_printed(two_machines):
    """A deletion made with plain git on one machine, a transition of the same note on the other:
    no rule settles it; the printed way takes the remote's deletion, and sync goes on."""
    a, b, _ = two_machines
    gone = add_note(a, "Deleted by hand", status="candidate", origin="mcp")
    add_note(a, "Stays")  # the group keeps a note (its index.md is regenerated)
    sync(a)
    sync(b)
    git(a.vault.root, "rm", "-q", gone.rel)
    git(a.vault.root, "commit", "-qm", "plain git deletion")
    sync(a)
    transition(b, gone.note.id, "accept")
    with pytest.raises(VaultError) as err:
        sync(b)
    assert err.value.details["paths"] == [gone.rel]
    *by_hand, _again = err.value.details["commands"]
    assert f"rm -q -- {gone.rel}" in by_hand[0]
    for command in by_hand:
        subprocess.run(command, shell=True, check=True)
    assert sync(b).action == "merged"
    sync(a)
    for ctx in (a, b):
        assert not (ctx.vault.root / gone.rel).exists()
    assert git(a.vault.root, "rev-parse", "HEAD") == git(b.vault.root, "rev-parse", "HEAD")


def test_fast_forward_and_up_to_date(two_machines):
    a, b, _ = two_machines
    note = add_note(a, "Only on the laptop")
    sync(a)
    assert sync(b).action == "fast-forward"
    assert note.note.id in _ids(b)
    assert sync(b).action == "up-to-date"


def test_a_fast_forward_moves_a_file_rewritten_here_with_the_same_bytes(two_machines):
    """A file written again with the bytes it had (an atomic write: a new inode, new times) is no
    local change: the fast-forward that changes it in the remote moves it (git's read-tree compares
    only the stat data of git's index, so that index is refreshed first)."""
    a, b, _ = two_machines
    add_note(a, "Shared first")
    sync(a)
    sync(b)
    index_md = next(b.vault.root.glob("groups/*/index.md"))
    rel = index_md.relative_to(b.vault.root).as_posix()
    time.sleep(1.1)  # another second: the rewritten file's times differ from those git's index holds
    kept = index_md.read_bytes()
    fresh = index_md.with_name(".index.md.tmp")
    fresh.write_bytes(kept)
    os.replace(fresh, index_md)
    add_note(a, "Shared second")  # changes that group's index.md in the remote
    sync(a)
    assert sync(b).action == "fast-forward"
    assert git(b.vault.root, "show", f"HEAD:{rel}") == index_md.read_text()
    assert git(b.vault.root, "status", "--porcelain") == ""


def test_a_fast_forward_over_a_file_changed_here_moves_nothing(two_machines):
    """A local change the fast-forward would overwrite stops it before anything moves: HEAD,
    git's index and the changed file stay as they were."""
    a, b, _ = two_machines
    add_note(a, "Shared first")
    sync(a)
    sync(b)
    index_md = next(b.vault.root.glob("groups/*/index.md"))
    head = git(b.vault.root, "rev-parse", "HEAD")
    index_md.write_text(index_md.read_text() + "A line of mine.\n")
    add_note(a, "Shared second")  # changes that group's index.md in the remote
    sync(a)
    with pytest.raises(VaultError) as stopped:
        sync(b)
    assert stopped.value.code == "SYNC" and "nothing was moved" in stopped.value.message
    assert git(b.vault.root, "rev-parse", "HEAD") == head
    assert index_md.read_text().endswith("A line of mine.\n")
    assert git(b.vault.root, "diff", "--cached", "--name-only") == ""


def test_a_fast_forward_lands_when_the_index_cannot_take_the_arrivals(two_machines, monkeypatch):
    """The index update after the arrivals is a cache's: when it fails (a locked index file), the
    fast-forward still lands whole and reports so, and the next read brings the index up."""
    import sqlite3

    from jacked_vault.search.index import SearchIndex

    a, b, _ = two_machines
    arrived = add_note(a, "Only on the laptop")
    sync(a)
    plain = SearchIndex.refresh

    def locked(self, passed=None):
        if passed:
            raise sqlite3.OperationalError("database is locked")
        plain(self, passed)

    monkeypatch.setattr(SearchIndex, "refresh", locked)
    assert sync(b).action == "fast-forward"
    monkeypatch.undo()
    assert git(b.vault.root, "rev-parse", "HEAD") == git(a.vault.root, "rev-parse", "HEAD")
    assert arrived.note.id in _ids(b)


def test_force_pushed_remote_loses_nothing_locally(two_machines, tmp_path: Path):
    _a, b, remote = two_machines
    kept = add_note(b, "Desktop only, unpushed")
    # someone rewrites the remote's history
    other = tmp_path / "rogue"
    subprocess.run(["git", "clone", "-q", f"file://{remote}", str(other)], check=True)
    git(other, "checkout", "-q", "--orphan", "rewritten")
    (other / "README.md").write_text("rewritten\n")
    git(other, "commit", "-qam", "a new root: history rewritten")
    git(other, "push", "-q", "--force", "origin", "rewritten:main")
    head_before = git(b.vault.root, "rev-parse", "HEAD")
    with pytest.raises(VaultError) as err:
        sync(b)  # unrelated histories: told how to join them on purpose, nothing touched
    assert err.value.code == "SYNC" and "--join" in err.value.message
    assert git(b.vault.root, "rev-parse", "HEAD") == head_before
    assert kept.note.id in _ids(b) and (b.vault.root / kept.rel).is_file()
    assert git(b.vault.root, "status", "--porcelain") == ""


def test_unreachable_remote_fails_fast_and_session_start_is_not_blocked(tmp_path: Path):
    import socket
    import threading

    from jacked_vault.sync import pull_at_session_start

    # A remote that accepts the connection and then never answers: a hung server, on loopback.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(10)
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(server.accept()[0]), daemon=True).start()
    ctx = machine(tmp_path / "v")
    set_remote(ctx, f"ssh://git@127.0.0.1:{server.getsockname()[1]}/nowhere.git")
    started = time.monotonic()
    try:
        outcome = pull_at_session_start(ctx, timeout_s=1.0)
    finally:
        for conn in held:
            conn.close()
        server.close()
    assert outcome.result in ("timeout", "failed")
    assert time.monotonic() - started < 5
    set_remote(ctx, f"file://{tmp_path / 'missing.git'}")
    with pytest.raises(VaultError) as err:
        sync(ctx)
    assert err.value.code == "SYNC"
    state = json.loads((state_dir(ctx.vault.root) / "sync-state.json").read_text())
    assert state["pull"]["result"] == "failed"  # the last pull (sync-state.json keeps the last pull and the last push)


def _alive(pid: int) -> bool:
    """The process runs (a zombie waiting for its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def test_a_timed_out_fetch_leaves_no_ssh_behind(tmp_path: Path, monkeypatch):
    """Issue 17.17: on timeout only git was killed; its ssh child ran on, holding the network."""
    from jacked_vault.sync import pull_at_session_start

    pid_file = tmp_path / "ssh.pids"
    fake_ssh = tmp_path / "fake-ssh"
    fake_ssh.write_text(f"#!/bin/sh\necho $$ >> {pid_file}\nexec sleep 120\n")  # a server that never answers
    fake_ssh.chmod(0o755)
    ctx = machine(tmp_path / "v")
    git(ctx.vault.root, "remote", "add", "origin", "ssh://example.invalid/x.git")
    monkeypatch.setenv("GIT_SSH_COMMAND", str(fake_ssh))
    started = time.monotonic()
    outcome = pull_at_session_start(ctx, timeout_s=1.0)
    assert outcome.result == "timeout" and time.monotonic() - started < 10
    pids = [int(line) for line in pid_file.read_text().split()]
    deadline = time.monotonic() + 3
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)  # this test's own fake ssh: leave nothing running whatever the outcome
    assert pids and not left, "the ssh git started outlived the timed-out fetch"


def test_push_is_never_forced(two_machines):
    a, b, _ = two_machines
    add_note(a, "Laptop")
    sync(a)
    add_note(b, "Desktop")
    with pytest.raises(VaultError) as err:
        push(b)
    assert err.value.code == "SYNC" and "jacked memory sync" in err.value.message


def test_cli_remote_set_push_sync_status(tmp_path: Path):
    remote = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    assert run_cli("memory", "remote", "set", f"file://{remote}", "--json", vault=vault).code == 0
    run_cli("memory", "add", "--group", "g", "--title", "T", "--body", "b", vault=vault)
    assert run_cli("memory", "push", "--json", vault=vault).code == 0
    status = run_cli("memory", "status", "--json", vault=vault).json["vault"]
    assert status["remote"] == f"file://{remote}" and (status["ahead"], status["behind"], status["diverged"]) == (
        0,
        0,
        False,
    )
    synced = run_cli("memory", "sync", "--json", vault=vault)
    assert synced.json["action"] == "up-to-date"
    before = (vault / ".git" / "config").read_bytes()
    bad = run_cli("memory", "remote", "set", "https://x/\x1b[31m", "--json", vault=vault)
    assert bad.json["error"]["code"] == "JACKED_MEMORY_VALIDATION"
    assert (vault / ".git" / "config").read_bytes() == before


def test_failed_sync_shows_in_status_and_brief(tmp_path: Path):
    from conftest import make_repo

    from jacked_vault.recall.brief import build_brief
    from jacked_vault.status import status

    ctx = machine(tmp_path / "v")
    set_remote(ctx, f"file://{tmp_path / 'missing.git'}")
    with pytest.raises(VaultError):
        sync(ctx)
    assert status(ctx).vault["last_sync"]["result"] == "failed"
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo, "git@github.com:o/code.git")
    brief = build_brief(Context.create(vault=str(ctx.vault.root), cwd=repo))
    said = [w for w in brief.warnings if w.startswith("last sync failed")]
    assert len(said) == 1, brief.warnings
    # one short line in every agent's context, git's own words only in `status` (issue 33.17)
    assert len(said[0]) <= 100 and "fatal" not in said[0] and "`jacked memory status`" in said[0], said
    assert "fatal" in status(ctx).to_text()


@pytest.mark.parametrize("language", ["de", "fr"])
def test_sync_reads_git_in_any_language(tmp_path: Path, language: str):
    """git's stderr is read in git's own words (an empty remote: "couldn't find remote ref"; a
    rejected push), so git runs in the C locale whatever the person's language: a German or
    French git once made the first sync to an empty remote fail."""
    remote = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    assert run_cli("memory", "remote", "set", f"file://{remote}", "--json", vault=vault).code == 0
    run_cli("memory", "add", "--group", "g", "--title", "T", "--body", "b", vault=vault)
    synced = run_cli("memory", "sync", "--json", vault=vault, LANGUAGE=language, LANG="C.UTF-8", LC_ALL="")
    assert synced.code == 0, synced.out + synced.err
    assert git(remote, "rev-parse", "main") == git(vault, "rev-parse", "HEAD")
