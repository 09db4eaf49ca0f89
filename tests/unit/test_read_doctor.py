"""Complete-or-fail reads, and doctor's checks and its one safe repair."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from conftest import git, snapshot

from jacked_vault.context import Context
from jacked_vault.doctor import doctor
from jacked_vault.document import render_note
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add, read
from jacked_vault.search.policy import Viewer
from jacked_vault.write.create import build_note


def _add(ctx: Context, title: str = "Rho", **kw):
    return add(ctx, AddRequest(title=title, body=kw.pop("body", "body"), group=kw.pop("group", "tools"), **kw))


def _commit_all(root: Path, message: str = "by hand") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


def test_read_returns_body_metadata_and_backlinks_from_active_notes(ctx: Context):
    target = _add(ctx, "Target", body="the body")
    linker = _add(ctx, "Linker", links=(target.note.id,))
    _add(ctx, "Candidate linker", links=(target.note.id,), status="candidate")
    result = read(ctx, target.note.id, Viewer())
    assert result.note.body == "the body"
    assert result.display_path == "group:groups/tools/note/target.md"
    assert result.backlinks == [{"id": linker.note.id, "title": "Linker"}]
    assert result.backlinks_truncated is False


def test_read_backlinks_are_capped_and_say_so(ctx: Context):
    target = _add(ctx, "Hub")
    for n in range(52):
        _add(ctx, f"Spoke {n}", links=(target.note.id,))
    result = read(ctx, target.note.id, Viewer())
    assert len(result.backlinks) == 50 and result.backlinks_truncated


def test_read_missing_is_not_found(ctx: Context):
    _add(ctx)
    with pytest.raises(VaultError) as err:
        read(ctx, "mem_20260101_nothere", Viewer())
    assert err.value.code == "NOT_FOUND"


def test_read_with_an_invalid_file_anywhere_is_incomplete_about_absence_only(ctx: Context):
    """SPEC 6 (issue 18.8): a note found answers; an id not found while a file was refused is INCOMPLETE."""
    good = _add(ctx)
    bad = ctx.vault.root / "groups" / "other" / "fact" / "bad.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("---\nid: [unclosed\n---\n\nx\n")
    _commit_all(ctx.vault.root)
    assert read(ctx, good.note.id, Viewer()).note.id == good.note.id
    with pytest.raises(VaultError) as err:
        read(ctx, "mem_20260101_nothere", Viewer())
    assert err.value.code == "INCOMPLETE"
    assert err.value.details["invalid_file_count"] == 1


def test_read_duplicate_id_is_incomplete_not_a_guess(ctx: Context):
    original = _add(ctx)
    copy = ctx.vault.root / "groups" / "tools" / "note" / "copy.md"
    copy.write_bytes((ctx.vault.root / original.rel).read_bytes())
    _commit_all(ctx.vault.root)
    with pytest.raises(VaultError) as err:
        read(ctx, original.note.id, Viewer())
    assert err.value.code == "INCOMPLETE" and "not unique" in err.value.message


def test_read_never_follows_a_file_replaced_by_a_symlink(ctx: Context, tmp_path: Path):
    """The committed version is what read answers with; the symlink's target is never read."""
    note = _add(ctx)
    path = ctx.vault.root / note.rel
    outside = tmp_path / "outside.md"
    outside.write_bytes(path.read_bytes().replace(b"body", b"planted text"))
    path.unlink()
    path.symlink_to(outside)
    result = read(ctx, note.note.id, Viewer())
    assert result.note.body == "body"


def test_doctor_clean_vault_is_ok(ctx: Context):
    a = _add(ctx)
    _add(ctx, "Sigma", links=(a.note.id,))
    report = doctor(ctx)
    assert report.ok and report.memory_count == 2
    assert report.to_json()["audit_problems"] == []


def test_doctor_reports_each_problem(ctx: Context, tmp_path: Path):
    root = ctx.vault.root
    a = _add(ctx, "Tau")
    linker = _add(ctx, "Upsilon", links=("mem_20260101_missing",), allow_dangling_links=True)
    (root / "groups" / "tools" / "note" / "broken.md").write_text("not a note")
    (root / "groups" / "tools" / "note" / "dup.md").write_bytes((root / a.rel).read_bytes())
    by_hand = build_note(
        title="By hand", body="b", kind="note", scope="group", group="tools", repos=[], source_harness="t", origin="cli"
    )
    (root / "groups" / "tools" / "note" / "by-hand.md").write_bytes(render_note(by_hand))
    _commit_all(root)
    (root / "groups" / "tools" / "note" / "ln.md").symlink_to(tmp_path)
    # edited outside the tool (committed by hand) -> audit mismatch
    edited = (root / a.rel).read_text().replace("body", "changed body")
    (root / a.rel).write_text(edited)
    _commit_all(root, "edit by hand")
    # a valid note on disk that was never committed
    orphan = build_note(
        title="Orphan", body="b", kind="note", scope="group", group="tools", repos=[], source_harness="t", origin="cli"
    )
    (root / "groups" / "tools" / "note" / "orphan.md").write_bytes(render_note(orphan))
    report = doctor(ctx).to_json()
    assert not report["ok"]
    assert [f["code"] for f in report["invalid_files"]] == ["INVALID"]
    assert report["duplicate_ids"] and report["duplicate_ids"][0]["id"] == a.note.id
    assert report["broken_links"] == [{"id": linker.note.id, "missing": "mem_20260101_missing"}]
    assert report["skipped_symlinks"] == ["group:groups/tools/note/ln.md"]
    assert report["uncommitted"] == [
        {"path": "group:groups/tools/note/orphan.md", "state": "new", "kind": "note", "repair": "commit"}
    ]
    codes = {(p["path"], p["code"]) for p in report["audit_problems"]}
    assert (f"group:{a.rel}", "EDITED_OUTSIDE_TOOL") in codes
    assert ("group:groups/tools/note/by-hand.md", "NO_AUDIT_RECORD") in codes


