"""What the search index answers: typed reads of one store's index file (the notes a reader may
see, their links, values and problems), for search, read, recall, doctor and the write path.

`ReadModel` owns the connection (search/schema.py makes the file) and reads only: what puts rows
in is the mirror of git (`search.index.SearchIndex`, which holds one as `index.read` and writes
through its connection)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from jacked_vault.search import wikilinks
from jacked_vault.search.entries import Diagnostics, Doc
from jacked_vault.search.policy import Viewer
from jacked_vault.search.query import COLUMNS, Filters, run_search
from jacked_vault.search.schema import INDEX_DB, connect, meta, rows_in
from jacked_vault.store.layout import USER_SCOPE_DIR, Store, classify_note

if TYPE_CHECKING:
    from jacked_vault.document.ids import ShortId
    from jacked_vault.store.tombstones import Stones
    from jacked_vault.store.trust import Provenance, Verdict

# How many active notes link to the note `d` (its id's links, by the links_dst index).
_INBOUND = "(SELECT COUNT(*) FROM links l JOIN docs s ON s.rowid = l.src WHERE l.dst = d.id AND s.status = 'active')"


class ReadModel:
    """The reads of one store's index file (opened on first use)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = store.state / INDEX_DB
        self._db: sqlite3.Connection | None = None
        self.foreign_stones = False  # values rejected in other stores are hidden (`hide_rejected_elsewhere`)

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._connect()
        return self._db

    def _connect(self) -> sqlite3.Connection:
        return connect(self.store, self.path)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def meta(self, key: str) -> str | None:
        return meta(self.db, key)

    @property
    def commit(self) -> str | None:
        """The commit this index mirrors."""
        return self.meta("commit")

    def stones(self) -> Stones:
        """What this store's tombstones say: every tombstoned value, and which were forgotten."""
        from jacked_vault.store.tombstones import Stones

        return Stones.of_sources(self.db.execute("SELECT hash, source FROM tombstones"))

    def hide_rejected_elsewhere(self, stones: Stones) -> None:
        """Hide, for the queries of this connection, the live notes holding a value rejected in
        another store read with this one, and every note holding a value forgotten there (SPEC
        5.3: one rejection holds in every store)."""
        from jacked_vault.search.policy import FOREIGN_STONES

        db = self.db
        db.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {FOREIGN_STONES}(hash TEXT PRIMARY KEY, forgotten INTEGER NOT NULL)"
        )
        db.execute(f"DELETE FROM temp.{FOREIGN_STONES}")
        db.executemany(
            f"INSERT OR IGNORE INTO temp.{FOREIGN_STONES}(hash, forgotten) VALUES(?, ?)",
            [(h, int(h in stones.forgotten)) for h in stones.values | stones.forgotten],
        )
        self.foreign_stones = bool(stones)

    def notes_with_value(self, value_hash: str) -> list[tuple[str, str]]:
        """(path, id) of the notes, in any status, whose normalised title and body hash to
        `value_hash` (what holds a value's text: `forget` takes it back from each)."""
        return list(
            self.db.execute("SELECT path, id FROM docs WHERE thash=? AND tier='note' ORDER BY path", (value_hash,))
        )

    def live_with_value(self, value_hash: str) -> list[str]:
        """Paths of the candidate and active notes whose normalised title and body hash to `value_hash`."""
        rows = self.db.execute(
            "SELECT path FROM docs WHERE thash=? AND tier='note' AND status IN ('candidate', 'active') ORDER BY path",
            (value_hash,),
        )
        return [path for (path,) in rows]

    def rejected_at(self, value_hash: str) -> str | None:
        """When the latest rejected note holding this value (normalised title and body hash) was
        rejected (its `updated_at`), or None when no rejected note holds it."""
        row = self.db.execute(
            "SELECT MAX(updated_at) FROM docs WHERE thash=? AND tier='note' AND status='rejected'", (value_hash,)
        ).fetchone()
        return row[0] if row else None

    def live_in_place(
        self,
        scope: str,
        group: str | None,
        targets: list[str],
        now: str,
        *,
        value_hash: str | None = None,
        title: str | None = None,
    ) -> list[Doc]:
        """Candidate and active notes not expired at `now`, of one scope and group and for exactly
        these target harnesses, holding this value (normalised title and body hash) or carrying
        this title (ASCII case aside): what a create there would repeat (write/create.py)."""
        same = "d.thash = ?" if value_hash is not None else "d.title = ? COLLATE NOCASE"
        wanted = sorted(set(targets))
        marks = ",".join("?" * len(wanted))
        rows = self.db.execute(
            f"SELECT {COLUMNS} FROM docs d WHERE d.tier='note' AND d.status IN ('candidate', 'active') AND d.scope = "
            "? AND d.grp IS ?"
            f" AND (d.valid_until IS NULL OR d.valid_until > ?) AND {same}"
            " AND (SELECT COUNT(*) FROM doc_targets t WHERE t.doc = d.rowid) = ?"
            f" AND NOT EXISTS (SELECT 1 FROM doc_targets t WHERE t.doc = d.rowid AND t.target NOT IN ({marks}))"
            " ORDER BY d.created_at, d.id",
            (scope, group, now, value_hash if value_hash is not None else title, len(wanted), *wanted),
        )  # fmt: skip
        return [self.doc(row) for row in rows]

    def review_counts(self) -> dict[str, int]:
        """How the notes whose files claim `reviewed` stand here: counted, by provenance (`here`,
        `verified`, `machine`: another machine's unsigned accept this machine trusts), and not
        counted (`not_counted`: an accept that does not count here; `unproven`: no accept at all)."""
        from jacked_vault.store.trust import Verdict

        counts = dict.fromkeys(("here", "verified", "machine", "not_counted", "unproven"), 0)
        for trust, provenance, n in self.db.execute(
            "SELECT trust, json_extract(review, '$.provenance'), COUNT(*) FROM docs WHERE tier='note' AND "
            "claim='reviewed' GROUP BY 1, 2"
        ):
            counted = Verdict(trust, "reviewed").reviewed  # the owner says what counts (store/trust.py)
            key = provenance if counted else "not_counted" if provenance else "unproven"
            counts[key] += n
        return counts

    def unproven_reviews(self) -> list[tuple[str, str, Provenance | None]]:
        """(path, id, the accept behind it if any) of every note whose file claims `reviewed` with
        no accept behind it that counts here."""
        from jacked_vault.store.trust import Verdict

        rows = self.db.execute(
            "SELECT path, id, trust, claim, review FROM docs WHERE claim='reviewed' AND trust<>'reviewed' ORDER BY path"
        )
        return [(path, note_id, Verdict.from_row(*verdict).review) for path, note_id, *verdict in rows]

    def count(self, status: str | None = None) -> int:
        """Number of indexed notes (derived files such as hot.md not counted), of one status if given."""
        if status is None:
            return self.db.execute("SELECT COUNT(*) FROM docs WHERE tier='note'").fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM docs WHERE tier='note' AND status=?", (status,)).fetchone()[0]

    def group_index(
        self, group: str | None, limit: int, viewer: Viewer
    ) -> tuple[list[tuple[str, str, str, str, int]], int]:
        """Notes of a group that `viewer` may see, for index.md and the brief:
        (title, path, summary, updated_at, inbound links), newest day first, then the most
        linked, then title; also the total count."""
        policy, params = viewer.where(self)
        where = f"d.tier='note' AND d.grp IS ? AND {policy}"
        total = self.db.execute(f"SELECT COUNT(*) FROM docs d WHERE {where}", (group, *params)).fetchone()[0]
        # Newest first by the (grp, updated_at) index, stopping once `limit` rows are in and the day
        # changes: the order within a day (most linked, title) needs only that day's rows.
        picked: list[tuple[Any, ...]] = []
        for row in self.db.execute(
            f"SELECT d.title, d.path, d.summary, d.updated_at, d.id FROM docs d WHERE {where} ORDER BY d.updated_at "
            "DESC",
            (group, *params),
        ):
            if len(picked) >= limit and row[3][:10] != picked[-1][3][:10]:
                break
            picked.append(row)
        marks = ",".join("?" * len(picked))
        # CROSS JOIN keeps links (by links_dst) the outer loop: left to itself the planner walked every
        # active note for their links (O(n): 7.6 ms at 100k notes, 0.1 ms this way)
        inbound = dict(
            self.db.execute(
                f"SELECT l.dst, COUNT(*) FROM links l CROSS JOIN docs s ON s.rowid = l.src WHERE l.dst IN ({marks})"
                " AND s.status = 'active' GROUP BY l.dst",
                [row[4] for row in picked],
            )
        )
        picked.sort(key=lambda r: r[4])
        picked.sort(key=lambda r: r[0])
        picked.sort(key=lambda r: inbound.get(r[4], 0), reverse=True)
        picked.sort(key=lambda r: r[3][:10], reverse=True)
        return [(t, p, s, u, inbound.get(i, 0)) for t, p, s, u, i in picked[:limit]], total

    def top_decisions(self, group: str | None, limit: int, viewer: Viewer) -> list[tuple[str, str, str, Verdict, int]]:
        """Decisions of a group that `viewer` may see, most linked first, then newest:
        (title, path, summary, its trust verdict, how many active notes link to it)."""
        from jacked_vault.store.trust import Verdict

        policy, params = viewer.where(self)
        rows = self.db.execute(
            f"SELECT d.title, d.path, d.summary, d.trust, d.claim, d.review, {_INBOUND} AS inbound FROM docs d"
            f" WHERE d.tier='note' AND d.kind='decision' AND d.grp IS ? AND {policy}"
            " ORDER BY inbound DESC, d.updated_at DESC, d.id LIMIT ?",
            (group, *params, limit),
        ).fetchall()
        return [(title, path, summary, Verdict.from_row(*v), inbound) for title, path, summary, *v, inbound in rows]

    def truncated(self) -> bool:
        """Whether a scope root was cut at the bounds (its files past them not indexed)."""
        return self.db.execute("SELECT 1 FROM roots WHERE truncated=1 LIMIT 1").fetchone() is not None

    def diagnostics(self) -> Diagnostics:
        diag = Diagnostics(truncated=self.truncated())
        for path, code in self.db.execute("SELECT path, code FROM problems ORDER BY path"):
            if code == "SYMLINK":
                diag.skipped_symlinks.append(path)
            else:
                diag.invalid_files.append({"path": self.store.display(path, _scope_of(self.store, path)), "code": code})
        return diag

    def problems(self) -> list[tuple[str, str, str]]:
        """(path, code, message) of every committed file the index refused."""
        return list(self.db.execute("SELECT path, code, message FROM problems ORDER BY path"))

    def doc(self, row: Sequence[Any], score: float = 0.0, excerpt: str = "") -> Doc:
        return Doc(
            rowid=row[0],
            path=row[1],
            id=row[2],
            title=row[3],
            kind=row[4],
            scope=row[5],
            group=row[6],
            status=row[7],
            tier=row[8],
            tags=json.loads(row[9]),
            updated_at=row[10],
            created_at=row[11],
            trust=row[12],
            summary=row[13],
            sha=row[14],
            origin=row[15],
            claim=row[16],
            review=row[17],
            targets=json.loads(row[18]),
            store=self.store,
            score=score,
            excerpt=excerpt,
        )

    def _docs(self, sql: str, params: Iterable[Any]) -> list[Doc]:
        return [self.doc(row) for row in self.db.execute(sql, tuple(params))]

    def lookup(self, note_id: str, viewer: Viewer | None = None, *, derived: bool = False) -> list[Doc]:
        """Every note carrying `note_id` (or, with `derived`, every derived document: hot.md, an
        episodic file); with a viewer, only those it may see."""
        policy, params = viewer.where(self) if viewer is not None else ("1", [])
        tier = "d.tier<>'note'" if derived else "d.tier='note'"
        return self._docs(
            f"SELECT {COLUMNS} FROM docs d WHERE d.id=? AND {tier} AND {policy} ORDER BY d.path", (note_id, *params)
        )

    def note_path(self, note_id: str) -> str | None:
        """The path of the first note (by path) carrying `note_id`, as `lookup` orders them; None
        when none does (one column, not a `Doc`: an arrival asks it of every arriving note)."""
        row = self.db.execute(
            "SELECT path FROM docs WHERE id=? AND tier='note' ORDER BY path LIMIT 1", (note_id,)
        ).fetchone()
        return row[0] if row else None

    def carries(self, doc_id: str) -> bool:
        """Whether some document (a note or a derived file) carries exactly this id."""
        return self.db.execute("SELECT 1 FROM docs WHERE id=? LIMIT 1", (doc_id,)).fetchone() is not None

    def starting(self, short: ShortId, viewer: Viewer | None = None) -> list[Doc]:
        """The notes whose id `short` matches (`document.ids.ShortId`); with a viewer, those it may see."""
        policy, params = viewer.where(self) if viewer is not None else ("1", [])
        globs = short.globs()
        found = self._docs(
            f"SELECT {COLUMNS} FROM docs d WHERE d.tier='note' AND ({' OR '.join(['d.id GLOB ?'] * len(globs))})"
            f" AND {policy} ORDER BY d.id",
            (*globs, *params),
        )
        return [doc for doc in found if short.matches(doc.id)]

    def backlinks(self, note_id: str, limit: int, viewer: Viewer) -> list[Doc]:
        """Notes linking to `note_id` that `viewer` may see, newest first (limit + 1 rows to
        detect a cut); the policy applies before the limit, so hidden ones never crowd out visible ones."""
        policy, params = viewer.where(self)
        wiki = [
            src
            for (rowid,) in self.db.execute("SELECT rowid FROM docs WHERE id=? AND tier='note'", (note_id,))
            for src in wikilinks.linking(self.db, rowid)
        ]
        # frontmatter links (ids), and [[wikilinks]] in bodies resolved as Obsidian does (search/wikilinks.py)
        return self._docs(
            f"SELECT {COLUMNS} FROM docs d WHERE (d.rowid IN (SELECT src FROM links WHERE dst=?) OR d.rowid IN "
            f"({','.join('?' * len(wiki))}))"
            f" AND d.tier='note' AND {policy} ORDER BY d.updated_at DESC, d.id LIMIT ?",
            (note_id, *wiki, *params, limit + 1),
        )

    def notes_per_group(self) -> dict[str, int]:
        rows = self.db.execute("SELECT grp, COUNT(*) FROM docs WHERE tier='note' AND scope='group' GROUP BY grp")
        return {grp: n for grp, n in rows}

    def note_groups(self) -> set[str]:
        """The groups `notes_per_group` counts, without counting: each group once from the
        (grp, updated_at) index, then one row of it (5 ms at 100k notes where counting read them all)."""
        rows = self.db.execute(
            "SELECT g.grp FROM (SELECT DISTINCT grp FROM docs) g WHERE EXISTS (SELECT 1 FROM docs d WHERE d.grp IS "
            "g.grp AND d.tier='note' AND d.scope='group')"
        )
        return {grp for (grp,) in rows}

    def ids(self) -> set[str]:
        return set(self.each_id())

    def each_id(self) -> Iterator[str]:
        """The id of every indexed note, streamed (a note held twice: twice)."""
        for (doc_id,) in self.db.execute("SELECT id FROM docs WHERE tier='note'"):
            yield doc_id

    def duplicate_ids(self) -> list[dict[str, Any]]:
        # the ids held twice found in the docs_id index alone (covering: 0.02 s at 100k notes, where
        # grouping the note rows read every row, 0.2 s); only their rows are read
        rows = self.db.execute(
            "SELECT id, group_concat(path, '\n') FROM docs WHERE tier='note' AND id IN (SELECT id FROM docs GROUP BY "
            "id HAVING COUNT(*) > 1) GROUP BY id HAVING COUNT(*) > 1 ORDER BY id"
        )
        return [
            {"id": i, "paths": [self.store.display(p, _scope_of(self.store, p)) for p in paths.split("\n")]}
            for i, paths in rows
        ]

    def unresolved_links(self) -> Iterator[tuple[str, str]]:
        """(source id, target) of each link whose target is no note of this store, streamed."""
        yield from self.db.execute(
            "SELECT d.id, l.dst FROM links l JOIN docs d ON d.rowid = l.src WHERE NOT EXISTS (SELECT 1 FROM docs t "
            "WHERE t.id = l.dst AND t.tier = 'note') ORDER BY d.id, l.dst"
        )

    def holds_note(self, note_id: str) -> bool:
        """Whether a note of this store has this id."""
        found = self.db.execute("SELECT 1 FROM docs WHERE id=? AND tier='note' LIMIT 1", (note_id,)).fetchone()
        return found is not None

    def indexed_files(self, tiers: tuple[str, ...] = ("note",)) -> dict[str, str]:
        """Store-relative path -> sha256 of every indexed document of these tiers."""
        marks = ",".join("?" * len(tiers))
        return dict(self.db.execute(f"SELECT path, sha FROM docs WHERE tier IN ({marks})", tiers))

    def indexed_text(self, rel: str, tier: str) -> tuple[str, str] | None:
        """(sha256, the text recall may show) of one indexed document of `tier`, found by its path:
        the gate's text, without any value a tombstone covers (store.gate)."""
        row = self.db.execute(
            "SELECT d.sha, f.body FROM docs d JOIN docs_text f ON f.doc = d.rowid WHERE d.path=? AND d.tier=?",
            (rel, tier),
        ).fetchone()
        return (row[0], row[1]) if row else None

    def audited(self) -> Iterator[tuple[str, str, str | None]]:
        """(path, sha256, note id; None for hot.md) of every indexed note and hot.md, by path,
        streamed (doctor compares each with its last audit line)."""
        yield from self.db.execute(
            "SELECT path, sha, CASE WHEN tier='note' THEN id END FROM docs WHERE tier IN ('note', 'hot') ORDER BY path"
        )

    def audited_at(self, paths: Iterable[str]) -> list[tuple[str, str, str | None]]:
        """`audited`'s rows of the notes and hot.md files at `paths`, by path."""
        sql = (
            "SELECT path, sha, CASE WHEN tier='note' THEN id END FROM docs WHERE tier IN ('note', 'hot') "
            "AND path IN ({marks})"
        )
        return sorted(rows_in(self.db, sql, paths))

    def links_from(self, paths: Iterable[str]) -> set[str]:
        """The ids the documents at `paths` link to (`links`, their frontmatter's)."""
        sql = "SELECT l.dst FROM docs d JOIN links l ON l.src = d.rowid WHERE d.path IN ({marks})"
        return {dst for (dst,) in rows_in(self.db, sql, paths)}

    def groups_of(self, ids: Iterable[str]) -> set[str | None]:
        """The groups of the notes with these ids (None: a note of no group)."""
        sql = "SELECT DISTINCT grp FROM docs WHERE tier='note' AND id IN ({marks})"
        return {grp for (grp,) in rows_in(self.db, sql, ids)}

    def audited_count(self) -> int:
        """How many files `audited` yields."""
        return self.db.execute("SELECT COUNT(*) FROM docs WHERE tier IN ('note', 'hot')").fetchone()[0]

    def problem_paths(self, code: str | None = None) -> set[str]:
        """The paths of the committed files the index refused (for one reason, `code`, if given)."""
        if code is not None:
            return {row[0] for row in self.db.execute("SELECT path FROM problems WHERE code=?", (code,))}
        return {row[0] for row in self.db.execute("SELECT path FROM problems")}

    def search(self, text: str, filters: Filters) -> list[Doc]:
        return run_search(self, text, filters)


def _scope_of(store: Store, rel: str) -> str:
    found = classify_note(store, rel)
    if found:
        return found[0]
    return "project" if store.is_project else ("user" if rel.startswith(USER_SCOPE_DIR + "/") else "group")
