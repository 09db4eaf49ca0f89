"""`index.md`: one line per visible note of a group, derived from the search index on every write.

It is shared by every harness, so it lists what the read policy shows to all of them: active,
valid now, addressed to `all` (`search.policy.Viewer(shared_only=True)`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from jacked_vault.search.policy import Viewer
from jacked_vault.store.layout import GROUPS_DIR, INDEX_FILE, Store

if TYPE_CHECKING:
    from jacked_vault.search.entries import Entry
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.search.readmodel import ReadModel

MAX_LINES = 150
SHARED = Viewer(shared_only=True)


def index_path(store: Store, group: str | None) -> str:
    """Store-relative path of the index.md for `group` (the project store has one at its root)."""
    return INDEX_FILE if store.is_project else f"{GROUPS_DIR}/{group}/{INDEX_FILE}"


def note_line(title: str, rel_in_group: str, summary: str, updated_at: str) -> str:
    """`- [Title](kind/slug.md) — first sentence (updated YYYY-MM-DD)`."""
    label = title.replace("[", "(").replace("]", ")")
    text = f" — {summary}" if summary else ""
    return f"- [{label}]({rel_in_group}){text} (updated {updated_at[:10]})"


def render_index(index: ReadModel, store: Store, group: str | None) -> bytes:
    """index.md for `group`: header, newest/most-linked notes first, at most MAX_LINES lines."""
    name = group or "project"
    header = f"# {name}: index of active notes (derived by jacked; do not edit)"
    rows, total = index.group_index(group, MAX_LINES - 1, SHARED)
    prefix = "" if store.is_project else f"{GROUPS_DIR}/{group}/"
    lines = [header]
    if not rows:
        lines.append("- (no active notes yet)")
    shown = rows if total <= MAX_LINES - 1 else rows[: MAX_LINES - 2]
    for title, path, summary, updated_at, _inbound in shown:
        lines.append(note_line(title, path[len(prefix) :], summary, updated_at))
    if total > len(shown):
        where = "--scope project" if store.is_project else f"--group {group}"
        lines.append(f"- … and {total - len(shown)} more active notes: `jacked memory search {where} <words>`")
    return ("\n".join(lines) + "\n").encode("utf-8")


class Staging(Protocol):
    """What `regenerate_index` asks of the write in progress (`write.transaction.Transaction`,
    a layer above: named by its shape)."""

    store: Store
    index: SearchIndex

    def replace(self, rel: str, data: bytes) -> None: ...


def regenerate_index(tx: Staging, changes: Mapping[tuple[str, str | None], dict[str, Entry | None]]) -> None:
    """Stage the index.md of every group `changes` ((scope, group) -> path -> entry, None:
    removed) touch, each as it will be after all of them: the groups they are in (user scope has
    none), and the groups of the notes they link to, before and after (a group's index.md orders
    each day's notes by the links they get, from any group)."""
    merged = {rel: entry for group_changes in changes.values() for rel, entry in group_changes.items()}
    if not merged:
        return
    groups = {group for scope, group in changes if scope != "user"}
    targets = tx.index.read.links_from(merged)  # the links their versions before have
    targets.update(link for entry in merged.values() if entry is not None for link in entry.links)
    groups.update(group for group in tx.index.read.groups_of(targets) if group is not None or tx.store.is_project)
    with tx.index.preview(merged) as future:
        rendered = {group: render_index(future, tx.store, group) for group in sorted(groups, key=str)}
    for group, data in rendered.items():
        tx.replace(index_path(tx.store, group), data)
