"""The derived search index of one store: SQLite FTS5 in `<store>/.git/jacked/index.sqlite`, fed
from git (`rebuild()` starts from scratch; deleting the file loses nothing).

`SearchIndex` is what callers hold: a thin façade over the index's jobs, each in its module, which
it holds (`index.read`, `index.mirror`, `index.proofs`, `index.verdicts`):

- search/schema.py: the file, its connection and schema (`SCHEMA_VERSION`) and its `meta` rows;
- search/mirror.py: git mirrored into rows (catch-up, diffs, the bulk build, tombstone sweeps, bounds);
- search/verdicts.py: the gate's verdict cache this machine keeps in the file;
- search/proofs.py: what `trust: reviewed` proves here (the accepts and this machine's policy);
- search/readmodel.py: the typed reads and the connection they share (`ReadModel`: `index.read`).

A caller that reads asks `index.read` (a function that only reads takes a `ReadModel`). What stays
here opens the index and catches it up (the mirror made only then), and writes one document's rows
(`add_entry`: docs, its text, its analysed fields and the tables beside it), one at a time or, for
a whole tree, in bulk (`_bulk`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any

from jacked_vault.search import wikilinks
from jacked_vault.search.derived import Derived, derive
from jacked_vault.search.entries import Entry
from jacked_vault.search.proofs import ReviewProofs, review_json
from jacked_vault.search.readmodel import ReadModel
from jacked_vault.search.schema import INDEX_DB as INDEX_DB  # where the file is, as callers have read it
from jacked_vault.search.schema import SECONDARY as _SECONDARY
from jacked_vault.search.schema import TABLES, reset, set_meta
from jacked_vault.search.verdicts import Verdicts
from jacked_vault.store.git import fast_head
from jacked_vault.store.layout import Store, root_of

if TYPE_CHECKING:
    from jacked_vault.context import Context
    from jacked_vault.search.mirror import Bounds, GitMirror
    from jacked_vault.search.passed import Passed
    from jacked_vault.store.deadline import Deadline
    from jacked_vault.store.progress import Progress
    from jacked_vault.store.tombstones import Stones
    from jacked_vault.store.trust import Provenance

MAX_ROOT_FILES = 200_000  # 4x a big team's 50k-note group (bench_cli); beyond it reads fail as INCOMPLETE
MAX_ROOT_BYTES = 1024 * 1024 * 1024
BULK_DIFF = 2000  # a diff adding more files than this is inserted in batches; more than the index holds too, in bulk


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


# A document's own rows (docs, its text, its analysed fields): a bulk insert writes them
# `WIDE_BATCH` documents at a time (they hold its text), the rowids counted from the table's next.
_COLUMNS = (
    "path, root, id, title, kind, scope, grp, status, trust, claim, review, origin, tier, tags, repos, targets,"
    " valid_from, valid_until, created_at, updated_at, summary, sha, thash, size"
)
_DOC = f"INSERT INTO docs({_COLUMNS}) VALUES({','.join('?' * 24)})"
_DOCS = f"INSERT INTO docs(rowid, {_COLUMNS}) VALUES({','.join('?' * 25)})"  # a bulk insert's, rowids given
_TEXT = "INSERT INTO docs_text(doc, title, tags, body) VALUES(?,?,?,?)"
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
        self.rows: dict[str, list[tuple[Any, ...]]] = {sql: [] for sql in _BESIDE}  # the rows of the tables beside docs
        self.wide: dict[str, list[tuple[Any, ...]]] = {sql: [] for sql in (_DOCS, _TEXT, TERMS)}
        self.rowid = rowid  # the next document's (docs is a rowid table: max + 1, and only this insert adds to it)

    def document(self, db: sqlite3.Connection, row: tuple[Any, ...], text: tuple[str, str, str]) -> int:
        """Add one document's docs row (without its rowid) and its text (docs_text); returns its rowid."""
        rowid, self.rowid = self.rowid, self.rowid + 1
        self.wide[_DOCS].append((rowid, *row))
        self.wide[_TEXT].append((rowid, *text))
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


