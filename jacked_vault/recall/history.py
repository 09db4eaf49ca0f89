"""The vault's git history, whole or for one note's file (create and every transition)."""

from __future__ import annotations

from datetime import datetime, timezone

from jacked_vault.store import git
from jacked_vault.store.layout import Store


def _entry(commit) -> dict:
    trailers = {}
    for line in commit.message.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key.startswith("Memory-"):
            trailers[key] = value.strip()
    when = datetime.fromtimestamp(commit.commit_time, tz=timezone.utc)
    return {
        "commit": str(commit.id),
        "time": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "author": commit.author.name,
        "summary": commit.message.splitlines()[0] if commit.message else "",
        "memory_id": trailers.get("Memory-Id"),
        "origin": trailers.get("Memory-Origin"),
        "harness": trailers.get("Memory-Harness"),
    }


def _blob_at(commit, rel: str):
    try:
        return commit.tree[rel].id
    except KeyError:
        return None


def history(store: Store, *, rel: str | None = None, limit: int = 50) -> list[dict]:
    """Newest first: every commit, or only those that changed `rel`."""
    import pygit2

    repo = git.open_repo(store.root)
    head = git.head_commit(repo)
    if head is None:
        return []
    out = []
    for commit in repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME):
        if rel is not None:
            mine = _blob_at(commit, rel)
            parents = [_blob_at(p, rel) for p in commit.parents]
            if mine is None and not any(parents):
                continue
            if parents and all(p == mine for p in parents):
                continue
        out.append(_entry(commit))
        if len(out) >= limit:
            break
    return out


def note_history(ctx, note_id: str | None, limit: int) -> tuple[str | None, list[dict]]:
    """(display path, entries): the vault's history, or the history of one note's file."""
    from jacked_vault.errors import VaultError
    from jacked_vault.search.service import fresh_indexes

    if note_id is None:
        return None, history(ctx.vault, limit=limit)
    indexes, _ = fresh_indexes(ctx)
    try:
        found = [(index.store, doc) for index in indexes for doc in index.lookup(note_id)]
    finally:
        for index in indexes:
            index.close()
    if not found:
        raise VaultError("NOT_FOUND", f"no note with id {note_id}")
    store, doc = found[0]
    return store.display(doc.path, doc.scope), history(store, rel=doc.path, limit=limit)
