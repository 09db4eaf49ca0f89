"""Note commands: status, add, handoff, read, search, log, doctor."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer

from jacked_vault.cli.apps import Body, BodyFile, Group, Harness, JsonOpt, Stdin, VaultOpt, context_for, memory_app, read_text_input, run, time_option
from jacked_vault.cli.output import safe, tty_progress


# -- init, status ------------------------------------------------------------------------------


@memory_app.command()
def status(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Where the vault is, how many notes, remote state, and the repo you are in."""
    from jacked_vault.health import summary as health_summary
    from jacked_vault.status import status as vault_status

    def action():
        payload = vault_status(context_for(ctx, vault))

        def human() -> str:
            v = payload["vault"]
            lines = [f"vault: {v['path']}", f"head: {v['head'] or '(no commits)'}", f"notes: {v['notes']}"]
            if v["remote"]:
                lines.append(f"remote: {safe(v['remote'])} (ahead {v['ahead']}, behind {v['behind']})")
                if v["diverged"]:
                    lines.append("warning: the vault has diverged from its remote; run `jacked memory sync`")
            repo = payload["repo"]
            lines.append(f"repo: {repo['identity']} (group {repo['group']})" if repo else "repo: (not in a git repo)")
            lines.append(health_summary(payload["hooks"], payload["captures"]))
            return "\n".join(lines)

        return payload, human

    run("status", as_json, action)


# -- add, handoff ------------------------------------------------------------------------------


def _read_body(body: str | None, body_file: str | None, stdin: bool) -> str:
    from jacked_vault.document import MAX_BODY_BYTES

    return read_text_input(body, body_file, stdin, MAX_BODY_BYTES)


def _added(created) -> tuple[dict[str, Any], Callable[[], str]]:
    note = created.note
    payload = {"memory": note.frontmatter(), "path": created.display_path, "commit": created.commit}
    return payload, lambda: f"Added {note.kind} {safe(note.title)!r} ({note.id}) at {created.display_path} [{created.commit[:10]}]"


Title = Annotated[str, typer.Option("--title", help="One line, 1..200 characters.")]
Tags = Annotated[Optional[list[str]], typer.Option("--tag", help="Tag (slug); repeatable.")]
Links = Annotated[Optional[list[str]], typer.Option("--link", help="Id of a related note; repeatable.")]
DanglingOpt = Annotated[bool, typer.Option("--allow-dangling-link", help="Keep a --link to an id no store here holds (yet).")]
Targets = Annotated[Optional[list[str]], typer.Option("--target", help="Harness this note is for (default all); repeatable.")]
Repos = Annotated[Optional[list[str]], typer.Option("--repo", help="Repo identity the note is about; repeatable.")]
Scope = Annotated[str, typer.Option("--scope", help="group (default), user or project.")]
ValidFrom = Annotated[Optional[str], typer.Option("--valid-from", help="When the fact starts to hold (ISO 8601).")]


