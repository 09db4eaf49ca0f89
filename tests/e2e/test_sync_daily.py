"""Two machines in daily use never jam sync (issue 18 findings 1, 5b): hot.md is a
last-writer-wins slice, episodic day files written on both machines the same day keep both
entries, and two machines that transition the same note differently are ordered by one rule (a
person's reject wins; else the later transition), both audited, the loser named, sync never
stops for it. Two real vaults on a real bare remote."""

from __future__ import annotations

import json
from datetime import UTC

import pytest
from conftest import git, run_cli
from helpers import sync_world
from helpers.sync_world import add_note

from jacked_vault.sync import sync
from jacked_vault.write.hot import set_hot
from jacked_vault.write.transitions import transition

two_machines = sync_world.two_machines  # the fixture: (laptop, desktop, remote)


def _doctor_ok(ctx) -> None:
    report = run_cli("memory", "doctor", "--json", vault=ctx.vault.root).json
    assert report["ok"], json.dumps({k: v for k, v in report.items() if v and k not in ("schema", "captures")})


def test_hot_md_set_on_both_machines_never_jams_sync(two_machines):
    a, b, _ = two_machines
    set_hot(a, "Laptop: working on the parser.", group="tools")
    sync(a)
    set_hot(b, "Desktop: working on the index.", group="tools")
    result = sync(b)  # diverged on hot.md: the newer one wins
    assert result.action == "merged" and result.hot == [{"path": "groups/tools/hot.md", "kept": "here"}]
    hot = (b.vault.root / "groups/tools/hot.md").read_text()
    assert "Desktop" in hot and "Laptop" not in hot
    sync(a)
    assert (a.vault.root / "groups/tools/hot.md").read_text() == hot
    for ctx in (a, b):
        _doctor_ok(ctx)
    status = run_cli("memory", "status", "--json", vault=b.vault.root).json["vault"]
    assert status["last_sync"]["result"] == "ok"


def test_the_older_hot_md_loses_whichever_side_syncs_first(two_machines):
    a, b, _ = two_machines
    set_hot(b, "Desktop: earlier.", group="tools")
    set_hot(a, "Laptop: later.", group="tools")
    sync(a)
    result = sync(b)
    assert result.hot == [{"path": "groups/tools/hot.md", "kept": "remote"}]
    assert "Laptop: later." in (b.vault.root / "groups/tools/hot.md").read_text()
    _doctor_ok(b)


def test_day_files_written_on_both_machines_keep_every_entry(two_machines):
    from datetime import datetime

    from jacked_vault.episodic.entries import Entry, append_entry

    a, b, _ = two_machines
    when = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    for ctx, minute, text in ((a, 0, "Laptop session."), (b, 5, "Desktop session.")):
        entry = Entry(
            group="tools",
            identity="github.com/acme/api",
            when=when.replace(minute=minute),
            branch="main",
            sentence=text,
        )
        append_entry(ctx.vault, entry, harness="claude", origin="session-end")
    sync(a)
    assert sync(b).action == "merged"
    sync(a)
    for ctx in (a, b):
        day = next((ctx.vault.root / "groups/tools/episodic/github.com__acme__api").glob("today-*.md")).read_text()
        assert "Laptop session." in day and "Desktop session." in day
        _doctor_ok(ctx)


def test_two_machines_transitioning_one_note_differently_never_jam_and_reject_wins(two_machines):
    a, b, _ = two_machines
    note = add_note(a, "Shared fact", status="candidate", origin="mcp")
    sync(a)
    sync(b)
    transition(a, note.note.id, "reject", reason="wrong")
    transition(b, note.note.id, "accept")  # later, but a person's reject wins
    sync(a)
    result = sync(b)
    assert [(c["id"], c["kept"], c["lost"]) for c in result.transitions] == [(note.note.id, "rejected", "active")]
    sync(a)
    for ctx in (a, b):
        shown = run_cli("memory", "read", note.note.id, "--all", "--json", vault=ctx.vault.root).json["memory"]
        assert shown["status"] == "rejected"
        _doctor_ok(ctx)


def test_otherwise_the_later_transition_wins(two_machines):
    a, b, _ = two_machines
    note = add_note(a, "Another fact")
    newer = add_note(a, "Its replacement")
    sync(a)
    sync(b)
    transition(a, note.note.id, "expire")
    transition(b, note.note.id, "supersede", by=newer.note.id)  # the later one
    sync(a)
    result = sync(b)
    assert [(c["kept"], c["lost"]) for c in result.transitions] == [("superseded", "active")]
    sync(a)
    for ctx in (a, b):
        assert (
            run_cli("memory", "read", note.note.id, "--all", "--json", vault=ctx.vault.root).json["memory"]["status"]
            == "superseded"
        )
        _doctor_ok(ctx)


