"""The vault at a glance, for a person (the review page's overview): notes counted by kind,
status and trust, and the notes added per week by where they came from; and what a page needs
to mark notes it names (targets, validity, titles of linked notes).

Everything is read from the search indexes of the stores this context sees (the vault, and the
cwd repo's project store), through the one read policy as a person reads (`EVERYTHING`: every
status, validity, target and scope). Quarantined files are not in the indexes, so they are never
counted; doctor names them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from jacked_vault.context import Context
from jacked_vault.search.policy import EVERYTHING, Viewer

if TYPE_CHECKING:
    from jacked_vault.search.entries import Diagnostics
    from jacked_vault.search.readmodel import ReadModel

T = TypeVar("T")

# Where a note came from, for the chart: a person (the CLI, a review edit), an agent (MCP save,
# the librarian, milestones), automatic capture (session end, pre-compact, merges), or an import.
SOURCES = ("person", "agent", "capture", "import")
SOURCE_OF_ORIGIN = {
    "cli": "person",
    "mcp": "agent",
    "librarian": "agent",
    "milestone": "agent",
    "session-end": "capture",
    "pre-compact": "capture",
    "post-merge": "capture",
    "migration": "import",
}
MAX_IDS = 500  # ids described in one call (a note links at most 64; a page lists at most 200 hits)


def _in_indexes(ctx: Context, ask: Callable[[ReadModel, str, list[Any]], T]) -> tuple[list[T], Diagnostics]:
    """`ask(index, where, params)` over each visible store's fresh index (read as a person); the
    answers and the diagnostics."""
    from jacked_vault.search.service import fresh_indexes

    indexes, diag = fresh_indexes(ctx)
    try:
        answers = []
        for index in indexes:
            where, params = EVERYTHING.where(index.read)
            answers.append(ask(index.read, where, params))
        return answers, diag
    finally:
        for index in indexes:
            index.close()


@dataclass(frozen=True)
class Overview:
    """Counts of every note a person may see, and notes added per week (Monday first) by source."""

    notes: int
    by_kind: dict[str, int]
    by_status: dict[str, int]
    by_trust: dict[str, int]
    expired: int  # active, but valid_until has passed
    # oldest first: {"week": "YYYY-MM-DD", "person": n, "agent": n, "capture": n, "import": n}
    weeks: list[dict[str, Any]]
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def candidates(self) -> int:
        return self.by_status.get("candidate", 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "notes": self.notes,
            "by_kind": self.by_kind,
            "by_status": self.by_status,
            "by_trust": self.by_trust,
            "expired": self.expired,
            "candidates": self.candidates,
            "weeks": self.weeks,
            "diagnostics": self.diagnostics,
        }

    def to_text(self) -> str:
        def counts(values: dict[str, int]) -> str:
            return ", ".join(f"{n} {name}" for name, n in values.items()) or "none"

        lines = [
            f"notes: {self.notes} ({self.candidates} candidate(s) waiting for review, {self.expired} expired)",
            f"by kind: {counts(self.by_kind)}",
            f"by status: {counts(self.by_status)}",
            f"by trust: {counts(self.by_trust)}",
        ]
        added = [w for w in self.weeks if any(w[s] for s in SOURCES)]
        lines += [f"week of {w['week']}: " + ", ".join(f"{w[s]} {s}" for s in SOURCES if w[s]) for w in added]
        return "\n".join(lines)


def week_of(day: date) -> date:
    """The Monday of `day`'s week."""
    return day - timedelta(days=day.weekday())


MIN_CHART_WEEKS = 4  # the chart's least span: a month, so one week of notes has context