class SearchIndex:
    """The FTS5 index of one store, kept a mirror of git: its reads are `read` (`ReadModel`)."""

    def __init__(self, store: Store, progress: Progress | None = None) -> None:
        self.store = store
        self.read = ReadModel(store)  # the reads, and the connection they and the writes share
        self.proofs = ReviewProofs(self.read)  # what each `reviewed` shown is backed by
        self._progress = progress
        self._mirror: GitMirror | None = None
        self._verdicts: Verdicts | None = None
        self._tally: _Tally | None = None  # a bulk insert's totals, written once at its end (`_bulk`)

    @property
    def mirror(self) -> GitMirror:
        """What keeps the rows the mirror of git, made when first asked: an index already at HEAD
        (a warm SessionStart brief) never loads search/mirror.py."""
        if self._mirror is None:
            from jacked_vault.search.mirror import GitMirror

            self._mirror = GitMirror(self, self._progress)
        return self._mirror

    @property
    def bounds(self) -> Bounds:
        """The bounds the mirror keeps (this module's, read when asked)."""
        from jacked_vault.search.mirror import Bounds  # the mirror asks: it is loaded

        return Bounds(MAX_ROOT_FILES, MAX_ROOT_BYTES, BULK_DIFF)

    _reset = staticmethod(reset)  # empty the index file (its verdicts kept): search/schema.py

    @property
    def verdicts(self) -> Verdicts:
        """This machine's gate verdicts (hand them to `store.gate.inspect`, then `save()` them)."""
        if self._verdicts is None:
            self._verdicts = Verdicts(self.db)
        return self._verdicts

    @property
    def db(self) -> sqlite3.Connection:
        """The index file's connection (the read model's)."""
        return self.read.db

    def close(self) -> None:
        self._verdicts = None
        self.read.close()

    def set_meta(self, key: str, value: str) -> None:
        set_meta(self.db, key, value)

    # -- keeping up with git ----------------------------------------------------------------

    def refresh(self, passed: dict[str, Passed] | None = None) -> None:
        """Bring the index up to HEAD: nothing to do if current (no pygit2 import), else a diff;
        and to this machine's review-signing policy. `passed`: as `rebuild`'s (arrivals a sync
        judged); emptied."""
        head = fast_head(self.store.root)
        if head is None or head != self.read.commit:
            self.mirror.catch_up(passed)
        self.proofs.follow_policy()

    def rebuild(self, progress: Progress | None = None, passed: dict[str, Passed] | None = None) -> int:
        """Drop everything and index the whole HEAD tree (`progress`: told as it goes); returns the
        number of notes indexed. `passed`: path -> the gate's pass (`search.passed.Passed`) of a file
        judged already (an arrival), taken for that very blob instead of reading and judging it
        again (the index's own rules, bounds and tombstone sweep still apply); emptied."""
        if progress is not None:
            self.mirror.progress = progress
        self._reset(self.db)
        self.mirror.catch_up(passed)
        return self.read.count()

    def behind(self, limit: int) -> int:
        """How many files HEAD changed since the mirrored commit, up to `limit` + 1 (`GitMirror.behind`):
        0 when current (or no HEAD), without loading the mirror."""
        if fast_head(self.store.root) in (None, self.read.commit):
            return 0
        return self.mirror.behind(limit)

    def reread(self, rels: Iterable[str]) -> None:
        """Index again the committed files at `rels` (`GitMirror.reread`)."""
        self.mirror.reread(rels)

    def apply_commit(self, parent: str | None, head: str, files: dict[str, bytes | None]) -> bool:
        """Catch up with a commit whose changes are known, without reading git; False: `refresh()`
        instead (`GitMirror.apply_commit`)."""
        return self.mirror.apply_commit(parent, head, files)

    # -- one document's rows (what the mirror writes through: `mirror.Rows`) ----------------

    def clear(self) -> None:
        for table in TABLES[:-1]:  # all but meta
            self.db.execute(f"DELETE FROM {table}")
        self.db.execute("DELETE FROM meta WHERE key='reviews'")

    @contextmanager
    def _bulk(self, many: bool, *, batched: bool = False) -> Iterator[None]:
        """With `many` (a whole tree, or a diff adding more than the index holds), insert without
        the secondary indexes and make them again once at the end (a sort each); with `many` or
        `batched` (a diff adding more than `BULK_DIFF` files), write the documents' rows and the
        totals in batches (`_Tally`: nothing reads them until the insert ends), not a statement each."""
        if not (many or batched):
            yield
            return
        self.verdicts.known()  # read once: no query per note
        for name in _SECONDARY if many else ():
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

    def _count(self, rel: str, size: int, sign: int, root: str | None = None) -> None:
        """Keep the scope root's file and byte totals (what the bounds are checked against);
        `root`: `rel`'s, when the caller has it."""
        root = root_of(self.store, rel) if root is None else root
        if self._tally is not None:
            self._tally.count(root, sign, sign * size)
            return
        _save_roots(self.db, [(root, sign, sign * size)])

    def forget(self, rel: str) -> None:
        db = self.db
        for (size,) in db.execute(
            "SELECT size FROM docs WHERE path=? UNION ALL SELECT size FROM problems WHERE path=?", (rel, rel)
        ).fetchall():
            self._count(rel, size, -1)
        row = db.execute("SELECT rowid FROM docs WHERE path=?", (rel,)).fetchone()
        if row:
            from jacked_vault.search import ranking

            db.execute("DELETE FROM docs WHERE rowid=?", row)
            db.execute("DELETE FROM docs_text WHERE doc=?", row)
            db.execute("DELETE FROM links WHERE src=?", row)
            wikilinks.forget(db, row[0])
            db.execute("DELETE FROM doc_targets WHERE doc=?", row)
            db.execute("DELETE FROM doc_values WHERE doc=?", row)
            ranking.remove_doc(db, row[0])
        db.execute("DELETE FROM problems WHERE path=?", (rel,))
        db.execute("DELETE FROM tombstones WHERE source=?", (rel,))

    def problem(self, rel: str, code: str, message: str, size: int = 0) -> None:
        self._count(rel, size, +1)
        self.db.execute(
            "INSERT OR REPLACE INTO problems(path, root, code, message, size) VALUES(?,?,?,?,?)",
            (rel, root_of(self.store, rel), code, message, size),
        )

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
    ) -> int:
        """Insert one document (the caller is inside a transaction); `claim` is the trust the file
        claims when it differs from the one the entry is shown with, `review` the accept behind a
        claimed review; `derived`: what its text gives (search/derived.py), when a worker derived it
        ahead; `values`: the values a hot.md or episodic text holds (`store.gate.Checked.values`).
        Returns its rowid."""
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
            db.execute(_TEXT, (rowid, *text))
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
            self.add_stones([(thash, rel)])
        if values:
            self._rows(_VALUES, [(rowid, v) for v in values])
        return rowid

    def _rows(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """Add rows to a table beside docs (`_BESIDE`): at once, or in a bulk insert at its end."""
        if self._tally is not None:
            self._tally.rows[sql] += rows
        else:
            self.db.executemany(sql, rows)

    def add_stones(self, rows: list[tuple[str, str]]) -> None:
        """Add (hash, source) rows to the tombstones (a bulk insert's set of hashes too)."""
        self.db.executemany("INSERT OR IGNORE INTO tombstones(hash, source) VALUES(?, ?)", rows)
        if self._tally is not None:
            self._tally.stones.update(h for h, _ in rows)

    @contextmanager
    def preview(
        self,
        changes: dict[str, Entry | None],
        tombstones: Stones | None = None,
        deadline: Deadline | None = None,
        derived: dict[str, Derived] | None = None,
    ) -> Iterator[ReadModel]:
        """The reads of the index as it will be once `changes` (path -> entry, None = removed) and new
        `tombstones` are committed; past `deadline` (store.deadline), OutOfTime. `derived`: what an
        entry's text gives the index (search/derived.py), where it was derived already.

        Runs in a transaction that is always rolled back: derived files (index.md) can be
        rendered from the index before the commit that makes them true.
        """
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for rel, entry in changes.items():
                if deadline is not None:
                    deadline.check("regenerating index.md for what arrived")
                self.forget(rel)
                if entry is not None:
                    self.add_entry(rel, entry, "", derived=derived.get(rel) if derived else None)
            if tombstones:
                from jacked_vault.store.tombstones import forgotten_path

                before = self.read.stones()
                db.executemany(
                    "INSERT OR IGNORE INTO tombstones(hash, source) VALUES(?, ?)",
                    [(h, forgotten_path("preview") if h in tombstones.forgotten else "preview")
                     for h in tombstones.values | tombstones.forgotten],
                )  # fmt: skip
                self.mirror.sweep_added_tombstones(before)
            yield self.read
        finally:
            db.execute("ROLLBACK")

    def holds_no_stone(self) -> bool:
        """In a bulk insert that holds no tombstone yet: no note is tombstoned (the rule's hash not needed)."""
        return self._tally is not None and not self._tally.stones

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


def open_fresh(store: Store) -> SearchIndex:
    """An index of `store` brought up to its HEAD."""
    index = SearchIndex(store)
    index.refresh()
    return index


def rejected_elsewhere(ctx: Context, store: Store) -> Stones:
    """For a write into `store` from `ctx`: the values rejected (or forgotten) in the other stores
    this machine reads from there (the vault, the cwd repo's project store; SPEC 5.3: one
    rejection holds in every store)."""
    from jacked_vault.store.tombstones import Stones

    stones = Stones()
    others = [s for s in ctx.stores() if s.root != store.root]
    for other in others:
        index = SearchIndex(other)
        try:
            index.refresh()
            stones |= index.read.stones()
        finally:
            index.close()
    return stones
