"""The derived search index: SQLite FTS5 in `<store>/.jacked/index.sqlite`, fed from git.

The index mirrors the committed tree of a store. It remembers which commit it reflects and
catches up by diffing that commit's tree against HEAD, so a refresh after one create reads
one blob. `rebuild()` starts from scratch; deleting the file loses nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from jacked_vault.errors import VaultError
from jacked_vault.safety.fsio import MAX_SCAN_BYTES, MAX_SCAN_DEPTH, MAX_SCAN_ENTRIES
from jacked_vault.store.git import fast_head
from jacked_vault.store.layout import GROUPS_DIR, USER_DIR, Store

INDEX_FILE = "index.sqlite"
_SYMLINK_MODE = 0o120000
_TREE_MODE = 0o040000

_DDL = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS docs(
    rowid INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    id TEXT NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    scope TEXT NOT NULL,
    grp TEXT,
    status TEXT NOT NULL,
    tier TEXT NOT NULL,
    tags TEXT NOT NULL,
    repos TEXT NOT NULL,
    targets TEXT NOT NULL,
    valid_from TEXT NOT NULL,
    valid_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    summary TEXT NOT NULL,
    sha TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_group ON docs(grp, status, tier);
CREATE INDEX IF NOT EXISTS docs_id ON docs(id);
CREATE INDEX IF NOT EXISTS docs_updated ON docs(updated_at);
CREATE TABLE IF NOT EXISTS links(src INTEGER NOT NULL, dst TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS links_dst ON links(dst);
CREATE INDEX IF NOT EXISTS links_src ON links(src);
CREATE TABLE IF NOT EXISTS problems(path TEXT PRIMARY KEY, code TEXT NOT NULL, message TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    title, tags, body, tokenize = 'porter unicode61 remove_diacritics 2'
);
-- search/ranking.py: each document's analysed fields, and their totals; kept with every add and removal
CREATE VIRTUAL TABLE IF NOT EXISTS docs_terms USING fts5(title, tags, body, tokenize = 'ascii');
CREATE TABLE IF NOT EXISTS terms_stats(
    id INTEGER PRIMARY KEY CHECK (id = 0), docs INTEGER NOT NULL, title INTEGER NOT NULL, tags INTEGER NOT NULL, body INTEGER NOT NULL
);
"""

# Any change to the DDL changes the version, so an old index file is rebuilt, never half-migrated.
SCHEMA_VERSION = hashlib.sha256(_DDL.encode()).hexdigest()[:16]
_TABLES = ("docs", "links", "problems", "docs_fts", "docs_terms", "terms_stats", "meta")
_COLUMNS = "d.rowid, d.path, d.id, d.title, d.kind, d.scope, d.grp, d.status, d.tier, d.tags, d.updated_at, d.created_at"


@dataclass(frozen=True)
class Doc:
    """One indexed note, as search and read see it."""

    rowid: int
    path: str
    id: str
    title: str
    kind: str
    scope: str
    group: str | None
    status: str
    tier: str
    tags: list[str]
    updated_at: str
    created_at: str
    store: Store
    score: float = 0.0
    excerpt: str = ""

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "scope": self.scope,
            "group": self.group,
            "status": self.status,
            "score": self.score,
            "tier": self.tier,
            "excerpt": self.excerpt,
            "path": self.store.display(self.path, self.scope),
            "tags": self.tags,
            "updated_at": self.updated_at,
        }


@dataclass
class Diagnostics:
    """What the index could not use: invalid files, symlinks, and whether a scan was cut."""

    invalid_files: list[dict] = field(default_factory=list)
    skipped_symlinks: list[str] = field(default_factory=list)
    truncated: bool = False

    @property
    def complete(self) -> bool:
        return not self.invalid_files and not self.truncated

    def merge(self, other: Diagnostics) -> None:
        self.invalid_files += other.invalid_files
        self.skipped_symlinks += other.skipped_symlinks
        self.truncated = self.truncated or other.truncated

    def to_json(self) -> dict:
        return {
            "invalid_file_count": len(self.invalid_files),
            "invalid_files": self.invalid_files,
            "skipped_symlinks": len(self.skipped_symlinks),
            "truncated": self.truncated,
        }


