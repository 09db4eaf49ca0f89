"""archive/ (issue 24.5): the librarian moves notes closed (superseded or expired) longer than an
age to the same path under archive/, in one commit that keeps their history and audit; an
archived note leaves every recall surface and stays searchable with `--include-archived` (CLI
and MCP) and readable by id. A move into archive/ arriving from a remote is judged like any
transition: a closed note's move is taken, an open note's move or a move out of archive/ is
quarantined. Real vaults, a real bare remote, the real CLI in a subprocess."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import git, make_repo, run_cli
from helpers import sync_world
from helpers.sync_world import push_from

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from jacked_vault.sync import sync
from jacked_vault.write.transitions import archive, transition

shared = sync_world.shared  # the fixture: (laptop, desktop, hostile clone, remote)

OLD = "groups/api/note/old-port.md"
ARCHIVED = "archive/" + OLD


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def _audit_ops(root: Path) -> list[dict]:
    return [
        json.loads(line) for path in sorted((root / "audit").rglob("*.jsonl")) for line in path.read_text().splitlines()
    ]


@pytest.fixture
def world(tmp_path: Path):
    """A vault with an old note superseded by a new one, and a code repo of group api."""
    vault, repo = tmp_path / "vault", tmp_path / "code" / "api"
    run_cli("memory", "init", vault=vault)
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/api.git")
    ctx = Context.create(vault=str(vault), cwd=repo, harness="tester")
    old = add(ctx, AddRequest(title="Old port", kind="note", body="The zebraarchived service listens on 8080.")).note.id
    new = add(ctx, AddRequest(title="New port", kind="note", body="The service listens on 9090.")).note.id
    transition(ctx, old, "supersede", by=new)
    return vault, repo, ctx, old, new


def test_an_archived_note_leaves_recall_and_stays_searchable_on_request(world):
    vault, repo, _ctx, old, _new = world
    before = (vault / OLD).read_bytes()
    done = run_cli("memory", "librarian", "archive", "--older-than", "0", "--json", vault=vault, cwd=repo)
    assert done.code == 0, done.err
    assert [(m["id"], m["from"], m["to"]) for m in done.json["moved"]] == [(old, f"group:{OLD}", f"group:{ARCHIVED}")]
    assert not (vault / OLD).exists() and (vault / ARCHIVED).read_bytes() == before  # moved as committed
    stat = git(vault, "show", "--stat", "-M", "--format=%s", "HEAD")
    assert "memory(archive)" in stat and "=> archive/groups" in stat  # a rename: its history follows it
    history = git(vault, "log", "--follow", "--format=%s", "--", ARCHIVED).splitlines()
    assert history == [
        "memory(archive): 1 note(s) closed more than 0 day(s) ago",
        "memory(supersede): Old port",
        "memory(note): Old port",
    ]
    assert [(a["op"], a["id"], a["path"]) for a in _audit_ops(vault)][-1] == ("archive", old, ARCHIVED)

    env = {"JACKED_MEMORY_HARNESS": "claude"}
    for args in (
        ("search", "zebraarchived"),
        ("search", "--status", "superseded"),
        ("brief",),
        ("search", "--all", "--limit", "200"),
    ):
        shown = run_cli("memory", *args, "--json", vault=vault, cwd=repo, **env)
        assert shown.code == 0 and old not in shown.out and "zebraarchived" not in shown.out, (args, shown.out)
    assert "Old port" not in (vault / "groups" / "api" / "index.md").read_text()

    found = run_cli(
        "memory", "search", "zebraarchived", "--include-archived", "--json", vault=vault, cwd=repo, **env
    ).json["results"]
    assert [(r["id"], r["archived"], r["status"]) for r in found] == [(old, True, "superseded")]
    text = run_cli("memory", "search", "zebraarchived", "--include-archived", vault=vault, cwd=repo, **env).out
    assert "· archived ·" in text
    read = run_cli("memory", "read", old, "--json", vault=vault, cwd=repo, **env)
    assert read.code == 0 and read.json["memory"]["id"] == old  # read by id is explicit

    from helpers.mcp_server import call, inproc, run
    from mcp import Client

    async def go():
        async with Client(inproc(vault, repo, harness="claude")) as client:
            return [
                await call(client, "memory_search", {"query": "zebraarchived", **extra})
                for extra in ({}, {"include_archived": True})
            ]

    (hidden_err, hidden), (shown_err, shown) = run(go)
    assert not hidden_err and not shown_err
    assert hidden["results"] == [] and [r["id"] for r in shown["results"]] == [old]


def test_archive_moves_only_notes_closed_longer_than_the_age(world):
    vault, repo, ctx, old, new = world
    head = _head(vault)
    nothing = run_cli("memory", "librarian", "archive", vault=vault, cwd=repo)  # default 90 days: superseded just now
    assert nothing.code == 0 and "nothing to move" in nothing.out and _head(vault) == head
    dry = run_cli("memory", "librarian", "archive", "--older-than", "0", "--dry-run", "--json", vault=vault, cwd=repo)
    assert [m["id"] for m in dry.json["moved"]] == [old] and dry.json["commit"] is None
    assert _head(vault) == head and (vault / OLD).exists() and not (vault / "archive").exists()
    transition(ctx, new, "expire", valid_until="2099-01-01T00:00:00.000Z")  # to expire later: still holds
    done = archive(ctx, after_days=0)
    assert [m["id"] for m in done.moved] == [old]  # the active note (expiring in 2099) stays


def test_archive_refuses_a_negative_age_and_an_unknown_action_writing_nothing(world):
    vault, repo, *_ = world
    head = _head(vault)
    for args in (("archive", "--older-than", "-1"), ("bogus",), ("status", "--dry-run")):
        refused = run_cli("memory", "librarian", *args, "--json", vault=vault, cwd=repo)
        assert refused.code == 2 and refused.json["error"]["code"] == "JACKED_MEMORY_USAGE", (args, refused.out)
    assert _head(vault) == head and not (vault / "archive").exists()


def test_an_archived_note_keeps_its_transitions_and_expired_notes_are_archived_too(world):
    vault, _repo, ctx, old, new = world
    transition(ctx, new, "expire")
    done = archive(ctx, after_days=0)
    assert sorted(m["id"] for m in done.moved) == sorted([old, new])
    assert {m["status"] for m in done.moved} == {"superseded", "expired"}
    again = archive(ctx, after_days=0)
    assert again.moved == [] and again.commit is None
    rejected = transition(ctx, new, "reject", reason="wrong all along")  # a transition by id still works in archive/
    assert rejected.path == "group:archive/groups/api/note/new-port.md" and rejected.status == "rejected"
    assert run_cli("memory", "doctor", "--json", vault=vault).json["ok"]


# -- arrivals: an archive move from a remote is a transition, judged --------------------------------

NOTE = "groups/tools/note/first-note.md"


def test_an_archive_move_arrives_as_the_transition_it_is(shared):
    laptop, desktop, _, _ = shared
    sync(desktop)
    note = run_cli("memory", "search", "first", "--all", "--json", vault=desktop.vault.root).json["results"][0]["id"]
    transition(desktop, note, "expire")
    assert [m["id"] for m in archive(desktop, after_days=0).moved] == [note]
    sync(desktop)
    result = sync(laptop)
    assert result.quarantined == [], result.quarantined
    root = laptop.vault.root
    assert not (root / NOTE).exists() and (root / "archive" / NOTE).is_file()
    assert run_cli("memory", "search", "first", "--all", "--json", vault=root).json["results"] == []
    assert [
        r["id"]
        for r in run_cli("memory", "search", "first", "--all", "--include-archived", "--json", vault=root).json[
            "results"
        ]
    ] == [note]


def test_an_open_note_moved_into_archive_is_quarantined(shared, monkeypatch):
    """The desktop's archive is forced past the rule (as a modified client would): an audited move of
    an active note that still holds. The laptop judges it and keeps the note where it was."""
    from jacked_vault.document import lifecycle

    laptop, desktop, _, _ = shared
    sync(desktop)
    before = (laptop.vault.root / NOTE).read_bytes()
    with monkeypatch.context() as patched:
        patched.setattr(lifecycle, "archivable", lambda note, cutoff: True)
        patched.setattr("jacked_vault.recall.librarian.archive_candidates", lambda index, cutoff: [NOTE])
        assert len(archive(desktop, after_days=0).moved) == 1
    sync(desktop)
    result = sync(laptop)
    assert [(q["path"], q["code"]) for q in result.quarantined] == [("archive/" + NOTE, "NOT_A_TRANSITION")]
    assert (laptop.vault.root / NOTE).read_bytes() == before and not (laptop.vault.root / "archive" / NOTE).exists()
    assert run_cli("memory", "search", "first", "--all", "--json", vault=laptop.vault.root).json["results"] != []


def test_a_note_moved_out_of_archive_is_quarantined(shared):
    laptop, desktop, hostile, _ = shared
    sync(desktop)
    note = run_cli("memory", "search", "first", "--all", "--json", vault=desktop.vault.root).json["results"][0]["id"]
    transition(desktop, note, "expire")
    archive(desktop, after_days=0)
    sync(desktop)
    sync(laptop)
    git(hostile, "pull", "-q", "--no-rebase", "origin", "main")
    text = (hostile / "archive" / NOTE).read_text()
    push_from(hostile, {"archive/" + NOTE: None, NOTE: text}, "bring it back")
    result = sync(laptop)
    assert [(q["path"], q["code"]) for q in result.quarantined] == [(NOTE, "NOT_A_TRANSITION")]
    root = laptop.vault.root
    assert (root / "archive" / NOTE).is_file() and not (root / NOTE).exists()
    assert run_cli("memory", "search", "first", "--all", "--json", vault=root).json["results"] == []
    assert (
        subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True).stdout == ""
    )


def test_a_notes_history_keeps_to_that_note_after_another_takes_its_name(world):
    """Issue 33.20: the old note is archived, a new note with its title takes its old path; each
    one's history (`log ID`, the page's) lists only its own commits."""
    vault, _repo, ctx, old, _new = world
    archive(ctx, after_days=0)
    again = add(ctx, AddRequest(title="Old port", kind="note", body="The port is 7070 now.")).note.id
    assert (vault / OLD).is_file() and (vault / ARCHIVED).is_file()
    mine = run_cli("memory", "log", old, "--json", vault=vault).json["entries"]
    theirs = run_cli("memory", "log", again, "--json", vault=vault).json["entries"]
    assert mine and {e["memory_id"] for e in mine} - {None} == {old}, [e["summary"] for e in mine]
    assert [e["memory_id"] for e in theirs] == [again], [e["summary"] for e in theirs]
