"""Recall commands: hot show/set and brief."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from jacked_vault.cli.apps import Body, BodyFile, Group, Harness, JsonOpt, Stdin, VaultOpt, context_for, memory_app, read_text_input, run
from jacked_vault.cli.output import safe


# -- hot, brief --------------------------------------------------------------------------------

hot_app = typer.Typer(help="The group's current progress slice (hot.md): show or overwrite.", no_args_is_help=True, rich_markup_mode=None)
memory_app.add_typer(hot_app, name="hot")
HotScope = Annotated[str, typer.Option("--scope", help="group (default) or project.")]


@hot_app.command("show")
def hot_show(ctx: typer.Context, group: Group = None, scope: HotScope = "group", vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Print hot.md of the cwd repo's group (or --group)."""
    from jacked_vault.recall.hot import show_hot

    def action():
        hot, path = show_hot(context_for(ctx, vault), group=group, scope=scope)
        payload = {"path": path, "body": hot.body if hot else None, "updated_at": hot.updated_at if hot else None, "harness": hot.harness if hot else None}
        return payload, lambda: safe(hot.body) if hot else f"no hot.md yet at {path}; set one with `jacked memory hot set --stdin`"

    run("hot", as_json, action)


@hot_app.command("set")
def hot_set(
    ctx: typer.Context,
    body: Body = None,
    body_file: BodyFile = None,
    stdin: Stdin = False,
    group: Group = None,
    scope: HotScope = "group",
    harness: Harness = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Overwrite hot.md (at most 4 KiB, secret-scanned); each set is a commit, so history keeps every version."""
    from jacked_vault.document.hot import MAX_HOT_BYTES
    from jacked_vault.write.hot import set_hot

    def action():
        context = context_for(ctx, vault)
        if harness:
            context.harness = harness
        result = set_hot(context, read_text_input(body, body_file, stdin, MAX_HOT_BYTES), group=group, scope=scope)
        payload = {"path": result.path, "commit": result.commit, "group": result.group}
        return payload, lambda: f"Updated {result.path} [{result.commit[:10]}]"

    run("hot", as_json, action)


@memory_app.command()
def brief(
    ctx: typer.Context,
    cwd: Annotated[Optional[str], typer.Option("--cwd", help="The repo to brief (default: the current directory).")] = None,
    budget: Annotated[int, typer.Option("--budget", help="Hard cap in tokens (len/4).")] = 1500,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The session-start brief for a repo: hot.md, last session, key decisions, index, under a token budget."""
    from jacked_vault.recall.brief import build_brief

    def action():
        context = context_for(ctx, vault, cwd)
        result = build_brief(context, budget=budget)
        return result.to_json(), lambda: result.text

    run("brief", as_json, action)
