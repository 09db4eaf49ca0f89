"""`remote set`, `push`, `sync`: sharing the vault through any git remote, never destructively.

Network goes through the user's `git` (fetch, push); merging is local pygit2 work. Nothing here
resets or force-pushes. A diverged vault merges when the only conflicts are derived files
(index.md, regenerated after the merge) or two new notes that happen to share a file name
(the remote's one moves to the next free name, with an audit line); any other conflict stops
with both versions intact and the git commands to settle it.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.remote import _git_env
from jacked_vault.store import git
from jacked_vault.store.layout import GROUPS_DIR

NETWORK_TIMEOUT_S = 60.0
BRANCH = git.BRANCH


def _git(root: Path, *args: str, timeout: float = NETWORK_TIMEOUT_S) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=timeout, env=_git_env(), stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        raise VaultError("SYNC", f"`git {args[0]}` took longer than {timeout:g}s; nothing was changed locally") from None
    except OSError as exc:
        raise VaultError("SYNC", f"git could not run: {exc.strerror}") from None


def _one_line(text: str) -> str:
    return " ".join(text.split())[:400]


def set_remote(ctx: Context, url: str) -> str:
    """Point `origin` at `url` (added or changed) and make `main` track it."""
    from jacked_vault.safety.text import check_text

    url = url.strip()
    if not url or len(url) > 2048:
        raise VaultError("USAGE", "give a remote URL (at most 2048 characters)")
    check_text("remote URL", url, multiline=False)
    repo = git.open_repo(ctx.vault.root)
    if "origin" in [r.name for r in repo.remotes]:
        repo.remotes.set_url("origin", url)
    else:
        repo.remotes.create("origin", url)
    repo.config[f"branch.{BRANCH}.remote"] = "origin"
    repo.config[f"branch.{BRANCH}.merge"] = f"refs/heads/{BRANCH}"
    return url


def push(ctx: Context) -> str:
    """`git push origin main` (never forced); a rejected push says to run sync."""
    root = ctx.vault.root
    if not _has_origin(root):
        raise VaultError("SYNC", "no remote is set; run `jacked memory remote set URL`")
    proc = _git(root, "push", "--quiet", "origin", f"{BRANCH}:{BRANCH}")
    if proc.returncode != 0:
        if "rejected" in proc.stderr or "non-fast-forward" in proc.stderr or "fetch first" in proc.stderr:
            raise VaultError("SYNC", "the remote has commits this vault does not; run `jacked memory sync` (nothing was overwritten)")
        raise VaultError("SYNC", f"push failed: {_one_line(proc.stderr)}")
    return git.fast_head(root) or ""


def _has_origin(root: Path) -> bool:
    from jacked_vault.groups.identity import origin_url

    return bool(origin_url(root))


@dataclass
class SyncResult:
    action: str  # up-to-date | fast-forward | pushed | merged
    ahead: int
    behind: int
    head: str
    renamed: list[str]
    regenerated: list[str]


def _is_derived(rel: str) -> bool:
    parts = rel.split("/")
    return rel == "index.md" or (len(parts) == 3 and parts[0] == GROUPS_DIR and parts[2] == "index.md")


def _free_name(tree_paths: set[str], rel: str) -> str:
    stem = rel[: -len(".md")]
    n = 2
    while f"{stem}-{n}.md" in tree_paths:
        n += 1
    return f"{stem}-{n}.md"


def _resolve(repo, index, ctx: Context) -> tuple[list[str], list[tuple]]:
    """Settle derived and add/add note conflicts in `index`; returns (renamed, audit events)."""
    import pygit2

    from jacked_vault.document import parse_note, utc_now
    from jacked_vault.store import audit

    blocking, renamed, events = [], [], []
    conflicts = list(index.conflicts) if index.conflicts is not None else []
    paths = {entry.path for entry in index}
    for ancestor, ours, theirs in conflicts:
        rel = (ours or theirs or ancestor).path
        if _is_derived(rel):
            keep = ours or theirs
            del index.conflicts[rel]
            index.add(pygit2.IndexEntry(rel, keep.id, keep.mode))  # regenerated after the merge
            continue
        if ancestor is None and ours is not None and theirs is not None and rel.endswith(".md"):
            try:
                mine, other = (parse_note(repo[e.id].data, source=rel) for e in (ours, theirs))
            except VaultError:
                blocking.append(rel)
                continue
            if mine.id != other.id:
                new_rel = _free_name(paths, rel)
                paths.add(new_rel)
                del index.conflicts[rel]
                index.add(pygit2.IndexEntry(rel, ours.id, ours.mode))
                index.add(pygit2.IndexEntry(new_rel, theirs.id, theirs.mode))
                renamed.append(f"{rel} -> {new_rel}")
                data = repo[theirs.id].data
                events.append(audit.AuditEvent(utc_now(), "rename", other.id, new_rel, audit.content_hash(data), ctx.harness, "cli"))
                continue
        blocking.append(rel)
    if blocking:
        raise VaultError(
            "SYNC",
            "the vault and its remote changed the same file(s) differently: "
            + ", ".join(sorted(blocking)[:10])
            + ". Nothing was changed. To settle it by hand: "
            f"`git -C {ctx.vault.root} merge origin/{BRANCH}`, edit the files, `git add` them, `git commit`; "
            "then `jacked memory doctor`.",
        )
    return renamed, events


def _merge(ctx: Context, repo, ours, theirs) -> list[str]:
    """A two-parent merge commit of ours and theirs, written into the working tree."""
    import pygit2

    from jacked_vault.safety import fsio
    from jacked_vault.store import audit

    index = repo.merge_commits(ours, theirs)
    renamed, events = _resolve(repo, index, ctx)
    root = ctx.vault.root
    if events:
        pending = audit.stage(root, audit.machine_id(ctx.vault.cache), events)
        blob = repo.create_blob(pending.after)
        index.add(pygit2.IndexEntry(pending.rel, blob, pygit2.GIT_FILEMODE_BLOB))
    tree = index.write_tree(repo)
    sig = git.signature(repo, ctx.config.get("settings", {}).get("author"))
    message = f"memory: sync merge of origin/{BRANCH}\n\nMemory-Origin: sync\nMemory-Harness: {ctx.harness}\n"
    commit = repo.create_commit(None, sig, sig, message, tree, [ours, theirs])
    repo.checkout_tree(repo[commit], strategy=pygit2.enums.CheckoutStrategy.SAFE)
    repo.head.set_target(commit)
    if events:
        fsio.replace_file(root, pending.rel, pending.after)
    fresh = repo.index
    fresh.read_tree(repo[commit].tree)
    fresh.write()
    return renamed


def regenerate_indexes(ctx: Context) -> list[str]:
    """Rewrite every group's index.md that differs from what the search index says; one commit."""
    from jacked_vault.recall.index_md import index_path, render_index
    from jacked_vault.safety import fsio
    from jacked_vault.store.transaction import write_transaction

    store = ctx.vault
    changed = []
    with write_transaction(store) as tx:
        for group in sorted(tx.index.notes_per_group()):
            rel = index_path(store, group)
            data = render_index(tx.index, store, group)
            if fsio.read_optional(store.root, rel, max_bytes=1 << 20) != data:
                tx.replace(rel, data)
                changed.append(rel)
        if changed:
            tx.commit(f"memory: regenerate index.md after sync\n\nMemory-Origin: sync\nMemory-Harness: {ctx.harness}\n")
    return changed


