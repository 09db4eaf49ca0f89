"""Plain doctor in time (issue 34.4): what it judged on an unchanged store is kept in the
machine-local index file (`doctor.kept`) and not judged again, and ANY change to what a verdict
covered is judged again. Each test runs a clean doctor (its verdicts kept), tampers with one
thing a verdict covers, and asserts the next plain doctor still reports it. Real vaults, real
git; the work skipped is counted through the check functions, never timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, git
from helpers.damage import flip

from jacked_vault.context import Context
from jacked_vault.doctor import checks, doctor
from jacked_vault.notes import AddRequest, add


def _loose(root: Path, sha: str) -> Path:
    path = root / ".git" / "objects" / sha[:2] / sha[2:]
    assert path.is_file(), "the object is loose"
    path.chmod(0o644)
    return path


def _doctor_process(root: Path) -> tuple[int, dict]:
    """Plain doctor --json as its own process (as it is run)."""
    proc = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=cli_env(root),
        cwd=root.parent,
        timeout=120,
    )
    return proc.returncode, json.loads(proc.stdout)


def _codes(items: list[dict]) -> set[str]:
    return {item["code"] for item in items}


@pytest.fixture
def clean(ctx: Context) -> Context:
    """A vault with a few notes, and a clean doctor already run twice (its verdicts kept)."""
    for n in range(3):
        add(ctx, AddRequest(title=f"Kept note {n}", body=f"body {n}, long enough to be its own blob", group="g"))
    assert doctor(ctx).ok
    assert doctor(ctx).ok
    return ctx


def _counting(monkeypatch, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(checks, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(checks, name, counted)
    return calls


def test_an_unchanged_store_is_not_walked_or_compared_again(clean: Context, monkeypatch):
    walks, compared = _counting(monkeypatch, "walk_head"), _counting(monkeypatch, "compare_notes")
    assert doctor(clean).ok
    assert walks == [] and compared == []  # both verdicts kept
    add(clean, AddRequest(title="One more", body="b", group="g"))  # a new HEAD: what changed is judged
    assert doctor(clean).ok
    assert walks == [] and compared == []  # only the trees and the notes the commit changed (below)
    assert doctor(clean, full=True).ok and len(walks) == 1  # --full never takes a kept verdict


def _read_trees(monkeypatch) -> list[str]:
    """The ids of the git trees doctor reads from here on."""
    read: list[str] = []
    real = checks._sound

    def counted(repo, objects, oid, *, blob=False):
        if not blob:
            read.append(str(oid))
        return real(repo, objects, oid, blob=blob)

    monkeypatch.setattr(checks, "_sound", counted)
    return read


def test_after_a_commit_only_the_trees_it_changed_are_walked(ctx: Context, monkeypatch):
    for group in ("g", "h", "k"):
        add(ctx, AddRequest(title=f"A fact of {group}", body="kept apart", group=group))
    assert doctor(ctx).ok and doctor(ctx).ok
    root = ctx.vault.root
    trees_before = set(git(root, "ls-tree", "-r", "-d", "--object-only", "HEAD").split())
    add(ctx, AddRequest(title="One more in g", body="b", group="g"))
    read = _read_trees(monkeypatch)
    assert doctor(ctx).ok
    head_tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    changed = {t for t in git(root, "ls-tree", "-r", "-d", "--object-only", "HEAD").split() if t not in trees_before}
    assert git(root, "rev-parse", "HEAD:groups/h").strip() in trees_before  # the other groups' trees are as they were
    assert sorted(read) == sorted(changed | {head_tree}), (read, changed)  # and only the changed ones are read
    assert doctor(ctx).ok and len(read) == len(changed) + 1  # the new verdict kept: nothing read again


def test_a_note_blob_deleted_before_a_commit_elsewhere_is_found(clean: Context):
    root = clean.vault.root
    rel = next(p for p in git(root, "ls-files", "groups").split() if "/note/" in p)
    sha = git(root, "rev-parse", f"HEAD:{rel}").strip()
    _loose(root, sha).unlink()
    add(clean, AddRequest(title="Elsewhere", body="a note in another group", group="other"))
    report = doctor(clean)
    assert not report.ok and sha in {p["object"] for p in report.git_problems}, report.git_problems


def test_a_tree_damaged_in_place_before_a_commit_elsewhere_is_found(clean: Context):
    root = clean.vault.root
    sha = git(root, "rev-parse", "HEAD:groups/g/note").strip()
    flip(_loose(root, sha))
    git(root, "commit", "-q", "--allow-empty", "-m", "a commit that changes no tree")
    (root / "README.md").write_text("changed by hand\n")
    git(root, "commit", "-qam", "a commit that changes the top tree only")
    report = doctor(clean)
    assert not report.ok and sha in {p.get("object") for p in report.git_problems}, report.git_problems


def test_a_commit_naming_a_blob_that_is_not_there_is_found(clean: Context):
    """A commit made around git's checks (a tool, a bad copy): the changed tree names a missing blob."""
    root = clean.vault.root
    missing = "0123456789abcdef0123456789abcdef01234567"
    git(root, "update-index", "--add", "--info-only", "--cacheinfo", f"100644,{missing},groups/g/note/ghost.txt")
    tree = git(root, "write-tree", "--missing-ok").strip()
    commit = git(root, "commit-tree", tree, "-p", "HEAD", "-m", "names a missing blob").strip()
    git(root, "update-ref", "HEAD", commit)
    report = doctor(clean)
    assert not report.ok and missing in {p.get("object") for p in report.git_problems}, report.git_problems


