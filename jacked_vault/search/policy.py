"""The one read policy (SPEC 7): which indexed documents a reader may see.

Every recall surface (search, read, backlinks, brief, index.md, hot, log, the MCP tools) asks the
index through a `Viewer`, and `Viewer.where()` is the only place the rule is written. Visible
by default: status `active`, valid now (`valid_from <= now < valid_until`), addressed to the
reader's harness or to `all`, in a scope the reader may see, not archived (moved to `archive/`
by the librarian: found only when asked, `--include-archived`). Asking for another status looks
at the notes of that status whatever their validity; a read by id (`Viewer.by_id`) shows the
note in any status or validity, archived or not. Quarantined files (invalid,
secret, tombstoned, misplaced) are never in the index's documents at all.
`visible_findings` applies the rule to doctor's findings (the MCP doctor's counts).

Two clocks (bi-temporal):
- `as_of` is valid time: what held in the world at T. A superseded note held until it was
  superseded (its `valid_until`, else the time of the supersede), so it answers for T before that.
- `known_at` is record time: what the vault knew at K. Notes recorded after K are unknown; a
  note changed after K is judged (and shown) as the version git held at K: its status and
  validity then, or unknown if the vault did not hold it (`search/record_time.py` reads them
  into a table on the index's connection, so `where` needs the index for a `known_at` view).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from jacked_vault.document import timestamps
from jacked_vault.document.model import STATUSES, UNKNOWN_HARNESS
from jacked_vault.store.layout import ARCHIVE_DIR, Store


class Asked(Protocol):
    """What the policy needs of the index it renders SQL for (search.readmodel.ReadModel)."""

    store: Store
    foreign_stones: bool

    @property
    def db(self) -> sqlite3.Connection: ...

    @property
    def commit(self) -> str | None: ...


SCOPES = ("group", "project", "user")
FOREIGN_STONES = "foreign_stones"  # a connection's TEMP table: values rejected in the other stores read with this one
DEFAULT_SCOPES = frozenset({"group", "project"})


def is_person(harness: str | None) -> bool:
    """SPEC 7, who reads: a reader at the CLI who names no harness (no `--target`/`--harness`, no
    `$JACKED_MEMORY_HARNESS`) is a person, who sees every target, each marked with its targets."""
    return harness is None or harness == UNKNOWN_HARNESS


def reader(harness: str | None, **kwargs: Any) -> Viewer:
    """The viewer for a reader who names a harness; an unknown one (no harness given) sees what
    every harness may see (notes for `all`), never another harness's notes."""
    if is_person(harness):
        return Viewer(shared_only=True, **kwargs)
    return Viewer(harness=harness, **kwargs)


