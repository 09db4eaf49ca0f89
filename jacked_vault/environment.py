"""What the front ends (CLI, hooks, MCP server, UI, health) take from the environment: the vault
(`--vault PATH` > `$JACKED_VAULT_DIR` > `~/jacked-vault`) and the harness
(`$JACKED_MEMORY_HARNESS`, else unknown). The library never reads either: `Context.create`
takes explicit values.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from jacked_vault.context import Context
from jacked_vault.document.model import UNKNOWN_HARNESS
from jacked_vault.store.layout import DEFAULT_VAULT, vault_path_of

if TYPE_CHECKING:
    from jacked_vault.context import Context

VAULT_ENV = "JACKED_VAULT_DIR"
HARNESS_ENV = "JACKED_MEMORY_HARNESS"


def vault_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--vault PATH` > `$JACKED_VAULT_DIR` > `~/jacked-vault`, checked (`store.layout.vault_path_of`)."""
    return vault_path_of(explicit if explicit is not None else (os.environ.get(VAULT_ENV) or DEFAULT_VAULT))


def harness() -> str:
    """`$JACKED_MEMORY_HARNESS`, else unknown."""
    return os.environ.get(HARNESS_ENV) or UNKNOWN_HARNESS


def context(
    vault: str | os.PathLike[str] | None = None, cwd: str | Path | None = None, harness_name: str | None = None
) -> Context:
    """The library Context a front end acts in: the vault and harness above unless given."""

    return Context.create(vault=vault_path(vault), cwd=cwd, harness=harness_name or harness())
