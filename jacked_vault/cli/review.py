"""Review commands (a person's, never the MCP server's): review, accept, reject, supersede, expire, forget."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jacked_vault.cli.apps import REVIEW, Command, JsonOpt, VaultOpt, context_for, example, memory_app, run
from jacked_vault.errors import VaultError
from jacked_vault.frontend.inputs import time_option
from jacked_vault.frontend.output import safe

if TYPE_CHECKING:
    from jacked_vault.context import Context
    from jacked_vault.document.model import Note
    from jacked_vault.render import Result
    from jacked_vault.search.entries import Doc

NoteId = Annotated[str, typer.Argument(metavar="ID", help="The note's id (mem_…).")]
EXAMPLE_ID = "mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab"


def _transition(
    ctx: typer.Context, vault: str | None, as_json: bool, note_id: str, op: str, **kwargs: str | None
) -> None:
    from jacked_vault.write.transitions import transition

    def action() -> Result:
        if "valid_until" in kwargs:
            kwargs["valid_until"] = time_option(kwargs["valid_until"], "--at")
        return transition(context_for(ctx, vault), note_id, op, **kwargs)

    run(ctx, as_json, action)


REVIEW_ANSWERS = {"a": "accept", "r": "reject", "s": "skip", "e": "edit|edit-as-new", "q": "quit"}


def _ask(doc: Doc, note: Note) -> str:
    """Show one candidate on stderr and return the person's answer: one of REVIEW_ANSWERS' keys."""
    from jacked_vault.cli.prompts import choose

    sys.stderr.write(safe(f"\n{doc.to_text()}\norigin: {note.origin} · harness: {note.source_harness}\n"))
    sys.stderr.write("".join(f"  {safe(line)}\n" for line in note.body.splitlines()[:40]))
    return choose("[a]ccept [r]eject [s]kip [e]dit-as-new [q]uit", REVIEW_ANSWERS, default="s")


def _decide(context: Context, doc: Doc, note: Note, answer: str) -> dict[str, Any] | None:
    """Carry out one answer about a candidate; the decision made (None: skipped)."""
    from jacked_vault.cli.prompts import ask, edit_text
    from jacked_vault.write.transitions import edit_as_new, transition

    if answer == "a":
        return {"id": doc.id, "op": "accept", "commit": transition(context, doc.id, "accept").commit}
    if answer == "r":
        why = ask("reason", required=True)
        return {"id": doc.id, "op": "reject", "commit": transition(context, doc.id, "reject", reason=why).commit}
    if answer == "e":
        title = ask("title", default=note.title, required=True)
        body = edit_text(note.body)
        if body is None:
            raise VaultError("USAGE", "the edited text is empty; nothing was written")
        done = edit_as_new(context, doc.id, title=title, body=body)
        return {"id": doc.id, "op": "edit", "new_id": done.new_id, "commit": done.commit}
    return None


@memory_app.command(
    cls=Command, rich_help_panel=REVIEW, epilog=example("jacked memory review", "jacked memory review --json")
)
def review(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Go through the notes waiting for review.

    In a terminal, asks about each candidate: a(ccept), r(eject), s(kip), e(dit as a new note
    in $EDITOR: the new note and the reject of the candidate in one commit) or q(uit).
    Otherwise (or with --json) it lists them.
    """
    from jacked_vault.notes import read
    from jacked_vault.review import Review, candidates
    from jacked_vault.search.policy import EVERYTHING

    def action() -> Result:
        context = context_for(ctx, vault)
        queue = Review(candidates(context))
        if as_json or not sys.stdin.isatty():
            return queue
        queue.interactive = True
        for doc in queue.candidates:
            note = read(context, doc.id, EVERYTHING).note
            assert note is not None, "a candidate is a note (only derived files have none)"
            while True:  # a refused decision (a secret in an edit, an unchanged edit) asks again
                answer = _ask(doc, note)
                if answer == "q":
                    return queue
                try:
                    decision = _decide(context, doc, note, answer)
                except VaultError as exc:
                    sys.stderr.write(f"error: {safe(exc.message)} [{exc.full_code}]\n")
                    continue
                if decision is not None:
                    queue.decisions.append(decision)
                break
        return queue

    run(ctx, as_json, action)


