"""`jacked memory mcp`: the stdio MCP server harness configs run (`mcp.server.serve`)."""

from __future__ import annotations

import typer

from jacked_vault.cli.apps import HOOKS, Command, JsonOpt, VaultOpt, example, memory_app
from jacked_vault.errors import VaultError
from jacked_vault.frontend.output import emit_error, schema_for


@memory_app.command(
    "mcp", cls=Command, rich_help_panel=HOOKS, epilog=example("JACKED_MEMORY_HARNESS=codex jacked memory mcp")
)
def mcp_server(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Serve the vault over MCP on stdio.

    What `hooks install --mcp` registers; needs JACKED_MEMORY_HARNESS (the harness it serves).
    """
    from jacked_vault.mcp.server import serve

    def refuse_as_json(message: str) -> None:
        emit_error(VaultError("CONFIG", message), True, schema_for(ctx.command_path))

    if serve(vault or (ctx.obj or {}).get("vault"), refuse_as_json if as_json else None):
        raise typer.Exit(1)
