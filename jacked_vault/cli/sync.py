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
    """Set (or change) the vault's `origin`; a vault with only its init commit adopts the remote's notes."""
    from jacked_vault.sync import set_remote

    def action():
        done = set_remote(context_for(ctx, vault), url)
        adopted = "; adopted the remote's history" if done.adopted else ""
        return {"remote": done.url, "adopted": done.adopted}, lambda: f"remote origin is {safe(done.url)}{adopted}"

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
def sync(
    ctx: typer.Context,
    accept_deletions: Annotated[bool, typer.Option("--accept-deletions", help="Apply notes deleted on the remote here too (default: keep and report them).")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Fetch; fast-forward, push, or merge a diverged vault (only derived-file conflicts); then push."""
    from jacked_vault.sync import sync as sync_vault

    def action():
        result = sync_vault(context_for(ctx, vault), accept_deletions=accept_deletions)
        payload = result.to_json()

        def human() -> str:
            lines = [f"sync: {result.action} (was {result.ahead} ahead, {result.behind} behind); head {result.head[:10]}"]
            lines += [f"renamed {r} (two machines picked the same file name)" for r in result.renamed]
            if result.kept_deletions:
                lines.append(f"kept {len(result.kept_deletions)} file(s) the remote deleted (`sync --accept-deletions` applies them):")
                lines += [f"  {safe(p)}" for p in result.kept_deletions[:20]]
            if result.accepted_deletions:
                lines.append(f"applied {len(result.accepted_deletions)} deletion(s) from the remote")
            if result.quarantined:
                lines.append(f"quarantined {len(result.quarantined)} arrival(s) that failed the gate (never recalled; see `jacked memory doctor`):")
                lines += [f"  {safe(q['path'])} ({q['code']})" for q in result.quarantined[:20]]
            return "\n".join(lines)

        return payload, human

    run("sync", as_json, action)
