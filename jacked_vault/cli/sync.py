"""Remote commands: remote set, push, sync (network through your own git)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from jacked_vault.cli.apps import (
    SYNC,
    Command,
    JsonOpt,
    VaultOpt,
    context_for,
    example,
    memory_app,
    outer_vault,
    run,
    sub_app,
)

if TYPE_CHECKING:
    from jacked_vault.render import Result

remote_app = sub_app("remote", SYNC, "Set the vault's git remote.")


@remote_app.command("set", cls=Command, epilog=example("jacked memory remote set git@github.com:you/jacked-vault.git"))
def remote_set(
    ctx: typer.Context,
    url: Annotated[
        str, typer.Argument(metavar="URL", help="Any URL your git can reach (ssh, https, file://, a path).")
    ],
    join: Annotated[
        bool,
        typer.Option(
            "--join", help="Join this vault and an unrelated one at URL (both keep their notes; asked on a terminal)."
        ),
    ] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Set (or change) the vault's remote, `origin`.

    A vault that holds only its init commit adopts the remote's notes instead of diverging. A
    vault with notes of its own is joined to an unrelated one only with --join (or a yes at the
    prompt): the join pushes this vault's notes there at the next sync.
    """
    from jacked_vault.sync import set_remote

    def call() -> Result:
        from jacked_vault.errors import VaultError

        context = context_for(ctx, vault)
        try:
            return set_remote(context, url, join=join)
        except VaultError as exc:
            if join or as_json or not exc.details.get("join") or not _asks():
                raise
            from jacked_vault.cli.prompts import confirm

            if not confirm(
                f"{exc.message}\nJoin the two vaults now (this vault's notes go to that remote at the next sync)?",
                default=False,
            ):
                raise
            return set_remote(context, url, join=True)

    run(ctx, as_json, call)


def _asks() -> bool:
    import sys

    return sys.stdin.isatty() and sys.stdout.isatty()


@memory_app.command(cls=Command, rich_help_panel=SYNC, epilog=example("jacked memory push"))
def push(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Push the vault to its remote (never forced)."""
    from jacked_vault.sync import push as push_vault

    run(ctx, as_json, lambda: push_vault(context_for(ctx, vault)))


@memory_app.command(
    cls=Command, rich_help_panel=SYNC, epilog=example("jacked memory sync", "jacked memory sync --accept-deletions")
)
def sync(
    ctx: typer.Context,
    accept_deletions: Annotated[
        bool,
        typer.Option(
            "--accept-deletions", help="Delete here the notes deleted on the remote (default: keep and report them)."
        ),
    ] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Fetch, merge and push the vault.

    Fast-forwards, or merges a diverged vault when only derived files conflict, then pushes
    (again, after fetching and merging, when another machine pushed first); otherwise it stops
    and explains. What arrives passes the same gate as every write.
    """
    from jacked_vault.frontend import actions

    run(ctx, as_json, lambda: actions.sync(outer_vault(ctx), accept_deletions=accept_deletions, vault=vault))


@memory_app.command(
    cls=Command,
    rich_help_panel=SYNC,
    epilog=example("jacked memory carry --from ~/jacked-vault-before-rewrite --vault ~/jacked-vault"),
)
def carry(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Option("--from", metavar="PATH", help="The old vault's folder on this machine (never written)."),
    ],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-add here the notes an old clone holds that this vault lacks (after the remote was rewritten).

    Each note goes through the gate as a new write of yours (its id and text kept, unreviewed);
    what is not carried, and the changes made there that you make again here, are listed.
    """
    from jacked_vault.sync.carry import carry as carry_notes

    run(ctx, as_json, lambda: carry_notes(context_for(ctx, vault), source))
