"""Note commands: status, add, handoff, read, search, log, doctor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from jacked_vault.cli.apps import (
    MAINTENANCE,
    NOTES,
    Body,
    BodyFile,
    Command,
    Group,
    Harness,
    JsonOpt,
    Stdin,
    VaultOpt,
    context_for,
    example,
    memory_app,
    outer_vault,
    run,
)
from jacked_vault.frontend import actions
from jacked_vault.frontend.actions import MAX_SEARCH_LIMIT
from jacked_vault.frontend.inputs import check_limit
from jacked_vault.frontend.output import tty_stages

if TYPE_CHECKING:
    from jacked_vault.render import Result

MAX_LOG_LIMIT = 10_000


# -- add, handoff ------------------------------------------------------------------------------


Title = Annotated[str, typer.Option("--title", metavar="TEXT", help="One line, 1 to 200 characters.")]
Tags = Annotated[
    list[str] | None, typer.Option("--tag", metavar="TAG", help="A tag (a slug like `search`); repeatable.")
]
Links = Annotated[list[str] | None, typer.Option("--link", metavar="ID", help="The id of a related note; repeatable.")]
DanglingOpt = Annotated[
    bool, typer.Option("--allow-dangling-link", help="Keep a --link to an id no store here holds (yet).")
]
Targets = Annotated[
    list[str] | None,
    typer.Option("--target", metavar="HARNESS", help="A harness this note is for (default: all); repeatable."),
]
Repos = Annotated[
    list[str] | None,
    typer.Option(
        "--repo", metavar="REPO", help="A repo identity the note is about (github.com/owner/repo); repeatable."
    ),
]
Scope = Annotated[
    str,
    typer.Option(
        "--scope", metavar="SCOPE", help="group (the default), user (every group) or project (this repo only)."
    ),
]
ValidFrom = Annotated[
    str | None,
    typer.Option("--valid-from", metavar="TIME", help="When the fact starts to hold (a date or ISO 8601 time)."),
]


@memory_app.command(
    cls=Command,
    rich_help_panel=NOTES,
    epilog=example(
        'jacked memory add --kind decision --title "Use SQLite FTS5 for search" --body "It ships with Python." --tag '
        "search",
        'git log -1 --format=%B | jacked memory add --title "Why we pinned typer" --stdin',
    ),
)
def add(
    ctx: typer.Context,
    title: Title,
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            metavar="KIND",
            help="decision, convention, vision, reference, progress, fact, handoff, lesson, note, preference, "
            "runbook or context.",
        ),
    ] = "note",
    body: Body = None,
    body_file: BodyFile = None,
    stdin: Stdin = False,
    scope: Scope = "group",
    group: Group = None,
    repo: Repos = None,
    tag: Tags = None,
    link: Links = None,
    supersedes: Annotated[
        list[str] | None, typer.Option("--supersedes", metavar="ID", help="The id of an active note this one replaces.")
    ] = None,
    target: Targets = None,
    harness: Harness = None,
    valid_from: ValidFrom = None,
    allow_rejected: Annotated[
        bool, typer.Option("--allow-rejected", help="Save it even though the same note was rejected before.")
    ] = False,
    allow_dangling_link: DanglingOpt = False,
    origin: Annotated[
        str,
        typer.Option("--origin", metavar="ORIGIN", help="cli, or milestone for a note a team's milestone skill saves."),
    ] = "cli",
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Add one note: checked, secret-scanned and committed.

    The note is validated and scanned for secrets, written create-only and committed with an
    audit line; the body comes from exactly one of --body, --body-file or --stdin.
    """
    run(ctx, as_json, lambda: actions.add(
        outer_vault(ctx), title=title, kind=kind, body=body, body_file=body_file, stdin=stdin, scope=scope, group=group,
        repo=repo, tag=tag, link=link, supersedes=supersedes, target=target, harness=harness, valid_from=valid_from,
        allow_rejected=allow_rejected,
        allow_dangling_link=allow_dangling_link, origin=origin, vault=vault,
    ))  # fmt: skip


