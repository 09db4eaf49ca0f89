"""Group commands: `init` (create the vault, scan roots, review suggested groups) and `group list|map|suggest`."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from jacked_vault.cli.apps import JsonOpt, VaultOpt, context_for, memory_app, run
from jacked_vault.cli.output import safe, tty_progress

group_app = typer.Typer(help="Groups of related repos: list, map a repo, suggest from your repo folders.", no_args_is_help=True, rich_markup_mode=None)
memory_app.add_typer(group_app, name="group")

Roots = Annotated[Optional[list[str]], typer.Option("--root", help="Folder to scan for git repos (repeatable; default vault.json roots, else ~/Github).")]
Yes = Annotated[bool, typer.Option("--yes", help="Accept every suggested group without asking.")]


def _review(suggestion) -> list:
    """Ask about each suggested group on a TTY: accept, edit the name, or skip."""
    from dataclasses import replace

    chosen = []
    for group in suggestion.groups:
        sys.stderr.write(f"\ngroup {group.name}: {group.reason}\n" + "".join(f"  - {r}\n" for r in group.repos))
        answer = typer.prompt("[a]ccept, [e]dit name, [s]kip", default="a", err=True).strip().lower()
        if answer.startswith("e"):
            group = replace(group, name=typer.prompt("group name", default=group.name, err=True).strip())
            chosen.append(group)
        elif answer.startswith("a"):
            chosen.append(group)
    return chosen


def _suggest_and_apply(context, roots, yes: bool, as_json: bool) -> dict:
    """Scan, show the suggestion, and write what was accepted (never without --yes or a TTY answer)."""
    from jacked_vault.groups.mapping import accept, suggest

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
    commit = accept(context, suggestion, chosen) if chosen or yes else None
    return {**suggestion.to_json(), "accepted": [g.name for g in chosen], "commit": commit}


def _render_suggestion(payload: dict) -> list[str]:
    lines = [f"scanned {', '.join(payload['roots'])}: {payload['repos_found']} repos"]
    if payload["missing_roots"]:
        lines.append(f"missing roots: {', '.join(payload['missing_roots'])}")
    if payload["truncated"]:
        lines.append("warning: the scan hit its depth or count bound; some repos may be missing")
    for error in payload["errors"]:
        lines.append(f"skipped {safe(error['path'])}: {safe(error['error'])}")
    considered = payload["considered"]
    for c in considered:
        if c["suggested"]:
            lines.append(f"suggested group {c['name']} ({c['reason']}): {', '.join(c['repos'])}")
    for c in considered:
        if not c["suggested"] and c["code"] != "single":
            lines.append(f"not grouped: {', '.join(c['repos'])} ({c['reason']})")
    alone = [r for c in considered if c["code"] == "single" for r in c["repos"]]
    if alone:
        lines.append(f"not grouped: {', '.join(alone)} (the only repo of its owner outside a prefix group: each stays a solo group)")
    if not payload["personal_handles"] and any(c["code"] == "owner" for c in considered):
        lines.append("if one of these owners is your own account, `git config --global github.user NAME` keeps its unrelated repos apart")
    for name in payload["accepted"]:
        lines.append(f"accepted group {name}")
    if payload["suggestions"] and not payload["accepted"]:
        lines.append("nothing written: accept with `--yes`, or map repos one by one with `jacked memory group map`")
    if not payload["suggestions"]:
        lines.append("no groups to suggest; every repo works on its own (solo group)")
    return lines


def _init_from(context, url: str, *, explicit: bool) -> tuple[dict, object]:
    """`init --from URL`: clone the shared vault, then offer this machine's hooks (never installed here)."""
    import shlex

    from jacked_vault.sync.clone import clone_vault

    done = clone_vault(url, context.vault_path)
    where = f" --vault {shlex.quote(str(done.store.root))}" if explicit else ""
    offers = [f"jacked memory hooks install --claude{where}", f"jacked memory hooks install --mcp claude --user{where}"]
    payload = {
        "path": str(done.store.root), "created": True, "commit": None, "groups": None, "from": done.url, "branch": done.branch,
        "head": done.head, "notes": done.notes, "machine_id": done.machine_id, "quarantined": done.quarantined, "next": offers,
    }  # fmt: skip

    def human() -> str:
        lines = [f"Cloned vault from {safe(done.url)} at {done.store.root} ({done.notes} notes, {done.branch} at {done.head[:10]})"]
        if done.quarantined:
            lines.append(f"quarantined {len(done.quarantined)} file(s) that failed the gate (see `jacked memory doctor`)")
        lines.append(f"optional on this machine: `{offers[0]}` (session hooks), `{offers[1]}` (MCP server)")
        return "\n".join(lines)

    return payload, human


