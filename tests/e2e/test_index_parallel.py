"""A large build judges its notes in a forked worker (search/parallel.py, issue 21.2): the index,
its problems and its verdicts are the ones a build in one process makes; the main process runs
the content rules (the secret scan) only on what the worker refused, and reads from git no note
the worker passed (it takes the worker's bytes, only when they hash to the note's blob id: a
worker handing over other bytes changes nothing); a root cut at its bound
and a big arriving diff come out the same. Real vaults, commits with the git CLI; the bounds are
lowered so a few notes make a "large" build."""

from __future__ import annotations

import os
import random
import string
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import git
from helpers.main_process import (
    main_process_blob_reads,
    main_process_derivations,
    main_process_gate_calls,
    main_process_scans,
)

from jacked_vault.document import render_note
from jacked_vault.search import index as index_module
from jacked_vault.search import parallel
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.mirror import GitMirror
from jacked_vault.store.tombstones import tombstone_hash
from jacked_vault.write.create import build_note

TOKEN = "ghp_" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=36))

pytestmark = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs a second core")


def _note(body: str = "Retry the upload after a timeout.", group: str = "g0", title: str = "A note") -> bytes:
    note = build_note(
        title=title, body=body, kind="note", scope="group", group=group, repos=[], source_harness="tester", origin="mcp"
    )
    return render_note(note)


def _write(root: Path, n: int, start: int = 0) -> list[tuple[str, str, str]]:
    """`n` notes over three groups written into the working tree; their (path, title, body)."""
    made = []
    for i in range(start, start + n):
        rel, title, body = f"groups/g{i % 3}/note/note-{i}.md", f"Arriving note {i}", f"Body {i}: retry after timeout."
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(_note(body, f"g{i % 3}", title))
        made.append((rel, title, body))
    return made


def _state(index: SearchIndex) -> tuple:
    db = index.db
    return (
        db.execute(
            "SELECT path, id, title, status, grp, summary, sha, thash, trust FROM docs ORDER BY path"
        ).fetchall(),
        db.execute("SELECT path, code, message FROM problems ORDER BY path").fetchall(),
        db.execute("SELECT DISTINCT hash FROM tombstones ORDER BY hash").fetchall(),
        db.execute("SELECT prefix, files, bytes, truncated FROM roots ORDER BY prefix").fetchall(),
        db.execute("SELECT * FROM terms_stats").fetchall(),
        db.execute(
            "SELECT d.path, t.title, t.tags, t.body FROM docs_terms t JOIN docs d ON d.rowid = t.rowid ORDER BY d.path"
        ).fetchall(),
    )


