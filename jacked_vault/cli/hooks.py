"""`jacked memory hooks install|uninstall|status`: parse the options, call `hooks.integrations.manage`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from jacked_vault.cli.apps import HOOKS, Command, JsonOpt, VaultOpt, example, run, sub_app

hooks_app = sub_app(
    "hooks",
    HOOKS,
    "Install or check hooks and MCP registrations.",
    "Families: --claude (Claude Code session hooks), --codex (Codex session hooks), --opencode (OpenCode session "
    "plugin), --cursor (Cursor session hooks), --git REPO (post-merge capture), --mcp HARNESS (the MCP server), "
    "--commands HARNESS (/remember and /learn), --skills HARNESS (the librarian skill).",
)

McpOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--mcp", metavar="HARNESS", help="Register the MCP server for claude, codex, cursor or opencode; repeatable."
    ),
]
CommandsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--commands",
        metavar="HARNESS",
        help="The /remember and /learn command files for claude, codex or opencode (their per-person folder); "
        "repeatable.",
    ),
]
SkillsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--skills",
        metavar="HARNESS",
        help="The jacked-librarian skill for claude, codex or opencode (their per-person skills folder); repeatable.",
    ),
]
ClaudeOpt = Annotated[
    bool,
    typer.Option("--claude", help="Claude Code session hooks (SessionStart brief, SessionEnd/PreCompact capture)."),
]
CodexOpt = Annotated[
    bool,
    typer.Option(
        "--codex",
        help="Codex session hooks in $CODEX_HOME/config.toml (SessionStart brief, Stop capture); "
        "Codex's per-person file, with or without --user.",
    ),
]
OpencodeOpt = Annotated[
    bool,
    typer.Option(
        "--opencode",
        help="OpenCode session plugin jacked-vault.js (brief in the system prompt, capture when a session goes quiet "
        "or OpenCode exits); the project's .opencode/plugins/, or with --user ~/.config/opencode/plugins/.",
    ),
]
CursorOpt = Annotated[
    bool,
    typer.Option(
        "--cursor",
        help="Cursor session hooks in hooks.json (sessionStart brief, sessionEnd capture); "
        "the project's .cursor/hooks.json, or with --user ~/.cursor/hooks.json.",
    ),
]
SettingsOpt = Annotated[
    str | None,
    typer.Option("--settings", metavar="PATH", help="Claude Code settings file (default ~/.claude/settings.json)."),
]
GitOpt = Annotated[
    list[str] | None,
    typer.Option("--git", metavar="REPO", help="A code repo folder for the post-merge capture hook; repeatable."),
]
GitAllOpt = Annotated[
    str | None,
    typer.Option("--git-all", metavar="GROUP", help="This machine's clone of every repo of GROUP (under its roots)."),
]
FollowOpt = Annotated[
    bool, typer.Option("--follow-hooks-path", help="Use the folder core.hooksPath names when the repo sets one.")
]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Install into a core.hooksPath folder git tracks anyway "
        "(hook frameworks are chained the way each supports, never forced).",
    ),
]
PrintOpt = Annotated[bool, typer.Option("--print", help="Print the MCP entry instead of writing the config file.")]
ConfigOpt = Annotated[
    str | None,
    typer.Option("--config", metavar="PATH", help="The MCP config file to edit (default: the harness's usual file)."),
]
UserOpt = Annotated[
    bool,
    typer.Option(
        "--user",
        help="With --mcp, --opencode or --cursor: the per-person config "
        "(~/.claude.json, ~/.cursor/, ~/.config/opencode/) instead of the repo's.",
    ),
]
AllowUserOpt = Annotated[
    bool,
    typer.Option("--allow-user-scope", help="Let this harness use user scope (sets JACKED_MEMORY_ALLOW_USER_SCOPE=1)."),
]


def _manage(
    ctx: typer.Context, op: str, as_json: bool, vault: str | None, **options: bool | str | list[str] | None
) -> None:
    from jacked_vault.hooks.integrations import Selection, manage

    # the options as typer parsed them (bool, str or list); Selection's own fields name and type them
    given: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items() if v is not None}
    selection = Selection(**given)
    run(ctx, as_json, lambda: manage(op, selection, vault if vault is not None else (ctx.obj or {}).get("vault")))


@hooks_app.command(
    cls=Command,
    epilog=example(
        "jacked memory hooks install --claude",
        "jacked memory hooks install --codex",
        "jacked memory hooks install --opencode --user",
        "jacked memory hooks install --cursor --user",
        "jacked memory hooks install --git ~/Github/api",
        "jacked memory hooks install --mcp codex --print",
        "jacked memory hooks install --mcp claude --user",
    ),
)
def install(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    codex: CodexOpt = False,
    opencode: OpencodeOpt = False,
    cursor: CursorOpt = False,
    settings: SettingsOpt = None,
    git: GitOpt = None,
    git_all: GitAllOpt = None,
    follow_hooks_path: FollowOpt = False,
    force: ForceOpt = False,
    mcp: McpOpt = None,
    commands: CommandsOpt = None,
    skills: SkillsOpt = None,
    print_: PrintOpt = False,
    config: ConfigOpt = None,
    user: UserOpt = False,
    allow_user_scope: AllowUserOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write jacked's entries (or --print them).

    Idempotent, and touching nothing else in the file; exits 1 when a repo refuses (e.g. it
    sets core.hooksPath and --follow-hooks-path was not given).
    """
    _manage(
        ctx,
        "install",
        as_json,
        vault,
        claude=claude,
        codex=codex,
        opencode=opencode,
        cursor=cursor,
        settings=settings,
        git=git,
        git_all=git_all,
        follow_hooks_path=follow_hooks_path,
        force=force,
        mcp=mcp,
        commands=commands,
        skills=skills,
        print_only=print_,
        config=config,
        user=user,
        allow_user_scope=allow_user_scope,
    )


