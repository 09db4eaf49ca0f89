"""Find the git repositories under the configured roots (what `init` and `group suggest` scan).

The walk uses `os.scandir` and reads git's files directly (through `identity`): no pygit2,
no `git` process. Rules:
- `~` is expanded and each root is resolved once; a missing root (or a file) is reported;
- symlinks below a root are never followed, hidden directories are skipped;
- a directory holding a `.git` directory or a `.git` file (worktree, submodule) is a repo,
  and the walk does not descend into it;
- the walk is bounded: directories deeper than `max_depth` below a root are not entered and
  at most `max_repos` repos are collected; either cut sets `truncated`;
- a repo reached through two roots is reported once (paths under a resolved root are
  canonical, because no symlink is followed);
- unreadable directories are skipped and counted; a repo whose origin URL is hostile is
  reported with an error (safe to print) instead of an identity.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from jacked_vault.errors import VaultError
from jacked_vault.store.identity import repo_for, slugify

if TYPE_CHECKING:
    from jacked_vault.store.config import Roots

PROGRESS_EVERY = 10
_BROKEN_GITFILE = "its .git file does not point to a git directory"


@dataclass(frozen=True)
class ScannedRepo:
    """A repo found by a scan: its identity, or the error that prevented one."""

    root: Path
    identity: str | None
    solo_group: str
    error: str | None


@dataclass(frozen=True)
class ScanReport:
    """What a scan found (sorted by path) and what it could not look at."""

    repos: list[ScannedRepo]
    missing_roots: list[str]
    unreadable: int
    truncated: bool


@dataclass
class _Walk:
    """Mutable state shared by one scan over all roots."""

    max_depth: int
    max_repos: int
    progress: Callable[[int], None] | None
    repos: dict[Path, ScannedRepo] = field(default_factory=dict)
    unreadable: int = 0
    truncated: bool = False
    full: bool = False


def _scanned(path: Path) -> ScannedRepo:
    """Identity and solo group of the repo at `path`, or the error that prevents them."""
    try:
        info = repo_for(path)
    except VaultError as exc:
        return ScannedRepo(path, None, slugify(path.name), exc.message)
    if info is None or info.root != path:
        return ScannedRepo(path, None, slugify(path.name), f"{str(path)!a}: {_BROKEN_GITFILE}")
    return ScannedRepo(path, info.identity, info.solo_group, None)


def _is_dir_or_file(entry: os.DirEntry[str]) -> bool:
    """A real directory or regular file (a symlinked `.git` does not make a repo)."""
    return entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False)


def _list_dir(path: Path) -> tuple[bool, list[str]] | None:
    """(has a `.git` dir or file, sorted visible subdirectory names); None if unreadable."""
    is_repo, subdirs = False, []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name == ".git":
                    is_repo = _is_dir_or_file(entry)
                elif not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.name)
    except OSError:
        return None
    return is_repo, sorted(subdirs)


def _add_repo(path: Path, walk: _Walk) -> None:
    """Record the repo at `path` once; mark the scan truncated when the count bound is hit."""
    if path in walk.repos:
        return
    if len(walk.repos) >= walk.max_repos:
        walk.truncated = walk.full = True
        return
    walk.repos[path] = _scanned(path)
    if walk.progress is not None and len(walk.repos) % PROGRESS_EVERY == 0:
        walk.progress(len(walk.repos))


def _walk(path: Path, depth: int, walk: _Walk) -> None:
    """Scan one directory: a repo is recorded, anything else is descended within bounds."""
    listing = _list_dir(path)
    if listing is None:
        walk.unreadable += 1
        return
    is_repo, subdirs = listing
    if is_repo:
        _add_repo(path, walk)
        return
    if subdirs and depth >= walk.max_depth:
        walk.truncated = True
        return
    for name in subdirs:
        if walk.full:
            return
        _walk(path / name, depth + 1, walk)


def _resolve_root(root: str | Path) -> Path | None:
    """The root with `~` expanded and symlinks resolved; None when it is not a directory."""
    path = Path(os.path.realpath(os.path.expanduser(root)))
    return path if path.is_dir() else None


def scan_roots(
    roots: Sequence[str | Path],
    *,
    max_depth: int = 3,
    max_repos: int = 5000,
    progress: Callable[[int], None] | None = None,
) -> ScanReport:
    """Find the repos under `roots` (depth 0 is the root itself); see the module docstring.

    `progress(n)` is called with the number of repos found so far every PROGRESS_EVERY
    repos and once at the end.
    """
    walk = _Walk(max_depth=max_depth, max_repos=max_repos, progress=progress)
    missing: list[str] = []
    for root in roots:
        resolved = _resolve_root(root)
        if resolved is None:
            missing.append(str(root))
        elif not walk.full:
            _walk(resolved, 0, walk)
    if progress is not None:
        progress(len(walk.repos))
    repos = sorted(walk.repos.values(), key=lambda repo: repo.root)
    return ScanReport(repos, missing, walk.unreadable, walk.truncated)


def local_clones(belongs: Callable[[str, str], bool], given: Sequence[str] = ()) -> tuple[list[Path], Roots]:
    """This machine's clones of the repos `belongs(identity, solo group)` picks, wherever this machine
    keeps them (under `store.config.machine_roots(given)`), sorted, and the roots looked in."""
    from jacked_vault.store.config import machine_roots

    roots = machine_roots(given)
    found = scan_roots(roots.folders).repos
    return sorted(r.root for r in found if r.identity is not None and belongs(r.identity, r.solo_group)), roots
