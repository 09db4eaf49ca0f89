"""Sharing the vault through any git remote, never destructively (SPEC 10).

- `set_remote`: point `origin` at a URL; a vault that holds only its own init commit adopts the
  remote's history (a second machine), instead of diverging from it.
- `push`: the current branch, never forced.
- `sync`: fetch, judge what arrives (`arrivals`), then fast-forward, push, or merge (derived
  index.md regenerated, two notes with one file name both kept), keeping what the remote
  deleted unless `accept_deletions`; every merge is a commit with its audit line.
- `pull_at_session_start`: fetch with a short timeout and fast-forward only when nothing is
  refused and nothing deleted; otherwise record why and change nothing. Never raises.

Network goes through the person's `git`; all local object work is pygit2, under the store lock.
Detached HEAD is refused: sync works on the branch the vault is on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.store import git
from jacked_vault.store.layout import GROUPS_DIR
from jacked_vault.sync import remote
from jacked_vault.store.sync_state import read_state, write_state

__all__ = ["SyncResult", "pull_at_session_start", "push", "read_state", "set_remote", "sync"]

SESSION_START_TIMEOUT_S = 3.0
ADOPT_FETCH_TIMEOUT_S = 10.0  # `remote set` looks for history to adopt, but never waits long for it


@dataclass
class SyncResult:
    action: str  # up-to-date | fast-forward | pushed | merged | adopted
    ahead: int
    behind: int
    head: str
    renamed: list[str] = field(default_factory=list)
    regenerated: list[str] = field(default_factory=list)
    kept_deletions: list[str] = field(default_factory=list)
    accepted_deletions: list[str] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)  # {"path", "code"}

    def to_json(self) -> dict:
        return {
            "action": self.action,
            "ahead": self.ahead,
            "behind": self.behind,
            "head": self.head,
            "renamed": self.renamed,
            "regenerated": self.regenerated,
            "kept_deletions": self.kept_deletions,
            "accepted_deletions": self.accepted_deletions,
            "quarantined": self.quarantined,
        }

    def to_text(self) -> str:
        lines = [f"sync: {self.action} (was {self.ahead} ahead, {self.behind} behind); head {self.head[:10]}"]
        lines += [f"renamed {r} (two machines picked the same file name)" for r in self.renamed]
        if self.kept_deletions:
            lines.append(f"kept {len(self.kept_deletions)} file(s) the remote deleted (`jacked memory sync --accept-deletions` applies them):")
            lines += [f"  {p}" for p in self.kept_deletions[:20]]
        if self.accepted_deletions:
            lines.append(f"applied {len(self.accepted_deletions)} deletion(s) from the remote")
        if self.quarantined:
            lines.append(f"quarantined {len(self.quarantined)} arrival(s) that failed the gate (never recalled; see `jacked memory doctor`):")
            lines += [f"  {q['path']} ({q['code']})" for q in self.quarantined[:20]]
        return "\n".join(lines)


@dataclass(frozen=True)
class RemoteSet:
    url: str  # as shown: credentials masked
    adopted: bool

    def to_json(self) -> dict:
        return {"remote": self.url, "adopted": self.adopted}

    def to_text(self) -> str:
        return f"remote origin is {self.url}" + ("; adopted the remote's history" if self.adopted else "")


@dataclass(frozen=True)
class Pushed:
    head: str

    def to_json(self) -> dict:
        return {"head": self.head}

    def to_text(self) -> str:
        return f"pushed {self.head[:10]}"


def set_remote(ctx: Context, url: str) -> RemoteSet:
    """Point `origin` at `url` (added or changed) and make the current branch track it; a vault
    with nothing but its init commit then adopts the remote's history."""
    url = remote.check_url(url)
    root = ctx.vault.root
    branch = git.require_branch(root)
    repo = git.open_repo(root)
    if "origin" in [r.name for r in repo.remotes]:
        repo.remotes.set_url("origin", url)
    else:
        repo.remotes.create("origin", url)
    repo.config[f"branch.{branch}.remote"] = "origin"
    repo.config[f"branch.{branch}.merge"] = f"refs/heads/{branch}"
    adopted = False
    if _only_init(repo):
        try:
            remote.fetch(root, branch, timeout=ADOPT_FETCH_TIMEOUT_S)
        except VaultError:
            return RemoteSet(remote.display_url(url) or "", False)  # unreachable now: `sync` adopts later
        adopted = _adopt(ctx, repo, branch)
    return RemoteSet(remote.display_url(url) or "", adopted)


