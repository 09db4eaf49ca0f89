"""`hot set`: overwrite a group's hot.md (validated, secret-scanned, capped); one commit each."""

from __future__ import annotations

from dataclasses import dataclass

from jacked_vault.context import Context
from jacked_vault.document import SLUG_RE, timestamps
from jacked_vault.document.hot import MAX_HOT_BYTES, render_hot
from jacked_vault.errors import VaultError


@dataclass(frozen=True)
class HotSet:
    path: str
    commit: str
    group: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"path": self.path, "commit": self.commit, "group": self.group}

    def to_text(self) -> str:
        return f"Updated {self.path} [{self.commit[:10]}]"


def set_hot(ctx: Context, body: str, *, group: str | None = None, scope: str = "group") -> HotSet:
    """Overwrite hot.md; the gate checks it in the commit; history keeps every version."""
    from jacked_vault.recall.hot import hot_path, hot_target
    from jacked_vault.store.gate import scan
    from jacked_vault.write.transaction import write_transaction

    body = body.strip("\r\n").rstrip()
    scan({"hot.md": body})
    if not body.strip():
        raise VaultError("VALIDATION", "hot.md text is empty")
    if len(body.encode("utf-8")) > MAX_HOT_BYTES:
        raise VaultError("VALIDATION", f"hot.md text is over the {MAX_HOT_BYTES}-byte cap; keep only the current slice")
    if not SLUG_RE.fullmatch(ctx.harness):
        raise VaultError("VALIDATION", "the harness name is not a slug ([a-z0-9][a-z0-9._-]{0,63})")
    if group is not None and not SLUG_RE.fullmatch(group):
        raise VaultError("VALIDATION", "the group name is not a slug ([a-z0-9][a-z0-9._-]{0,63})")
    if scope == "project" and ctx.project_store() is None:
        from jacked_vault.write.init import create_project_store

        create_project_store(ctx.require_repo().root, harness=ctx.harness, settings=ctx.settings)
    store, group = hot_target(ctx, scope, group)
    now = timestamps.utc_now()
    data = render_hot(group, body, now, ctx.harness)
    rel = hot_path(store, group)
    with write_transaction(store, harness=ctx.harness, origin="cli", settings=ctx.settings, may_push=True) as tx:
        tx.replace(rel, data)
        tx.event("hot", f"hot_{group or 'project'}", rel, data, ts=now)
        commit = tx.commit(f"memory(hot): {group or 'project'}")
    return HotSet(path=store.display(rel, scope), commit=commit, group=group)
