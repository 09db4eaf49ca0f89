"""Transitions (accept/reject/supersede/expire): one commit each, only the allowed fields, audit, tombstones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, run_cli, snapshot

from jacked_vault.context import Context
from jacked_vault.document import parse_note
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.review import candidates
from jacked_vault.store.audit import verify
from jacked_vault.write.transitions import transition
from tests.helpers.state import state_dir

ALLOWED = {"status", "status_reason", "trust", "valid_until", "updated_at"}


def _add(ctx: Context, title: str = "Use FTS5", **kw):
    return add(ctx, AddRequest(title=title, body=kw.pop("body", "Because it ships with Python."), group="tools", **kw))


def _changed_fields(root: Path, rel: str) -> set[str]:
    before = parse_note(git(root, "show", f"HEAD~1:{rel}").encode()).to_json()
    after = parse_note((root / rel).read_bytes()).to_json()
    return {k for k in set(before) | set(after) if before.get(k) != after.get(k)}


@pytest.mark.parametrize(
    ("start", "op", "kwargs", "status"),
    [
        ("candidate", "accept", {}, "active"),
        ("candidate", "reject", {"reason": "not true"}, "rejected"),
        ("active", "reject", {"reason": "outdated"}, "rejected"),
        ("active", "expire", {"valid_until": "2030-01-01T00:00:00.000Z"}, "active"),
    ],
)
def test_transition_is_one_commit_changing_only_allowed_fields(ctx: Context, start, op, kwargs, status):
    created = _add(ctx, status=start)
    done = transition(ctx, created.note.id, op, **kwargs)
    root = ctx.vault.root
    assert done.status == status
    assert _changed_fields(root, created.rel) <= ALLOWED
    changed_files = git(root, "show", "--name-only", "--format=", "HEAD").split()
    assert created.rel in changed_files
    assert all(
        p == created.rel or p.startswith(("audit/", "tombstones/")) or p.endswith("index.md") for p in changed_files
    )
    message = git(root, "log", "-1", "--format=%B")
    assert message.startswith(f"memory({op}): Use FTS5") and f"Memory-Id: {created.note.id}" in message
    assert verify(root).problems == []
    audit_ops = [
        json.loads(line)["op"] for p in (root / "audit").rglob("*.jsonl") for line in p.read_text().splitlines()
    ]
    assert audit_ops[-1] == op


def test_supersede_by_another_note(ctx: Context):
    old = _add(ctx, "Old")
    new = _add(ctx, "New")
    transition(ctx, old.note.id, "supersede", by=new.note.id)
    note = parse_note((ctx.vault.root / old.rel).read_bytes())
    assert note.status == "superseded" and note.status_reason == f"superseded by {new.note.id}"
    with pytest.raises(VaultError) as err:
        transition(ctx, new.note.id, "supersede", by="mem_20260101_absent")
    assert err.value.code == "NOT_FOUND"


@pytest.mark.parametrize("replacement", ["expired", "superseded", "rejected", "candidate", "itself"])
def test_supersede_only_by_a_note_that_holds_now(ctx: Context, replacement: str):
    """Issue 33.15: a supersede by a replacement that no longer holds (or never did) would take
    the fact out of recall with nothing in its place: refused, nothing written."""
    old = _add(ctx, "Old")
    new = _add(ctx, "New", status="candidate", origin="mcp") if replacement == "candidate" else _add(ctx, "New")
    if replacement == "expired":
        transition(ctx, new.note.id, "expire")
    elif replacement == "superseded":
        transition(ctx, new.note.id, "supersede", by=_add(ctx, "Newer").note.id)
    elif replacement == "rejected":
        transition(ctx, new.note.id, "reject", reason="wrong")
    by = old.note.id if replacement == "itself" else new.note.id
    before = snapshot(ctx.vault.root)
    with pytest.raises(VaultError) as err:
        transition(ctx, old.note.id, "supersede", by=by)
    assert err.value.code == "VALIDATION", err.value.message
    assert "nothing was written" in err.value.message
    assert snapshot(ctx.vault.root) == before


def test_rejected_value_is_tombstoned_for_capture_and_for_add(ctx: Context):
    from jacked_vault.write.create import build_note, create_note

    created = _add(ctx, "Tabs over spaces", body="Always indent with tabs.")
    transition(ctx, created.note.id, "reject", reason="team uses spaces")
    before = snapshot(ctx.vault.root)
    with pytest.raises(VaultError) as err:
        _add(ctx, "tabs over  SPACES", body="Always indent   with tabs.")  # normalised: same value
    assert err.value.code == "TOMBSTONED" and "--allow-rejected" in err.value.message
    captured = build_note(
        title="Tabs over spaces",
        body="Always indent with tabs.",
        kind="convention",
        scope="group",
        group="tools",
        repos=[],
        source_harness="claude",
        origin="session-end",
        status="candidate",
    )
    with pytest.raises(VaultError) as err:
        create_note(ctx.vault, captured, allow_rejected=True)
    assert err.value.code == "TOMBSTONED"
    assert snapshot(ctx.vault.root) == before
    forced = _add(ctx, "Tabs over spaces", body="Always indent with tabs.", allow_rejected=True)
    assert forced.note.status == "active"


@pytest.mark.parametrize(
    ("start", "op", "kwargs"),
    [
        ("candidate", "supersede", {"by": "x"}),
        ("candidate", "reject", {}),
        ("active", "expire", {"valid_until": "2000-01-01T00:00:00.000Z"}),
    ],
)
def test_refused_transitions_change_nothing(ctx: Context, start, op, kwargs):
    created = _add(ctx, status=start)
    before = snapshot(ctx.vault.root)
    with pytest.raises(VaultError):
        transition(ctx, created.note.id, op, **kwargs)
    assert snapshot(ctx.vault.root) == before


def test_accept_marks_an_active_note_reviewed_once(ctx: Context):
    """SPEC 5.5: only a person's accept sets trust reviewed, and it works on an active note too."""
    created = _add(ctx)
    assert created.note.trust == "unreviewed"
    done = transition(ctx, created.note.id, "accept")
    assert (done.status, done.trust) == ("active", "reviewed")
    assert parse_note((ctx.vault.root / created.rel).read_bytes()).trust == "reviewed"
    before = snapshot(ctx.vault.root)
    with pytest.raises(VaultError) as err:
        transition(ctx, created.note.id, "accept")
    assert err.value.code == "VALIDATION" and snapshot(ctx.vault.root) == before


