"""The librarian's drift counters, its nudge in the brief, and the record of its last run.

The librarian is a skill (`templates/librarian.md`, installed by `hooks/skills.py`) an agent runs
with a person to tidy the vault. Between runs the vault drifts; five counters, read from the
search index of the vault with one query each (no file is read), say how far:

- `added`: live notes (candidate or active) recorded since the librarian's last run;
- `duplicates`: live notes repeating another's value (the normalised title and body that
  `write.create.duplicate_of` and the tombstones compare) in the same scope and group;
- `near_duplicates`: live notes sharing a title (ASCII case aside) with another of different
  text in the same scope and group (what `add` warns about as `same_title`);
- `superseded`: superseded notes still outside archive/ (each a link of a supersede chain);
- `archivable`: notes closed (`document.lifecycle.closed_at`) longer than
  `settings.librarian.archive_after_days` ago, which `jacked memory librarian archive` moves;
- `stale_hot`: groups whose hot.md was last written more than `stale_hot_days` ago.

Each has a threshold in `settings.librarian` (vault.json, the machine config or
vault.local.json); when one is reached the brief carries one line suggesting the librarian.
The last run is machine-local state (`.jacked/librarian.json`, written by
`jacked memory librarian done`): a run is this person's tidying, not a change to the vault (it
makes no commit, so no audit line); what it changed is in the vault's own history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from jacked_vault.context import Context
from jacked_vault.store.layout import ARCHIVE_DIR

STATE_FILE = "librarian.json"
DEFAULTS = {
    "added": 50,
    "duplicates": 1,
    "near_duplicates": 3,
    "superseded": 20,
    "archivable": 10,
    "stale_hot": 1,
    "stale_hot_days": 30,
    "archive_after_days": 90,
}
COUNTERS = ("added", "duplicates", "near_duplicates", "superseded", "archivable", "stale_hot")
_LIVE = f"d.tier='note' AND d.status IN ('candidate', 'active') AND d.root <> '{ARCHIVE_DIR}'"
LABELS = {
    "added": "note(s) added since its last run",
    "duplicates": "exact duplicate(s)",
    "near_duplicates": "near duplicate(s) (same title, other text)",
    "superseded": "superseded note(s) not archived",
    "archivable": "note(s) closed long enough to archive",
    "stale_hot": "stale hot.md file(s)",
}


def settings(ctx: Context) -> dict:
    """The thresholds and ages: `settings.librarian` over DEFAULTS."""
    given = (ctx.config.get("settings") or {}).get("librarian") or {}
    return {**DEFAULTS, **{k: v for k, v in given.items() if k in DEFAULTS}}


def archive_after_days(ctx: Context) -> int:
    return settings(ctx)["archive_after_days"]


def last_run(ctx: Context) -> str | None:
    """When `jacked memory librarian done` last recorded a run on this machine (None: never)."""
    from jacked_vault.document.timestamps import parse_timestamp
    from jacked_vault.store.statefile import read_json

    found = (read_json(ctx.vault.cache / STATE_FILE) or {}).get("last_run")
    try:
        return found if isinstance(found, str) and parse_timestamp(found) else None
    except (ValueError, TypeError):
        return None


def _ago(now: str, days: int) -> str:
    from jacked_vault.document.timestamps import format_timestamp, parse_timestamp

    return format_timestamp(parse_timestamp(now) - timedelta(days=days))


def archive_candidates(index, cutoff: str) -> list[str]:
    """Paths of the notes outside archive/ that may be closed at or before `cutoff` (the SQL
    mirror of `lifecycle.closed_at`; the caller confirms each with `lifecycle.archivable`)."""
    rows = index.db.execute(
        f"SELECT d.path FROM docs d WHERE d.tier='note' AND d.root <> '{ARCHIVE_DIR}' AND ("
        "(d.status='superseded' AND COALESCE(d.valid_until, d.updated_at) <= ?)"
        " OR (d.status='active' AND d.valid_until IS NOT NULL AND d.valid_until <= ?)) ORDER BY d.path",
        (cutoff, cutoff),
    )
    return [path for (path,) in rows]


def counters(ctx: Context, index, now: str) -> dict[str, int]:
    """The drift counters over the vault's index (one query each)."""
    conf = settings(ctx)
    since = last_run(ctx) or ""
    db = index.db

    def one(sql: str, *params) -> int:
        return int(db.execute(sql, params).fetchone()[0] or 0)

    return {
        "added": one(f"SELECT COUNT(*) FROM docs d WHERE {_LIVE} AND d.created_at > ?", since),
        "duplicates": one(f"SELECT SUM(n - 1) FROM (SELECT COUNT(*) AS n FROM docs d WHERE {_LIVE} GROUP BY d.thash, d.scope, d.grp HAVING n > 1)"),
        "near_duplicates": one(
            f"SELECT SUM(n) FROM (SELECT COUNT(DISTINCT d.thash) AS n FROM docs d WHERE {_LIVE}"
            " GROUP BY lower(d.title), d.scope, d.grp HAVING n > 1)"
        ),
        "superseded": one(f"SELECT COUNT(*) FROM docs d WHERE d.tier='note' AND d.status='superseded' AND d.root <> '{ARCHIVE_DIR}'"),
        "archivable": len(archive_candidates(index, _ago(now, conf["archive_after_days"]))),
        "stale_hot": one("SELECT COUNT(*) FROM docs d WHERE d.tier='hot' AND d.updated_at < ?", _ago(now, conf["stale_hot_days"])),
    }


