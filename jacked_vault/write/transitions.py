"""Status transitions made by a person (CLI only): accept, reject, supersede, expire.

Each is one commit that changes only `status`, `status_reason`, `trust`, `valid_until` and
`updated_at` of one note, plus its audit line and the group's regenerated index.md. The new
file is built from the note's committed blob, never from the working tree: a hand edit of the
working copy is moved to `.git/jacked/quarantine/` (kept, never committed) and reported. Rejecting
also records the note's tombstone so nothing automatic re-creates it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from jacked_vault.context import Context
from jacked_vault.document import lifecycle, slugify_title, timestamps
from jacked_vault.document.ids import TYPED_ID
from jacked_vault.document.lifecycle import closed_at
from jacked_vault.document.timestamps import format_timestamp, parse_timestamp
from jacked_vault.errors import VaultError
from jacked_vault.recall import librarian
from jacked_vault.recall.librarian import archive_after_days
from jacked_vault.safety import fsio
from jacked_vault.search.entries import Entry
from jacked_vault.store.layout import archived_path
from jacked_vault.store.machine_state import machine_id
from jacked_vault.write.transaction import kept_aside

if TYPE_CHECKING:
    from jacked_vault.document import Note
    from jacked_vault.search.entries import Entry
    from jacked_vault.store.layout import Store
    from jacked_vault.store.trust import Verdict
    from jacked_vault.write.transaction import Transaction

from jacked_vault.document.lifecycle import ALLOWED_FROM

# the index.md changes of a write, per (scope, group): path -> its entry, None when it goes
IndexChanges: TypeAlias = "dict[tuple[str, str | None], dict[str, Entry | None]]"


@dataclass(frozen=True)
class Transitioned:
    id: str
    title: str
    op: str
    status: str
    verdict: Verdict  # what its review is worth here now (for an accept: the review behind it, as weighed here)
    valid_until: str | None
    path: str
    commit: str
    quarantined: list[str] = field(default_factory=list)
    also_rejected: list[str] = field(default_factory=list)  # a reject's live twins (the same value), rejected with it

    @property
    def trust(self) -> str:
        return self.verdict.trust

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "op": self.op,
            "status": self.status,
            **self.verdict.to_json(),
            "valid_until": self.valid_until,
            "path": self.path,
            "commit": self.commit,
            "quarantined": self.quarantined,
            "also_rejected": self.also_rejected,
        }

    def to_text(self) -> str:
        if self.op == "expire":
            state = f"valid until {self.valid_until}"
        else:
            state = self.status
            if self.op == "accept":
                state += ", reviewed by you" if self.verdict.reviewed else f"; {self.verdict.said()}"
        lines = [f"{self.op}: {self.title} ({self.id}) is now {state} [{self.commit[:10]}]"]
        lines += [f"also rejected {twin}: it holds the same value" for twin in self.also_rejected]
        return "\n".join(lines + kept_aside(self.quarantined))


class Located(NamedTuple):
    """Where one note is, what its review is worth here, and its whole id."""

    store: Store
    rel: str
    verdict: Verdict
    id: str


def _locate(ctx: Context, note_id: str) -> Located:
    """One note by id or short id (`search.service.resolve_id`), complete-or-fail like `read`; the
    verdict is what its review is worth here (`store.trust.Verdict`: a claimed review with no
    accept behind it that counts here is `unreviewed`)."""
    from jacked_vault.search.service import fresh_indexes, resolve_id, the_one
    from jacked_vault.store.gate import scan

    scan({"ID": note_id})  # answers name the id: a token given as one is refused, never printed
    if not re.fullmatch(TYPED_ID, note_id):
        raise VaultError("NOT_FOUND", "no note with that id (an id looks like mem_…); nothing was written")
    indexes, diag = fresh_indexes(ctx)
    try:
        note_id = resolve_id(indexes, note_id)
        found = [Located(i.store, doc.path, doc.verdict, doc.id) for i in indexes for doc in i.read.lookup(note_id)]
    finally:
        for index in indexes:
            index.close()
    return the_one(found, diag, note_id)


def _holds_now(ctx: Context, note_id: str, by: str) -> str:
    """The whole id of `by` (an id or a short id); VALIDATION unless it may replace `note_id`: another
    note, active and not expired (a supersede by one that no longer holds would take the fact out
    of recall with nothing there)."""
    from jacked_vault.document import parse_note

    store, rel, _, by = _locate(ctx, by)
    if by == note_id:
        raise VaultError("VALIDATION", f"cannot supersede {note_id} by itself; nothing was written")
    data = fsio.read_optional(store.root, rel, max_bytes=1 << 20)
    new = parse_note(data, source=rel) if data is not None else None
    if new is None:
        raise VaultError("NOT_FOUND", f"{by}: its file is gone; nothing was written")
    now = timestamps.utc_now()
    if new.status != "active":
        hint = f" (accept it first: `jacked memory accept {by}`)" if new.status == "candidate" else ""
        why = f"it is {new.status}{hint}"
    elif new.valid_until is not None and new.valid_until <= now:
        why = f"it expired at {new.valid_until}"
    else:
        return by
    raise VaultError("VALIDATION", f"cannot supersede {note_id} by {by}: {why}; nothing was written")


def transition_changes(
    op: str, note: Note, now: str, *, reason: str | None, valid_until: str | None, by: str | None, reviewed: bool
) -> dict[str, Any]:
    """The fields transition `op` sets on `note` (lifecycle: the statuses it may start from); a
    supersede's reason says by what (`superseded by <id>` unless `reason` names it otherwise)."""
    if note.status not in ALLOWED_FROM[op]:
        raise VaultError("VALIDATION", f"cannot {op} {note.id}: it is {note.status}")
    if op == "accept":
        if note.status == "active" and reviewed:
            raise VaultError("VALIDATION", f"{note.id} is already active and reviewed")
        return {"status": "active", "trust": "reviewed"}
    if op == "reject":
        return {"status": "rejected", "status_reason": " ".join((reason or "").split())}
    if op == "supersede":
        return {
            "status": "superseded",
            "status_reason": reason or f"superseded by {by}",
            "valid_until": note.valid_until or max(now, note.valid_from),
        }
    until = valid_until or now
    if until < note.valid_from:
        raise VaultError("VALIDATION", f"--at {until} is before the note's valid_from {note.valid_from}")
    return {"valid_until": until, "status_reason": reason or note.status_reason}


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
    from jacked_vault.recall.index_md import regenerate_index
    from jacked_vault.store.reviews import person_signs
    from jacked_vault.write.transaction import write_transaction

    if op == "reject" and not (reason and reason.strip()):
        raise VaultError("USAGE", "reject needs --reason")
    if reason:  # as given: a token split over lines is found before whitespace is folded below
        from jacked_vault.store.gate import scan

        scan({"reason": reason})
    if op == "supersede" and not by:
        raise VaultError("USAGE", "supersede needs --by NEW_ID")
    store, rel, verdict, note_id = _locate(ctx, note_id)
    if op == "supersede" and by is not None:  # None refused above
        by = _holds_now(ctx, note_id, by)
    with write_transaction(store, harness=ctx.harness, origin="cli", settings=ctx.settings, may_push=True) as tx:
        done = _apply(
            tx,
            rel,
            note_id,
            op,
            reviewed=verdict.reviewed,
            reason=reason,
            valid_until=valid_until,
            by=by,
            now=timestamps.utc_now(),
        )
        regenerate_index(tx, done.changes)
        note, updated = done.note, done.updated
        commit = tx.commit(
            f"memory({op}): {note.title}",
            sign=op == "accept" and person_signs(ctx.settings.review, tx.repo),
            note_id=note.id,
            reason=updated.status_reason if op != "accept" else None,
        )
    now_worth = _locate(ctx, note_id).verdict if op == "accept" else verdict  # what it is worth, not what it claims
    return Transitioned(
        note.id,
        note.title,
        op,
        updated.status,
        now_worth,
        updated.valid_until,
        store.display(rel, note.scope),
        commit,
        done.kept,
        done.twins,
    )