def who_reads(harness: str | None, **kwargs: Any) -> Viewer:
    """A reader at the CLI (SPEC 7, who reads): a harness sees notes for it or `all`; a person
    (`is_person`) sees every target."""
    if is_person(harness):
        return Viewer(**kwargs)
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
    archived: bool = False  # also notes the librarian moved to archive/ (`--include-archived`, a read by id)

    def at_now(self) -> Viewer:
        """This viewer with its clock read (one `now` for every clause of one query)."""
        if self.now is not None:
            return self

        return replace(self, now=timestamps.utc_now())

    def by_id(self) -> Viewer:
        """This reader asking for one note by its id (SPEC 7: read by id is explicit): the note in
        any status or validity, shown with them; its targets and scopes still decide."""
        return replace(self, statuses=STATUSES, any_time=True, as_of=None, archived=True)

    def every_target(self) -> Viewer:
        """This viewer without its harness limit: is a note it misses there for another harness?"""
        return replace(self, harness=None, shared_only=False)

    def where(self, index: Asked | None = None) -> tuple[str, list[Any]]:
        """SQL over `docs d`: the policy as a WHERE clause (`1` when nothing limits) and its params.
        `index` is the one asked: a value rejected in another store read with it is hidden
        (`ReadModel.hide_rejected_elsewhere`), and with `known_at` the states at that time are
        loaded into it."""
        viewer = self.at_now()
        sql: list[str] = []
        params: list[Any] = []

        def add(fragment: str, *values: object) -> None:
            sql.append(fragment)
            params.extend(values)

        if not viewer.archived:
            add("d.root <> ?", ARCHIVE_DIR)  # search/index.py: an archived note's root is archive/
        if viewer.scopes is not None:
            add(f"d.scope IN ({','.join('?' * len(viewer.scopes))})", *sorted(viewer.scopes))
        if index is not None and index.foreign_stones:
            from jacked_vault.store.tombstones import blocks_sql

            forgotten = f"d.thash IN (SELECT hash FROM temp.{FOREIGN_STONES} WHERE forgotten)"
            add(f"NOT (d.thash IN (SELECT hash FROM temp.{FOREIGN_STONES}) AND {blocks_sql('d', forgotten)})")
        if viewer.shared_only:
            add("EXISTS (SELECT 1 FROM doc_targets t WHERE t.doc = d.rowid AND t.target = 'all')")
        elif viewer.harness:
            add("EXISTS (SELECT 1 FROM doc_targets t WHERE t.doc = d.rowid AND t.target IN (?, 'all'))", viewer.harness)
        known = viewer.known_at
        if known is None:
            state, state_params = viewer._state("d")
            if viewer.archived:  # an archived note is closed (superseded or expired): asked for, it is found as it is
                state, state_params = f"(d.root = ? OR ({state}))", [ARCHIVE_DIR, *state_params]
            add(state, *state_params)
        else:
            from jacked_vault.search import record_time

            if index is None:
                raise ValueError("a known_at view reads git history: pass the index to where()")
            record_time.load(index, known)
            (now, now_params), (then, then_params) = viewer._state("d"), viewer._state("k")
            add("d.created_at <= ?", known)
            add(
                f"((d.updated_at <= ? AND {now}) OR (d.updated_at > ?"
                f" AND EXISTS (SELECT 1 FROM {record_time.TABLE} k WHERE k.doc = d.rowid AND {then})))",
                known, *now_params, known, *then_params,
            )  # fmt: skip
        return " AND ".join(sql) or "1", params

    def _state(self, table: str) -> tuple[str, list[Any]]:
        """Status and valid time over `table`'s columns: the index's current version (`d`) or a
        version from git at the record time (`k`)."""
        sql: list[str] = []
        params: list[Any] = []
        statuses = list(self.statuses)
        if self.as_of is not None and "active" in statuses and "superseded" not in statuses:
            statuses.append("superseded")  # a superseded fact held until it was superseded
        if set(statuses) != set(STATUSES):
            sql.append(f"{table}.status IN ({','.join('?' * len(statuses))})")
            params += statuses
        if not self.any_time:
            moment = self.as_of or self.now
            until = (
                f"COALESCE({table}.valid_until, CASE WHEN {table}.status = 'superseded' THEN {table}.updated_at END)"
            )
            window = f"{table}.valid_from <= ? AND ({until} IS NULL OR {until} > ?)"
            # Asking for a status (`--status superseded`) looks at the notes of that status whatever
            # their validity: only active ones must hold now. `as_of` keeps asking about valid time.
            timeless = [] if self.as_of is not None else [s for s in statuses if s != "active"]
            if timeless:
                window = f"({table}.status IN ({','.join('?' * len(timeless))}) OR ({window}))"
                params += timeless
            sql.append(window)
            params += [moment, moment]
        return " AND ".join(sql) or "1", params

    def status_column(self) -> str:
        """SQL for the status a reader sees: the current one, or at `known_at` the one then
        (after `where(index)` has loaded the states)."""
        if self.known_at is None:
            return "d.status"
        from jacked_vault.search.record_time import TABLE

        return f"COALESCE((SELECT k.status FROM {TABLE} k WHERE k.doc = d.rowid), d.status)"


EVERYTHING = Viewer(statuses=STATUSES, any_time=True, archived=True)  # a person asking for one note by its id


# Doctor's findings, by what they are about: a display path (`<scope>:<path>`, or a dict holding
# one as `path`) or a note id. Config problems are about the machine and shown to every reader.
PATH_FINDINGS = (
    "invalid_files", "skipped_symlinks", "uncommitted", "derived_stale",
    "git_index_stale", "stale_git_locks", "git_problems",
)  # fmt: skip
NOTE_FINDINGS = ("duplicate_ids", "broken_links")


def visible_findings(
    report: Any, scopes: frozenset[str], readable: Iterable[Mapping[str, Any]]
) -> dict[str, list[Any]]:
    """The findings of a doctor report (doctor.report.Report) that a harness reading `scopes` may be
    told of, by report field: a finding about a note only if it may read that note by id
    (`readable`: those notes' `id` and display `path`), one about a file only in its scopes (a
    `vault:` path belongs to the group and user stores), a broken audit chain only in its scopes."""
    notes = list(readable)
    ids = {note["id"] for note in notes}
    paths = {note["path"] for note in notes}

    def in_scopes(path: str) -> bool:
        label = path.split(":", 1)[0]
        if label in SCOPES:
            return label in scopes
        if label == "vault":
            return bool(scopes & {"group", "user"})
        return True

    def path_of(finding: Any) -> str:
        return finding.get("path", "") if isinstance(finding, dict) else finding

    def audit_visible(problem: dict[str, Any]) -> bool:
        path = problem.get("path", "")
        if path.split(":", 1)[-1].startswith("audit/"):
            return in_scopes(path)  # a broken audit chain: about the log, not one note
        return path in paths

    seen = {name: [f for f in getattr(report, name) if in_scopes(path_of(f))] for name in PATH_FINDINGS}
    seen.update({name: [f for f in getattr(report, name) if f.get("id") in ids] for name in NOTE_FINDINGS})
    seen["audit_problems"] = [a for a in report.audit_problems if audit_visible(a)]
    seen["config_problems"] = list(report.config_problems)
    return seen