def push(ctx: Context) -> Pushed:
    """Push the current branch to `origin` (never forced)."""
    root = ctx.vault.root
    remote.push(root, git.require_branch(root))
    return Pushed(git.fast_head(root) or "")


def _only_init(repo) -> bool:
    """True when HEAD is one parentless `memory: init vault` commit: nothing of this vault's own."""
    head = git.head_commit(repo)
    return head is not None and not head.parent_ids and head.message.startswith("memory: init vault")


def _adopt(ctx: Context, repo, branch: str) -> bool:
    """Take the remote's history in place of a lone init commit (its arrivals judged first)."""
    from jacked_vault.store.lock import store_lock

    theirs = repo.references.get(f"refs/remotes/origin/{branch}")
    if theirs is None:
        return False
    with store_lock(ctx.vault.cache):
        ours = git.head_commit(repo).id
        arrivals = _judge(ctx, repo, None, repo[theirs.target].tree)
        if arrivals.refused:
            raise arrivals.refusal(str(theirs.target))
        git.advance_to(repo, theirs.target, ours)
        _quarantine(ctx, arrivals)
    write_state(ctx.vault.root, "ok", f"adopted the remote's history ({str(theirs.target)[:10]})")
    return True


def _judge(ctx: Context, repo, base_tree, theirs_tree):
    from jacked_vault.search.index import open_fresh
    from jacked_vault.sync.arrivals import arrival_tombstones, inspect_arrivals

    index = open_fresh(ctx.vault)
    try:
        extra = arrival_tombstones(repo, base_tree, theirs_tree)
        known = set(index.tombstone_set()) | extra
    finally:
        index.close()
    return inspect_arrivals(ctx.vault, repo, base_tree, theirs_tree, known.__contains__)


def _quarantine(ctx: Context, arrivals) -> list[dict]:
    from jacked_vault.sync.arrivals import keep_quarantined

    return keep_quarantined(ctx.vault, arrivals)


def _is_derived(rel: str) -> bool:
    parts = rel.split("/")
    return rel == "index.md" or (len(parts) == 3 and parts[0] == GROUPS_DIR and parts[2] == "index.md")


def _free_name(paths: set[str], rel: str) -> str:
    stem = rel[: -len(".md")]
    n = 2
    while f"{stem}-{n}.md" in paths:
        n += 1
    return f"{stem}-{n}.md"


def _resolve(ctx: Context, repo, index, *, unrelated: bool) -> tuple[list[str], list[tuple[str, str, bytes]]]:
    """Settle derived and add/add note conflicts in a merge index: (renamed, [(id, new path, bytes)]).
    `unrelated`: the two histories share no commit (two vaults made apart)."""
    import pygit2

    from jacked_vault.document import parse_note

    blocking, renamed, moved = [], [], []
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
                moved.append((other.id, new_rel, repo[theirs.id].data))
                continue
        blocking.append(rel)
    if blocking:
        flag = " --allow-unrelated-histories" if unrelated else ""
        origin = (
            " This vault and the remote's were created apart (no common commit); on a new machine, "
            "`jacked memory init --from URL` clones the shared vault instead."
            if unrelated
            else ""
        )
        raise VaultError(
            "SYNC",
            "the vault and its remote changed the same file(s) differently: "
            + ", ".join(sorted(blocking)[:10])
            + ". Nothing was changed. To settle it by hand: "
            f"`git -C {ctx.vault.root} merge{flag} origin/{git.require_branch(ctx.vault.root)}`, edit the files, `git add` them, "
            f"`git commit`; then `jacked memory doctor`.{origin}",
        )
    return renamed, moved