def test_a_settled_transition_arrives_on_the_machine_that_lost(two_machines):
    """The loser's machine takes the winner even where no transition leads from its own version
    (superseded here, the later expire there): the merge's `resolve` audit line vouches for it."""
    a, b, _ = two_machines
    note = add_note(a, "Third fact")
    newer = add_note(a, "Newer fact")
    sync(a)
    sync(b)
    transition(a, note.note.id, "supersede", by=newer.note.id)
    transition(b, note.note.id, "expire")  # later: it wins
    sync(a)
    result = sync(b)
    assert [(c["kept"], c["lost"]) for c in result.transitions] == [("active", "superseded")]
    back = sync(a)
    assert back.quarantined == [], back.quarantined
    for ctx in (a, b):
        shown = run_cli("memory", "read", note.note.id, "--all", "--json", vault=ctx.vault.root).json["memory"]
        assert shown["status"] == "active" and shown["valid_until"] is not None
        _doctor_ok(ctx)


def test_a_forget_wins_over_a_transition_made_elsewhere(two_machines):
    a, b, _ = two_machines
    note = add_note(a, "Slipped password", status="candidate", origin="mcp")
    sync(a)
    sync(b)
    assert run_cli("memory", "forget", note.note.id, "--json", vault=a.vault.root).code == 0
    transition(b, note.note.id, "accept")
    sync(a)
    result = sync(b)
    assert [(c["id"], c["kept"]) for c in result.transitions] == [(note.note.id, "forgotten")]
    sync(a)
    for ctx in (a, b):
        assert not (ctx.vault.root / note.rel).exists()
        _doctor_ok(ctx)


@pytest.mark.parametrize("forget_first", [True, False], ids=["forget-pushed-first", "accept-pushed-first"])
def test_a_forget_and_a_new_note_never_wedge_a_transition_made_elsewhere(two_machines, forget_first: bool):
    """Issue 32.1: one machine forgets N and creates a note; the other accepts N. The merge pairs
    files by path only (never by content): the forgotten file is not taken for the new note, the
    forget wins over the accept made apart, the new note arrives byte for byte, and sync never
    wedges (every later sync succeeds on both machines)."""
    a, b, _ = two_machines
    note = add_note(a, "Slipped password", status="candidate", origin="mcp")
    sync(a)
    sync(b)

    def forget_and_add():
        assert run_cli("memory", "forget", note.note.id, "--json", vault=b.vault.root).code == 0
        made = add_note(b, "Staging runbook", body="Slipped password body. Rotate it on Mondays.")
        return made, (b.vault.root / made.rel).read_bytes()

    if forget_first:
        fresh, written = forget_and_add()
        sync(b)
        transition(a, note.note.id, "accept")
        result = sync(a)
        assert [(c["id"], c["kept"], c["kept_from"]) for c in result.transitions] == [
            (note.note.id, "forgotten", "remote")
        ]
    else:
        transition(a, note.note.id, "accept")
        sync(a)
        fresh, written = forget_and_add()
        result = sync(b)
        assert [(c["id"], c["kept"], c["kept_from"]) for c in result.transitions] == [
            (note.note.id, "forgotten", "here")
        ]
    for _ in range(2):
        sync(b)
        sync(a)
    for ctx in (a, b):
        assert not (ctx.vault.root / note.rel).exists()
        assert (ctx.vault.root / fresh.rel).read_bytes() == written, "the new note is the bytes its machine wrote"
        _doctor_ok(ctx)
    assert git(a.vault.root, "rev-parse", "HEAD") == git(b.vault.root, "rev-parse", "HEAD")