def test_files_outside_the_layout_are_kept_track_of_across_commits(clean: Context):
    root = clean.vault.root
    (root / "groups" / "g" / "stray.txt").write_text("not memory\n")
    git(root, "add", "groups/g/stray.txt")
    git(root, "commit", "-qm", "a file outside the layout")
    assert doctor(clean).outside_layout == ["vault:groups/g/stray.txt"]
    add(clean, AddRequest(title="Elsewhere", body="a note in another group", group="other"))
    (root / "groups" / "other" / "also.txt").write_text("not memory either\n")
    git(root, "add", "groups/other/also.txt")
    git(root, "commit", "-qm", "another one")
    report = doctor(clean)
    assert report.outside_layout == ["vault:groups/g/stray.txt", "vault:groups/other/also.txt"]
    assert report.outside_layout_count == 2
    git(root, "rm", "-q", "groups/g/stray.txt")
    git(root, "commit", "-qm", "the first one gone")
    for _ in range(2):
        report = doctor(clean)
        assert report.outside_layout == ["vault:groups/other/also.txt"] and report.outside_layout_count == 1


def test_a_note_blob_deleted_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    rel = next(p for p in git(root, "ls-files", "groups").split() if "/note/" in p)
    sha = git(root, "rev-parse", f"HEAD:{rel}").strip()
    _loose(root, sha).unlink()
    report = doctor(clean)
    assert not report.ok and [p["object"] for p in report.git_problems] == [sha], report.git_problems


def test_a_tree_damaged_in_place_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    sha = git(root, "rev-parse", "HEAD:groups/g/note").strip()
    flip(_loose(root, sha))  # the folder of loose objects is unchanged: only the file itself
    report = doctor(clean)
    assert not report.ok and sha in {p.get("object") for p in report.git_problems}, report.git_problems


def test_vault_json_damaged_in_place_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    sha = git(root, "rev-parse", "HEAD:vault.json").strip()
    flip(_loose(root, sha))
    report = doctor(clean)
    assert not report.ok and sha in {p.get("object") for p in report.git_problems}, report.git_problems


