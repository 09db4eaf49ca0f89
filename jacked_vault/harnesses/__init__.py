"""The harnesses jacked plugs into, one adapter module each, and the registry that names them.

Adding a harness is a module here (a `Harness` subclass and its `HARNESS` object) and one line in
`REGISTRY`; `enable`, `status`, the hook dispatcher and the MCP registration find it there.
`enable` and `disable` take the harnesses in the registry's order; lists shown to a person (the
choices of an option, the status table) name them alphabetically (`names(sort=True)`).
"""

from __future__ import annotations

from collections.abc import Callable

from jacked_vault.errors import VaultError
from jacked_vault.harnesses import claude, codex, cursor, opencode
from jacked_vault.harnesses.base import Harness

REGISTRY: dict[str, Harness] = {
    h.name: h
    for h in (
        claude.HARNESS,
        codex.HARNESS,
        opencode.HARNESS,
        cursor.HARNESS,
    )
}


def all_harnesses(where: Callable[[Harness], object] | None = None) -> list[Harness]:
    """Every registered harness (those for which `where` is true), in the registry's order."""
    return [h for h in REGISTRY.values() if where is None or where(h)]


def names(where: Callable[[Harness], object] | None = None, *, sort: bool = False) -> tuple[str, ...]:
    found = [h.name for h in all_harnesses(where)]
    return tuple(sorted(found) if sort else found)


def find(name: str) -> Harness | None:
    return REGISTRY.get(name)


def get(name: str, option: str = "unknown harness", where: Callable[[Harness], object] | None = None) -> Harness:
    """The harness `name` (one for which `where` is true); USAGE naming every choice when there is none."""
    found = REGISTRY.get(name)
    if found is None or not (where is None or where(found)):
        raise VaultError("USAGE", f"{option}: use one of {', '.join(names(where, sort=True))}")
    return found
