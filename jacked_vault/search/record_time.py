"""Record time (SPEC 7 `--known-at T`): the state each note had in what the vault knew at T.

The index holds each note's current version. A note recorded at or before T and not changed
since (`updated_at <= T`) is what it was then; only the notes changed after T may differ, and
for those the truth is in git: the version the last commit at or before T held (HEAD's
first-parent history, commit time; a commit in T's second that carries a version changed after
T is passed over). `load` puts those versions' states in a connection-local table that the read
policy (`search.policy.Viewer`) reads; a note the vault did not hold at T (its path absent,
another id there, an invalid file, beyond `MAX_COMMITS`) has no row and is not shown.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Protocol

from jacked_vault.document.timestamps import parse_timestamp
from jacked_vault.errors import VaultError
from jacked_vault.search.treediff import FILE_MODES
from jacked_vault.store.git import open_repo, read_blob
from jacked_vault.store.layout import Store

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.document import Note


class Asked(Protocol):
    """What record time needs of an index (search.readmodel.ReadModel): its connection, store and commit."""

    store: Store

    @property
    def db(self) -> sqlite3.Connection: ...

    @property
    def commit(self) -> str | None: ...


TABLE = "temp.known_states"
MAX_COMMITS = 200_000  # how far back the first-parent walk goes before it stops looking
_DDL = (
    "CREATE TEMP TABLE IF NOT EXISTS known_states("
    "doc INTEGER PRIMARY KEY, status TEXT NOT NULL, valid_from TEXT NOT NULL, valid_until TEXT, updated_at TEXT NOT "
    "NULL)"
)


def load(index: Asked, known_at: str) -> None:
    """Fill `TABLE` on `index`'s connection with the state at `known_at` of every note changed after it."""
    db = index.db
    changed = {
        path: (rowid, note_id)
        for rowid, path, note_id in db.execute(
            "SELECT rowid, path, id FROM docs WHERE tier='note' AND created_at <= ? AND updated_at > ?",
            (known_at, known_at),
        )
    }
    db.execute(_DDL)
    db.execute(f"DELETE FROM {TABLE}")
    if not changed:
        return
    states = _states_at(index, changed, known_at)
    db.executemany(f"INSERT INTO {TABLE}(doc, status, valid_from, valid_until, updated_at) VALUES(?,?,?,?,?)", states)


_State = tuple[int, str, str, str | None, str]  # (rowid, status, valid_from, valid_until, updated_at)


def _states_at(index: Asked, changed: dict[str, tuple[int, str]], known_at: str) -> list[_State]:
    """(rowid, status, valid_from, valid_until, updated_at) of each changed note as it stood at `known_at`."""
    import pygit2

    if not index.commit:
        return []
    repo = open_repo(index.store.root)
    second = int(parse_timestamp(known_at).timestamp())
    pending = dict(changed)
    states: list[_State] = []
    parsed: dict[str, Note | None] = {}  # blob id -> the note it holds (None: not a valid note)
    commit = repo.get(index.commit)
    for _ in range(MAX_COMMITS):
        if not isinstance(commit, pygit2.Commit):
            break
        if commit.commit_time <= second:
            for path, (rowid, note_id) in list(pending.items()):
                note = _version(repo, commit, path, parsed)
                if note is not None and note.id == note_id and note.updated_at > known_at:
                    continue  # committed in T's second, but changed after T: an older commit holds T's version
                del pending[path]
                if note is not None and note.id == note_id:
                    states.append((rowid, note.status, note.valid_from, note.valid_until, note.updated_at))
        if not pending or not commit.parent_ids:
            break
        commit = commit.parents[0]
    return states


def _version(repo: pygit2.Repository, commit: pygit2.Commit, path: str, parsed: dict[str, Note | None]) -> Note | None:
    """The note `path` holds in `commit` (None: absent, not a file, or not a valid note)."""
    from jacked_vault.document import parse_note

    try:
        entry = commit.tree[path]
    except KeyError:
        return None
    if entry.filemode not in FILE_MODES:
        return None
    blob = str(entry.id)
    if blob not in parsed:
        data = read_blob(repo, entry.id, path)  # GIT when it is damaged: never read as "not a note"
        try:
            parsed[blob] = parse_note(data, source=path)
        except VaultError:
            parsed[blob] = None
    return parsed[blob]