def test_a_pack_damaged_or_deleted_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    git(root, "gc", "-q")
    assert doctor(clean).ok and doctor(clean).ok  # the packed store's verdict kept
    sha = git(root, "rev-parse", "HEAD:vault.json").strip()
    [idx] = (root / ".git" / "objects" / "pack").glob("*.idx")
    [line] = [line for line in git(root, "verify-pack", "-v", str(idx)).splitlines() if line.startswith(sha)]
    size_in_pack, offset = (int(field) for field in line.split()[3:5])
    pack = idx.with_suffix(".pack")
    saved = pack.read_bytes()
    flip(pack, offset + size_in_pack - 1)
    report = doctor(clean)
    assert not report.ok and sha in {p.get("object") for p in report.git_problems}, report.git_problems

    pack.write_bytes(saved)
    add(clean, AddRequest(title="Loose one", body="b", group="g"))  # HEAD's commit loose, older blobs packed
    assert doctor(clean).ok and doctor(clean).ok
    for path in idx.parent.iterdir():  # the whole pack gone: every object of the tree with it
        path.chmod(0o644)
        path.unlink()
    code, report = _doctor_process(root)  # libgit2 keeps a pack it opened in this process open
    assert code == 1 and "OBJECTS_MISSING_OR_CORRUPT" in _codes(report["git_problems"]), report["git_problems"]


def test_a_committed_file_outside_the_layout_is_still_reported(clean: Context):
    root = clean.vault.root
    (root / "groups" / "g" / "stray.txt").write_text("not memory\n")
    git(root, "add", "groups/g/stray.txt")
    git(root, "commit", "-qm", "a file outside the layout")
    for _ in range(2):  # the kept verdict says it again
        report = doctor(clean)
        assert report.outside_layout == ["vault:groups/g/stray.txt"] and report.outside_layout_count == 1


def test_a_note_edited_and_committed_by_hand_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    rel = next(p for p in git(root, "ls-files", "groups").split() if "/note/" in p)
    path = root / rel
    path.write_text(path.read_text().replace("long enough", "edited by hand"))
    git(root, "commit", "-qam", "a hand edit")
    for _ in range(2):
        report = doctor(clean)
        assert "EDITED_OUTSIDE_TOOL" in _codes(report.audit_problems), report.audit_problems


def test_an_audit_line_rewritten_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    [part] = sorted((root / "audit").rglob("*.jsonl"))
    lines = part.read_bytes().splitlines(keepends=True)
    entry = json.loads(lines[-1])
    entry["sha256"] = "0" * 64  # the last line: the chain still holds, the note no longer matches it
    lines[-1] = json.dumps(entry, separators=(",", ":")).encode() + b"\n"
    part.write_bytes(b"".join(lines))
    report = doctor(clean)
    assert "EDITED_OUTSIDE_TOOL" in _codes(report.audit_problems), report.audit_problems
    git(root, "commit", "-qam", "the same rewrite, committed")
    assert "EDITED_OUTSIDE_TOOL" in _codes(doctor(clean).audit_problems)


def test_a_broken_chain_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    [part] = sorted((root / "audit").rglob("*.jsonl"))
    lines = part.read_bytes().splitlines(keepends=True)
    del lines[1]
    part.write_bytes(b"".join(lines))
    assert "CHAIN_BROKEN" in _codes(doctor(clean).audit_problems)


def test_index_md_edited_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    index_md = root / "groups" / "g" / "index.md"
    index_md.write_text(index_md.read_text() + "\nhand edit\n")
    report = doctor(clean)
    assert [item["state"] for item in report.derived_stale] == ["stale"], report.derived_stale
    git(root, "commit", "-qam", "the edit committed")
    assert doctor(clean).derived_stale


def test_a_kept_verdict_in_a_store_with_alternates_is_never_taken(clean: Context, monkeypatch):
    root = clean.vault.root
    info = root / ".git" / "objects" / "info"
    info.mkdir(exist_ok=True)
    other = root.parent / "other.git"
    subprocess.run(["git", "init", "-q", "--bare", str(other)], check=True)
    (info / "alternates").write_text(f"{other}/objects\n")
    walks = _counting(monkeypatch, "walk_head")
    assert doctor(clean).ok and doctor(clean).ok
    assert len(walks) == 2  # objects another store holds can go without this store changing
    os.unlink(info / "alternates")


