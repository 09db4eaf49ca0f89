"""What the hot commands do (add, handoff, read, search, brief, sync): option values in, a result out.

The typer commands (`cli.notes`, `cli.recall`) and the lean path (`cli.lean`) both call these,
so the two ways in run the same code. Each keyword is the typer parameter of the same name with
the same default (`tests/e2e/test_lean_cli.py` checks both). No typer here.
"""

from __future__ import annotations

from jacked_vault.frontend.inputs import check_limit, context_for_options, read_text_input, time_option
from jacked_vault.render import Result

MAX_SEARCH_LIMIT = 200
PERSON_ORIGINS = ("cli", "milestone")  # what `add --origin` may say: a person, or a team's milestone skill


def add(
    outer_vault: str | None,
    *,
    title: str,
    kind: str = "note",
    body: str | None = None,
    body_file: str | None = None,
    stdin: bool = False,
    scope: str = "group",
    group: str | None = None,
    repo: list[str] | None = None,
    tag: list[str] | None = None,
    link: list[str] | None = None,
    supersedes: list[str] | None = None,
    target: list[str] | None = None,
    harness: str | None = None,
    valid_from: str | None = None,
    allow_rejected: bool = False,
    allow_dangling_link: bool = False,
    origin: str = "cli",
    vault: str | None = None,
) -> Result:
    """`add`: one note, checked, secret-scanned and committed."""
    from jacked_vault.document import MAX_BODY_BYTES
    from jacked_vault.notes import AddRequest
    from jacked_vault.notes import add as add_note

    if origin not in PERSON_ORIGINS:
        from jacked_vault.errors import VaultError

        raise VaultError("USAGE", f"--origin: use one of {', '.join(PERSON_ORIGINS)}")
    context = context_for_options(outer_vault, vault)
    if harness:
        context.harness = harness
    request = AddRequest(
        title=title,
        body=read_text_input(body, body_file, stdin, MAX_BODY_BYTES),
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
        origin=origin,
    )
    return add_note(context, request)


def handoff(
    outer_vault: str | None,
    *,
    from_: str,
    target: list[str],
    title: str,
    body: str | None = None,
    body_file: str | None = None,
    stdin: bool = False,
    scope: str = "group",
    group: str | None = None,
    tag: list[str] | None = None,
    link: list[str] | None = None,
    allow_dangling_link: bool = False,
    vault: str | None = None,
) -> Result:
    """`handoff`: a note of kind handoff, written as `from_`, for the `target` harnesses only."""
    from jacked_vault.document import MAX_BODY_BYTES
    from jacked_vault.notes import AddRequest
    from jacked_vault.notes import add as add_note

    context = context_for_options(outer_vault, vault)
    context.harness = from_
    request = AddRequest(
        title=title,
        body=read_text_input(body, body_file, stdin, MAX_BODY_BYTES),
        kind="handoff",
        scope=scope,
        group=group,
        tags=tuple(tag or ()),
        links=tuple(link or ()),
        targets=tuple(target),
        allow_dangling_links=allow_dangling_link,
    )
    return add_note(context, request)


def read(
    outer_vault: str | None,
    *,
    note_id: str,
    target: str | None = None,
    show_all: bool = False,
    vault: str | None = None,
) -> Result:
    """`read`: one note by id, in any status or validity, as `target` (default: this harness; no
    harness: a person, who sees every target) sees it, or everything with `show_all`.

    User scope is read only when asked for, by the note's own id: a group or project note is read
    (backlinks included) without it, and only an id not found there is looked up in user scope."""
    from jacked_vault.errors import VaultError
    from jacked_vault.notes import read as read_note
    from jacked_vault.search.policy import DEFAULT_SCOPES, EVERYTHING, who_reads
    from jacked_vault.search.query import require_slug

    context = context_for_options(outer_vault, vault)
    harness = require_slug("target", target) if target is not None else context.harness
    if show_all:
        return read_note(context, note_id, EVERYTHING)
    try:
        return read_note(context, note_id, who_reads(harness, scopes=DEFAULT_SCOPES))
    except VaultError as exc:
        if exc.code != "NOT_FOUND":
            raise
    return read_note(context, note_id, who_reads(harness, scopes=DEFAULT_SCOPES | {"user"}))


def search(
    outer_vault: str | None,
    *,
    query: list[str] | None = None,
    scope: list[str] | None = None,
    group: str | None = None,
    kind: list[str] | None = None,
    tag: list[str] | None = None,
    repo: str | None = None,
    status_: list[str] | None = None,
    include_candidates: bool = False,
    include_archived: bool = False,
    target: str | None = None,
    every_harness: bool = False,
    as_of: str | None = None,
    known_at: str | None = None,
    limit: int = 20,
    vault: str | None = None,
) -> Result:
    """`search`: ranked notes matching the words, narrowed by the filters; read as `target`, else
    this harness, else as a person (every target, `search.policy.is_person`); with no hit, how many
    the narrowing filters hide."""
    from jacked_vault.search.policy import is_person
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search as run_search

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
        limit=check_limit(limit, MAX_SEARCH_LIMIT),
        include_archived=include_archived,
    )
    context = context_for_options(outer_vault, vault)
    if not every_harness:
        harness = target or context.harness
        filters.target = None if is_person(harness) else harness
    return run_search(context, " ".join(query or []), filters, hints=True)


def brief(
    outer_vault: str | None,
    *,
    cwd: str | None = None,
    budget: int = 1500,
    harness: str | None = None,
    vault: str | None = None,
) -> Result:
    """`brief`: what a new session should know about the repo at `cwd`, under `budget` tokens."""
    from jacked_vault.recall.brief import build_brief
    from jacked_vault.search.query import require_slug

    context = context_for_options(outer_vault, vault, cwd)
    if harness is not None:
        context.harness = require_slug("harness", harness)
    return build_brief(context, budget=budget)


def sync(outer_vault: str | None, *, accept_deletions: bool = False, vault: str | None = None) -> Result:
    """`sync`: fetch, integrate what arrives (judged by the gate), push."""
    from jacked_vault.frontend.output import tty_stages
    from jacked_vault.sync import sync as sync_vault

    stages = tty_stages()
    try:
        return sync_vault(
            context_for_options(outer_vault, vault), accept_deletions=accept_deletions,
            stages=stages.stage if stages else None,
        )  # fmt: skip
    finally:
        if stages:
            stages.end()
