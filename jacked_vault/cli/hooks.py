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

from jacked_vault.cli.apps import JsonOpt, VaultOpt, context_for, memory_app, run
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
GitOpt = Annotated[Optional[list[str]], typer.Option("--git", metavar="REPO", help="A code repo for the post-merge capture hook; repeatable.")]
GitAllOpt = Annotated[Optional[str], typer.Option("--git-all", metavar="GROUP", help="Every repo of GROUP found under the vault's roots.")]
FollowOpt = Annotated[bool, typer.Option("--follow-hooks-path", help="Install into core.hooksPath when the repo sets one.")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace a hook framework's post-merge (it is kept aside and restored on uninstall).")]
PrintOpt = Annotated[bool, typer.Option("--print", help="Print the entry instead of writing the config file.")]
ConfigOpt = Annotated[Optional[str], typer.Option("--config", help="Config file to edit (default: the harness's usual file).")]
UserOpt = Annotated[
    bool,
    typer.Option("--user", help="With --mcp: the per-person config (~/.claude.json, ~/.cursor/mcp.json, ~/.config/opencode/) instead of the repo's."),
]
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
    return VaultError("USAGE", f"say what to {verb}: --claude, --git REPO / --git-all GROUP, or --mcp HARNESS (claude, codex, cursor, opencode)")


def _git_family(ctx: typer.Context, op: str, repos: list[str] | None, group: str | None, vault: str | None, **options: bool) -> Family:
    """The `--git` family: the post-merge hook in code repos, one result per repo."""
    from pathlib import Path

    from jacked_vault.gitflow import githooks
    from jacked_vault.store.layout import resolve_vault_path

    paths = [Path(r).expanduser().absolute() for r in repos or []]
    if group:
        paths += githooks.group_repo_paths(context_for(ctx, vault), group)
    if not paths:
        raise VaultError("USAGE", f"--git-all {group}: no repo of that group under the vault's roots" if group else "--git needs a repo path")
    explicit = vault or (ctx.obj or {}).get("vault")
    results = []
    for path in dict.fromkeys(paths):
        try:
            if op == "install":
                report = githooks.install_git_hook(path, vault=resolve_vault_path(explicit) if explicit else None, **options)
            elif op == "uninstall":
                report = githooks.uninstall_git_hook(path, follow_hooks_path=options.get("follow_hooks_path", False))
            else:
                report = githooks.git_hook_status(path)
            results.append(report.to_json())
        except VaultError as exc:
            results.append({"repo": str(path), "error": {"code": exc.full_code, "message": exc.message}})

    def human(result: dict[str, Any]) -> str:
        if "error" in result:
            return f"post-merge in {result['repo']}: {result['error']['message']}"
        done = "; ".join(result.get("actions") or []) or result.get("state", "")
        return f"post-merge in {result['repo']}: {done}"

    return "git", results, human


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


def _run_families(
    ctx: typer.Context,
    op: str,
    as_json: bool,
    *,
    claude: bool,
    settings: str | None,
    git: list[str] | None,
    git_all: str | None,
    mcp: list[str] | None,
    config: str | None,
    vault: str | None,
    git_options: dict | None = None,
    mcp_options: dict | None = None,
) -> None:
    """Run `op` for every family the options select, and render them together."""

    def action():
        from jacked_vault.cli.mcp import mcp_family

        families: list[Family] = []
        if claude:
            families.append(_claude_family(ctx, op, settings, vault))
        if git or git_all:
            families.append(_git_family(ctx, op, git, git_all, vault, **(git_options or {})))
        if mcp:
            families.append(mcp_family(ctx, op, mcp, config=config, vault=vault, **(mcp_options or {})))
        if not families:
            raise _nothing_selected(op)
        return _payload(families), lambda: _render(families)

    run("hooks", as_json, action)


@hooks_app.command()
def install(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    settings: SettingsOpt = None,
    git: GitOpt = None,
    git_all: GitAllOpt = None,
    follow_hooks_path: FollowOpt = False,
    force: ForceOpt = False,
    mcp: McpOpt = None,
    print_: PrintOpt = False,
    config: ConfigOpt = None,
    user: UserOpt = False,
    allow_user_scope: AllowUserOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write (or --print) jacked's entries: idempotent, touching nothing else in the file."""
    _run_families(
        ctx, "install", as_json, claude=claude, settings=settings, git=git, git_all=git_all, mcp=mcp, config=config, vault=vault,
        git_options={"follow_hooks_path": follow_hooks_path, "force": force},
        mcp_options={"print_only": print_, "allow_user_scope": allow_user_scope, "user": user},
    )


@hooks_app.command()
def uninstall(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    settings: SettingsOpt = None,
    git: GitOpt = None,
    git_all: GitAllOpt = None,
    follow_hooks_path: FollowOpt = False,
    mcp: McpOpt = None,
    config: ConfigOpt = None,
    user: UserOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove jacked's entries, and only those."""
    _run_families(
        ctx, "uninstall", as_json, claude=claude, settings=settings, git=git, git_all=git_all, mcp=mcp, config=config, vault=vault,
        git_options={"follow_hooks_path": follow_hooks_path}, mcp_options={"user": user},
    )


@hooks_app.command()
def status(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    settings: SettingsOpt = None,
    git: GitOpt = None,
    git_all: GitAllOpt = None,
    follow_hooks_path: FollowOpt = False,
    mcp: McpOpt = None,
    config: ConfigOpt = None,
    user: UserOpt = False,
    allow_user_scope: AllowUserOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show which entries are installed (default: Claude Code hooks and the MCP server everywhere)."""
    from jacked_vault.mcp.registration import HARNESSES

    nothing = not (claude or mcp or git or git_all)
    _run_families(
        ctx, "status", as_json, claude=claude or nothing, settings=settings, git=git, git_all=git_all,
        mcp=mcp or (list(HARNESSES) if nothing else None), config=config, vault=vault,
        mcp_options={"allow_user_scope": allow_user_scope, "user": user},
    )