def test_index_md_is_judged_again_once_a_note_becomes_valid(clean: Context, monkeypatch):
    from datetime import UTC, datetime, timedelta

    from jacked_vault.document import timestamps

    later = datetime.now(UTC) + timedelta(hours=1)
    add(clean, AddRequest(title="Valid later", body="b", group="g", valid_from=timestamps.format_timestamp(later)))
    rendered = _counting(monkeypatch, "stale_derived")
    assert doctor(clean).ok and doctor(clean).ok and len(rendered) == 1  # kept: nothing changed
    monkeypatch.setattr(timestamps, "utc_now", lambda: timestamps.format_timestamp(later + timedelta(minutes=1)))
    report = doctor(clean)  # no commit, no file changed: only the clock, and index.md now lists one more note
    assert [item["state"] for item in report.derived_stale] == ["stale"], report.derived_stale


def test_a_temp_file_left_after_a_clean_run_is_counted(clean: Context):
    root = clean.vault.root
    (root / "groups" / "g" / "note" / ".jacked-tmp-one").write_text("x")
    assert doctor(clean).stale_temp_files == 1
    (root / "groups" / "g" / "deeper").mkdir()
    (root / "groups" / "g" / "deeper" / ".jacked-tmp-two").write_text("x")
    assert doctor(clean).stale_temp_files == 2
    for path in root.rglob(".jacked-tmp-*"):
        path.unlink()
    assert doctor(clean).stale_temp_files == 0 and doctor(clean).stale_temp_files == 0
    (root / "groups" / "g" / "deeper" / ".jacked-tmp-three").write_text("x")  # in a folder walked before
    assert doctor(clean).stale_temp_files == 1


def test_vault_json_edited_and_committed_by_hand_after_a_clean_run_is_found(clean: Context):
    root = clean.vault.root
    config = json.loads((root / "vault.json").read_text())
    (root / "vault.json").write_text(json.dumps(config, indent=4) + "\n")  # the same settings, other bytes
    git(root, "commit", "-qam", "vault.json edited by hand")
    for _ in range(2):
        report = doctor(clean)
        assert {"path": "vault:vault.json", "code": "EDITED_OUTSIDE_TOOL"} in report.audit_problems, report


def test_a_pack_added_by_a_fetch_keeps_the_walk_and_a_pack_gone_does_not(clean: Context, monkeypatch):
    root = clean.vault.root
    git(root, "gc", "-q")
    assert doctor(clean).ok and doctor(clean).ok
    [old_pack] = (root / ".git" / "objects" / "pack").glob("*.pack")
    other = root.parent / "other"
    subprocess.run(["git", "clone", "-q", "--no-local", str(root), str(other)], check=True)  # no hard link
    (other / "README.md").write_text("changed in another clone\n")
    git(other, "commit", "-qam", "from the other clone")
    git(root, "-c", "fetch.unpackLimit=1", "fetch", "-q", str(other), "HEAD")  # its objects arrive as a new pack
    git(root, "merge", "-q", "--ff-only", "FETCH_HEAD")
    assert len(list(old_pack.parent.glob("*.pack"))) == 2
    walks = _counting(monkeypatch, "walk_head")
    assert doctor(clean).ok and walks == []  # a pack added takes nothing away: only the changed trees are read
    for path in old_pack.parent.glob(old_pack.stem + ".*"):  # the older pack gone: the tree's objects with it
        path.chmod(0o644)
        path.unlink()
    code, report = _doctor_process(root)
    assert code == 1 and "OBJECTS_MISSING_OR_CORRUPT" in _codes(report["git_problems"]), report["git_problems"]


