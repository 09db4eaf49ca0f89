"""Where this machine installed jacked's hooks for a vault: the record `disable` removes them by.

`hooks install` (and `enable`, through it) notes every code repo that got jacked's post-merge hook
and every code repo that got a project file (an MCP registration, OpenCode's plugin, Cursor's
hooks), wherever the repo is; `hooks uninstall --git` takes a repo out again. The record is this
machine's own (`installed.json` in the vault's state folder, `store.layout.state_dir`): a clone on
another machine has other paths, and nothing a sync or a pull brings can add a path to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacked_vault import harnesses
from jacked_vault.errors import VaultError
from jacked_vault.gitflow.githooks import git_hook_status
from jacked_vault.groups.scan import local_clones
from jacked_vault.store.gitfiles import find_work_tree
from jacked_vault.store.layout import state_dir
from jacked_vault.store.statefile import read_json, write_json
from jacked_vault.store.vault import is_git_repo

RECORD = "installed.json"
KINDS = ("post_merge", "project")  # repos holding jacked's post-merge hook; repos holding a project file


@dataclass
class Installed:
    """The repos (absolute paths) of each kind; `known` is False when no record exists yet (hooks an
    older version installed were never recorded)."""

    post_merge: list[str] = field(default_factory=list)
    project: list[str] = field(default_factory=list)
    known: bool = True


def read_installed(vault: Path) -> Installed:
    data = read_json(state_dir(vault) / RECORD)
    if data is None:
        return Installed(known=False)
    post_merge, project = ([p for p in data.get(kind) or [] if isinstance(p, str)] for kind in KINDS)
    return Installed(post_merge, project)


def record_installs(vault: Path, op: str, families: dict[str, list[dict[str, Any]]], *, project: bool) -> None:
    """Note what `hooks install|uninstall` just did in code repos (`families`: its results;
    `project`: its project families wrote into the current repo, not per-person files); only for a
    vault that exists (its state folder lives in its git directory). Never raises."""

    if op not in ("install", "uninstall"):
        return
    hooked = {item["repo"] for item in families.get("git", []) if "error" not in item and "repo" in item}
    if op == "uninstall":
        drop_installs(vault, "post_merge", hooked)
        return
    if not is_git_repo(vault):
        return
    record = read_installed(vault)
    if not record.known:  # the first record: hooks an older version installed were never noted
        record.post_merge = [str(repo) for repo in unrecorded_hooks()]
    record.post_merge = sorted(set(record.post_merge) | hooked)
    written = [
        Path(item["path"])
        for name, items in families.items()
        for item in items
        if project and "error" not in item and "path" in item and _project_file(name, item)
    ]
    repos = {str(root) for root in (find_work_tree(path.parent) for path in written) if root is not None}
    record.project = sorted(set(record.project) | repos)
    _write(vault, record)


def _project_file(family: str, item: dict[str, Any]) -> bool:
    """Whether a family's item wrote a file into the code repo (without --user): an MCP entry of a
    harness that reads a project file, or session hooks of one that keeps them in the project."""
    if family == "mcp":
        adapter = harnesses.find(item.get("harness", ""))
        return adapter is not None and adapter.mcp_project_file
    adapter = harnesses.find(family)
    return adapter is not None and adapter.hooks_project_file


def unrecorded_hooks() -> list[Path]:
    """This machine's clones (under its roots) that hold jacked's post-merge hook: where an older
    version, which kept no record, may have installed it."""

    def hooked(repo: Path) -> bool:
        try:
            return git_hook_status(repo).state != "not-installed"
        except VaultError:
            return False

    return [repo for repo in local_clones(lambda _identity, _solo: True)[0] if hooked(repo)]


def drop_installs(vault: Path, kind: str, repos: Iterable[str]) -> None:
    """Take `repos` off the record of `kind` (their hook was removed, or they are gone)."""

    record = read_installed(vault)
    if not record.known or not is_git_repo(vault):
        return
    setattr(record, kind, sorted(set(getattr(record, kind)) - set(repos)))
    _write(vault, record)


def _write(vault: Path, record: Installed) -> None:
    with suppress(OSError):  # the record only guides `disable`; a hook installed stays installed
        write_json(state_dir(vault) / RECORD, {"version": 1, **{kind: getattr(record, kind) for kind in KINDS}})
