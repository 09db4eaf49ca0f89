"""`memory_doctor` -> `doctor.doctor`, reduced to counts of what this harness may see
(the read policy's `visible_findings`): no paths, nothing about notes hidden from it."""

from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field

from jacked_vault.document.model import STATUSES
from jacked_vault.errors import VaultError
from jacked_vault.mcp.tools.common import Scope, Session, StrictArguments

if TYPE_CHECKING:
    from jacked_vault.context import Context
    from jacked_vault.doctor.report import Report
    from jacked_vault.search.entries import Diagnostics
    from jacked_vault.search.query import Filters

NAME = "memory_doctor"
CODE = "MEMORY_DOCTOR_FAILED"
READ_ONLY = True
CHUNK = 500  # ids or paths asked of the index in one statement
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
    """Counts only: no paths, and note-level findings only for notes this harness can read by id.
    Bounded by what doctor found, not by the vault: the readable notes are counted in SQL, and
    only those a finding names are read (never a row per note)."""
    from jacked_vault.doctor import doctor
    from jacked_vault.search.policy import DEFAULT_SCOPES, visible_findings
    from jacked_vault.search.query import Filters

    wanted = frozenset(args.scopes) if args.scopes else DEFAULT_SCOPES
    if "user" in wanted:
        session.require_user_scope()
    by_id = Filters(scopes=wanted, target=session.settings.harness, statuses=STATUSES, any_time=True,
                    include_archived=True)  # fmt: skip
    try:
        by_id.check()
        ctx = session.context()
        report = doctor(ctx)
        memory_count, named, diagnostics = _readable(ctx, by_id, report)
    except VaultError as exc:
        raise session.refusal(CODE, exc) from None
    seen = visible_findings(report, wanted, named)
    counts = {count: sum(len(seen[name]) for name in names) for count, names in COUNTS.items()}
    truncated = report.truncated or diagnostics.truncated
    return {
        "schema": "jacked.mcp.doctor.v1",
        "ok": not truncated and not any(n for key, n in counts.items() if key not in WARNINGS),
        "scopes": sorted(wanted),
        "memory_count": memory_count,
        **counts,
        "truncated": truncated,
        "hint": "counts only; run `jacked memory doctor` in a terminal for details",
    }


def _readable(ctx: "Context", by_id: "Filters", report: "Report") -> tuple[int, list[dict[str, str]], "Diagnostics"]:
    """How many notes `by_id` may read (every visible store), and the `id` and display `path` of
    those among them that a finding of `report` names (by id, or by path for an audit problem)."""
    from jacked_vault.search.policy import NOTE_FINDINGS
    from jacked_vault.search.service import fresh_indexes

    ids = sorted({f.get("id") for name in NOTE_FINDINGS for f in getattr(report, name) if f.get("id")})
    paths = sorted({p["path"] for p in report.audit_problems if p.get("path")})
    count = 0
    named: list[dict[str, str]] = []
    indexes, diagnostics = fresh_indexes(ctx)
    try:
        for index in indexes:
            where, params = by_id.where(index.read)
            notes = f"FROM docs d WHERE d.tier='note' AND {where}"
            count += index.db.execute(f"SELECT COUNT(*) {notes}", params).fetchone()[0]
            for column, values in (("d.id", ids), ("d.scope || ':' || d.path", paths)):
                for start in range(0, len(values), CHUNK):
                    chunk = values[start : start + CHUNK]
                    rows = index.db.execute(
                        f"SELECT d.id, d.scope, d.path {notes} AND {column} IN ({','.join('?' * len(chunk))})",
                        (*params, *chunk),
                    )
                    named += [{"id": note_id, "path": f"{scope}:{rel}"} for note_id, scope, rel in rows]
    finally:
        for index in indexes:
            index.close()
    return count, named, diagnostics
