"""`init --from` judges each arriving note once (issue 34.2): the gate's verdict on a note the
arrival judged, its parse and what it gives the index are handed to the search index as values,
so the index build neither reads the note's blob again nor consults the gate again. What the
gate refuses (a secret, an invalid frontmatter, a rejected value) is reported as before and is
in neither the working tree, git's index nor the search index. Real vaults, a real bare remote,
the hostile commits made with plain git, the real CLI for the refusals; work is counted, never
timed."""

from __future__ import annotations

import os
import random
import shutil
import string
import threading
from collections import Counter
from pathlib import Path

import pytest
from conftest import git, run_cli
from helpers import sync_world
from helpers.main_process import main_process_blob_reads, main_process_derivations, main_process_gate_calls
from helpers.sync_world import add_note, push_from

from jacked_vault.document import render_note
from jacked_vault.notes import AddRequest, add
from jacked_vault.search import parallel
from jacked_vault.search.index import SearchIndex
from jacked_vault.store.layout import Store
from jacked_vault.sync import sync
from jacked_vault.sync.clone import clone_vault
from jacked_vault.write.create import build_note
from jacked_vault.write.transitions import transition

shared = sync_world.shared  # (laptop, desktop, hostile clone, remote)
TOKEN = "ghp_" + "".join(random.Random(5).choices(string.ascii_letters + string.digits, k=36))
SECRET = "groups/tools/note/a-token.md"
INVALID = "groups/tools/note/no-frontmatter.md"
STONED = "groups/tools/note/use-tabs-again.md"


def _rendered(title: str, body: str, origin: str = "mcp") -> str:
    note = build_note(
        title=title, body=body, kind="note", scope="group", group="tools", repos=[], source_harness="x", origin=origin
    )
    return render_note(note).decode()


def _arriving_notes(root: Path) -> dict[str, str]:
    """path -> blob id of every note the clone's HEAD holds."""
    listed = git(root, "ls-tree", "-r", "HEAD", "groups").splitlines()
    return {line.split("\t")[1]: line.split()[2] for line in listed if "/note/" in line}


class _Counted:
    """What the main process does from now on: its gate consultations, blob reads and derivations."""

    def __init__(self, monkeypatch, worker: bool) -> None:
        monkeypatch.setattr(parallel, "PARALLEL_MIN", 2 if worker else 10**9)
        monkeypatch.setattr(parallel, "BATCH", 2)
        monkeypatch.setattr(threading, "active_count", lambda: 1)  # pytest-xdist's idle reader thread
        self.worker = worker
        self.calls = main_process_gate_calls(monkeypatch)
        self.read = main_process_blob_reads(monkeypatch)
        self.derived = main_process_derivations(monkeypatch)

    def once_each(self, notes: dict[str, str]) -> None:
        """Each of `notes` (path -> blob id, "Honest note 0" to 7 among them) judged once, by the
        arrival; read and derived here once alone, never with a worker (its bytes and derivation taken)."""
        assert {rel: self.calls[rel] for rel in notes} == dict.fromkeys(notes, 1)
        reads = Counter(self.read)
        once = 0 if self.worker else 1
        assert {rel: reads[oid] for rel, oid in notes.items()} == dict.fromkeys(notes, once)
        honest = Counter(title for title in self.derived if title.startswith("Honest note"))
        assert honest == Counter({f"Honest note {i}": once for i in range(8)} if once else {})


@pytest.mark.parametrize("worker", [False, True], ids=["alone", "with-a-worker"])
def test_init_from_consults_the_gate_once_per_note_and_reads_and_derives_each_at_most_once(
    shared, tmp_path, monkeypatch, worker
):
    laptop, _, _, remote = shared
    for i in range(8):
        add_note(laptop, f"Honest note {i}", body=f"Retry the upload {i} times after a timeout.")
    sync(laptop)
    if worker and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs a second core")
    counted = _Counted(monkeypatch, worker)
    done = clone_vault(f"file://{remote}", tmp_path / "second", harness="tester")
    notes = _arriving_notes(done.store.root)
    assert len(notes) >= 9 and done.quarantined == []
    counted.once_each(notes)
    index = SearchIndex(Store(done.store.root))
    try:
        indexed = {path for (path,) in index.db.execute("SELECT path FROM docs WHERE tier='note'")}
    finally:
        index.close()
    assert indexed == set(notes)


