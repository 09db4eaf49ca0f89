"""Sharing the vault through any git remote, never destructively (SPEC 10).

- `set_remote`: point `origin` at a URL; a vault that holds only its own init commit adopts the
  remote's history (a second machine), instead of diverging from it.
- `push`: the current branch, never forced.
- `sync`: fetch, judge what arrives (`arrivals`), then fast-forward, push, or merge (derived
  index.md regenerated, two notes with one file name both kept), keeping what the remote
  deleted unless `accept_deletions`; every merge is a commit with its audit line. A push that
  loses a race to another machine's is tried again after fetching and integrating (bounded,
  with random jitter).
- `pull_at_session_start`: fetch, judge and integrate (fast-forward, or merge a diverged vault)
  within a short cap, only when nothing is refused, deleted or in conflict; otherwise (the cap
  run out included) record why and change nothing. It never pushes, and never raises. When the
  hook asks (`background`), a cap run out starts the detached `_hook pull` (`finish_pull`): the
  same pull under a long cap, so the session never waits for what arrives and the next command
  sees it (issue 34.3).

Network goes through the person's `git`; all local object work is pygit2, under the store lock.
Detached HEAD is refused: sync works on the branch the vault is on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from jacked_vault.context import Context
from jacked_vault.document import timestamps
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.search.entries import Entry
from jacked_vault.search.treediff import changed_entries
from jacked_vault.store import detached, git
from jacked_vault.store.deadline import Deadline, OutOfTime
from jacked_vault.store.layout import AUDIT_DIR, classify_hot, classify_note, classify_path
from jacked_vault.store.lock import store_lock
from jacked_vault.store.sync_state import SyncState, read_state, read_states, write_state
from jacked_vault.store.vault import check_store_gitignore
from jacked_vault.sync import remote

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pygit2

    from jacked_vault.document import Note
    from jacked_vault.search.passed import Passed
    from jacked_vault.store.audit import AuditEvent
    from jacked_vault.store.deadline import Deadline
    from jacked_vault.store.progress import Stages
    from jacked_vault.store.reviews import Signed
    from jacked_vault.sync.arrivals import Arrivals

__all__ = [
    "BACKGROUND_PULL_LOCK",
    "SyncResult",
    "background_pull_running",
    "finish_pull",
    "pull_at_session_start",
    "push",
    "read_state",
    "set_remote",
    "sync",
]

SESSION_START_TIMEOUT_S = 3.0
BACKGROUND_PULL_TIMEOUT_S = 600.0  # the detached pull a session start leaves: long, never unbounded
BACKGROUND_PULL_LOCK = "pull-running"  # held (in the state folder) while a background pull runs
BACKGROUND_PULL_WAIT_S = 2.0
ADOPT_FETCH_TIMEOUT_S = 10.0  # `remote set` looks for history to adopt, but never waits long for it
LOGGED_REASON = 280  # characters of a failure the hook's log line carries (its line holds 500)


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
    quarantined: list[dict[str, Any]] = field(default_factory=list)  # {"path", "code"}
    # {"path", "kept": here|remote}: hot.md set on both machines
    hot: list[dict[str, Any]] = field(default_factory=list)
    transitions: list[dict[str, Any]] = field(
        default_factory=list
    )  # {"id", "path", "kept", "lost", "kept_from"}: one note, two transitions
    rejected: list[str] = field(default_factory=list)  # live notes holding a value a rejection covers, rejected here
    forgotten: list[str] = field(
        default_factory=list
    )  # notes a person forgot on another machine (or holding its text), gone here too
    duplicates: list[dict[str, Any]] = field(
        default_factory=list
    )  # {"id", "duplicate_of"}: one note saved on two machines before a sync; the later superseded
    push_attempts: int = 1  # pushes tried: more than one when another machine pushed first (a race lost)

    def then(self, later: SyncResult) -> SyncResult:
        """This result and a later try's of the same sync (after a lost push race): everything
        either did, the larger action, how the vault stood when the sync began."""
        order = ("up-to-date", "pushed", "fast-forward", "merged", "adopted")
        joined = SyncResult(max(self.action, later.action, key=order.index), self.ahead, self.behind, later.head)
        for name in (
            "renamed", "regenerated", "kept_deletions", "accepted_deletions", "quarantined", "hot", "transitions",
            "rejected", "forgotten", "duplicates",
        ):  # fmt: skip
            mine = getattr(self, name)
            setattr(joined, name, mine + [item for item in getattr(later, name) if item not in mine])
        return joined

    def to_json(self) -> dict[str, Any]:
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
            "hot": self.hot,
            "transitions": self.transitions,
            "rejected": self.rejected,
            "forgotten": self.forgotten,
            "duplicates": self.duplicates,
            "push_attempts": self.push_attempts,
        }

    def to_text(self) -> str:
        lines = [f"sync: {self.action} (was {self.ahead} ahead, {self.behind} behind); head {self.head[:10]}"]
        if self.push_attempts > 1:
            lines.append(
                f"other machines pushed first {self.push_attempts - 1} time(s): fetched, integrated and pushed again"
            )
        lines += [f"renamed {r} (two machines picked the same file name)" for r in self.renamed]
        lines += [
            f"{h['path']}: set on both machines; "
            f"kept the newer one ({'this machine' if h['kept'] == 'here' else 'the remote'}'s)"
            for h in self.hot
        ]
        lines += [
            f"{t['id']} was changed on both machines: "
            f"kept {t['kept']} ({'this machine' if t['kept_from'] == 'here' else 'the remote'}), "
            f"not {t['lost']} (a reject wins, else the later change; both stay in the audit log)"
            for t in self.transitions
        ]
        lines += [f"rejected {note_id}: it holds a value rejected on another machine" for note_id in self.rejected]
        lines += [f"forgot {rel}: a person forgot its text on another machine" for rel in self.forgotten]
        lines += [
            f"{d['id']} is a duplicate of {d['duplicate_of']} (the same note saved on two machines): superseded by it"
            for d in self.duplicates
        ]
        if self.kept_deletions:
            lines.append(
                f"kept {len(self.kept_deletions)} file(s) the remote deleted "
                "(`jacked memory sync --accept-deletions` applies them):"
            )
            lines += [f"  {p}" for p in self.kept_deletions[:20]]
        if self.accepted_deletions:
            lines.append(f"applied {len(self.accepted_deletions)} deletion(s) from the remote")
        if self.quarantined:
            lines.append(
                f"quarantined {len(self.quarantined)} arrival(s) that failed the gate "
                "(never recalled; see `jacked memory doctor`):"
            )
            lines += [f"  {q['path']} ({q['code']})" for q in self.quarantined[:20]]
            if any(q["code"] == "FORGOTTEN" for q in self.quarantined):
                lines.append("  (FORGOTTEN: it holds text a person forgot; it never comes back)")
        return "\n".join(lines)


@dataclass(frozen=True)
class RemoteSet:
    url: str  # as shown: credentials masked
    adopted: bool
    joined: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"remote": self.url, "adopted": self.adopted, "joined": self.joined}

    def to_text(self) -> str:
        done = (
            "; adopted the remote's history"
            if self.adopted
            else "; joined the remote's vault and this one"
            if self.joined
            else ""
        )
        return f"remote origin is {self.url}{done}" + (
            "\n`jacked memory sync` shares the joined vault" if self.joined else ""
        )


@dataclass(frozen=True)
class Pushed:
    head: str

    def to_json(self) -> dict[str, Any]:
        return {"head": self.head}

    def to_text(self) -> str:
        return f"pushed {self.head[:10]}"


def set_remote(ctx: Context, url: str, *, join: bool = False) -> RemoteSet:
    """Point `origin` at `url` (added or changed) and make the current branch track it; a vault
    with nothing but its init commit then adopts the remote's history. A vault with a history of
    its own is never merged with an unrelated one unless `join` (a person's explicit request):
    otherwise SYNC, and the git config and refs are left exactly as they were."""
    url = remote.check_url(url)
    root = ctx.vault.root
    branch = git.require_branch(root)
    repo = git.open_repo(root)
    config_before = (root / ".git" / "config").read_bytes()
    tracking = f"refs/remotes/origin/{branch}"
    tracked_before = repo.references.get(tracking)
    if "origin" in [r.name for r in repo.remotes]:
        repo.remotes.set_url("origin", url)
    else:
        repo.remotes.create("origin", url)
    repo.config[f"branch.{branch}.remote"] = "origin"
    repo.config[f"branch.{branch}.merge"] = f"refs/heads/{branch}"
    shown = remote.display_url(url) or ""
    try:
        remote.fetch(root, branch, timeout=ADOPT_FETCH_TIMEOUT_S)
    except VaultError:
        if join:
            _restore_remote(root, config_before, tracking, tracked_before)
            raise
        return RemoteSet(shown, False)  # unreachable now: `sync` decides later
    theirs = repo.references.get(tracking)
    if theirs is None:
        return RemoteSet(shown, False)
    if _only_init(repo):
        return RemoteSet(shown, _adopt(ctx, repo, branch))
    if repo.merge_base(_head_id(repo), theirs.target) is not None:
        return RemoteSet(shown, False)
    if (copied := _rewritten_copy(repo, _head_id(repo), theirs.target)) is not None:
        error = _rewritten(ctx, branch, copied)  # a join would push the old history back
        _restore_remote(root, config_before, tracking, tracked_before)
        raise error
    if not join:
        _restore_remote(root, config_before, tracking, tracked_before)
        raise _join_needed(ctx, url)

    try:
        with store_lock(ctx.vault.state):
            _integrate(ctx, repo, _head_id(repo), theirs.target, None, accept_deletions=False, join=True)
    except VaultError:
        _restore_remote(root, config_before, tracking, tracked_before)
        raise
    regenerate_indexes(ctx)
    write_state(root, "ok", f"joined the remote's vault ({str(theirs.target)[:10]})")
    return RemoteSet(shown, False, joined=True)


def _restore_remote(root: Path, config: bytes, tracking: str, tracked_before: pygit2.Reference | None) -> None:
    """Put `.git/config` and the remote-tracking ref back as they were before `remote set`."""

    repo = git.open_repo(root)
    ref = repo.references.get(tracking)
    if tracked_before is None and ref is not None:
        ref.delete()
    elif tracked_before is not None:
        repo.references.create(tracking, tracked_before.target, force=True)
    fsio.replace_file(root / ".git", "config", config)


def push(ctx: Context) -> Pushed:
    """Push the current branch to `origin` (never forced); the outcome is recorded for `status`."""
    root = ctx.vault.root
    _push(root, git.require_branch(root))
    return Pushed(git.fast_head(root) or "")


def _push(root: Path, branch: str, races_lost: int = 0) -> None:
    """The one push: never forced, its outcome recorded (the last push, for `status` and the brief;
    `races_lost`: the tries before it that other machines' pushes beat)."""
    try:
        remote.push(root, branch)
    except VaultError as exc:
        write_state(root, "refused" if exc.details.get("push") == "refused" else "failed", exc.message, kind="push")
        raise
    after = f" (after {races_lost} race(s) lost to other machines' pushes)" if races_lost else ""
    write_state(root, "ok", f"pushed {branch} at {(git.fast_head(root) or '')[:10]}{after}", kind="push")


def push_pending(ctx: Context, trigger: str) -> str:
    """At a trigger (`session-end`, `after-write`), sync and push what this machine has not pushed,
    when the push policy says this trigger does and a remote is set; a failure is recorded (the
    next trigger tries again) and never raised. Returns what happened, for the hook's log line."""
    policy = ctx.settings.push
    if policy == "manual" or (trigger == "after-write" and policy != "after-write"):
        return f"push policy {policy}: not pushed"

    root = ctx.vault.root
    if not remote.origin(root):
        return "no remote: not pushed"
    before = read_states(root)["push"]
    try:
        return f"sync {sync(ctx).action}"
    except VaultError as exc:
        if read_states(root)["push"] == before:  # it failed before the push: what is unpushed stays so
            write_state(root, "failed", f"not pushed: {exc.message}", kind="push")
        return f"sync failed ({exc.code}): {exc.message[:LOGGED_REASON]}"


def _head_id(repo: pygit2.Repository) -> pygit2.Oid:
    """The commit HEAD's branch points at; GIT when it has none (every vault starts with its init commit)."""
    head = git.head_commit(repo)
    if head is None:
        root = repo.workdir.rstrip("/") if repo.workdir else repo.path
        raise VaultError(
            "GIT",
            f"{root}: the vault's branch has no commit (a vault starts with its init commit), so sync has nothing "
            f"to join; nothing was changed. `git -C {root} status` shows the branch",
        )
    return head.id


def _only_init(repo: pygit2.Repository) -> bool:
    """True when HEAD is one parentless `memory: init vault` commit: nothing of this vault's own."""
    head = git.head_commit(repo)
    return head is not None and not head.parent_ids and head.message.startswith("memory: init vault")


def _adopt(ctx: Context, repo: pygit2.Repository, branch: str) -> bool:
    """Take the remote's history in place of a lone init commit (its arrivals judged first)."""

    theirs = repo.references.get(f"refs/remotes/origin/{branch}")
    if theirs is None:
        return False
    with store_lock(ctx.vault.state):
        ours = _head_id(repo)
        _integrate(ctx, repo, ours, theirs.target, None, accept_deletions=False, adopt=True)
    regenerate_indexes(ctx)
    write_state(ctx.vault.root, "ok", f"adopted the remote's history ({str(theirs.target)[:10]})")
    return True


def _quarantine(ctx: Context, arrivals: Arrivals) -> list[dict[str, Any]]:
    from jacked_vault.sync.arrivals import keep_quarantined

    return keep_quarantined(ctx.vault, arrivals)


def _judge(
    ctx: Context, repo: pygit2.Repository, base_tree: pygit2.Tree | None, theirs_tree: pygit2.Tree,
    signed: Signed | None = None, deadline: Deadline | None = None, stages: Stages | None = None,
) -> Arrivals:  # fmt: skip
    """The arrivals, judged (`arrivals.inspect_arrivals`; `stages` told how far); what the gate
    passed is kept in this machine's verdicts even when the deadline stops the judgement (a verdict
    is about bytes: the next attempt skips their content rules)."""
    from jacked_vault.search.index import open_fresh
    from jacked_vault.sync.arrivals import arrival_tombstones, inspect_arrivals

    index = open_fresh(ctx.vault)
    try:
        extra = arrival_tombstones(repo, base_tree, theirs_tree, signed)
        here = index.read.stones()
        known = here | extra

        passed: dict[str, Passed] = {}  # each arriving note's pass, for the index update after the arrivals
        try:
            arrivals = inspect_arrivals(
                ctx.vault, repo, base_tree, theirs_tree, known, index.read.note_path, index.verdicts, here,
                signed=signed, deadline=deadline, rejected_at=index.read.rejected_at,
                progress=stages("judging files") if stages else None, passed=passed,
            )  # fmt: skip
        finally:
            index.verdicts.save()
        arrivals.new_stones = extra - here
        arrivals.passed = passed
        return arrivals
    finally:
        index.close()


def _join_needed(ctx: Context, url: str | None = None) -> VaultError:
    """SYNC: two vaults made apart are joined only on purpose (the remote's URL shown masked)."""
    import shlex

    shown = shlex.quote(remote.display_url(url or remote.origin(ctx.vault.root)) or "URL")
    return VaultError(
        "SYNC",
        "this vault and the remote's each hold a history of their own (no common commit), so syncing would merge "
        "them and push this vault's notes there; nothing was changed. To join them on purpose: "
        f"`jacked memory remote set {shown} --join`; to use the remote's vault on this machine instead: "
        f"`jacked memory init --from {shown}` into another folder",
        details={"join": True},
    )


@dataclass
class _Plan:
    """How the remote's history joins ours: the tree to start from, the parents, and the files
    this machine sets in it (what it keeps, what it regenerates), with their audit lines."""

    tree: pygit2.Tree
    parents: list[pygit2.Oid | str]
    edits: dict[str, bytes | None] = field(default_factory=dict)
    events: list[AuditEvent] = field(default_factory=list)
    result: SyncResult = field(default_factory=lambda: SyncResult("fast-forward", 0, 0, ""))


def _plan(
    ctx: Context,
    repo: pygit2.Repository,
    ours: pygit2.Oid,
    theirs: pygit2.Oid | str,
    base: pygit2.Oid | None,
    arrivals: Arrivals,
    *,
    accept_deletions: bool,
    adopt: bool = False,
    join: bool = False,
    deadline: Deadline | None = None,
) -> _Plan:
    """Everything the integration commit holds, relative to the remote's tree (behind only, or
    adopting) or to the merge of both; no edits means a plain fast-forward will do. Nothing is
    written: past `deadline`, OutOfTime leaves nothing behind."""
    from jacked_vault.store import audit

    now = timestamps.utc_now()

    def event(op: str, note_id: str, rel: str, data: bytes | None) -> audit.AuditEvent:
        return audit.AuditEvent(
            now, op, note_id, rel, audit.content_hash(data) if data is not None else "", ctx.harness, "sync"
        )

    ours_tree = repo[ours].tree if ours is not None else None
    moved: list[tuple[str, str, bytes]] = []
    if base == ours or adopt:
        plan = _Plan(repo[theirs].tree, [theirs])
    else:
        from jacked_vault.sync.arrivals import forgotten_between
        from jacked_vault.sync.merge import resolve

        base_tree = repo[base].tree if base is not None else None
        forgotten = forgotten_between(repo, base_tree, repo[ours].tree) | forgotten_between(
            repo, base_tree, repo[theirs].tree
        )
        index = git.merge_histories(repo, ours, theirs)
        settled = resolve(ctx.vault, repo, index, join=join, forgotten=forgotten)
        moved = settled.moved
        result = SyncResult(
            "merged", 0, 0, "", renamed=settled.renamed, hot=settled.hot, transitions=settled.transitions
        )
        plan = _Plan(cast("pygit2.Tree", repo[index.write_tree(repo)]), [ours, theirs], result=result)
        plan.events += [event(op, note_id, rel, data) for op, note_id, rel, data in settled.events]
        settled_paths = {rel for _, _, rel, _ in settled.events}
        plan.events += [
            event("merge", rel, rel, data)
            for rel, data in _merged_anew(ctx, repo, repo[ours].tree, repo[theirs].tree, plan.tree)
            if rel not in settled_paths
        ]

    def ours_bytes(rel: str) -> bytes | None:
        return git.blob_at(repo, ours_tree, rel)

    def keep_ours(rel: str) -> None:
        mine = ours_bytes(rel)
        if git.blob_at(repo, plan.tree, rel) != mine:
            plan.edits[rel] = mine

    plan.result.forgotten = list(arrivals.forgotten)
    for rel in arrivals.deleted:
        if accept_deletions and classify_path(ctx.vault, rel) == "note":
            plan.result.accepted_deletions.append(rel)
            continue
        if ours_bytes(rel) is None:
            continue  # gone on both sides
        keep_ours(rel)
        plan.result.kept_deletions.append(rel)
        plan.events.append(event("keep", rel, rel, ours_bytes(rel)))
    for item in arrivals.quarantined:
        for rel in filter(None, (item["path"], item.get("moved_from"))):
            keep_ours(rel)
        if item["path"] not in arrivals.tombstones:
            plan.events.append(event("quarantine", item["id"], item["path"], ours_bytes(item["path"])))
    data: bytes | None  # a tombstone file's bytes below, then an index.md's (None: it goes)
    for rel, data in arrivals.tombstones.items():
        merged = _union(ours_bytes(rel), data)
        if git.blob_at(repo, plan.tree, rel) != merged:
            plan.edits[rel] = merged
        if any(item["path"] == rel for item in arrivals.quarantined):
            plan.events.append(event("quarantine", rel, rel, merged))
    rejected = _reject_rejected_values(ctx, repo, plan, arrivals, now)
    plan.events += [event("reject", note.id, rel, plan.edits[rel]) for rel, note in rejected.items()]
    removed = _forget_forgotten_values(ctx, repo, plan, arrivals)
    plan.events += [event("forget", note_id, rel, None) for rel, note_id in removed.items()]
    duplicates = _supersede_duplicates(ctx, repo, plan, arrivals, moved, now)
    plan.events += [event("supersede", note.id, rel, plan.edits[rel]) for rel, note in duplicates.items()]
    if len(plan.parents) == 2:
        vouched = {e.path for e in plan.events} | set(plan.edits) | set(removed)
        plan.events += [
            event(op, key, rel, data)
            for op, key, rel, data in _last_words(ctx, repo, base, ours, theirs, plan.tree, arrivals)
            if rel not in vouched
        ]
    changed: dict[str, Note | None] = {**arrivals.notes, **dict.fromkeys(removed)}
    transitioned = {**{rel: note for rel, note in rejected.items() if rel not in removed}, **duplicates}
    for rel, data in _expected_indexes(
        ctx, repo, plan, changed, transitioned, arrivals, moved, ours_bytes, deadline
    ).items():
        if git.blob_at(repo, plan.tree, rel) != data:
            plan.edits[rel] = data
            plan.events.append(event("regenerate", rel, rel, data))
    return plan


def _last_words(
    ctx: Context,
    repo: pygit2.Repository,
    base: pygit2.Oid | None,
    ours: pygit2.Oid,
    theirs: pygit2.Oid | str,
    merged_tree: pygit2.Tree,
    arrivals: Arrivals,
) -> list[tuple[str, str, str, bytes]]:
    """(op, note id or hot key, path, bytes) for each note or hot.md a merge makes cleanly while
    the other side's audit lines since the merge base name it: taken from the remote while this
    side's lines name it, or kept from this side while the remote's lines name it. Such a line
    (another settling made apart, a set of hot.md) may be later in time than the one vouching for
    the bytes the merge holds, so this merge writes the last word (doctor: a note's or hot.md's
    last audit line names the bytes it holds)."""
    from jacked_vault.document import parse_note
    from jacked_vault.sync.merge import hot_key

    base_tree = repo[base].tree if base is not None else None
    ours_tree, theirs_tree = repo[ours].tree, repo[theirs].tree
    named: set[str] = set()  # note ids and paths this side's audit lines since the base name
    for record in _appended_since(repo, base_tree, ours_tree):
        named.update(str(record.get(key) or "") for key in ("id", "path"))
    out = []
    for rel in sorted(set(arrivals.notes) | {rel for rel in arrivals.changed if classify_hot(ctx.vault, rel)}):
        data = git.blob_at(repo, merged_tree, rel)
        if data is None or data == git.blob_at(repo, ours_tree, rel):
            continue  # not taken from the remote (or the same bytes here already)
        note = arrivals.notes.get(rel)
        if note is not None and (note.id in named or rel in named):
            out.append(("resolve", note.id, rel, data))
        elif note is None and rel in named:
            out.append(("hot", hot_key(rel), rel, data))
    taken = {rel for _, _, rel, _ in out}
    for record in _appended_since(repo, base_tree, theirs_tree):
        rel, key = str(record.get("path") or ""), str(record.get("id") or "")
        if rel in taken or classify_path(ctx.vault, rel) not in ("note", "hot"):
            continue
        data = git.blob_at(repo, merged_tree, rel)
        if data is None or data == git.blob_at(repo, theirs_tree, rel):
            continue  # the remote's bytes (or gone)
        if classify_hot(ctx.vault, rel):
            out.append(("hot", hot_key(rel), rel, data))
        else:
            try:
                kept = parse_note(data, source=rel).id
            except VaultError:
                continue  # not a note this merge can vouch for (the gate has its say)
            if kept != key:
                continue  # another note holds the path now
            out.append(("resolve", kept, rel, data))
        taken.add(rel)
    return out


def _appended_since(
    repo: pygit2.Repository, base_tree: pygit2.Tree | None, side_tree: pygit2.Tree
) -> list[dict[str, Any]]:
    """The audit records one side's history appended since the merge base (every machine's part)."""
    from jacked_vault.sync.arrivals import appended_records

    def audit(tree: pygit2.Tree | None) -> pygit2.Tree | None:
        return cast("pygit2.Tree", tree[AUDIT_DIR]) if tree is not None and AUDIT_DIR in tree else None

    records: list[dict[str, Any]] = []
    for rel, entry in changed_entries(repo, audit(base_tree), audit(side_tree), prefix=AUDIT_DIR + "/"):
        data = git.blob_at(repo, side_tree, rel) if entry is not None else None
        if data is not None:
            records += appended_records(data, git.blob_at(repo, base_tree, rel))
    return records


def _merged_anew(
    ctx: Context, repo: pygit2.Repository, ours_tree: pygit2.Tree, theirs_tree: pygit2.Tree, merged_tree: pygit2.Tree
) -> list[tuple[str, bytes]]:
    """The files that arrive only with an audit line (`arrivals.VOUCHED_KINDS`: hot.md, episodic
    files, README.md, vault.json) whose merge git made cleanly into bytes neither side had: this
    machine's merge vouches for them (an audit line each), as it does for what it settles."""
    from jacked_vault.sync.arrivals import VOUCHED_KINDS

    out = []
    for rel, entry in changed_entries(repo, theirs_tree, merged_tree):
        if entry is None or classify_path(ctx.vault, rel) not in VOUCHED_KINDS:
            continue
        data = git.blob_at(repo, merged_tree, rel)
        if data is not None and data != git.blob_at(repo, ours_tree, rel):
            out.append((rel, data))
    return out


def _reject_rejected_values(
    ctx: Context, repo: pygit2.Repository, plan: _Plan, arrivals: Arrivals, now: str
) -> dict[str, Note]:
    """SPEC 5.3 across machines: every live note the joined vault would hold with a value a
    rejection covers (one of this machine's, a rejection arriving; or an arriving one made before
    its machine knew of a rejection) is rejected in the integration commit, from the bytes it
    holds there; returns the rejected notes by path (their bytes are in `plan.edits`)."""
    import dataclasses

    from jacked_vault.document import parse_note, render_note
    from jacked_vault.search.index import open_fresh
    from jacked_vault.store.tombstones import tombstone_hash

    forgotten = arrivals.new_stones.forgotten
    paths = set(arrivals.rejected_here)
    if arrivals.new_stones.values:
        index = open_fresh(ctx.vault)
        try:
            paths |= {rel for value in arrivals.new_stones.values for rel in index.read.live_with_value(value)}
        finally:
            index.close()
    out = {}
    for rel in sorted(paths):
        data = plan.edits.get(rel, git.blob_at(repo, plan.tree, rel))
        if data is None:
            continue
        note = parse_note(data, source=rel)
        if note.status not in ("candidate", "active") or tombstone_hash(note.title, note.body) in forgotten:
            continue  # a record already, or taken out below: forgotten
        rejected = dataclasses.replace(
            note, status="rejected", status_reason="the same value was rejected on another machine", updated_at=now
        )
        plan.edits[rel] = render_note(rejected)
        plan.result.rejected.append(note.id)
        out[rel] = rejected
    return out


def _supersede_duplicates(
    ctx: Context,
    repo: pygit2.Repository,
    plan: _Plan,
    arrivals: Arrivals,
    moved: list[tuple[str, str, bytes]],
    now: str,
) -> dict[str, Note]:
    """SPEC 5.6 across machines (issue 33.13): a note that arrives new and repeats a live note of
    this machine's (`write.create.duplicate_of`, the rule every create applies) was saved on both
    before a sync. Of two such active notes the later (created time, then id: every machine picks
    the same) is superseded as a duplicate of the first in the integration commit; returns the
    superseded notes by path (their bytes are in `plan.edits`)."""
    import dataclasses

    from jacked_vault.document import parse_note, render_note
    from jacked_vault.search.index import open_fresh
    from jacked_vault.write.create import duplicate_of
    from jacked_vault.write.transitions import transition_changes

    arriving = {rel: note for rel, note in arrivals.notes.items() if note.status == "active"}
    if not arriving:
        return {}
    moved_to = {note_id: rel for note_id, rel, _ in moved}  # this machine's notes moved aside in the merge
    pairs = []
    index = open_fresh(ctx.vault)
    try:
        for rel, note in sorted(arriving.items()):
            made = arrivals.derivation(rel, note)  # it holds the note's value hash
            value = made.thash if made is not None else None
            twin = (
                None if index.read.note_path(note.id) else duplicate_of(index.read, note, value)
            )  # new here, repeating a live note
            if twin is not None:
                pairs.append((rel, moved_to.get(twin.id, twin.path)))
    finally:
        index.close()
    out: dict[str, Note] = {}
    for pair in pairs:
        held = {rel: plan.edits.get(rel, git.blob_at(repo, plan.tree, rel)) for rel in pair}
        notes = {rel: parse_note(data, source=rel) for rel, data in held.items() if data is not None}
        if len(notes) != 2 or any(note.status != "active" for note in notes.values()):
            continue  # one is gone, or no longer live (rejected, forgotten, superseded already) in the merge
        first, later = sorted(notes.values(), key=lambda note: (note.created_at, note.id))
        rel = next(rel for rel, note in notes.items() if note is later)
        superseded = dataclasses.replace(
            later,
            updated_at=now,
            **transition_changes(
                "supersede", later, now, reason=f"duplicate of {first.id}", valid_until=None, by=first.id,
                reviewed=False,
            ),
        )  # fmt: skip
        plan.edits[rel] = render_note(superseded)
        plan.result.duplicates.append({"id": later.id, "duplicate_of": first.id})
        out[rel] = superseded
    return out


def _forget_forgotten_values(ctx: Context, repo: pygit2.Repository, plan: _Plan, arrivals: Arrivals) -> dict[str, str]:
    """A forget across machines (SPEC 5.2, issue 31.5): every note of this machine's that holds a
    value the remote newly forgot, whatever its status, is removed in the integration commit, as
    `forget` removes the forgotten note's twins (a `forget` audit line each, named in sync's
    answer), so the text is gone from every machine's HEAD; returns path -> note id."""
    from jacked_vault.search.index import open_fresh

    if not arrivals.new_stones.forgotten:
        return {}
    index = open_fresh(ctx.vault)
    try:
        held = dict(pair for value in arrivals.new_stones.forgotten for pair in index.read.notes_with_value(value))
    finally:
        index.close()
    out = {}
    for rel, note_id in sorted(held.items()):
        if plan.edits.get(rel, git.blob_at(repo, plan.tree, rel)) is None:
            continue  # gone already (the forgotten note itself, deleted by the forget arriving)
        plan.edits[rel] = None
        plan.result.forgotten.append(rel)
        out[rel] = note_id
    return out


def _union(ours: bytes | None, theirs: bytes) -> bytes:
    """A tombstone file that only grows: our lines, then the remote's valid lines we lack."""
    from jacked_vault.store.tombstones import parse_tombstones

    lines = [line for line in (ours or b"").decode("ascii", "replace").split("\n") if line]
    known = set(lines)
    for line in theirs.decode("ascii", "replace").split("\n"):
        if line in parse_tombstones(line.encode()) and line not in known:
            lines.append(line)
            known.add(line)
    return "".join(f"{line}\n" for line in lines).encode("ascii")


MAX_PREVIEW_NOTES = 5000  # beyond it, index.md is kept as it was and regenerated after the move


def _expected_indexes(
    ctx: Context,
    repo: pygit2.Repository,
    plan: _Plan,
    notes: dict[str, Note | None],
    transitioned: dict[str, Note],
    arrivals: Arrivals,
    moved: list[tuple[str, str, bytes]],
    ours_bytes: Callable[[str], bytes | None],
    deadline: Deadline | None = None,
) -> dict[str, bytes | None]:
    """index.md as this machine derives it once the arrivals are in (never the remote's bytes):
    rendered from the search index with the arriving notes (`notes`), this machine's notes moved
    aside, the notes this commit rejects or supersedes (`transitioned`, a quarantined arrival's
    local version among them) and the tombstones previewed."""
    from jacked_vault.document import parse_note
    from jacked_vault.recall.index_md import index_path, render_index
    from jacked_vault.search.index import open_fresh
    from jacked_vault.store.tombstones import Stones

    kept_out = {item["path"] for item in arrivals.quarantined}  # not taken: the local version stays
    changes: dict[str, Entry | None] = {
        rel: Entry.from_note(note) if note is not None else None for rel, note in notes.items() if rel not in kept_out
    }
    made_of = {rel: note for rel, note in notes.items() if rel in changes and note is not None}  # each entry's note
    for _, rel, data in moved:  # this machine's notes moved aside for an arriving one of the same name
        changes[rel] = Entry.from_note(parse_note(data, source=rel))
        made_of.pop(rel, None)
    changes.update({rel: Entry.from_note(note) for rel, note in transitioned.items()})  # as this commit leaves them
    made_of.update(transitioned)
    changes.update({rel: None for rel in [*plan.result.accepted_deletions, *arrivals.forgotten]})
    derived = {  # what an arriving note's text gives the index, derived as it arrived: for that very note's entry
        rel: made for rel, note in made_of.items() if (made := arrivals.derivation(rel, note)) is not None
    }
    stones = Stones.read(arrivals.tombstones.items())
    groups = {found[1] for found in (classify_note(ctx.vault, rel) for rel in changes) if found}
    groups |= {rel.split("/")[1] for rel in arrivals.derived if "/" in rel}
    index = open_fresh(ctx.vault)
    try:
        if len(changes) > MAX_PREVIEW_NOTES:
            return {rel: ours_bytes(rel) for rel in arrivals.derived}
        with index.preview(changes, tombstones=stones, deadline=deadline, derived=derived) as future:
            if stones:
                groups |= set(future.notes_per_group())
            with_notes = set(future.notes_per_group())
            out = {}
            for group in sorted(g for g in groups if g):
                rel = index_path(ctx.vault, group)
                held = (
                    group in with_notes or ours_bytes(rel) is not None or git.blob_at(repo, plan.tree, rel) is not None
                )
                out[rel] = render_index(future, ctx.vault, group) if held else None
            return out
    finally:
        index.close()


class _Held(Exception):
    """The SessionStart pull held what arrived (the remote deletes files): the state it recorded,
    as a value (the record itself may not have been written: it is only a report)."""

    def __init__(self, state: SyncState) -> None:
        super().__init__(state.message)
        self.state = state


def _integrate(
    ctx: Context,
    repo: pygit2.Repository,
    ours: pygit2.Oid,
    theirs: pygit2.Oid | str,
    base: pygit2.Oid | None,
    *,
    accept_deletions: bool,
    adopt: bool = False,
    join: bool = False,
    hold_deletions: bool = False,
    deadline: Deadline | None = None,
    stages: Stages | None = None,
) -> SyncResult:
    """Judge the arrivals, then fast-forward, or commit what this machine keeps and regenerates on
    top of (or merged with) the remote's history, and move HEAD (lock held). With
    `hold_deletions` (the SessionStart pull) nothing moves when the remote deletes files: `_Held`.
    With `deadline`, OutOfTime when it passes before the commit: nothing written, HEAD where it was."""
    from jacked_vault.store import audit, reviews
    from jacked_vault.write.transaction import commit_tree

    root = ctx.vault.root
    signers = ctx.settings.review.signers
    signed = (
        reviews.signed_between(root, repo, str(theirs), str(base), signers)
        if signers is not None and base is not None
        else None
    )  # with trusted keys, only the accepts and forgets git verifies are taken (not on adopting a history)
    arrivals = _judge(
        ctx, repo, repo[base].tree if base is not None else None, repo[theirs].tree, signed, deadline, stages
    )
    if arrivals.refused:
        error = arrivals.refusal(str(theirs))
        write_state(root, "refused", error.message)
        raise error
    if hold_deletions and arrivals.deleted:
        raise _Held(
            write_state(
                root,
                "deletions",
                f"the remote deletes {len(arrivals.deleted)} file(s); run `jacked memory sync` to review",
            )
        )
    plan = _plan(
        ctx, repo, ours, theirs, base, arrivals, accept_deletions=accept_deletions, adopt=adopt, join=join,
        deadline=deadline,
    )  # fmt: skip
    if deadline is not None:
        deadline.check("preparing the commit of what arrived")
    result = plan.result
    if len(plan.parents) == 1 and not plan.edits:
        git.advance_to(repo, theirs, ours)
    else:
        plan.events.append(
            audit.AuditEvent(
                _now(), "sync", f"origin:{str(theirs)[:12]}", "", "", ctx.harness, "sync", remote=str(theirs)
            )
        )
        tree = git.tree_with_files(repo, plan.tree, plan.edits)
        subject = (
            f"memory: sync merge of origin ({str(theirs)[:10]})"
            if len(plan.parents) == 2
            else f"memory: sync of origin ({str(theirs)[:10]}): what this machine keeps"
        )
        commit = commit_tree(
            ctx.vault, repo, tree, plan.parents, plan.events, subject,
            harness=ctx.harness, origin="sync", settings=ctx.settings, remote=str(theirs),
        )  # fmt: skip
        git.advance_to(repo, commit, ours)
    result.quarantined = _quarantine(ctx, arrivals)
    _index_arrivals(ctx, arrivals)
    return result


def _index_arrivals(ctx: Context, arrivals: Arrivals) -> None:
    """Bring the search index to the new HEAD, taking the gate's pass of each arriving note for
    its very blob (`arrivals.passed`): a note is read, judged and derived once, as `init --from`
    does (issue 34.2); what the arrivals did not pass is read and judged by the index as ever.
    The index is derived: when it cannot be updated now (a locked or unreadable file), what
    arrived has landed all the same, and the next read brings the index up (or says why not)."""
    if not arrivals.passed:
        return
    import sqlite3

    from jacked_vault.search.index import SearchIndex

    try:
        index = SearchIndex(ctx.vault)
        try:
            index.refresh(passed=arrivals.passed)
        finally:
            index.close()
    except (VaultError, sqlite3.Error):
        return


def _now() -> str:
    return timestamps.utc_now()


PUSH_ATTEMPTS = 5  # tries in all of a sync whose push keeps losing the race (five machines at once all land)
RETRY_JITTER_S = 0.25  # the longest first wait before trying again, doubling with each try (random below it)


def sync(ctx: Context, *, accept_deletions: bool = False, stages: Stages | None = None) -> SyncResult:
    """Fetch; then fast-forward, push, or merge; then regenerate index.md and push. A push that
    loses a race (another machine pushed since the fetch) fetches, integrates and pushes again,
    `PUSH_ATTEMPTS` tries in all, after a random wait that spreads racing machines out. Every
    outcome is recorded (the last pull, the last push), a failure included. `stages` (store.progress)
    is told how judging what arrived goes."""
    root = ctx.vault.root
    before = read_state(root)
    try:
        return _sync_until_pushed(ctx, accept_deletions, stages)
    except VaultError as exc:
        if read_state(root) == before:  # not recorded where it failed: say so here
            write_state(root, "failed", exc.message)
        raise


def _rewritten_copy(repo: pygit2.Repository, ours: pygit2.Oid, theirs: pygit2.Oid | str) -> str | None:
    """A commit of this vault's the remote no longer holds but holds a rewritten copy of (the same
    `Memory-Audit` trailer, which names one line of one machine's audit chain: one commit's), or
    None. That is a history rewritten and force-pushed (a purge, as `forget` tells a team to do):
    merging it would bring the old history, and whatever was purged from it, back. A server that
    only lost commits (restored from a backup, maybe moved on since) holds no copy: sync heals it."""
    marks = {mark for commit in _only_in(repo, theirs, ours) for mark in _audit_marks(commit)}
    if not marks:
        return None
    return next((str(commit.id) for commit in _only_in(repo, ours, theirs) if marks & _audit_marks(commit)), None)


def _only_in(repo: pygit2.Repository, tip: pygit2.Oid | str, other: pygit2.Oid | str) -> pygit2.Walker:
    """The commits reachable from `tip` and not from `other`."""
    walker = repo.walk(tip)
    walker.hide(other)
    return walker


def _audit_marks(commit: pygit2.Commit) -> set[str]:
    from jacked_vault.store.audit import TRAILER

    return {line for line in (commit.message or "").splitlines() if line.startswith(TRAILER)}


def _rewritten(ctx: Context, branch: str, had: str) -> VaultError:
    """SYNC: the remote's history was rewritten; the way on (a fresh clone, this vault's notes
    carried over through the gate, the folders swapped) in the message and in `details["commands"]`."""
    import shlex

    root = ctx.vault.root
    old, new = shlex.quote(str(root)), shlex.quote(f"{root}-rejoined")
    origin = remote.origin(root) or ""
    url = (
        shlex.quote(origin) if remote.display_url(origin) == origin else f'"$(git -C {old} remote get-url origin)"'
    )  # a URL holding credentials is never printed
    before = shlex.quote(f"{root}-before-rewrite")
    commands = [
        f"jacked memory init --from {url} --vault {new}",
        f"jacked memory carry --from {old} --vault {new}",
        f"mv {old} {before} && mv {new} {old}",
    ]
    return VaultError(
        "SYNC",
        f"the remote's history was rewritten (a purge, force-pushed): its {branch} holds a rewritten copy of "
        f"{had[:10]} in place of it. Nothing was changed and nothing was pushed: this vault keeps every note, "
        "and merging would bring the old history, and anything purged from it, back. To go on: "
        + ", then ".join(f"`{command}`" for command in commands)
        + " (a fresh clone; `carry` re-adds through the gate the notes here the remote lacks; the old folder is "
        "kept until you delete it)",
        details={"rewritten": True, "commands": commands},
    )


def _sync_until_pushed(ctx: Context, accept_deletions: bool, stages: Stages | None = None) -> SyncResult:
    """`_take` what the remote has, then push; again while the push loses a race. Never a server's
    refusal or a failed login again (they are no race: `remote.lost_race`)."""
    import random
    import time

    root = ctx.vault.root
    branch = git.require_branch(root)
    done: SyncResult | None = None
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        taken = _take(ctx, branch, accept_deletions, stages)
        done = taken if done is None else done.then(taken)
        done.push_attempts = attempt
        repo = git.open_repo(root)
        tracking = repo.references.get(f"refs/remotes/origin/{branch}")
        if tracking is not None and tracking.target == _head_id(repo):
            break  # nothing of this machine's to push
        try:
            _push(root, branch, races_lost=attempt - 1)
        except remote.PushRace as lost:
            if attempt == PUSH_ATTEMPTS:
                message = (
                    f"the remote's {branch} moved on while this machine pushed, {attempt} times ({lost.reason}: other "
                    "machines pushing at once); nothing was overwritten, and the next sync or session end pushes again"
                )
                write_state(root, "failed", message, kind="push")
                raise VaultError("SYNC", message) from None
            time.sleep(random.uniform(0, RETRY_JITTER_S * 2 ** (attempt - 1)))
            continue
        if done.action == "up-to-date":
            done.action = "pushed"
        break
    assert done is not None, "PUSH_ATTEMPTS is at least 1"
    done.head = git.fast_head(root) or ""
    return done


def _take(ctx: Context, branch: str, accept_deletions: bool, stages: Stages | None = None) -> SyncResult:
    """Fetch, then fast-forward, merge or adopt what the remote has (judged by the gate), and
    regenerate index.md; the pull is recorded (never as a push: that is the push's record)."""

    root = ctx.vault.root
    check_store_gitignore(ctx.vault)
    remote.fetch(root, branch)
    with store_lock(ctx.vault.state):
        repo = git.open_repo(root)
        tracking = repo.references.get(f"refs/remotes/origin/{branch}")
        ours = _head_id(repo)
        if tracking is None or tracking.target == ours:
            result = SyncResult("pushed" if tracking is None else "up-to-date", 1 if tracking is None else 0, 0, "")
        else:
            theirs = tracking.target
            ahead, behind = repo.ahead_behind(ours, theirs)
            base = repo.merge_base(ours, theirs)
            if behind == 0:
                result = SyncResult("pushed", ahead, behind, "")
            elif (copied := _rewritten_copy(repo, ours, theirs)) is not None:
                error = _rewritten(ctx, branch, copied)
                write_state(root, "rewritten", error.message)
                raise error
            elif base is None and _only_init(repo):
                result = SyncResult("adopted", ahead, behind, "")
            elif base is None:
                write_state(
                    root,
                    "refused",
                    "the remote holds an unrelated vault; `jacked memory remote set URL --join` joins them",
                )
                raise _join_needed(ctx)
            else:
                result = _integrate(ctx, repo, ours, theirs, base, accept_deletions=accept_deletions, stages=stages)
                result.ahead, result.behind = ahead, behind
    if result.action == "adopted":
        _adopt(ctx, git.open_repo(root), branch)
    if result.action in ("merged", "fast-forward", "adopted"):
        result.regenerated = regenerate_indexes(ctx)
    held = f"; quarantined {len(result.quarantined)} arrival(s)" if result.quarantined else ""
    took = "up-to-date" if result.action == "pushed" else result.action  # "pushed": nothing to take
    write_state(root, "ok", f"sync: {took}{held}")
    return result


def regenerate_indexes(ctx: Context) -> list[str]:
    """Rewrite every group's index.md that differs from what the search index says; one commit."""
    from jacked_vault.recall.index_md import index_path, render_index
    from jacked_vault.write.transaction import write_transaction

    store = ctx.vault
    changed = []
    with write_transaction(store, harness=ctx.harness, origin="sync", settings=ctx.settings) as tx:
        for group in sorted(tx.index.read.notes_per_group()):
            rel = index_path(store, group)
            data = render_index(tx.index.read, store, group)
            if fsio.read_optional(store.root, rel, max_bytes=1 << 20) != data:
                tx.replace(rel, data)
                tx.event("regenerate", rel, rel, data)
                changed.append(rel)
        if changed:
            tx.commit("memory: regenerate index.md after sync")
    return changed


def pull_at_session_start(
    ctx: Context, timeout_s: float = SESSION_START_TIMEOUT_S, *, background: bool = False, cap: str = "session-start"
) -> SyncState:
    """Fetch, judge what arrives and integrate it as `sync` does (a fast-forward, or a merge when
    this machine has commits of its own, never pushed from here) when nothing arriving is refused
    or deleted and nothing conflicts; otherwise record why and change nothing. `timeout_s` (the
    `cap`, named in messages) bounds the whole pull: what is not judged and committed by then
    waits (HEAD does not move; the verdicts reached are kept), for the detached `_hook pull` this
    starts when `background`, else for the next sync or session start. Returns the recorded
    state; never raises."""

    root = ctx.vault.root
    deadline = Deadline.after(timeout_s)
    try:
        if not remote.origin(root):
            # nothing happened: nothing recorded
            return SyncState("no-remote", "no remote is set", timestamps.utc_now())
        branch = git.require_branch(root)
        try:
            remote.fetch(root, branch, timeout=min(deadline.left(), remote.NETWORK_TIMEOUT_S))  # a dead link is no pull
        except VaultError as exc:
            if "longer than" not in exc.message:
                return write_state(root, "failed", exc.message)
            return _cut_short(root, timeout_s, cap, "fetching", background, judged=False)
        with store_lock(ctx.vault.state, timeout_s=deadline.left()):
            repo = git.open_repo(root)
            tracking = repo.references.get(f"refs/remotes/origin/{branch}")
            ours = _head_id(repo)
            if tracking is None or tracking.target == ours or repo.descendant_of(ours, tracking.target):
                return write_state(root, "up-to-date", "nothing new from the remote")
            theirs = tracking.target
            base = repo.merge_base(ours, theirs)
            if base != ours and (copied := _rewritten_copy(repo, ours, theirs)) is not None:
                return write_state(root, "rewritten", _rewritten(ctx, branch, copied).message)
            if base is None:  # no common commit: `sync` adopts the remote's history or says how to join
                return write_state(root, "diverged", "the vault and its remote have diverged; run `jacked memory sync`")
            try:
                result = _integrate(
                    ctx, repo, ours, theirs, base, accept_deletions=False, hold_deletions=True, deadline=deadline
                )
            except OutOfTime as late:
                return _cut_short(root, timeout_s, cap, late.doing, background)
            except _Held as held:
                return held.state
            except VaultError as exc:
                return write_state(root, "refused" if "never takes" in exc.message else "failed", exc.message)
            if result.quarantined:
                return write_state(
                    root,
                    "quarantined",
                    f"took the remote's notes; quarantined {len(result.quarantined)} arrival(s) "
                    "(see `jacked memory doctor`)",
                )
        if result.action == "merged":
            return write_state(
                root, "ok", "merged the remote's notes with this machine's (pushed at the next sync or session end)"
            )
        return write_state(root, "ok", "fast-forwarded")
    except VaultError as exc:
        return write_state(root, "failed", exc.message)
    except Exception as exc:  # session start never fails
        return write_state(root, "failed", f"{type(exc).__name__}")


def _cut_short(
    root: Path, timeout_s: float, cap: str, doing: str, background: bool, *, judged: bool = True
) -> SyncState:
    """The pull's state when its cap ran out while `doing` (HEAD not moved; when `judged`, the
    verdicts reached kept); when `background`, the detached `_hook pull` that finishes it is started."""
    if background:
        detached.spawn_hook(root, "pull")
    kept = " (the verdicts reached are kept)" if judged else ""
    then = (
        "the pull goes on in the background, and the next command sees what the remote brings"
        if background
        else "the next `jacked memory sync` or session start takes what the remote brings"
    )
    message = f"the {timeout_s:g} s {cap} cap ran out while {doing}; nothing was changed{kept}: {then}"
    return write_state(root, "timeout", message)


def finish_pull(ctx: Context) -> str:
    """The detached `_hook pull` a session start leaves when its cap runs out: the same pull under
    `BACKGROUND_PULL_TIMEOUT_S`, one at a time (`BACKGROUND_PULL_LOCK`; a second stands down after
    `BACKGROUND_PULL_WAIT_S`, which a session start's look at the lock never outlasts). Returns its
    log outcome."""

    try:
        with store_lock(ctx.vault.state, timeout_s=BACKGROUND_PULL_WAIT_S, name=BACKGROUND_PULL_LOCK):
            state = pull_at_session_start(ctx, BACKGROUND_PULL_TIMEOUT_S, cap="background pull")
    except VaultError as exc:
        if exc.code != "LOCKED":
            raise
        return "pull=skipped: another background pull is already going on"
    return f"pull={state.result}" + ("" if state.result in ("ok", "up-to-date") else f": {state.message}")


def background_pull_running(ctx: Context) -> bool:
    """Whether a detached pull holds `BACKGROUND_PULL_LOCK` now (a session start then leaves the
    pull to it). Looking takes the lock for an instant; a pull starting then waits it out."""

    try:
        with store_lock(ctx.vault.state, timeout_s=0, name=BACKGROUND_PULL_LOCK):
            return False
    except VaultError as exc:
        if exc.code != "LOCKED":
            raise
        return True
