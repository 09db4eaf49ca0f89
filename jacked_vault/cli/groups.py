"""Group commands: `init` (create the vault, scan roots, review suggested groups) and `group list|map|unmap|suggest`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from jacked_vault.cli.apps import GROUPS, Command, JsonOpt, VaultOpt, context_for, example, memory_app, run, sub_app
from jacked_vault.frontend.output import safe, tty_progress, tty_stages

if TYPE_CHECKING:
    from jacked_vault.context import Context
    from jacked_vault.groups.mapping import Suggested, Suggestion
    from jacked_vault.groups.suggest import GroupSuggestion
    from jacked_vault.render import Result

group_app = sub_app(
    "group",
    GROUPS,
    "Groups of related repos: list, map, unmap, suggest.",
    "Notes of a repo go to its group; a repo in no group is a group of its own (solo).",
)

Roots = Annotated[
    list[str] | None,
    typer.Option(
        "--root",
        metavar="PATH",
        help="A folder where this machine keeps clones; repeatable, remembered in this machine's config "
        "(default: its roots, else the usual folders: ~/code, ~/src, ~/Github, ~/projects, ...).",
    ),
]
Yes = Annotated[bool, typer.Option("--yes", help="Accept every suggested group without asking.")]
Repo = Annotated[
    str, typer.Argument(metavar="REPO", help="A repo folder, or a repo identity like github.com/owner/repo.")
]


def _review(suggestion: Suggestion) -> list[GroupSuggestion]:
    """Ask about each suggested group on a TTY: accept, edit the name, or skip (one of those
    keys or words; anything else asks again)."""
    from dataclasses import replace

    from jacked_vault.cli.prompts import ask, choose

    chosen = []
    for group in suggestion.groups:
        sys.stderr.write(safe(f"\ngroup {group.name}: {group.reason}\n" + "".join(f"  - {r}\n" for r in group.repos)))
        answer = choose("[a]ccept, [e]dit name, [s]kip", {"a": "accept", "e": "edit", "s": "skip"}, default="a")
        if answer == "e":
            group = replace(group, name=ask("group name", default=group.name, required=True))
            chosen.append(group)
        elif answer == "a":
            chosen.append(group)
    return chosen


def _suggest_and_apply(context: Context, roots: list[str] | None, yes: bool, as_json: bool) -> Suggested:
    """Scan, let a person choose (never without --yes or a TTY answer), write what was accepted, and
    remember `--root` folders as this machine's roots."""
    from jacked_vault.groups.mapping import Suggested, accept, suggest
    from jacked_vault.store.config import remember_roots

    progress = None if as_json else tty_progress("repos found")
    suggestion = suggest(context, roots, progress=progress)
    if progress is not None:
        sys.stderr.write("\n")
    if yes:
        chosen = suggestion.groups
    elif not as_json and sys.stdin.isatty() and suggestion.groups:
        chosen = _review(suggestion)
    else:
        chosen = []
    commit = accept(context, chosen) if chosen else None
    remembered = remember_roots(roots) if roots else None
    return Suggested(suggestion, [g.name for g in chosen], commit, None if remembered is None else str(remembered))


@memory_app.command(
    cls=Command,
    rich_help_panel=GROUPS,
    epilog=example(
        "jacked memory init",
        "jacked memory init --root ~/src --yes",
        "jacked memory init --from git@github.com:me/vault.git",
    ),
)
def init(
    ctx: typer.Context,
    root: Roots = None,
    yes: Yes = False,
    no_scan: Annotated[bool, typer.Option("--no-scan", help="Only create the vault; do not look for repos.")] = False,
    from_: Annotated[
        str | None,
        typer.Option("--from", metavar="URL", help="Clone the shared vault from URL (a second machine); no scan."),
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Create the vault, then suggest groups for your repos.

    Makes the vault's git repo (README, vault.json, .gitignore), scans your repo folders and
    shows the groups it suggests for review; nothing is mapped without your yes.
    """
    from dataclasses import replace

    from jacked_vault.write.init import init_vault

    def action() -> Result:
        context = context_for(ctx, vault)
        if from_ is not None:
            from jacked_vault.sync.clone import clone_vault

            stages = tty_stages()
            try:
                return clone_vault(
                    from_,
                    context.vault_path,
                    harness=context.harness,
                    name_vault=(vault or (ctx.obj or {}).get("vault")) is not None,
                    stages=stages.stage if stages else None,
                )
            finally:
                if stages:
                    stages.end()
        result = init_vault(context.vault_path, harness=context.harness)
        return result if no_scan else replace(result, groups=_suggest_and_apply(context, root, yes, as_json))

    run(ctx, as_json, action)


@group_app.command("list", cls=Command, epilog=example("jacked memory group list"))
def group_list(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """List the groups with their repos and note counts."""
    from jacked_vault.groups.mapping import list_groups

    run(ctx, as_json, lambda: list_groups(context_for(ctx, vault)))


@group_app.command(
    "map",
    cls=Command,
    epilog=example(
        "jacked memory group map ~/Github/api platform", "jacked memory group map github.com/acme/web platform"
    ),
)
def group_map(
    ctx: typer.Context,
    repo: Repo,
    group: Annotated[str, typer.Argument(metavar="GROUP", help="The group (a slug like `platform`).")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Put a repo in a group (a commit to vault.json).

    Moves it out of any other group; a folder that does not exist is refused.
    """
    from jacked_vault.groups.mapping import map_repo

    run(ctx, as_json, lambda: map_repo(context_for(ctx, vault), repo, group))


@group_app.command("unmap", cls=Command, epilog=example("jacked memory group unmap github.com/acme/web"))
def group_unmap(ctx: typer.Context, repo: Repo, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Take a repo out of its group (a commit to vault.json).

    The repo is its own solo group again; notes already written stay where they are.
    """
    from jacked_vault.groups.mapping import unmap_repo

    run(ctx, as_json, lambda: unmap_repo(context_for(ctx, vault), repo))


@group_app.command(
    "suggest",
    cls=Command,
    epilog=example("jacked memory group suggest --root ~/Github", "jacked memory group suggest --yes"),
)
def group_suggest(
    ctx: typer.Context, root: Roots = None, yes: Yes = False, vault: VaultOpt = None, as_json: JsonOpt = False
) -> None:
    """Scan repo folders and suggest groups for unmapped repos."""
    run(ctx, as_json, lambda: _suggest_and_apply(context_for(ctx, vault), root, yes, as_json))
