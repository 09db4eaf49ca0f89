"""Remote commands: remote set, push, sync (network through your own git)."""

from __future__ import annotations

from typing import Annotated

import typer

from jacked_vault.cli.apps import JsonOpt, VaultOpt, context_for, memory_app, run
from jacked_vault.cli.output import safe

remote_app = typer.Typer(help="The vault's git remote.", no_args_is_help=True, rich_markup_mode=None)
memory_app.add_typer(remote_app, name="remote")


@remote_app.command("set")
def remote_set(
    ctx: typer.Context,
    url: Annotated[str, typer.Argument(help="Any URL your git can reach (ssh, https, file://, a path).")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Set (or change) the vault's `origin` and make main track it."""
    from jacked_vault.sync import set_remote

    def action():
        url_set = set_remote(context_for(ctx, vault), url)
        return {"remote": url_set}, lambda: f"remote origin is {safe(url_set)}"

    run("remote", as_json, action)


@memory_app.command()
def push(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Push the vault to its remote (never forced)."""
    from jacked_vault.sync import push as push_vault

    def action():
        head = push_vault(context_for(ctx, vault))
        return {"head": head}, lambda: f"pushed {head[:10]}"

    run("push", as_json, action)


@memory_app.command()
def sync(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Fetch; fast-forward, push, or merge a diverged vault (only derived-file conflicts); then push."""
    from jacked_vault.sync import sync as sync_vault

    def action():
        result = sync_vault(context_for(ctx, vault))
        payload = {
            "action": result.action,
            "ahead": result.ahead,
            "behind": result.behind,
            "head": result.head,
            "renamed": result.renamed,
            "regenerated": result.regenerated,
        }

        def human() -> str:
            lines = [f"sync: {result.action} (was {result.ahead} ahead, {result.behind} behind); head {result.head[:10]}"]
            lines += [f"renamed {r} (two machines picked the same file name)" for r in result.renamed]
            return "\n".join(lines)

        return payload, human

    run("sync", as_json, action)
