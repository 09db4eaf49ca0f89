"""Episodic commands: `rollup` (day files -> recent.md -> archive.md) and `migrate` (from `.remember/`)."""

from __future__ import annotations

import sys
from datetime import date
from typing import TYPE_CHECKING, Annotated

import typer

from jacked_vault.cli.apps import MAINTENANCE, Command, JsonOpt, VaultOpt, context_for, example, memory_app, run
from jacked_vault.errors import VaultError
from jacked_vault.frontend.output import tty_progress

if TYPE_CHECKING:
    from jacked_vault.render import Result


def _parse_day(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise VaultError("USAGE", "--today is not a date (YYYY-MM-DD)") from None


@memory_app.command(
    cls=Command,
    rich_help_panel=MAINTENANCE,
    epilog=example("jacked memory rollup", "jacked memory rollup --group api --today 2026-12-01"),
)
def rollup(
    ctx: typer.Context,
    group: Annotated[
        str | None, typer.Option("--group", metavar="GROUP", help="Only this group (default: every group).")
    ] = None,
    repo: Annotated[
        str | None, typer.Option("--repo", metavar="REPO", help="Only this repo identity (like github.com/acme/api).")
    ] = None,
    today: Annotated[
        str | None, typer.Option("--today", metavar="DATE", help="The date to roll up to, YYYY-MM-DD (default: today).")
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Fold past session days into recent.md and archive.md.

    Past day files become sections of recent.md, week-old days move to archive.md;
    deterministic, one commit, and running it twice changes nothing.
    """
    from jacked_vault.episodic.rollup import rollup as do_rollup

    def action() -> Result:
        context = context_for(ctx, vault)
        return do_rollup(
            context.vault,
            today=_parse_day(today),
            group=group,
            repo=repo,
            harness=context.harness,
            origin="cli",
            settings=context.settings,
        )

    run(ctx, as_json, action)


@memory_app.command(
    cls=Command,
    rich_help_panel=MAINTENANCE,
    epilog=example("jacked memory migrate --dry-run", "jacked memory migrate --from ~/.remember/api"),
)
def migrate(
    ctx: typer.Context,
    sources: Annotated[
        list[str] | None,
        typer.Option(
            "--from",
            metavar="PATH",
            help="A .remember folder to import; repeatable (default REPO/.remember and ~/.remember/REPO).",
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan; write nothing.")] = False,
    retire_plugin: Annotated[
        bool,
        typer.Option(
            "--retire-plugin",
            help="Then turn off the remember plugin in Claude Code's settings without asking (backed up; its data "
            "kept).",
        ),
    ] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Import the remember plugin's .remember/ folders.

    Into this repo's episodic memory; the source is only read, entry counts are checked before
    the commit, and nothing already imported is imported again.
    """
    from jacked_vault.cli.prompts import confirm
    from jacked_vault.episodic.migrate import migrate as do_migrate
    from jacked_vault.harnesses.installers.claude import retire_plugin as retire

    def action() -> Result:
        context = context_for(ctx, vault)
        progress = None if as_json else tty_progress("files read")
        try:
            result = do_migrate(context, sources, dry_run=dry_run, progress=progress)
        finally:
            if progress is not None:
                sys.stderr.write("\n")
        return retire(
            result, lambda question: retire_plugin or (not as_json and sys.stdin.isatty() and confirm(question))
        )

    run(ctx, as_json, action)
