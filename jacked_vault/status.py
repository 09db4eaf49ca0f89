"""`status`: where the vault is, how many notes, how it stands against its remote, and the cwd repo."""

from __future__ import annotations

from jacked_vault.context import Context
from jacked_vault.search.index import SearchIndex
from jacked_vault.store import git


def _remote_state(store) -> dict:
    """Remote URL (credentials masked) and ahead/behind against the upstream of the current
    branch (no network)."""
    from jacked_vault.groups.identity import origin_url
    from jacked_vault.sync.remote import display_url

    repo = git.open_repo(store.root)
    state = {
        "remote": display_url(origin_url(store.root)),
        "branch": None if repo.head_is_detached or repo.head_is_unborn else repo.head.shorthand,
        "detached": repo.head_is_detached,
        "ahead": 0,
        "behind": 0,
        "diverged": False,
    }
    if repo.head_is_unborn or repo.head_is_detached:
        return state
    tracking = repo.references.get(f"refs/remotes/origin/{repo.head.shorthand}")
    if tracking is None:
        if state["remote"]:  # set but this branch never pushed: everything is ahead
            state["ahead"] = sum(1 for _ in zip(range(100_000), repo.walk(repo.head.target)))
        return state
    ahead, behind = repo.ahead_behind(repo.head.target, tracking.target)
    state.update(ahead=ahead, behind=behind, diverged=bool(ahead and behind))
    return state


def status(ctx: Context) -> dict:
    store = ctx.vault
    index = SearchIndex(store)
    try:
        index.refresh()
        notes = index.count()
    finally:
        index.close()
    from jacked_vault.store.sync_state import read_state

    last = read_state(store.root)
    vault = {
        "path": str(store.root),
        "head": git.fast_head(store.root),
        "notes": notes,
        **_remote_state(store),
        "last_sync": {"result": last.result, "message": last.message, "at": last.at} if last else None,
    }
    repo = None
    if ctx.repo is not None:
        repo = {"identity": ctx.repo.identity, "group": ctx.group, "path": str(ctx.repo.root)}
    from jacked_vault.store.queue import queue_counts
    from jacked_vault.health import hooks_health

    return {"vault": vault, "repo": repo, "hooks": hooks_health(ctx), "captures": queue_counts(store.cache).to_json()}
