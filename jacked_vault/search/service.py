"""Search across the stores a command can see: the vault plus the cwd repo's project store."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import reduce
from operator import or_
from typing import Any, TypeVar

from jacked_vault.context import Context
from jacked_vault.document.ids import TYPED_ID, short_id
from jacked_vault.document.model import ID_RE
from jacked_vault.errors import VaultError
from jacked_vault.search.entries import Diagnostics, Doc
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.policy import DEFAULT_SCOPES, Viewer
from jacked_vault.search.query import Filters

T = TypeVar("T")


def fresh_indexes(ctx: Context, catch_up: int | None = None) -> tuple[list[SearchIndex], Diagnostics]:
    """Up-to-date indexes of every visible store, with their combined diagnostics. With `catch_up`,
    an index more files behind HEAD than that is left as it is (`diag.behind`): the caller does
    not wait for it (the session start's brief; a background catch-up follows)."""
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
            if catch_up is not None and index.behind(catch_up) > catch_up:
                diag.behind = True
            else:
                index.refresh()
            diag.merge(index.read.diagnostics())
        if len(indexes) > 1:
            from jacked_vault.store.tombstones import Stones

            stones = [index.read.stones() for index in indexes]
            for n, index in enumerate(indexes):
                index.read.hide_rejected_elsewhere(reduce(or_, (s for m, s in enumerate(stones) if m != n), Stones()))
    except BaseException:
        for index in indexes:
            index.close()
        raise
    return indexes, diag


def not_found(note_id: str) -> VaultError:
    return VaultError("NOT_FOUND", f"no note with {_named(note_id)}")


def _shown(note_id: str) -> str | None:
    """`note_id` as given, when an answer may repeat it: an id's shape (or a bare short id's: letters
    and digits, as a generated id's random part) the secret scan passes; None for a value that may be
    a credential pasted in its place (`ghp_…`)."""
    import re

    shaped = note_id.startswith("mem_") or re.fullmatch(r"[A-Za-z0-9]+", note_id)
    if shaped and re.fullmatch(TYPED_ID, note_id):
        from jacked_vault.safety.secrets import scan_text  # only for what could be shown: its rules cost an import

        if not scan_text(note_id):
            return note_id
    return None


def _named(note_id: str) -> str:
    """How an answer names the id a person gave (`_shown`)."""

    shown = _shown(note_id)
    if shown is None:
        return "that id (an id looks like mem_…)"
    return f"id {shown}" if ID_RE.fullmatch(shown) else f"an id starting {shown}"


MAX_CANDIDATES = 10  # the notes an ambiguous short id lists


def resolve_id(indexes: list[SearchIndex], typed: str, viewer: Viewer | None = None) -> str:
    """The id `typed` names, the one rule of every door that takes an id (`read`, `log ID`, the
    transitions, the page, MCP `memory_read`): itself when a document carries it; else the one
    note, among those `viewer` may see (None: every note), that the short id matches
    (`document.ids.short_id`: a prefix of the random part, like git's short hashes). Fewer than
    MIN_SHORT characters, or several notes (listed): USAGE. No note: `typed` itself, for the
    caller's rule of absence (`the_one`)."""

    if any(index.read.carries(typed) for index in indexes):
        return typed
    short = short_id(typed)
    if short is None:
        return typed
    found = {doc.id: doc for index in indexes for doc in index.read.starting(short, viewer)}
    if len(found) == 1:
        return next(iter(found))
    if found:
        listed = [f"{doc.id} ({doc.title})" for doc in sorted(found.values(), key=lambda d: d.id)[:MAX_CANDIDATES]]
        more = f" and {len(found) - MAX_CANDIDATES} more" if len(found) > MAX_CANDIDATES else ""
        raise VaultError(
            "USAGE",
            f"{_shown(typed) or 'that short id'} is ambiguous: {len(found)} notes' ids start with it, "
            f"give more of it: {'; '.join(listed)}{more}; nothing was changed",
        )
    return typed


def the_one(found: list[T], diag: Diagnostics, note_id: str) -> T:
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


@dataclass(frozen=True)
class Elsewhere:
    """What a search that found nothing would find with one filter changed."""

    asking: str  # the change: `without --group`, `with --scope user`
    hits: int  # at most MAX_COUNTED

    def to_json(self) -> dict[str, Any]:
        return {"asking": self.asking, "hits": self.hits}

    def to_text(self) -> str:
        return f"{self.hits}{'+' if self.hits >= MAX_COUNTED else ''} {self.asking}"


MAX_COUNTED = 100  # the hits an Elsewhere counts


@dataclass(frozen=True)
class SearchResult:
    results: list[Doc]
    diagnostics: Diagnostics
    elsewhere: list[Elsewhere] = field(default_factory=list)
    group: str | None = None  # the --group asked for (a search that found nothing names it)

    def to_json(self) -> dict[str, Any]:
        return {
            "results": [d.to_json() for d in self.results],
            "elsewhere": [e.to_json() for e in self.elsewhere],
            "diagnostics": self.diagnostics.to_json(),
        }

    def to_text(self) -> str:
        nothing = "no matches" + (f" in group {self.group}" if self.group else "")
        if self.elsewhere:
            nothing += "; " + ", ".join(e.to_text() for e in self.elsewhere)
        lines = [f"{n}. {doc.to_text()}" for n, doc in enumerate(self.results, 1)] or [nothing]
        d = self.diagnostics
        if not d.complete or d.skipped_symlinks:
            lines.append(
                f"note: {len(d.invalid_files)} invalid file(s), {len(d.skipped_symlinks)} symlink(s) skipped"
                f"{', scan truncated' if d.truncated else ''}; run `jacked memory doctor`"
            )
        return "\n".join(lines)


def search(ctx: Context, query: str, filters: Filters, *, hints: bool = False) -> SearchResult:
    """Ranked hits over every visible store; user scope only when the filters ask for it.
    Filter values that can match nothing (an unknown kind, a bad slug) are usage errors. With
    `hints`, a search that finds nothing counts what each narrowing filter hides (`_wider`)."""
    filters.check()
    scopes = DEFAULT_SCOPES if filters.scopes is None else filters.scopes
    prefer = ctx.group if filters.prefer_group is None and "group" in scopes else filters.prefer_group
    filters = replace(filters, scopes=scopes, prefer_group=prefer)  # the caller's stays as given
    indexes, diag = fresh_indexes(ctx)
    elsewhere = []
    try:
        hits = [doc for index in indexes for doc in index.read.search(query, filters)]
        if hints and not hits:
            for asking, wider in _wider(filters):
                found = {doc.rowid: doc for index in indexes for doc in index.read.search(query, wider)}
                if found:
                    elsewhere.append(Elsewhere(asking, min(len(found), MAX_COUNTED)))
    finally:
        for index in indexes:
            index.close()
    hits.sort(key=lambda d: (-d.score, d.group != prefer, _neg(d.updated_at), d.id))
    return SearchResult(results=hits[: filters.limit], diagnostics=diag, elsewhere=elsewhere, group=filters.group)


def _wider(filters: Filters) -> list[tuple[str, Filters]]:
    """The search again with one narrowing filter changed: each filter given left out, user scope,
    candidates and archived notes taken in (a search with none of these has nothing to widen)."""
    scopes = filters.scopes or DEFAULT_SCOPES
    counted = replace(filters, limit=MAX_COUNTED)
    changes: list[tuple[str, bool, dict[str, Any]]] = [
        ("without --group", bool(filters.group), {"group": None}),
        ("without --kind", bool(filters.kinds), {"kinds": ()}),
        ("without --tag", bool(filters.tags), {"tags": ()}),
        ("without --repo", bool(filters.repo), {"repo": None}),
        ("with --scope user", "user" not in scopes, {"scopes": scopes | {"user"}}),
        ("with --include-candidates", "candidate" not in filters.statuses,
         {"statuses": (*filters.statuses, "candidate")}),
        ("with --include-archived", not filters.include_archived, {"include_archived": True}),
    ]  # fmt: skip
    return [(asking, replace(counted, **change)) for asking, narrowed, change in changes if narrowed]


def _neg(timestamp: str) -> tuple[int, ...]:
    """Sort key that orders ISO timestamps newest first."""
    return tuple(-ord(c) for c in timestamp)