@memory_app.command()
def init(
    ctx: typer.Context,
    root: Roots = None,
    yes: Yes = False,
    no_scan: Annotated[bool, typer.Option("--no-scan", help="Only create the vault; do not look for repos.")] = False,
    from_: Annotated[Optional[str], typer.Option("--from", metavar="URL", help="Clone the shared vault from URL (a second machine); no scan.")] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Create the vault (git repo, README, vault.json, .gitignore), then scan your repos and suggest groups."""
    from jacked_vault.write.init import init_vault

    def action():
        context = context_for(ctx, vault)
        if from_ is not None:
            return _init_from(context, from_, explicit=(vault or (ctx.obj or {}).get("vault")) is not None)
        result = init_vault(context.vault_path)
        payload = {"path": str(result.store.root), "created": result.created, "commit": result.commit, "groups": None}
        if not no_scan:
            payload["groups"] = _suggest_and_apply(context, root, yes, as_json)
        verb = "Initialised" if result.created else "Already initialised:"

        def human() -> str:
            lines = [f"{verb} vault at {result.store.root}"]
            if payload["groups"] is not None:
                lines += _render_suggestion(payload["groups"])
            return "\n".join(lines)

        return payload, human

    run("init", as_json, action)


@group_app.command("list")
def group_list(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Every group that is mapped or holds notes, with repo and note counts."""
    from jacked_vault.groups.mapping import list_groups

    def action():
        groups = list_groups(context_for(ctx, vault))

        def human() -> str:
            lines = [f"{g['name']}: {g['repo_count']} repo(s), {g['note_count']} note(s){'' if g['mapped'] else ' (solo)'}" for g in groups]
            return "\n".join(lines) or "no groups yet"

        return {"groups": groups}, human

    run("group", as_json, action)


@group_app.command("map")
def group_map(
    ctx: typer.Context,
    repo: Annotated[str, typer.Argument(help="A repo path or identity (github.com/owner/repo).")],
    group: Annotated[str, typer.Argument(help="The group (a slug).")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Map a repo to a group (moving it out of any other); a commit to vault.json."""
    from jacked_vault.groups.mapping import map_repo

    def action():
        mapped = map_repo(context_for(ctx, vault), repo, group)
        payload = {"repo": mapped.identity, "group": mapped.group, "previous": mapped.previous, "commit": mapped.commit}
        if mapped.commit is None:
            return payload, lambda: f"{mapped.identity} is already in group {mapped.group}"
        moved = f" (was {mapped.previous})" if mapped.previous else ""
        return payload, lambda: f"Mapped {mapped.identity} to group {mapped.group}{moved} [{mapped.commit[:10]}]"

    run("group", as_json, action)


@group_app.command("suggest")
def group_suggest(ctx: typer.Context, root: Roots = None, yes: Yes = False, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Scan repo folders again and suggest groups for repos not mapped yet."""

    def action():
        payload = _suggest_and_apply(context_for(ctx, vault), root, yes, as_json)
        return payload, lambda: "\n".join(_render_suggestion(payload))

    run("group", as_json, action)
