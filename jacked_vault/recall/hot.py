"""`hot.md`: a group's current progress slice (shown by `hot show`, the brief and search)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from jacked_vault.context import Context
from jacked_vault.document.hot import MAX_HOT_FILE_BYTES, Hot, read_hot_text
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store.layout import GROUPS_DIR, HOT_FILE, Store

if TYPE_CHECKING:
    from jacked_vault.search.readmodel import ReadModel


def hot_path(store: Store, group: str | None) -> str:
    return HOT_FILE if store.is_project else f"{GROUPS_DIR}/{group}/{HOT_FILE}"


def hot_target(ctx: Context, scope: str, group: str | None) -> tuple[Store, str | None]:
    """The store and group whose hot.md `scope`/`group` name."""
    if scope == "project":
        store = ctx.project_store()
        if store is None:
            raise VaultError("NOT_FOUND", "this repo has no project store yet")
        return store, None
    if scope != "group":
        raise VaultError("USAGE", "hot.md exists for group and project scope only")
    if group is not None:
        from jacked_vault.search.query import require_slug

        require_slug("group", group)
    return ctx.vault, ctx.require_group(group)


class HotView(NamedTuple):
    """A group's (or the project's) committed hot.md, None when there is none yet, and its path."""

    hot: Hot | None
    path: str

    def to_json(self) -> dict[str, Any]:
        hot = self.hot
        return {
            "path": self.path,
            "body": hot.body if hot else None,
            "updated_at": hot.updated_at if hot else None,
            "harness": hot.harness if hot else None,
        }

    def to_text(self) -> str:
        if self.hot is None:
            return f"no hot.md yet at {self.path}; set one with `jacked memory hot set --stdin`"
        return self.hot.body


def show_hot(
    ctx: Context, *, group: str | None = None, scope: str = "group", vault_index: ReadModel | None = None
) -> HotView:
    """The committed hot.md of a group (None when there is none yet) and its display path.

    What is shown is what the index holds (it passed the gate, which withholds any value a
    tombstone covers); a working copy that differs from it (a hand edit, never committed) is not
    shown. `vault_index`: the vault's index as the caller holds it (the brief's, which may be left
    behind HEAD on purpose), read instead of a fresh one.
    """
    from jacked_vault.search.index import open_fresh
    from jacked_vault.store.audit import content_hash

    store, group = hot_target(ctx, scope, group)
    rel = hot_path(store, group)
    if vault_index is not None and store.root == vault_index.store.root:
        indexed = vault_index.indexed_text(rel, "hot")
    else:
        index = open_fresh(store)
        try:
            indexed = index.read.indexed_text(rel, "hot")
        finally:
            index.close()
    data = fsio.read_optional(store.root, rel, max_bytes=MAX_HOT_FILE_BYTES) if indexed else None
    if indexed is None or data is None or content_hash(data) != indexed[0]:
        return HotView(None, store.display(rel, scope))
    return HotView(replace(read_hot_text(data, rel), body=indexed[1]), store.display(rel, scope))