def sync(ctx: Context) -> SyncResult:
    """Fetch, then fast-forward, push, or merge (derived conflicts only), then push."""
    from jacked_vault.remote import PullResult, write_state
    from jacked_vault.store.lock import store_lock
    from jacked_vault.store.vault import check_store_gitignore
    import time

    root = ctx.vault.root
    if not _has_origin(root):
        raise VaultError("SYNC", "no remote is set; run `jacked memory remote set URL`")
    check_store_gitignore(ctx.vault)
    fetched = _git(root, "fetch", "--quiet", "origin", f"+refs/heads/{BRANCH}:refs/remotes/origin/{BRANCH}")
    if fetched.returncode != 0:
        write_state(root, PullResult("failed", _one_line(fetched.stderr), time.time()))
        raise VaultError("SYNC", f"fetch failed: {_one_line(fetched.stderr)}")
    renamed: list[str] = []
    with store_lock(ctx.vault.cache):
        repo = git.open_repo(root)
        remote = repo.references.get(f"refs/remotes/origin/{BRANCH}")
        ours = git.head_commit(repo).id
        if remote is None:
            ahead, behind, action = 1, 0, "pushed"
        else:
            theirs = remote.target
            ahead, behind = repo.ahead_behind(ours, theirs)
            if behind == 0:
                action = "pushed" if ahead else "up-to-date"
            elif ahead == 0:
                import pygit2

                repo.checkout_tree(repo[theirs], strategy=pygit2.enums.CheckoutStrategy.SAFE)
                repo.head.set_target(theirs)
                fresh = repo.index
                fresh.read_tree(repo[theirs].tree)
                fresh.write()
                action = "fast-forward"
            else:
                renamed = _merge(ctx, repo, ours, theirs)
                action = "merged"
    regenerated = regenerate_indexes(ctx) if action in ("merged", "fast-forward") else []
    if action in ("pushed", "merged") or regenerated:
        push(ctx)
    write_state(root, PullResult("ok", f"sync: {action}", time.time()))
    return SyncResult(action, ahead, behind, git.fast_head(root) or "", renamed, regenerated)
