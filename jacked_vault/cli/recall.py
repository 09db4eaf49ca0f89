"""Recall commands: hot show/set and brief."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from jacked_vault.cli.apps import (
    RECALL,
    Body,
    BodyFile,
    Command,
    Group,
    Harness,
    JsonOpt,
    Stdin,
    VaultOpt,
    context_for,
    example,
    memory_app,
    outer_vault,
    run,
    sub_app,
)
from jacked_vault.frontend import actions
from jacked_vault.frontend.inputs import read_text_input

if TYPE_CHECKING:
    from jacked_vault.render import Result

hot_app = sub_app(
    "hot",
    RECALL,
    "Show or overwrite hot.md, the group's current progress.",
    "hot.md is the slice of work in progress a new session should see first; each `set` is a commit.",
)
HotScope = Annotated[str, typer.Option("--scope", metavar="SCOPE", help="group (the default) or project.")]


@hot_app.command("show", cls=Command, epilog=example("jacked memory hot show --group vault-tools"))
def hot_show(
    ctx: typer.Context, group: Group = None, scope: HotScope = "group", vault: VaultOpt = None, as_json: JsonOpt = False
) -> None:
    """Print hot.md of the current repo's group (or --group)."""
    from jacked_vault.recall.hot import show_hot

    run(ctx, as_json, lambda: show_hot(context_for(ctx, vault), group=group, scope=scope))


@hot_app.command(
    "set", cls=Command, epilog=example('echo "Wiring the brief budget; tests next." | jacked memory hot set --stdin')
)
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
    """Overwrite hot.md (at most 4 KiB, secret-scanned).

    Each set is a commit, so git history keeps every version.
    """
    from jacked_vault.document.hot import MAX_HOT_BYTES
    from jacked_vault.write.hot import set_hot

    def action() -> Result:
        context = context_for(ctx, vault)
        if harness:
            context.harness = harness
        return set_hot(context, read_text_input(body, body_file, stdin, MAX_HOT_BYTES), group=group, scope=scope)

    run(ctx, as_json, action)


@memory_app.command(
    cls=Command,
    rich_help_panel=RECALL,
    epilog=example("jacked memory brief", "jacked memory brief --cwd ~/Github/api --budget 800 --harness codex"),
)
def brief(
    ctx: typer.Context,
    cwd: Annotated[
        str | None, typer.Option("--cwd", metavar="PATH", help="The repo to brief (default: the current folder).")
    ] = None,
    budget: Annotated[
        int,
        typer.Option(
            "--budget", metavar="N", help="Hard cap in tokens, len/4 (default 1500, at least 200).", show_default=False
        ),
    ] = 1500,
    harness: Annotated[
        str | None,
        typer.Option(
            "--harness",
            metavar="HARNESS",
            help="Brief for this harness (default $JACKED_MEMORY_HARNESS; none: notes for all).",
        ),
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print what a new session should know about this repo.

    hot.md, the last session, the most linked decisions and the index, under a token budget;
    this is what the SessionStart hook injects.
    """
    run(ctx, as_json, lambda: actions.brief(outer_vault(ctx), cwd=cwd, budget=budget, harness=harness, vault=vault))