def overview(ctx: Context, weeks: int = 26, now: datetime | None = None) -> Overview:
    """The counts, and the notes created in each week from the first with a note, at most
    `weeks` weeks back, to this one (at least MIN_CHART_WEEKS)."""
    now = now or datetime.now(UTC)
    first = week_of(now.date()) - timedelta(weeks=weeks - 1)
    since = f"{first.isoformat()}T00:00:00.000Z"
    today = now.strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def ask(index: ReadModel, where: str, params: list[Any]) -> tuple[dict[str, list[Any]], int, list[Any]]:
        db = index.db
        notes = f"FROM docs d WHERE d.tier='note' AND {where}"
        grouped = {
            column: db.execute(f"SELECT d.{column}, COUNT(*) {notes} GROUP BY d.{column}", params).fetchall()
            for column in ("kind", "status", "trust")
        }
        expired = db.execute(
            f"SELECT COUNT(*) {notes} AND d.status='active' AND d.valid_until IS NOT NULL AND d.valid_until <= ?",
            (*params, today),
        ).fetchone()[0]
        added = db.execute(
            f"SELECT substr(d.created_at, 1, 10), d.origin, COUNT(*) {notes} AND d.created_at >= ? GROUP BY 1, 2",
            (*params, since),
        ).fetchall()
        return grouped, expired, added

    answers, diag = _in_indexes(ctx, ask)
    totals: dict[str, dict[str, int]] = {"kind": {}, "status": {}, "trust": {}}
    expired = 0
    per_week = {(first + timedelta(weeks=n)).isoformat(): dict.fromkeys(SOURCES, 0) for n in range(weeks)}
    for grouped, store_expired, added in answers:
        for column, rows in grouped.items():
            for value, n in rows:
                totals[column][value] = totals[column].get(value, 0) + n
        expired += store_expired
        for day, origin, n in added:
            try:
                week = week_of(date.fromisoformat(day)).isoformat()
            except ValueError:
                continue
            if week in per_week:
                per_week[week][SOURCE_OF_ORIGIN.get(origin, "import")] += n

    def ordered(values: dict[str, int]) -> dict[str, int]:
        return dict(sorted(values.items(), key=lambda item: (-item[1], item[0])))

    return Overview(
        notes=sum(totals["status"].values()),
        by_kind=ordered(totals["kind"]),
        by_status=ordered(totals["status"]),
        by_trust=ordered(totals["trust"]),
        expired=expired,
        weeks=_from_first_notes([{"week": week, **counts} for week, counts in per_week.items()]),
        diagnostics=diag.to_json(),
    )


def _from_first_notes(weeks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The weeks (oldest first) from the first that has a note, keeping at least MIN_CHART_WEEKS."""
    first = next((n for n, week in enumerate(weeks) if any(week[s] for s in SOURCES)), len(weeks))
    return weeks[min(first, max(len(weeks) - MIN_CHART_WEEKS, 0)) :]


def describe(ctx: Context, ids: Iterable[object], viewer: Viewer = EVERYTHING) -> dict[str, dict[str, Any]]:
    """What a page shows of each note it names (a search hit, a link, a backlink), as `viewer` may
    see it: id -> {"title", "kind", "status", "trust", "scope", "group", "targets", "valid_from",
    "valid_until"}. An id no visible store holds (or one `viewer` may not see) is left out."""
    import json

    wanted = list(dict.fromkeys(i for i in ids if isinstance(i, str)))[:MAX_IDS]
    if not wanted:
        return {}
    from jacked_vault.search.service import fresh_indexes

    out: dict[str, dict[str, Any]] = {}
    indexes, _ = fresh_indexes(ctx)
    try:
        for index in indexes:
            where, params = viewer.where(index.read)
            marks = ",".join("?" * len(wanted))
            rows = index.db.execute(
                "SELECT d.id, d.title, d.kind, d.status, d.trust, d.scope, d.grp, d.targets, d.valid_from, "
                "d.valid_until"
                f" FROM docs d WHERE d.tier='note' AND d.id IN ({marks}) AND {where} ORDER BY d.path",
                (*wanted, *params),
            ).fetchall()
            for note_id, title, kind, status, trust, scope, group, targets, since, until in rows:
                out.setdefault(note_id, {
                    "title": title, "kind": kind, "status": status, "trust": trust, "scope": scope, "group": group,
                    "targets": json.loads(targets), "valid_from": since, "valid_until": until,
                })  # fmt: skip
    finally:
        for index in indexes:
            index.close()
    return out