def _compared_rows(monkeypatch) -> list[str]:
    """The paths of the notes doctor compares with their audit lines from here on."""
    rows: list[str] = []
    real = checks.compare_rows

    def counted(store, report, last, leftovers, found, progress=None, total=None):
        found = list(found)
        rows.extend(rel for rel, _, _ in found)
        return real(store, report, last, leftovers, found, progress, total)

    monkeypatch.setattr(checks, "compare_rows", counted)
    return rows


def test_after_a_commit_only_the_notes_it_changed_are_compared(clean: Context, monkeypatch):
    rows = _compared_rows(monkeypatch)
    note = add(clean, AddRequest(title="One more", body="b", group="g"))
    assert doctor(clean).ok
    assert rows == [note.rel], rows
    assert doctor(clean).ok and rows == [note.rel]  # the new verdict kept


def test_an_audit_line_added_by_hand_for_a_note_the_commit_left_alone_is_found(clean: Context):
    from jacked_vault.store.audit import line_hash

    root = clean.vault.root
    [part] = sorted((root / "audit").rglob("*.jsonl"))
    last = part.read_text().splitlines()[-1]
    note_line = next(json.loads(line) for line in reversed(part.read_text().splitlines()) if '"mem_' in line)
    forged = {**note_line, "ts": "2099-01-01T00:00:00.000Z", "sha256": "0" * 64, "prev": line_hash(last)}
    with part.open("a") as handle:  # chained as the tool chains it: the chain holds, the note no longer matches
        handle.write(json.dumps(forged, separators=(",", ":")) + "\n")
    git(root, "commit", "-qam", "an audit line for a note this commit did not change")
    report = doctor(clean)
    assert "EDITED_OUTSIDE_TOOL" in _codes(report.audit_problems), report.audit_problems
    assert not any(p["code"] == "CHAIN_BROKEN" for p in report.audit_problems)


def test_a_note_the_index_refused_and_now_takes_is_compared(clean: Context, monkeypatch):
    """A note the index refused when the verdict was kept (here: as if invalid) and takes now with
    no commit changing it (`reread`, as doctor does for an object restored) is compared too:
    HEAD's changes alone would pass it by."""
    from jacked_vault.search.index import SearchIndex

    root = clean.vault.root
    rel = next(p for p in git(root, "ls-files", "groups").split() if "/note/" in p)
    index = SearchIndex(clean.vault)
    try:
        index.forget(rel)
        index.problem(rel, "INVALID", f"{rel}: invalid")
        index.db.execute("DELETE FROM meta WHERE key LIKE 'doctor.%'")
    finally:
        index.close()
    report = doctor(clean)  # the notes but that one compared, and that verdict kept
    assert [item["code"] for item in report.invalid_files] == ["INVALID"] and not report.audit_problems
    index = SearchIndex(clean.vault)
    try:
        index.reread([rel])  # taken again, the same blob: no commit
        assert index.read.problem_paths() == set()
    finally:
        index.close()
    rows = _compared_rows(monkeypatch)
    add(clean, AddRequest(title="One more", body="b", group="g"))
    assert doctor(clean).ok
    assert rel in rows, rows


def _rendered(monkeypatch) -> list[str | None]:
    """The groups whose index.md doctor renders from here on."""
    from jacked_vault.recall import index_md

    groups: list[str | None] = []
    real = index_md.render_index

    def counted(index, store, group):
        groups.append(group)
        return real(index, store, group)

    monkeypatch.setattr(index_md, "render_index", counted)
    return groups


@pytest.fixture
def three_groups(ctx: Context) -> Context:
    for group in ("g", "h", "k"):
        add(ctx, AddRequest(title=f"A fact of {group}", body="kept apart", group=group))
    assert doctor(ctx).ok and doctor(ctx).ok
    return ctx


def test_after_a_commit_only_the_groups_it_changed_are_rendered(three_groups: Context, monkeypatch):
    add(three_groups, AddRequest(title="One more in g", body="b", group="g"))
    rendered = _rendered(monkeypatch)
    assert doctor(three_groups).ok
    assert rendered == ["g"]
    assert doctor(three_groups).ok and rendered == ["g"]  # the new verdict kept


