"""The search index's file: its connection, its schema (`SCHEMA_VERSION` names it) and its `meta`
rows. An index file of another version, or one half made, is emptied and made again (the gate's
verdicts aside: they are kept through a rebuild); it is derived, so nothing is lost."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store.layout import STATE_DIR, Store

INDEX_DB = "index.sqlite"  # the search index in the cache (not index.md: layout.INDEX_FILE)

_DDL = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS docs(
    rowid INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    root TEXT NOT NULL,
    id TEXT NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    scope TEXT NOT NULL,
    grp TEXT,
    status TEXT NOT NULL,
    trust TEXT NOT NULL,
    claim TEXT NOT NULL,
    review TEXT,
    origin TEXT NOT NULL,
    tier TEXT NOT NULL,
    tags TEXT NOT NULL,
    repos TEXT NOT NULL,
    targets TEXT NOT NULL,
    valid_from TEXT NOT NULL,
    valid_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    summary TEXT NOT NULL,
    sha TEXT NOT NULL,
    thash TEXT,
    size INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_group ON docs(grp, status, tier);
CREATE INDEX IF NOT EXISTS docs_id ON docs(id);
CREATE INDEX IF NOT EXISTS docs_updated ON docs(updated_at);
CREATE INDEX IF NOT EXISTS docs_group_updated ON docs(grp, updated_at);
CREATE INDEX IF NOT EXISTS docs_thash ON docs(thash);
CREATE INDEX IF NOT EXISTS docs_status ON docs(status, tier, valid_until);
CREATE INDEX IF NOT EXISTS docs_root ON docs(root, path);
CREATE TABLE IF NOT EXISTS doc_targets(doc INTEGER NOT NULL, target TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS doc_targets_doc ON doc_targets(doc, target);
CREATE TABLE IF NOT EXISTS links(src INTEGER NOT NULL, dst TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS links_dst ON links(dst);
CREATE INDEX IF NOT EXISTS links_src ON links(src);
-- search/wikilinks.py: each note's [[wikilink]] targets, and the names a wikilink may give a note
CREATE TABLE IF NOT EXISTS wikilinks(src INTEGER NOT NULL, target TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS wikilinks_target ON wikilinks(target);
CREATE INDEX IF NOT EXISTS wikilinks_src ON wikilinks(src);
CREATE TABLE IF NOT EXISTS note_names(doc INTEGER NOT NULL, name TEXT NOT NULL, by_title INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS note_names_name ON note_names(name, by_title);
CREATE INDEX IF NOT EXISTS note_names_doc ON note_names(doc);
-- store/tombstones.py: the values each hot.md and episodic document holds (a tombstone added later withholds them)
CREATE TABLE IF NOT EXISTS doc_values(doc INTEGER NOT NULL, hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS doc_values_hash ON doc_values(hash);
CREATE INDEX IF NOT EXISTS doc_values_doc ON doc_values(doc);
CREATE TABLE IF NOT EXISTS problems(path TEXT PRIMARY KEY, root TEXT NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL, size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tombstones(hash TEXT NOT NULL, source TEXT NOT NULL, PRIMARY KEY(hash, source));
-- store/reviews.py: the accepts history holds (what `trust: reviewed` needs behind it)
CREATE TABLE IF NOT EXISTS reviews(id TEXT NOT NULL, value TEXT NOT NULL, commit_id TEXT NOT NULL, machine TEXT NOT NULL, author TEXT NOT NULL, signed INTEGER NOT NULL, verified INTEGER NOT NULL, PRIMARY KEY(id, value, commit_id));
CREATE INDEX IF NOT EXISTS reviews_commit ON reviews(commit_id);
CREATE INDEX IF NOT EXISTS docs_claim ON docs(claim);
CREATE TABLE IF NOT EXISTS roots(
    prefix TEXT PRIMARY KEY, truncated INTEGER NOT NULL DEFAULT 0, files INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS docs_text(doc INTEGER PRIMARY KEY, title TEXT NOT NULL, tags TEXT NOT NULL, body TEXT NOT NULL);
-- search/ranking.py: each document's analysed fields, and their totals; kept with every add and removal
CREATE VIRTUAL TABLE IF NOT EXISTS docs_terms USING fts5(title, tags, body, tokenize = 'ascii');
CREATE TABLE IF NOT EXISTS terms_stats(
    id INTEGER PRIMARY KEY CHECK (id = 0), docs INTEGER NOT NULL, title INTEGER NOT NULL, tags INTEGER NOT NULL, body INTEGER NOT NULL
);
-- store/gate.py: the content verdicts this machine's gate reached (kept through a rebuild; not in _TABLES)
CREATE TABLE IF NOT EXISTS verdicts(key BLOB PRIMARY KEY) WITHOUT ROWID;
"""  # noqa: E501 - its bytes make SCHEMA_VERSION: re-wrapping them would rebuild every index

