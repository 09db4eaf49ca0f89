"""The one read policy (SPEC 7): which indexed documents a reader may see.

Every recall surface (search, read, backlinks, brief, index.md, hot, the MCP tools) asks the
index through a `Viewer`, and `Viewer.where()` is the only place the rule is written. Visible
by default: status `active`, valid now (`valid_from <= now < valid_until`), addressed to the
reader's harness or to `all`, in a scope the reader may see. Quarantined files (invalid,
secret, tombstoned, misplaced) are never in the index's documents at all.

Two clocks (bi-temporal):
- `as_of` is valid time: what held in the world at T. A superseded note held until it was
  superseded (its `valid_until`, else the time of the supersede), so it answers for T before that.
- `known_at` is record time: what the vault knew at K. Notes recorded after K are unknown; a
  note whose last transition came after K is shown as it stood before it: a superseded note as
  active, a rejected one as a candidate, and a `valid_until` set after K is ignored. The index
  keeps only each note's current version, so the state before a transition is inferred this way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from jacked_vault.document.model import STATUSES, UNKNOWN_HARNESS

SCOPES = ("group", "project", "user")
DEFAULT_SCOPES = frozenset({"group", "project"})


def reader(harness: str | None, **kwargs) -> "Viewer":
    """The viewer for a reader who names a harness; an unknown one (no harness given) sees what
    every harness may see (notes for `all`), never another harness's notes."""
    if harness is None or harness == UNKNOWN_HARNESS:
        return Viewer(shared_only=True, **kwargs)
    return Viewer(harness=harness, **kwargs)


@dataclass(frozen=True)
class Viewer:
    """Who reads, and which documents they ask for."""

    harness: str | None = None  # the reading harness; None: a person asking for every harness
    scopes: frozenset[str] | None = None  # None: every scope
    statuses: tuple[str, ...] = ("active",)
    as_of: str | None = None  # valid time (default: now)
    known_at: str | None = None  # record time (default: now, everything recorded)
    shared_only: bool = False  # index.md: shared by every harness, so only notes for `all`
    any_time: bool = False  # no valid-time limit (counts of everything, the review queue)
    now: str | None = None  # the clock (default: the current time)

    def at_now(self) -> Viewer:
        """This viewer with its clock read (one `now` for every clause of one query)."""
        if self.now is not None:
            return self
        from jacked_vault.document.timestamps import utc_now

        return replace(self, now=utc_now())

    def where(self) -> tuple[str, list]:
        """SQL over `docs d`: the policy as a WHERE clause (`1` when nothing limits) and its params."""
        viewer = self.at_now()
        sql: list[str] = []
        params: list = []

        def add(fragment: str, *values: object) -> None:
            sql.append(fragment)
            params.extend(values)

        if viewer.scopes is not None:
            add(f"d.scope IN ({','.join('?' * len(viewer.scopes))})", *sorted(viewer.scopes))
        if viewer.shared_only:
            add("EXISTS (SELECT 1 FROM doc_targets t WHERE t.doc = d.rowid AND t.target = 'all')")
        elif viewer.harness:
            add("EXISTS (SELECT 1 FROM doc_targets t WHERE t.doc = d.rowid AND t.target IN (?, 'all'))", viewer.harness)
        known = viewer.known_at
        if known is not None:
            add("d.created_at <= ?", known)
        # The state the reader sees: the current one or, at a past record time, the one a later
        # transition replaced (inferred: see the module docstring). Without a record time the
        # plain columns are used (the CASE forms cost a third of a 10k-note count).
        if known is None:
            status, until, later_params = "d.status", "COALESCE(d.valid_until, CASE WHEN d.status = 'superseded' THEN d.updated_at END)", []
        else:
            later, later_params = "d.updated_at > ?", [known]
            status = (
                f"(CASE WHEN {later} AND d.status = 'superseded' THEN 'active'"
                f" WHEN {later} AND d.status = 'rejected' THEN 'candidate' ELSE d.status END)"
            )
            until = f"(CASE WHEN {later} THEN NULL ELSE COALESCE(d.valid_until, CASE WHEN d.status = 'superseded' THEN d.updated_at END) END)"
        statuses = list(viewer.statuses)
        if viewer.as_of is not None and "active" in statuses and "superseded" not in statuses:
            statuses.append("superseded")  # a superseded fact held until it was superseded
        if set(statuses) != set(STATUSES):
            add(f"{status} IN ({','.join('?' * len(statuses))})", *later_params * status.count("?"), *statuses)
        if not viewer.any_time:
            moment = viewer.as_of or viewer.now
            add(f"d.valid_from <= ? AND ({until} IS NULL OR {until} > ?)", moment, *later_params * (2 * until.count("?")), moment)
        return " AND ".join(sql) or "1", params


EVERYTHING = Viewer(statuses=STATUSES, any_time=True)  # a person asking for one note by its id
