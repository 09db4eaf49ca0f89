"""Where a command runs: which vault, which repo (if any), which group, which harness.

Front ends build one Context and hand it to the library; everything is resolved lazily so
a command pays only for what it touches.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from jacked_vault.document.model import UNKNOWN_HARNESS as DEFAULT_HARNESS
from jacked_vault.errors import VaultError
from jacked_vault.store.layout import Store, resolve_vault_path


def default_harness() -> str:
    return os.environ.get("JACKED_MEMORY_HARNESS") or DEFAULT_HARNESS


@dataclass
class Context:
    """The vault path, the working directory and the harness a command acts for."""

    vault_path: Path = field(default_factory=resolve_vault_path)
    cwd: Path = field(default_factory=Path.cwd)
    harness: str = field(default_factory=default_harness)

    @classmethod
    def create(cls, vault: str | None = None, cwd: str | Path | None = None, harness: str | None = None) -> Context:
        return cls(
            vault_path=resolve_vault_path(vault),
            cwd=Path(cwd).absolute() if cwd else Path.cwd(),
            harness=harness or default_harness(),
        )

    @classmethod
    def for_payload(cls, payload: dict, *, vault: str | None, harness: str) -> Context:
        """The context a harness hook payload asks for: its `cwd` when that is a folder."""
        cwd = payload.get("cwd") if isinstance(payload, dict) else None
        return cls.create(vault=vault, cwd=cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None, harness=harness)

    @cached_property
    def vault(self) -> Store:
        from jacked_vault.store.vault import open_vault

        return open_vault(self.vault_path)

    @cached_property
    def config(self) -> dict:
        from jacked_vault.store.config import load_config

        return load_config(self.vault)

    @cached_property
    def repo(self):
        """The code repo containing cwd (RepoInfo), or None outside any repo."""
        from jacked_vault.groups.identity import repo_for

        if self._inside_vault():
            return None
        return repo_for(self.cwd)

    def _inside_vault(self) -> bool:
        try:
            return self.cwd.resolve().is_relative_to(self.vault_path.resolve())
        except OSError:
            return False

    @cached_property
    def group(self) -> str | None:
        """The group of the cwd's repo (mapped in vault.json, else its solo group)."""
        from jacked_vault.store.config import group_for

        if self.repo is None:
            return None
        return group_for(self.config, self.repo.identity, self.repo.solo_group)

    def require_group(self, explicit: str | None, *, otherwise: str = "") -> str:
        """The group named, else the cwd repo's; outside a repo USAGE, offering `--group G` and
        only the alternatives `otherwise` names (what the command then takes)."""
        if explicit:
            return explicit
        if self.group is None:
            raise VaultError("USAGE", f"not inside a git repo: pass --group G{f' ({otherwise})' if otherwise else ''}")
        return self.group

    def project_store(self) -> Store | None:
        """This repo's project store when it exists (`write.init.create_project_store` makes it)."""
        from jacked_vault.store.vault import find_project_store

        if self.repo is None:
            return None
        return find_project_store(self.repo.root)

    def require_repo(self):
        """The cwd's repo, or USAGE: project scope lives in a code repository."""
        if self.repo is None:
            raise VaultError("USAGE", "project scope needs a git repo: run inside one")
        return self.repo

    def stores(self) -> list[Store]:
        """The vault plus, when the cwd is in a repo that has one, its project store."""
        stores = [self.vault]
        project = self.project_store()
        if project is not None:
            stores.append(project)
        return stores