def _vault(root: Path) -> str:
    """Notes over three groups, one holding a token, one misplaced, one invalid, one rejected;
    returns the token note's path."""
    made = _write(root, 14)
    (root / "tombstones").mkdir(exist_ok=True)
    (root / "tombstones/m-other.txt").write_text(tombstone_hash(made[5][1], made[5][2]) + "\n")
    secret = "groups/g0/note/a-token.md"
    (root / secret).write_bytes(_note(f"ci uses {TOKEN} now", group="g0"))
    (root / "groups/g1/note/misplaced.md").write_bytes(_note(group="g2"))
    (root / "groups/g2/note/broken.md").write_bytes(b"---\ntitle: [unclosed\n---\n\nbody\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "notes")
    return secret


def _build(ctx, monkeypatch, *, worker: bool) -> tuple[tuple, set[bytes], list[str], list[str]]:
    """A cold build (no index file): its state, verdict keys, the paths whose secret scan ran in
    this (the main) process, and the titles whose text it analysed."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2 if worker else 10**9)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{ctx.vault.state / index_module.INDEX_DB}{suffix}").unlink(missing_ok=True)
    scanned = main_process_scans(monkeypatch)
    derived_here = main_process_derivations(monkeypatch)
    index = SearchIndex(ctx.vault)
    index.refresh()
    keys = {key for (key,) in index.db.execute("SELECT key FROM verdicts")}
    found = (_state(index), keys, sorted(scanned), derived_here)
    index.close()
    return found


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    """Small batches; and the worker allowed although pytest-xdist runs this process with an idle
    reader thread (the rule that keeps other threaded processes from forking is tested below)."""
    monkeypatch.setattr(parallel, "BATCH", 3)
    monkeypatch.setattr(parallel, "AHEAD", 2)
    monkeypatch.setattr(threading, "active_count", lambda: 1)


def test_a_process_with_threads_builds_alone(monkeypatch):
    monkeypatch.undo()
    done = threading.Event()
    thread = threading.Thread(target=done.wait)
    thread.start()
    try:
        assert parallel.workers() == 0
    finally:
        done.set()
        thread.join()


def test_a_build_with_a_worker_is_the_build_without(ctx, monkeypatch):
    secret = _vault(ctx.vault.root)
    alone = _build(ctx, monkeypatch, worker=False)
    shared = _build(ctx, monkeypatch, worker=True)
    assert shared[:2] == alone[:2]
    problems = {path: code for path, code, _ in shared[0][1]}
    assert problems == {
        secret: "SECRET",
        "groups/g1/note/misplaced.md": "MISPLACED",
        "groups/g2/note/broken.md": "INVALID",
        "groups/g2/note/note-5.md": "TOMBSTONED",
    }
    assert len(alone[2]) > 10  # alone, the main process scans every note
    assert shared[2] == [secret]  # with the worker, only the one the worker refused (to say why)
    assert len(alone[3]) == len(shared[0][0]) > 10  # alone, it analyses every note it indexes
    assert shared[3] == []  # with the worker, none: the worker derived them (search/derived.py)


@pytest.mark.parametrize("worker", [True, False], ids=["workers", "alone"])
def test_the_main_process_makes_no_full_collection_while_a_build_judges(ctx, monkeypatch, worker):
    """A full collection scans every object the build keeps (the notes judged so far, all alive),
    so while a build judges (workers or not: `init --from`'s index is built from the passes the
    arrivals kept, with no worker) the main process collects only the young generations; the
    thresholds are its own again after. Here the oldest generation's threshold is 1 (and what the
    test process held before is frozen), so without that every few young collections would make a
    full one."""
    import gc

    _vault(ctx.vault.root)
    _build(ctx, monkeypatch, worker=worker)  # once first: what a build imports is imported (its collections apart)
    full: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2 and os.getpid() == main:
            full.append(info["collected"])

    main, before = os.getpid(), gc.get_threshold()
    gc.freeze()  # what pytest holds is left out of every collection and of the share a full one waits for
    gc.collect()
    gc.set_threshold(20, 2, 1)
    gc.callbacks.append(count)
    try:
        original = GitMirror.catch_up

        def counted(*args, **kwargs):  # the full collections while the index catches up (walk, judging, rows)
            full.clear()
            try:
                return original(*args, **kwargs)
            finally:
                during.extend(full)
                after.append(gc.get_threshold())

        during: list[int] = []
        after: list[tuple[int, int, int]] = []
        monkeypatch.setattr(GitMirror, "catch_up", counted)
        _build(ctx, monkeypatch, worker=worker)
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*before)
        gc.unfreeze()
    assert during == []
    assert after == [(20, 2, 1)]


def test_builds_that_overlap_give_the_oldest_generation_its_threshold_back_once_the_last_ends(monkeypatch):
    """Builds in two threads of a server overlap; the second must not take the first's paused
    threshold for the process's own, or full collections would stay off after both end."""
    import gc

    monkeypatch.setattr(parallel, "workers", lambda: 0)
    before = gc.get_threshold()
    first = parallel.ahead(None, None, [("a", None), ("b", None)], None)  # type: ignore[arg-type]
    second = parallel.ahead(None, None, [("c", None), ("d", None)], None)  # type: ignore[arg-type]
    try:
        assert next(first) == ("a", None) and next(second) == ("c", None)
        assert gc.get_threshold()[2] == parallel.FULL_COLLECTIONS_OFF
        first.close()  # the first ends while the second still judges
        assert gc.get_threshold()[2] == parallel.FULL_COLLECTIONS_OFF
        second.close()
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)


def test_a_root_cut_at_its_bound_is_the_same(ctx, monkeypatch):
    monkeypatch.setattr(index_module, "MAX_ROOT_FILES", 3)
    _vault(ctx.vault.root)
    alone = _build(ctx, monkeypatch, worker=False)
    shared = _build(ctx, monkeypatch, worker=True)
    assert shared[:2] == alone[:2]
    assert any(truncated for *_, truncated in shared[0][3])


