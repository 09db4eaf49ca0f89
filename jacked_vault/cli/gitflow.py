"""`jacked memory capture-merge`: what the post-merge hook starts (and a person may run by hand)."""

from __future__ import annotations

from typing import Annotated, TypedDict

import typer

from jacked_vault.cli.apps import HOOKS, Command, JsonOpt, VaultOpt, context_for, example, memory_app, run


class MergeOptions(TypedDict):
    """What the command line sets of `capture.merge.capture_merge`'s keyword options."""

    merge_commit: str | None
    head: str | None
    since: str | None
    branch: str | None
    squash: bool
    use_gh: bool


@memory_app.command(
    "capture-merge",
    cls=Command,
    rich_help_panel=HOOKS,
    epilog=example("jacked memory capture-merge --repo ~/Github/api --commit HEAD"),
)
def capture_merge_command(
    ctx: typer.Context,
    repo: Annotated[
        str,
        typer.Option(
            "--repo", metavar="PATH", help="The code repository (default: the current folder).", show_default=False
        ),
    ] = ".",
    commit: Annotated[
        str | None, typer.Option("--commit", metavar="SHA", help="Capture exactly this merge commit (any branch).")
    ] = None,
    head: Annotated[
        str | None,
        typer.Option("--head", metavar="SHA", help="The new head (the hook passes it; default HEAD).", hidden=True),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since", metavar="SHA", help="The head before the merge (the hook passes ORIG_HEAD).", hidden=True
        ),
    ] = None,
    branch: Annotated[
        str | None, typer.Option("--branch", metavar="BRANCH", help="The branch the hook saw.", hidden=True)
    ] = None,
    squash_flag: Annotated[
        str, typer.Option("--squash-flag", metavar="0|1", help="git's post-merge argument.", hidden=True)
    ] = "0",
    from_hook: Annotated[
        bool, typer.Option("--from-hook", help="Run as the hook does: never fail, log one line.", hidden=True)
    ] = False,
    no_gh: Annotated[bool, typer.Option("--no-gh", help="Do not ask `gh` for the pull request.")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Turn new merges into candidate decision notes.

    Merges new on a configured branch (git config jacked.branches, default main/master) become
    one candidate decision note each, once per merge commit; the post-merge hook runs this.
    """
    from jacked_vault.capture.merge import MergeCaptureReport, capture_merge, capture_merge_from_hook

    options = MergeOptions(
        merge_commit=commit or None,
        head=head or None,
        since=since or None,
        branch=branch or None,
        squash=squash_flag.strip() == "1",
        use_gh=not no_gh,
    )
    if from_hook:  # never fails and prints nothing (the outcome is in .git/jacked/log); --json still answers
        report = capture_merge_from_hook(lambda: context_for(ctx, vault).vault_path, repo, **options)
        if as_json:
            run(
                ctx,
                as_json,
                lambda: report or MergeCaptureReport(repo=repo, skipped="nothing captured; see .git/jacked/log"),
            )
        return
    run(ctx, as_json, lambda: capture_merge(context_for(ctx, vault, cwd=repo), repo, **options))
