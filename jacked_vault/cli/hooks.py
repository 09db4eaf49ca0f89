"""`jacked memory hooks install|uninstall|status`: jacked's entries in harness configs.

Each kind of entry is an installer family selected by its own option (`--mcp HARNESS` today;
`--claude` and `--git REPO` plug in the same way): a family turns the command's options into
a list of result dicts, and the command renders them under the family's key. Installers are
imported inside the commands, so `jacked --help` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer

from jacked_vault.cli.apps import JsonOpt, VaultOpt, memory_app, run
from jacked_vault.errors import VaultError

hooks_app = typer.Typer(
    help="Install, remove or check jacked's entries in harness configs (Claude Code hooks, MCP server registration).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
memory_app.add_typer(hooks_app, name="hooks")

McpOpt = Annotated[
    Optional[list[str]],
    typer.Option("--mcp", metavar="HARNESS", help="Register the MCP server for claude, codex, cursor or opencode; repeatable."),
]
ClaudeOpt = Annotated[bool, typer.Option("--claude", help="Claude Code session hooks (SessionStart brief, SessionEnd/PreCompact capture).")]
SettingsOpt = Annotated[Optional[str], typer.Option("--settings", help="Claude Code settings file (default ~/.claude/settings.json).")]
PrintOpt = Annotated[bool, typer.Option("--print", help="Print the entry instead of writing the config file.")]
ConfigOpt = Annotated[Optional[str], typer.Option("--config", help="Config file to edit (default: the harness's usual file).")]
AllowUserOpt = Annotated[
    bool,
    typer.Option("--allow-user-scope", help="Let this harness use user scope (sets JACKED_MEMORY_ALLOW_USER_SCOPE=1)."),
]

# A family: (key in the JSON output, human renderer of one result dict).
Family = tuple[str, list[dict[str, Any]], Callable[[dict[str, Any]], str]]


def _render(families: list[Family]) -> str:
    lines = []
    for _, results, human in families:
        lines += [human(r) for r in results]
    return "\n".join(lines)


def _payload(families: list[Family]) -> dict[str, Any]:
    return {key: results for key, results, _ in families}


def _nothing_selected(verb: str) -> VaultError:
    return VaultError("USAGE", f"say what to {verb}: --claude, or --mcp HARNESS (claude, codex, cursor, opencode)")


def _claude_family(ctx: typer.Context, op: str, settings: str | None, vault: str | None) -> Family:
    """The `--claude` family: jacked's hook entries in Claude Code's settings.json."""
    from pathlib import Path

    from jacked_vault.hooks import claude
    from jacked_vault.store.layout import resolve_vault_path

    path = Path(settings).absolute() if settings else None
    if op == "install":
        explicit = vault or (ctx.obj or {}).get("vault")
        change = claude.install(path, vault=resolve_vault_path(explicit) if explicit else None)
        item = {"path": change.path, "action": "installed" if change.changed else "unchanged", "backup": change.backup, "events": change.installed}
    elif op == "uninstall":
        change = claude.uninstall(path)
        item = {"path": change.path, "action": "removed" if change.changed else "unchanged", "backup": change.backup, "events": []}
    else:
        item = claude.status(path)

    def human(result: dict[str, Any]) -> str:
        if "action" in result:
            backup = f" (backup {result['backup']})" if result.get("backup") else ""
            return f"claude hooks {result['action']} in {result['path']}{backup}"
        events = ", ".join(result["installed"]) or "none"
        return f"claude hooks in {result['path']}: {events}{'' if result['complete'] else ' (incomplete)'}"

    return "claude", [item], human


@hooks_app.command()
def install(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    settings: SettingsOpt = None,
    mcp: McpOpt = None,
    print_: PrintOpt = False,
    config: ConfigOpt = None,
    allow_user_scope: AllowUserOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write (or --print) jacked's entries: idempotent, touching nothing else in the file."""

    def action():
        from jacked_vault.cli.mcp import mcp_family

        families: list[Family] = []
        if claude:
            families.append(_claude_family(ctx, "install", settings, vault))
        if mcp:
            families.append(mcp_family(ctx, "install", mcp, config=config, vault=vault, print_only=print_, allow_user_scope=allow_user_scope))
        if not families:
            raise _nothing_selected("install")
        return _payload(families), lambda: _render(families)

    run("hooks", as_json, action)


@hooks_app.command()
def uninstall(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    settings: SettingsOpt = None,
    mcp: McpOpt = None,
    config: ConfigOpt = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove jacked's entries, and only those."""

    def action():
        from jacked_vault.cli.mcp import mcp_family

        families: list[Family] = []
        if claude:
            families.append(_claude_family(ctx, "uninstall", settings, vault))
        if mcp:
            families.append(mcp_family(ctx, "uninstall", mcp, config=config, vault=vault))
        if not families:
            raise _nothing_selected("uninstall")
        return _payload(families), lambda: _render(families)

    run("hooks", as_json, action)


@hooks_app.command()
def status(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    settings: SettingsOpt = None,
    mcp: McpOpt = None,
    config: ConfigOpt = None,
    allow_user_scope: AllowUserOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show which entries are installed (default: the MCP server in every harness's usual file)."""

    def action():
        from jacked_vault.cli.mcp import mcp_family
        from jacked_vault.mcp.registration import HARNESSES

        families: list[Family] = []
        if claude or not mcp:
            families.append(_claude_family(ctx, "status", settings, vault))
        if mcp or not claude:
            families.append(mcp_family(ctx, "status", mcp or list(HARNESSES), config=config, vault=vault, allow_user_scope=allow_user_scope))
        return _payload(families), lambda: _render(families)

    run("hooks", as_json, action)