@dataclass
class _Applied:
    """One transition staged in a transaction: the note before and after, where a hand edit was
    kept, the twins a reject took along, and the index.md changes per (scope, group)."""

    note: Note
    updated: Note
    kept: list[str]
    twins: list[str]
    changes: IndexChanges


def _apply(
    tx: Transaction,
    rel: str,
    note_id: str,
    op: str,
    *,
    reviewed: bool,
    reason: str | None,
    valid_until: str | None,
    by: str | None,
    now: str,
) -> _Applied:
    """Stage transition `op` of the committed note `rel` in `tx`: its new file (built from the
    committed blob), its audit line, and on reject the tombstone and the live twins."""
    from jacked_vault.document import parse_note, render_note
    from jacked_vault.store.tombstones import appended, tombstone_hash, tombstone_path

    committed = tx.committed(rel)
    if committed is None:
        raise VaultError("INCOMPLETE", f"{note_id}: its file is not committed yet; run `jacked memory doctor --repair`")
    note = parse_note(committed, source=rel)
    updated = dataclasses.replace(
        note,
        updated_at=now,
        **transition_changes(op, note, now, reason=reason, valid_until=valid_until, by=by, reviewed=reviewed),
    )
    data = render_note(updated)
    changes: IndexChanges = {(note.scope, note.group): {rel: Entry.from_note(updated)}}
    twins: list[str] = []
    if op == "reject":
        value = tombstone_hash(note.title, note.body)
        path = tombstone_path(machine_id(tx.store.state))
        stones = appended(tx.files.get(path) or tx.committed(path), value)
        if stones is not None:
            tx.replace(path, stones)
            tx.event("tombstone", note.id, path, stones, ts=now)
        twins = _reject_twins(tx, value, rel, note.id, updated.status_reason or "", now, changes)
    kept = tx.transition(rel, data)
    tx.event(op, note.id, rel, data, ts=now)
    return _Applied(note, updated, [kept] if kept else [], twins, changes)


