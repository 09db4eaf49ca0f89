"""The derived search index: SQLite FTS5 in `<store>/.git/jacked/index.sqlite`, fed from git.

The index mirrors the committed tree of a store, and only what passes the gate
(`store.gate.inspect`): invalid, misplaced, secret-bearing, tombstoned and symlinked files are
kept as `problems` (quarantined: diagnosed, never recalled). It remembers which commit it
reflects and catches up by diffing that commit's tree against HEAD, so a refresh after one
create reads one blob. `rebuild()` starts from scratch; deleting the file loses nothing.

Bounds (the same on a rebuild and on an incremental refresh, so a vault always gives the same
answer): each scope root (a group, `strategy/`, a project store) is indexed up to
`MAX_ROOT_FILES` files and `MAX_ROOT_BYTES` bytes; a root over a bound is indexed by sorted
path up to it and marked truncated (and is then re-indexed whole whenever it changes).
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager, nullcontext
from dataclasses import replace
from functools import lru_cache
from itertools import islice
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING

from jacked_vault.errors import VaultError
from jacked_vault.search import wikilinks
from jacked_vault.search.derived import Derived, derive
from jacked_vault.search.entries import Entry
from jacked_vault.search.proofs import ReviewProofs, review_json
from jacked_vault.search.readmodel import ReadModel
from jacked_vault.search.schema import TABLES, reset, set_meta
from jacked_vault.search.schema import INDEX_DB as INDEX_DB  # where the file is, as callers have read it
from jacked_vault.search.schema import SECONDARY as _SECONDARY
from jacked_vault.search.verdicts import Verdicts
from jacked_vault.search.treediff import FILE_MODES, SYMLINK_MODE, TREE_MODE, changed_entries
from jacked_vault.store.git import fast_head
from jacked_vault.store.progress import PROGRESS_STEP
from jacked_vault.store.layout import (
    ARCHIVE_DIR,
    GROUPS_DIR,
    USER_SCOPE_DIR,
    Store,
    classify_episodic,
    classify_hot,
    classify_path,
    searchable_episodic,
)

if TYPE_CHECKING:
    from jacked_vault.document import Note
    from jacked_vault.store.progress import Progress
    from jacked_vault.store.deadline import Deadline
    from jacked_vault.search.passed import Passed
    from jacked_vault.store.gate import Checked
    from jacked_vault.store.tombstones import Stones
    from jacked_vault.store.reviews import Provenance

MAX_ROOT_FILES = 200_000  # 4x a big team's 50k-note group (bench_cli); beyond it reads fail as INCOMPLETE
MAX_ROOT_BYTES = 1024 * 1024 * 1024
INDEXED_KINDS = frozenset({"note", "hot", "episodic", "tombstones"})
BULK_DIFF = 2000  # a diff adding more files than this, and than the index holds, is inserted as a bulk build


def root_of(store: Store, rel: str) -> str:
    """The scope root a path belongs to (bounds are kept per root): a group folder, `strategy`,
    the project store (``), or `tombstones`."""
    if store.is_project:
        return ""
    parts = rel.split("/")
    if parts[0] == GROUPS_DIR and len(parts) > 2:
        return f"{GROUPS_DIR}/{parts[1]}"
    return parts[0]


def _indexable(store: Store, rel: str) -> bool:
    return classify_path(store, rel) in INDEXED_KINDS


def _save_roots(db: sqlite3.Connection, rows: list[tuple[str, int, int]]) -> None:
    """Add (root, files, bytes) to the scope roots' totals."""
    db.executemany(
        "INSERT INTO roots(prefix, files, bytes) VALUES(?, ?, ?) ON CONFLICT(prefix) DO UPDATE SET"
        " files = files + excluded.files, bytes = bytes + excluded.bytes",
        rows,
    )


# The tables beside docs a document adds rows to (nothing reads them while a bulk insert runs).
_LINKS = "INSERT INTO links(src, dst) VALUES(?,?)"
_TARGETS = "INSERT INTO doc_targets(doc, target) VALUES(?,?)"
_VALUES = "INSERT INTO doc_values(doc, hash) VALUES(?, ?)"
_BESIDE = (_LINKS, wikilinks.WIKILINKS, wikilinks.NAMES, _TARGETS, _VALUES)


