"""Review commands (a person's, never the MCP server's): review, accept, reject, supersede, expire."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from jacked_vault.cli.apps import JsonOpt, VaultOpt, context_for, memory_app, run, time_option
from jacked_vault.cli.output import safe

NoteId = Annotated[str, typer.Argument(metavar="ID")]


def _transition(ctx: typer.Context, vault: str | None, as_json: bool, note_id: str, op: str, **kwargs) -> None:
    from jacked_vault.write.transitions import transition

    def action():
        done = transition(context_for(ctx, vault), note_id, op, **kwargs)
        payload = {
            "id": done.id,
            "op": done.op,
            "status": done.status,
            "trust": done.trust,
            "valid_until": done.valid_until,
            "path": done.path,
            "commit": done.commit,
            "quarantined": done.quarantined,
        }
        state = f"valid until {done.valid_until}" if op == "expire" else done.status + (", reviewed" if op == "accept" else "")
        kept = f"\nthe hand-edited working copy was kept in .jacked/quarantine/{done.quarantined[0]}" if done.quarantined else ""
        return payload, lambda: f"{op}: {safe(done.title)} ({done.id}) is now {state} [{done.commit[:10]}]{kept}"

    run("review", as_json, action)


@memory_app.command()
def accept(ctx: typer.Context, note_id: NoteId, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Accept a candidate note (candidate -> active)."""
    _transition(ctx, vault, as_json, note_id, "accept")


@memory_app.command()
def reject(
    ctx: typer.Context,
    note_id: NoteId,
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the note and the commit).")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Reject a note; its tombstone stops automatic capture from re-creating it."""
    _transition(ctx, vault, as_json, note_id, "reject", reason=reason)


@memory_app.command()
def supersede(
    ctx: typer.Context,
    note_id: NoteId,
    by: Annotated[str, typer.Option("--by", help="The id of the note that replaces it.")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Mark an active note superseded by another."""
    _transition(ctx, vault, as_json, note_id, "supersede", by=by)


@memory_app.command()
def expire(
    ctx: typer.Context,
    note_id: NoteId,
    at: Annotated[Optional[str], typer.Option("--at", help="When the fact stopped holding (default now).")] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Set when a fact stopped holding (valid_until); searches --as-of later times skip it."""
    _transition(ctx, vault, as_json, note_id, "expire", valid_until=time_option(at, "--at"))


def _show(doc, body: str) -> None:
    sys.stderr.write(f"\n{safe(doc.title)}  [{doc.kind} · {doc.scope}:{doc.group or '-'}]  {doc.id}\n")
    sys.stderr.write("".join(f"  {safe(line)}\n" for line in body.splitlines()[:40]))


@memory_app.command()
def review(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Go through candidate notes: a/accept, r/reject, s/skip, e/edit-as-new, q/quit (--json lists them)."""
    from jacked_vault.notes import AddRequest, add, read
    from jacked_vault.search.policy import EVERYTHING
    from jacked_vault.review import candidates
    from jacked_vault.write.transitions import transition

    def action():
        context = context_for(ctx, vault)
        queue = candidates(context)
        listed = [d.to_json() for d in queue]
        if as_json or not sys.stdin.isatty():
            return {"candidates": listed, "decisions": []}, lambda: "\n".join(
                f"{d['id']}  {safe(d['title'])}  [{d['kind']} · {d['path']}]" for d in listed
            ) or "no candidates to review"
        decisions = []
        for doc in queue:
            note = read(context, doc.id, EVERYTHING).note
            _show(doc, f"origin: {note.origin} · harness: {note.source_harness}\n{note.body}")
            answer = typer.prompt("[a]ccept [r]eject [s]kip [e]dit-as-new [q]uit", default="s", err=True).strip().lower()[:1]
            if answer == "q":
                break
            if answer == "a":
                decisions.append({"id": doc.id, "op": "accept", "commit": transition(context, doc.id, "accept").commit})
            elif answer == "r":
                why = typer.prompt("reason", err=True)
                decisions.append({"id": doc.id, "op": "reject", "commit": transition(context, doc.id, "reject", reason=why).commit})
            elif answer == "e":
                title = typer.prompt("title", default=note.title, err=True)
                body = typer.edit(note.body) or note.body
                new = add(context, AddRequest(title=title, body=body, kind=note.kind, scope=note.scope, group=note.group,
                                              tags=tuple(note.tags), links=tuple(note.links), allow_rejected=True,
                                              allow_dangling_links=True))  # the candidate's own links, carried over
                done = transition(context, doc.id, "reject", reason=f"edited as {new.note.id}")
                decisions.append({"id": doc.id, "op": "edit", "new_id": new.note.id, "commit": done.commit})
        return {"candidates": listed, "decisions": decisions}, lambda: f"{len(decisions)} decision(s) recorded"

    run("review", as_json, action)
