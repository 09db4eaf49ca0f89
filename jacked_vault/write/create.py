"""The one create path (CLI add/handoff, MCP save, capture, migration all come here).

gate (secret scan, validation, tombstones) -> lock -> write the file create-only -> regenerate
index.md -> audit line -> one commit (gated again) -> refresh the search index -> unlock. A
failure before the commit undoes the files it wrote; a crash leaves at worst a complete valid
file that `doctor --repair` commits (with `--supersedes`, nothing: the next write rolls it back).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jacked_vault import document
from jacked_vault.document import Note, render_note, slugify_title, utc_now
from jacked_vault.errors import VaultError
from jacked_vault.search.entries import Entry
from jacked_vault.store.gate import Checked
from jacked_vault.store.layout import Store
from jacked_vault.store.settings import DEFAULT_SETTINGS, Settings
from jacked_vault.store.tombstones import NO_STONES, Tombstoned
from jacked_vault.write.transaction import kept_aside, write_transaction

if TYPE_CHECKING:
    from jacked_vault.search.entries import Doc
    from jacked_vault.search.readmodel import ReadModel
    from jacked_vault.write.transaction import Transaction


@dataclass(frozen=True)
class Created:
    """What a create produced: the note, its store-relative path, the commit, and where the hand
    edits of the notes it superseded were kept (quarantine file names).

    A create that repeats a live note (SPEC 5.6) answers with that note instead: `duplicate_of`
    is its id, `note` and `rel` are that note's, and `commit` is None (nothing was written).
    `same_title` names the live notes in the same place with the same title and other text."""

    note: Note
    rel: str
    commit: str | None
    store: Store
    quarantined: list[str] = field(default_factory=list)
    duplicate_of: str | None = None
    same_title: list[str] = field(default_factory=list)

    @property
    def display_path(self) -> str:
        return self.store.display(self.rel, self.note.scope)

    def to_json(self) -> dict[str, Any]:
        out = {
            "memory": self.note.frontmatter(),
            "path": self.display_path,
            "commit": self.commit,
            "quarantined": self.quarantined,
        }
        if self.duplicate_of is not None:
            out["duplicate_of"] = self.duplicate_of
        if self.same_title:
            out["same_title"] = self.same_title
        return out

    def to_text(self) -> str:
        note = self.note
        if self.duplicate_of is not None:
            return "\n".join([
                f"Already saved as {note.kind}: {note.title} ({note.id}); "
                "the same title and text, so nothing was written",
                f"  at {self.display_path}",
            ])  # fmt: skip
        assert self.commit is not None, "a create that is no duplicate made a commit"
        waiting = " (a candidate: it waits for `jacked memory review`)" if note.status == "candidate" else ""
        lines = [
            f"Added {note.kind}: {note.title} ({note.id}){waiting}",
            f"  at {self.display_path} [{self.commit[:10]}]",
        ]
        if self.same_title:
            lines.append(
                f"  note: the same title, other text, is already saved as {', '.join(self.same_title)}; both are kept"
                " (`--supersedes ID` replaces one)"
            )
        return "\n".join(lines + kept_aside(self.quarantined))


def duplicate_of(index: ReadModel, note: Note, value_hash: str | None = None) -> Doc | None:
    """SPEC 5.6: the live note (candidate or active, not expired) a create of `note` would repeat:
    the same normalised title and body (the tombstone normalisation) in the same scope and group,
    for the same target harnesses (a note for other readers is another note); else None.
    `value_hash`: the note's `tombstone_hash`, when the caller has it (an arrival's derivation)."""
    from jacked_vault.store.tombstones import tombstone_hash

    value_hash = value_hash or tombstone_hash(note.title, note.body)
    twins = index.live_in_place(note.scope, note.group, note.target_harnesses, note.created_at, value_hash=value_hash)
    return twins[0] if twins else None


def _answer_with(tx: Transaction, store: Store, note: Note, twin: Doc) -> Created:
    """The answer to a create that repeats `twin`: that note as committed, nothing written. A
    create that also asks to supersede notes `twin` did not supersede is refused (EXISTS), never
    half done."""
    from jacked_vault.document import parse_note

    committed = tx.committed(twin.path)
    if committed is None:
        raise VaultError("INCOMPLETE", f"{twin.id}: its file is not committed; run `jacked memory doctor`")
    existing = parse_note(committed, source=twin.path, checked=True)
    missing = [old for old in note.supersedes if old not in existing.supersedes]
    if missing:
        raise VaultError(
            "EXISTS",
            f"the same note is already saved as {twin.id}, which does not supersede {', '.join(missing)}; "
            f"supersede with it instead: `jacked memory supersede {missing[0]} --by {twin.id}`; nothing was written",
        )
    return Created(note=existing, rel=twin.path, commit=None, store=store, duplicate_of=twin.id)


def _superseded_copies(tx: Transaction, note: Note, now: str) -> list[tuple[str, bytes, Note]]:
    """(rel, new bytes, new note) for each note `note` supersedes; each must be active. Built from
    the committed blob; the old fact's validity ends where the new one's begins."""
    from jacked_vault.document import parse_note

    out = []
    for old_id in note.supersedes:
        docs = tx.index.read.lookup(old_id)
        if len(docs) != 1:
            raise VaultError(
                "NOT_FOUND" if not docs else "INCOMPLETE",
                f"cannot supersede {old_id}: found {len(docs)} notes with that id",
            )
        rel = docs[0].path
        committed = tx.committed(rel)
        if committed is None:
            raise VaultError(
                "INCOMPLETE", f"cannot supersede {old_id}: its file is not committed; run `jacked memory doctor`"
            )
        old = parse_note(committed, source=rel)
        if old.status != "active":
            raise VaultError("VALIDATION", f"cannot supersede {old_id}: it is {old.status}, not active")
        until = old.valid_until or max(note.valid_from, old.valid_from)
        new = dataclasses.replace(
            old, status="superseded", status_reason=f"superseded by {note.id}", valid_until=until, updated_at=now
        )
        out.append((rel, render_note(new), new))
    return out


def create_note(
    store: Store,
    note: Note,
    *,
    checked: Checked | None = None,
    settings: Settings = DEFAULT_SETTINGS,
    allow_rejected: bool = False,
    rejected_elsewhere: Tombstoned = NO_STONES,
    may_push: bool = False,
) -> Created:
    """Gate, write, audit and commit one new note with its group's index.md. All or nothing.

    The gate judges the note once, before the lock (a refusal costs nothing; `checked`: the
    caller's verdict on this very note, `store.gate.check_note`); the commit and the index take
    that verdict for the same bytes, and the tombstone rule is applied again under the lock. A
    value that was rejected before (a tombstone) is refused: always for automatic capture, MCP
    and migration; for a person unless `allow_rejected`. A note that repeats a live one
    (`duplicate_of`) is answered with that note, and nothing is written.
    """
    from jacked_vault.recall.index_md import regenerate_index
    from jacked_vault.store.gate import check_note, check_tombstone
    from jacked_vault.store.tombstones import LIFT_OP, tombstone_hash

    if checked is None or checked.note is not note:
        checked = check_note(note, tombstoned=None)
    data = checked.data
    with write_transaction(
        store,
        harness=note.source_harness,
        origin=note.origin,
        settings=settings,
        rejected_elsewhere=rejected_elsewhere,
        may_push=may_push,
    ) as tx:
        check_tombstone(note, tx.rejected, person_override=allow_rejected)
        if tx.index.read.lookup(note.id):
            raise VaultError("EXISTS", f"a note with id {note.id} already exists")
        twin = duplicate_of(tx.index.read, note)
        if twin is not None:
            return _answer_with(tx, store, note, twin)
        same_title = [
            d.id
            for d in tx.index.read.live_in_place(
                note.scope, note.group, note.target_harnesses, note.created_at, title=note.title
            )
        ]
        superseded = _superseded_copies(tx, note, note.created_at)
        # the superseded notes are written first: a kill after the new note's write then rolls
        # both back (write.transaction.interrupted), never leaving a new note without its supersede
        quarantined = [kept for old_rel, after, _ in superseded if (kept := tx.transition(old_rel, after))]
        rel = tx.create(
            store.note_dir(note.scope, note.group, note.kind),
            slugify_title(note.title),
            checked,
            allow_rejected=allow_rejected,
        )
        tx.event("create", note.id, rel, data, ts=note.created_at)
        lifted = allow_rejected and tx.rejected(tombstone_hash(note.title, note.body)) is not None
        signed = False
        if lifted:  # a person's decision, synced with its time; signed as a review is, where keys are trusted
            from jacked_vault.store.reviews import person_signs

            tx.event(LIFT_OP, note.id, rel, data, ts=note.created_at)
            signed = person_signs(settings.review, tx.repo)
        changes: dict[str, Entry | None] = {rel: Entry.from_note(note)}
        for old_rel, after, new in superseded:
            tx.event("supersede", new.id, old_rel, after, ts=note.created_at)
            changes[old_rel] = Entry.from_note(new)
        regenerate_index(tx, {(note.scope, note.group): changes})
        commit = tx.commit(
            f"memory({note.kind}): {note.title}",
            note_id=note.id,
            lift=note.id if lifted else None,
            sign=signed,
        )
    return Created(note=note, rel=rel, commit=commit, store=store, quarantined=quarantined, same_title=same_title)


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

    now = now or utc_now()
    return Note(
        id=document.new_note_id(),  # through the package: tests fix the id there
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