def test_a_big_arriving_diff_is_judged_by_the_worker(ctx, monkeypatch):
    root = ctx.vault.root
    _write(root, 2)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "two notes")
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    index = SearchIndex(ctx.vault)
    index.refresh()
    _write(root, 9, start=2)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "nine arrive")
    scanned = main_process_scans(monkeypatch)
    index.refresh()
    caught_up = _state(index)
    assert scanned == []
    assert len(caught_up[0]) == 11
    derived_here = main_process_derivations(monkeypatch)
    index.rebuild()  # the verdicts stay: nothing judged again
    assert _state(index) == caught_up
    assert scanned == []
    assert derived_here == []  # the workers parsed the notes whose verdict is held, and derived them
    index.close()


def _blob_ids(ctx) -> dict[str, str]:
    """blob id -> path of every file in HEAD."""
    listing = git(ctx.vault.root, "ls-tree", "-r", "HEAD").splitlines()
    return {line.split()[2]: line.split("\t", 1)[1] for line in listing}


def test_the_main_process_reads_no_note_the_worker_passed(ctx, monkeypatch):
    secret = _vault(ctx.vault.root)
    paths = _blob_ids(ctx)
    read = main_process_blob_reads(monkeypatch)
    alone = _build(ctx, monkeypatch, worker=False)
    notes_read_alone = {paths[oid] for oid in read if oid in paths and "/note/" in paths[oid]}
    read.clear()
    shared = _build(ctx, monkeypatch, worker=True)
    notes_read = {paths[oid] for oid in read if oid in paths and "/note/" in paths[oid]}
    assert shared[:2] == alone[:2]
    assert len(notes_read_alone) > 10  # alone, the main process reads every note
    # with the workers, only what they did not pass (the secret, the invalid and the misplaced note
    # are judged again here, to say why); the tombstoned one passed their content rules
    assert notes_read == {secret, "groups/g2/note/broken.md"}


_JUDGE = parallel._judge


def _forging_judge(batch):
    """The worker's judgement, handing over other bytes for every note it passed (module level:
    the pool sends it to the worker by name)."""
    return [(*passed[:-1], passed[-1].replace(b"Arriving", b"Forged!!")) for passed in _JUDGE(batch)]


def test_bytes_a_worker_hands_over_count_only_as_the_blob_they_hash_to(ctx, monkeypatch):
    from jacked_vault.store import git as store_git

    _vault(ctx.vault.root)
    alone = _build(ctx, monkeypatch, worker=False)
    monkeypatch.setattr(parallel, "_judge", _forging_judge)
    verdicts_on_forged: list[bool] = []
    plain = store_git.offered_blob

    def offered_blob(offered, oid):
        taken = plain(offered, oid)
        if offered is not None and b"Forged!!" in offered:
            verdicts_on_forged.append(taken is not None)
        return taken

    monkeypatch.setattr(store_git, "offered_blob", offered_blob)
    read = main_process_blob_reads(monkeypatch)
    shared = _build(ctx, monkeypatch, worker=True)
    assert len(verdicts_on_forged) > 10 and not any(verdicts_on_forged)  # the workers handed over forged bytes
    assert shared[:2] == alone[:2]  # the index holds the committed bytes, not the forged ones
    assert not any("Forged" in str(row) for row in shared[0][0])
    assert len(read) > 10  # each note was read from git instead


def _logging_judge(batch):
    """The worker's judgement, each batch's first path appended to the file JUDGED_LOG names
    (module level: the pool sends it to the worker by name)."""
    with open(os.environ["JUDGED_LOG"], "a", encoding="utf-8") as log:
        log.write(batch[0][0] + "\n")
    return _JUDGE(batch)


