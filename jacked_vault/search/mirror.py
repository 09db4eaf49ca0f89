"""The git side of the search index: the committed tree of a store mirrored into its rows.

Only what passes the gate (`store.gate.inspect`) becomes a document: invalid, misplaced,
secret-bearing, tombstoned and symlinked files are kept as `problems` (quarantined: diagnosed,
never recalled). The index remembers which commit it reflects and catches up by diffing that
commit's tree against HEAD, so a refresh after one create reads one blob; a whole tree (a first
build, a rebuild) is inserted in bulk, its notes judged ahead by worker processes
(search/parallel.py). A tombstone added or removed sweeps the notes and files it covers.

Bounds (`Bounds`, the index's: the same on a rebuild and on an incremental refresh, so a vault
always gives the same answer): each scope root (a group, `strategy/`, a project store) is indexed
up to so many files and bytes; a root over a bound is indexed by sorted path up to it and marked
truncated (and is then re-indexed whole whenever it changes).

The rows themselves are written through the index (`Rows`: search.index.SearchIndex). Trees and
their entries are typed `Any`: pygit2 types what `repo[...]` and a tree give as a bare object (a
name that may be None), which the walk reads as git gives them.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Callable, Container, Generator, Iterable, Iterator
from contextlib import AbstractContextManager, closing
from dataclasses import dataclass, replace
from itertools import islice
from typing import TYPE_CHECKING, Any, Protocol

from jacked_vault.errors import VaultError
from jacked_vault.search.entries import Entry
from jacked_vault.search.schema import rows_in
from jacked_vault.search.treediff import FILE_MODES, SYMLINK_MODE, TREE_MODE, changed_entries
from jacked_vault.store import git
from jacked_vault.store.git import blob_at, head_commit, open_repo, tree_blob
from jacked_vault.store.layout import (
    ARCHIVE_DIR,
    GROUPS_DIR,
    USER_SCOPE_DIR,
    Store,
    classify_episodic,
    classify_hot,
    classify_path,
    root_of,
    searchable_episodic,
)
from jacked_vault.store.progress import PROGRESS_STEP

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.document import Note
    from jacked_vault.search.derived import Derived
    from jacked_vault.search.parallel import Handed
    from jacked_vault.search.passed import Passed
    from jacked_vault.search.proofs import ReviewProofs
    from jacked_vault.search.readmodel import ReadModel
    from jacked_vault.search.verdicts import Verdicts
    from jacked_vault.store.gate import Checked
    from jacked_vault.store.progress import Progress
    from jacked_vault.store.tombstones import Stones
    from jacked_vault.store.trust import Provenance

INDEXED_KINDS = frozenset({"note", "hot", "episodic", "tombstones"})


@dataclass(frozen=True)
class Bounds:
    """How much of each scope root is indexed, and when a diff is inserted as a bulk build."""

    root_files: int
    root_bytes: int
    bulk_diff: int  # a diff adding more files than this is inserted in batches; more than the index holds too, in bulk


class Rows(Protocol):
    """What the mirror writes a store's rows through (search.index.SearchIndex)."""

    store: Store
    read: ReadModel
    proofs: ReviewProofs

    @property
    def bounds(self) -> Bounds: ...

    @property
    def db(self) -> sqlite3.Connection: ...

    @property
    def verdicts(self) -> Verdicts: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def tombstoned(self, value_hash: str) -> str | None: ...

    def holds_no_stone(self) -> bool: ...

    def _bulk(self, many: bool, *, batched: bool = False) -> AbstractContextManager[None]: ...

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
        values: tuple[str, ...] = (),
    ) -> int: ...

    def add_stones(self, rows: list[tuple[str, str]]) -> None: ...

    def problem(self, rel: str, code: str, message: str, size: int = 0) -> None: ...

    def forget(self, rel: str) -> None: ...

    def clear(self) -> None: ...


