"""Episodic commands: `rollup` (day files -> recent.md -> archive.md) and `migrate` (from `.remember/`)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from jacked_vault.cli.apps import JsonOpt, VaultOpt, context_for, memory_app, run
from jacked_vault.cli.output import safe, tty_progress
from jacked_vault.errors import VaultError


def _parse_day(text: str | None):
    from datetime import date

    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise VaultError("USAGE", "--today is not a date (YYYY-MM-DD)") from None


def _rollup_text(payload: dict) -> str:
    lines = []
    if payload["recovered"]:
        lines.append(f"put back {len(payload['recovered'])} file(s) an interrupted rollup had left uncommitted; rolling up again")
    for repo in payload["repos"]:
        parts = []
        if repo["rolled"]:
            parts.append(f"{len(repo['rolled'])} day(s) rolled into recent.md")
        if repo["empty"]:
            parts.append(f"{len(repo['empty'])} of them empty")
        if repo["archived"]:
            parts.append(f"{len(repo['archived'])} day(s) archived")
        if parts:
            lines.append(f"{repo['group']} {repo['repo']}: {', '.join(parts)}")
        for skip in repo["skipped"]:
            lines.append(f"  skipped {skip['file']}: {skip['reason']}")
    for skip in payload["skipped"]:
        lines.append(f"skipped {skip['path']}: {skip['reason']}")
    if payload["commit"]:
        lines.append(f"Rolled up as of {payload['today']} [{payload['commit'][:10]}]")
    else:
        lines.append(f"Nothing to roll up as of {payload['today']}")
    return safe("\n".join(lines))


@memory_app.command()
def rollup(
    ctx: typer.Context,
    group: Annotated[Optional[str], typer.Option("--group", help="Only this group (default: every group).")] = None,
    repo: Annotated[Optional[str], typer.Option("--repo", help="Only this repo identity (like github.com/acme/api).")] = None,
    today: Annotated[Optional[str], typer.Option("--today", help="The date to roll up to, YYYY-MM-DD (default: the local date).")] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Roll past day files into recent.md and week-old days into archive.md (deterministic, one commit)."""
    from jacked_vault.episodic.rollup import rollup as do_rollup

    def action():
        context = context_for(ctx, vault)
        result = do_rollup(context.vault, today=_parse_day(today), group=group, repo=repo, harness=context.harness, origin="cli")
        payload = result.to_json()
        return payload, lambda: _rollup_text(payload)

    run("rollup", as_json, action)


def _migrate_text(payload: dict) -> str:
    verb = "Would import" if payload["dry_run"] else "Imported"
    lines = [f"{'Plan: ' if payload['dry_run'] else ''}{payload['repo']} -> {payload['folder']}"]
    for source in payload["sources"]:
        note = f" ({source['reason']})" if source["reason"] else ""
        lines.append(f"source {source['path']}: {source['status']}{note}")
    for f in payload["files"]:
        counts = f"{f['entries']} entr{'y' if f['entries'] == 1 else 'ies'}"
        if f["sections"] is not None:
            counts += f", {f['sections']} section(s) for candidate notes"
        if f["action"] == "import":
            lines.append(f"  {f['source']} -> {f['target']}  [{counts} -> {f['written']}]")
        else:
            lines.append(f"  {f['source']}: {f['action']} ({f['reason']}{'; ' + counts if f['entries'] else ''})")
    for c in payload["candidates"]:
        where = f" -> {c['path']}" if c["path"] else ""
        reason = f" ({c['reason']})" if c["reason"] else ""
        action = "candidate" if c["action"] == "create" else c["action"]
        lines.append(f"  {action}: {c['title']}{where}{reason}")
    t = payload["totals"]
    lines.append(
        f"{verb} {t['files_imported']} file(s), {t['entries_written']} of {t['entries_source']} entries, "
        f"{t['candidates_created']} candidate note(s); {t['files_already_migrated']} already migrated, "
        f"{t['files_skipped']} skipped, {t['files_empty']} empty, {t['candidates_tombstoned']} tombstoned, "
        f"{t['candidates_invalid']} invalid"
    )
    if payload["commit"]:
        lines.append(f"[{payload['commit'][:10]}]")
    elif not payload["dry_run"]:
        lines.append("Nothing new to import; nothing was written.")
    return safe("\n".join(lines))


@memory_app.command()
def migrate(
    ctx: typer.Context,
    sources: Annotated[Optional[list[str]], typer.Option("--from", metavar="DIR", help="A .remember folder to import (repeatable; default <repo>/.remember and ~/.remember/<repo>).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan; write nothing.")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Import the remember plugin's .remember/ folders into this repo's episodic memory (read-only on the source)."""
    from jacked_vault.episodic.migrate import migrate as do_migrate

    def action():
        context = context_for(ctx, vault)
        progress = None if as_json else tty_progress("files read")
        try:
            result = do_migrate(context, sources, dry_run=dry_run, progress=progress)
        finally:
            if progress is not None:
                sys.stderr.write("\n")
        payload = result.to_json()
        return payload, lambda: _migrate_text(payload)

    run("migrate", as_json, action)