@memory_app.command(
    cls=Command,
    rich_help_panel=NOTES,
    epilog=example(
        'jacked memory handoff --from claude --target codex --title "Finish the parser" --body "Tests in '
        'tests/test_parse.py fail on CRLF."'
    ),
)
def handoff(
    ctx: typer.Context,
    from_: Annotated[str, typer.Option("--from", metavar="HARNESS", help="The harness handing over.")],
    target: Annotated[
        list[str], typer.Option("--target", metavar="HARNESS", help="A harness taking over; repeatable.")
    ],
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
    """Leave a handoff note from one harness to others.

    A note of kind handoff, written as --from and addressed to the --target harnesses only.
    """
    run(ctx, as_json, lambda: actions.handoff(
        outer_vault(ctx), from_=from_, target=target, title=title, body=body, body_file=body_file, stdin=stdin,
        scope=scope, group=group, tag=tag, link=link, allow_dangling_link=allow_dangling_link, vault=vault,
    ))  # fmt: skip


# -- read, search, log -------------------------------------------------------------------------


@memory_app.command(
    cls=Command, rich_help_panel=NOTES, epilog=example("jacked memory read mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab")
)
def read(
    ctx: typer.Context,
    note_id: Annotated[str, typer.Argument(metavar="ID", help="A note id (mem_…), or any id search shows.")],
    target: Annotated[
        str | None,
        typer.Option("--target", metavar="HARNESS", help="Read as this harness (default $JACKED_MEMORY_HARNESS)."),
    ] = None,
    show_all: Annotated[
        bool,
        typer.Option(
            "--all", help="Also notes for other harnesses, and candidate, rejected, superseded or expired ones."
        ),
    ] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show one note by id, with its metadata and backlinks.

    Reads the committed version, and fails rather than answer from a partial scan.
    """
    run(
        ctx,
        as_json,
        lambda: actions.read(outer_vault(ctx), note_id=note_id, target=target, show_all=show_all, vault=vault),
    )


@memory_app.command(
    cls=Command,
    rich_help_panel=NOTES,
    epilog=example(
        "jacked memory search sqlite index", "jacked memory search --kind decision --tag search --limit 5 fts5"
    ),
)
def search(
    ctx: typer.Context,
    query: Annotated[
        list[str] | None, typer.Argument(metavar="WORDS", help="Words to look for (none: the newest notes).")
    ] = None,
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope", metavar="SCOPE", help="group, project or user; repeatable (user scope only when asked)."
        ),
    ] = None,
    group: Group = None,
    kind: Annotated[
        list[str] | None, typer.Option("--kind", metavar="KIND", help="Only this kind (decision, fact, …); repeatable.")
    ] = None,
    tag: Tags = None,
    repo: Annotated[
        str | None, typer.Option("--repo", metavar="REPO", help="Only notes about this repo identity.")
    ] = None,
    status_: Annotated[
        list[str] | None,
        typer.Option(
            "--status", metavar="STATUS", help="candidate, active, rejected or superseded; repeatable (default active)."
        ),
    ] = None,
    include_candidates: Annotated[bool, typer.Option("--include-candidates", help="Also candidate notes.")] = False,
    include_archived: Annotated[
        bool, typer.Option("--include-archived", help="Also notes the librarian moved to archive/.")
    ] = False,
    target: Annotated[
        str | None,
        typer.Option(
            "--target",
            metavar="HARNESS",
            help="Search as this harness (default $JACKED_MEMORY_HARNESS; none: as a person, every harness's notes).",
        ),
    ] = None,
    every_harness: Annotated[bool, typer.Option("--all", help="Notes for every harness.")] = False,
    as_of: Annotated[
        str | None, typer.Option("--as-of", metavar="TIME", help="Valid time: what held in the world then.")
    ] = None,
    known_at: Annotated[
        str | None, typer.Option("--known-at", metavar="TIME", help="Record time: what the vault knew then.")
    ] = None,
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            metavar="N",
            help=f"Show at most N hits, 1 to {MAX_SEARCH_LIMIT} (default 20).",
            show_default=False,
        ),
    ] = 20,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find notes by words, ranked (titles and tags weigh most).

    Covers every group and the current repo's project notes; filters narrow it down and an
    unknown filter value is an error, never an empty answer.
    """
    run(ctx, as_json, lambda: actions.search(
        outer_vault(ctx), query=query, scope=scope, group=group, kind=kind, tag=tag, repo=repo, status_=status_,
        include_candidates=include_candidates, include_archived=include_archived, target=target,
        every_harness=every_harness, as_of=as_of, known_at=known_at, limit=limit, vault=vault,
    ))  # fmt: skip


@memory_app.command(
    cls=Command,
    rich_help_panel=NOTES,
    epilog=example("jacked memory log --limit 10", "jacked memory log mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab"),
)
def log(
    ctx: typer.Context,
    note_id: Annotated[str | None, typer.Argument(metavar="ID", help="Only this note's history.")] = None,
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            metavar="N",
            help=f"Show at most N commits, 1 to {MAX_LOG_LIMIT} (default 50).",
            show_default=False,
        ),
    ] = 50,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the vault's history, or one note's.

    One line per commit, newest first: a note's create and every transition, marked with the
    note's status, targets and scope. A harness ($JACKED_MEMORY_HARNESS) sees only the commits
    of notes it may read; a person sees every one.
    """
    from jacked_vault.notes import note_history

    run(ctx, as_json, lambda: note_history(context_for(ctx, vault), note_id, check_limit(limit, MAX_LOG_LIMIT)))


# -- status, doctor ----------------------------------------------------------------------------


@memory_app.command(cls=Command, rich_help_panel=MAINTENANCE, epilog=example("jacked memory status"))
def status(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Show where the vault is and how it stands.

    The vault's path, head and note count, its remote (ahead, behind, diverged), the last
    sync, and the repo the current folder belongs to.
    """
    from jacked_vault.status import status as vault_status

    run(ctx, as_json, lambda: vault_status(context_for(ctx, vault)))


@memory_app.command(
    cls=Command, rich_help_panel=MAINTENANCE, epilog=example("jacked memory doctor", "jacked memory doctor --repair")
)
def doctor(
    ctx: typer.Context,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair", help="Commit valid files a crash left behind, set invalid ones aside (never deletes a note)."
        ),
    ] = False,
    reindex: Annotated[bool, typer.Option("--reindex", help="Rebuild the search index from scratch.")] = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Read and check every git object, and run git's own `git fsck` over the whole history (slower).",
        ),
    ] = False,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check the vault and say how to fix each problem.

    Invalid or uncommitted files, duplicate ids, symlinks, the audit log, git's state (every
    object of the current tree is there; with --full, each one read and checked, and the whole
    history) and vault.json; exits 1 when there is a problem (broken links are only warnings).
    """
    from jacked_vault.doctor import doctor as run_doctor

    def action() -> Result:
        stages = tty_stages()  # none while answering in JSON
        try:
            told = stages.stage if stages else None
            return run_doctor(context_for(ctx, vault), repair=repair, reindex=reindex, full=full, stages=told)
        finally:
            if stages is not None:
                stages.end()

    run(ctx, as_json, action)