@hooks_app.command(cls=Command, epilog=example("jacked memory hooks uninstall --claude --git ~/Github/api"))
def uninstall(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    codex: CodexOpt = False,
    opencode: OpencodeOpt = False,
    cursor: CursorOpt = False,
    settings: SettingsOpt = None,
    git: GitOpt = None,
    git_all: GitAllOpt = None,
    follow_hooks_path: FollowOpt = False,
    mcp: McpOpt = None,
    commands: CommandsOpt = None,
    skills: SkillsOpt = None,
    config: ConfigOpt = None,
    user: UserOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove jacked's entries, and only those.

    A hook jacked replaced is put back as it was.
    """
    _manage(
        ctx,
        "uninstall",
        as_json,
        vault,
        claude=claude,
        codex=codex,
        opencode=opencode,
        cursor=cursor,
        settings=settings,
        git=git,
        git_all=git_all,
        follow_hooks_path=follow_hooks_path,
        mcp=mcp,
        commands=commands,
        skills=skills,
        config=config,
        user=user,
    )


@hooks_app.command(
    cls=Command, epilog=example("jacked memory hooks status", "jacked memory hooks status --git ~/Github/api")
)
def status(
    ctx: typer.Context,
    claude: ClaudeOpt = False,
    codex: CodexOpt = False,
    opencode: OpencodeOpt = False,
    cursor: CursorOpt = False,
    settings: SettingsOpt = None,
    git: GitOpt = None,
    git_all: GitAllOpt = None,
    mcp: McpOpt = None,
    commands: CommandsOpt = None,
    skills: SkillsOpt = None,
    config: ConfigOpt = None,
    user: UserOpt = False,
    allow_user_scope: AllowUserOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show which entries are installed.

    Without an option: the Claude Code, Codex, OpenCode and Cursor hooks and the MCP server for every harness.
    """
    from jacked_vault.hooks.mcp import HARNESSES

    nothing = not (claude or codex or opencode or cursor or mcp or git or git_all or commands or skills)
    _manage(
        ctx,
        "status",
        as_json,
        vault,
        table=nothing,
        claude=claude or nothing,
        codex=codex or nothing,
        opencode=opencode or nothing,
        cursor=cursor or nothing,
        settings=settings,
        git=git,
        git_all=git_all,
        mcp=mcp or (list(HARNESSES) if nothing else None),
        commands=commands,
        skills=skills,
        config=config,
        user=user,
        allow_user_scope=allow_user_scope,
    )
