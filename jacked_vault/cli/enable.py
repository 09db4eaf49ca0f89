"""`jacked memory enable|disable`: the one switch (parse the options, ask on a terminal, call `hooks.enable`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from jacked_vault.cli.apps import HOOKS, Command, JsonOpt, VaultOpt, example, memory_app, outer_vault, run
from jacked_vault.cli.groups import Roots

if TYPE_CHECKING:
    from jacked_vault.render import Result

YesOpt = Annotated[
    bool,
    typer.Option(
        "--yes",
        help="Accept the suggested groups and every offer (post-merge hooks, migration, turning the remember plugin "
        "off) without asking.",
    ),
]
FromOpt = Annotated[
    str | None,
    typer.Option(
        "--from", metavar="URL", help="Join the shared vault at URL (a second machine) instead of creating one."
    ),
]


def _ask_url() -> str | None:
    from jacked_vault.cli.prompts import ask

    return ask("remote URL for the vault (empty: none for now)") or None


@memory_app.command(
    cls=Command,
    rich_help_panel=HOOKS,
    epilog=example(
        "jacked memory enable",
        "jacked memory enable --yes --root ~/work",
        "jacked memory enable --from git@github.com:me/vault.git",
    ),
)
def enable(
    ctx: typer.Context,
    yes: YesOpt = False,
    from_: FromOpt = None,
    root: Roots = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Turn memory on: the vault, groups, hooks and MCP for every harness here.

    Creates the vault (or joins one with --from), reviews the suggested groups, installs the
    session hooks, MCP server and /remember and /learn commands of every harness found on this
    machine, offers the post-merge hook of this machine's clone of each mapped repo (found under
    --root, else this machine's roots, else the usual folders), the import of any .remember/ and a
    remote. Safe to run again; `jacked memory disable` undoes it.
    """
    from jacked_vault.cli.groups import _suggest_and_apply
    from jacked_vault.cli.prompts import confirm
    from jacked_vault.frontend.output import tty_stages
    from jacked_vault.hooks.enable import enable as switch_on

    interactive = not as_json and not yes and sys.stdin.isatty()
    chosen = vault if vault is not None else outer_vault(ctx)

    def action() -> Result:
        stages = tty_stages() if from_ is not None else None  # inside: none while answering in JSON

        def asked(question: str) -> bool:
            if stages:
                stages.end()  # the joining's progress line ends before the first question
            return confirm(question)

        try:
            return switch_on(
                chosen, from_url=from_, yes=yes, ask=asked if interactive else None,
                ask_url=_ask_url if interactive else None,
                review=lambda context: _suggest_and_apply(context, None, yes, as_json), roots=tuple(root or ()),
                stages=stages.stage if stages else None,
            )  # fmt: skip
        finally:
            if stages:
                stages.end()

    run(ctx, as_json, action)


@memory_app.command(cls=Command, rich_help_panel=HOOKS, epilog=example("jacked memory disable"))
def disable(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Turn memory off: remove every hook, registration and command jacked installed.

    Files enable changed and nobody changed since are put back byte for byte; the vault and its
    notes are left as they are. Safe to run again.
    """
    from jacked_vault.hooks.enable import disable as switch_off

    run(ctx, as_json, lambda: switch_off(vault if vault is not None else outer_vault(ctx)))