def test_accept_puts_a_candidate_into_index_md_and_search(ctx: Context):
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    created = _add(ctx, "Captured idea", status="candidate")
    index_md = ctx.vault.root / "groups" / "tools" / "index.md"
    assert "Captured idea" not in index_md.read_text()
    assert [c.id for c in candidates(ctx)] == [created.note.id]
    transition(ctx, created.note.id, "accept")
    assert "Captured idea" in index_md.read_text()
    assert [d.id for d in search(ctx, "captured", Filters()).results] == [created.note.id]
    assert candidates(ctx) == []


def test_review_cli_json_lists_the_queue_and_scripted_transitions(tmp_path: Path):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    ctx = Context.create(vault=str(vault), cwd=tmp_path, harness="t")
    created = _add(ctx, "Queue me", status="candidate")
    listed = run_cli("memory", "review", "--json", vault=vault)
    assert [c["id"] for c in listed.json["candidates"]] == [created.note.id]
    rejected = run_cli("memory", "reject", created.note.id, "--reason", "noise", "--json", vault=vault)
    assert rejected.code == 0 and rejected.json["status"] == "rejected"
    again = run_cli("memory", "accept", created.note.id, "--json", vault=vault)
    assert again.code == 1 and again.json["error"]["code"] == "JACKED_MEMORY_VALIDATION"
    missing_reason = run_cli("memory", "reject", created.note.id, "--json", vault=vault)
    assert missing_reason.code == 2
    log = run_cli("memory", "log", created.note.id, "--json", vault=vault)
    assert [e["summary"].split(":")[0] for e in log.json["entries"]] == ["memory(reject)", "memory(note)"]


