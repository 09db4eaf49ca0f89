"""`capture-merge`: turn each merge on a configured branch into one candidate decision note.

What counts as a merge. The capture looks at the commits a merge or pull brought to the
branch: those reachable from the new head but not from the last head this machine captured
for the repo (`.git/jacked/merge-captured.json` in the vault), else not from `ORIG_HEAD` (what
the hook passes as `--since`). It walks their first-parent line (bounded) and takes, oldest
first:

- every merge commit (two parents, or an octopus with more) -> one note each. A
  `git pull` sync merge (`Merge branch 'main' of …`, `Merge remote-tracking branch
  'origin/main'`) is not a merge of work: the walk goes into its upstream side instead,
  so a pull that brings three pull-request merges captures those three;
- every squash-merged pull request (`Title (#N)`) and every local squash commit
  (`Squashed commit of the following:`) -> one note each;
- when neither is found and the reflog says the head came from a local
  `git merge <branch>` fast-forward -> one note for the fast-forward as a whole. A
  fast-forward *pull* of plain commits brings no merge and captures nothing.

`git merge --squash` commits nothing (git fires post-merge before the person commits the
squash, with HEAD unchanged), so that hook run captures nothing; the squashed commit is
picked up by the next capture in the repo (the next merge or pull on the branch), because
the walk starts at the last captured head, or at once with `capture-merge --commit SHA`.

Branches: `git config jacked.branches` (space or comma separated shell patterns, e.g.
"main master release/*"; repo, global or system config), default "main master". The
hook checks it before starting the capture; the capture checks it again. `--commit SHA`
captures that one commit whatever the branch.

Metadata is collected deterministically with pygit2: the merge sha, parents, the merged
commits' subjects (at most MAX_COMMITS_SHOWN shown, all counted up to a cap), the files the
merge changed on the branch with line stats (at most MAX_FILES_SHOWN shown, totals for all),
and the pull request: number/title/body from the merge message, or from
`gh pr view N --json …` when `gh` is on PATH and answers within GH_TIMEOUT_S (never
required). One distiller call (the capture issue's contract) may write the note's title
and body; without a distiller, or when it fails or its answer is refused, the note is the
deterministic summary. Either way the body starts with `Merge-Commit: <sha>`.

Safety and bounds: every piece of merge text is data: control and bidi characters are
removed, lines are truncated, and each piece (PR title, PR body line by line, commit
subjects, paths) is secret-scanned first; a piece that looks like a secret is replaced by
`[dropped: looked like <kind>]`. If the create path still refuses the note as SECRET, a
minimal note (sha, counts, no free text) is written instead. The body stays under
MAX_BODY_CHARS (far below the 64 KiB cap).

Idempotent per merge commit: under a per-vault lock, a note whose body's first
`Merge-Commit:` line names the sha (any status, found through the search index) means
"already captured". Tombstoned values are skipped. A create that fails for another reason
(lock timeout, I/O) is queued in the one capture queue (`capture.queue`, kind `merge`) and
retried by the next capture-merge in any repo or the next drain (`retry`), up to its
MAX_TRIES, then moved to `.git/jacked/queue/failed/`. Run from the hook, nothing raises: the
outcome is one line in `.git/jacked/log`.

The module is the entry points and the create; `info` collects, `note` renders, `walk`
finds the merge units; `capture.redact`, `capture.guard` and the distiller are shared with
session capture.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from jacked_vault.capture.marker import inside_distiller
from jacked_vault.capture.merge.info import MergeInfo, collect
from jacked_vault.capture.merge.note import (
    deterministic_body,
    deterministic_title,
    distilled,
    distilled_body,
    facts,
    minimal_body,
)
from jacked_vault.capture.merge.walk import (
    Unit,
    branch_matches,
    configured_branches,
    find_units,
    is_ancestor,
    kind_of,
    reflog_fast_forward,
    resolve,
)
from jacked_vault.capture.queue import Attempt, drain
from jacked_vault.capture.redact import clean_line
from jacked_vault.context import Context
from jacked_vault.document import MAX_FILE_BYTES, timestamps
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store.layout import state_dir
from jacked_vault.store.lock import store_lock
from jacked_vault.store.log import log_line
from jacked_vault.store.queue import enqueue
from jacked_vault.store.statefile import read_json, write_json
from jacked_vault.store.vault import is_git_repo

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.capture.queue import Attempt, Handler
    from jacked_vault.context import Context
    from jacked_vault.write.create import Created

ORIGIN = "post-merge"
HARNESS = "git"
TAG = "post-merge"
MAX_UNITS_PER_RUN = 20
WALK_CUT = "the walk over the new commits stopped at its bound: older merges were not looked at"
LOCK_WAIT_S = 60.0  # a person running capture-merge
HOOK_LOCK_WAIT_S = 900.0  # the detached hook run: nobody waits for it, and it must not miss a merge
LEDGER = "merge-captured.json"
LOCK_FILE = "merge-capture.lock"
MAX_LEDGER_BYTES = 1024 * 1024
_SHA = re.compile(r"^[0-9a-f]{40}$")
_HEADER_LINE = re.compile(r"^Merge-Commit: ([0-9a-f]{40})$", re.MULTILINE)
SQUASH_SKIP = (
    "git merge --squash has committed nothing yet; the squashed commit is captured by the next capture in this repo"
)


@dataclass
class Outcome:
    """What happened to one merge: created | exists | tombstoned | secret | queued | failed."""

    commit: str
    kind: str
    action: str
    title: str = ""
    note_id: str | None = None
    path: str | None = None
    vault_commit: str | None = None
    reason: str | None = None
    distilled: bool = False
    dropped: list[str] = field(default_factory=list)  # kinds of secret-looking text left out

    def summary(self) -> str:
        return (
            f"{self.commit[:10]} {self.action}"
            + (f" {self.note_id}" if self.note_id else "")
            + (f" ({self.reason})" if self.reason and self.action != "created" else "")
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "kind": self.kind,
            "action": self.action,
            "title": self.title,
            "id": self.note_id,
            "path": self.path,
            "vault_commit": self.vault_commit,
            "reason": self.reason,
            "distilled": self.distilled,
            "dropped": sorted(set(self.dropped)),
        }


@dataclass
class MergeCaptureReport:
    """One capture-merge run: the repo, the branch and one Outcome per merge found."""

    repo: str
    identity: str | None = None
    group: str | None = None
    branch: str | None = None
    head: str | None = None
    since: str | None = None
    skipped: str | None = None  # why nothing was looked at (branch not configured, …)
    outcomes: list[Outcome] = field(default_factory=list)
    retried: list[Outcome] = field(default_factory=list)  # queued merges retried by this run
    more: int = 0  # merges found beyond MAX_UNITS_PER_RUN (left for --commit)
    truncated: bool = False  # the walk stopped at its bound: older new commits were not looked at

    @property
    def created(self) -> list[str]:
        return [o.note_id for o in self.outcomes + self.retried if o.action == "created" and o.note_id]

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "identity": self.identity,
            "group": self.group,
            "branch": self.branch,
            "head": self.head,
            "since": self.since,
            "skipped": self.skipped,
            "merges": [o.to_json() for o in self.outcomes],
            "retried": [o.to_json() for o in self.retried],
            "created": self.created,
            "more": self.more,
            "truncated": self.truncated,
        }

    def to_text(self) -> str:
        head = f"{self.identity or self.repo} on {self.branch or '-'}"
        if self.skipped:
            return f"{head}: nothing captured ({self.skipped})"
        lines = []
        for outcome in self.retried + self.outcomes:
            line = f"  {outcome.commit[:10]} {outcome.kind}: {outcome.action}"
            if outcome.note_id:
                line += f" {outcome.note_id}"
            if outcome.title:
                line += f" — {outcome.title}"
            if outcome.reason and outcome.action != "created":
                line += f" ({outcome.reason})"
            if outcome.dropped:
                line += f" [left out: {', '.join(sorted(set(outcome.dropped)))}]"
            lines.append(line)
        if self.more:
            lines.append(f"  {self.more} older merge(s) not captured (run capture-merge --commit SHA for them)")
        if self.truncated:
            lines.append(f"  {WALK_CUT} (run capture-merge --commit SHA for one)")
        if not lines:
            return f"{head}: no merge in the new commits"
        return f"{head}:\n" + "\n".join(lines)

    def summary(self) -> str:
        if self.skipped:
            return f"skipped ({self.skipped})"
        parts = [o.summary() for o in self.outcomes + self.retried]
        if self.more:
            parts.append(f"{self.more} more not captured (limit {MAX_UNITS_PER_RUN} a run)")
        if self.truncated:
            parts.append(WALK_CUT)
        return "; ".join(parts) or "no merge in the new commits"


def _capture_lock(cache: Path, wait_s: float = LOCK_WAIT_S) -> AbstractContextManager[None]:
    """One capture-merge at a time per vault (beside, not instead of, the store lock)."""

    return store_lock(cache, wait_s, name=LOCK_FILE)


def _ledger_head(cache: Path, identity: str) -> str | None:
    data = read_json(cache / LEDGER, MAX_LEDGER_BYTES) or {}
    entry = (data.get("repos") or {}).get(identity) if isinstance(data.get("repos"), dict) else None
    head = entry.get("head") if isinstance(entry, dict) else None
    return head if isinstance(head, str) and _SHA.match(head) else None


def _ledger_set(cache: Path, identity: str, head: str) -> None:
    data = read_json(cache / LEDGER, MAX_LEDGER_BYTES) or {}
    repos = data.get("repos")
    if not isinstance(repos, dict):
        repos = {}
    repos[identity] = {"head": head, "at": timestamps.utc_now()}
    if len(repos) > 5000:  # bounded: keep the most recently captured repos
        repos = dict(sorted(repos.items(), key=lambda kv: str((kv[1] or {}).get("at", "")))[-5000:])
    write_json(cache / LEDGER, {"version": 1, "repos": repos})


def already_captured(ctx: Context, sha: str) -> tuple[str, str] | None:
    """(id, title) of a vault note (any status) whose first `Merge-Commit:` line is `sha`, or None."""
    from jacked_vault.search.index import open_fresh
    from jacked_vault.search.query import Filters

    index = open_fresh(ctx.vault)
    try:
        hits = index.read.search(
            sha,
            Filters(
                scopes=frozenset({"group"}),
                statuses=("candidate", "active", "rejected", "superseded"),
                any_time=True,
                limit=50,
            ),
        )
    finally:
        index.close()
    for doc in hits:
        try:
            raw = fsio.read_file(ctx.vault.root, doc.path, max_bytes=MAX_FILE_BYTES)
        except (OSError, VaultError):
            continue
        found = _HEADER_LINE.search(raw.decode("utf-8", "replace"))
        if found and found.group(1) == sha:
            return doc.id, doc.title
    return None


def _create(ctx: Context, info: MergeInfo, *, use_distiller: bool) -> Outcome:
    from jacked_vault.search.index import rejected_elsewhere
    from jacked_vault.write.agents import status_for
    from jacked_vault.write.create import build_note, create_note

    outcome = Outcome(commit=info.commit, kind=info.kind, action="created")
    try:
        status = status_for(ctx.settings, ORIGIN, "candidate")
    except VaultError as exc:
        outcome.action, outcome.reason = "skipped", exc.message
        return outcome
    existing = already_captured(ctx, info.commit)
    if existing:
        outcome.action, outcome.reason = "exists", "already captured"
        outcome.note_id, outcome.title = existing
        return outcome
    dropped: list[str] = []
    title = deterministic_title(info, dropped)
    body = deterministic_body(info, dropped)
    tags = [TAG]
    if use_distiller:
        got = distilled(ctx, info, facts(info, []))
        if got is not None:
            d_title, d_text, d_tags = got
            title, body, outcome.distilled = d_title, distilled_body(info, d_text, dropped), True
            tags += [t for t in d_tags if t != TAG][:8]
    if info.pr is not None:
        tags.append(f"pr-{info.pr.number}")
    outcome.dropped = dropped

    def attempt(t: str, b: str) -> Created:
        note = build_note(
            title=t,
            body=b,
            kind="decision",
            scope="group",
            group=ctx.group,
            repos=[info.identity],
            source_harness=HARNESS,
            origin=ORIGIN,
            status=status,
            tags=tags,
        )
        return create_note(
            ctx.vault, note, rejected_elsewhere=rejected_elsewhere(ctx, ctx.vault), settings=ctx.settings, may_push=True
        )

    tries = [(title, body)]
    if outcome.distilled:
        tries.append((deterministic_title(info, dropped), deterministic_body(info, dropped)))
    tries.append((f"Merge {info.commit[:10]} into {clean_line(info.branch, 80)}", minimal_body(info)))
    last: VaultError | None = None
    for i, (t, b) in enumerate(tries):
        try:
            created = attempt(t, b)
        except VaultError as exc:
            last = exc
            if exc.code == "TOMBSTONED":
                outcome.action, outcome.reason, outcome.title = "tombstoned", exc.message, t
                return outcome
            if exc.code in ("SECRET", "VALIDATION") and i < len(tries) - 1:
                if exc.code == "SECRET":
                    outcome.dropped.append("secret (create-path scan)")
                outcome.distilled = False
                continue
            if exc.code in ("SECRET", "VALIDATION"):
                outcome.action, outcome.reason = ("secret" if exc.code == "SECRET" else "failed"), exc.message
                return outcome
            raise
        outcome.title = created.note.title
        outcome.note_id, outcome.path, outcome.vault_commit = created.note.id, created.display_path, created.commit
        if created.duplicate_of is not None:
            outcome.action, outcome.reason = "exists", "the same note is already live"
        if i > 0 and outcome.distilled:
            outcome.distilled = False
        return outcome
    raise last or VaultError("VALIDATION", "no note could be built")  # pragma: no cover


def _repo_context(ctx: Context, root: Path) -> Context:
    if ctx.repo is not None and Path(ctx.repo.root).resolve() == root.resolve():
        return ctx
    return Context.create(vault=str(ctx.vault_path), cwd=root, harness=HARNESS)


def _open_repo(repo_path: str | os.PathLike[str]) -> tuple[pygit2.Repository, Path]:
    import pygit2

    start = Path(repo_path).expanduser()
    found = pygit2.discover_repository(str(start)) if start.exists() else None
    if found is None:
        raise VaultError("NOT_FOUND", f"{start}: not inside a git repository")
    repo = pygit2.Repository(found)
    if repo.is_bare or repo.workdir is None:
        raise VaultError("USAGE", f"{start}: a bare repository has no merges to capture")
    return repo, Path(repo.workdir).absolute()


def capture_merge(
    ctx: Context,
    repo_path: str | os.PathLike[str],
    *,
    merge_commit: str | None = None,
    head: str | None = None,
    since: str | None = None,
    branch: str | None = None,
    squash: bool = False,
    use_gh: bool = True,
    use_distiller: bool = True,
    retry_queue: bool = True,
    lock_wait_s: float = LOCK_WAIT_S,
) -> MergeCaptureReport:
    """Capture the merges new on a configured branch of `repo_path` (see the module docstring).

    `merge_commit`: capture exactly that commit (any branch). Otherwise `head` (default HEAD)
    and `since` (default: the last head captured for this repo, else ORIG_HEAD) bound the
    walk; `branch` is the branch the hook saw (default: the checked-out one). `squash` is
    git's post-merge argument: a `git merge --squash` that committed nothing yet.
    Raises VaultError for expected failures (no vault, not a repo); the hook entry point
    `capture_merge_from_hook` never raises.
    """
    repo, root = _open_repo(repo_path)
    ctx = _repo_context(ctx, root)
    if ctx.repo is None:
        raise VaultError("USAGE", f"{root} is inside the vault; capture-merge works on code repositories")
    identity = ctx.repo.identity
    report = MergeCaptureReport(repo=str(root), identity=identity, group=ctx.group)
    cache = ctx.vault.state
    ctx.config  # noqa: B018 - NO_VAULT / CONFIG surface before any work
    with _capture_lock(cache, lock_wait_s):
        if retry_queue:
            report.retried = _retry_queued(ctx)
        units: list[Unit] | None
        if merge_commit:
            oid = resolve(repo, merge_commit)
            if oid is None:
                raise VaultError("NOT_FOUND", f"--commit names no commit in {root}")
            commit = cast("pygit2.Commit", repo[oid])
            report.head = str(oid)
            report.branch = branch or _current_branch(repo) or "-"
            kind = kind_of(commit) or "commit"
            units = [Unit(commit, kind)]
        else:
            units = _units_for_run(repo, report, cache, head=head, since=since, branch=branch, squash=squash)
            if units is None:
                return report
        if len(units) > MAX_UNITS_PER_RUN:
            report.more = len(units) - MAX_UNITS_PER_RUN
            units = units[-MAX_UNITS_PER_RUN:]
        for unit in units:
            report.outcomes.append(_capture_unit(ctx, repo, root, unit, report.branch or "-", use_gh, use_distiller))
        if not merge_commit and report.head:
            _ledger_set(cache, identity, report.head)
    return report


def _current_branch(repo: pygit2.Repository) -> str | None:
    try:
        if repo.head_is_detached or repo.head_is_unborn:
            return None
        return repo.head.shorthand
    except Exception:  # a HEAD libgit2 cannot read: no branch, the run is skipped
        return None


def _units_for_run(
    repo: pygit2.Repository,
    report: MergeCaptureReport,
    cache: Path,
    *,
    head: str | None,
    since: str | None,
    branch: str | None,
    squash: bool,
) -> list[Unit] | None:
    report.branch = branch or _current_branch(repo)
    if report.branch is None:
        report.skipped = "HEAD is detached: not on a configured branch"
        return None
    patterns = configured_branches(repo)
    if not branch_matches(report.branch, patterns):
        report.skipped = f"branch {report.branch!r} is not one of jacked.branches ({' '.join(patterns)})"
        return None
    head_oid = resolve(repo, head or "HEAD")
    if head_oid is None:
        report.skipped = "no HEAD commit"
        return None
    report.head = str(head_oid)
    orig = resolve(repo, since) if since else resolve(repo, "ORIG_HEAD")
    if orig is not None and not is_ancestor(repo, orig, head_oid):
        orig = None
    ledger = _ledger_head(cache, report.identity or "")
    ledger_oid = resolve(repo, ledger) if ledger else None
    if ledger_oid is not None and not is_ancestor(repo, ledger_oid, head_oid):
        ledger_oid = None
    if ledger_oid == head_oid or (ledger_oid is None and squash and orig == head_oid):
        # Nothing new; the ledger still records this head, so a later walk starts here
        # (that is how the commit of a `git merge --squash` is found by the next capture).
        report.since = str(head_oid)
        report.skipped = SQUASH_SKIP if squash else "nothing new since the last capture"
        return []
    walk_base = ledger_oid if ledger_oid is not None else orig
    report.since = None if walk_base is None else str(walk_base)
    if walk_base is None:
        # No previous head known: only HEAD itself can be a merge unit.
        kind = kind_of(cast("pygit2.Commit", repo[head_oid]))
        return [Unit(cast("pygit2.Commit", repo[head_oid]), kind)] if kind else []
    units, report.truncated = find_units(repo, head_oid, walk_base, branches=patterns, branch=report.branch)
    if not units:
        ff_base = orig if orig is not None else walk_base
        merged = reflog_fast_forward(repo, head_oid, report.branch)
        if merged is not None and ff_base != head_oid:
            units = [Unit(cast("pygit2.Commit", repo[head_oid]), "fast-forward", base=ff_base, merged_from=merged)]
    return units


def _capture_unit(
    ctx: Context, repo: pygit2.Repository, root: Path, unit: Unit, branch: str, use_gh: bool, use_distiller: bool
) -> Outcome:
    """Capture one merge; a failure a retry may fix goes to the capture queue (kind `merge`)."""

    sha = str(unit.commit.id)
    cache = ctx.vault.state
    try:
        return _capture_one(ctx, repo, unit, branch, use_gh, use_distiller)
    except Exception as exc:  # one merge must not stop the others
        if isinstance(exc, VaultError) and exc.code in ("NO_VAULT", "CONFIG", "GITIGNORE", "UNSAFE_PATH"):
            raise
        why = f"{exc.full_code}: {exc.message}" if isinstance(exc, VaultError) else type(exc).__name__
        payload = {
            "repo": str(root),
            "identity": ctx.repo.identity,
            "commit": sha,
            "merge_kind": unit.kind,
            "branch": branch,
        }
        marker = enqueue(cache, payload, kind="merge", key=f"merge:{sha}", tries=1, error=why)
        log_line(cache, f"post-merge {sha[:10]}: {why}; queued {marker.name}")
        return Outcome(commit=sha, kind=unit.kind, action="queued", reason=why)


def _capture_one(
    ctx: Context, repo: pygit2.Repository, unit: Unit, branch: str, use_gh: bool, use_distiller: bool
) -> Outcome:
    info = collect(
        repo,
        unit.commit,
        unit.kind,
        branch=branch,
        identity=ctx.repo.identity,
        base=unit.base,
        merged_from=unit.merged_from,
        use_gh=use_gh,
    )
    return _create(ctx, info, use_distiller=use_distiller)


def retry(vault_path: Path, *, lock_held: bool = False) -> Handler:
    """The queue's handler for merge markers: capture that merge again (its repo and commit),
    under the capture lock unless the caller holds it. A merge whose repo or commit is gone is
    done for good: nothing is left to capture."""
    from contextlib import nullcontext

    def handle(marker: dict[str, Any]) -> Attempt:
        payload = marker["payload"]
        sha = payload.get("commit", "")
        try:
            repo, root = _open_repo(payload.get("repo", ""))
        except VaultError as exc:
            return Attempt(Outcome(commit=sha, kind="?", action="failed", reason=exc.message))
        oid = resolve(repo, sha) if _SHA.match(sha) else None
        if oid is None:
            return Attempt(
                Outcome(commit=sha, kind="?", action="failed", reason="the commit is gone from the repository")
            )
        ctx = Context.create(vault=str(vault_path), cwd=root, harness=HARNESS)
        unit = Unit(
            cast("pygit2.Commit", repo[oid]),
            payload.get("merge_kind") or kind_of(cast("pygit2.Commit", repo[oid])) or "commit",
        )
        with nullcontext() if lock_held else _capture_lock(ctx.vault.state, wait_s=5.0):
            return Attempt(_capture_one(ctx, repo, unit, payload.get("branch") or "-", True, True))

    return handle


def _retry_queued(ctx: Context) -> list[Outcome]:
    """Retry this vault's queued merges (the caller holds the capture lock)."""

    report = drain({"merge": retry(ctx.vault_path, lock_held=True)}, ctx.vault.state, max_items=MAX_UNITS_PER_RUN)
    return [r for r in report.results if isinstance(r, Outcome)]


