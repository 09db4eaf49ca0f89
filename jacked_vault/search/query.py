"""Search over one store's index: filters, the read policy, FTS5 ranking."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from jacked_vault.document.model import KINDS, REPO_RE, SLUG_RE, STATUSES
from jacked_vault.errors import VaultError
from jacked_vault.search.policy import Asked, Viewer, reader

if TYPE_CHECKING:
    from jacked_vault.search.entries import Doc


class Searched(Asked, Protocol):
    """What a search needs of the index it runs over (search.readmodel.ReadModel): the policy's
    needs, and a hit made of a row."""

    def doc(self, row: Sequence[Any], score: float = 0.0, excerpt: str = "") -> Doc: ...


def columns(status: str = "d.status") -> str:
    """What a hit reads from `docs d` (`index.doc` takes them in this order); `status` as the reader sees it."""
    return (
        f"d.rowid, d.path, d.id, d.title, d.kind, d.scope, d.grp, {status}, d.tier, d.tags,"
        " d.updated_at, d.created_at, d.trust, d.summary, d.sha, d.origin, d.claim, d.review, d.targets"
    )


COLUMNS = columns()
N_COLUMNS = 19


def require_slug(name: str, value: str) -> str:
    """`value` when it is a slug (a group, tag or harness name); else a usage error naming the rule."""

    if not SLUG_RE.fullmatch(value):
        raise VaultError(
            "USAGE", f"{name} {value}: not a slug (a-z, 0-9 and . _ -, starting with a-z or 0-9; at most 64)"
        )
    return value


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
    include_archived: bool = False  # also the notes the librarian moved to archive/

    def check(self) -> None:
        """Refuse (USAGE, naming the valid values) a filter value no document can ever match."""
        from jacked_vault.search.policy import SCOPES

        for name, values, allowed in (
            ("scope", self.scopes or (), SCOPES),
            ("kind", self.kinds, KINDS),
            ("status", self.statuses, STATUSES),
        ):
            for value in sorted(values):
                if value not in allowed:
                    raise VaultError("USAGE", f"{name} {value}: use one of {', '.join(allowed)}")
        slugs = [("tag", t) for t in self.tags] + [
            (n, v) for n, v in (("target", self.target), ("group", self.group)) if v is not None
        ]
        for name, value in slugs:
            require_slug(name, value)
        if self.repo is not None and (len(self.repo) > 255 or not REPO_RE.fullmatch(self.repo)):
            raise VaultError("USAGE", f"repo {self.repo}: not a repo identity (lowercase, like github.com/owner/repo)")
        if self.limit < 1:
            raise VaultError("USAGE", f"limit {self.limit}: give at least 1")

    def viewer(self) -> Viewer:
        """Who reads: `target` a harness (`unknown`: only notes for all), None: every harness."""
        asked = Viewer(
            scopes=self.scopes,
            statuses=self.statuses,
            as_of=self.as_of,
            known_at=self.known_at,
            any_time=self.any_time,
            archived=self.include_archived,
        )
        if self.target is None:
            return asked
        who = reader(self.target)  # the harness it reads as, or only notes for all
        return replace(asked, harness=who.harness, shared_only=who.shared_only)

    def where(self, index: Asked | None = None) -> tuple[str, list[Any]]:
        """The read policy plus the content filters, as SQL over `docs d` (`index`: the one asked)."""
        sql, params = self.viewer().where(index)
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


def run_search(index: Searched, text: str, filters: Filters) -> list[Doc]:
    """Ranked by `search.ranking` (BM25F over FTS5 candidates, any query word); no words: newest first."""
    where, params = filters.where(index)
    cols = columns(filters.viewer().status_column())
    prefer = filters.prefer_group or ""
    db = index.db
    if not any(c.isalnum() for c in text):
        sql = (
            f"SELECT {cols}, 0.0, substr(f.body, 1, 160) FROM docs d JOIN docs_text f ON f.doc = d.rowid"
            f" WHERE {where} ORDER BY (d.grp IS ?) DESC, d.updated_at DESC, d.id LIMIT ?"
        )
        rows = db.execute(sql, (*params, prefer, filters.limit)).fetchall()
        return [index.doc(r[:N_COLUMNS], r[N_COLUMNS], one_line(r[N_COLUMNS + 1])) for r in rows]
    from jacked_vault.search import ranking

    hits = ranking.search(db, text, cols, where, params, prefer, filters.limit)
    return [index.doc(row, score, one_line(excerpt)) for row, score, excerpt in hits]
