"""The librarian's drift counters, its nudge in the brief, and the record of its last run.

The librarian is a skill (`templates/librarian.md`, installed by `hooks/skills.py`) an agent runs
with a person to tidy the vault. Between runs the vault drifts; five counters, read from the
search index of the vault (no file is read), say how far:

- `added`: live notes (candidate or active) recorded since the librarian's last run;
- `duplicates`: of those, the ones repeating another live note's value (the normalised title
  and body that `write.create.duplicate_of` and the tombstones compare) in the same scope and
  group;
- `near_duplicates`: of those, the ones sharing a title (case aside) with another live note of
  other text in the same scope and group (what `add` warns about as `same_title`);
- `superseded`: superseded notes still outside archive/ (each a link of a supersede chain);
- `archivable`: notes closed (`document.lifecycle.closed_at`) longer than
  `settings.librarian.archive_after_days` ago, which `jacked memory librarian archive` moves;
- `stale_hot`: groups whose hot.md was last written more than `stale_hot_days` ago.

Each has a threshold in `settings.librarian` (vault.json, the machine config or
vault.local.json); when one is reached the brief carries one line suggesting the librarian.
The brief is a hot path, so its nudge counts each counter only up to its threshold, from
indexed rows (`_reached`: bounded work at any vault size; what a counter says past its threshold
is "at least"), and keeps the counts in the state file with what they were counted for (the
index's commit, the last run, the settings, the day): a brief after the first one since a
commit reads them back instead of querying (bench/bench_librarian.py). `jacked memory
librarian` counts exactly (`_count`, one pass over the live notes).
The last run is machine-local state (`.git/jacked/librarian.json`, written by
`jacked memory librarian done`): a run is this person's tidying, not a change to the vault (it
makes no commit, so no audit line); what it changed is in the vault's own history.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

from jacked_vault.context import Context
from jacked_vault.document import lifecycle, timestamps
from jacked_vault.document.timestamps import format_timestamp, parse_timestamp
from jacked_vault.store.layout import ARCHIVE_DIR
from jacked_vault.store.statefile import read_json, write_json

if TYPE_CHECKING:
    from jacked_vault.search.readmodel import ReadModel

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
LABELS = {
    "added": "note(s) added since its last run",
    "duplicates": "new note(s) repeating a live note's text",
    "near_duplicates": "new note(s) sharing a live note's title, other text",
    "superseded": "superseded note(s) not archived",
    "archivable": "note(s) closed long enough to archive",
    "stale_hot": "stale hot.md file(s)",
}


def settings(ctx: Context) -> dict[str, int]:
    """The thresholds and ages: `settings.librarian` (`Context.settings`) over DEFAULTS."""
    given = ctx.settings.librarian
    return {**DEFAULTS, **{k: v for k, v in given.items() if k in DEFAULTS}}


def archive_after_days(ctx: Context) -> int:
    return settings(ctx)["archive_after_days"]


def last_run(ctx: Context) -> str | None:
    """When `jacked memory librarian done` last recorded a run on this machine (None: never)."""

    found = (read_json(ctx.vault.state / STATE_FILE) or {}).get("last_run")
    try:
        return found if isinstance(found, str) and parse_timestamp(found) else None
    except (ValueError, TypeError):
        return None


def _ago(now: str, days: int) -> str:
    return format_timestamp(parse_timestamp(now) - timedelta(days=days))


class _Closed(NamedTuple):
    """A note that may be closed, as much of it as `lifecycle.archivable` reads."""

    path: str
    status: str
    updated_at: str
    valid_until: str | None


def archive_candidates(index: ReadModel, cutoff: str, limit: int | None = None) -> list[str]:
    """Paths of the notes outside archive/ closed at or before `cutoff` (the first `limit` of
    them when given): `lifecycle.archivable` asked of each superseded note and each active one
    whose `valid_until` is at or before it (the only ones `closed_at` can close); the archive
    confirms each on the committed file."""
    from itertools import islice

    columns = f"SELECT path, status, updated_at, valid_until FROM docs WHERE tier='note' AND root <> '{ARCHIVE_DIR}'"
    queries = (
        (f"{columns} AND status='superseded'", ()),
        (f"{columns} AND status='active' AND valid_until <= ?", (cutoff,)),
    )
    rows = (row for sql, args in queries for row in map(_Closed._make, index.db.execute(sql, args)))
    found = (row.path for row in rows if lifecycle.archivable(row, cutoff))
    return sorted(islice(found, limit)) if limit is not None else sorted(found)


def _count(index: ReadModel, conf: dict[str, int], since: str, now: str) -> dict[str, int]:
    """The counters: one pass over the live notes' value hash, title and group (a Python pass
    over ~10k short rows costs less than SQLite's correlated lookups for the same answer), one
    count of superseded notes, the archive candidates and one lookup of the hot.md files."""
    from collections import Counter, defaultdict

    from jacked_vault.search.wikilinks import title_name

    db = index.db
    rows = db.execute(
        "SELECT thash, title, scope, grp, created_at > ? FROM docs WHERE tier='note' AND status IN ('candidate', "
        f"'active') AND root <> '{ARCHIVE_DIR}'",
        (since,),
    ).fetchall()
    live = [
        (thash, (title_name(title), scope, grp), (thash, scope, grp), new) for thash, title, scope, grp, new in rows
    ]
    values = Counter(value for _, _, value, _ in live)
    titles: dict[tuple[str, str, str | None], set[str]] = defaultdict(set)
    for thash, named, _, _ in live:
        titles[named].add(thash)
    recent = [(named, value) for _, named, value, new in live if new]
    superseded = db.execute(
        f"SELECT COUNT(*) FROM docs WHERE tier='note' AND status='superseded' AND root <> '{ARCHIVE_DIR}'"
    ).fetchone()
    stale = _ago(now, conf["stale_hot_days"])
    hot = db.execute(
        "SELECT COUNT(*) FROM docs WHERE id >= 'hot_' AND id < 'hot`' AND tier='hot' AND updated_at < ?", (stale,)
    ).fetchone()
    return {
        "added": len(recent),
        "duplicates": sum(1 for _, value in recent if values[value] > 1),
        "near_duplicates": sum(1 for named, _ in recent if len(titles[named]) > 1),
        "superseded": int(superseded[0]),
        "archivable": len(archive_candidates(index, _ago(now, conf["archive_after_days"]))),
        "stale_hot": int(hot[0]),
    }


# The brief's nudge looks for duplicates among at most this many of the newest notes added since
# the last run (`librarian status` looks at all of them).
RECENT_WINDOW = 1000


def _live(alias: str = "") -> str:
    """SQL: the row (of table alias `alias`) is a live note outside archive/."""
    a = f"{alias}." if alias else ""
    return f"{a}tier='note' AND {a}status IN ('candidate', 'active') AND {a}root <> '{ARCHIVE_DIR}'"


def _reached(index: ReadModel, conf: dict[str, int], since: str, now: str) -> dict[str, int]:
    """The counters for the brief, each counted up to its threshold and no further, through the
    index's b-trees (updated_at, thash, note names, status), so the work is bounded by the
    thresholds and `RECENT_WINDOW`, not by the vault's size. A counter below its threshold is
    exact; one at it means "at least"."""
    db = index.db

    def upto(sql: str, cap: int, *args: object) -> int:
        return int(db.execute(f"SELECT COUNT(*) FROM ({sql} LIMIT ?)", (*args, max(cap, 0))).fetchone()[0])

    recent = (  # notes added since the last run: created after it, so also updated after it (the index's range)
        "SELECT rowid, thash, scope, grp FROM docs INDEXED BY docs_updated WHERE updated_at > ? AND created_at > ? "
        f"AND {_live()}"
        " ORDER BY updated_at DESC LIMIT ?"
    )
    window = (since, since, RECENT_WINDOW)
    twin = (
        "SELECT 1 FROM docs b WHERE b.thash = a.thash AND b.rowid <> a.rowid "
        f"AND b.scope IS a.scope AND b.grp IS a.grp AND {_live('b')}"
    )
    namesake = (
        "SELECT 1 FROM note_names na JOIN note_names nb ON nb.name = na.name AND nb.by_title = 1 AND nb.doc <> na.doc"
        f" JOIN docs b ON b.rowid = nb.doc WHERE na.doc = a.rowid AND na.by_title = 1 AND b.thash <> a.thash"
        f" AND b.scope IS a.scope AND b.grp IS a.grp AND {_live('b')}"
    )
    cutoff = _ago(now, conf["archive_after_days"])
    return {
        "added": upto(
            f"SELECT 1 FROM docs INDEXED BY docs_updated WHERE updated_at > ? AND created_at > ? AND {_live()}",
            conf["added"],
            since,
            since,
        ),
        "duplicates": upto(f"SELECT 1 FROM ({recent}) a WHERE EXISTS ({twin})", conf["duplicates"], *window),
        "near_duplicates": upto(
            f"SELECT 1 FROM ({recent}) a WHERE EXISTS ({namesake})", conf["near_duplicates"], *window
        ),
        "superseded": upto(
            f"SELECT 1 FROM docs WHERE status='superseded' AND tier='note' AND root <> '{ARCHIVE_DIR}'",
            conf["superseded"],
        ),
        "archivable": min(len(archive_candidates(index, cutoff, limit=conf["archivable"])), conf["archivable"]),
        "stale_hot": upto(
            "SELECT 1 FROM docs WHERE id >= 'hot_' AND id < 'hot`' AND tier='hot' AND updated_at < ?",
            conf["stale_hot"],
            _ago(now, conf["stale_hot_days"]),
        ),
    }


def counters(ctx: Context, index: ReadModel, now: str, *, bounded: bool = False) -> dict[str, int]:
    """The drift counters over the vault's index (`bounded`: each only up to its threshold, for
    the brief), read back from the state file when they were counted the same way for the same
    commit, last run, settings and day."""

    conf = settings(ctx)
    path = ctx.vault.state / STATE_FILE
    state = read_json(path) or {}
    since = last_run(ctx) or ""
    key = {"commit": index.commit, "last_run": since, "settings": conf, "day": now[:10], "bounded": bounded}
    kept = state.get("counted")
    if (
        isinstance(kept, dict)
        and kept.get("key") == key
        and isinstance(kept.get("counts"), dict)
        and set(kept["counts"]) == set(COUNTERS)
    ):
        return {name: int(kept["counts"][name]) for name in COUNTERS}
    counts = (_reached if bounded else _count)(index, conf, since, now)
    if index.commit is not None:
        with contextlib.suppress(OSError):  # a read-only cache: counted again next time
            write_json(path, {**state, "counted": {"key": key, "counts": counts}})
    return counts


def tripped(ctx: Context, counts: dict[str, int]) -> list[str]:
    """The counters at or over their threshold."""
    conf = settings(ctx)
    return [name for name in COUNTERS if counts[name] >= conf[name]]


def nudge(ctx: Context, index: ReadModel) -> list[str]:
    """The brief's one line suggesting the librarian when a counter reached its threshold (none
    otherwise). Counts only: no vault text is quoted in it."""

    counts = counters(ctx, index, timestamps.utc_now(), bounded=True)
    over = tripped(ctx, counts)
    if not over:
        return []
    said = ", ".join(f"{counts[name]}+ {LABELS[name]}" for name in over)  # counted up to the threshold: at least
    return [
        f"[librarian: {said}; the jacked-librarian skill tidies the vault with a person (`jacked memory librarian` "
        "shows why)]"
    ]


@dataclass
class LibrarianStatus:
    """`jacked memory librarian [status|done]`: the counters, their thresholds, the last run."""

    counts: dict[str, int]
    thresholds: dict[str, int]
    last_run: str | None
    recorded: str | None = None  # `done`: the run just recorded
    over: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
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
    from jacked_vault.search.index import open_fresh

    now = timestamps.utc_now()
    if done:
        write_json(ctx.vault.state / STATE_FILE, {"last_run": now})  # the counts kept for the previous run go with it
    index = open_fresh(ctx.vault)
    try:
        counts = counters(ctx, index.read, now)
    finally:
        index.close()
    return LibrarianStatus(counts, settings(ctx), last_run(ctx), now if done else None, tripped(ctx, counts))