def capture_merge_from_hook(vault: Callable[[], Path], repo_path: str, **kwargs: Any) -> MergeCaptureReport | None:
    """What the hook runs: capture, log one line, never raise (a merge must never fail). `vault`
    gives the vault's folder (the front end resolves it: --vault, else the environment's), called
    inside the guard so even that cannot fail the hook.

    Inside a distiller run (`capture.marker`) it does nothing at all: no vault access, no log line.
    """

    if inside_distiller():
        return None

    started = time.monotonic()
    cache: Path | None = None
    try:
        ctx = Context.create(vault=vault(), cwd=repo_path, harness=HARNESS)
        cache = state_dir(ctx.vault_path)
        if not is_git_repo(ctx.vault_path):
            return None  # no vault: nowhere to capture or log
        report = capture_merge(ctx, repo_path, lock_wait_s=HOOK_LOCK_WAIT_S, **kwargs)
        took = (time.monotonic() - started) * 1000
        log_line(cache, f"post-merge run ok {report.identity} {report.branch}: {report.summary()} ({took:.0f} ms)")
        return report
    except BaseException as exc:  # fail open
        if cache is not None and is_git_repo(cache.parent):
            code = getattr(exc, "full_code", type(exc).__name__)
            took = (time.monotonic() - started) * 1000
            log_line(cache, f"post-merge run failed {repo_path}: {code}: {getattr(exc, 'message', '')} ({took:.0f} ms)")
        return None
