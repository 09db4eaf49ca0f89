"""Adding and reading notes for a Context: the functions every front end calls."""

from __future__ import annotations

from dataclasses import dataclass

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.store.create import Created, build_note, create_note

MAX_BACKLINKS = 50


@dataclass(frozen=True)
class AddRequest:
    """Everything `add` (and `handoff`) can say about a new note."""

    title: str
    body: str
    kind: str = "note"
    scope: str = "group"
    group: str | None = None
    repos: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    valid_from: str | None = None
    origin: str = "cli"
    status: str = "active"
    allow_rejected: bool = False


def add(ctx: Context, req: AddRequest) -> Created:
    """Create one note in the scope the request names (group by default)."""
    if req.scope not in ("group", "user", "project"):
        raise VaultError("USAGE", f"unknown scope {req.scope!r}: use group, user or project")
    if req.scope == "project" and req.group:
        raise VaultError("USAGE", "--group does not apply to project scope")
    vault = ctx.vault
    group = ctx.require_group(req.group) if req.scope == "group" else None
    repos = list(req.repos) or ([ctx.repo.identity] if ctx.repo is not None else [])
    note = build_note(
        title=req.title,
        body=req.body,
        kind=req.kind,
        scope=req.scope,
        group=group,
        repos=repos,
        source_harness=ctx.harness,
        origin=req.origin,
        target_harnesses=list(req.targets),
        tags=list(req.tags),
        links=list(req.links),
        supersedes=list(req.supersedes),
        status=req.status,
        valid_from=req.valid_from,
    )
    store = ctx.project_store(create=True) if req.scope == "project" else vault
    settings = ctx.config.get("settings", {})
    return create_note(
        store, note, author=settings.get("author"), lock_timeout_s=settings.get("lock_timeout_s"), allow_rejected=req.allow_rejected
    )


@dataclass(frozen=True)
class ReadResult:
    note: object
    display_path: str
    backlinks: list[dict]
    backlinks_truncated: bool


def read(ctx: Context, note_id: str, *, target: str | None = None, scopes: frozenset[str] | None = None) -> ReadResult:
    """One note by id, complete or fail: an incomplete scan or an invalid file gives INCOMPLETE.

    With `target` (a harness) and/or `scopes`, a note not addressed to that harness (nor `all`)
    or outside those scopes is reported exactly like a missing one, and backlinks are limited
    to what that harness may see before the cap.
    """
    from jacked_vault.document import MAX_FILE_BYTES, parse_note
    from jacked_vault.safety import fsio
    from jacked_vault.search.service import fresh_indexes

    indexes, diag = fresh_indexes(ctx)
    try:
        if not diag.complete:
            raise VaultError(
                "INCOMPLETE",
                f"cannot answer for {note_id}: {len(diag.invalid_files)} invalid file(s)"
                f"{' and a truncated scan' if diag.truncated else ''}; run `jacked memory doctor`",
                details=diag.to_json(),
            )
        found = [(index, doc) for index in indexes for doc in index.lookup(note_id, target, scopes)]
        if not found:
            raise _not_found(note_id)
        if len(found) > 1:
            raise VaultError("INCOMPLETE", f"{note_id} is not unique: {len(found)} files carry it; run `jacked memory doctor`")
        index, doc = found[0]
        try:
            data = fsio.read_file(index.store.root, doc.path, max_bytes=MAX_FILE_BYTES)
            note = parse_note(data, source=doc.path)
        except (OSError, VaultError) as exc:
            message = exc.message if isinstance(exc, VaultError) else exc.strerror
            raise VaultError("INCOMPLETE", f"{note_id}: its file cannot be read as a valid note ({message})") from None
        if note.id != note_id:
            raise VaultError("INCOMPLETE", f"{note_id}: its file now carries another id; run `jacked memory doctor`")
        if (target and not {target, "all"} & set(note.target_harnesses)) or (scopes is not None and note.scope not in scopes):
            raise _not_found(note_id)  # the working file says otherwise than the index: still hidden
        backlinks = [doc for index in indexes for doc in index.backlinks(note_id, MAX_BACKLINKS, target, scopes)]
        backlinks.sort(key=lambda d: (d.updated_at, d.id), reverse=True)
        return ReadResult(
            note=note,
            display_path=index.store.display(doc.path, note.scope),
            backlinks=[{"id": d.id, "title": d.title} for d in backlinks[:MAX_BACKLINKS]],
            backlinks_truncated=len(backlinks) > MAX_BACKLINKS,
        )
    finally:
        for index in indexes:
            index.close()


def _not_found(note_id: str) -> VaultError:
    return VaultError("NOT_FOUND", f"no note with id {note_id}")
