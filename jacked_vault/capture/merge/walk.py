"""Which commits a merge or pull brought to a configured branch, and which of them are merge
units: merge commits (a sync merge walked into), squash merges, a local fast-forward."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from jacked_vault.capture.merge.info import BITBUCKET, LOCAL_SQUASH, SQUASH_PR, subject_of

if TYPE_CHECKING:
    import pygit2

DEFAULT_BRANCHES = ("main", "master")
MAX_FIRST_PARENT_WALK = 1000
MAX_NEW_COMMITS = 50_000
MAX_SYNC_DEPTH = 3
SYNC_MERGE = (
    re.compile(r"^Merge branch '(?P<b>[^']+)' of \S+"),
    re.compile(r"^Merge remote-tracking branch '(?:[^'/]+/)?(?P<b>[^']+)'"),
)


@dataclass
class Unit:
    commit: pygit2.Commit
    kind: str
    base: pygit2.Oid | None = None  # for a fast-forward, the head before it
    merged_from: str | None = None


def configured_branches(repo: pygit2.Repository) -> list[str]:
    """`git config jacked.branches` (space/comma separated patterns), else main and master."""
    try:
        value = repo.config["jacked.branches"]
    except (KeyError, ValueError):
        return list(DEFAULT_BRANCHES)
    except Exception:  # a config libgit2 cannot read: the default branches
        return list(DEFAULT_BRANCHES)
    return [p for p in re.split(r"[\s,]+", str(value)) if p]


def branch_matches(branch: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(branch, pattern) for pattern in patterns)


def kind_of(commit: pygit2.Commit) -> str | None:
    """merge / octopus / squash for a commit that is a merge unit on the branch, else None."""
    parents = len(commit.parent_ids)
    if parents > 2:
        return "octopus"
    if parents == 2:
        return "merge"
    subject = subject_of(commit.message or "")
    if SQUASH_PR.match(subject) or subject.startswith(LOCAL_SQUASH) or BITBUCKET.search(subject):
        return "squash"
    return None


def _is_sync_merge(commit: pygit2.Commit, branches: list[str], current: str) -> bool:
    subject = subject_of(commit.message or "")
    for pattern in SYNC_MERGE:
        found = pattern.match(subject)
        if found and (found.group("b") == current or branch_matches(found.group("b"), branches)):
            return True
    return False


def _new_commits(repo: pygit2.Repository, head: pygit2.Oid, hidden: list[pygit2.Oid]) -> tuple[set[pygit2.Oid], bool]:
    """Oids reachable from head but from none of `hidden` (bounded)."""
    import pygit2

    walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL)
    for oid in hidden:
        walker.hide(oid)
    out = set()
    for commit in walker:
        out.add(commit.id)
        if len(out) >= MAX_NEW_COMMITS:
            return out, True
    return out, False


def find_units(
    repo: pygit2.Repository, head: pygit2.Oid, since: pygit2.Oid | None, *, branches: list[str], branch: str
) -> tuple[list[Unit], bool]:
    """The merge units among the new commits head brought since `since`, oldest first, and
    whether the walk stopped at a bound (`MAX_NEW_COMMITS`, `MAX_FIRST_PARENT_WALK`) with older
    new commits left unlooked at."""
    if since is None or since == head:
        return [], False
    new, truncated = _new_commits(repo, head, [since])
    units: list[Unit] = []

    def walk(start: pygit2.Oid, depth: int) -> bool:
        """True when the first-parent line was cut at its bound."""
        oid: pygit2.Oid | None = start
        steps = 0
        cut = False
        while oid is not None and oid in new:
            if steps >= MAX_FIRST_PARENT_WALK:
                return True
            steps += 1
            commit = cast("pygit2.Commit", repo[oid])  # the walk's oids are commits
            kind = kind_of(commit)
            if kind == "merge" and depth < MAX_SYNC_DEPTH and _is_sync_merge(commit, branches, branch):
                cut = walk(commit.parent_ids[1], depth + 1) or cut
            elif kind is not None:
                units.append(Unit(commit, kind))
            oid = commit.parent_ids[0] if commit.parent_ids else None
        return cut

    truncated = walk(head, 0) or truncated
    units.reverse()  # oldest first (the sync-merge descent is in walk order, close enough)
    return units, truncated


def reflog_fast_forward(repo: pygit2.Repository, head: pygit2.Oid, branch: str) -> str | None:
    """The branch a local `git merge <name>` fast-forwarded from, per the reflog, or None."""
    for ref_name in (f"refs/heads/{branch}", "HEAD"):
        try:
            ref = repo.references.get(ref_name) if ref_name != "HEAD" else repo.references["HEAD"]
            if ref is None:
                continue
            for i, entry in enumerate(ref.log()):
                if i >= 50:
                    break
                if entry.oid_new == head:
                    message = entry.message or ""
                    found = re.match(r"^merge (.+?): Fast-forward", message)
                    return found.group(1) if found else None
        except Exception:  # reflogs are optional
            continue
    return None


def resolve(repo: pygit2.Repository, rev: str | None) -> pygit2.Oid | None:
    """The commit id `rev` names in `repo`, or None (unknown, not a commit, malformed)."""
    import pygit2

    if not rev:
        return None
    try:
        return repo.revparse_single(rev).peel(pygit2.Commit).id
    except (KeyError, ValueError, TypeError, pygit2.GitError, pygit2.InvalidSpecError):
        return None


def is_ancestor(repo: pygit2.Repository, ancestor: pygit2.Oid, descendant: pygit2.Oid) -> bool:
    try:
        return ancestor == descendant or repo.descendant_of(descendant, ancestor)
    except Exception:  # a commit libgit2 cannot walk to: not an ancestor
        return False
