"""What one merge brought: its metadata collected deterministically with pygit2 (the merged
commits, the changed files with line stats, the pull request from the merge message or `gh`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from jacked_vault.store.children import run_tethered
from jacked_vault.store.gitfiles import child_env

if TYPE_CHECKING:
    import pygit2

MAX_COMMITS_SHOWN = 50
MAX_COMMITS_COUNTED = 10_000
MAX_FILES_SHOWN = 200
RENAME_DETECTION_LIMIT = 1000
GH_TIMEOUT_S = 10.0
GH_MAX_OUTPUT = 1024 * 1024

GITHUB_MERGE = re.compile(r"^Merge pull request #(\d{1,9}) from (\S+)")
SQUASH_PR = re.compile(r"^(?P<title>.*\S)\s+\(#(?P<n>\d{1,9})\)$")
BITBUCKET = re.compile(r"\(pull request #(\d{1,9})\)")
GITLAB_MR = re.compile(r"^See merge request (\S+)!(\d{1,9})\s*$", re.MULTILINE)
LOCAL_SQUASH = "Squashed commit of the following:"


@dataclass
class PullRequest:
    number: int
    title: str | None = None
    body: str | None = None
    url: str | None = None
    source: str = "message"  # message | gh
    kind: str = "pull request"  # pull request | merge request

    @property
    def label(self) -> str:
        return f"!{self.number}" if self.kind == "merge request" else f"#{self.number}"


@dataclass
class FileChange:
    status: str
    path: str
    old_path: str | None
    additions: int | None
    deletions: int | None


@dataclass
class MergeInfo:
    """Everything the note says about one merge (raw text; cleaned when rendered)."""

    commit: str
    kind: str  # merge | octopus | squash | fast-forward | commit
    parents: list[str]
    branch: str
    identity: str
    subject: str
    message: str
    merged_from: str | None = None  # branch named by the message or reflog
    pr: PullRequest | None = None
    commits: list[tuple[str, str]] = field(default_factory=list)  # (sha, subject) shown
    commits_total: int = 0
    commits_capped: bool = False
    files: list[FileChange] = field(default_factory=list)
    files_total: int = 0
    insertions: int = 0
    deletions: int = 0
    status_counts: dict[str, int] = field(default_factory=dict)


def subject_of(message: str) -> str:
    return message.split("\n", 1)[0].strip()


def message_body(message: str) -> str:
    parts = message.split("\n", 1)
    return parts[1].strip("\n") if len(parts) > 1 else ""


def parse_pr(message: str) -> tuple[PullRequest | None, str | None]:
    """The pull request a merge message names (number, title, body) and the merged branch."""
    subject = subject_of(message)
    rest = message_body(message)
    github = GITHUB_MERGE.match(subject)
    if github:
        lines = rest.strip("\n").split("\n") if rest.strip() else []
        title = lines[0].strip() if lines else None
        body = "\n".join(lines[1:]).strip("\n") or None
        return PullRequest(int(github.group(1)), title or None, body), github.group(2)
    squash = SQUASH_PR.match(subject)
    if squash:
        return PullRequest(int(squash.group("n")), squash.group("title"), rest.strip("\n") or None), None
    gitlab = GITLAB_MR.search(message)
    if gitlab:
        lines = [line for line in rest.split("\n")]
        title = next((line.strip() for line in lines if line.strip()), None)
        body_lines = lines[lines.index(next(line for line in lines if line.strip())) + 1 :] if title else []
        body = "\n".join(line for line in body_lines if not GITLAB_MR.match(line)).strip("\n") or None
        merged = re.match(r"^Merge branch '([^']+)'", subject)
        return PullRequest(int(gitlab.group(2)), title, body, kind="merge request"), merged.group(1) if merged else None
    bitbucket = BITBUCKET.search(subject)
    if bitbucket:
        return PullRequest(int(bitbucket.group(1)), None, rest.strip("\n") or None), None
    merged = re.match(r"^Merge (?:branch|remote-tracking branch) '([^']+)'", subject)
    return None, merged.group(1) if merged else None


def gh_pull_request(root: Path, number: int) -> PullRequest | None:
    """`gh pr view N --json number,title,body,url` when gh is on PATH and answers; else None."""
    gh = shutil.which("gh")
    if gh is None:
        return None
    env = child_env(
        {"GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1", "GH_PAGER": "cat", "PAGER": "cat"}
    )

    try:  # gh's process group dies at the timeout, and with this process
        proc = run_tethered(
            [gh, "pr", "view", str(number), "--json", "number,title,body,url"],
            timeout=GH_TIMEOUT_S, cwd=str(root), env=env, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0 or len(proc.stdout) > GH_MAX_OUTPUT:
        return None
    try:
        data = json.loads(proc.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("title"), str):
        return None
    if "number" in data and data["number"] != number:
        return None
    body = data.get("body") if isinstance(data.get("body"), str) else None
    url = data.get("url") if isinstance(data.get("url"), str) else None
    return PullRequest(number, data["title"], body, url, source="gh")


def _status_char(delta: pygit2.DiffDelta) -> str:
    try:
        return delta.status_char()
    except Exception:  # libgit2 may refuse an odd delta: shown as "?", the merge note still written
        return "?"


def _diff_files(repo: pygit2.Repository, base_tree: pygit2.Tree | None, tree: pygit2.Tree, info: MergeInfo) -> None:
    """Changed files base_tree -> tree: every file counted, MAX_FILES_SHOWN listed with stats."""
    # pygit2's stubs lack repo.diff(Tree, Tree), which libgit2 does
    diff = repo.diff(base_tree, tree) if base_tree is not None else tree.diff_to_tree(swap=True)  # type: ignore[call-overload]
    if len(diff) <= RENAME_DETECTION_LIMIT:
        diff.find_similar()
    info.files_total = len(diff)
    counts: dict[str, int] = {}
    for delta in diff.deltas:
        char = _status_char(delta)
        counts[char] = counts.get(char, 0) + 1
    info.status_counts = counts
    stats = diff.stats
    info.insertions, info.deletions = stats.insertions, stats.deletions
    for i in range(min(len(diff), MAX_FILES_SHOWN)):
        patch = cast("pygit2.Patch", diff[i])  # None only for an index out of range
        delta = patch.delta
        adds: int | None
        dels: int | None
        try:
            _, adds, dels = patch.line_stats
        except Exception:  # a patch libgit2 cannot count (binary, unreadable): no line stats
            adds = dels = None
        if delta.is_binary:
            adds = dels = None
        old = delta.old_file.path if delta.old_file.path != delta.new_file.path else None
        info.files.append(FileChange(_status_char(delta), delta.new_file.path, old, adds, dels))


def _merged_commits(
    repo: pygit2.Repository, include: list[pygit2.Oid], exclude: list[pygit2.Oid], info: MergeInfo
) -> None:
    """Commits reachable from `include` but not `exclude`: newest first, bounded."""
    import pygit2

    walker = repo.walk(include[0], pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    for extra in include[1:]:
        walker.push(extra)
    for oid in exclude:
        walker.hide(oid)
    total = 0
    for commit in walker:
        total += 1
        if len(info.commits) < MAX_COMMITS_SHOWN:
            info.commits.append((str(commit.id), subject_of(commit.message or "")))
        if total >= MAX_COMMITS_COUNTED:
            info.commits_capped = True
            break
    info.commits_total = total


def collect(
    repo: pygit2.Repository,
    commit: pygit2.Commit,
    kind: str,
    *,
    branch: str,
    identity: str,
    base: pygit2.Oid | None = None,
    merged_from: str | None = None,
    use_gh: bool = True,
) -> MergeInfo:
    """The metadata of one merge unit (deterministic, local: pygit2 only, plus optional gh)."""
    message = commit.message or ""
    pr, named = parse_pr(message)
    info = MergeInfo(
        commit=str(commit.id),
        kind=kind,
        parents=[str(p) for p in commit.parent_ids],
        branch=branch,
        identity=identity,
        subject=subject_of(message),
        message=message,
        merged_from=merged_from or named,
        pr=pr,
    )
    parents = list(commit.parent_ids)
    if kind in ("merge", "octopus"):
        _merged_commits(repo, parents[1:], parents[:1], info)
        base_tree: pygit2.Tree | None = cast("pygit2.Commit", repo[parents[0]]).tree
    elif kind == "fast-forward" and base is not None:
        _merged_commits(repo, [commit.id], [base], info)
        base_tree = cast("pygit2.Commit", repo[base]).tree
    else:
        info.commits, info.commits_total = [(str(commit.id), info.subject)], 1
        base_tree = cast("pygit2.Commit", repo[parents[0]]).tree if parents else None
    _diff_files(repo, base_tree, commit.tree, info)
    if use_gh and pr is not None and pr.kind == "pull request":
        from_gh = gh_pull_request(Path(repo.workdir or "."), pr.number)
        if from_gh is not None:
            info.pr = from_gh
    return info