@dataclass
class Filters:
    """Search filters; `statuses` defaults to active only."""

    scopes: frozenset[str] | None = None
    group: str | None = None
    kinds: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    repo: str | None = None
    statuses: tuple[str, ...] = ("active",)
    target: str | None = None
    as_of: str | None = None
    prefer_group: str | None = None
    limit: int = 20


def classify(store: Store, rel: str) -> tuple[str, str | None, str] | None:
    """(scope, group, kind) for a note path of this store, or None if `rel` is not a note."""
    from jacked_vault.document import KINDS

    parts = rel.split("/")
    if not rel.endswith(".md") or any(p.startswith(".") for p in parts):
        return None
    if store.is_project:
        if len(parts) == 2 and parts[0] in KINDS:
            return "project", None, parts[0]
        return None
    if len(parts) == 4 and parts[0] == GROUPS_DIR and parts[2] in KINDS:
        return "group", parts[1], parts[2]
    if len(parts) == 3 and parts[0] == USER_DIR and parts[1] in KINDS:
        return "user", None, parts[1]
    return None


HOT_FILE = "hot.md"


def classify_hot(store: Store, rel: str) -> tuple[str, str | None] | None:
    """(scope, group) when `rel` is a group's (or the project store's) hot.md."""
    parts = rel.split("/")
    if store.is_project:
        return ("project", None) if rel == HOT_FILE else None
    if len(parts) == 3 and parts[0] == GROUPS_DIR and parts[2] == HOT_FILE and not parts[1].startswith("."):
        return "group", parts[1]
    return None


def classify_episodic(store: Store, rel: str) -> tuple[str, str] | None:
    """(group, repo folder) when `rel` is a file of a repo's episodic folder in the vault."""
    parts = rel.split("/")
    if store.is_project or len(parts) != 5 or parts[0] != GROUPS_DIR or parts[2] != "episodic":
        return None
    if not parts[4].endswith(".md") or any(p.startswith(".") for p in parts):
        return None
    return parts[1], parts[3]


def _indexable(store: Store, rel: str) -> bool:
    return classify(store, rel) is not None or classify_hot(store, rel) is not None or classify_episodic(store, rel) is not None


MAX_EPISODIC_FILE = 4 * 1024 * 1024  # archive.md grows for years; only its head is searchable
MAX_EPISODIC_TEXT = 256 * 1024
_DAY_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")


def episodic_entry(data: bytes, group: str, folder: str, rel: str) -> Entry:
    """A searchable document for one episodic file (tier `episodic`)."""
    from jacked_vault.safety.text import check_text

    try:
        text = data[:MAX_EPISODIC_TEXT].decode("utf-8", "ignore" if len(data) > MAX_EPISODIC_TEXT else "strict")
    except UnicodeDecodeError:
        raise VaultError("VALIDATION", f"{rel}: not UTF-8") from None
    check_text(rel, text, multiline=True)
    name = rel.rsplit("/", 1)[-1][: -len(".md")]
    day = _DAY_IN_NAME.search(name)
    when = f"{day.group(1)}T00:00:00.000Z" if day else "1970-01-01T00:00:00.000Z"
    return Entry(
        id="episodic_" + hashlib.sha256(rel.encode()).hexdigest()[:20],
        title=f"Sessions in {folder.replace('__', '/')}: {name}",
        kind="progress",
        scope="group",
        group=group,
        status="active",
        tier="episodic",
        tags=[],
        repos=[folder.replace("__", "/")],
        targets=["all"],
        valid_from=when,
        valid_until=None,
        created_at=when,
        updated_at=when,
        body=text,
        links=[],
    )


def first_sentence(body: str, limit: int = 160) -> str:
    """The first sentence of the first non-empty, non-heading line, at most `limit` chars."""
    for line in body.splitlines():
        line = line.strip().lstrip("#>-* ").strip()
        if not line:
            continue
        for end in (". ", "! ", "? "):
            cut = line.find(end)
            if cut != -1:
                line = line[: cut + 1]
                break
        return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


