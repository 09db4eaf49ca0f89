"""How a harness starts the MCP server (`hooks.mcp` writes it into the harness's config)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Launch:
    """How a harness starts the server: the command, its arguments and its environment."""

    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
