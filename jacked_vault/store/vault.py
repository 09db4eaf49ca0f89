"""Opening stores and their fail-closed gitignores: the vault repo and a code repo's project store
(creating them is `write.init`)."""

from __future__ import annotations

from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store import gitfiles
from jacked_vault.store.layout import (
    CACHE_DIR,
    PROJECT_OUTER_GITIGNORE,
    VAULT_JSON,
    Store,
    gitignore_template,
    project_store_root,
)


def is_git_repo(path: Path) -> bool:
    """`path` holds its own `.git` directory (not a `.git` file, not a symlink): what a vault has."""

    return gitfiles.git_dir(path) == path / ".git"


def check_gitignore_file(root: Path, rel: str, expected: str) -> bool:
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
    if not check_gitignore_file(store.root, ".gitignore", gitignore_template()):
        raise VaultError("GITIGNORE", f"{store.root}/.gitignore is missing; run `jacked memory init` to restore it")
    if store.is_project:
        repo_root = store.root.parent.parent
        if not check_gitignore_file(repo_root, f"{CACHE_DIR}/.gitignore", PROJECT_OUTER_GITIGNORE):
            raise VaultError("GITIGNORE", f"{repo_root}/{CACHE_DIR}/.gitignore is missing; project scope stays closed")


def open_vault(path: Path) -> Store:
    """Open an existing vault or fail with NO_VAULT and the command that creates one."""
    try:
        found = (path / VAULT_JSON).is_file() and (path / ".git").exists()
    except OSError as exc:
        raise VaultError("USAGE", f"the vault path cannot be used ({exc.strerror})") from None
    if not found:
        raise VaultError("NO_VAULT", f"no vault at {path}; create one with `jacked memory init`")
    return Store(path.resolve())


def find_project_store(repo_root: Path) -> Store | None:
    """The project store of `repo_root` when it exists (its gitignores checked), else None."""
    repo_root = repo_root.resolve()
    if (repo_root / CACHE_DIR).is_symlink():
        raise VaultError("UNSAFE_PATH", f"{repo_root}/{CACHE_DIR} is a symlink; project scope is refused")
    has_outer = check_gitignore_file(repo_root, f"{CACHE_DIR}/.gitignore", PROJECT_OUTER_GITIGNORE)
    root = project_store_root(repo_root)
    if has_outer and is_git_repo(root):
        return Store(root, is_project=True)
    return None
