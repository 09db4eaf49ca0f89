"""`hot.md`: a group's current progress slice, overwritten by design (each set is a commit)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.store.layout import GROUPS_DIR, Store

HOT_FILE = "hot.md"
MAX_HOT_BYTES = 4096
_MAX_FILE_BYTES = MAX_HOT_BYTES + 1024
_UPDATED = re.compile(r"^<!-- updated (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) by ([a-z0-9][a-z0-9._-]{0,63}) -->$")
_EPOCH = "1970-01-01T00:00:00.000Z"


def hot_path(store: Store, group: str | None) -> str:
    return HOT_FILE if store.is_project else f"{GROUPS_DIR}/{group}/{HOT_FILE}"


def render_hot(group: str | None, body: str, updated_at: str, harness: str) -> bytes:
    return f"# Hot: {group or 'project'}\n<!-- updated {updated_at} by {harness} -->\n\n{body}\n".encode("utf-8")


@dataclass(frozen=True)
class Hot:
    body: str
    updated_at: str | None
    harness: str | None


def read_hot_text(data: bytes, source: str) -> Hot:
    """Parse a hot.md (ours, or hand-edited: then the whole text is the body)."""
    from jacked_vault.safety.text import check_text

    if len(data) > _MAX_FILE_BYTES:
        raise VaultError("VALIDATION", f"{source}: {len(data)} bytes is over the hot.md cap")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise VaultError("VALIDATION", f"{source}: not UTF-8") from None
    lines = text.split("\n")
    updated = harness = None
    if len(lines) >= 2 and lines[0].startswith("# Hot: ") and (match := _UPDATED.match(lines[1])):
        updated, harness = match.group(1), match.group(2)
        text = "\n".join(lines[2:])
    body = text.strip("\n")
    check_text("hot.md", body, multiline=True)
    return Hot(body=body, updated_at=updated, harness=harness)


def parse_hot(data: bytes, *, scope: str, group: str | None, source: str):
    """The search-index entry for a committed hot.md (tier `hot`)."""
    from jacked_vault.search.index import Entry

    hot = read_hot_text(data, source)
    when = hot.updated_at or _EPOCH
    return Entry(
        id=f"hot_{group or 'project'}",
        title=f"Current progress: {group or 'project'}",
        kind="progress",
        scope=scope,
        group=group,
        status="active",
        tier="hot",
        tags=[],
        repos=[],
        targets=["all"],
        valid_from=when,
        valid_until=None,
        created_at=when,
        updated_at=when,
        body=hot.body,
        links=[],
    )


def _target(ctx: Context, scope: str, group: str | None, *, create: bool) -> tuple[Store, str | None]:
    if scope == "project":
        store = ctx.project_store(create=create)
        if store is None:
            raise VaultError("NOT_FOUND", "this repo has no project store yet")
        return store, None
    if scope != "group":
        raise VaultError("USAGE", "hot.md exists for group and project scope only")
    return ctx.vault, ctx.require_group(group)


@dataclass(frozen=True)
class HotSet:
    path: str
    commit: str
    group: str | None


def set_hot(ctx: Context, body: str, *, group: str | None = None, scope: str = "group") -> HotSet:
    """Overwrite hot.md (validated, secret-scanned, capped); one commit, history keeps every version."""
    from jacked_vault.document import SLUG_RE, utc_now
    from jacked_vault.safety.secrets import assert_no_secrets
    from jacked_vault.safety.text import check_text
    from jacked_vault.store import audit
    from jacked_vault.store.transaction import write_transaction

    body = body.strip("\r\n").rstrip()
    assert_no_secrets({"hot": body})
    check_text("hot.md", body, multiline=True)
    if not body.strip():
        raise VaultError("VALIDATION", "hot.md text is empty")
    if len(body.encode("utf-8")) > MAX_HOT_BYTES:
        raise VaultError("VALIDATION", f"hot.md text is over the {MAX_HOT_BYTES}-byte cap; keep only the current slice")
    if not SLUG_RE.fullmatch(ctx.harness):
        raise VaultError("VALIDATION", f"harness {ctx.harness!r} is not a slug")
    store, group = _target(ctx, scope, group, create=True)
    if group is not None and not SLUG_RE.fullmatch(group):
        raise VaultError("VALIDATION", f"group {group!r} is not a slug")
    now = utc_now()
    data = render_hot(group, body, now, ctx.harness)
    rel = hot_path(store, group)
    settings = ctx.config.get("settings", {})
    with write_transaction(store, author=settings.get("author"), lock_timeout_s=settings.get("lock_timeout_s")) as tx:
        tx.replace(rel, data)
        tx.record(audit.AuditEvent(now, "hot", f"hot_{group or 'project'}", rel, audit.content_hash(data), ctx.harness, "cli"))
        message = f"memory(hot): {group or 'project'}\n\nMemory-Origin: cli\nMemory-Harness: {ctx.harness}\n"
        commit = tx.commit(message)
    return HotSet(path=store.display(rel, scope), commit=commit, group=group)


def show_hot(ctx: Context, *, group: str | None = None, scope: str = "group") -> tuple[Hot | None, str]:
    """The current hot.md of a group (None when there is none yet) and its display path."""
    from jacked_vault.safety import fsio

    store, group = _target(ctx, scope, group, create=False)
    rel = hot_path(store, group)
    data = fsio.read_optional(store.root, rel, max_bytes=_MAX_FILE_BYTES)
    return (read_hot_text(data, rel) if data is not None else None), store.display(rel, scope)
