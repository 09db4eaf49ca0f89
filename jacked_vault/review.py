"""Status transitions made by a person (CLI only): accept, reject, supersede, expire.

Each is one commit that changes only `status`, `status_reason`, `valid_until` and `updated_at`
of one note, plus its audit line and the group's regenerated index.md. Rejecting also records
the note's tombstone so automatic capture never re-creates it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from jacked_vault.context import Context
from jacked_vault.errors import VaultError

# operation -> statuses it may start from
_ALLOWED_FROM = {
    "accept": ("candidate",),
    "reject": ("candidate", "active"),
    "supersede": ("active",),
    "expire": ("active", "candidate"),
}


@dataclass(frozen=True)
class Transitioned:
    id: str
    title: str
    op: str
    status: str
    path: str
    commit: str


def _locate(ctx: Context, note_id: str):
    """(store, rel) of one note, complete-or-fail like `read`."""
    from jacked_vault.search.service import fresh_indexes

    indexes, diag = fresh_indexes(ctx)
    try:
        found = [(index.store, doc.path) for index in indexes for doc in index.lookup(note_id)]
    finally:
        for index in indexes:
            index.close()
    if not found:
        if not diag.complete:
            raise VaultError("INCOMPLETE", f"no note {note_id} among the valid files, but {len(diag.invalid_files)} file(s) are invalid")
        raise VaultError("NOT_FOUND", f"no note with id {note_id}")
    if len(found) > 1:
        raise VaultError("INCOMPLETE", f"{note_id} is not unique: {len(found)} files carry it; run `jacked memory doctor`")
    return found[0]


def transition(
    ctx: Context,
    note_id: str,
    op: str,
    *,
    reason: str | None = None,
    valid_until: str | None = None,
    by: str | None = None,
) -> Transitioned:
    """Apply one transition in one commit (with audit line, index.md, and the tombstone on reject)."""
    from jacked_vault.document import MAX_FILE_BYTES, parse_note, render_note, utc_now
    from jacked_vault.recall.index_md import regenerate_index
    from jacked_vault.safety import fsio
    from jacked_vault.safety.secrets import assert_no_secrets
    from jacked_vault.search.index import Entry
    from jacked_vault.store import audit
    from jacked_vault.store.tombstones import tombstone_hash, tombstone_path
    from jacked_vault.store.transaction import write_transaction

    if op == "reject" and not (reason and reason.strip()):
        raise VaultError("USAGE", "reject needs --reason")
    if reason:
        assert_no_secrets({"reason": reason})
    store, rel = _locate(ctx, note_id)
    if op == "supersede":
        if not by:
            raise VaultError("USAGE", "supersede needs --by NEW_ID")
        _locate(ctx, by)
    settings = ctx.config.get("settings", {})
    with write_transaction(store, author=settings.get("author"), lock_timeout_s=settings.get("lock_timeout_s")) as tx:
        note = parse_note(fsio.read_file(store.root, rel, max_bytes=MAX_FILE_BYTES), source=rel)
        if note.status not in _ALLOWED_FROM[op]:
            raise VaultError("VALIDATION", f"cannot {op} {note_id}: it is {note.status}")
        now = utc_now()
        changes: dict = {"updated_at": now}
        if op == "accept":
            changes["status"] = "active"
        elif op == "reject":
            changes.update(status="rejected", status_reason=" ".join(reason.split()))
        elif op == "supersede":
            changes.update(status="superseded", status_reason=f"superseded by {by}")
        else:
            until = valid_until or now
            if until < note.valid_from:
                raise VaultError("VALIDATION", f"--at {until} is before the note's valid_from {note.valid_from}")
            changes.update(valid_until=until, status_reason=reason or note.status_reason)
        updated = dataclasses.replace(note, **changes)
        data = render_note(updated)
        tx.replace(rel, data)
        tx.record(audit.AuditEvent(now, op, note.id, rel, audit.content_hash(data), ctx.harness, "cli"))
        if op == "reject":
            machine = audit.machine_id(store.cache)
            path = tombstone_path(machine)
            previous = fsio.read_optional(store.root, path, max_bytes=16 * 1024 * 1024) or b""
            tx.replace(path, previous + (tombstone_hash(note.title, note.body) + "\n").encode())
        regenerate_index(tx, note.scope, note.group, {rel: Entry.from_note(updated)})
        why = f"\nMemory-Reason: {updated.status_reason}" if updated.status_reason and op != "accept" else ""
        commit = tx.commit(
            f"memory({op}): {note.title}\n\nMemory-Id: {note.id}\nMemory-Origin: cli\nMemory-Harness: {ctx.harness}{why}\n"
        )
    return Transitioned(note.id, note.title, op, updated.status, store.display(rel, note.scope), commit)


def candidates(ctx: Context, limit: int = 200) -> list:
    """The review queue: candidate notes in every visible store, oldest first."""
    from jacked_vault.search.index import Filters
    from jacked_vault.search.service import search

    result = search(ctx, "", Filters(scopes=frozenset({"group", "project", "user"}), statuses=("candidate",), limit=limit))
    return sorted(result.results, key=lambda d: (d.created_at, d.id))