def test_a_link_from_another_group_is_judged_in_the_group_it_points_to(three_groups: Context):
    root = three_groups.vault.root
    first = add(three_groups, AddRequest(title="A second fact of g", body="first by title", group="g"))
    second = add(three_groups, AddRequest(title="B third fact of g", body="second by title", group="g"))
    assert doctor(three_groups).ok and doctor(three_groups).ok
    index_md = (root / "groups" / "g" / "index.md").read_text()
    assert index_md.index(first.note.title) < index_md.index(second.note.title)
    linker = add(three_groups, AddRequest(title="Will point at B", body="b", group="h"))
    assert doctor(three_groups).ok
    path = root / linker.rel
    path.write_text(path.read_text().replace("links: []", f'links: ["{second.note.id}"]'))
    git(root, "commit", "-qam", "a link added by hand, index.md left as it was")
    report = doctor(three_groups)  # B is linked now: it comes first in g's index.md
    assert {"path": "vault:groups/g/index.md", "state": "stale"} in report.derived_stale, report.derived_stale


def test_a_note_refused_without_a_commit_has_its_group_judged(three_groups: Context, monkeypatch):
    from jacked_vault.search.index import SearchIndex

    root = three_groups.vault.root
    rel = next(p for p in git(root, "ls-files", "groups/k").split() if "/note/" in p)
    index = SearchIndex(three_groups.vault)
    try:
        index.forget(rel)  # as a tombstone added elsewhere makes the index refuse it, with no commit here
        index.problem(rel, "TOMBSTONED", f"{rel}: a rejected value")
    finally:
        index.close()
    add(three_groups, AddRequest(title="One more in g", body="b", group="g"))
    rendered = _rendered(monkeypatch)
    report = doctor(three_groups)
    assert "k" in rendered, rendered
    assert {"path": "vault:groups/k/index.md", "state": "stale"} in report.derived_stale, report.derived_stale


def test_after_a_commit_only_the_folders_it_changed_are_listed_for_temp_files(three_groups: Context, monkeypatch):
    root = three_groups.vault.root
    add(three_groups, AddRequest(title="One more in g", body="b", group="g"))
    listed: list[str] = []
    real = os.scandir

    def counted(path):
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(checks.os, "scandir", counted)
    assert doctor(three_groups).ok
    walked = {os.path.relpath(p, root) for p in listed if p.startswith(str(root)) and ".git" not in p}
    assert "groups/g/note" in walked and not walked & {"groups/h/note", "groups/k/note", "groups/h", "groups/k"}, walked


def test_more_files_outside_the_layout_than_are_named_are_counted_across_commits(clean: Context, monkeypatch):
    monkeypatch.setattr(checks, "MAX_OUTSIDE_SHOWN", 2)  # the verdict names only 2 of the 3 files
    root = clean.vault.root
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / "groups" / "g" / name).write_text("not memory\n")
    git(root, "add", "groups/g")
    git(root, "commit", "-qm", "three files outside the layout")
    assert doctor(clean).outside_layout_count == 3
    add(clean, AddRequest(title="Elsewhere", body="a note in another group", group="other"))
    for _ in range(2):
        report = doctor(clean)
        assert report.outside_layout_count == 3 and len(report.outside_layout) == 2, report.outside_layout


def test_an_audit_line_added_by_hand_for_a_hot_md_the_commit_left_alone_is_found(clean: Context):
    from jacked_vault.store.audit import line_hash
    from jacked_vault.write.hot import set_hot

    root = clean.vault.root
    set_hot(clean, "Current work: the kept verdicts.", group="g")
    assert doctor(clean).ok and doctor(clean).ok
    [part] = sorted((root / "audit").rglob("*.jsonl"))
    text = part.read_text().splitlines()
    hot_line = next(json.loads(line) for line in reversed(text) if '"groups/g/hot.md"' in line)
    forged = {**hot_line, "ts": "2099-01-01T00:00:00.000Z", "sha256": "0" * 64, "prev": line_hash(text[-1])}
    with part.open("a") as handle:
        handle.write(json.dumps(forged, separators=(",", ":")) + "\n")
    add(clean, AddRequest(title="Elsewhere", body="a note in another group", group="other"))
    report = doctor(clean)
    assert {"path": "vault:groups/g/hot.md", "code": "EDITED_OUTSIDE_TOOL"} in report.audit_problems, report


