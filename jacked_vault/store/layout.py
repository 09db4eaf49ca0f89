"""Where things live: the vault (group and user scopes) and a repo's project store."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.resources import data_file

DEFAULT_VAULT = "~/jacked-vault"
CACHE_DIR = ".jacked"
PROJECT_OUTER_GITIGNORE = "*\n"
VAULT_JSON = "vault.json"
AUDIT_DIR = "audit"
GROUPS_DIR = "groups"
USER_DIR = "strategy"


def resolve_vault_path(explicit: str | os.PathLike | None = None) -> Path:
    """`--vault PATH` > `$JACKED_VAULT_DIR` > `~/jacked-vault`."""
    raw = explicit or os.environ.get("JACKED_VAULT_DIR") or DEFAULT_VAULT
    return Path(os.path.expanduser(str(raw))).absolute()


def gitignore_template() -> str:
    """The exact content the vault's (and a project store's) `.gitignore` must have."""
    return data_file("templates", "gitignore").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Store:
    """One git-backed root: the vault, or the project store of one code repo."""

    root: Path
    is_project: bool = False

    @property
    def cache(self) -> Path:
        return self.root / CACHE_DIR

    @property
    def label(self) -> str:
        return "project" if self.is_project else "vault"

    def note_dir(self, scope: str, group: str | None, kind: str) -> str:
        """Store-relative folder for a note of `kind` in `scope`."""
        if scope == "project":
            return kind
        if scope == "user":
            return f"{USER_DIR}/{kind}"
        if not group:
            raise VaultError("USAGE", "a group-scope note needs a group (run inside a repo or pass --group)")
        return f"{GROUPS_DIR}/{group}/{kind}"

    def display(self, rel: str, scope: str) -> str:
        """The scope-qualified path shown to people and in JSON (never an absolute path)."""
        return f"{scope}:{rel}"


def project_store_root(repo_root: Path) -> Path:
    return repo_root / CACHE_DIR / "memory"


def episodic_dir(group: str, identity: str) -> str:
    """`groups/<g>/episodic/<repo>/`, the repo identity with `/` as `__` so repos never share one."""
    return f"{GROUPS_DIR}/{group}/episodic/{identity.replace('/', '__')}"
