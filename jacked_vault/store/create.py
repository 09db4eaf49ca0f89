"""The one create path (CLI add/handoff, MCP save, capture, migration all come here).

secret scan -> validate -> lock -> write the file create-only -> regenerate index.md ->
audit line -> one commit -> refresh the search index -> unlock. A failure before the commit
undoes the files it wrote; a crash leaves at worst a complete valid file that
`doctor --repair` commits.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from jacked_vault.document import Note, render_note, slugify_title, utc_now, validate_note
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.safety.secrets import assert_no_secrets
from jacked_vault.store import audit
from jacked_vault.store.layout import Store
from jacked_vault.store.transaction import write_transaction


@dataclass(frozen=True)
class Created:
    """What a create produced: the note, its store-relative path and the commit."""

    note: Note
    rel: str
    commit: str
    store: Store

    @property
    def display_path(self) -> str:
        return self.store.display(self.rel, self.note.scope)


def secret_fields(note: Note) -> dict[str, object]:
    """Every free-text field a secret could hide in, raw."""
    return {
        "title": note.title,
        "body": note.body,
        "tags": note.tags,
        "repos": note.repos,
        "group": note.group or "",
        "status_reason": note.status_reason or "",
    }


def commit_message(note: Note, harness: str) -> str:
    return (
        f"memory({note.kind}): {note.title}\n\n"
        f"Memory-Id: {note.id}\nMemory-Origin: {note.origin}\nMemory-Harness: {harness}\n"
    )


def _superseded_copies(index, note: Note, now: str) -> list[tuple[str, bytes, Note]]:
    """(rel, new bytes, new note) for each note `note` supersedes; each must be active."""
    from jacked_vault.document import MAX_FILE_BYTES, parse_note

    out = []
    for old_id in note.supersedes:
        docs = index.lookup(old_id)
        if len(docs) != 1:
            raise VaultError("NOT_FOUND" if not docs else "INCOMPLETE", f"cannot supersede {old_id}: found {len(docs)} notes with that id")
        rel = docs[0].path
        old = parse_note(fsio.read_file(index.store.root, rel, max_bytes=MAX_FILE_BYTES), source=rel)
        if old.status != "active":
            raise VaultError("VALIDATION", f"cannot supersede {old_id}: it is {old.status}, not active")
        new = dataclasses.replace(old, status="superseded", status_reason=f"superseded by {note.id}", updated_at=now)
        out.append((rel, render_note(new), new))
    return out


AUTOMATIC_ORIGINS = frozenset({"session-end", "pre-compact", "post-merge", "migration", "librarian"})


def create_note(
    store: Store,
    note: Note,
    *,
    author: dict | None = None,
    lock_timeout_s: float | None = None,
    allow_rejected: bool = False,
) -> Created:
    """Validate, scan, write, audit and commit one new note with its group's index.md. All or nothing.

    A value that was rejected before (a tombstone) is refused: always for automatic capture,
    for a person unless `allow_rejected`.
    """
    from jacked_vault.recall.index_md import regenerate_index
    from jacked_vault.search.index import Entry
    from jacked_vault.store.tombstones import is_tombstoned

    assert_no_secrets(secret_fields(note))  # first: validation messages may quote a bad value
    validate_note(note)
    data = render_note(note)
    with write_transaction(store, author=author, lock_timeout_s=lock_timeout_s) as tx:
        if (note.origin in AUTOMATIC_ORIGINS or not allow_rejected) and is_tombstoned(store, note.title, note.body):
            hint = "" if note.origin in AUTOMATIC_ORIGINS else " (add --allow-rejected to save it anyway)"
            raise VaultError("TOMBSTONED", f"this note was rejected before; not re-created{hint}")
        if tx.index.lookup(note.id):
            raise VaultError("EXISTS", f"a note with id {note.id} already exists")
        superseded = _superseded_copies(tx.index, note, note.created_at)
        rel = tx.create(store.note_dir(note.scope, note.group, note.kind), slugify_title(note.title), data)
        tx.record(_event(note, "create", note.id, rel, data))
        changes = {rel: Entry.from_note(note)}
        for old_rel, after, new in superseded:
            tx.replace(old_rel, after)
            tx.record(_event(note, "supersede", new.id, old_rel, after))
            changes[old_rel] = Entry.from_note(new)
        regenerate_index(tx, note.scope, note.group, changes)
        commit = tx.commit(commit_message(note, note.source_harness))
    return Created(note=note, rel=rel, commit=commit, store=store)


def _event(note: Note, op: str, note_id: str, rel: str, data: bytes) -> audit.AuditEvent:
    return audit.AuditEvent(note.created_at, op, note_id, rel, audit.content_hash(data), note.source_harness, note.origin)


def build_note(
    *,
    title: str,
    body: str,
    kind: str,
    scope: str,
    group: str | None,
    repos: list[str],
    source_harness: str,
    origin: str,
    target_harnesses: list[str] | None = None,
    tags: list[str] | None = None,
    links: list[str] | None = None,
    supersedes: list[str] | None = None,
    status: str = "active",
    valid_from: str | None = None,
    now: str | None = None,
) -> Note:
    """A new note with a fresh id and timestamps; body trimmed of outer blank space."""
    from jacked_vault.document import new_note_id

    now = now or utc_now()
    return Note(
        id=new_note_id(),
        title=title.strip(),
        kind=kind,
        scope=scope,
        group=group if scope == "group" else None,
        repos=_unique(repos),
        status=status,
        origin=origin,
        source_harness=source_harness,
        target_harnesses=_unique(target_harnesses or ["all"]),
        tags=_unique(tags or []),
        links=_unique(links or []),
        supersedes=_unique(supersedes or []),
        valid_from=valid_from or now,
        valid_until=None,
        created_at=now,
        updated_at=now,
        body=body.strip("\r\n").rstrip(),
    )


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
