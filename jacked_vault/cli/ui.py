"""`jacked memory ui`: serve the review page (`jacked_vault.ui`) until interrupted."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from jacked_vault.cli.apps import REVIEW, Command, JsonOpt, VaultOpt, context_for, example, memory_app
from jacked_vault.errors import VaultError
from jacked_vault.frontend.output import emit_error, emit_unexpected, safe, schema_for

if TYPE_CHECKING:
    from jacked_vault.ui.server import Listening


@memory_app.command(
    "ui",
    cls=Command,
    rich_help_panel=REVIEW,
    epilog=example("jacked memory ui", "jacked memory ui --port 8765 --no-open --json"),
)
def ui(
    ctx: typer.Context,
    port: Annotated[
        int,
        typer.Option("--port", metavar="N", help="Listen on 127.0.0.1:N (default: a free port).", show_default=False),
    ] = 0,
    no_open: Annotated[bool, typer.Option("--no-open", help="Only print the link; do not open a browser.")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Review the vault in your browser, on a local page.

    Browse and search notes, see each note's history and what each agent is told at session
    start, and accept or reject candidates: the same commits as the CLI. It listens on
    127.0.0.1 only and prints a link that carries a random key; it runs until Ctrl-C. With
    --json it prints {"schema": "jacked.ui.v1", "ok": true, "url": ...} once it listens.
    """
    schema = schema_for(ctx.command_path)

    def announce(listening: Listening) -> None:
        if as_json:
            sys.stdout.write(
                json.dumps({"schema": schema, "ok": True, **listening.to_json()}, ensure_ascii=False) + "\n"
            )
        else:
            sys.stdout.write(safe(listening.to_text()) + "\n")
        sys.stdout.flush()

    try:
        from jacked_vault.ui.server import serve

        context = context_for(ctx, vault)
        store = context.vault  # NO_VAULT before anything listens
        serve(store.root, context.cwd, port=port, announce=announce, browser=not no_open)
    except VaultError as exc:
        raise typer.Exit(emit_error(exc, as_json, schema)) from None
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # no traceback ever reaches a person
        raise typer.Exit(emit_unexpected(exc, as_json, schema)) from None
    if not as_json:
        sys.stderr.write("review page stopped\n")