@memory_app.command(cls=Command, rich_help_panel=REVIEW, epilog=example(f"jacked memory accept {EXAMPLE_ID}"))
def accept(ctx: typer.Context, note_id: NoteId, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Accept a note: candidate -> active, reviewed by you.

    Works on an active unreviewed note too; only a person's accept marks a note reviewed.
    """
    _transition(ctx, vault, as_json, note_id, "accept")


@memory_app.command(
    cls=Command,
    rich_help_panel=REVIEW,
    epilog=example(f'jacked memory reject {EXAMPLE_ID} --reason "We chose Postgres instead."'),
)
def reject(
    ctx: typer.Context,
    note_id: NoteId,
    reason: Annotated[
        str | None, typer.Option("--reason", metavar="TEXT", help="Why, required (kept in the note and the commit).")
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Reject a note, so nothing re-creates it.

    Its tombstone stops automatic capture (and a plain `add`) from saving the same text again.
    """
    _transition(ctx, vault, as_json, note_id, "reject", reason=reason)


@memory_app.command(
    cls=Command,
    rich_help_panel=REVIEW,
    epilog=example(f"jacked memory supersede {EXAMPLE_ID} --by mem_20261201_01jf0a1b2c3d4e5f6g7h8j9k0m1n"),
)
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


@memory_app.command(
    cls=Command, rich_help_panel=REVIEW, epilog=example(f"jacked memory expire {EXAMPLE_ID} --at 2026-12-31")
)
def expire(
    ctx: typer.Context,
    note_id: NoteId,
    at: Annotated[
        str | None,
        typer.Option(
            "--at", metavar="TIME", help="When the fact stopped holding: a date or ISO 8601 time (default now)."
        ),
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Say when a fact stopped holding (valid_until).

    The note leaves default recall from then on; `search --as-of` an earlier time still finds it.
    """
    _transition(ctx, vault, as_json, note_id, "expire", valid_until=at)


@memory_app.command(
    cls=Command,
    rich_help_panel=REVIEW,
    epilog=example(f"jacked memory forget {EXAMPLE_ID}", f"jacked memory forget {EXAMPLE_ID} --json"),
)
def forget(ctx: typer.Context, note_id: NoteId, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Delete a note that should never have been saved.

    For a password or other text the secret scanner did not know. One commit removes its file and
    tombstones its value, so nothing saves it again; other machines apply it when they sync.
    `reject` keeps the text, `forget` removes it. Git history still holds it: the answer says how
    to purge it with git's own tools (never run by jacked).
    """
    from jacked_vault.write.forget import forget as forget_note

    run(ctx, as_json, lambda: forget_note(context_for(ctx, vault), note_id))


@memory_app.command(
    cls=Command,
    rich_help_panel=REVIEW,
    epilog=example("jacked memory signing", "jacked memory signing --add ~/team/ada.pub --add ~/team/bo.pub"),
)
def signing(
    ctx: typer.Context,
    add: Annotated[
        list[str] | None,
        typer.Option(
            "--add", metavar="KEY", help="A teammate's ssh public key: a .pub file, or the key's line; repeatable."
        ),
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Sign your reviews, and trust your team's keys: one step.

    Uses the ssh key your git signs with (else your ~/.ssh/id_ed25519): adds it, and each --add key,
    to this machine's allowed-signers file, names that file in the machine config
    (review.allowed_signers) and has git sign the vault's accepts and forgets with your key. From
    then on only accepts git verifies against those keys count as reviewed here, and an unsigned
    accept or forget arriving by sync is quarantined. Each teammate runs it with the others' keys.
    """
    from jacked_vault.hooks.signing import setup_signing

    run(ctx, as_json, lambda: setup_signing(context_for(ctx, vault).vault.root, add or ()))