# What goes into a row (summaries, which files are searched); bump it when that changes.
INDEX_RULES = (
    "4: summaries skip header blocks; rolled day files not searched; recent.md and archive.md dated by their newest "
    "day; terms: CJK bigrams, Latin letters spelled in ASCII (issue 18.16, 18.17), camelCase, snake_case and "
    "kebab-case words split and also kept joined (issue 33.1)"
)
# Any change to the DDL or the rules changes the version, so an old index file is rebuilt, never half-migrated.
SCHEMA_VERSION = hashlib.sha256((_DDL + INDEX_RULES).encode()).hexdigest()[:16]

# The DDL's statements, one at a time (`execute` runs them inside a transaction; `executescript` commits first).
STATEMENTS = [part for part in (p.strip() for p in re.sub(r"--[^\n]*", "", _DDL).split(";")) if part]
# The secondary indexes (name -> its DDL): dropped while a whole tree is inserted, then made again.
SECONDARY = {m.group(1): m.group(0) for m in re.finditer(r"CREATE INDEX IF NOT EXISTS (\w+) ON [^;]+", _DDL)}
# Every table a reset empties, `meta` last (the verdicts table is kept: content-keyed, still true).
TABLES = (
    "docs",
    "doc_targets",
    "links",
    "wikilinks",
    "note_names",
    "doc_values",
    "problems",
    "tombstones",
    "reviews",
    "roots",
    "docs_text",
    "docs_terms",
    "terms_stats",
    "meta",
)


def connect(store: Store, path: Path) -> sqlite3.Connection:
    """The index file at `path` (in `store`'s state folder), made or emptied when its schema is not
    `SCHEMA_VERSION`; a file SQLite cannot open is removed and made again once."""

    with fsio.open_dir(store.root, STATE_DIR, create=True):
        pass  # a symlinked state folder is refused, never followed
    for name in (str(path), *(f"{path}{s}" for s in ("-wal", "-shm"))):
        try:
            mode = os.lstat(name).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            raise VaultError(
                "UNSAFE_PATH",
                f"{name} is not a regular file (a folder or a symlink); the search index is derived, "
                f"so move it away and it is rebuilt: `mv {name} {name}.broken`",
            )
    for attempt in range(2):
        db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            if _schema_version(db) != SCHEMA_VERSION:  # new, old or half-made: build it afresh
                reset(db)
            return db
        except sqlite3.DatabaseError:
            db.close()
            if attempt:
                raise VaultError(
                    "INCOMPLETE",
                    f"{path} cannot be opened as the search index; remove it and run `jacked memory doctor --reindex`",
                ) from None
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{path}{suffix}")
    raise AssertionError("unreachable")


def reset(db: sqlite3.Connection) -> None:
    """Empty every table but the verdicts: dropped and made again (deleting an FTS5 table's
    rows one by one cost a rebuild 0.05 ms a note)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for table in TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in STATEMENTS:
            db.execute(statement)
        db.execute("INSERT INTO meta(key, value) VALUES('schema', ?)", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _schema_version(db: sqlite3.Connection) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:  # no meta table yet
        return None
    return row[0] if row else None


def meta(db: sqlite3.Connection, key: str) -> str | None:
    """A `meta` row's value (the commit mirrored, the reviews walked, the review policy followed)."""
    row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


IN_CHUNK = 500  # values one `IN (...)` asks for (SQLite allows 32,766 variables a statement; 999 before 3.32)


def rows_in(db: sqlite3.Connection, sql: str, values: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    """The rows of `sql` for `values` (distinct, sorted), `IN_CHUNK` of them a query: each
    `{marks}` in `sql` is filled with one `?` a value of the chunk."""
    listed = sorted(set(values))
    uses = sql.count("{marks}")
    for start in range(0, len(listed), IN_CHUNK):
        chunk = listed[start : start + IN_CHUNK]
        yield from db.execute(sql.format(marks=",".join("?" * len(chunk))), chunk * uses)


def set_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))