@pytest.mark.parametrize("pushed_first", ["earlier", "later"], ids=["earlier-pushed-first", "later-pushed-first"])
def test_one_note_saved_on_two_machines_before_a_sync_ends_a_duplicate_of_the_first(two_machines, pushed_first: str):
    """Issue 33.13: the same note saved on two machines before either synced (SPEC 5.6). After the
    merge the later one (created time, then id) is superseded as a duplicate of the first on every
    machine, whichever pushed first, and both machines hold the same bytes."""
    a, b, _ = two_machines
    args = ("memory", "add", "--group", "tools", "--title", "Use FTS5 for search", "--body", "It ships with Python.")
    first = run_cli(*args, "--json", vault=a.vault.root).json["memory"]["id"]
    later = run_cli(*args, "--json", vault=b.vault.root).json["memory"]["id"]
    x, y = (a, b) if pushed_first == "earlier" else (b, a)
    assert run_cli("memory", "sync", "--json", vault=x.vault.root).code == 0
    merged = run_cli("memory", "sync", "--json", vault=y.vault.root)
    assert merged.code == 0 and merged.json["action"] == "merged", merged.out + merged.err
    assert merged.json["duplicates"] == [{"id": later, "duplicate_of": first}]
    back = run_cli("memory", "sync", "--json", vault=x.vault.root)
    assert back.code == 0 and back.json["quarantined"] == [], back.out + back.err
    assert git(a.vault.root, "rev-parse", "HEAD^{tree}") == git(b.vault.root, "rev-parse", "HEAD^{tree}")
    for ctx in (a, b):
        shown = {
            note_id: run_cli("memory", "read", note_id, "--all", "--json", vault=ctx.vault.root).json["memory"]
            for note_id in (first, later)
        }
        assert shown[first]["status"] == "active"
        assert (shown[later]["status"], shown[later].get("status_reason")) == ("superseded", f"duplicate of {first}")
        hits = run_cli("memory", "search", "FTS5", "--json", vault=ctx.vault.root).json["results"]
        assert [hit["id"] for hit in hits] == [first]
        _doctor_ok(ctx)


PREFER_TABS = ("memory", "add", "--group", "tools", "--title", "Prefer tabs", "--body", "Tabs everywhere.", "--json")


def _status_on(vault, note_id: str) -> str:
    shown = run_cli("memory", "read", note_id, "--all", "--json", vault=vault)
    assert shown.code == 0, shown.out + shown.err
    return shown.json["memory"]["status"]


def _joined_later(tmp_path, remote):
    """A machine that joins the team afterwards: `init --from` the shared remote."""
    joined = sync_world.vault_in(tmp_path / "joiner")
    done = run_cli("memory", "init", "--from", f"file://{remote}", "--json", vault=joined)
    assert done.code == 0, done.out + done.err
    return joined


def _rejected_then_re_added(vault) -> str:
    """A person rejects a note, then adds its value again on purpose (`--allow-rejected`): the new id."""
    old = run_cli(*PREFER_TABS, vault=vault).json["memory"]["id"]
    assert run_cli("memory", "reject", old, "--reason", "not then", vault=vault).code == 0
    again = run_cli(*PREFER_TABS, "--allow-rejected", vault=vault)
    assert again.code == 0, again.out + again.err
    return again.json["memory"]["id"]


def test_a_person_re_adding_a_rejected_value_holds_on_every_machine_and_one_that_joins_later(two_machines, tmp_path):
    """Issue 33.14: a person's `add --allow-rejected` is a newer decision than the reject it lifts;
    no other machine (one that joins later included) undoes it as "rejected on another machine"."""
    a, b, remote = two_machines
    again = _rejected_then_re_added(a.vault.root)
    for ctx in (a, b, a):
        synced = run_cli("memory", "sync", "--json", vault=ctx.vault.root)
        assert synced.code == 0 and synced.json["rejected"] == [], synced.out + synced.err
    joined = _joined_later(tmp_path, remote)
    for vault in (a.vault.root, b.vault.root, joined):
        assert _status_on(vault, again) == "active", vault
        assert run_cli("memory", "doctor", "--json", vault=vault).json["ok"], vault


def test_a_reject_newer_than_a_person_re_adding_the_value_keeps_the_reject(two_machines, tmp_path):
    """Issue 33.14, the other order: the re-add is older than a reject made on another machine
    meanwhile; the newer decision (the reject) wins on every machine, one that joins later too."""
    a, b, remote = two_machines
    again = _rejected_then_re_added(a.vault.root)
    mine = run_cli(*PREFER_TABS, vault=b.vault.root).json["memory"]["id"]  # the desktop knows of no reject yet
    assert run_cli("memory", "reject", mine, "--reason", "still not", vault=b.vault.root).code == 0
    for ctx in (a, b, a):
        assert run_cli("memory", "sync", vault=ctx.vault.root).code == 0
    joined = _joined_later(tmp_path, remote)
    for vault in (a.vault.root, b.vault.root, joined):
        assert _status_on(vault, again) == "rejected", vault
        assert run_cli("memory", "doctor", "--json", vault=vault).json["ok"], vault