@memory_app.command()
def add(
    ctx: typer.Context,
    title: Title,
    kind: Annotated[str, typer.Option("--kind", help="decision, convention, fact, lesson, note, …")] = "note",
    body: Body = None,
    body_file: BodyFile = None,
    stdin: Stdin = False,
    scope: Scope = "group",
    group: Group = None,
    repo: Repos = None,
    tag: Tags = None,
    link: Links = None,
    supersedes: Annotated[Optional[list[str]], typer.Option("--supersedes", help="Id of the active note this replaces.")] = None,
    target: Targets = None,
    harness: Harness = None,
    valid_from: ValidFrom = None,
    allow_rejected: Annotated[bool, typer.Option("--allow-rejected", help="Save it even though the same note was rejected before.")] = False,
    allow_dangling_link: DanglingOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Add one note: validated, secret-scanned, written create-only and committed."""
    from jacked_vault.notes import AddRequest, add as add_note

    def action():
        context = context_for(ctx, vault)
        if harness:
            context.harness = harness
        request = AddRequest(
            title=title,
            body=_read_body(body, body_file, stdin),
            kind=kind,
            scope=scope,
            group=group,
            repos=tuple(repo or ()),
            tags=tuple(tag or ()),
            links=tuple(link or ()),
            supersedes=tuple(supersedes or ()),
            targets=tuple(target or ()),
            valid_from=time_option(valid_from, "--valid-from"),
            allow_rejected=allow_rejected,
            allow_dangling_links=allow_dangling_link,
        )
        return _added(add_note(context, request))

    run("add", as_json, action)


@memory_app.command()
def handoff(
    ctx: typer.Context,
    from_: Annotated[str, typer.Option("--from", help="The harness handing over.")],
    target: Annotated[list[str], typer.Option("--target", help="The harness(es) taking over; repeatable.")],
    title: Title,
    body: Body = None,
    body_file: BodyFile = None,
    stdin: Stdin = False,
    scope: Scope = "group",
    group: Group = None,
    tag: Tags = None,
    link: Links = None,
    allow_dangling_link: DanglingOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Leave a handoff note from one harness to others."""
    from jacked_vault.notes import AddRequest, add as add_note

    def action():
        context = context_for(ctx, vault)
        context.harness = from_
        request = AddRequest(
            title=title,
            body=_read_body(body, body_file, stdin),
            kind="handoff",
            scope=scope,
            group=group,
            tags=tuple(tag or ()),
            links=tuple(link or ()),
            targets=tuple(target),
            allow_dangling_links=allow_dangling_link,
        )
        return _added(add_note(context, request))

    run("add", as_json, action)


# -- read, search, log -------------------------------------------------------------------------


AllOpt = Annotated[
    bool, typer.Option("--all", help="Also notes for other harnesses (read: and candidate, rejected, superseded or expired ones).")
]


@memory_app.command()
def read(
    ctx: typer.Context,
    note_id: Annotated[str, typer.Argument(metavar="ID")],
    target: Annotated[Optional[str], typer.Option("--target", help="Read as this harness (default $JACKED_MEMORY_HARNESS).")] = None,
    show_all: AllOpt = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """One note by id: body, metadata and backlinks. Fails rather than answer from a partial scan."""
    from jacked_vault.notes import read as read_note
    from jacked_vault.search.policy import DEFAULT_SCOPES, EVERYTHING, reader

    def action():
        context = context_for(ctx, vault)
        viewer = EVERYTHING if show_all else reader(target or context.harness, scopes=DEFAULT_SCOPES | {"user"})
        result = read_note(context, note_id, viewer)
        note = result.note
        payload = {
            "memory": note.to_json(),
            "path": result.display_path,
            "backlinks": result.backlinks,
            "backlinks_truncated": result.backlinks_truncated,
        }

        def human() -> str:
            meta = note.frontmatter()
            lines = [f"# {safe(note.title)}", ""]
            for key in ("id", "kind", "scope", "group", "status", "source_harness", "tags", "links", "created_at", "updated_at"):
                lines.append(f"{key}: {safe(meta.get(key))}")
            trust = "reviewed (accepted by a person)" if note.trust == "reviewed" else "unreviewed (context, not instructions)"
            lines += [f"path: {result.display_path}", f"trust: {trust}", "", safe(note.body), ""]
            if result.backlinks:
                lines.append("backlinks:")
                lines += [f"  - {b['id']} {safe(b['title'])}" for b in result.backlinks]
                if result.backlinks_truncated:
                    lines.append("  … more backlinks not shown")
            return "\n".join(lines)

        return payload, human

    run("read", as_json, action)


@memory_app.command()
def search(
    ctx: typer.Context,
    query: Annotated[list[str], typer.Argument(help="Words to look for (none: newest notes).")] = None,  # type: ignore[assignment]
    scope: Annotated[Optional[list[str]], typer.Option("--scope", help="group, project, user; repeatable (user only when asked).")] = None,
    group: Group = None,
    kind: Annotated[Optional[list[str]], typer.Option("--kind", help="Kind; repeatable.")] = None,
    tag: Tags = None,
    repo: Annotated[Optional[str], typer.Option("--repo", help="Repo identity.")] = None,
    status_: Annotated[Optional[list[str]], typer.Option("--status", help="Status; repeatable (default active).")] = None,
    include_candidates: Annotated[bool, typer.Option("--include-candidates", help="Also candidate notes.")] = False,
    target: Annotated[Optional[str], typer.Option("--target", help="Search as this harness (default $JACKED_MEMORY_HARNESS; none: notes for all).")] = None,
    every_harness: Annotated[bool, typer.Option("--all", help="Notes for every harness.")] = False,
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Valid time: what held in the world at this time (ISO 8601).")] = None,
    known_at: Annotated[Optional[str], typer.Option("--known-at", help="Record time: what the vault knew at this time (ISO 8601).")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=200)] = 20,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Ranked full-text search (title and tags weigh more than body)."""
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search as run_search

    def action():
        statuses = tuple(status_ or ("active",)) + (("candidate",) if include_candidates else ())
        filters = Filters(
            scopes=frozenset(scope) if scope else None,
            group=group,
            kinds=tuple(kind or ()),
            tags=tuple(tag or ()),
            repo=repo,
            statuses=tuple(dict.fromkeys(statuses)),
            as_of=time_option(as_of, "--as-of"),
            known_at=time_option(known_at, "--known-at"),
            limit=limit,
        )
        context = context_for(ctx, vault)
        if not every_harness:
            filters.target = target or context.harness
        result = run_search(context, " ".join(query or []), filters)
        payload = {"results": [d.to_json() for d in result.results], "diagnostics": result.diagnostics.to_json()}

        def human() -> str:
            lines = []
            for n, doc in enumerate(result.results, 1):
                trust = f" · {doc.trust}" if doc.tier == "note" else ""
                lines.append(f"{n}. {safe(doc.title)}  [{doc.kind} · {doc.scope}:{doc.group or '-'} · {doc.tier}{trust}]  {doc.id}")
                if doc.excerpt:
                    lines.append(f"   {safe(doc.excerpt)}")
            if not lines:
                lines.append("no matches")
            d = result.diagnostics
            if not d.complete or d.skipped_symlinks:
                lines.append(
                    f"note: {len(d.invalid_files)} invalid file(s), {len(d.skipped_symlinks)} symlink(s) skipped"
                    f"{', scan truncated' if d.truncated else ''}; run `jacked memory doctor`"
                )
            return "\n".join(lines)

        return payload, human

    run("search", as_json, action)


@memory_app.command()
def log(
    ctx: typer.Context,
    note_id: Annotated[Optional[str], typer.Argument(metavar="[ID]", help="Only this note's history.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=10000)] = 50,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The vault's git history, or one note's (its create and every transition)."""
    from jacked_vault.recall.history import note_history

    def action():
        path, entries = note_history(context_for(ctx, vault), note_id, limit)
        payload = {"id": note_id, "path": path, "entries": entries}
        return payload, lambda: "\n".join(
            f"{e['commit'][:10]} {e['time']} {safe(e['summary'])}" for e in entries
        ) or "no history"

    run("log", as_json, action)


# -- doctor ------------------------------------------------------------------------------------


@memory_app.command()
def doctor(
    ctx: typer.Context,
    repair: Annotated[bool, typer.Option("--repair", help="Commit valid notes a crash left uncommitted (never deletes or rewrites).")] = False,
    reindex: Annotated[bool, typer.Option("--reindex", help="Rebuild the search index from scratch.")] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check the vault: invalid files, duplicate ids, broken links, symlinks, uncommitted notes, audit."""
    from jacked_vault.doctor import doctor as run_doctor

    problems: list[bool] = []

    def action():
        progress = tty_progress("indexing notes")
        report = run_doctor(context_for(ctx, vault), repair=repair, reindex=reindex, progress=progress)
        if progress is not None:
            sys.stderr.write("\n")
        payload = report.to_json()
        problems.append(not report.ok)

        def human() -> str:
            lines = [f"{report.memory_count} notes indexed" + (" (reindexed)" if reindex else "")]
            for label, items in (
                ("invalid files", report.invalid_files),
                ("duplicate ids", report.duplicate_ids),
                ("broken links", report.broken_links),
                ("skipped symlinks", report.skipped_symlinks),
                ("uncommitted", report.uncommitted),
                ("audit problems", report.audit_problems),
                ("repaired", report.repaired),
            ):
                if items:
                    lines.append(f"{label}: {len(items)}")
                    lines += [f"  - {safe(item)}" for item in items[:20]]
            if report.truncated:
                lines.append("warning: a scan hit its bounds; results are incomplete")
            lines.append("ok" if report.ok else "problems found")
            return "\n".join(lines)

        return payload, human

    run("doctor", as_json, action)
    if any(problems):
        raise typer.Exit(1)


