"""Arrivals are judged ahead in a forked worker when many notes come at once (issue 21.3,
sync/arrivals.py over search/parallel.py): `init --from` and `sync` take, quarantine and index
exactly what they do in one process, and the main process runs the content rules (the secret
scan) only on the arrivals the worker refused, to say why, and reads from git no arriving note
the worker passed (it takes the bytes the worker read, which hash to the note's blob). Real
vaults, a real bare remote, the hostile commits made with plain git; the worker's bounds are
lowered so a few notes count."""

from __future__ import annotations

import os
import random
import string
import subprocess
import threading
from pathlib import Path

import pytest
from helpers import sync_world
from helpers.main_process import main_process_blob_reads, main_process_scans
from helpers.sync_world import add_note, push_from

from jacked_vault.document import render_note
from jacked_vault.search import parallel
from jacked_vault.search.index import SearchIndex
from jacked_vault.store.layout import Store
from jacked_vault.sync import sync
from jacked_vault.sync.clone import clone_vault
from jacked_vault.write.create import build_note

shared = sync_world.shared  # (laptop, desktop, hostile clone, remote)
TOKEN = "ghp_" + "".join(random.Random(11).choices(string.ascii_letters + string.digits, k=36))
SECRET = "groups/tools/note/a-token.md"
UNAUDITED = "groups/tools/note/planted.md"
MISPLACED = "groups/other/note/misplaced.md"

pytestmark = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs a second core")


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    """Small batches; the worker allowed although pytest-xdist runs this process with an idle
    reader thread (tests/e2e/test_index_parallel.py tests the rule that keeps threaded processes alone)."""
    monkeypatch.setattr(parallel, "BATCH", 2)
    monkeypatch.setattr(parallel, "AHEAD", 2)
    monkeypatch.setattr(threading, "active_count", lambda: 1)


def _rendered(title: str, body: str, group: str = "tools") -> str:
    note = build_note(
        title=title, body=body, kind="note", scope="group", group=group, repos=[], source_harness="x", origin="cli"
    )
    return render_note(note).decode()


def _hostile_push(laptop, hostile: Path) -> None:
    """Honest notes with their audit lines (pushed by the laptop), then by hand: a note holding a
    token, one without an audit line, and one whose folder names another group."""
    from jacked_vault.sync import push

    for i in range(6):
        add_note(laptop, f"Honest note {i}", body=f"Retry the upload {i} times after a timeout.")
    push(laptop)
    import subprocess

    subprocess.run(["git", "-C", str(hostile), "pull", "-q", "--no-rebase", "origin", "main"], check=True)
    push_from(
        hostile,
        {
            SECRET: _rendered("A token", f"ci uses {TOKEN} now"),
            UNAUDITED: _rendered("Planted", "No audit line."),
            MISPLACED: _rendered("Misplaced", "Its folder says another group.", group="tools"),
        },
        "by hand",
    )


def _indexed(root: Path) -> list[tuple]:
    index = SearchIndex(Store(root))
    try:
        return index.db.execute("SELECT path, id, title, trust, sha FROM docs ORDER BY path").fetchall()
    finally:
        index.close()


def _clone(remote: Path, into: Path, monkeypatch, *, worker: bool):
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2 if worker else 10**9)
    scanned = main_process_scans(monkeypatch)
    done = clone_vault(f"file://{remote}", into, harness="tester")
    quarantined = sorted((q["path"], q["code"]) for q in done.quarantined)
    return quarantined, _indexed(into), [rel for rel in scanned if rel and rel.startswith("groups/")]


def test_init_from_with_a_worker_takes_what_it_takes_alone(shared, tmp_path, monkeypatch):
    laptop, _, hostile, remote = shared
    _hostile_push(laptop, hostile)
    alone = _clone(remote, tmp_path / "alone", monkeypatch, worker=False)
    shared_work = _clone(remote, tmp_path / "shared", monkeypatch, worker=True)
    assert shared_work[:2] == alone[:2]
    assert alone[0] == sorted([(SECRET, "SECRET"), (UNAUDITED, "UNAUDITED"), (MISPLACED, "MISPLACED")])
    assert any(path.endswith("honest-note-5.md") for path, *_ in alone[1])
    assert not any(path in (SECRET, UNAUDITED, MISPLACED) for path, *_ in alone[1])
    assert len(set(alone[2])) >= 8  # alone, the main process scans every arriving note
    assert sorted(set(shared_work[2])) == [SECRET]  # with the worker, only the one it refused (to say why)


def test_sync_with_a_worker_takes_what_it_takes_alone(shared, monkeypatch):
    laptop, desktop, hostile, _ = shared
    _hostile_push(laptop, hostile)
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    scanned = main_process_scans(monkeypatch)
    read = main_process_blob_reads(monkeypatch)
    result = sync(desktop)
    arriving = dict(
        line.split(" ", 2)[2].split("\t")[::-1]
        for line in subprocess.run(
            ["git", "-C", str(hostile), "ls-tree", "-r", "HEAD", "groups"], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    )  # path -> blob id
    read_here = {path for path, oid in arriving.items() if oid in read and "/note/" in path}
    assert len(arriving) > 8
    assert read_here == {SECRET, UNAUDITED, MISPLACED}  # the honest notes only in the workers; the quarantined again
    assert sorted((q["path"], q["code"]) for q in result.quarantined) == sorted(
        [(SECRET, "SECRET"), (UNAUDITED, "UNAUDITED"), (MISPLACED, "MISPLACED")]
    )
    root = desktop.vault.root
    assert all((root / f"groups/tools/note/honest-note-{i}.md").is_file() for i in range(6))
    assert not any((root / rel).exists() for rel in (SECRET, UNAUDITED, MISPLACED))
    assert sorted({rel for rel in scanned if rel and rel.startswith("groups/") and "/note/" in rel}) == [SECRET]
