"""Creating stores: the vault repo (`init`) and a code repo's project store (first project write).

The first commit goes through the same write transaction as every other one (gate, audit line,
`Memory-Audit` trailer). `init` refuses a folder that is someone's git repository with history
and no vault in it, so vault files never land on a code branch.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jacked_vault.document.model import UNKNOWN_HARNESS
from jacked_vault.errors import VaultError
from jacked_vault.render import Result
from jacked_vault.resources import data_file
from jacked_vault.safety import fsio
from jacked_vault.store import git
from jacked_vault.store.layout import (
    CACHE_DIR,
    PROJECT_OUTER_GITIGNORE,
    VAULT_JSON,
    Store,
    gitignore_template,
    project_store_root,
)
from jacked_vault.store.settings import DEFAULT_SETTINGS, Settings
from jacked_vault.store.vault import check_gitignore_file, find_project_store, is_git_repo

DEFAULT_VAULT_JSON = {"version": 1, "groups": {}, "settings": {}}
README = "README.md"


def readme_template() -> bytes:
    """The README.md `init` writes into a new vault (what it is, written for agents)."""
    return data_file("templates", "vault-README.md").read_bytes()


@dataclass(frozen=True)
class InitResult:
    store: Store
    created: bool
    commit: str | None
    groups: Result | None = None  # the repo scan that follows (groups.mapping.Suggested), unless --no-scan

    def to_json(self) -> dict[str, Any]:
        groups = self.groups.to_json() if self.groups is not None else None
        return {"path": str(self.store.root), "created": self.created, "commit": self.commit, "groups": groups}

    def to_text(self) -> str:
        verb = "Initialised vault at" if self.created else "Already initialised: vault at"
        lines = [f"{verb} {self.store.root}"]
        if self.groups is not None:
            lines.append(self.groups.to_text())
        return "\n".join(lines)


def init_vault(path: Path, *, harness: str = UNKNOWN_HARNESS, settings: Settings = DEFAULT_SETTINGS) -> InitResult:
    """Create the vault repo (README, vault.json, .gitignore, first commit); idempotent. A vault
    being made has no settings of its own yet: `settings` are what the front end has (none)."""
    if path.is_symlink():
        path = path.resolve()
    if path.exists() and not path.is_dir():
        raise VaultError("CONFIG", f"{path} exists and is not a directory")
    if path.is_dir() and not is_git_repo(path) and any(p for p in path.iterdir()):
        raise VaultError("CONFIG", f"{path} is a non-empty directory that is not a vault; choose another --vault")
    if is_git_repo(path) and git.fast_head(path) is not None and not _has_committed_vault(path):
        raise VaultError(
            "CONFIG",
            f"{path} is a git repository with history and no vault in it (a code repo?); init writes nothing there. "
            "Choose another --vault (default ~/jacked-vault)",
        )
    path.mkdir(parents=True, exist_ok=True)
    files = {
        README: readme_template(),
        VAULT_JSON: (json.dumps(DEFAULT_VAULT_JSON, indent=2) + "\n").encode(),
    }
    return _init_store(Store(path.resolve()), files, "memory: init vault", harness, settings)


def _has_committed_vault(path: Path) -> bool:
    return git.tree_blob(git.open_repo(path), VAULT_JSON) is not None


def _init_store(store: Store, files: dict[str, bytes], subject: str, harness: str, settings: Settings) -> InitResult:
    """Write what is missing and commit what HEAD lacks, in one gated transaction."""
    from jacked_vault.write.transaction import write_transaction

    root = store.root
    created: list[str] = []  # what a refused init removes again: the folder is left as it was found
    if not check_gitignore_file(root, ".gitignore", gitignore_template()):
        fsio.create_file(root, ".gitignore", gitignore_template().encode())
        created.append(".gitignore")
    if not is_git_repo(root):
        git.init_repo(root)
    repo = git.open_repo(root)
    os.makedirs(store.state, exist_ok=True)
    wanted = {".gitignore": gitignore_template().encode(), **files}
    missing = {}
    try:
        for rel, data in wanted.items():
            try:
                fsio.create_file(root, rel, data)
                created.append(rel)
            except VaultError as exc:
                if exc.code != "EXISTS":
                    raise
                data = fsio.read_file(root, rel, max_bytes=1 << 20)
            if git.tree_blob(repo, rel) is None:
                missing[rel] = data
        if not missing:
            return InitResult(store=store, created=False, commit=None)
        with write_transaction(store, harness=harness, origin="cli", settings=settings) as tx:
            for rel, data in missing.items():
                tx.replace(rel, data)
                tx.event("init", rel, rel, data)
            commit = tx.commit(subject)
    except BaseException:
        for rel in created:
            fsio.remove_file(root, rel)
        raise
    return InitResult(store=store, created=True, commit=commit)


def create_project_store(
    repo_root: Path, *, harness: str = UNKNOWN_HARNESS, settings: Settings = DEFAULT_SETTINGS
) -> Store:
    """The project store of `repo_root`, made on the first project-scope write: the fail-closed
    `<repo>/.jacked/.gitignore` (`*`) first, so the code repo never sees anything of it."""

    existing = find_project_store(repo_root)
    if existing is not None:
        return existing
    repo_root = repo_root.resolve()
    if not check_gitignore_file(repo_root, f"{CACHE_DIR}/.gitignore", PROJECT_OUTER_GITIGNORE):
        fsio.create_file(repo_root, f"{CACHE_DIR}/.gitignore", PROJECT_OUTER_GITIGNORE.encode())
    with fsio.open_dir(repo_root, (CACHE_DIR, "memory"), create=True):
        pass
    store = Store(project_store_root(repo_root), is_project=True)
    _init_store(store, {}, "memory: init project store", harness, settings)
    return store
