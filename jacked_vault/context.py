"""Where a command runs: which vault, which repo (if any), which group, which harness.

Front ends build one Context and hand it to the library; everything is resolved lazily so
a command pays only for what it touches.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.document.model import UNKNOWN_HARNESS
from jacked_vault.errors import VaultError
from jacked_vault.store.identity import repo_for
from jacked_vault.store.layout import Store, vault_path_of
from jacked_vault.store.vault import find_project_store, open_vault

if TYPE_CHECKING:
    from jacked_vault.store.identity import RepoInfo
    from jacked_vault.store.settings import Settings


@dataclass
class Context:
    """The vault path, the working directory and the harness a command acts for. The front ends
    choose them (`jacked_vault.environment`); the library never reads the environment for them."""

    vault_path: Path
    cwd: Path = field(default_factory=Path.cwd)
    harness: str = UNKNOWN_HARNESS

    @classmethod
    def create(
        cls, vault: str | os.PathLike[str], cwd: str | Path | None = None, harness: str | None = None
    ) -> Context:
        return cls(
            vault_path=vault_path_of(vault),
            cwd=Path(cwd).absolute() if cwd else Path.cwd(),
            harness=harness or UNKNOWN_HARNESS,
        )

    @classmethod
    def for_payload(cls, payload: dict[str, Any], *, vault: str | os.PathLike[str], harness: str) -> Context:
        """The context a harness hook payload asks for: its `cwd` when that is a folder."""
        cwd = payload.get("cwd") if isinstance(payload, dict) else None
        folder = cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None
        return cls.create(vault=vault, cwd=folder, harness=harness)

    @cached_property
    def vault(self) -> Store:
        return open_vault(self.vault_path)

    @cached_property
    def config(self) -> dict[str, Any]:
        from jacked_vault.store.config import load_config

        return load_config(self.vault)

    @cached_property
    def settings(self) -> Settings:
        """The typed settings of the effective config and this machine's review trust."""
        from jacked_vault.store.config import machine_review
        from jacked_vault.store.settings import Settings

        return Settings.build(self.config, machine_review())

    @cached_property
    # RepoInfo | None, typed once hooks/enable.py and recall/brief.py narrow it (issue 35.5)
    def repo(self):  # type: ignore[no-untyped-def]
        """The code repo containing cwd (RepoInfo), or None outside any repo."""

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

        if self.repo is None:
            return None
        return find_project_store(self.repo.root)

    def require_repo(self) -> RepoInfo:
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