class GitMirror:
    """Keeps one index's rows the mirror of its store's HEAD."""

    def __init__(self, index: Rows, progress: Progress | None = None) -> None:
        self.index = index
        self.store = index.store
        self.progress = progress
        self._to_index: int | None = None  # the files of a whole-tree build (what progress counts toward)
        self._read = 0  # of those, read so far
        self._handed: dict[str, Handed] = {}  # path -> what a worker handed over for it (a build's)
        self._passed: dict[str, Passed] = {}  # path -> the gate's pass of its blob, judged already (a rebuild's)

    def behind(self, limit: int) -> int:
        """How many files HEAD changed since the commit this index mirrors (every file of HEAD when
        there is none), counted up to `limit` + 1 and no further (`SearchIndex.behind` answers 0 for
        a current index without asking)."""
        indexed = self.index.read.commit
        repo = open_repo(self.store.root)
        commit = head_commit(repo)
        if commit is None:
            return 0
        changed = changed_entries(repo, _tree_or_none(repo, indexed), commit.tree)
        return sum(1 for _ in islice(changed, limit + 1))

    def catch_up(self, passed: dict[str, Passed] | None = None) -> None:
        """Bring the rows to HEAD in one transaction. `passed`: path -> the gate's pass of a file
        judged already (`SearchIndex.rebuild`), taken for that very blob; emptied."""
        from jacked_vault.search.parallel import young_collections_only

        self._passed = passed if passed is not None else {}
        try:
            with young_collections_only():  # a build keeps what it reads alive: no full collection
                self._catch_up()
        finally:
            self._passed = {}

    def _catch_up(self) -> None:
        repo = open_repo(self.store.root)
        db = self.index.db
        db.execute("BEGIN IMMEDIATE")
        try:
            commit = head_commit(repo)
            indexed = self.index.read.commit
            head = str(commit.id) if commit is not None else ""
            self.index.proofs.head = head
            if indexed != head:
                old_tree = _tree_or_none(repo, indexed)
                if commit is None or old_tree is None:
                    self.index.clear()
                    if commit is not None:
                        self._index_tree(repo, commit.tree)
                else:
                    self._apply_diff(repo, old_tree, commit.tree)
                self.index.set_meta("commit", head)
            self.index.verdicts.save()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        finally:
            self.index.verdicts.release()

    def reread(self, rels: Iterable[str]) -> None:
        """Index again the committed files at `rels` (HEAD's; the index is at HEAD): those whose git
        object it could not read, since restored (`doctor`)."""

        repo = open_repo(self.store.root)
        commit = head_commit(repo)
        if commit is None or str(commit.id) != self.index.read.commit:
            return
        self.index.proofs.head = str(commit.id)
        db = self.index.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for rel in rels:
                self.index.forget(rel)
                entry = commit.tree[rel]
                self._index_entry(repo, rel, entry)
            self.index.verdicts.save()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def apply_commit(self, parent: str | None, head: str, files: dict[str, bytes | None]) -> bool:
        """Catch up with a commit whose changes are known (a write transaction's own) without
        reading git: True when applied; False (nothing changed) when the index was not at
        `parent`, a scope root reaches a bound or the tombstone set shrank — then `refresh()`."""
        from jacked_vault.store.gate import cap_for

        if (self.index.read.commit or "") != (parent or ""):
            return False
        self.index.proofs.head = head
        db = self.index.db
        db.execute("BEGIN IMMEDIATE")
        try:
            before = self.index.read.stones()
            touched: set[str] = set()
            for rel, data in files.items():
                kind = classify_path(self.store, rel)
                if kind not in INDEXED_KINDS and not self._known(rel):
                    continue
                touched.add(root_of(self.store, rel))
                self.index.forget(rel)
                if data is None or kind not in INDEXED_KINDS:
                    continue
                if len(data) > cap_for(kind):
                    self.index.problem(
                        rel, "TOO_LARGE", f"{rel}: {len(data)} bytes is over the {cap_for(kind)}-byte cap", len(data)
                    )
                else:
                    self._index_bytes(rel, kind, data)
            if any(self._over_bounds(root) for root in touched) or not before.within(self.index.read.stones()):
                db.execute("ROLLBACK")
                return False
            self.sweep_added_tombstones(before, self._head_blob)
            self.index.set_meta("commit", head)
            self.index.verdicts.save()
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _index_tree(self, repo: pygit2.Repository, tree: Any) -> None:
        """Index every indexable file of a full tree: tombstones first, then each scope root. The
        secondary indexes are dropped for the bulk insert and made again once (a sort each)."""
        files = sorted(_walk(repo, tree, self.store))
        self._to_index = len(files)
        by_root: dict[str, list[tuple[str, Any]]] = {}
        for rel, entry in files:
            by_root.setdefault(root_of(self.store, rel), []).append((rel, entry))
        roots = sorted(by_root, key=lambda r: r != "tombstones")
        ordered = [item for root in roots for item in by_root[root]]
        with self.index._bulk(True), self._judged_ahead(repo, ordered, judged=self._passed) as items:
            for root in roots:
                self._index_root(repo, root, islice(items, len(by_root[root])))
        if self.progress is not None:
            self.progress(len(files), len(files))  # every file read (a root past its bound: skipped)
        from jacked_vault.store.tombstones import Stones

        self._sweep_tombstones(repo, tree, Stones())

    def _index_root(self, repo: pygit2.Repository, root: str, files: Iterable[tuple[str, Any]]) -> None:
        """Index one scope root's files in path order, up to the bounds (then mark it truncated);
        `files` is read to its end either way."""
        bounds = self.index.bounds
        count = total = 0
        truncated = False
        for rel, entry in files:
            passed = self._passed.pop(rel, None)
            if passed is not None and passed.oid != entry.id:
                passed = None
            mode = entry.filemode if passed is None else None  # pygit2 makes an enum each time it is asked
            handed = self._handed_for(rel, entry) if passed is None else None
            blob = (passed.size, None) if passed is not None else self._blob(repo, rel, entry, mode, handed)
            count += 1  # noqa: SIM113 - counts the files read so far, against the bound
            total += blob[0]
            if count > bounds.root_files or total > bounds.root_bytes:
                truncated = True
                deque(files, maxlen=0)
                break
            if passed is not None:
                self._index_checked(rel, passed.checked, passed.sha, passed.size, passed.derived)
            else:
                self._index_entry(repo, rel, entry, blob, mode, handed)
            self._read += 1
            if self.progress is not None and self._read % PROGRESS_STEP == 0:
                self.progress(self._read, self._to_index)
        self.index.db.execute(
            "INSERT INTO roots(prefix, truncated) VALUES(?, ?) ON CONFLICT(prefix) DO UPDATE SET truncated = "
            "excluded.truncated",
            (root, int(truncated)),
        )

    def _apply_diff(self, repo: pygit2.Repository, old_tree: Any, new_tree: Any) -> None:
        """Forget every changed path, then index what the new tree holds there: tombstone files
        first (as a whole-tree build does), then the rest in path order."""
        touched: set[str] = set()
        before = self.index.read.stones()
        added: list[tuple[bool, str, Any]] = []
        changed = list(changed_entries(repo, old_tree, new_tree))
        indexed = self._known_of([rel for rel, _ in changed])
        for rel, entry in changed:
            kind = classify_path(self.store, rel)
            known = rel in indexed
            if kind not in INDEXED_KINDS and not known:
                continue
            touched.add(root_of(self.store, rel))
            if known or kind == "tombstones":  # a tombstone file has rows by its path, never a document
                self.index.forget(rel)
            if entry is not None and kind in INDEXED_KINDS:
                added.append((kind != "tombstones", rel, entry))
        added.sort(key=lambda item: item[:2])
        bulk = len(added) > self.index.bounds.bulk_diff and len(added) > self.index.read.count()
        taken = {rel: p for _, rel, entry in added if (p := self._passed.pop(rel, None)) and p.oid == entry.id}
        files = [(rel, entry) for _, rel, entry in added]
        batched = len(added) > self.index.bounds.bulk_diff  # its rows written in batches, at least
        with self.index._bulk(bulk, batched=batched), self._judged_ahead(repo, files, judged=taken) as items:
            for rel, entry in items:
                arrived = taken.get(rel)
                if arrived is not None:  # judged already (a sync's arrival): its pass, for this very blob
                    self._index_checked(rel, arrived.checked, arrived.sha, arrived.size, arrived.derived)
                else:
                    self._index_entry(repo, rel, entry)
        for root in sorted(touched):
            if self._over_bounds(root):
                self._reindex_root(repo, new_tree, root)
        self._sweep_tombstones(repo, new_tree, before)

    def _judged_ahead(
        self, repo: pygit2.Repository, files: list[tuple[str, Any]], judged: Container[str] = ()
    ) -> closing[Generator[tuple[str, Any], None, None]]:
        """`files`, their notes judged ahead by workers (search/parallel.py) but those `judged`
        already (the paths of the passes the caller takes), what each worker hands over kept here
        for the file's turn (`_handed_for`)."""
        from jacked_vault.search.parallel import ahead

        verdicts = self.index.verdicts
        return closing(ahead(self.store, repo, files, verdicts, self._handed, deriving=True, judged=judged))

    def _known_of(self, rels: list[str]) -> set[str]:
        """Those of `rels` the index holds a document or a problem for (a query per 500 paths)."""
        sql = "SELECT path FROM docs WHERE path IN ({marks}) UNION SELECT path FROM problems WHERE path IN ({marks})"
        return {path for (path,) in rows_in(self.index.db, sql, rels)}

    def _known(self, rel: str) -> bool:
        db = self.index.db
        return bool(
            db.execute("SELECT 1 FROM docs WHERE path=?", (rel,)).fetchone()
            or db.execute("SELECT 1 FROM problems WHERE path=?", (rel,)).fetchone()
        )

    def _over_bounds(self, root: str) -> bool:
        """True if `root` was cut before or holds more than the bounds now (re-index it whole)."""
        row = self.index.db.execute("SELECT truncated, files, bytes FROM roots WHERE prefix=?", (root,)).fetchone()
        bounds = self.index.bounds
        return bool(row) and (bool(row[0]) or row[1] > bounds.root_files or row[2] > bounds.root_bytes)

    def _reindex_root(self, repo: pygit2.Repository, tree: Any, root: str) -> None:
        for (rel,) in self.index.db.execute(
            "SELECT path FROM docs WHERE root=? UNION SELECT path FROM problems WHERE root=?", (root, root)
        ).fetchall():
            self.index.forget(rel)
        files = sorted((rel, e) for rel, e in _walk(repo, tree, self.store) if root_of(self.store, rel) == root)
        self._index_root(repo, root, files)

    def _sweep_tombstones(self, repo: pygit2.Repository, tree: Any, before: Stones) -> None:
        """After the tombstone set changed: hide the notes it now covers, show again those it no
        longer covers (each decided by the gate's rule)."""

        removed = before - self.index.read.stones()
        self.sweep_added_tombstones(before, lambda rel: blob_at(repo, tree, rel))
        if removed:
            for (path,) in self.index.db.execute(
                "SELECT path FROM problems WHERE code IN ('TOMBSTONED', 'FORGOTTEN')"
            ).fetchall():
                entry = _tree_entry(repo, tree, path)
                self.index.forget(path)
                if entry is not None:
                    self._index_entry(repo, path, entry)
            self._rejudge_holders(removed.values | removed.forgotten, lambda rel: blob_at(repo, tree, rel))

    def sweep_added_tombstones(self, before: Stones, blob_of: Callable[[str], bytes | None] | None = None) -> None:
        """Hide the notes that tombstones added since `before` (or values forgotten since) now
        cover (the gate's rule); with `blob_of` (a committed file's bytes), judge again every
        hot.md and episodic document holding such a value (recall then withholds it)."""
        from jacked_vault.store.tombstones import FORGOTTEN, blocks

        db = self.index.db
        now = self.index.read.stones()
        added = now - before
        for hash_ in sorted(added.values | added.forgotten):
            verdict = now(hash_)
            for path, status, origin in db.execute(
                "SELECT path, status, origin FROM docs WHERE thash=? AND tier='note'", (hash_,)
            ).fetchall():
                if blocks(status, origin, person_override=True, verdict=verdict):
                    size = db.execute("SELECT size FROM docs WHERE path=?", (path,)).fetchone()[0]
                    self.index.forget(path)
                    if verdict == FORGOTTEN:
                        message = f"{path}: a forgotten value (taken back by a person)"
                        self.index.problem(path, "FORGOTTEN", message, size)
                    else:
                        self.index.problem(path, "TOMBSTONED", f"{path}: a rejected value (tombstoned)", size)
        if blob_of is not None:
            self._rejudge_holders(added.values | added.forgotten, blob_of)

    def _rejudge_holders(self, values: set[str] | frozenset[str], blob_of: Callable[[str], bytes | None]) -> None:
        """Index again every hot.md and episodic document that holds one of `values` (what it may
        show changed: store.gate withholds a tombstoned value)."""
        paths: set[str] = set()
        for value in values:
            paths.update(
                path
                for (path,) in self.index.db.execute(
                    "SELECT d.path FROM doc_values v JOIN docs d ON d.rowid = v.doc WHERE v.hash=?", (value,)
                )
            )
        for path in sorted(paths):
            data = blob_of(path)
            self.index.forget(path)
            if data is not None:
                self._index_bytes(path, classify_path(self.store, path), data)

    def _head_blob(self, rel: str) -> bytes | None:
        return tree_blob(open_repo(self.store.root), rel)

    def _index_entry(
        self,
        repo: pygit2.Repository,
        rel: str,
        entry: Any,
        blob: tuple[int, bytes | None] | None = None,
        mode: int | None = None,
        handed: Handed | None = None,
    ) -> None:
        """Index one committed tree entry through the gate (problems for what it refuses);
        `blob`: its `_blob`, when the caller read it already (with `handed`, what a worker handed
        over for its very bytes); `mode`: its `filemode`, when asked."""
        from jacked_vault.store.gate import cap_for

        mode = entry.filemode if mode is None else mode
        if mode == SYMLINK_MODE:
            self.index.problem(rel, "SYMLINK", f"{rel}: a symlink, skipped and never followed")
            return
        if mode not in FILE_MODES:
            self.index.problem(rel, "NOT_A_FILE", f"{rel}: not a regular file (git mode {mode:o})")
            return
        kind = classify_path(self.store, rel)
        if blob is None:
            handed = self._handed_for(rel, entry)
            blob = self._blob(repo, rel, entry, mode, handed)
        size, data = blob
        if size > cap_for(kind):
            self.index.problem(rel, "TOO_LARGE", f"{rel}: {size} bytes is over the {cap_for(kind)}-byte cap", size)
            return
        if data is None:  # a missing or corrupt object
            message = f"{rel}: its git object {str(entry.id)[:12]} is missing or corrupt"
            self.index.problem(rel, "UNREADABLE", message, size)
            return
        self._index_bytes(rel, kind, data, handed)

    def _handed_for(self, rel: str, entry: Any) -> Handed | None:
        """What a worker handed over for `rel`, when the bytes it read are `entry`'s blob (else
        dropped: its verdict and parse are of other bytes); taken once."""

        handed = self._handed.pop(rel, None)
        return handed if handed is not None and git.offered_blob(handed.data, entry.id) is not None else None

    def _blob(
        self, repo: pygit2.Repository, rel: str, entry: Any, mode: int | None = None, handed: Handed | None = None
    ) -> tuple[int, bytes | None]:
        """(size, bytes) of a tree entry (`mode`: its `filemode`, when asked): the bytes a worker
        read for it (`handed`, taken for its blob), else its blob read up to its kind's cap (bytes
        None: over the cap, or missing or corrupt, then its size as its header gives it, 0 if none
        does); (0, None) for what is not a file."""
        if (entry.filemode if mode is None else mode) not in FILE_MODES:
            return 0, None
        if handed is not None:
            return len(handed.data), handed.data
        from jacked_vault.store.gate import cap_for

        try:
            return git.read_capped(repo, entry.id, cap_for(classify_path(self.store, rel)), rel)
        except VaultError:
            return _size(repo, entry), None

    def _index_bytes(self, rel: str, kind: str | None, data: bytes, handed: Handed | None = None) -> None:
        """Index one committed file's bytes (within its size cap) through the gate; `handed`: what a
        worker handed over for these very bytes."""
        from jacked_vault.store.audit import content_hash

        size = len(data)
        if kind == "tombstones":
            from jacked_vault.store.tombstones import parse_tombstones

            self.index.add_stones([(h, rel) for h in parse_tombstones(data)])
            return
        # a bulk insert that holds no tombstone yet: no note is tombstoned (the rule's hash not needed)
        nothing_tombstoned = kind == "note" and self.index.holds_no_stone()
        # a worker's whole pass, judged with no tombstone: so the gate's whole verdict here, taken as a value
        if handed is not None and handed.whole and nothing_tombstoned:
            self.index.verdicts.note(handed.key)  # its offer taken: the verdict recorded (or already: same bytes)
            self._index_note(rel, handed.note, content_hash(data), size, handed.derived)
            return
        from jacked_vault.store.gate import inspect

        try:
            checked = inspect(
                self.store,
                rel,
                data,
                tombstoned=None if nothing_tombstoned else self.index.tombstoned,
                committed=True,
                verdicts=self.index.verdicts,
            )
        except VaultError as exc:
            self.index.problem(rel, exc.details.get("gate", "INVALID"), exc.message, size)
            return
        derived = handed.derived if handed is not None and handed.note is checked.note else None  # of this parse
        self._index_checked(rel, checked, content_hash(data), size, derived)

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
        self.index.add_entry(rel, found, sha, size, derived=derived, values=checked.values)

    def _index_note(self, rel: str, note: Note, sha: str, size: int, derived: Derived | None = None) -> None:
        """Index one committed note the gate passed (`note`: its parse; `sha`, `size`: its bytes');
        `derived`: what a worker derived from `note`."""
        found = Entry.from_note(note)
        verdict = self.index.proofs.verdict(note, found.trust)
        if verdict.trust != found.trust:
            found = replace(found, trust=verdict.trust)
        self.index.add_entry(rel, found, sha, size, claim=verdict.claim, review=verdict.review, derived=derived)


def _indexable(store: Store, rel: str) -> bool:
    return classify_path(store, rel) in INDEXED_KINDS


def _walk(
    repo: pygit2.Repository, tree: Any, store: Store, prefix: str = "", depth: int = 0
) -> Iterator[tuple[str, Any]]:
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


def _size(repo: pygit2.Repository, entry: Any) -> int:
    """The blob's size from its header (the content is not read); 0 for what is not a readable blob."""
    if entry.filemode not in FILE_MODES:
        return 0
    try:
        return repo.odb.read_header(entry.id)[1]
    except Exception:  # a missing or corrupt object: reported when it is read
        return 0


def _tree_entry(repo: pygit2.Repository, tree: Any, rel: str) -> Any:
    try:
        return tree[rel]
    except KeyError:
        return None


def _tree_or_none(repo: pygit2.Repository, commit_id: str | None) -> Any:
    if not commit_id:
        return None
    try:
        return repo[commit_id].tree
    except (KeyError, ValueError, AttributeError):
        return None
