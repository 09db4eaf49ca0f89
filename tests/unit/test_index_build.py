"""The index build's bulk paths (issue 21.2): a whole tree, and a diff that adds more files than the
index holds, are inserted without the secondary indexes, which are made again at the end; the
result is the same index a rebuild makes, tombstones included. Real vaults, commits made with the
git CLI as another machine's arrive."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git

from jacked_vault.document import render_note
from jacked_vault.search import index as index_module
from jacked_vault.search.index import SearchIndex
from jacked_vault.store.tombstones import tombstone_hash
from jacked_vault.write.create import build_note


def _write(root: Path, n: int, start: int = 0) -> list[tuple[str, str]]:
    """`n` notes written into the working tree; their (path, title, body)."""
    made = []
    for i in range(start, start + n):
        title, body = f"Arriving note {i}", f"Body {i}: retry the upload after a timeout."
        note = build_note(
            title=title,
            body=body,
            kind="note",
            scope="group",
            group=f"g{i % 3}",
            repos=[],
            source_harness="tester",
            origin="mcp",
        )
        rel = f"groups/g{i % 3}/note/arriving-note-{i}.md"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(render_note(note))
        made.append((rel, title, body))
    return made


def _state(index: SearchIndex) -> tuple:
    db = index.db
    return (
        db.execute("SELECT path, id, title, status, grp, summary, sha, thash FROM docs ORDER BY path").fetchall(),
        db.execute("SELECT path, code FROM problems ORDER BY path").fetchall(),
        db.execute("SELECT DISTINCT hash FROM tombstones ORDER BY hash").fetchall(),
        db.execute(
            "SELECT prefix, files, bytes, truncated FROM roots WHERE files > 0 OR truncated ORDER BY prefix"
        ).fetchall(),  # a build also lists empty roots
        db.execute("SELECT * FROM terms_stats").fetchall(),
    )


def _secondary(index: SearchIndex) -> set[str]:
    return {
        name
        for (name,) in index.db.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND name NOT LIKE 'sqlite_%'"
        )
    }


@pytest.mark.parametrize("bulk", [2, 10_000])  # over the bound: the bulk path; under it: one insert at a time
def test_a_big_diff_gives_the_index_a_rebuild_gives(ctx, monkeypatch, bulk: int):
    monkeypatch.setattr(index_module, "BULK_DIFF", bulk)
    root = ctx.vault.root
    _write(root, 2)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "two notes")
    index = SearchIndex(ctx.vault)
    index.refresh()
    made = _write(root, 6, start=2)
    rel, title, body = made[3]  # rejected on another machine: its tombstone arrives in the same commit
    (root / "tombstones").mkdir(exist_ok=True)
    (root / "tombstones/m-other.txt").write_text(tombstone_hash(title, body) + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "six notes and a rejection")
    index.refresh()
    caught_up = _state(index)
    assert (rel, "TOMBSTONED") in caught_up[1]
    assert len([d for d in caught_up[0] if d[0].startswith("groups/")]) == 7
    assert _secondary(index) >= set(index_module._SECONDARY)
    index.rebuild()
    assert _state(index) == caught_up
    assert _secondary(index) >= set(index_module._SECONDARY)
    index.close()


@pytest.mark.parametrize("packed", [False, True])
def test_one_read_gives_a_blob_and_its_size_and_none_over_the_cap(tmp_path: Path, packed: bool):
    """`store.git.read_capped` (what a build reads each file with): the blob's size and bytes, the
    bytes None over the cap; loose (inflated here) or packed (libgit2)."""
    from jacked_vault.store.git import open_repo, read_blob, read_capped

    git(tmp_path, "init", "-q")
    (tmp_path / "a.md").write_bytes(b"x" * 100)
    git(tmp_path, "add", "a.md")
    git(tmp_path, "commit", "-qm", "a")
    if packed:
        git(tmp_path, "gc", "-q")
    oid = git(tmp_path, "rev-parse", "HEAD:a.md").strip()
    assert (tmp_path / ".git" / "objects" / oid[:2] / oid[2:]).exists() is not packed
    repo = open_repo(tmp_path)
    assert read_capped(repo, oid, 1000) == (100, b"x" * 100) == (100, read_blob(repo, oid))
    assert read_capped(repo, oid, 99) == (100, None)


def test_a_whole_tree_build_asks_no_query_a_note_and_gives_what_one_insert_at_a_time_gives(ctx, monkeypatch):
    """A bulk insert holds the tombstoned values in memory (the gate's tombstone rule then asks no
    query of each note) and writes the rows of the tables beside `docs` (links, wikilinks, names,
    targets, values) once at its end, and each document's own rows (docs, its FTS5 text, its
    analysed fields) a few documents at a time, with the rowids SQLite gives them one at a time;
    the index is the one the inserts one at a time make."""
    monkeypatch.setattr(index_module, "WIDE_BATCH", 5)  # 12 notes: written in three goes
    root = ctx.vault.root
    made = _write(root, 12)
    rel, title, body = made[4]
    (root / "tombstones").mkdir(exist_ok=True)
    (root / "tombstones/m-other.txt").write_text(tombstone_hash(title, body) + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "twelve notes and a rejection")
    index = SearchIndex(ctx.vault)
    statements: list[str] = []
    index.db.set_trace_callback(statements.append)
    index.rebuild()
    index.db.set_trace_callback(None)
    assert not [s for s in statements if s.startswith("SELECT hash, source FROM tombstones WHERE hash=")][1:]
    last_doc = max(n for n, s in enumerate(statements) if s.startswith("INSERT INTO docs("))
    for table in ("note_names", "doc_targets"):  # every note has rows there
        rows = [n for n, s in enumerate(statements) if s.startswith(f"INSERT INTO {table}(")]
        assert rows and min(rows) > last_doc, table
    built = (
        _state(index),
        index.db.execute(
            "SELECT (SELECT COUNT(*) FROM note_names), (SELECT COUNT(*) FROM doc_targets), (SELECT COUNT(*) FROM links)"
        ).fetchone(),
        index.db.execute("SELECT rowid, path FROM docs ORDER BY rowid").fetchall(),
    )
    assert (rel, "TOMBSTONED") in built[0][1]
    bulk = SearchIndex._bulk  # the whole tree again, one insert at a time (no index was, so no diff)
    monkeypatch.setattr(SearchIndex, "_bulk", lambda self, many: bulk(self, False))
    index.db.execute("DELETE FROM meta WHERE key='commit'")
    index._reset(index.db)
    index.close()
    one_by_one = SearchIndex(ctx.vault)
    one_by_one.refresh()
    assert (
        _state(one_by_one),
        one_by_one.db.execute(
            "SELECT (SELECT COUNT(*) FROM note_names), (SELECT COUNT(*) FROM doc_targets), (SELECT COUNT(*) FROM links)"
        ).fetchone(),
        one_by_one.db.execute("SELECT rowid, path FROM docs ORDER BY rowid").fetchall(),
    ) == built
    one_by_one.close()


def test_a_documents_json_lists_are_what_json_dumps_writes():
    """docs.tags, repos and targets: written without making an encoder, byte for byte json.dumps'."""
    import json
    import random

    pick = random.Random(3)
    letters = [chr(c) for c in range(0x300)] + ["\u2028", "\ud800", "\U0001f600", '"', "\\", "/"]
    for _ in range(5000):
        items = tuple("".join(pick.choices(letters, k=pick.randint(0, 8))) for _ in range(pick.randint(0, 4)))
        assert index_module._json_list.__wrapped__(items) == json.dumps(list(items))
