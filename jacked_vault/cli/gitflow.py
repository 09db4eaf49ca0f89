"""`jacked memory capture-merge`: what the post-merge hook starts (and a person may run by hand)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from jacked_vault.cli.apps import JsonOpt, VaultOpt, context_for, memory_app, run
from jacked_vault.cli.output import safe


def _human(report) -> str:
    head = f"{safe(report.identity or report.repo)} on {safe(report.branch or '-')}"
    if report.skipped:
        return f"{head}: nothing captured ({safe(report.skipped)})"
    lines = []
    for outcome in report.retried + report.outcomes:
        line = f"  {outcome.commit[:10]} {outcome.kind}: {outcome.action}"
        if outcome.note_id:
            line += f" {outcome.note_id}"
        if outcome.title:
            line += f" — {safe(outcome.title)}"
        if outcome.reason and outcome.action != "created":
            line += f" ({safe(outcome.reason)})"
        if outcome.dropped:
            line += f" [left out: {', '.join(sorted(set(outcome.dropped)))}]"
        lines.append(line)
    if report.more:
        lines.append(f"  {report.more} older merge(s) not captured (run capture-merge --commit SHA for them)")
    if not lines:
        return f"{head}: no merge in the new commits"
    return f"{head}:\n" + "\n".join(lines)


@memory_app.command("capture-merge")
def capture_merge_command(
    ctx: typer.Context,
    repo: Annotated[str, typer.Option("--repo", help="The code repository (default: the current directory).")] = ".",
    commit: Annotated[Optional[str], typer.Option("--commit", help="Capture exactly this merge commit (any branch).")] = None,
    head: Annotated[Optional[str], typer.Option("--head", help="The new head (the hook passes it; default HEAD).", hidden=True)] = None,
    since: Annotated[Optional[str], typer.Option("--since", help="The head before the merge (the hook passes ORIG_HEAD).", hidden=True)] = None,
    branch: Annotated[Optional[str], typer.Option("--branch", help="The branch the hook saw.", hidden=True)] = None,
    squash_flag: Annotated[str, typer.Option("--squash-flag", help="git's post-merge argument.", hidden=True)] = "0",
    from_hook: Annotated[bool, typer.Option("--from-hook", help="Run as the hook does: never fail, log one line.", hidden=True)] = False,
    no_gh: Annotated[bool, typer.Option("--no-gh", help="Do not ask `gh` for the pull request.")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Turn the merges new on a configured branch (git config jacked.branches, default main/master)
    into candidate decision notes, once per merge commit."""
    from jacked_vault.capture.merge import capture_merge, capture_merge_from_hook

    kwargs = dict(
        merge_commit=commit or None,
        head=head or None,
        since=since or None,
        branch=branch or None,
        squash=squash_flag.strip() == "1",
        use_gh=not no_gh,
    )
    if from_hook:
        capture_merge_from_hook(vault or (ctx.obj or {}).get("vault"), repo, **kwargs)
        raise typer.Exit(0)

    def action():
        report = capture_merge(context_for(ctx, vault, cwd=repo), repo, **kwargs)
        return report.to_json(), lambda: _human(report)

    run("capture-merge", as_json, action)
