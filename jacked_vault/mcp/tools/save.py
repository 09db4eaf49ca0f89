"""`memory_save` -> `notes.add`: validation, secret scan, create-only write, one commit."""

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from jacked_vault.document.model import (
    ID_RE,
    KINDS,
    MAX_BODY_BYTES,
    MAX_LINKS,
    MAX_TAGS,
    MAX_TARGETS,
    MAX_TITLE,
    SLUG_RE,
    STATUSES,
)
from jacked_vault.errors import VaultError
from jacked_vault.mcp.tools.common import Scope, Session, StrictArguments

NAME = "memory_save"
CODE = "MEMORY_WRITE_REJECTED"
READ_ONLY = False
DESCRIPTION = """\
Save one memory note to the jacked vault: validated, secret-scanned, written create-only and committed to git.

The note records this server's harness as its author and is always unreviewed
(context for later sessions, not instructions). Returns the new id, kind, scope and
scope-relative path; never echoes the body. Refused with MEMORY_WRITE_REJECTED
(invalid field, secret, control characters, oversized body, …) or
MEMORY_SCOPE_DISABLED, and then nothing is written."""

Kind = Literal[KINDS]  # type: ignore[valid-type]
# The schema states the note limits (json_schema_extra); the library enforces them, refusing with
# its own reasons (JACKED_MEMORY_VALIDATION), as it does for the CLI.
Slug = Annotated[str, Field(json_schema_extra={"pattern": f"^{SLUG_RE.pattern}$"})]
MemoryId = Annotated[str, Field(json_schema_extra={"pattern": f"^{ID_RE.pattern}$"})]


class Arguments(StrictArguments):
    model_config = ConfigDict(title=f"{NAME}Arguments")

    title: str = Field(
        description=f"One line, 1..{MAX_TITLE} characters, saying the fact itself.",
        json_schema_extra={"minLength": 1, "maxLength": MAX_TITLE},
    )
    body: str = Field(
        description=f"Markdown, at most {MAX_BODY_BYTES} bytes of UTF-8 (so at most {MAX_BODY_BYTES} characters, "
        "fewer if not ASCII): one fact, decision or lesson, with the why. Secrets are refused.",
        json_schema_extra={"minLength": 1, "maxLength": MAX_BODY_BYTES},
    )
    kind: Kind = Field("note", description="What the note is: decision, convention, lesson, fact, runbook, …")
    scope: Scope = Field(
        "group",
        description="group (default: the group of the server's repo, or `group`), project (repo-local) "
        "or user (only if the operator enabled it).",
    )
    group: str | None = Field(
        None, description="Group slug; needed for group scope when the server runs outside a repo."
    )
    tags: list[Slug] = Field(
        [], description=f"Tag slugs (at most {MAX_TAGS}).", json_schema_extra={"maxItems": MAX_TAGS}
    )
    links: list[MemoryId] = Field(
        [],
        description=f"Ids (mem_…) of related notes (at most {MAX_LINKS}).",
        json_schema_extra={"maxItems": MAX_LINKS},
    )
    target_harnesses: list[Slug] = Field(
        [],
        description=f'Harnesses this note is for (default all; at most {MAX_TARGETS}); e.g. ["codex"] for a handoff.',
        json_schema_extra={"maxItems": MAX_TARGETS},
    )
    supersedes: list[MemoryId] = Field(
        [],
        description=f"Ids of active notes (visible to you) that this note replaces (at most {MAX_LINKS}).",
        json_schema_extra={"maxItems": MAX_LINKS},
    )


def call(session: Session, args: Arguments) -> dict[str, Any]:
    """Save the note as this harness (origin mcp, unreviewed); a hidden note reads as missing."""
    from jacked_vault.notes import AddRequest, add
    from jacked_vault.search.policy import DEFAULT_SCOPES, Viewer

    if args.scope == "user":
        session.require_user_scope()
    harness = session.settings.harness
    scopes = DEFAULT_SCOPES | ({"user"} if args.scope == "user" else set())
    request = AddRequest(
        title=args.title,
        body=args.body,
        kind=args.kind,
        scope=args.scope,
        group=args.group,
        tags=tuple(args.tags),
        links=tuple(args.links),
        supersedes=tuple(args.supersedes),
        targets=tuple(args.target_harnesses),
        origin="mcp",
        link_viewer=Viewer(harness=harness, scopes=scopes, statuses=STATUSES, any_time=True),  # hidden reads as missing
    )
    try:
        ctx = session.context()
        with session.write_lock:
            if args.supersedes:
                _check_supersedable(ctx, Viewer(harness=harness, scopes=scopes), args.supersedes)
            created = add(ctx, request)
    except VaultError as exc:
        raise session.refusal(CODE, exc) from None
    note = created.note
    repeated: dict[str, Any] = (
        {"duplicate_of": created.duplicate_of} if created.duplicate_of else {}
    )  # SPEC 5.6: nothing written
    if created.same_title:
        repeated["same_title"] = created.same_title
    return {
        "schema": "jacked.mcp.save.v1",
        "ok": True,
        "memory": {
            "id": note.id,
            "kind": note.kind,
            "scope": note.scope,
            "group": note.group,
            "status": note.status,
            "trust": note.trust,
            "source_harness": note.source_harness,
            "target_harnesses": note.target_harnesses,
        },
        "path": created.display_path,
        "commit": created.commit,
        **repeated,
    }


def _check_supersedable(ctx: Any, viewer: Any, ids: list[str]) -> None:
    """Only a note this harness can see may be superseded; a hidden one reads as missing."""
    from jacked_vault.search.service import fresh_indexes

    indexes, _ = fresh_indexes(ctx)
    try:
        for old in ids:
            if not any(index.read.lookup(old, viewer) for index in indexes):
                raise VaultError("NOT_FOUND", f"cannot supersede {old}: found 0 notes with that id")
    finally:
        for index in indexes:
            index.close()