@dataclass(frozen=True)
class EditedAsNew:
    """A candidate edited as a new note (review's `e`): the new note and the reject, one commit."""

    id: str  # the candidate, now rejected
    new_id: str
    title: str  # the new note's
    path: str  # the new note's, as `<scope>:<relative path>`
    commit: str
    quarantined: list[str] = field(default_factory=list)
    also_rejected: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "op": "edit",
            "new_id": self.new_id,
            "path": self.path,
            "commit": self.commit,
            "quarantined": self.quarantined,
            "also_rejected": self.also_rejected,
        }

    def to_text(self) -> str:
        lines = [
            f"edit: {self.id} is rejected, edited as {self.title} ({self.new_id}) at {self.path} [{self.commit[:10]}]"
        ]
        lines += [f"also rejected {twin}: it holds the same value" for twin in self.also_rejected]
        return "\n".join(lines + kept_aside(self.quarantined))


def edit_as_new(ctx: Context, note_id: str, *, title: str, body: str) -> EditedAsNew:
    """SPEC 5.2, edit-as-new: one commit holds a new active note with `title` and `body` (the
    candidate's kind, scope, group, repos, targets, tags and links; written by a person, so
    origin cli and unreviewed) and the reject of the candidate (its tombstone, its live twins).

    The new note passes the same gate as any create (secret scan, validation, the tombstone rule,
    create-only); an edit that leaves the value as it was is refused (accept the candidate
    instead): it would be rejected by its own tombstone. Nothing is written on a refusal.
    """
    from jacked_vault.document import parse_note
    from jacked_vault.recall.index_md import regenerate_index
    from jacked_vault.search.index import rejected_elsewhere
    from jacked_vault.store.gate import check_note, check_tombstone
    from jacked_vault.store.tombstones import tombstone_hash
    from jacked_vault.write.create import build_note
    from jacked_vault.write.transaction import write_transaction

    store, rel, verdict, note_id = _locate(ctx, note_id)
    with write_transaction(
        store,
        harness=ctx.harness,
        origin="cli",
        rejected_elsewhere=rejected_elsewhere(ctx, store),
        settings=ctx.settings,
        may_push=True,
    ) as tx:
        committed = tx.committed(rel)
        if committed is None:
            raise VaultError(
                "INCOMPLETE", f"{note_id}: its file is not committed yet; run `jacked memory doctor --repair`"
            )
        old = parse_note(committed, source=rel)
        now = timestamps.utc_now()
        new = build_note(
            title=title,
            body=body,
            kind=old.kind,
            scope=old.scope,
            group=old.group,
            repos=list(old.repos),
            source_harness=ctx.harness,
            origin="cli",
            target_harnesses=list(old.target_harnesses),
            tags=list(old.tags),
            links=list(old.links),
            now=now,
        )
        checked = check_note(
            new, tombstoned=None
        )  # secrets and validation first: a refusal names the field, never the text
        if tombstone_hash(new.title, new.body) == tombstone_hash(old.title, old.body):
            raise VaultError(
                "VALIDATION", "the edit left the text as it was; accept the candidate instead (nothing was written)"
            )
        check_tombstone(new, tx.rejected, person_override=False)
        new_rel = tx.create(store.note_dir(new.scope, new.group, new.kind), slugify_title(new.title), checked)
        tx.event("create", new.id, new_rel, checked.data, ts=now)
        done = _apply(
            tx,
            rel,
            note_id,
            "reject",
            reviewed=verdict.reviewed,
            reason=f"edited as {new.id}",
            valid_until=None,
            by=None,
            now=now,
        )
        done.changes.setdefault((new.scope, new.group), {})[new_rel] = Entry.from_note(new)
        regenerate_index(tx, done.changes)
        commit = tx.commit(f"memory(edit): {new.title}", note_id=new.id, reason=f"edited from {old.id}")
    return EditedAsNew(old.id, new.id, new.title, store.display(new_rel, new.scope), commit, done.kept, done.twins)


