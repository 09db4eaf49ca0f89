"""What an agent may write (SPEC 5.5 `settings.writes.agents`): the one owner of that rule.

`active` (default): agent writes land as asked (MCP saves active, capture as candidates);
`candidate`: every agent write waits for a person's review; `off`: read-only memory, agent
writes are refused (MCP) or skipped (capture) with `JACKED_MEMORY_READ_ONLY`, recall works.
A person at the CLI is never limited by it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jacked_vault.errors import VaultError

if TYPE_CHECKING:
    from jacked_vault.store.settings import Settings

AGENT_ORIGINS = frozenset({"mcp", "session-end", "pre-compact", "post-merge"})


def status_for(settings: Settings, origin: str, requested: str) -> str:
    """The status an `origin` write gets under `settings.agents` (`Context.settings`), or
    READ_ONLY when agent writes are off."""
    if origin not in AGENT_ORIGINS:
        return requested
    mode = settings.agents
    if mode == "off":
        raise VaultError(
            "READ_ONLY",
            "agent writes are off for this vault (settings.writes.agents = off); nothing was written. "
            "A person can still add notes with `jacked memory add`",
        )
    return "candidate" if mode == "candidate" else requested
