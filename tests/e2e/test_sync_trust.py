"""The remote is untrusted (issue 9 findings 1, 7, 8, 9, 10): what a hostile collaborator pushes
never runs a program, never touches machine-local state, is judged by the gate, and nothing
the remote deletes is lost here silently. Two real vaults share a real bare remote; the
hostile commits are made with plain git in a third clone, as anyone with push access could."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, make_repo, run_cli
from helpers import sync_world
from helpers.sync_world import push_from

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.sync import pull_at_session_start, sync
from jacked_vault.write.transitions import transition
from tests.helpers.state import state_dir

GH = "gh" + "p_" + "Zq7Lm2Nx9Vb4Kc8Wd1Rt6Yh3Ju5Ep0Sa7Fg2"


shared = sync_world.shared  # the fixture: (laptop, desktop, hostile clone, remote)


# -- finding 1: nothing machine-local, no symlink, nothing outside the layout ever arrives ----------


@pytest.mark.parametrize(
    "rel, why",
    [
        (".jacked/vault.local.json", "machine-local"),
        (".jacked/machine-id", "machine-local"),
        ("groups/tools/.hidden.md", "hidden"),
        ("scripts/run.sh", "outside the vault layout"),
        (".gitattributes", "hidden"),
    ],
)
def test_a_machine_local_or_foreign_path_stops_sync_before_head_moves(shared, rel: str, why: str):
    laptop, _, hostile, _ = shared
    text = (
        json.dumps({"settings": {"distill": {"command": ["sh", "-c", "touch /tmp/pwned"]}}})
        if rel.endswith(".json")
        else "x\n"
    )
    push_from(hostile, {rel: text})
    head = git(laptop.vault.root, "rev-parse", "HEAD")
    with pytest.raises(VaultError) as err:
        sync(laptop)
    assert err.value.code == "SYNC" and rel in err.value.message and why in err.value.message
    assert git(laptop.vault.root, "rev-parse", "HEAD") == head
    assert not (laptop.vault.root / rel).exists()
    assert (state_dir(laptop.vault.root) / "machine-id").read_text() != "x\n"
    assert pull_at_session_start(laptop).result == "refused"
    assert git(laptop.vault.root, "rev-parse", "HEAD") == head


def test_a_symlink_arriving_stops_sync(shared):
    laptop, _, hostile, _ = shared
    (hostile / "groups" / "tools").mkdir(parents=True, exist_ok=True)
    (hostile / "groups" / "tools" / "hot.md").symlink_to("/etc/passwd")
    git(hostile, "add", "groups/tools/hot.md")
    git(hostile, "commit", "-qm", "symlink")
    git(hostile, "push", "-q", "origin", "main")
    with pytest.raises(VaultError) as err:
        sync(laptop)
    assert "a symlink" in err.value.message
    assert not (laptop.vault.root / "groups" / "tools" / "hot.md").is_symlink()


def test_a_local_symlink_in_the_way_of_arriving_notes_stops_sync(shared, tmp_path: Path):
    """A folder on the way to arriving files that is a symlink here (made by hand) stops sync:
    nothing is written through it, for the first file under it as for the others."""
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    laptop, _, hostile, _ = shared
    outside = tmp_path / "outside"
    outside.mkdir()
    (laptop.vault.root / "groups" / "elsewhere").symlink_to(outside, target_is_directory=True)
    notes = {}
    for n in range(3):
        note = build_note(
            title=f"Arriving {n}", body="a body", kind="note", scope="group", group="elsewhere", repos=[],
            source_harness="tester", origin="mcp",
        )  # fmt: skip
        notes[f"groups/elsewhere/note/arriving-{n}.md"] = render_note(note).decode()
    push_from(hostile, notes, audit={rel: text.split('id: "')[1].split('"')[0] for rel, text in notes.items()})
    head = git(laptop.vault.root, "rev-parse", "HEAD")
    with pytest.raises(VaultError) as err:
        sync(laptop)
    assert err.value.code == "SYNC" and "a local symlink is in its way" in err.value.message
    assert all(rel in err.value.message for rel in notes)
    assert git(laptop.vault.root, "rev-parse", "HEAD") == head
    assert list(outside.iterdir()) == []


def test_a_distiller_command_from_the_remote_never_runs(shared, tmp_path: Path):
    """The shared vault.json may carry settings.distill.command: ignored on read, reported by doctor."""
    from helpers.capture import CLAUDE, Builder

    from jacked_vault.capture.session import capture_session
    from jacked_vault.doctor import doctor

    laptop, _, hostile, _ = shared
    marker = tmp_path / "ran"
    config = json.loads((hostile / "vault.json").read_text())
    config.setdefault("settings", {})["distill"] = {"command": [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]}
    push_from(hostile, {"vault.json": json.dumps(config)}, audit={"vault.json": "vault.json"})  # taken: audited
    sync(laptop)
    assert "command" in json.loads((laptop.vault.root / "vault.json").read_text())["settings"]["distill"]
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/code.git")
    transcript = Builder(repo).realistic().write(tmp_path / "t.jsonl")
    ctx = Context.create(vault=str(laptop.vault.root), cwd=repo, harness="claude")
    result = capture_session(
        ctx,
        {"session_id": "s", "transcript_path": str(transcript), "cwd": str(repo), "hook_event_name": "SessionEnd"},
        reader=CLAUDE,
    )
    assert result.fallback == "no-distiller" and not marker.exists()
    warnings = doctor(ctx).config_warnings
    assert [(w["code"], w["path"], w["field"]) for w in warnings] == [
        ("UNTRUSTED_SETTING", "vault.json", "settings.distill.command")
    ]


def test_a_local_override_cannot_name_a_program_either(tmp_path: Path, vault_path: Path):
    from jacked_vault.capture.distiller import resolve_distiller
    from jacked_vault.doctor import doctor

    (state_dir(vault_path)).mkdir(exist_ok=True)
    (state_dir(vault_path) / "vault.local.json").write_text(
        json.dumps({"settings": {"distill": {"command": ["evil"]}}})
    )
    ctx = Context.create(vault=str(vault_path), cwd=tmp_path)
    distiller = resolve_distiller(ctx.settings)
    assert distiller is None or distiller.command[0] != "evil"
    assert doctor(ctx).config_warnings[0]["path"] == ".git/jacked/vault.local.json"


def test_a_secret_arriving_is_quarantined_and_never_recalled(shared):
    from jacked_vault.doctor import doctor
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    laptop, _, hostile, _ = shared
    note = build_note(
        title="Deploy keys",
        body=f"use {GH}",
        kind="note",
        scope="group",
        group="tools",
        repos=[],
        source_harness="x",
        origin="mcp",
    )
    push_from(hostile, {"groups/tools/note/deploy-keys.md": render_note(note).decode()})
    result = sync(laptop)
    assert result.quarantined == [{"path": "groups/tools/note/deploy-keys.md", "code": "SECRET"}]
    out = run_cli("memory", "search", "deploy", "--all", "--json", vault=laptop.vault.root)
    assert out.json["results"] == [] and GH not in out.out
    report = doctor(laptop).to_json()
    assert not (laptop.vault.root / "groups/tools/note/deploy-keys.md").exists(), (
        "not taken: the local tree keeps what it had"
    )
    assert "deploy-keys.md" not in git(laptop.vault.root, "ls-files")
    assert report["ok"] and report["invalid_files"] == []
    assert any(r["path"] == "groups/tools/note/deploy-keys.md" and r["source"] == "sync" for r in report["quarantine"])


# -- finding 8: a rejection made on one machine holds on every machine ---------------------------------


def test_a_value_rejected_on_one_machine_is_rejected_on_all(shared, tmp_path: Path):
    laptop, desktop, _, _ = shared
    pending = add(
        desktop, AddRequest(title="Use tabs", body="Indent with tabs.", group="tools", status="candidate", origin="mcp")
    )
    sync(desktop)
    sync(laptop)
    transition(laptop, pending.note.id, "reject", reason="we use spaces")
    sync(laptop)
    sync(desktop)
    with pytest.raises(VaultError) as err:  # capture on the other machine: never re-created
        add(
            desktop,
            AddRequest(title="Use tabs.", body="Indent with tabs.", group="tools", status="candidate", origin="mcp"),
        )
    assert err.value.code == "TOMBSTONED"


def test_a_candidate_made_before_the_rejection_arrived_is_hidden_after_it(shared):
    laptop, desktop, _, _ = shared
    mine = add(
        laptop,
        AddRequest(title="Prefer tabs", body="Tabs everywhere.", group="tools", status="candidate", origin="mcp"),
    )
    sync(laptop)
    sync(desktop)
    twin = add(
        desktop,
        AddRequest(
            title="Prefer tabs.", body="Tabs everywhere", group="tools", status="candidate", origin="session-end"
        ),
    )
    transition(laptop, mine.note.id, "reject", reason="spaces")
    sync(laptop)
    sync(desktop)
    queue = run_cli("memory", "review", "--json", vault=desktop.vault.root).json["candidates"]
    assert twin.note.id not in [c["id"] for c in queue]


# -- finding 9: deletions on the remote are kept and reported ---------------------------------------


def test_a_remote_that_deletes_every_note_loses_nothing_here(shared):
    from jacked_vault.doctor import doctor

    laptop, _, hostile, _ = shared
    push_from(hostile, {"groups": None}, "remove everything")
    result = sync(laptop)
    assert result.kept_deletions and all(p.startswith("groups/") for p in result.kept_deletions)
    assert (laptop.vault.root / "groups" / "tools" / "note" / "first-note.md").is_file()
    assert run_cli("memory", "search", "first", "--all", "--json", vault=laptop.vault.root).json["results"]
    assert doctor(laptop).ok
    git(hostile, "pull", "-q", "--no-rebase", "origin", "main")
    assert (hostile / "groups" / "tools" / "note" / "first-note.md").is_file()  # the sync pushed them back


def test_accept_deletions_applies_them(shared):
    laptop, _, hostile, _ = shared
    push_from(hostile, {"groups/tools/note/first-note.md": None}, "remove one note")
    result = sync(laptop, accept_deletions=True)
    assert result.accepted_deletions == ["groups/tools/note/first-note.md"]
    assert not (laptop.vault.root / "groups" / "tools" / "note" / "first-note.md").exists()


def test_session_start_never_applies_a_deletion(shared):
    laptop, _, hostile, _ = shared
    push_from(hostile, {"groups/tools/note/first-note.md": None}, "remove one note")
    assert pull_at_session_start(laptop).result == "deletions"
    assert (laptop.vault.root / "groups" / "tools" / "note" / "first-note.md").is_file()


def test_session_start_says_it_held_deletions_when_its_state_cannot_be_written(shared):
    """The state is only a report: a sync-state.json that cannot be written (here a folder in its
    place) never turns the held pull's answer into nothing (the SessionStart hook reads it)."""
    laptop, _, hostile, _ = shared
    state_file = state_dir(laptop.vault.root) / "sync-state.json"
    state_file.unlink(missing_ok=True)
    state_file.mkdir(parents=True)
    push_from(hostile, {"groups/tools/note/first-note.md": None}, "remove one note")
    state = pull_at_session_start(laptop)
    assert state is not None and state.result == "deletions"
    assert (laptop.vault.root / "groups" / "tools" / "note" / "first-note.md").is_file()


