"""`jacked memory librarian [status|done|archive]`: the librarian's counters, its runs, archive/."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from jacked_vault.cli.apps import MAINTENANCE, Command, JsonOpt, VaultOpt, context_for, example, memory_app, run
from jacked_vault.errors import VaultError

if TYPE_CHECKING:
    from jacked_vault.render import Result

ACTIONS = ("status", "done", "archive")


@memory_app.command(
    cls=Command,
    rich_help_panel=MAINTENANCE,
    epilog=example(
        "jacked memory librarian", "jacked memory librarian done", "jacked memory librarian archive --dry-run"
    ),
)
def librarian(
    ctx: typer.Context,
    action: Annotated[
        str | None, typer.Argument(metavar="ACTION", help="status (default), done (record a run) or archive.")
    ] = None,
    older_than: Annotated[
        int | None,
        typer.Option(
            "--older-than",
            metavar="DAYS",
            help="archive: notes closed more than DAYS ago (default settings.librarian.archive_after_days).",
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="archive: list what would move; write nothing.")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The librarian: drift counters, its runs, archive/.

    status: the counters (added since the last run, duplicates, superseded, closed long enough
    to archive, stale hot.md) and their thresholds; done: record a librarian run on this
    machine; archive: move notes superseded or expired long ago to archive/ (one commit).
    """

    def action_() -> Result:
        chosen = action or "status"
        if chosen not in ACTIONS:
            raise VaultError("USAGE", f"{chosen}: use one of {', '.join(ACTIONS)}")
        if chosen != "archive" and (older_than is not None or dry_run):
            raise VaultError("USAGE", "--older-than and --dry-run go with `librarian archive`")
        context = context_for(ctx, vault)
        if chosen == "archive":
            from jacked_vault.write.transitions import archive

            return archive(context, after_days=older_than, dry_run=dry_run)
        from jacked_vault.recall.librarian import librarian_status

        return librarian_status(context, done=chosen == "done")

    run(ctx, as_json, action_)