def _merge_commit(ctx: Context, repo, ours, theirs, base, arrivals, accept_deletions: bool) -> tuple[object, SyncResult]:
    """The commit that joins the remote's history to ours: a merge (or, when we are behind only
    and keep deletions, one commit on top of theirs), with its audit lines. Not yet checked out."""
    import pygit2

    from jacked_vault.document import utc_now
    from jacked_vault.store import audit
    from jacked_vault.store.gate import inspect
    from jacked_vault.write.transaction import commit_message

    result = SyncResult("merged" if base != ours else "fast-forward", 0, 0, "")
    if base == ours:
        index = pygit2.Index()
        index.read_tree(repo[theirs].tree)
        parents = [theirs]
    else:
        index = repo.merge_commits(ours, theirs)
        result.renamed, moved = _resolve(ctx, repo, index, unrelated=base is None)
        parents = [ours, theirs]
    now = utc_now()
    machine = audit.machine_id(ctx.vault.cache)
    events = []
    if base != ours:
        events += [audit.AuditEvent(now, "rename", note_id, rel, audit.content_hash(data), ctx.harness, "sync") for note_id, rel, data in moved]
    ours_tree = repo[ours].tree
    for rel in arrivals.deleted:
        if accept_deletions:
            result.accepted_deletions.append(rel)
            continue
        try:
            kept = ours_tree[rel]
        except KeyError:
            continue  # gone on both sides
        if rel not in index:
            index.add(pygit2.IndexEntry(rel, kept.id, kept.filemode))
        result.kept_deletions.append(rel)
        events.append(audit.AuditEvent(now, "keep", rel, rel, audit.content_hash(repo[kept.id].data), ctx.harness, "sync"))
    events.append(audit.AuditEvent(now, "sync", f"origin:{str(theirs)[:12]}", "", "", ctx.harness, "sync", remote=str(theirs)))
    tree = repo[index.write_tree(repo)]
    pending = audit.stage(ctx.vault.root, machine, events)
    inspect(ctx.vault, pending.rel, pending.after, base=git.tree_blob(repo, pending.rel))
    tree_id = git.tree_with_files(repo, tree, {pending.rel: pending.after})
    subject = f"memory: sync merge of origin ({str(theirs)[:10]})" if base != ours else "memory: sync keeps notes the remote deleted"
    message = commit_message(
        subject,
        {"Memory-Remote": str(theirs), "Memory-Origin": "sync", "Memory-Harness": ctx.harness, "Memory-Audit": f"{machine} {pending.last_hash}"},
    )
    sig = git.signature(repo, (ctx.config.get("settings") or {}).get("author"))
    commit = repo.create_commit(None, sig, sig, message, tree_id, parents)
    return commit, result


def sync(ctx: Context, *, accept_deletions: bool = False) -> SyncResult:
    """Fetch; then fast-forward, push, or merge; then regenerate index.md and push."""
    from jacked_vault.store.lock import store_lock
    from jacked_vault.store.vault import check_store_gitignore

    root = ctx.vault.root
    branch = git.require_branch(root)
    check_store_gitignore(ctx.vault)
    try:
        remote.fetch(root, branch)
    except VaultError as exc:
        write_state(root, "failed", exc.message)
        raise
    with store_lock(ctx.vault.cache):
        repo = git.open_repo(root)
        tracking = repo.references.get(f"refs/remotes/origin/{branch}")
        ours = git.head_commit(repo).id
        if tracking is None or tracking.target == ours:
            result = SyncResult("pushed" if tracking is None else "up-to-date", 1 if tracking is None else 0, 0, "")
        else:
            theirs = tracking.target
            ahead, behind = repo.ahead_behind(ours, theirs)
            base = repo.merge_base(ours, theirs)
            if behind == 0:
                result = SyncResult("pushed", ahead, behind, "")
            elif base is None and _only_init(repo):
                result = SyncResult("adopted", ahead, behind, "")
            else:
                result = _integrate(ctx, repo, ours, theirs, base, accept_deletions)
                result.ahead, result.behind = ahead, behind
    if result.action == "adopted":
        _adopt(ctx, git.open_repo(root), branch)
    if result.action in ("merged", "fast-forward", "adopted"):
        result.regenerated = regenerate_indexes(ctx)
    repo = git.open_repo(root)
    tracking = repo.references.get(f"refs/remotes/origin/{branch}")
    if tracking is None or tracking.target != git.head_commit(repo).id:
        remote.push(root, branch)
        if result.action == "up-to-date":
            result.action = "pushed"
    result.head = git.fast_head(root) or ""
    write_state(root, "ok", f"sync: {result.action}")
    return result


