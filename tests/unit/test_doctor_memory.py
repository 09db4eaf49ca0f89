"""Issue 21.4: doctor in bounded memory. Its working-tree status and its git-index-vs-HEAD check
run in git's own process (`store.git.status_changes`, `git diff-index --cached`): libgit2's
status of a whole tree and its diff of the whole git index were held in ours (~20 MB and ~30 MB
at 100k notes). Here libgit2's two calls fail if reached, and doctor still finds a stray file,
a missing note and a git index out of step with HEAD. Real vault, real git."""

from __future__ import annotations

import pygit2
from conftest import git

from jacked_vault.doctor import doctor
from jacked_vault.notes import AddRequest, add


def _unreachable(*_args, **_kwargs):
    raise AssertionError("doctor asked libgit2 for a whole-tree status or index diff")


def test_doctor_finds_changes_without_libgit2_status(ctx, monkeypatch):
    kept = add(ctx, AddRequest(title="Kept note", body="Stays.", group="g")).rel
    gone = add(ctx, AddRequest(title="Gone note", body="Deleted by hand.", group="g")).rel
    unstaged = add(ctx, AddRequest(title="Unstaged note", body="Out of git's index.", group="g")).rel
    root = ctx.vault.root
    (root / "groups/g/note/stray.md").write_text("not made by jacked\n")
    (root / gone).unlink()
    git(root, "rm", "-q", "--cached", unstaged)
    monkeypatch.setattr(pygit2.Repository, "status", _unreachable)
    monkeypatch.setattr(pygit2.Index, "diff_to_tree", _unreachable)

    report = doctor(ctx)

    uncommitted = {item["path"]: item for item in report.to_json()["uncommitted"]}
    assert {path: item["state"] for path, item in uncommitted.items()} == {
        "group:groups/g/note/stray.md": "new",
        f"group:{gone}": "missing",
    }  # not the kept note, nor the one only git's index lost (its file is HEAD's)
    assert f"group:{kept}" not in uncommitted
    assert report.git_index_stale == [f"group:{unstaged}"], report.git_index_stale


def test_doctor_reuses_the_index_and_reads_no_note_object(ctx, monkeypatch):
    """Issue 34.4: with the index current for HEAD, plain doctor takes the gate's verdicts from it:
    no note is judged again and no note's git object is read (each is only checked to be there);
    `--full` reads every object of the tree."""
    from jacked_vault.store import gate
    from jacked_vault.store import git as store_git

    added = [add(ctx, AddRequest(title=f"Note {n}", body=f"body {n}", group="g")).rel for n in range(3)]
    repo = pygit2.Repository(str(ctx.vault.root))
    tree = repo.head.peel().tree
    notes = {str(tree[rel].id) for rel in added}
    read: list[str] = []
    loose = store_git.loose_object

    def counted(path, hexsha, **kw):
        read.append(hexsha)
        return loose(path, hexsha, **kw)

    monkeypatch.setattr(store_git, "loose_object", counted)
    monkeypatch.setattr(gate, "inspect", _unreachable)

    report = doctor(ctx)

    assert report.ok and report.memory_count == 3, report.to_json()
    assert read and not notes & set(read), read  # the trees, vault.json and index.md: read; the notes: not
    read.clear()
    assert doctor(ctx, full=True).ok
    assert notes <= set(read), read


def test_digests_hold_each_string_in_about_eight_bytes_and_answer_as_a_set():
    """doctor remembers every audit line's hash per machine (`store.digests.Digests`): at 200k
    lines a set of ints held ~23 MB of doctor's peak; an array kept sorted holds 8 bytes each."""
    import tracemalloc
    from array import array

    from jacked_vault.store.digests import Digests, digest

    lines = [f"line {n}" for n in range(100_000)]
    tracemalloc.start()
    try:
        held = Digests()
        held.add_digests(array("Q", map(digest, lines)))
        held.add_digests(array("Q", map(digest, lines[:10])))  # again: still one each
        assert "line 99999" in held  # asked once: sorted, duplicates dropped
        size = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert size < 2_000_000, size
    assert len(held) == 100_000 and held
    assert "line 100000" not in held and 5 not in held
    held.add("line 100000")  # added after a question: asked again, it is there
    assert "line 100000" in held and len(held) == 100_001
    assert not Digests() and "x" not in Digests()
