"""`memory_doctor` -> `doctor.doctor`, reduced to counts of what this harness may see
(the read policy's `visible_findings`): no paths, nothing about notes hidden from it."""

from typing import Any

from pydantic import ConfigDict, Field

from jacked_vault.errors import VaultError
from jacked_vault.mcp.tools.common import Scope, Session, StrictArguments

NAME = "memory_doctor"
CODE = "MEMORY_DOCTOR_FAILED"
READ_ONLY = True
WARNINGS = frozenset({"broken_link_count"})  # reported, but never make the vault unhealthy (doctor's warnings)
COUNTS = {  # the answer's count -> the report's findings it counts
    "invalid_file_count": ("invalid_files",),
    "duplicate_id_count": ("duplicate_ids",),
    "broken_link_count": ("broken_links",),
    "skipped_symlink_count": ("skipped_symlinks",),
    "uncommitted_count": ("uncommitted",),
    "audit_problem_count": ("audit_problems",),
    "derived_stale_count": ("derived_stale",),
    "git_problem_count": ("git_index_stale", "stale_git_locks", "git_problems"),
    "config_problem_count": ("config_problems",),
}
DESCRIPTION = """\
Check the vault's health: counts of notes, invalid files, duplicate ids, broken links,
symlinks, uncommitted files and audit problems. Counts only, no paths or contents; it
never changes anything. Fix problems with `jacked memory doctor` in a terminal."""


class Arguments(StrictArguments):
    model_config = ConfigDict(title=f"{NAME}Arguments")

    scopes: list[Scope] | None = Field(None, description="Scopes to check (default group and project).")


def call(session: Session, args: Arguments) -> dict[str, Any]:
    """Counts only: no paths, and note-level findings only for notes this harness can read by id."""
    from jacked_vault.doctor import doctor
    from jacked_vault.document.model import STATUSES
    from jacked_vault.search.policy import DEFAULT_SCOPES, visible_findings
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    wanted = frozenset(args.scopes) if args.scopes else DEFAULT_SCOPES
    if "user" in wanted:
        session.require_user_scope()
    by_id = Filters(
        scopes=wanted,
        target=session.settings.harness,
        statuses=STATUSES,
        any_time=True,
        limit=1 << 30,
        include_archived=True,
    )
    try:
        ctx = session.context()
        report = doctor(ctx)
        readable = search(ctx, "", by_id)  # every note it may read by id
    except VaultError as exc:
        raise session.refusal(CODE, exc) from None
    notes = [doc.to_json() for doc in readable.results if doc.tier == "note"]
    seen = visible_findings(report, wanted, notes)
    counts = {count: sum(len(seen[name]) for name in names) for count, names in COUNTS.items()}
    truncated = report.truncated or readable.diagnostics.truncated
    return {
        "schema": "jacked.mcp.doctor.v1",
        "ok": not truncated and not any(n for key, n in counts.items() if key not in WARNINGS),
        "scopes": sorted(wanted),
        "memory_count": len(notes),
        **counts,
        "truncated": truncated,
        "hint": "counts only; run `jacked memory doctor` in a terminal for details",
    }
