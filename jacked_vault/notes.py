"""Adding and reading notes for a Context: the functions every front end calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jacked_vault.context import Context
from jacked_vault.document import MAX_FILE_BYTES, Note, timestamps
from jacked_vault.errors import VaultError
from jacked_vault.render import fields_block
from jacked_vault.safety import fsio
from jacked_vault.search.entries import Doc
from jacked_vault.search.policy import Viewer
from jacked_vault.store import git

if TYPE_CHECKING:  # the write path loads only when a note is added: `read` never pays for it
    from jacked_vault.recall.history import History
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.search.readmodel import ReadModel
    from jacked_vault.store.layout import Store
    from jacked_vault.write.create import Created

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
    allow_dangling_links: bool = False  # a person may link an id no store here holds (yet)
    link_viewer: Viewer | None = None  # who must see each linked note (None: any note in these stores)


def add(ctx: Context, req: AddRequest) -> Created:
    """Create one note in the scope the request names (group by default).

    The note passes the gate before anything is touched, so a refused project-scope write
    leaves the code repo exactly as it was (no `.jacked/` made).
    """
    from jacked_vault.store.gate import check_note
    from jacked_vault.write.agents import status_for
    from jacked_vault.write.create import build_note, create_note

    if req.scope not in ("group", "user", "project"):
        raise VaultError("USAGE", "unknown scope: use group, user or project")
    if req.scope == "project" and req.group:
        raise VaultError("USAGE", "--group does not apply to project scope")
    vault = ctx.vault
    # outside a repo user scope works, project scope does not (it lives in a repo)
    otherwise = "or --scope user" if req.origin == "cli" else "or user scope"
    group = ctx.require_group(req.group, otherwise=otherwise) if req.scope == "group" else None
    # the cwd's repo is what the note is about unless the note is for another group than that repo's
    about_cwd = ctx.repo is not None and (req.scope != "group" or group == ctx.group)
    repos = list(req.repos) or ([ctx.repo.identity] if ctx.repo is not None and about_cwd else [])
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
        status=status_for(ctx.settings, req.origin, req.status),
        valid_from=req.valid_from,
    )
    checked = check_note(note, tombstoned=None)
    if note.links and not req.allow_dangling_links:
        _check_links(ctx, note.links, req.link_viewer, cli=req.origin == "cli")
    if req.scope == "project":
        from jacked_vault.write.init import create_project_store

        store = create_project_store(ctx.require_repo().root, harness=ctx.harness, settings=ctx.settings)
    else:
        store = vault
    from jacked_vault.search.index import rejected_elsewhere

    elsewhere = rejected_elsewhere(ctx, store)
    return create_note(
        store,
        note,
        checked=checked,
        allow_rejected=req.allow_rejected,
        rejected_elsewhere=elsewhere,
        settings=ctx.settings,
        may_push=True,
    )


def _check_links(ctx: Context, links: list[str], viewer: Viewer | None, *, cli: bool) -> None:
    """Each link names a note in a store this command sees; VALIDATION names the link's
    position, never its value (a link to nothing would make doctor warn for good)."""
    from jacked_vault.search.service import fresh_indexes

    indexes, _ = fresh_indexes(ctx)
    try:
        for i, link in enumerate(links):
            if not any(index.read.lookup(link, viewer) for index in indexes):
                keep = " (`--allow-dangling-link` keeps it anyway)" if cli else ""
                raise VaultError(
                    "VALIDATION",
                    f"links[{i}]: no note with that id in the stores seen from here; link only saved notes "
                    f"(ids from search){keep}; nothing was written",
                    details={"field": f"links[{i}]"},
                )
    finally:
        for index in indexes:
            index.close()


@dataclass(frozen=True)
class ReadResult:
    """One document as a reader may see it: a note, or a derived file search hands out an id for
    (hot.md, an episodic file; then `note` is None and `body` is the file's text)."""

    doc: Doc
    note: Note | None
    body: str
    backlinks: list[dict[str, str]]
    backlinks_truncated: bool
    wikilinks: list[dict[str, str | None]] = field(
        default_factory=list
    )  # {"target", "id", "title"}: its body's [[links]], resolved (id None: names no note it may see)

    @property
    def display_path(self) -> str:
        return self.doc.display_path

    def memory(self) -> dict[str, Any]:
        """The note's fields and body, or what a derived file has of them. `trust` is what the
        note is worth here, `review` the accept behind it with where it came from, and
        `claimed_trust` what its file claims when that is more (`store.trust.Verdict`)."""
        if self.note is not None:
            return {**self.note.to_json(), **self.doc.verdict.to_json()}
        d = self.doc
        fields = {"id": d.id, "title": d.title, "kind": d.kind, "tier": d.tier, "scope": d.scope, "group": d.group}
        return {**fields, "status": d.status, **d.verdict.to_json(), "updated_at": d.updated_at, "body": self.body}

    def to_json(self) -> dict[str, Any]:
        return {
            "memory": self.memory(),
            "path": self.display_path,
            "backlinks": self.backlinks,
            "backlinks_truncated": self.backlinks_truncated,
            "wikilinks": self.wikilinks,
        }

    def to_text(self) -> str:
        lines = [f"# {self.doc.title}", "", fields_block(self._fields()), "", self.body.rstrip("\n")]
        if self.wikilinks:
            lines += ["", "links to:"] + [
                f"  - [[{w['target']}]] -> " + (f"{w['id']}  {w['title']}" if w["id"] else "no note")
                for w in self.wikilinks
            ]
        if self.backlinks:
            lines += ["", "linked from:"] + [f"  - {b['id']}  {b['title']}" for b in self.backlinks]
            if self.backlinks_truncated:
                lines.append(f"  … more than {MAX_BACKLINKS}; `jacked memory search` finds the rest")
        return "\n".join(lines)

    def _fields(self) -> list[tuple[str, str]]:
        trust = self.doc.verdict.said()
        note, d = self.note, self.doc
        where = f"{d.scope} {d.group}" if d.group else d.scope
        if note is None:
            return [
                ("id", d.id),
                ("kind", f"{d.tier} file (derived, kept by jacked)"),
                ("scope", where),
                ("trust", trust),
                ("updated", d.updated_at),
                ("path", self.display_path),
            ]

        status = f"{note.status}: {note.status_reason}" if note.status_reason else note.status
        until = f"until {note.valid_until}" if note.valid_until else "(no end)"
        now = timestamps.utc_now()
        until += (
            " (expired)"
            if note.valid_until and note.valid_until <= now
            else " (not valid yet)"
            if note.valid_from > now
            else ""
        )
        targets = ", ".join(note.target_harnesses)
        rows = [
            ("id", note.id),
            ("kind", note.kind),
            ("scope", where),
            ("status", status),
            ("trust", trust),
            ("valid", f"from {note.valid_from} {until}"),
            ("origin", f"{note.origin}, by {note.source_harness}, for {targets}"),
        ]
        for key, values in (
            ("repos", note.repos),
            ("tags", note.tags),
            ("links", note.links),
            ("supersedes", note.supersedes),
        ):
            if values:
                rows.append((key, ", ".join(values)))
        return [*rows, ("created", note.created_at), ("updated", note.updated_at), ("path", self.display_path)]


def read(ctx: Context, note_id: str, viewer: Viewer, *, by_id: bool = True) -> ReadResult:
    """One note by id (or a short id among the notes `viewer` may see, `search.service.resolve_id`)
    as `viewer` may see it, complete or fail about absence
    (`search.service.the_one`): a note found once answers whatever else was refused; one not
    found while a committed file was refused gives INCOMPLETE.

    Read by id is explicit (SPEC 7): with `by_id` the note is shown in any status or validity
    (`Viewer.by_id`), marked; a note addressed to another harness than the viewer's is
    NOT_VISIBLE ("exists, for another harness"; the MCP server answers it as a missing one), and
    one outside the viewer's scopes (or, without `by_id`, its window) NOT_FOUND. Backlinks are
    the notes linking to it that the viewer recalls.

    The text is the committed version (the one the index checked): the working file is used
    when it is byte-identical, else the blob is read from git. An id that search gave for a
    derived file (hot.md, an episodic file) reads that file the same way.
    """
    from jacked_vault.search.service import fresh_indexes, not_found, resolve_id, the_one

    window = viewer.by_id() if by_id else viewer
    indexes, diag = fresh_indexes(ctx)
    try:
        note_id = resolve_id(indexes, note_id, window)
        every = [(index, doc) for index in indexes for doc in index.read.lookup(note_id)]
        if not every:
            derived = [(index, doc) for index in indexes for doc in index.read.lookup(note_id, viewer, derived=True)]
            if derived:
                index, doc = derived[0]
                return ReadResult(doc, None, _derived_text(index, doc), [], False)
        the_one(every, diag, note_id)
        found = [(index, doc) for index in indexes for doc in index.read.lookup(note_id, window)]
        if not found:
            if any(index.read.lookup(note_id, window.every_target()) for index in indexes):
                raise VaultError(
                    "NOT_VISIBLE",
                    f"{note_id} exists, for another harness: it is not addressed to the one reading "
                    "($JACKED_MEMORY_HARNESS or --target); a person with no harness, or `read --all`, sees it",
                )
            raise not_found(note_id)
        index, doc = found[0]
        note = _committed_note(index.store, doc)
        backlinks = [d for i in indexes for d in i.read.backlinks(note_id, MAX_BACKLINKS, viewer)]
        backlinks.sort(key=lambda d: (d.updated_at, d.id), reverse=True)
        return ReadResult(
            doc=doc,
            note=note,
            body=note.body,
            backlinks=[{"id": d.id, "title": d.title} for d in backlinks[:MAX_BACKLINKS]],
            backlinks_truncated=len(backlinks) > MAX_BACKLINKS,
            wikilinks=_wikilinks(index.read, doc, window),
        )
    finally:
        for index in indexes:
            index.close()


def _wikilinks(index: ReadModel, doc: Doc, viewer: Viewer | None) -> list[dict[str, str | None]]:
    """The note's [[wikilinks]], each with the note it names when `viewer` may see that one."""
    from jacked_vault.search.wikilinks import resolve

    out = []
    for (target,) in index.db.execute(
        "SELECT target FROM wikilinks WHERE src=? ORDER BY rowid", (doc.rowid,)
    ).fetchall():
        rowid = resolve(index.db, doc.path, target)
        row = index.db.execute("SELECT id FROM docs WHERE rowid=?", (rowid,)).fetchone() if rowid is not None else None
        seen = index.lookup(row[0], viewer) if row else []  # what a read of that id would show
        out.append({"target": target, "id": seen[0].id if seen else None, "title": seen[0].title if seen else None})
    return out


def _committed_bytes(store: Store, doc: Doc, cap: int) -> bytes:
    """The bytes the index checked for `doc`: the working file if it is byte-identical, else git's blob."""
    from jacked_vault.store.audit import content_hash

    try:
        data = fsio.read_file(store.root, doc.path, max_bytes=cap)
    except (OSError, VaultError):
        data = None
    if data is None or content_hash(data) != doc.sha:
        data = git.tree_blob(git.open_repo(store.root), doc.path)
        if data is None or content_hash(data) != doc.sha:
            raise VaultError("INCOMPLETE", f"{doc.id}: its committed file cannot be read; run `jacked memory doctor`")
    return data


def _committed_note(store: Store, doc: Doc) -> Note:
    from jacked_vault.document import parse_note

    note = parse_note(
        _committed_bytes(store, doc, MAX_FILE_BYTES), source=doc.path, checked=True
    )  # the bytes the index checked
    if note.id != doc.id:
        raise VaultError("INCOMPLETE", f"{doc.id}: its file now carries another id; run `jacked memory doctor`")
    return note


def _derived_text(index: SearchIndex, doc: Doc) -> str:
    """The text of a derived file the index holds (hot.md: its body without the header), as the
    gate lets recall show it: without any value a tombstone covers."""
    from jacked_vault.store.gate import cap_for, inspect

    data = _committed_bytes(index.store, doc, cap_for(doc.tier))
    checked = inspect(index.store, doc.path, data, tombstoned=index.tombstoned, committed=True)
    if checked.hot is not None:
        return checked.hot.body
    return checked.text or ""


def note_history(ctx: Context, note_id: str | None, limit: int) -> History:
    """The vault's history, or the history of one note's file, as this reader may see it: `log
    ID` finds the note as `read` does, within the log's window (INCOMPLETE; NOT_VISIBLE for a
    note for another harness; NOT_FOUND for one it may not see)."""
    from itertools import islice

    from jacked_vault.recall.history import History, history_entries
    from jacked_vault.search.index import open_fresh
    from jacked_vault.search.policy import DEFAULT_SCOPES, EVERYTHING, is_person, reader

    person = is_person(ctx.harness)
    whose = None
    if note_id is None:
        store, rel, path = ctx.vault, None, None
        viewer = EVERYTHING if person else reader(ctx.harness, scopes=DEFAULT_SCOPES)
    else:
        viewer = (
            EVERYTHING if person else reader(ctx.harness, scopes=DEFAULT_SCOPES | {"user"})
        )  # by id, as `read` asks
        doc = read(ctx, note_id, viewer, by_id=False).doc  # the log's window, not read's
        store, rel, path, whose = doc.store, doc.path, doc.display_path, doc.id
    index = open_fresh(store)
    try:
        entries = list(islice(history_entries(store, rel, index, viewer, person=person, note_id=whose), limit))
    finally:
        index.close()
    return History(note_id, path, entries)