def test_the_workers_judge_on_while_the_main_process_does_its_own_work_first(ctx, monkeypatch, tmp_path):
    """While `meanwhile` runs (an arrival's audit lines) the main process takes no verdict; held to
    `AHEAD` batches the workers would wait idle until it ends. They judge on (up to
    `AHEAD_MEANWHILE`), and the files still come in their order, each note's verdict offered."""
    import time

    import pygit2

    from jacked_vault.search.mirror import _walk
    from jacked_vault.store.layout import classify_path

    _write(ctx.vault.root, 30)
    git(ctx.vault.root, "add", "-A")
    git(ctx.vault.root, "commit", "-qm", "thirty notes")
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    monkeypatch.setattr(parallel, "_judge", _logging_judge)
    log = tmp_path / "judged.log"
    log.touch()
    monkeypatch.setenv("JUDGED_LOG", str(log))
    repo = pygit2.Repository(str(ctx.vault.root))
    files = sorted(_walk(repo, repo.head.peel(pygit2.Commit).tree, ctx.vault))
    notes = [rel for rel, _ in files if classify_path(ctx.vault, rel) == "note"]
    batches = -(-len(notes) // parallel.BATCH)  # the workers judge the notes, BATCH at a time
    assert batches > parallel.AHEAD + 2 and batches <= parallel.AHEAD_MEANWHILE
    judged_meanwhile: list[int] = []

    def meanwhile() -> None:  # the main process's own work: here, waiting for the workers to judge every batch
        waited = time.monotonic() + 30
        while len(log.read_text().splitlines()) < batches and time.monotonic() < waited:
            time.sleep(0.02)
        judged_meanwhile.append(len(log.read_text().splitlines()))

    index = SearchIndex(ctx.vault)
    handed: dict = {}
    offered: list[str] = []
    try:
        for rel, _entry in parallel.ahead(ctx.vault, repo, files, index.verdicts, handed, meanwhile=meanwhile):
            if rel in handed:
                offered.append(rel)
    finally:
        index.close()
    assert judged_meanwhile == [batches]  # at AHEAD (2 here), the workers would have stopped after 2
    assert offered == notes


@pytest.mark.parametrize("forged", [False, True], ids=["honest", "forged-bytes"])
def test_without_tombstones_the_main_process_takes_the_workers_verdicts_as_values(ctx, monkeypatch, forged):
    """A store with no tombstone: the gate's verdict a worker reached on a note's bytes is its
    whole verdict here, so the main process does not consult the gate on them again (only on
    what the worker refused, to say why; or on bytes that are not the note's blob)."""
    root = ctx.vault.root
    made = _write(root, 12)
    secret = "groups/g0/note/a-token.md"
    (root / secret).write_bytes(_note(f"ci uses {TOKEN} now", group="g0"))
    (root / "groups/g1/note/misplaced.md").write_bytes(_note(group="g2"))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "notes")
    alone = _build(ctx, monkeypatch, worker=False)
    if forged:
        monkeypatch.setattr(parallel, "_judge", _forging_judge)
    calls = main_process_gate_calls(monkeypatch)
    shared = _build(ctx, monkeypatch, worker=True)
    assert shared[:2] == alone[:2]
    refused = {secret: "SECRET", "groups/g1/note/misplaced.md": "MISPLACED"}
    assert {path: code for path, code, _ in shared[0][1]} == refused
    passed = {rel for rel, _, _ in made}
    assert {rel: calls[rel] for rel in passed} == dict.fromkeys(passed, 1 if forged else 0)
    assert calls[secret] == calls["groups/g1/note/misplaced.md"] == 1


def test_with_a_tombstone_the_main_process_judges_what_the_workers_passed(ctx, monkeypatch):
    """A tombstone in the store: the workers judge without it, so the gate here judges each note
    (finding the workers' content verdict and parse)."""
    _vault(ctx.vault.root)
    calls = main_process_gate_calls(monkeypatch)
    _build(ctx, monkeypatch, worker=True)
    notes = [rel for rel in calls if "/note/" in rel]
    assert len(notes) > 10 and all(calls[rel] == 1 for rel in notes)


# A whole process: what this one (pytest) imported already would hide what a worker imports.
_WORKER_IMPORTS = """
import sys
from pathlib import Path
from jacked_vault.search import parallel
from jacked_vault.search.index import SearchIndex
from jacked_vault.store.layout import Store

parallel.PARALLEL_MIN, parallel.BATCH = 2, 3
judge = parallel._judge


def _judge(batch):
    before = set(sys.modules)
    judged = judge(batch)
    with open(sys.argv[2], "a") as out:
        out.writelines(f"{name}\\n" for name in sorted(set(sys.modules) - before))
    return judged


_judge.__module__, _judge.__qualname__ = parallel.__name__, "_judge"  # sent to the workers by this name
parallel._judge = _judge
index = SearchIndex(Store(Path(sys.argv[1])))
index.refresh()
print(index.read.count())
"""


def test_a_worker_imports_nothing_while_it_judges(ctx, tmp_path):
    """The modules a worker's judgement uses are loaded before the fork: once, not once a worker."""
    _write(ctx.vault.root, 12)
    git(ctx.vault.root, "add", "-A")
    git(ctx.vault.root, "commit", "-qm", "notes")
    imported = tmp_path / "imported.txt"
    proc = subprocess.run(
        [sys.executable, "-c", _WORKER_IMPORTS, str(ctx.vault.root), str(imported)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) == 12 and imported.exists()  # built, with the workers judging
    assert imported.read_text() == ""
