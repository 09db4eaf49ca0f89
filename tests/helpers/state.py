"""Where a store's machine-local state lives, for tests that look at it (the index, the log,
the quarantine, the machine id, the ledger): always through `state_dir`, never a hand-built path,
so the tests follow the one owner (`Store.state`)."""

from __future__ import annotations

from pathlib import Path

from jacked_vault.store.layout import Store


def state_dir(root: Path, *, project: bool = False) -> Path:
    """The machine-local state folder of the vault (or project store) at `root`."""
    return Store(Path(root), is_project=project).state