# -- finding 10: the branch the vault is on; detached HEAD refused ------------------------------------


def test_detached_head_refuses_writes_and_sync(shared):
    laptop, _, _, _ = shared
    root = laptop.vault.root
    git(root, "checkout", "-q", "--detach")
    head = git(root, "rev-parse", "HEAD")
    for call in (lambda: add(laptop, AddRequest(title="Lost?", body="b", group="tools")), lambda: sync(laptop)):
        with pytest.raises(VaultError) as err:
            call()
        assert err.value.code == "GIT" and "checkout" in err.value.message
    assert git(root, "rev-parse", "HEAD") == head


def test_sync_pushes_the_branch_the_vault_is_on(shared):
    laptop, _, _, remote = shared
    root = laptop.vault.root
    git(root, "checkout", "-q", "-b", "experiment")
    note = add(laptop, AddRequest(title="On a branch", body="b", group="tools"))
    assert sync(laptop).action == "pushed"
    assert subprocess.run(["git", "-C", str(remote), "cat-file", "-e", f"experiment:{note.rel}"]).returncode == 0
    status = run_cli("memory", "status", "--json", vault=root).json["vault"]
    assert status["branch"] == "experiment" and status["ahead"] == 0


# -- finding 7: a token in the remote URL is never printed ---------------------------------------------


def test_a_token_in_the_remote_url_is_never_printed(tmp_path: Path, vault_path: Path):
    url = f"https://user:{GH}@example.invalid/vault.git"
    done = run_cli("memory", "remote", "set", url, "--json", vault=vault_path)
    assert done.code == 0 and GH not in done.out + done.err
    status = run_cli("memory", "status", "--json", vault=vault_path)
    assert GH not in status.out and status.json["vault"]["remote"] == "https://***@example.invalid/vault.git"
    assert GH not in run_cli("memory", "status", vault=vault_path).out