def test_after_a_sync_brings_another_machines_notes_only_they_are_judged(tmp_path: Path, monkeypatch):
    from helpers.sync_world import add_note, team

    from jacked_vault.sync import sync

    laptop, desktop = team([tmp_path / "laptop", tmp_path / "desktop"], tmp_path / "remote.git")
    for group in ("g", "h"):
        add_note(laptop, f"A fact of {group}", group=group)
    sync(laptop)
    sync(desktop)
    assert doctor(desktop).ok and doctor(desktop).ok
    arrived = [add_note(laptop, f"Arrives {n}", group="g").rel for n in range(3)]
    sync(laptop)
    assert sync(desktop).action == "fast-forward"
    walks, rows, rendered = _counting(monkeypatch, "walk_head"), _compared_rows(monkeypatch), _rendered(monkeypatch)
    report = doctor(desktop)
    assert report.ok, report
    assert walks == [] and sorted(rows) == sorted(arrived) and rendered == ["g"], (walks, rows, rendered)


def test_a_group_folder_removed_by_hand_before_a_commit_elsewhere_has_its_index_md_judged(three_groups: Context):
    import shutil

    root = three_groups.vault.root
    shutil.rmtree(root / "groups" / "k")
    add(three_groups, AddRequest(title="One more in g", body="b", group="g"))
    report = doctor(three_groups)
    assert {"path": "vault:groups/k/index.md", "state": "missing"} in report.derived_stale, report.derived_stale


def test_a_note_the_index_left_out_over_its_bounds_is_compared_once_it_is_indexed(clean: Context, monkeypatch):
    from jacked_vault.search import index as search_index

    root = clean.vault.root
    bound = search_index.MAX_ROOT_FILES
    monkeypatch.setattr(search_index, "MAX_ROOT_FILES", 1)  # groups/g is cut after its first note
    last = sorted(p for p in git(root, "ls-files", "groups/g").split() if "/note/" in p)[-1]
    path = root / last
    path.write_text(path.read_text().replace("long enough", "edited by hand"))
    git(root, "commit", "-qam", "a hand edit of a note the index leaves out")
    report = doctor(clean)
    assert report.truncated and "EDITED_OUTSIDE_TOOL" not in _codes(report.audit_problems)
    monkeypatch.setattr(search_index, "MAX_ROOT_FILES", bound)
    add(clean, AddRequest(title="One more in g", body="b", group="g"))  # its root indexed whole again
    report = doctor(clean)
    assert {"path": f"group:{last}", "code": "EDITED_OUTSIDE_TOOL"} in report.audit_problems, report.audit_problems


def test_a_kept_walk_naming_a_tree_that_is_not_there_walks_the_whole_tree(clean: Context, monkeypatch):
    from jacked_vault.doctor.kept import WALK, kept_for
    from jacked_vault.search.index import SearchIndex

    walks = _counting(monkeypatch, "walk_head")
    for tree in ("0" * 40, "not a tree id"):  # a tree gone (a history rewritten and pruned), a row damaged
        index = SearchIndex(clean.vault)
        try:
            key, value = kept_for(index.db, WALK)
            index.db.execute(
                "UPDATE meta SET value=? WHERE key=?",
                (json.dumps({"key": key, "value": {**value, "tree": tree}}), WALK),
            )
        finally:
            index.close()
        add(clean, AddRequest(title=f"After {tree}", body="b", group="g"))
        walks.clear()
        assert doctor(clean).ok and len(walks) == 1