def test_interactive_review_on_a_tty(tmp_path: Path):
    import os
    import pty
    import subprocess
    import sys
    import time

    from conftest import cli_env

    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    ctx = Context.create(vault=str(vault), cwd=tmp_path, harness="t")
    first = _add(ctx, "Keep this one", status="candidate")
    second = _add(ctx, "Drop this one", status="candidate")
    third = _add(ctx, "Later", status="candidate")
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "review"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=cli_env(vault),
        cwd=tmp_path,
    )
    os.close(slave)
    answers = [b"a\n", b"r\n", b"noise\n", b"q\n"]
    transcript = b""
    deadline = time.monotonic() + 60
    while answers and time.monotonic() < deadline:
        transcript += os.read(master, 4096)
        if transcript.rstrip().endswith(b":"):
            os.write(master, answers.pop(0))
            transcript += b"|"
    out, _ = proc.communicate(timeout=60)
    os.close(master)
    assert proc.returncode == 0, transcript
    assert "2 decision(s) recorded" in out.decode()
    assert not out.startswith(b" "), out  # the questions (the reason's too) go to the terminal, never into the result
    statuses = {n.note.id: parse_note((vault / n.rel).read_bytes()).status for n in (first, second, third)}
    assert statuses == {first.note.id: "active", second.note.id: "rejected", third.note.id: "candidate"}


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_add_supersedes_keeps_a_hand_edit_of_the_old_note_in_quarantine(tmp_path: Path, as_json: bool):
    """Issue 17.13: `add --supersedes OLD` treats a hand edit of OLD as the transitions do:
    the working copy is kept in .git/jacked/quarantine/ and reported; the commit holds the
    superseded version built from OLD's committed blob."""
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    ctx = Context.create(vault=str(vault), cwd=tmp_path, harness="t")
    old = _add(ctx, "Old rule", body="the committed text")
    path = vault / old.rel
    edited = path.read_text() + "\nappended by hand\n"
    path.write_text(edited)
    args = ["memory", "add", "--group", "tools", "--title", "New rule", "--body", "b", "--supersedes", old.note.id]
    result = run_cli(*args, *(["--json"] if as_json else []), vault=vault)
    assert result.code == 0, result.out + result.err
    records = [
        json.loads(line) for line in (state_dir(vault) / "quarantine" / "records.jsonl").read_text().splitlines()
    ]
    assert [(r["path"], r["source"]) for r in records] == [(old.rel, "transition")]
    name = records[0]["file"]
    assert (state_dir(vault) / "quarantine" / name).read_text() == edited, "the hand edit is kept byte for byte"
    if as_json:
        assert result.json["quarantined"] == [name]
    else:
        assert f"the hand-edited working copy was kept in .git/jacked/quarantine/{name}" in result.out
    committed = git(vault, "show", f"HEAD:{old.rel}")
    assert path.read_text() == committed and "appended by hand" not in committed
    note = parse_note(committed.encode())
    assert note.status == "superseded" and note.body == "the committed text"
    assert git(vault, "status", "--porcelain", "--untracked-files=all") == ""
    assert verify(vault).problems == []


def test_review_edit_as_new_on_a_tty_is_one_commit_with_the_new_note_and_the_reject(tmp_path: Path):
    """Issue 18.11: `e` opens $EDITOR on the candidate's body (a real program that rewrites the
    file) and saves the edit as a new active note, rejecting the candidate, in one commit with
    both audit lines (create, and the reject with its tombstone). An edit that leaves the text as
    it was saves nothing and asks again about the same candidate."""
    import sys

    from conftest import cli_env
    from helpers.terminal import EDITOR_SCRIPT, drive

    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    ctx = Context.create(vault=str(vault), cwd=tmp_path, harness="t")
    edited = _add(ctx, "Rebase rule", body="Always rebase.", status="candidate", tags=("git",))
    unchanged = _add(ctx, "Second idea", body="Leave me as I am.", status="candidate")
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR_SCRIPT)
    head = git(vault, "rev-parse", "HEAD").strip()
    answers = [b"e\n", b"Rebase before merging\n", b"edit\n", b"\n", b"s\n"]
    code, out, shown = drive(
        ["memory", "review"], answers, env=cli_env(vault, EDITOR=f"{sys.executable} {editor}"), cwd=tmp_path
    )
    assert code == 0, shown
    assert b"Traceback" not in shown and "1 decision(s) recorded" in out, shown
    assert editor.with_suffix(".seen").read_text().split("\n--\n")[:2] == ["Always rebase.", "Leave me as I am."]
    assert b"the edit left the text as it was" in shown, shown
    assert shown.count(b"[a]ccept [r]eject [s]kip [e]dit-as-new [q]uit") == 3, shown  # the unchanged edit asked again

    assert git(vault, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    candidate = parse_note((vault / edited.rel).read_bytes())
    new_id = candidate.status_reason.removeprefix("edited as ")
    assert candidate.status == "rejected" and new_id.startswith("mem_")
    changed = git(vault, "show", "--name-status", "--format=", "HEAD").split("\n")
    [added] = [line.split("\t")[1] for line in changed if line.startswith("A\t") and "/note/" in line]
    new = parse_note((vault / added).read_bytes())
    assert (new.id, new.title, new.kind, new.status, new.trust, new.origin, new.tags) == (
        new_id,
        "Rebase before merging",
        "note",
        "active",
        "unreviewed",
        "cli",
        ["git"],
    )
    assert new.body == "Rebase feature branches on main before merging.\nNever squash release branches."
    assert parse_note((vault / unchanged.rel).read_bytes()).status == "candidate"
    message = git(vault, "log", "-1", "--format=%B")
    assert message.startswith("memory(edit): Rebase before merging") and f"Memory-Id: {new_id}" in message
    diff = git(vault, "show", "--format=", "HEAD", "--", "audit")
    ops = [
        (json.loads(line[1:])["op"], json.loads(line[1:])["id"]) for line in diff.splitlines() if line.startswith("+{")
    ]
    assert ops == [("create", new_id), ("tombstone", edited.note.id), ("reject", edited.note.id)]
    assert verify(vault).problems == []
    doctor = run_cli("memory", "doctor", "--json", vault=vault)
    assert doctor.json["ok"] is True, doctor.out