@dataclass(frozen=True)
class Entry:
    """One indexable document: a note, or a derived file such as hot.md."""

    id: str
    title: str
    kind: str
    scope: str
    group: str | None
    status: str
    tier: str
    tags: list[str]
    repos: list[str]
    targets: list[str]
    valid_from: str
    valid_until: str | None
    created_at: str
    updated_at: str
    body: str
    links: list[str]

    @classmethod
    def from_note(cls, note) -> Entry:
        return cls(
            id=note.id,
            title=note.title,
            kind=note.kind,
            scope=note.scope,
            group=note.group,
            status=note.status,
            tier="note",
            tags=note.tags,
            repos=note.repos,
            targets=note.target_harnesses,
            valid_from=note.valid_from,
            valid_until=note.valid_until,
            created_at=note.created_at,
            updated_at=note.updated_at,
            body=note.body,
            links=note.links,
        )


def fts_query(text: str, operator: str) -> str | None:
    """Quote every token so user text is never FTS syntax; None if nothing searchable is left."""
    tokens = ['"' + token.replace('"', '""') + '"' for token in text.split() if any(c.isalnum() for c in token)]
    return f" {operator} ".join(tokens) if tokens else None


class SearchIndex:
    """The FTS5 index of one store."""

    def __init__(self, store: Store, progress: Callable[[int], None] | None = None) -> None:
        self.store = store
        self.path = store.cache / INDEX_FILE
        self._db: sqlite3.Connection | None = None
        self._progress = progress
        self._indexed = 0

    # -- connection -------------------------------------------------------------------------

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._connect()
        return self._db

    def _connect(self) -> sqlite3.Connection:
        os.makedirs(self.store.cache, exist_ok=True)
        for attempt in range(2):
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                if _schema_version(db) != SCHEMA_VERSION:  # new, old or half-made: build it afresh
                    db.executescript("".join(f"DROP TABLE IF EXISTS {t};" for t in _TABLES) + _DDL)
                    self._reset(db)
                return db
            except sqlite3.DatabaseError:
                db.close()
                if attempt:
                    raise
                for suffix in ("", "-wal", "-shm"):
                    try:
                        os.unlink(f"{self.path}{suffix}")
                    except FileNotFoundError:
                        pass
        raise AssertionError("unreachable")

    def _reset(self, db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        for table in _TABLES:
            db.execute(f"DELETE FROM {table}")
        db.execute("INSERT INTO meta(key, value) VALUES('schema', ?)", (SCHEMA_VERSION,))
        db.execute("COMMIT")

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    # -- keeping up with git ----------------------------------------------------------------

    def refresh(self) -> None:
        """Bring the index up to HEAD: nothing to do if current (no pygit2 import), else a diff."""
        head = fast_head(self.store.root)
        if head is not None and head == self._meta("commit"):
            return
        self._catch_up()

    def rebuild(self) -> int:
        """Drop everything and index the whole HEAD tree; returns the number of notes indexed."""
        self._reset(self.db)
        self._catch_up()
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
            if indexed != head:
                old_tree = _tree_or_none(repo, indexed)
                if commit is None:
                    self._clear()
                elif old_tree is None:
                    self._clear()
                    self._index_tree(repo, commit.tree)
                else:
                    self._apply_diff(repo, old_tree, commit.tree)
                self._set_meta("commit", head)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _clear(self) -> None:
        for table in _TABLES[:-1]:  # all but meta
            self.db.execute(f"DELETE FROM {table}")
        self._set_meta("truncated", "0")

    def _index_tree(self, repo, tree) -> None:
        """Index every note of a full tree, one bounded scan per scope root."""
        truncated = False
        if self.store.is_project:
            roots = [("", tree)]
        else:
            roots = []
            if USER_DIR in tree:
                roots.append((USER_DIR, repo[tree[USER_DIR].id]))
            if GROUPS_DIR in tree and tree[GROUPS_DIR].filemode == _TREE_MODE:
                for entry in repo[tree[GROUPS_DIR].id]:
                    if entry.filemode == _TREE_MODE and not entry.name.startswith("."):
                        roots.append((f"{GROUPS_DIR}/{entry.name}", repo[entry.id]))
        for prefix, subtree in roots:
            truncated |= self._index_scan(repo, prefix, subtree)
        self._set_meta("truncated", "1" if truncated else "0")

    def _index_scan(self, repo, prefix: str, tree) -> bool:
        """Index one scope root; True if a bound (entries, depth, bytes) cut the scan."""
        entries = 0
        total = 0
        stack = [(prefix, tree, 0)]
        while stack:
            base, current, depth = stack.pop()
            for entry in current:
                if entry.name.startswith("."):
                    continue
                entries += 1
                if entries > MAX_SCAN_ENTRIES:
                    return True
                rel = f"{base}/{entry.name}" if base else entry.name
                if entry.filemode == _TREE_MODE:
                    if depth + 1 >= MAX_SCAN_DEPTH:
                        return True
                    stack.append((rel, repo[entry.id], depth + 1))
                    continue
                if not _indexable(self.store, rel):
                    continue
                if entry.filemode == _SYMLINK_MODE:
                    self._problem(rel, "SYMLINK", "symlink skipped, never followed")
                    continue
                blob = repo[entry.id]
                total += blob.size
                if total > MAX_SCAN_BYTES:
                    return True
                self._index_blob(rel, blob)
                self._indexed += 1
                if self._progress is not None and self._indexed % 500 == 0:
                    self._progress(self._indexed)
        return False

    def _apply_diff(self, repo, old_tree, new_tree) -> None:
        for rel, entry in changed_entries(repo, old_tree, new_tree):
            self._forget(rel)
            if entry is None or not _indexable(self.store, rel):
                continue
            if entry.filemode == _SYMLINK_MODE:
                self._problem(rel, "SYMLINK", "symlink skipped, never followed")
            else:
                self._index_blob(rel, repo[entry.id])

    def _forget(self, rel: str) -> None:
        db = self.db
        row = db.execute("SELECT rowid FROM docs WHERE path=?", (rel,)).fetchone()
        if row:
            db.execute("DELETE FROM docs WHERE rowid=?", row)
            db.execute("DELETE FROM docs_fts WHERE rowid=?", row)
            db.execute("DELETE FROM links WHERE src=?", row)
            from jacked_vault.search import ranking

            ranking.remove_doc(db, row[0])
        db.execute("DELETE FROM problems WHERE path=?", (rel,))

    def _problem(self, rel: str, code: str, message: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO problems(path, code, message) VALUES(?,?,?)", (rel, code, message))

    def _index_blob(self, rel: str, blob) -> None:
        from jacked_vault.document import MAX_FILE_BYTES
        from jacked_vault.store.audit import content_hash

        cap = MAX_EPISODIC_FILE if classify_episodic(self.store, rel) is not None else MAX_FILE_BYTES
        if blob.size > cap:
            self._problem(rel, "TOO_LARGE", f"{blob.size} bytes is over the {cap}-byte cap")
            return
        data = blob.data
        try:
            entry = self._entry(rel, data)
        except VaultError as exc:
            self._problem(rel, exc.details.get("index_code", "INVALID"), exc.message)
            return
        self.add_entry(rel, entry, content_hash(data))

    def _entry(self, rel: str, data: bytes) -> Entry:
        """Parse and check one committed file; VaultError (with an index code) if unusable."""
        from jacked_vault.document import parse_note
        from jacked_vault.safety.secrets import scan_fields

        hot = classify_hot(self.store, rel)
        episodic = classify_episodic(self.store, rel)
        if episodic is not None:
            entry = episodic_entry(data, *episodic, rel)
            fields = {"episodic": entry.body}
        elif hot is not None:
            from jacked_vault.recall.hot import parse_hot

            entry = parse_hot(data, scope=hot[0], group=hot[1], source=rel)
            fields = {"hot": entry.body}
        else:
            note = parse_note(data, source=rel)
            scope, group, kind = classify(self.store, rel)  # type: ignore[misc]
            if (note.scope, note.kind) != (scope, kind) or (scope == "group" and note.group != group):
                raise VaultError(
                    "VALIDATION",
                    f"note says scope={note.scope} group={note.group} kind={note.kind}",
                    details={"index_code": "MISPLACED"},
                )
            from jacked_vault.store.create import secret_fields

            entry, fields = Entry.from_note(note), secret_fields(note)
        leaks = scan_fields(fields)
        if leaks:
            kinds = ", ".join(sorted({kind for _, kind in leaks}))
            raise VaultError("SECRET", f"quarantined: looks like it contains a {kinds}", details={"index_code": "SECRET"})
        return entry

    def add_entry(self, rel: str, entry: Entry, sha: str) -> None:
        """Insert one document (the caller is inside a transaction)."""
        db = self.db
        cur = db.execute(
            "INSERT INTO docs(path, id, title, kind, scope, grp, status, tier, tags, repos, targets,"
            " valid_from, valid_until, created_at, updated_at, summary, sha) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                rel,
                entry.id,
                entry.title,
                entry.kind,
                entry.scope,
                entry.group,
                entry.status,
                entry.tier,
                json.dumps(entry.tags),
                json.dumps(entry.repos),
                json.dumps(entry.targets),
                entry.valid_from,
                entry.valid_until,
                entry.created_at,
                entry.updated_at,
                first_sentence(entry.body),
                sha,
            ),
        )
        rowid = cur.lastrowid
        db.execute(
            "INSERT INTO docs_fts(rowid, title, tags, body) VALUES(?,?,?,?)",
            (rowid, entry.title, " ".join(entry.tags), entry.body),
        )
        from jacked_vault.search import ranking

        ranking.add_doc(db, rowid, entry.title, entry.tags, entry.body)
        db.executemany("INSERT INTO links(src, dst) VALUES(?,?)", [(rowid, dst) for dst in entry.links])

    @contextmanager
    def preview(self, changes: dict[str, Entry | None]) -> Iterator[SearchIndex]:
        """The index as it will be once `changes` (path -> entry, None = removed) are committed.

        Runs in a transaction that is always rolled back: derived files (index.md) can be
        rendered from the index before the commit that makes them true.
        """
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for rel, entry in changes.items():
                self._forget(rel)
                if entry is not None:
                    self.add_entry(rel, entry, "")
            yield self
        finally:
            db.execute("ROLLBACK")

    # -- queries ----------------------------------------------------------------------------

    def count(self) -> int:
        """Number of indexed notes (derived files such as hot.md not counted)."""
        return self.db.execute("SELECT COUNT(*) FROM docs WHERE tier='note'").fetchone()[0]

    def group_index(self, group: str | None, limit: int) -> tuple[list[tuple[str, str, str, str, int]], int]:
        """Active notes of a group for index.md: (title, path, summary, updated_at, inbound links).

        Newest day first, then the most linked, then title; also the total count.
        """
        where = "d.tier='note' AND d.status='active' AND d.grp IS ?"
        total = self.db.execute(f"SELECT COUNT(*) FROM docs d WHERE {where}", (group,)).fetchone()[0]
        rows = self.db.execute(
            "SELECT d.title, d.path, d.summary, d.updated_at,"
            " (SELECT COUNT(*) FROM links l JOIN docs s ON s.rowid = l.src WHERE l.dst = d.id AND s.status='active') AS inbound"
            f" FROM docs d WHERE {where} ORDER BY substr(d.updated_at, 1, 10) DESC, inbound DESC, d.title, d.id LIMIT ?",
            (group, limit),
        ).fetchall()
        return rows, total

    def diagnostics(self) -> Diagnostics:
        diag = Diagnostics(truncated=self._meta("truncated") == "1")
        for path, code in self.db.execute("SELECT path, code FROM problems ORDER BY path"):
            if code == "SYMLINK":
                diag.skipped_symlinks.append(path)
            else:
                diag.invalid_files.append({"path": self.store.display(path, _scope_of(self.store, path)), "code": code})
        return diag

    def _docs(self, sql: str, params: Iterable) -> list[Doc]:
        return [self._doc(row) for row in self.db.execute(sql, tuple(params))]

    def _doc(self, row, score: float = 0.0, excerpt: str = "") -> Doc:
        return Doc(
            rowid=row[0],
            path=row[1],
            id=row[2],
            title=row[3],
            kind=row[4],
            scope=row[5],
            group=row[6],
            status=row[7],
            tier=row[8],
            tags=json.loads(row[9]),
            updated_at=row[10],
            created_at=row[11],
            store=self.store,
            score=score,
            excerpt=excerpt,
        )

    def lookup(self, note_id: str, target: str | None = None, scopes: frozenset[str] | None = None) -> list[Doc]:
        """Every note carrying `note_id` (derived files such as hot.md are not notes); with
        `target`/`scopes`, only those that harness and scopes may see."""
        where, params = _visible_sql(target, scopes)
        return self._docs(f"SELECT {_COLUMNS} FROM docs d WHERE d.id=? AND d.tier='note'{where} ORDER BY d.path", (note_id, *params))

    def backlinks(self, note_id: str, limit: int, target: str | None = None, scopes: frozenset[str] | None = None) -> list[Doc]:
        """Active notes linking to `note_id`, newest first (limit + 1 rows to detect a cut).

        `target`/`scopes` filter in SQL, before the limit, so hidden backlinks never crowd out visible ones.
        """
        where, params = _visible_sql(target, scopes)
        return self._docs(
            f"SELECT DISTINCT {_COLUMNS} FROM links l JOIN docs d ON d.rowid = l.src"
            f" WHERE l.dst=? AND d.status='active'{where} ORDER BY d.updated_at DESC, d.id LIMIT ?",
            (note_id, *params, limit + 1),
        )

    def notes_per_group(self) -> dict[str, int]:
        rows = self.db.execute("SELECT grp, COUNT(*) FROM docs WHERE tier='note' AND scope='group' GROUP BY grp")
        return {grp: n for grp, n in rows}

    def top_decisions(self, group: str | None, limit: int) -> list[tuple[str, str, str, list[str]]]:
        """Active decisions of a group, most linked first: (title, path, summary, tags)."""
        rows = self.db.execute(
            "SELECT d.title, d.path, d.summary, d.tags,"
            " (SELECT COUNT(*) FROM links l JOIN docs s ON s.rowid = l.src WHERE l.dst = d.id AND s.status='active') AS inbound"
            " FROM docs d WHERE d.tier='note' AND d.status='active' AND d.kind='decision' AND d.grp IS ?"
            " ORDER BY inbound DESC, d.updated_at DESC, d.id LIMIT ?",
            (group, limit),
        ).fetchall()
        return [(title, path, summary, json.loads(tags)) for title, path, summary, tags, _ in rows]

    def ids(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT id FROM docs WHERE tier='note'")}

    def duplicate_ids(self) -> list[dict]:
        rows = self.db.execute(
            "SELECT id, group_concat(path, '\n') FROM docs WHERE tier='note' GROUP BY id HAVING COUNT(*) > 1 ORDER BY id"
        )
        return [{"id": i, "paths": [self.store.display(p, _scope_of(self.store, p)) for p in paths.split("\n")]} for i, paths in rows]

    def link_pairs(self) -> Iterator[tuple[str, str]]:
        yield from self.db.execute("SELECT d.id, l.dst FROM links l JOIN docs d ON d.rowid = l.src ORDER BY d.id, l.dst")

    def indexed_files(self) -> dict[str, str]:
        """Store-relative path -> sha256 of every indexed note (for doctor's audit check)."""
        return dict(self.db.execute("SELECT path, sha FROM docs WHERE tier='note'"))

    def problem_paths(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT path FROM problems")}

    def search(self, text: str, filters: Filters) -> list[Doc]:
        """Ranked by `ranking` (BM25F over FTS5 candidates, any query word); no words: newest first."""
        where, params = _filter_sql(filters)
        prefer = filters.prefer_group or ""
        if fts_query(text, "AND") is None:
            sql = (
                f"SELECT {_COLUMNS}, 0.0, substr(f.body, 1, 160) FROM docs d JOIN docs_fts f ON f.rowid = d.rowid"
                f" WHERE {where} ORDER BY (d.grp IS ?) DESC, d.updated_at DESC, d.id LIMIT ?"
            )
            rows = self.db.execute(sql, (*params, prefer, filters.limit)).fetchall()
            return [self._doc(r[:12], r[12], _one_line(r[13])) for r in rows]
        from jacked_vault.search import ranking

        hits = ranking.search(self.db, text, _COLUMNS, where, params, prefer, filters.limit)
        return [self._doc(row, score, _one_line(excerpt)) for row, score, excerpt in hits]


def changed_entries(repo, old_tree, new_tree, prefix: str = "") -> Iterator[tuple[str, object]]:
    """(path, new blob entry or None if removed) for every file that differs between two trees.

    Subtrees with the same id are skipped without being read, so one new note costs O(depth)
    tree reads (libgit2's tree diff walks the whole tree here: 47 ms at 50k notes).
    """
    old = {e.name: e for e in old_tree} if old_tree is not None else {}
    new = {e.name: e for e in new_tree} if new_tree is not None else {}
    for name in sorted(old.keys() | new.keys()):
        before, after = old.get(name), new.get(name)
        if before is not None and after is not None and before.id == after.id and before.filemode == after.filemode:
            continue
        rel = f"{prefix}{name}"
        before_tree = before is not None and before.filemode == _TREE_MODE
        after_tree = after is not None and after.filemode == _TREE_MODE
        if before_tree or after_tree:
            yield from changed_entries(
                repo, repo[before.id] if before_tree else None, repo[after.id] if after_tree else None, f"{rel}/"
            )
        if before is not None and not before_tree and (after is None or after_tree):
            yield rel, None
        if after is not None and not after_tree:
            yield rel, after


def _schema_version(db: sqlite3.Connection) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:  # no meta table yet
        return None
    return row[0] if row else None


def _tree_or_none(repo, commit_id: str | None):
    if not commit_id:
        return None
    try:
        return repo[commit_id].tree
    except (KeyError, ValueError, AttributeError):
        return None


def _scope_of(store: Store, rel: str) -> str:
    found = classify(store, rel)
    if found:
        return found[0]
    return "project" if store.is_project else ("user" if rel.startswith(USER_DIR + "/") else "group")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _visible_sql(target: str | None, scopes: frozenset[str] | None) -> tuple[str, list]:
    """` AND …` clauses limiting docs to those addressed to `target` (or all) in `scopes`."""
    sql, params = "", []
    if target:
        sql += " AND EXISTS (SELECT 1 FROM json_each(d.targets) WHERE value IN (?, 'all'))"
        params.append(target)
    if scopes is not None:
        sql += f" AND d.scope IN ({','.join('?' * len(scopes))})"
        params += sorted(scopes)
    return sql, params


def _filter_sql(f: Filters) -> tuple[str, list]:
    clauses: list[str] = []
    params: list = []
    if f.scopes is not None:
        clauses.append(f"d.scope IN ({','.join('?' * len(f.scopes))})")
        params += sorted(f.scopes)
    if f.group:
        clauses.append("d.grp = ?")
        params.append(f.group)
    if f.kinds:
        clauses.append(f"d.kind IN ({','.join('?' * len(f.kinds))})")
        params += list(f.kinds)
    for tag in f.tags:
        clauses.append("EXISTS (SELECT 1 FROM json_each(d.tags) WHERE value = ?)")
        params.append(tag)
    if f.repo:
        clauses.append("EXISTS (SELECT 1 FROM json_each(d.repos) WHERE value = ?)")
        params.append(f.repo)
    if f.target:
        clauses.append("EXISTS (SELECT 1 FROM json_each(d.targets) WHERE value IN (?, 'all'))")
        params.append(f.target)
    statuses = list(f.statuses)
    if f.as_of:
        clauses.append("d.valid_from <= ? AND (d.valid_until IS NULL OR d.valid_until > ?) AND d.created_at <= ?")
        params += [f.as_of] * 3
        if "active" in statuses and "superseded" not in statuses:
            # a note superseded after the as-of time was still active then
            placeholders = ",".join("?" * len(statuses))
            clauses.append(f"(d.status IN ({placeholders}) OR (d.status = 'superseded' AND d.updated_at > ?))")
            params += statuses + [f.as_of]
            statuses = []
    if statuses:
        clauses.append(f"d.status IN ({','.join('?' * len(statuses))})")
        params += statuses
    return (" AND ".join(clauses) or "1"), params


def open_fresh(store: Store) -> SearchIndex:
    """An index of `store` brought up to its HEAD."""
    index = SearchIndex(store)
    index.refresh()
    return index