def test_init_from_keeps_what_the_gate_refuses_out_of_the_tree_and_both_indexes(shared, tmp_path):
    laptop, _, hostile, remote = shared
    rejected = add(laptop, AddRequest(title="Use tabs", body="Indent with tabs.", group="tools"))
    transition(laptop, rejected.note.id, "reject", reason="spaces")
    for i in range(3):
        add_note(laptop, f"Honest note {i}")
    sync(laptop)
    git(hostile, "pull", "-q", "--no-rebase", "origin", "main")
    push_from(
        hostile,
        {
            SECRET: _rendered("A token", f"ci uses {TOKEN} now"),
            INVALID: "# No frontmatter\n\nJust text.\n",
            STONED: _rendered("Use tabs", "Indent with tabs."),
        },
        "by hand",
    )
    vault = tmp_path / "home" / "vault"
    vault.parent.mkdir()
    done = run_cli("memory", "init", "--from", f"file://{remote}", "--json", vault=vault)
    assert done.code == 0, done.stderr
    assert sorted((q["path"], q["code"]) for q in done.json["quarantined"]) == [
        (SECRET, "SECRET"),
        (INVALID, "VALIDATION"),
        (STONED, "TOMBSTONED"),
    ]
    refused = {SECRET, INVALID, STONED}
    assert not any((vault / rel).exists() for rel in refused)
    assert not refused & set(git(vault, "ls-files").splitlines())
    assert git(vault, "status", "--porcelain") == ""
    index = SearchIndex(Store(vault))
    try:
        indexed = dict(index.db.execute("SELECT path, status FROM docs"))
    finally:
        index.close()
    assert not refused & set(indexed)
    assert {f"groups/tools/note/honest-note-{i}.md" for i in range(3)} <= set(indexed)
    assert "rejected" in indexed.values()  # the rejection itself arrived and is indexed


def test_init_from_stops_and_leaves_nothing_when_git_cannot_write_the_working_tree(shared, tmp_path):
    laptop, _, _, remote = shared
    add_note(laptop, "Honest note")
    sync(laptop)
    shim = tmp_path / "bin"
    shim.mkdir()
    real = shutil.which("git")
    (shim / "git").write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do [ "$a" = read-tree ] && { echo "fatal: no space left on device" >&2; exit 128; }; done\n'
        f'exec {real} "$@"\n'
    )
    (shim / "git").chmod(0o755)
    vault = tmp_path / "home" / "vault"
    vault.parent.mkdir()
    done = run_cli("memory", "init", "--from", f"file://{remote}", vault=vault, PATH=f"{shim}:{os.environ['PATH']}")
    assert done.code != 0
    assert "git could not write the working tree (fatal: no space left on device)" in done.err
    assert "Traceback" not in done.err and len(done.err.strip().splitlines()) == 1
    assert not vault.exists()


@pytest.mark.parametrize("worker", [False, True], ids=["alone", "with-a-worker"])
def test_a_sync_consults_the_gate_once_per_arriving_note_and_reads_and_derives_each_at_most_once(
    shared, monkeypatch, worker
):
    """A big `sync` shares the path (issue 34.2): the index update after it takes the gate's pass
    of each arriving note, as `init --from`'s build does, instead of reading, judging and deriving
    the note again (with tombstones in the vault, the index's gate judged every arriving note a
    second time)."""
    laptop, desktop, _, _ = shared
    rejected = add(laptop, AddRequest(title="Use tabs", body="Indent with tabs.", group="tools"))
    transition(laptop, rejected.note.id, "reject", reason="spaces")  # a tombstone: the index's gate has a rule to apply
    for i in range(8):
        add_note(laptop, f"Honest note {i}", body=f"Retry the upload {i} times after a timeout.")
    sync(laptop)
    if worker and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs a second core")
    before = _arriving_notes(desktop.vault.root)
    counted = _Counted(monkeypatch, worker)
    done = sync(desktop)
    assert done.quarantined == []
    notes = {rel: oid for rel, oid in _arriving_notes(desktop.vault.root).items() if before.get(rel) != oid}
    assert len(notes) >= 9
    counted.once_each(notes)
    index = SearchIndex(desktop.vault)
    try:
        indexed = dict(index.db.execute("SELECT path, status FROM docs WHERE tier='note'"))
    finally:
        index.close()
    assert set(notes) <= set(indexed)
    assert Counter(indexed.values())["rejected"] == 1


def test_a_rebuild_given_the_passes_of_some_notes_has_the_workers_judge_the_others(shared, monkeypatch):
    """A build handed the gate's pass of some notes (a sync's arrivals) takes those and still has
    the workers read and judge every other note: the main process reads none of them."""
    import pygit2

    from jacked_vault.search.derived import derive
    from jacked_vault.search.passed import Passed
    from jacked_vault.store.audit import content_hash
    from jacked_vault.store.gate import inspect

    laptop, _, _, _ = shared
    for i in range(6):
        add_note(laptop, f"Honest note {i}")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs a second core")
    notes = _arriving_notes(laptop.vault.root)
    rel, oid = sorted(notes.items())[0]
    data = (laptop.vault.root / rel).read_bytes()
    checked = inspect(laptop.vault, rel, data)
    assert checked.note is not None
    made = derive(checked.note.title, checked.note.tags, checked.note.body, True)
    passed = {rel: Passed(pygit2.Oid(hex=oid), len(data), content_hash(data), checked, made)}
    counted = _Counted(monkeypatch, worker=True)
    index = SearchIndex(laptop.vault)
    try:
        index.rebuild(passed=passed)
        indexed = {path for (path,) in index.db.execute("SELECT path FROM docs WHERE tier='note'")}
    finally:
        index.close()
    assert indexed == set(notes) and len(notes) >= 7
    assert not set(counted.read) & set(notes.values())  # the one passed taken, the others read by the workers
    assert counted.calls[rel] == 0