def _integrate(ctx: Context, repo, ours, theirs, base, accept_deletions: bool) -> SyncResult:
    """Judge the arrivals, then fast-forward or commit the merge, and move HEAD (lock held)."""
    root = ctx.vault.root
    arrivals = _judge(ctx, repo, repo[base].tree if base is not None else None, repo[theirs].tree)
    if arrivals.refused:
        error = arrivals.refusal(str(theirs))
        write_state(root, "refused", error.message)
        raise error
    if base == ours and (accept_deletions or not arrivals.deleted):
        git.advance_to(repo, theirs, ours)
        result = SyncResult("fast-forward", 0, 0, "", accepted_deletions=list(arrivals.deleted))
    else:
        commit, result = _merge_commit(ctx, repo, ours, theirs, base, arrivals, accept_deletions)
        git.advance_to(repo, commit, ours)
    result.quarantined = _quarantine(ctx, arrivals)
    return result


def regenerate_indexes(ctx: Context) -> list[str]:
    """Rewrite every group's index.md that differs from what the search index says; one commit."""
    from jacked_vault.recall.index_md import index_path, render_index
    from jacked_vault.safety import fsio
    from jacked_vault.write.transaction import settings_for, write_transaction

    store = ctx.vault
    changed = []
    with write_transaction(store, harness=ctx.harness, origin="sync", **settings_for(ctx)) as tx:
        for group in sorted(tx.index.notes_per_group()):
            rel = index_path(store, group)
            data = render_index(tx.index, store, group)
            if fsio.read_optional(store.root, rel, max_bytes=1 << 20) != data:
                tx.replace(rel, data)
                tx.event("regenerate", rel, rel, data)
                changed.append(rel)
        if changed:
            tx.commit("memory: regenerate index.md after sync")
    return changed


def pull_at_session_start(ctx: Context, timeout_s: float = SESSION_START_TIMEOUT_S):
    """Fetch (bounded) and fast-forward when that is all it takes and nothing arriving is refused
    or deleted; otherwise record why and change nothing. Returns the recorded state; never raises."""
    from jacked_vault.store.lock import store_lock

    root = ctx.vault.root
    try:
        if not remote.origin(root):
            return write_state(root, "no-remote", "no remote is set")
        branch = git.require_branch(root)
        try:
            remote.fetch(root, branch, timeout=timeout_s)
        except VaultError as exc:
            return write_state(root, "timeout" if "longer than" in exc.message else "failed", exc.message)
        with store_lock(ctx.vault.cache, timeout_s=timeout_s):
            repo = git.open_repo(root)
            tracking = repo.references.get(f"refs/remotes/origin/{branch}")
            ours = git.head_commit(repo).id
            if tracking is None or tracking.target == ours or repo.descendant_of(ours, tracking.target):
                return write_state(root, "up-to-date", "nothing new from the remote")
            theirs = tracking.target
            base = repo.merge_base(ours, theirs)
            if base != ours:
                return write_state(root, "diverged", "the vault and its remote have diverged; run `jacked memory sync`")
            arrivals = _judge(ctx, repo, repo[base].tree, repo[theirs].tree)
            if arrivals.refused:
                return write_state(root, "refused", arrivals.refusal(str(theirs)).message)
            if arrivals.deleted:
                return write_state(root, "deletions", f"the remote deletes {len(arrivals.deleted)} file(s); run `jacked memory sync` to review")
            git.advance_to(repo, theirs, ours)
            _quarantine(ctx, arrivals)
        return write_state(root, "ok", "fast-forwarded")
    except VaultError as exc:
        return write_state(root, "failed", exc.message)
    except Exception as exc:  # noqa: BLE001 - session start never fails
        return write_state(root, "failed", f"{type(exc).__name__}")
