"""The one create path (CLI add/handoff, MCP save, capture, migration all come here).

validate -> secret scan -> lock -> write the file create-only -> audit line -> one commit
-> refresh the search index -> unlock. A failure before the commit undoes the files it
wrote; a crash leaves at worst a complete valid file that `doctor --repair` commits.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from jacked_vault.document import Note, render_note, slugify_title, utc_now, validate_note
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.safety.secrets import assert_no_secrets
from jacked_vault.store import audit, git
from jacked_vault.store.lock import store_lock
from jacked_vault.store.layout import Store
from jacked_vault.store.vault import check_store_gitignore

MAX_NAME_TRIES = 1000


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


def _claim_name(store: Store, folder: str, stem: str, data: bytes) -> str:
    """Create `<folder>/<stem>.md`, or `-2`, `-3`, … on a clash; never replaces a file."""
    for n in range(1, MAX_NAME_TRIES + 1):
        rel = f"{folder}/{stem}.md" if n == 1 else f"{folder}/{stem}-{n}.md"
        try:
            fsio.create_file(store.root, rel, data)
            return rel
        except VaultError as exc:
            if exc.code != "EXISTS":
                raise
    raise VaultError("EXISTS", f"{folder}/{stem}.md and {MAX_NAME_TRIES} numbered variants exist")


def _superseded_copies(index, note: Note, now: str) -> list[tuple[str, bytes, bytes, Note]]:
    """(rel, old bytes, new bytes, new note) for each note `note` supersedes; must be active."""
    from jacked_vault.document import MAX_FILE_BYTES, parse_note

    out = []
    for old_id in note.supersedes:
        docs = index.lookup(old_id)
        if len(docs) != 1:
            raise VaultError("NOT_FOUND" if not docs else "INCOMPLETE", f"cannot supersede {old_id}: found {len(docs)} notes with that id")
        rel = docs[0].path
        before = fsio.read_file(index.store.root, rel, max_bytes=MAX_FILE_BYTES)
        old = parse_note(before, source=rel)
        if old.status != "active":
            raise VaultError("VALIDATION", f"cannot supersede {old_id}: it is {old.status}, not active")
        new = dataclasses.replace(old, status="superseded", status_reason=f"superseded by {note.id}", updated_at=now)
        out.append((rel, before, render_note(new), new))
    return out


def create_note(store: Store, note: Note, *, author: dict | None = None, lock_timeout_s: float | None = None) -> Created:
    """Validate, scan, write, audit and commit one new note; refresh the index. All or nothing."""
    from jacked_vault.search.index import SearchIndex

    assert_no_secrets(secret_fields(note))  # first: validation messages may quote a bad value
    validate_note(note)
    data = render_note(note)
    check_store_gitignore(store)
    lock_args = {} if lock_timeout_s is None else {"timeout_s": lock_timeout_s}
    with store_lock(store.cache, **lock_args):
        index = SearchIndex(store)
        try:
            index.refresh()
            if index.lookup(note.id):
                raise VaultError("EXISTS", f"a note with id {note.id} already exists")
            superseded = _superseded_copies(index, note, note.created_at)
            commit = _write_and_commit(store, note, data, superseded, author)
            index.refresh()
        finally:
            index.close()
    return commit


def _write_and_commit(store, note: Note, data: bytes, superseded, author) -> Created:
    folder = store.note_dir(note.scope, note.group, note.kind)
    machine = audit.machine_id(store.cache)
    rel = _claim_name(store, folder, slugify_title(note.title), data)
    events = [audit.AuditEvent(note.created_at, "create", note.id, rel, audit.content_hash(data), note.source_harness, note.origin)]
    files = {rel: data}
    written: list[tuple[str, bytes]] = []
    pending = None
    try:
        for old_rel, before, after, new in superseded:
            fsio.replace_file(store.root, old_rel, after)
            written.append((old_rel, before))
            files[old_rel] = after
            events.append(audit.AuditEvent(note.created_at, "supersede", new.id, old_rel, audit.content_hash(after), note.source_harness, note.origin))
        pending = audit.stage(store.root, machine, events)
        fsio.replace_file(store.root, pending.rel, pending.after)
        files[pending.rel] = pending.after
        repo = git.open_repo(store.root)
        commit = git.commit_files(repo, files, commit_message(note, note.source_harness), author=author)
    except BaseException:
        _undo(store, rel, written, pending)
        raise
    return Created(note=note, rel=rel, commit=commit, store=store)


def _undo(store: Store, rel: str, rewritten: list[tuple[str, bytes]], pending) -> None:
    """Put the working tree back as it was before a create that did not commit."""
    fsio.remove_file(store.root, rel)
    for old_rel, before in rewritten:
        fsio.replace_file(store.root, old_rel, before)
    if pending is not None:
        if pending.before is None:
            try:
                fsio.remove_file(store.root, pending.rel)
            except FileNotFoundError:
                pass
        else:
            fsio.replace_file(store.root, pending.rel, pending.before)


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
