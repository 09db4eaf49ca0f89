"""What the search index stores and returns: `NoteRow` (the fields of a document's `docs` row that
both sides carry), `Entry` (that row plus the text indexed: one indexable document), `Doc` (that row
as read back: one hit), `Diagnostics` (what could not be used). Pure data, no I/O."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jacked_vault.store.layout import Store, archived

if TYPE_CHECKING:
    from jacked_vault.document import Note
    from jacked_vault.document.hot import Hot
    from jacked_vault.store.trust import Verdict

_DAY_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")
_DAY_HEADING = re.compile(
    r"^#{2,4} (?:Week of )?(\d{4}-\d{2}-\d{2})\s*$", re.MULTILINE
)  # recent.md's and archive.md's days
_HEADING_SIGNS = re.compile(r"(^|\s)#{1,6} ")
_HEADER_LINE = re.compile(r"^[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*: \S")
_EPOCH = "1970-01-01T00:00:00.000Z"
MAX_EPISODIC_TEXT = 1024 * 1024  # the searchable head of an episodic file (archive.md grows for years)
MARK = "**"  # what search puts around matched words in an excerpt (JSON keeps it)


@dataclass(frozen=True, kw_only=True, init=False, repr=False, eq=False)
class NoteRow:
    """The fields of a document's `docs` row that are written from an `Entry` and read back as a `Doc`
    (only those make one: no method generated here, each import pays for the two that are)."""

    id: str
    title: str
    kind: str
    scope: str
    group: str | None
    status: str
    tier: str
    tags: list[str]
    created_at: str
    updated_at: str
    trust: str = "unreviewed"  # an Entry's: as it is shown (a Doc's: what counts here; `claim` what its file says)
    origin: str = "cli"
    targets: list[str] = field(default_factory=lambda: ["all"])  # the harnesses it is addressed to


@dataclass(frozen=True, kw_only=True)
class Entry(NoteRow):
    """One indexable document: a note, or a derived file such as hot.md or an episodic file; its
    row's fields and the text indexed."""

    repos: list[str]
    valid_from: str
    valid_until: str | None
    body: str
    links: list[str]

    @classmethod
    def from_note(cls, note: Note) -> Entry:
        return cls(
            id=note.id,
            title=note.title,
            kind=note.kind,
            scope=note.scope,
            group=note.group,
            status=note.status,
            tier="note",
            tags=note.tags,
            repos=note.repos,
            targets=note.target_harnesses,
            valid_from=note.valid_from,
            valid_until=note.valid_until,
            created_at=note.created_at,
            updated_at=note.updated_at,
            body=note.body,
            links=note.links,
            origin=note.origin,
            trust=note.trust,
        )

    @classmethod
    def derived(
        cls,
        *,
        id: str,
        title: str,
        scope: str,
        group: str | None,
        tier: str,
        body: str,
        when: str | None,
        repos: list[str],
    ) -> Entry:
        """A derived document (hot.md, an episodic file): active, for every harness."""
        when = when or _EPOCH
        return cls(
            id=id,
            title=title,
            kind="progress",
            scope=scope,
            group=group,
            status="active",
            tier=tier,
            tags=[],
            repos=repos,
            targets=["all"],
            valid_from=when,
            valid_until=None,
            created_at=when,
            updated_at=when,
            body=body,
            links=[],
            origin="cli",
            trust="unreviewed",
        )

    @classmethod
    def from_hot(cls, hot: Hot, scope: str, group: str | None) -> Entry:
        return cls.derived(
            id=f"hot_{group or 'project'}",
            title=f"Current progress: {group or 'project'}",
            scope=scope,
            group=group,
            tier="hot",
            body=hot.body,
            when=hot.updated_at,
            repos=[],
        )

    @classmethod
    def from_episodic(cls, text: str, group: str, folder: str, rel: str) -> Entry:
        name = rel.rsplit("/", 1)[-1][: -len(".md")]
        day = _DAY_IN_NAME.search(name) or max(
            _DAY_HEADING.finditer(text), key=lambda m: m.group(1), default=None
        )  # a day file's, else the newest day it holds
        return cls.derived(
            id="episodic_" + hashlib.sha256(rel.encode()).hexdigest()[:20],
            title=f"Sessions in {folder.replace('__', '/')}: {name}",
            scope="group",
            group=group,
            tier="episodic",
            body=text[:MAX_EPISODIC_TEXT],
            when=f"{day.group(1)}T00:00:00.000Z" if day else None,
            repos=[folder.replace("__", "/")],
        )


