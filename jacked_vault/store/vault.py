"""Creating and opening stores: the vault repo and a code repo's project store."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.resources import data_file
from jacked_vault.safety import fsio
from jacked_vault.store import git
from jacked_vault.store.lock import store_lock
from jacked_vault.store.layout import (
    CACHE_DIR,
    PROJECT_OUTER_GITIGNORE,
    VAULT_JSON,
    Store,
    gitignore_template,
    project_store_root,
)

DEFAULT_VAULT_JSON = {"version": 1, "roots": ["~/Github"], "groups": {}, "settings": {}}


@dataclass(frozen=True)
class InitResult:
    store: Store
    created: bool
    commit: str | None


def _is_git_repo(path: Path) -> bool:
    return (path / ".git").is_dir() and not (path / ".git").is_symlink()


def _check_gitignore(root: Path, rel: str, expected: str) -> bool:
    """True if the file exists with exactly `expected`; False if missing; GITIGNORE otherwise."""
    try:
        data = fsio.read_file(root, rel, max_bytes=64 * 1024)
    except FileNotFoundError:
        return False
    except VaultError as exc:
        raise VaultError("GITIGNORE", f"{rel} is not a plain file ({exc.message}); nothing was written") from None
    if data.decode("utf-8", "replace") != expected:
        raise VaultError(
            "GITIGNORE",
            f"{root / rel} has unexpected content; jacked fails closed and wrote nothing "
            f"(restore it to exactly {expected!r})",
        )
    return True


def check_store_gitignore(store: Store) -> None:
    """Fail closed before any write: the store's `.gitignore` must equal the template."""
    if not _check_gitignore(store.root, ".gitignore", gitignore_template()):
        raise VaultError("GITIGNORE", f"{store.root}/.gitignore is missing; run `jacked memory init` to restore it")
    if store.is_project:
        repo_root = store.root.parent.parent
        if not _check_gitignore(repo_root, f"{CACHE_DIR}/.gitignore", PROJECT_OUTER_GITIGNORE):
            raise VaultError("GITIGNORE", f"{repo_root}/{CACHE_DIR}/.gitignore is missing; project scope stays closed")


def init_vault(path: Path) -> InitResult:
    """Create the vault repo (README, vault.json, .gitignore, first commit); idempotent."""
    if path.is_symlink():
        path = path.resolve()
    if path.exists() and not path.is_dir():
        raise VaultError("CONFIG", f"{path} exists and is not a directory")
    if path.is_dir() and not _is_git_repo(path) and any(p for p in path.iterdir()):
        raise VaultError("CONFIG", f"{path} is a non-empty directory that is not a vault; choose another --vault")
    path.mkdir(parents=True, exist_ok=True)
    root = path.resolve()
    files = {
        "README.md": data_file("templates", "vault-README.md").read_bytes(),
        VAULT_JSON: (json.dumps(DEFAULT_VAULT_JSON, indent=2) + "\n").encode(),
    }
    return _init_store(Store(root), files, "memory: init vault")


def _init_store(store: Store, files: dict[str, bytes], message: str) -> InitResult:
    root = store.root
    have_gitignore = _check_gitignore(root, ".gitignore", gitignore_template())
    repo = git.open_repo(root) if _is_git_repo(root) else git.init_repo(root)
    to_commit: dict[str, bytes] = {}
    if not have_gitignore:
        fsio.create_file(root, ".gitignore", gitignore_template().encode())
    if git.tree_blob(repo, ".gitignore") is None:
        to_commit[".gitignore"] = gitignore_template().encode()
    for rel, data in files.items():
        try:
            fsio.create_file(root, rel, data)
        except VaultError as exc:
            if exc.code != "EXISTS":
                raise
            data = fsio.read_file(root, rel, max_bytes=1 << 20)
        if git.tree_blob(repo, rel) is None:
            to_commit[rel] = data
    os.makedirs(store.cache, exist_ok=True)
    with store_lock(store.cache):
        commit = git.commit_files(repo, to_commit, message) if to_commit else None
    return InitResult(store=store, created=commit is not None, commit=commit)


def open_vault(path: Path) -> Store:
    """Open an existing vault or fail with NO_VAULT and the command that creates one."""
    if not (path / VAULT_JSON).is_file() or not (path / ".git").exists():
        raise VaultError("NO_VAULT", f"no vault at {path}; create one with `jacked memory init`")
    return Store(path.resolve())


def open_project_store(repo_root: Path, *, create: bool) -> Store | None:
    """The project store of `repo_root`, created (fail-closed gitignore first) when `create`."""
    repo_root = repo_root.resolve()
    if (repo_root / CACHE_DIR).is_symlink():
        raise VaultError("UNSAFE_PATH", f"{repo_root}/{CACHE_DIR} is a symlink; project scope is refused")
    has_outer = _check_gitignore(repo_root, f"{CACHE_DIR}/.gitignore", PROJECT_OUTER_GITIGNORE)
    root = project_store_root(repo_root)
    store = Store(root, is_project=True)
    if has_outer and _is_git_repo(root):
        return store
    if not create:
        return None
    if not has_outer:
        fsio.create_file(repo_root, f"{CACHE_DIR}/.gitignore", PROJECT_OUTER_GITIGNORE.encode())
    with fsio.open_dir(repo_root, (CACHE_DIR, "memory"), create=True):
        pass
    _init_store(store, {}, "memory: init project store")
    return store