def _reject_twins(
    tx: Transaction, value: str, rel: str, note_id: str, reason: str, now: str, changes: IndexChanges
) -> list[str]:
    """SPEC 5.3: rejecting a value rejects, in the same commit, every other live note of this store
    that holds it (left live, each would be a refused file making every read incomplete). Their
    files are built from the committed blobs, like any transition; returns their ids."""
    from jacked_vault.document import parse_note, render_note

    done = []
    for path in tx.index.read.live_with_value(value):
        committed = tx.committed(path)
        if path == rel or committed is None:
            continue
        twin = parse_note(committed, source=path)
        why = f"the same value as {note_id} was rejected: {reason}"
        rejected = dataclasses.replace(twin, status="rejected", status_reason=why[:500], updated_at=now)
        data = render_note(rejected)
        tx.transition(path, data)
        tx.event("reject", twin.id, path, data, ts=now)
        changes.setdefault((twin.scope, twin.group), {})[path] = Entry.from_note(rejected)
        done.append(twin.id)
    return done


@dataclass(frozen=True)
class Archived:
    """The notes `archive` moved to archive/ (or would move, on a dry run), and its commit."""

    moved: list[dict[str, Any]]  # {"id", "title", "status", "closed_at", "from", "to"} (paths as `<scope>:<path>`)
    after_days: int
    commit: str | None = None
    dry_run: bool = False
    quarantined: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "moved": self.moved,
            "after_days": self.after_days,
            "commit": self.commit,
            "dry_run": self.dry_run,
            "quarantined": self.quarantined,
        }

    def to_text(self) -> str:
        if not self.moved:
            return f"archive: nothing to move (no note superseded or expired more than {self.after_days} day(s) ago)"
        verb = "would move" if self.dry_run else "moved"
        lines = [f"archive: {verb} {len(self.moved)} note(s) closed more than {self.after_days} day(s) ago to archive/"
                 + ("" if self.dry_run else f" [{(self.commit or '')[:10]}]")]  # fmt: skip
        lines += [
            f"  {m['title']} ({m['id']}, {m['status']} since {m['closed_at'][:10]}): {m['from']} -> {m['to']}"
            for m in self.moved
        ]
        return "\n".join(lines + kept_aside(self.quarantined))


def archive(ctx: Context, *, after_days: int | None = None, dry_run: bool = False) -> Archived:
    """Move every vault note closed (superseded or expired, `lifecycle.closed_at`) more than
    `after_days` ago (default `settings.librarian.archive_after_days`) to the same path under
    archive/, in one commit: each a rename with its audit line (`archive`), the file's bytes as
    committed, so its history follows it (`git log --follow`). Archived notes leave every recall
    surface (`search.policy`); `search --include-archived` and a read by id still find them."""
    from jacked_vault.document import parse_note
    from jacked_vault.recall.index_md import regenerate_index
    from jacked_vault.write.transaction import write_transaction

    days = archive_after_days(ctx) if after_days is None else after_days
    if days < 0:
        raise VaultError("USAGE", "--older-than takes a number of days, 0 or more")
    now = timestamps.utc_now()
    cutoff = format_timestamp(parse_timestamp(now) - timedelta(days=days))
    store = ctx.vault
    with write_transaction(store, harness=ctx.harness, origin="librarian", settings=ctx.settings, may_push=True) as tx:
        moved: list[dict[str, Any]] = []
        kept: list[str] = []
        changes: IndexChanges = {}
        for rel in librarian.archive_candidates(tx.index.read, cutoff):
            committed = tx.committed(rel)
            if committed is None:
                continue
            note = parse_note(committed, source=rel)
            if not lifecycle.archivable(note, cutoff):
                continue
            target = archived_path(rel)
            moved.append(
                {
                    "id": note.id,
                    "title": note.title,
                    "status": note.status if note.status != "active" else "expired",
                    "closed_at": closed_at(note),
                    "from": store.display(rel, note.scope),
                    "to": store.display(target, note.scope),
                }
            )
            if dry_run:
                continue
            hand = tx.transition(rel, committed)  # a hand edit of the working copy is kept aside, never archived
            kept += [hand] if hand else []
            folder, stem = target.rsplit("/", 1)
            new_rel = tx.create(folder, stem[: -len(".md")], committed, allow_rejected=True)
            tx.remove(rel)
            moved[-1]["to"] = store.display(new_rel, note.scope)
            tx.event("archive", note.id, new_rel, committed, ts=now)
            changes.setdefault((note.scope, note.group), {})[rel] = None
        if dry_run or not moved:
            return Archived(moved, days, dry_run=dry_run)
        regenerate_index(tx, changes)
        commit = tx.commit(
            f"memory(archive): {len(moved)} note(s) closed more than {days} day(s) ago",
            reason="moved to archive/ by the librarian",
        )
    return Archived(moved, days, commit, quarantined=kept)