# A document's own rows (docs, its text for FTS5, its analysed fields): a bulk insert writes them
# `WIDE_BATCH` documents at a time (they hold its text), the rowids counted from the table's next.
_COLUMNS = (
    "path, root, id, title, kind, scope, grp, status, trust, claim, review, origin, tier, tags, repos, targets,"
    " valid_from, valid_until, created_at, updated_at, summary, sha, thash, size"
)
_DOC = f"INSERT INTO docs({_COLUMNS}) VALUES({','.join('?' * 24)})"
_DOCS = f"INSERT INTO docs(rowid, {_COLUMNS}) VALUES({','.join('?' * 25)})"  # a bulk insert's, rowids given
_FTS = "INSERT INTO docs_fts(rowid, title, tags, body) VALUES(?,?,?,?)"
WIDE_BATCH = 500


class _Tally:
    """A bulk insert's totals (the scope roots', ranking's), kept here and written once: nothing
    reads them until the insert ends (`SearchIndex._bulk`); and its documents' own rows, written
    `WIDE_BATCH` at a time (nothing reads those either), each with the rowid SQLite would give it."""

    def __init__(self, stones: set[str], rowid: int) -> None:
        from jacked_vault.search.ranking import TERMS

        self.roots: dict[str, list[int]] = {}
        self.terms = [0, 0, 0, 0]  # ranking.add_doc's: documents, title, tags and body terms
        self.stones = stones  # every hash in the tombstones table (a value not here has no tombstone)
        self.rows: dict[str, list[tuple]] = {sql: [] for sql in _BESIDE}  # the rows of the tables beside docs
        self.wide: dict[str, list[tuple]] = {sql: [] for sql in (_DOCS, _FTS, TERMS)}
        self.rowid = rowid  # the next document's (docs is a rowid table: max + 1, and only this insert adds to it)

    def document(self, db: sqlite3.Connection, row: tuple, text: tuple[str, str, str]) -> int:
        """Add one document's docs row (without its rowid) and its text for FTS5; returns its rowid."""
        rowid, self.rowid = self.rowid, self.rowid + 1
        self.wide[_DOCS].append((rowid, *row))
        self.wide[_FTS].append((rowid, *text))
        if len(self.wide[_DOCS]) >= WIDE_BATCH:
            self.flush(db)
        return rowid

    def flush(self, db: sqlite3.Connection) -> None:
        for sql, rows in self.wide.items():
            db.executemany(sql, rows)
            rows.clear()

    def count(self, root: str, files: int, size: int) -> None:
        totals = self.roots.setdefault(root, [0, 0])
        totals[0] += files
        totals[1] += size

    def save(self, db: sqlite3.Connection) -> None:
        from jacked_vault.search import ranking

        self.flush(db)
        for sql, rows in self.rows.items():
            db.executemany(sql, rows)
        _save_roots(db, [(root, files, size) for root, (files, size) in self.roots.items()])
        if self.terms[0]:
            ranking.add_totals(db, self.terms[0], self.terms[1:])


