"""`jacked memory mcp`: the stdio MCP server harness configs run."""

from __future__ import annotations

import sys

import typer

from jacked_vault.cli.apps import HOOKS, Command, JsonOpt, VaultOpt, example, memory_app
from jacked_vault.cli.output import emit_error, schema_for
from jacked_vault.errors import VaultError


@memory_app.command("mcp", cls=Command, rich_help_panel=HOOKS, epilog=example("JACKED_MEMORY_HARNESS=codex jacked memory mcp"))
def mcp_server(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Serve the vault over MCP on stdio.

    What `hooks install --mcp` registers; needs JACKED_MEMORY_HARNESS (the harness it serves).
    """
    from jacked_vault.mcp.server import Settings, StartupError, build_server

    try:
        settings = Settings.from_env(vault or (ctx.obj or {}).get("vault"))
    except StartupError as exc:
        if as_json:
            emit_error(VaultError("CONFIG", str(exc)), True, schema_for(ctx.command_path))
        else:
            sys.stderr.write(f"jacked-memory-mcp: {exc}\n")
        raise typer.Exit(1) from None
    try:
        build_server(settings).run("stdio")
    except KeyboardInterrupt:
        pass
