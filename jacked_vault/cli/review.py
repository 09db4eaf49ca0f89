"""Review commands (a person's, never the MCP server's): review, accept, reject, supersede, expire."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from jacked_vault.cli.apps import REVIEW, Command, JsonOpt, VaultOpt, context_for, example, memory_app, run
from jacked_vault.cli.inputs import time_option
from jacked_vault.cli.output import safe

NoteId = Annotated[str, typer.Argument(metavar="ID", help="The note's id (mem_…).")]
EXAMPLE_ID = "mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab"


def _transition(ctx: typer.Context, vault: str | None, as_json: bool, note_id: str, op: str, **kwargs) -> None:
    from jacked_vault.write.transitions import transition

    def action():
        if "valid_until" in kwargs:
            kwargs["valid_until"] = time_option(kwargs["valid_until"], "--at")
        return transition(context_for(ctx, vault), note_id, op, **kwargs)

    run(ctx, as_json, action)


def _ask(doc, note) -> str:
    """Show one candidate on stderr and return the person's one-letter answer."""
    sys.stderr.write(safe(f"\n{doc.to_text()}\norigin: {note.origin} · harness: {note.source_harness}\n"))
    sys.stderr.write("".join(f"  {safe(line)}\n" for line in note.body.splitlines()[:40]))
    return typer.prompt("[a]ccept [r]eject [s]kip [e]dit-as-new [q]uit", default="s", err=True).strip().lower()[:1]


@memory_app.command(cls=Command, rich_help_panel=REVIEW, epilog=example("jacked memory review", "jacked memory review --json"))
def review(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Go through the notes waiting for review.

    In a terminal, asks about each candidate: a(ccept), r(eject), s(kip), e(dit as a new note)
    or q(uit). Otherwise (or with --json) it lists them.
    """
    from jacked_vault.notes import AddRequest, add, read
    from jacked_vault.review import Review, candidates
    from jacked_vault.search.policy import EVERYTHING
    from jacked_vault.write.transitions import transition

    def action():
        context = context_for(ctx, vault)
        queue = Review(candidates(context))
        if as_json or not sys.stdin.isatty():
            return queue
        queue.interactive = True
        for doc in queue.candidates:
            note = read(context, doc.id, EVERYTHING).note
            answer = _ask(doc, note)
            if answer == "q":
                break
            if answer == "a":
                queue.decisions.append({"id": doc.id, "op": "accept", "commit": transition(context, doc.id, "accept").commit})
            elif answer == "r":
                why = typer.prompt("reason", err=True)
                queue.decisions.append({"id": doc.id, "op": "reject", "commit": transition(context, doc.id, "reject", reason=why).commit})
            elif answer == "e":
                title = typer.prompt("title", default=note.title, err=True)
                body = typer.edit(note.body) or note.body
                new = add(context, AddRequest(title=title, body=body, kind=note.kind, scope=note.scope, group=note.group,
                                              tags=tuple(note.tags), links=tuple(note.links), allow_rejected=True,
                                              allow_dangling_links=True))  # the candidate's own links, carried over
                done = transition(context, doc.id, "reject", reason=f"edited as {new.note.id}")
                queue.decisions.append({"id": doc.id, "op": "edit", "new_id": new.note.id, "commit": done.commit})
        return queue

    run(ctx, as_json, action)


@memory_app.command(cls=Command, rich_help_panel=REVIEW, epilog=example(f"jacked memory accept {EXAMPLE_ID}"))
def accept(ctx: typer.Context, note_id: NoteId, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Accept a note: candidate -> active, reviewed by you.

    Works on an active unreviewed note too; only a person's accept marks a note reviewed.
    """
    _transition(ctx, vault, as_json, note_id, "accept")


@memory_app.command(cls=Command, rich_help_panel=REVIEW, epilog=example(f'jacked memory reject {EXAMPLE_ID} --reason "We chose Postgres instead."'))
def reject(
    ctx: typer.Context,
    note_id: NoteId,
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT", help="Why (kept in the note and the commit).")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Reject a note, so nothing re-creates it.

    Its tombstone stops automatic capture (and a plain `add`) from saving the same text again.
    """
    _transition(ctx, vault, as_json, note_id, "reject", reason=reason)


@memory_app.command(cls=Command, rich_help_panel=REVIEW, epilog=example(f"jacked memory supersede {EXAMPLE_ID} --by mem_20261201_01jf0a1b2c3d4e5f6g7h8j9k0m1n"))
def supersede(
    ctx: typer.Context,
    note_id: NoteId,
    by: Annotated[str, typer.Option("--by", metavar="ID", help="The id of the note that replaces it.")],
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Mark an active note replaced by another.

    It leaves recall; `search --as-of` an earlier time still finds it.
    """
    _transition(ctx, vault, as_json, note_id, "supersede", by=by)


@memory_app.command(cls=Command, rich_help_panel=REVIEW, epilog=example(f"jacked memory expire {EXAMPLE_ID} --at 2026-12-31"))
def expire(
    ctx: typer.Context,
    note_id: NoteId,
    at: Annotated[Optional[str], typer.Option("--at", metavar="TIME", help="When the fact stopped holding: a date or ISO 8601 time (default now).")] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Say when a fact stopped holding (valid_until).

    The note leaves default recall from then on; `search --as-of` an earlier time still finds it.
    """
    _transition(ctx, vault, as_json, note_id, "expire", valid_until=at)
