"""Search over one store's index: filters, the read policy, FTS5 ranking."""

from __future__ import annotations

from dataclasses import dataclass

from jacked_vault.search.policy import Viewer, reader

COLUMNS = (
    "d.rowid, d.path, d.id, d.title, d.kind, d.scope, d.grp, d.status, d.tier, d.tags,"
    " d.updated_at, d.created_at, d.trust, d.summary, d.sha"
)
N_COLUMNS = 15


@dataclass
class Filters:
    """What to look for: content filters plus who reads (`viewer()`); statuses default to active."""

    scopes: frozenset[str] | None = None
    group: str | None = None
    kinds: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    repo: str | None = None
    statuses: tuple[str, ...] = ("active",)
    target: str | None = None
    as_of: str | None = None
    known_at: str | None = None
    prefer_group: str | None = None
    limit: int = 20
    any_time: bool = False

    def viewer(self) -> Viewer:
        """Who reads: `target` a harness (`unknown`: only notes for all), None: every harness."""
        clocks = {"scopes": self.scopes, "statuses": self.statuses, "as_of": self.as_of, "known_at": self.known_at, "any_time": self.any_time}
        return Viewer(**clocks) if self.target is None else reader(self.target, **clocks)

    def where(self) -> tuple[str, list]:
        """The read policy plus the content filters, as SQL over `docs d`."""
        sql, params = self.viewer().where()
        clauses, extra = [sql], list(params)
        if self.group:
            clauses.append("d.grp = ?")
            extra.append(self.group)
        if self.kinds:
            clauses.append(f"d.kind IN ({','.join('?' * len(self.kinds))})")
            extra += list(self.kinds)
        for tag in self.tags:
            clauses.append("EXISTS (SELECT 1 FROM json_each(d.tags) WHERE value = ?)")
            extra.append(tag)
        if self.repo:
            clauses.append("EXISTS (SELECT 1 FROM json_each(d.repos) WHERE value = ?)")
            extra.append(self.repo)
        return " AND ".join(clauses), extra


def one_line(text: str) -> str:
    return " ".join(text.split())


def run_search(index, text: str, filters: Filters) -> list:
    """Ranked by `search.ranking` (BM25F over FTS5 candidates, any query word); no words: newest first."""
    where, params = filters.where()
    prefer = filters.prefer_group or ""
    db = index.db
    if not any(c.isalnum() for c in text):
        sql = (
            f"SELECT {COLUMNS}, 0.0, substr(f.body, 1, 160) FROM docs d JOIN docs_fts f ON f.rowid = d.rowid"
            f" WHERE {where} ORDER BY (d.grp IS ?) DESC, d.updated_at DESC, d.id LIMIT ?"
        )
        rows = db.execute(sql, (*params, prefer, filters.limit)).fetchall()
        return [index.doc(r[:N_COLUMNS], r[N_COLUMNS], one_line(r[N_COLUMNS + 1])) for r in rows]
    from jacked_vault.search import ranking

    hits = ranking.search(db, text, COLUMNS, where, params, prefer, filters.limit)
    return [index.doc(row, score, one_line(excerpt)) for row, score, excerpt in hits]