def test_doctor_repair_commits_orphans_and_quarantines_what_fails_the_gate(ctx: Context):
    root = ctx.vault.root
    _add(ctx)
    orphan = build_note(
        title="Orphan", body="b", kind="note", scope="group", group="tools", repos=[], source_harness="t", origin="cli"
    )
    orphan_path = root / "groups" / "tools" / "note" / "orphan.md"
    orphan_path.write_bytes(render_note(orphan))
    junk = root / "groups" / "tools" / "note" / "junk.md"
    junk.write_text("not valid")
    stale = root / "groups" / "tools" / "note" / ".jacked-tmp-1-abc"
    stale.write_text("half")
    before_junk = junk.read_bytes()
    judged = doctor(ctx).to_json()["uncommitted"]
    assert {
        "path": "group:groups/tools/note/junk.md",
        "state": "new",
        "kind": "note",
        "repair": "quarantine",
        "problem": judged[0]["problem"],
    } in judged
    report = doctor(ctx, repair=True)
    assert report.repaired and "group:groups/tools/note/orphan.md" in report.repaired
    assert git(root, "ls-files", "groups/tools/note/orphan.md").strip() == "groups/tools/note/orphan.md"
    assert orphan_path.read_bytes() == render_note(orphan)
    assert not junk.exists() and not stale.exists()  # invalid: moved aside, never deleted
    (kept,) = [p for p in (ctx.vault.state / "quarantine").iterdir() if p.name.endswith("junk.md")]
    assert kept.read_bytes() == before_junk
    after = doctor(ctx).to_json()
    assert after["uncommitted"] == [] and after["ok"], after
    assert [r["path"] for r in after["quarantine"]] == ["groups/tools/note/junk.md"]


def test_doctor_reindex_rebuilds(ctx: Context):
    _add(ctx)
    os.unlink(ctx.vault.state / "index.sqlite")
    report = doctor(ctx, reindex=True)
    assert report.memory_count == 1 and report.reindexed


def test_doctor_sees_project_scope(vault_path: Path, code_repo: Path):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    add(inside, AddRequest(title="Project one", body="b", scope="project"))
    add(inside, AddRequest(title="Group one", body="b"))
    assert doctor(inside).memory_count == 2


def test_doctor_repair_refused_with_bad_gitignore(ctx: Context):
    _add(ctx)
    (ctx.vault.root / ".gitignore").write_text("")
    before = snapshot(ctx.vault.root)
    with pytest.raises(VaultError) as err:
        doctor(ctx, repair=True)
    assert err.value.code == "GITIGNORE"
    assert snapshot(ctx.vault.root) == before


def test_doctor_json_shape_keys(ctx: Context):
    _add(ctx)
    keys = set(doctor(ctx).to_json())
    assert {
        "ok",
        "memory_count",
        "invalid_files",
        "duplicate_ids",
        "broken_links",
        "skipped_symlinks",
        "uncommitted",
        "audit_problems",
        "truncated",
    } <= keys
    json.dumps(doctor(ctx).to_json())


def test_stale_index_md_is_reported_and_regenerated_by_repair(ctx: Context):
    _add(ctx, "Phi")
    index_md = ctx.vault.root / "groups" / "tools" / "index.md"
    good = index_md.read_bytes()
    index_md.write_text("# hand edited\n")
    report = doctor(ctx).to_json()
    assert report["derived_stale"] == [{"path": "vault:groups/tools/index.md", "state": "stale"}] and not report["ok"]
    repaired = doctor(ctx, repair=True)
    assert "vault:groups/tools/index.md" in repaired.repaired
    assert index_md.read_bytes() == good
    assert doctor(ctx).ok and git(ctx.vault.root, "status", "--porcelain") == ""


def test_doctor_links_and_ids_across_the_vault_and_a_project_store(vault_path: Path, code_repo: Path):
    """A link to a note of the other store is no broken link, one to no note is; an id both stores
    hold is a duplicate naming both (each store's ids asked of its own index, issue 34.4)."""
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    group = add(inside, AddRequest(title="Group one", body="b"))
    project = add(inside, AddRequest(title="Project one", body="b", scope="project", links=(group.note.id,)))
    dangling = (project.note.id, "mem_20260101_nowhere")
    add(inside, AddRequest(title="Group two", body="b", links=dangling, allow_dangling_links=True))
    store = inside.project_store()
    assert store is not None
    twin = build_note(
        title="Twin", body="b", kind="note", scope="project", group=None, repos=[], source_harness="t", origin="cli"
    )
    (store.root / "note" / "twin.md").write_bytes(render_note(dataclasses.replace(twin, id=group.note.id)))
    _commit_all(store.root, "a note of the same id, by hand")

    report = doctor(inside)

    linker = [n for n in report.to_json()["broken_links"]]
    assert [link["missing"] for link in linker] == ["mem_20260101_nowhere"], linker
    [shared] = [d for d in report.duplicate_ids if "stores" in d]
    assert shared["id"] == group.note.id and len(shared["stores"]) == 2, report.duplicate_ids