class SearchIndex(ReadModel):
    """The FTS5 index of one store: its reads (`ReadModel`), kept a mirror of git here."""

    def __init__(self, store: Store, progress: Progress | None = None) -> None:
        super().__init__(store)
        self.proofs = ReviewProofs(self)  # what each `reviewed` shown is backed by
        self._progress = progress
        self._to_index: int | None = None  # the files of a whole-tree build (what progress counts toward)
        self._read = 0  # of those, read so far
        self._verdicts: Verdicts | None = None
        self._derived: dict[str, tuple[object, Derived]] = {}  # path -> a worker's parse and its Derived (a build)
        self._blobs: dict[str, bytes] = {}  # path -> the bytes a worker read for it (taken when they are its blob)
        self._passes: dict[str, tuple[bytes, Note]] = {}  # path -> (verdict key, parse) of bytes a worker passed whole
        self._passed: dict[str, Passed] = {}  # path -> the gate's pass of its blob, judged already (a rebuild's)
        self._tally: _Tally | None = None  # a bulk insert's totals, written once at its end (`_bulk`)

    _reset = staticmethod(reset)  # empty the index file (its verdicts kept): search/schema.py

    @property
    def verdicts(self) -> Verdicts:
        """This machine's gate verdicts (hand them to `store.gate.inspect`, then `save()` them)."""
        if self._verdicts is None:
            self._verdicts = Verdicts(self.db)
        return self._verdicts

    def close(self) -> None:
        self._verdicts = None
        super().close()

    def _set_meta(self, key: str, value: str) -> None:
        set_meta(self.db, key, value)

    # -- keeping up with git ----------------------------------------------------------------

    def refresh(self) -> None:
        """Bring the index up to HEAD: nothing to do if current (no pygit2 import), else a diff;
        and to this machine's review-signing policy."""
        head = fast_head(self.store.root)
        if head is None or head != self._meta("commit"):
            self._catch_up()
        self.proofs.follow_policy()

    def behind(self, limit: int) -> int:
        """How many files HEAD changed since the commit this index mirrors (every file of HEAD when
        there is none), counted up to `limit` + 1 and no further: 0 when current."""
        from itertools import islice

        from jacked_vault.store.git import head_commit, open_repo

        indexed = self._meta("commit")
        if fast_head(self.store.root) in (None, indexed):
            return 0
        repo = open_repo(self.store.root)
        commit = head_commit(repo)
        if commit is None:
            return 0
        changed = changed_entries(repo, _tree_or_none(repo, indexed), commit.tree)
        return sum(1 for _ in islice(changed, limit + 1))

    def rebuild(self, progress: Progress | None = None, passed: dict[str, Passed] | None = None) -> int:
        """Drop everything and index the whole HEAD tree (`progress`: told as it goes); returns the
        number of notes indexed. `passed`: path -> the gate's pass (`search.passed.Passed`) of a file
        judged already (an arrival), taken for that very blob instead of reading and judging it
        again (the index's own rules, bounds and tombstone sweep still apply); emptied."""
        if progress is not None:
            self._progress = progress
        self._reset(self.db)
        self._passed = passed if passed is not None else {}
        try:
            self._catch_up()
        finally:
            self._passed = {}
        return self.count()

    def _catch_up(self) -> None:
        from jacked_vault.store.git import head_commit, open_repo

        repo = open_repo(self.store.root)
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            commit = head_commit(repo)
            indexed = self._meta("commit")
            head = str(commit.id) if commit is not None else ""
            self.proofs.head = head
            if indexed != head:
                old_tree = _tree_or_none(repo, indexed)
                if commit is None or old_tree is None:
                    self._clear()
                    if commit is not None:
                        self._index_tree(repo, commit.tree)
                else:
                    self._apply_diff(repo, old_tree, commit.tree)
                self._set_meta("commit", head)
            self.verdicts.save()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        finally:
            self.verdicts.release()

    def reread(self, rels: Iterable[str]) -> None:
        """Index again the committed files at `rels` (HEAD's; the index is at HEAD): those whose git
        object it could not read, since restored (`doctor`)."""
        from jacked_vault.store.git import head_commit, open_repo

        repo = open_repo(self.store.root)
        commit = head_commit(repo)
        if commit is None or str(commit.id) != self._meta("commit"):
            return
        self.proofs.head = str(commit.id)
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for rel in rels:
                self._forget(rel)
                entry = commit.tree[rel]
                self._index_entry(repo, rel, entry)
            self.verdicts.save()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def apply_commit(self, parent: str | None, head: str, files: dict[str, bytes | None]) -> bool:
        """Catch up with a commit whose changes are known (a write transaction's own) without
        reading git: True when applied; False (nothing changed) when the index was not at
        `parent`, a scope root reaches a bound or the tombstone set shrank — then `refresh()`."""
        from jacked_vault.store.gate import cap_for

        if (self._meta("commit") or "") != (parent or ""):
            return False
        self.proofs.head = head
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            before = self.stones()
            touched: set[str] = set()
            for rel, data in files.items():
                kind = classify_path(self.store, rel)
                if kind not in INDEXED_KINDS and not self._known(rel):
                    continue
                touched.add(root_of(self.store, rel))
                self._forget(rel)
                if data is None or kind not in INDEXED_KINDS:
                    continue
                if len(data) > cap_for(kind):
                    self._problem(
                        rel, "TOO_LARGE", f"{rel}: {len(data)} bytes is over the {cap_for(kind)}-byte cap", len(data)
                    )
                else:
                    self._index_bytes(rel, kind, data)
            if any(self._over_bounds(root) for root in touched) or not before.within(self.stones()):
                db.execute("ROLLBACK")
                return False
            self._sweep_added_tombstones(before, self._head_blob)
            self._set_meta("commit", head)
            self.verdicts.save()
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _clear(self) -> None:
        for table in TABLES[:-1]:  # all but meta
            self.db.execute(f"DELETE FROM {table}")
        self.db.execute("DELETE FROM meta WHERE key='reviews'")

    def _index_tree(self, repo, tree) -> None:
        """Index every indexable file of a full tree: tombstones first, then each scope root. The
        secondary indexes are dropped for the bulk insert and made again once (a sort each)."""
        from jacked_vault.search.parallel import ahead

        files = sorted(_walk(repo, tree, self.store))
        self._to_index = len(files)
        by_root: dict[str, list] = {}
        for rel, entry in files:
            by_root.setdefault(root_of(self.store, rel), []).append((rel, entry))
        roots = sorted(by_root, key=lambda r: r != "tombstones")
        ordered = [item for root in roots for item in by_root[root]]
        judged = nullcontext(iter(ordered))  # judged already (`rebuild`): nothing for workers to do
        with self._bulk(True), (
            judged
            if self._passed
            else closing(
                ahead(self.store, repo, ordered, self.verdicts, self._derived, blobs=self._blobs, passes=self._passes)
            )
        ) as items:
            for root in roots:
                self._index_root(repo, root, islice(items, len(by_root[root])))
        if self._progress is not None:
            self._progress(len(files), len(files))  # every file read (a root past its bound: skipped)
        from jacked_vault.store.tombstones import Stones

        self._sweep_tombstones(repo, tree, Stones())

    @contextmanager
    def _bulk(self, many: bool) -> Iterator[None]:
        """With `many` (a whole tree, or a diff adding more than the index holds), insert without
        the secondary indexes and make them again once at the end (a sort each)."""
        if not many:
            yield
            return
        self.verdicts.known()  # read once: no query per note
        for name in _SECONDARY:
            self.db.execute(f"DROP INDEX IF EXISTS {name}")
        stones = {h for (h,) in self.db.execute("SELECT DISTINCT hash FROM tombstones")}
        self._tally = _Tally(stones, self.db.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM docs").fetchone()[0])
        try:
            yield
            self._tally.save(self.db)
        finally:
            self._tally = None
            for statement in _SECONDARY.values():
                self.db.execute(statement)

    def _index_root(self, repo, root: str, files: Iterable) -> None:
        """Index one scope root's files in path order, up to the bounds (then mark it truncated);
        `files` is read to its end either way."""
        count = total = 0
        truncated = False
        for rel, entry in files:
            passed = self._passed.pop(rel, None)
            if passed is not None and passed.oid != entry.id:
                passed = None
            mode = entry.filemode if passed is None else None  # pygit2 makes an enum each time it is asked
            blob = (passed.size, None) if passed is not None else self._blob(repo, rel, entry, mode)
            count += 1  # noqa: SIM113 - counts the files read so far, against MAX_ROOT_FILES
            total += blob[0]
            if count > MAX_ROOT_FILES or total > MAX_ROOT_BYTES:
                truncated = True
                deque(files, maxlen=0)
                break
            if passed is not None:
                self._index_checked(rel, passed.checked, passed.sha, passed.size, passed.derived)
            else:
                self._index_entry(repo, rel, entry, blob, mode)
            self._read += 1
            if self._progress is not None and self._read % PROGRESS_STEP == 0:
                self._progress(self._read, self._to_index)
        self.db.execute(
            "INSERT INTO roots(prefix, truncated) VALUES(?, ?) ON CONFLICT(prefix) DO UPDATE SET truncated = "
            "excluded.truncated",
            (root, int(truncated)),
        )

    def _apply_diff(self, repo, old_tree, new_tree) -> None:
        """Forget every changed path, then index what the new tree holds there: tombstone files
        first (as a whole-tree build does), then the rest in path order."""
        from jacked_vault.search.parallel import ahead

        touched: set[str] = set()
        before = self.stones()
        added: list[tuple[bool, str, object]] = []
        changed = list(changed_entries(repo, old_tree, new_tree))
        indexed = self._known_of([rel for rel, _ in changed])
        for rel, entry in changed:
            kind = classify_path(self.store, rel)
            known = rel in indexed
            if kind not in INDEXED_KINDS and not known:
                continue
            touched.add(root_of(self.store, rel))
            if known or kind == "tombstones":  # a tombstone file has rows by its path, never a document
                self._forget(rel)
            if entry is not None and kind in INDEXED_KINDS:
                added.append((kind != "tombstones", rel, entry))
        added.sort(key=lambda item: item[:2])
        bulk = len(added) > BULK_DIFF and len(added) > self.count()
        files = [(rel, entry) for _, rel, entry in added]
        with self._bulk(bulk), closing(
            ahead(self.store, repo, files, self.verdicts, self._derived, blobs=self._blobs, passes=self._passes)
        ) as items:
            for rel, entry in items:
                self._index_entry(repo, rel, entry)
        for root in sorted(touched):
            if self._over_bounds(root):
                self._reindex_root(repo, new_tree, root)
        self._sweep_tombstones(repo, new_tree, before)

    def _known_of(self, rels: list[str]) -> set[str]:
        """Those of `rels` the index holds a document or a problem for (a query per 500 paths)."""
        found: set[str] = set()
        for start in range(0, len(rels), 500):
            chunk = rels[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT path FROM docs WHERE path IN ({marks}) UNION SELECT path FROM problems WHERE path IN ({marks})", chunk + chunk)  # noqa: E501
            found.update(path for (path,) in rows)
        return found

    def _known(self, rel: str) -> bool:
        db = self.db
        return bool(
            db.execute("SELECT 1 FROM docs WHERE path=?", (rel,)).fetchone()
            or db.execute("SELECT 1 FROM problems WHERE path=?", (rel,)).fetchone()
        )

    def _over_bounds(self, root: str) -> bool:
        """True if `root` was cut before or holds more than the bounds now (re-index it whole)."""
        row = self.db.execute("SELECT truncated, files, bytes FROM roots WHERE prefix=?", (root,)).fetchone()
        return bool(row) and (bool(row[0]) or row[1] > MAX_ROOT_FILES or row[2] > MAX_ROOT_BYTES)

    def _count(self, rel: str, size: int, sign: int, root: str | None = None) -> None:
        """Keep the scope root's file and byte totals (what the bounds are checked against);
        `root`: `rel`'s, when the caller has it."""
        root = root_of(self.store, rel) if root is None else root
        if self._tally is not None:
            self._tally.count(root, sign, sign * size)
            return
        _save_roots(self.db, [(root, sign, sign * size)])

    def _reindex_root(self, repo, tree, root: str) -> None:
        for (rel,) in self.db.execute(
            "SELECT path FROM docs WHERE root=? UNION SELECT path FROM problems WHERE root=?", (root, root)
        ).fetchall():
            self._forget(rel)
        files = sorted((rel, e) for rel, e in _walk(repo, tree, self.store) if root_of(self.store, rel) == root)
        self._index_root(repo, root, files)

    def _sweep_tombstones(self, repo, tree, before: Stones) -> None:
        """After the tombstone set changed: hide the notes it now covers, show again those it no
        longer covers (each decided by the gate's rule)."""
        from jacked_vault.store.git import blob_at

        removed = before - self.stones()
        self._sweep_added_tombstones(before, lambda rel: blob_at(repo, tree, rel))
        if removed:
            for (path,) in self.db.execute(
                "SELECT path FROM problems WHERE code IN ('TOMBSTONED', 'FORGOTTEN')"
            ).fetchall():
                entry = _tree_entry(repo, tree, path)
                self._forget(path)
                if entry is not None:
                    self._index_entry(repo, path, entry)
            self._rejudge_holders(removed.values | removed.forgotten, lambda rel: blob_at(repo, tree, rel))

    def _sweep_added_tombstones(self, before: Stones, blob_of: Callable[[str], bytes | None] | None = None) -> None:
        """Hide the notes that tombstones added since `before` (or values forgotten since) now
        cover (the gate's rule); with `blob_of` (a committed file's bytes), judge again every
        hot.md and episodic document holding such a value (recall then withholds it)."""
        from jacked_vault.store.tombstones import FORGOTTEN, blocks

        db = self.db
        now = self.stones()
        added = now - before
        for hash_ in sorted(added.values | added.forgotten):
            verdict = now(hash_)
            for path, status, origin in db.execute(
                "SELECT path, status, origin FROM docs WHERE thash=? AND tier='note'", (hash_,)
            ).fetchall():
                if blocks(status, origin, person_override=True, verdict=verdict):
                    size = db.execute("SELECT size FROM docs WHERE path=?", (path,)).fetchone()[0]
                    self._forget(path)
                    if verdict == FORGOTTEN:
                        self._problem(path, "FORGOTTEN", f"{path}: a forgotten value (taken back by a person)", size)
                    else:
                        self._problem(path, "TOMBSTONED", f"{path}: a rejected value (tombstoned)", size)
        if blob_of is not None:
            self._rejudge_holders(added.values | added.forgotten, blob_of)

    def _rejudge_holders(self, values: set[str] | frozenset[str], blob_of: Callable[[str], bytes | None]) -> None:
        """Index again every hot.md and episodic document that holds one of `values` (what it may
        show changed: store.gate withholds a tombstoned value)."""
        paths: set[str] = set()
        for value in values:
            paths.update(
                path
                for (path,) in self.db.execute(
                    "SELECT d.path FROM doc_values v JOIN docs d ON d.rowid = v.doc WHERE v.hash=?", (value,)
                )
            )
        for path in sorted(paths):
            data = blob_of(path)
            self._forget(path)
            if data is not None:
                self._index_bytes(path, classify_path(self.store, path), data)

    def _head_blob(self, rel: str) -> bytes | None:
        from jacked_vault.store.git import open_repo, tree_blob

        return tree_blob(open_repo(self.store.root), rel)

    def _forget(self, rel: str) -> None:
        db = self.db
        for (size,) in db.execute(
            "SELECT size FROM docs WHERE path=? UNION ALL SELECT size FROM problems WHERE path=?", (rel, rel)
        ).fetchall():
            self._count(rel, size, -1)
        row = db.execute("SELECT rowid FROM docs WHERE path=?", (rel,)).fetchone()
        if row:
            from jacked_vault.search import ranking

            db.execute("DELETE FROM docs WHERE rowid=?", row)
            db.execute("DELETE FROM docs_fts WHERE rowid=?", row)
            db.execute("DELETE FROM links WHERE src=?", row)
            wikilinks.forget(db, row[0])
            db.execute("DELETE FROM doc_targets WHERE doc=?", row)
            db.execute("DELETE FROM doc_values WHERE doc=?", row)
            ranking.remove_doc(db, row[0])
        db.execute("DELETE FROM problems WHERE path=?", (rel,))
        db.execute("DELETE FROM tombstones WHERE source=?", (rel,))

    def _problem(self, rel: str, code: str, message: str, size: int = 0) -> None:
        self._count(rel, size, +1)
        self.db.execute(
            "INSERT OR REPLACE INTO problems(path, root, code, message, size) VALUES(?,?,?,?,?)",
            (rel, root_of(self.store, rel), code, message, size),
        )

    def _index_entry(
        self, repo, rel: str, entry, blob: tuple[int, bytes | None] | None = None, mode: int | None = None
    ) -> None:
        """Index one committed tree entry through the gate (problems for what it refuses);
        `blob`: its `_blob`, when the caller read it already; `mode`: its `filemode`, when asked."""
        from jacked_vault.store.gate import cap_for

        mode = entry.filemode if mode is None else mode
        if mode == SYMLINK_MODE:
            self._problem(rel, "SYMLINK", f"{rel}: a symlink, skipped and never followed")
            return
        if mode not in FILE_MODES:
            self._problem(rel, "NOT_A_FILE", f"{rel}: not a regular file (git mode {mode:o})")
            return
        kind = classify_path(self.store, rel)
        size, data = blob if blob is not None else self._blob(repo, rel, entry, mode)
        if size > cap_for(kind):
            self._problem(rel, "TOO_LARGE", f"{rel}: {size} bytes is over the {cap_for(kind)}-byte cap", size)
            return
        if data is None:  # a missing or corrupt object
            message = f"{rel}: its git object {str(entry.id)[:12]} is missing or corrupt"
            self._problem(rel, "UNREADABLE", message, size)
            return
        self._index_bytes(rel, kind, data)

    def _blob(self, repo, rel: str, entry, mode: int | None = None) -> tuple[int, bytes | None]:
        """(size, bytes) of a tree entry (`mode`: its `filemode`, when asked): the bytes a worker
        read for it when they are its blob, else its blob read up to its kind's cap (bytes None:
        over the cap, or missing or corrupt, then its size as its header gives it, 0 if none
        does); (0, None) for what is not a file."""
        from jacked_vault.store.git import offered_blob

        if (entry.filemode if mode is None else mode) not in FILE_MODES:
            return 0, None
        data = offered_blob(self._blobs.pop(rel, None), entry.id)
        if data is not None:
            return len(data), data
        self._passes.pop(rel, None)  # a worker's verdict, on bytes that are not this blob
        from jacked_vault.store.gate import cap_for
        from jacked_vault.store.git import read_capped

        try:
            return read_capped(repo, entry.id, cap_for(classify_path(self.store, rel)), rel)
        except VaultError:
            return _size(repo, entry), None

    def _index_bytes(self, rel: str, kind: str | None, data: bytes) -> None:
        """Index one committed file's bytes (within its size cap) through the gate."""
        from jacked_vault.store.audit import content_hash

        size = len(data)
        if kind == "tombstones":
            from jacked_vault.store.tombstones import parse_tombstones

            self._add_stones([(h, rel) for h in parse_tombstones(data)])
            return
        # a bulk insert that holds no tombstone yet: no note is tombstoned (the rule's hash not needed)
        nothing_tombstoned = kind == "note" and self._tally is not None and not self._tally.stones
        passed = self._passes.pop(rel, None)  # a worker's, on these very bytes (`_blob`), judged with no tombstone
        if passed is not None and nothing_tombstoned:  # so the gate's whole verdict here: taken as a value
            key, note = passed
            self.verdicts.note(key)  # its offer taken, so the verdict recorded (or already: the same bytes elsewhere)
            self._index_note(rel, note, content_hash(data), size)
            return
        from jacked_vault.store.gate import inspect

        try:
            checked = inspect(
                self.store,
                rel,
                data,
                tombstoned=None if nothing_tombstoned else self.tombstoned,
                committed=True,
                verdicts=self.verdicts,
            )
        except VaultError as exc:
            self._problem(rel, exc.details.get("gate", "INVALID"), exc.message, size)
            return
        self._index_checked(rel, checked, content_hash(data), size)

    def _index_checked(self, rel: str, checked: Checked, sha: str, size: int, derived: Derived | None = None) -> None:
        """Index one committed file the gate passed (`checked`: its verdict; `sha`, `size`: its
        bytes'); `derived`: what a worker derived from `checked.note`."""
        if checked.note is not None:
            self._index_note(rel, checked.note, sha, size, derived)
            return
        if checked.hot is not None:
            scope, group = classify_hot(self.store, rel)  # type: ignore[misc]
            found = Entry.from_hot(checked.hot, scope, group)
        elif not searchable_episodic(rel):
            return  # gated above; its entries are searched in recent.md or archive.md
        else:
            group, folder = classify_episodic(self.store, rel)  # type: ignore[misc]
            found = Entry.from_episodic(checked.text or "", group, folder, rel)
        rowid = self.add_entry(rel, found, sha, size, derived=derived)
        if checked.values:
            self._rows(_VALUES, [(rowid, v) for v in checked.values])

    def _index_note(self, rel: str, note: Note, sha: str, size: int, derived: Derived | None = None) -> None:
        """Index one committed note the gate passed (`note`: its parse; `sha`, `size`: its bytes');
        `derived`: what a worker derived from `note`."""
        found = Entry.from_note(note)
        ready = self._derived.pop(rel, None)
        if derived is None and ready is not None and ready[0] is note:  # a worker's, from this very parse
            derived = ready[1]
        claim = found.trust
        review = self.proofs.review_of(note) if claim == "reviewed" else None
        if claim == "reviewed" and (review is None or not review.counts):
            found = replace(found, trust="unreviewed")
        self.add_entry(rel, found, sha, size, claim=claim, review=review, derived=derived)

    def add_entry(
        self,
        rel: str,
        entry: Entry,
        sha: str,
        size: int = 0,
        *,
        claim: str | None = None,
        review: Provenance | None = None,
        derived: Derived | None = None,
    ) -> int:
        """Insert one document (the caller is inside a transaction); `claim` is the trust the file
        claims when it differs from the one the entry is shown with, `review` the accept behind a
        claimed review; `derived`: what its text gives (search/derived.py), when a worker derived it
        ahead. Returns its rowid."""
        db = self.db
        derived = derived or derive(entry.title, entry.tags, entry.body, entry.tier == "note")
        thash = derived.thash
        root = root_of(self.store, rel)
        self._count(rel, size, +1, root)
        row = (
            rel,
            root,
            entry.id,
            entry.title,
            entry.kind,
            entry.scope,
            entry.group,
            entry.status,
            entry.trust,
            claim or entry.trust,
            review_json(review),
            entry.origin,
            entry.tier,
            _json_list(tuple(entry.tags)),
            _json_list(tuple(entry.repos)),
            _json_list(tuple(entry.targets)),
            entry.valid_from,
            entry.valid_until,
            entry.created_at,
            entry.updated_at,
            derived.summary,
            sha,
            thash,
            size,
        )
        text = (entry.title, " ".join(entry.tags), entry.body)
        if self._tally is not None:
            rowid = self._tally.document(db, row, text)
        else:
            added = db.execute(_DOC, row).lastrowid
            assert added is not None, "an INSERT into a rowid table sets lastrowid"
            rowid = added
            db.execute(_FTS, (rowid, *text))
        from jacked_vault.search.ranking import add_doc  # a module, not a package: no import machinery a note

        tally = self._tally
        add_doc(db, rowid, derived.terms, derived.lengths, *((tally.terms, tally.wide) if tally else ()))
        if entry.links:
            self._rows(_LINKS, [(rowid, dst) for dst in entry.links])
        if entry.tier == "note":
            if derived.wikilinks:
                self._rows(wikilinks.WIKILINKS, [(rowid, t) for t in derived.wikilinks])
            self._rows(wikilinks.NAMES, wikilinks.names(rowid, rel, entry.title))
        self._rows(_TARGETS, [(rowid, target) for target in dict.fromkeys(entry.targets)])
        if entry.status == "rejected" and thash:
            self._add_stones([(thash, rel)])
        return rowid

    def _rows(self, sql: str, rows: list[tuple]) -> None:
        """Add rows to a table beside docs (`_BESIDE`): at once, or in a bulk insert at its end."""
        if self._tally is not None:
            self._tally.rows[sql] += rows
        else:
            self.db.executemany(sql, rows)

    def _add_stones(self, rows: list[tuple[str, str]]) -> None:
        """Add (hash, source) rows to the tombstones (a bulk insert's set of hashes too)."""
        self.db.executemany("INSERT OR IGNORE INTO tombstones(hash, source) VALUES(?, ?)", rows)
        if self._tally is not None:
            self._tally.stones.update(h for h, _ in rows)

    @contextmanager
    def preview(
        self, changes: dict[str, Entry | None], tombstones: Stones | None = None, deadline: Deadline | None = None
    ) -> Iterator[SearchIndex]:
        """The index as it will be once `changes` (path -> entry, None = removed) and new
        `tombstones` are committed; past `deadline` (store.deadline), OutOfTime.

        Runs in a transaction that is always rolled back: derived files (index.md) can be
        rendered from the index before the commit that makes them true.
        """
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for rel, entry in changes.items():
                if deadline is not None:
                    deadline.check("regenerating index.md for what arrived")
                self._forget(rel)
                if entry is not None:
                    self.add_entry(rel, entry, "")
            if tombstones:
                from jacked_vault.store.tombstones import forgotten_path

                before = self.stones()
                db.executemany(
                    "INSERT OR IGNORE INTO tombstones(hash, source) VALUES(?, ?)",
                    [(h, forgotten_path("preview") if h in tombstones.forgotten else "preview")
                     for h in tombstones.values | tombstones.forgotten],
                )  # fmt: skip
                self._sweep_added_tombstones(before)
            yield self
        finally:
            db.execute("ROLLBACK")

    def tombstoned(self, value_hash: str) -> str | None:
        """The tombstone oracle of this store (`store.tombstones.Tombstoned`): REJECTED, FORGOTTEN or None."""
        if self._tally is not None and value_hash not in self._tally.stones:
            return None  # a bulk insert holds every tombstoned hash: no query
        rows = self.db.execute("SELECT hash, source FROM tombstones WHERE hash=?", (value_hash,)).fetchall()
        if not rows:  # most notes (a build asks of every one)
            return None
        from jacked_vault.store.tombstones import Stones

        return Stones.of_sources(rows)(value_hash)


@lru_cache(maxsize=4096)
def _json_list(items: tuple[str, ...]) -> str:
    """`json.dumps` of a list of strings (a note's tags, repos, targets: few distinct lists in a
    vault), written as its C encoder writes one (without making an encoder a call)."""
    return "[" + ", ".join(map(encode_basestring_ascii, items)) + "]"


def _walk(repo, tree, store: Store, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, object]]:
    """(path, entry) of every indexable file (and symlink where one should be) in `tree`.

    Only the layout's folders are entered (groups, strategy, tombstones; everything in a project
    store), and never deeper than the layout goes, so a hostile tree costs what the layout holds.
    """
    for entry in tree:
        if entry.name.startswith("."):
            continue
        rel = f"{prefix}{entry.name}"
        if entry.filemode == TREE_MODE:
            if depth < 4 and _may_hold_files(store, rel):
                yield from _walk(repo, repo[entry.id], store, f"{rel}/", depth + 1)
        elif _indexable(store, rel):
            yield rel, entry


def _may_hold_files(store: Store, rel: str) -> bool:
    parts = rel.split("/")
    if store.is_project:
        return len(parts) == 1
    if parts[0] == ARCHIVE_DIR:  # archived notes keep their vault path under archive/
        return len(parts) == 1 or (_may_hold_files(store, "/".join(parts[1:])) and parts[1] != "tombstones")
    return parts[0] in (GROUPS_DIR, USER_SCOPE_DIR, "tombstones") and len(parts) <= (4 if parts[0] == GROUPS_DIR else 2)


def _size(repo, entry) -> int:
    """The blob's size from its header (the content is not read); 0 for what is not a readable blob."""
    if entry.filemode not in FILE_MODES:
        return 0
    try:
        return repo.odb.read_header(entry.id)[1]
    except Exception:  # a missing or corrupt object: reported when it is read
        return 0


def _tree_entry(repo, tree, rel: str):
    try:
        return tree[rel]
    except KeyError:
        return None


def _tree_or_none(repo, commit_id: str | None):
    if not commit_id:
        return None
    try:
        return repo[commit_id].tree
    except (KeyError, ValueError, AttributeError):
        return None


def open_fresh(store: Store) -> SearchIndex:
    """An index of `store` brought up to its HEAD."""
    index = SearchIndex(store)
    index.refresh()
    return index