def tripped(ctx: Context, counts: dict[str, int]) -> list[str]:
    """The counters at or over their threshold."""
    conf = settings(ctx)
    return [name for name in COUNTERS if counts[name] >= conf[name]]


def nudge(ctx: Context, index) -> list[str]:
    """The brief's one line suggesting the librarian when a counter reached its threshold (none
    otherwise). Counts only: no vault text is quoted in it."""
    from jacked_vault.document.timestamps import utc_now

    counts = counters(ctx, index, utc_now())
    over = tripped(ctx, counts)
    if not over:
        return []
    said = ", ".join(f"{counts[name]} {LABELS[name]}" for name in over)
    return [f"[librarian: {said}; the jacked-librarian skill tidies the vault with a person (`jacked memory librarian` shows why)]"]


@dataclass
class LibrarianStatus:
    """`jacked memory librarian [status|done]`: the counters, their thresholds, the last run."""

    counts: dict[str, int]
    thresholds: dict[str, int]
    last_run: str | None
    recorded: str | None = None  # `done`: the run just recorded
    over: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "counters": self.counts,
            "thresholds": {name: self.thresholds[name] for name in COUNTERS},
            "archive_after_days": self.thresholds["archive_after_days"],
            "stale_hot_days": self.thresholds["stale_hot_days"],
            "over": self.over,
            "last_run": self.last_run,
            "recorded": self.recorded,
        }

    def to_text(self) -> str:
        lines = [f"librarian: run recorded at {self.recorded}; counting from now"] if self.recorded else []
        lines.append(f"last run on this machine: {self.last_run or 'never'}")
        for name in COUNTERS:
            mark = "  <- over its threshold" if name in self.over else ""
            lines.append(f"  {LABELS[name]}: {self.counts[name]} (threshold {self.thresholds[name]}){mark}")
        lines.append(
            "the brief suggests the librarian while a counter is over its threshold (settings.librarian);"
            if self.over else "no counter is over its threshold: the brief says nothing"
        )  # fmt: skip
        if self.over:
            lines.append("run the jacked-librarian skill with a person, then `jacked memory librarian done`")
        return "\n".join(lines)


def librarian_status(ctx: Context, *, done: bool = False) -> LibrarianStatus:
    """The counters now; with `done`, first record a librarian run at this moment (machine-local)."""
    from jacked_vault.document.timestamps import utc_now
    from jacked_vault.search.index import open_fresh
    from jacked_vault.store.statefile import write_json

    now = utc_now()
    if done:
        write_json(ctx.vault.cache / STATE_FILE, {"last_run": now})
    index = open_fresh(ctx.vault)
    try:
        counts = counters(ctx, index, now)
    finally:
        index.close()
    return LibrarianStatus(counts, settings(ctx), last_run(ctx), now if done else None, tripped(ctx, counts))
