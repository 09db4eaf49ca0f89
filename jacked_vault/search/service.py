"""Search across the stores a command can see: the vault plus the cwd repo's project store."""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import TYPE_CHECKING

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.search.entries import Diagnostics, Doc
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.policy import DEFAULT_SCOPES
from jacked_vault.search.query import Filters
from jacked_vault.store.layout import Store

if TYPE_CHECKING:
    from jacked_vault.store.tombstones import Stones


def fresh_indexes(ctx: Context) -> tuple[list[SearchIndex], Diagnostics]:
    """Up-to-date indexes of every visible store, with their combined diagnostics."""
    diag = Diagnostics()
    indexes = []
    stores = [ctx.vault]
    try:
        project = ctx.project_store()
    except VaultError as exc:
        diag.invalid_files.append({"path": "project:.jacked", "code": f"JACKED_MEMORY_{exc.code}"})
        project = None
    if project is not None:
        stores.append(project)
    try:
        for store in stores:
            index = SearchIndex(store)
            indexes.append(index)
            index.refresh()
            diag.merge(index.diagnostics())
        if len(indexes) > 1:
            from jacked_vault.store.tombstones import Stones

            stones = [index.stones() for index in indexes]
            for n, index in enumerate(indexes):
                index.hide_rejected_elsewhere(reduce(or_, (s for m, s in enumerate(stones) if m != n), Stones()))
    except BaseException:
        for index in indexes:
            index.close()
        raise
    return indexes, diag


def not_found(note_id: str) -> VaultError:
    return VaultError("NOT_FOUND", f"no note with {_named(note_id)}")


def _named(note_id: str) -> str:
    """How an answer names the id a person gave: itself when it is an id's shape the secret scan
    passes; never a value that may be a credential pasted in its place."""
    from jacked_vault.document.model import ID_RE

    if ID_RE.fullmatch(note_id):
        from jacked_vault.safety.secrets import scan_text  # only for what could be shown: its rules cost an import

        if not scan_text(note_id):
            return f"id {note_id}"
    return "that id (an id looks like mem_…)"


def the_one(found: list, diag: Diagnostics, note_id: str):
    """Complete or fail about absence (SPEC 6), the one rule of every lookup by id (`read`, `log
    ID`, the transitions): the one item of `found`, what carries `note_id` in the stores read (any
    status, target or scope). A note found once answers, whatever else was refused; several:
    INCOMPLETE (not unique); none while a committed file was refused or a scan was cut:
    INCOMPLETE (how many, and doctor: it may be one of them), never a claim of absence; none:
    NOT_FOUND."""
    if len(found) > 1:
        raise VaultError(
            "INCOMPLETE", f"{note_id} is not unique: {len(found)} files carry it; run `jacked memory doctor`"
        )
    if found:
        return found[0]
    if not diag.complete:
        damaged = sum(1 for f in diag.invalid_files if f.get("code") == "UNREADABLE")
        of_them = f" ({damaged} of them a damaged git object)" if damaged else ""
        why = [f"{len(diag.invalid_files)} committed file(s) were refused{of_them}"] if diag.invalid_files else []
        why += ["a scan hit its bounds"] if diag.truncated else []
        raise VaultError(
            "INCOMPLETE",
            f"no note with {_named(note_id)} among the files that could be read, but {' and '.join(why)}: it may be "
            "there; "
            "run `jacked memory doctor`",
            details=diag.to_json(),
        )
    raise not_found(note_id)


def rejected_elsewhere(ctx: Context, store: Store) -> Stones:
    """For a write into `store` from `ctx`: the values rejected (or forgotten) in the other stores
    this machine reads from there (the vault, the cwd repo's project store; SPEC 5.3: one
    rejection holds in every store)."""
    from jacked_vault.store.tombstones import Stones

    stones = Stones()
    others = [s for s in ctx.stores() if s.root != store.root]
    for other in others:
        index = SearchIndex(other)
        try:
            index.refresh()
            stones |= index.stones()
        finally:
            index.close()
    return stones


@dataclass(frozen=True)
class SearchResult:
    results: list[Doc]
    diagnostics: Diagnostics

    def to_json(self) -> dict:
        return {"results": [d.to_json() for d in self.results], "diagnostics": self.diagnostics.to_json()}

    def to_text(self) -> str:
        lines = [f"{n}. {doc.to_text()}" for n, doc in enumerate(self.results, 1)] or ["no matches"]
        d = self.diagnostics
        if not d.complete or d.skipped_symlinks:
            lines.append(
                f"note: {len(d.invalid_files)} invalid file(s), {len(d.skipped_symlinks)} symlink(s) skipped"
                f"{', scan truncated' if d.truncated else ''}; run `jacked memory doctor`"
            )
        return "\n".join(lines)


def search(ctx: Context, query: str, filters: Filters) -> SearchResult:
    """Ranked hits over every visible store; user scope only when the filters ask for it.
    Filter values that can match nothing (an unknown kind, a bad slug) are usage errors."""
    filters.check()
    if filters.scopes is None:
        filters.scopes = DEFAULT_SCOPES
    if filters.prefer_group is None and "group" in filters.scopes:
        filters.prefer_group = ctx.group
    indexes, diag = fresh_indexes(ctx)
    try:
        hits = [doc for index in indexes for doc in index.search(query, filters)]
    finally:
        for index in indexes:
            index.close()
    prefer = filters.prefer_group
    hits.sort(key=lambda d: (-d.score, d.group != prefer, _neg(d.updated_at), d.id))
    return SearchResult(results=hits[: filters.limit], diagnostics=diag)


def _neg(timestamp: str) -> tuple[int, ...]:
    """Sort key that orders ISO timestamps newest first."""
    return tuple(-ord(c) for c in timestamp)