def _after_header_block(lines: list[str]) -> list[str]:
    """`lines` without a leading block of two or more `Key: value` header lines (a merge note's
    `Merge-Commit:`, `Repo:` …) when text follows it; else `lines` unchanged."""
    count = 0
    while count < len(lines) and _HEADER_LINE.match(lines[count]):
        count += 1
    rest = lines[count:]
    if count >= 2 and rest and not rest[0].strip() and any(line.strip() for line in rest):
        return rest
    return lines


def first_sentence(body: str, limit: int = 160) -> str:
    """The first sentence of the first non-empty, non-heading line after any header block, at most
    `limit` chars."""
    for line in _after_header_block(body.splitlines()):
        line = line.strip().lstrip("#>-* ").strip()
        if not line:
            continue
        for end in (". ", "! ", "? "):
            cut = line.find(end)
            if cut != -1:
                line = line[: cut + 1]
                break
        return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


@dataclass(frozen=True, kw_only=True)
class Doc(NoteRow):
    """One indexed document as search, read and recall see it: its row's fields as read back."""

    rowid: int
    path: str
    summary: str
    sha: str
    store: Store
    score: float = 0.0
    excerpt: str = ""
    claim: str = "unreviewed"  # the trust its file claims (`trust` is what counts here)
    review: str | None = None  # the accept behind a claimed review, as the index recorded it (JSON)

    @property
    def verdict(self) -> Verdict:
        """What its review is worth here: the one trust verdict every surface shows (store/trust.py)."""
        from jacked_vault.store.trust import Verdict

        return Verdict.from_row(self.trust, self.claim, self.review)

    @property
    def display_path(self) -> str:
        return self.store.display(self.path, self.scope)

    @property
    def archived(self) -> bool:
        """Moved out of recall by the librarian (found only with `--include-archived` or by id)."""
        return self.tier == "note" and not self.store.is_project and archived(self.path)

    def plain_excerpt(self) -> str:
        """The excerpt for people: the matched words in context without markers or Markdown
        heading signs; the summary when there is no match to show (an empty query) or the match
        would only repeat the title or the tags."""
        text = (
            _HEADING_SIGNS.sub(r"\1", " ".join(self.excerpt.replace(MARK, "").split())) if MARK in self.excerpt else ""
        )
        bare = text.strip("… ")
        if not bare or bare in self.title or bare == " ".join(self.tags):
            return self.summary
        return text

    def to_text(self) -> str:
        """The hit as people see it: title, what it is and its id, then the excerpt."""
        where = f"{self.scope} {self.group}" if self.group else self.scope
        what = [self.kind if self.tier == "note" else self.tier, where]
        if self.status != "active":
            what.append(self.status)
        if self.archived:
            what.append("archived")
        if self.tier == "note":
            what.append(self.verdict.label())
            if self.origin != "cli":
                what.append(f"from {self.origin}")
            if self.targets != ["all"]:
                what.append(f"for {', '.join(self.targets)}")
        excerpt = self.plain_excerpt()
        return f"{self.title}  [{' · '.join(what)}]  {self.id}" + (f"\n   {excerpt}" if excerpt else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "scope": self.scope,
            "group": self.group,
            "status": self.status,
            **self.verdict.to_json(),
            "origin": self.origin,
            "score": self.score,
            "tier": self.tier,
            "excerpt": self.excerpt,
            "path": self.display_path,
            "archived": self.archived,
            "tags": self.tags,
            "targets": self.targets,
            "updated_at": self.updated_at,
        }


@dataclass
class Diagnostics:
    """What the index could not use: invalid or quarantined files, symlinks, cut scans."""

    invalid_files: list[dict[str, str]] = field(default_factory=list)
    skipped_symlinks: list[str] = field(default_factory=list)
    truncated: bool = False
    behind: bool = False  # an index left behind HEAD, for a background catch-up (`fresh_indexes`)

    @property
    def complete(self) -> bool:
        return not self.invalid_files and not self.truncated

    def merge(self, other: Diagnostics) -> None:
        self.invalid_files += other.invalid_files
        self.skipped_symlinks += other.skipped_symlinks
        self.truncated = self.truncated or other.truncated
        self.behind = self.behind or other.behind

    def to_json(self) -> dict[str, Any]:
        return {
            "invalid_file_count": len(self.invalid_files),
            "invalid_files": self.invalid_files,
            "skipped_symlinks": len(self.skipped_symlinks),
            "truncated": self.truncated,
        }
