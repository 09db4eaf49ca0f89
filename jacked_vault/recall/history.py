"""The vault's git history, whole or for one note's file (create and every transition), through
the read policy (SPEC 7: `log` goes through the same policy).

Commit subjects carry titles (`memory(<kind>): <title>`, with a `Memory-Id` trailer), so each
entry that names a note is judged by that note as the index holds it now; an accept's entry says
where the accept came from and whether it counts here (`review`, store/reviews.py). A person (no harness)
sees every entry, each marked with the note's status, validity, targets and scope. A harness
sees the entries of notes in its window (`search.policy`); the others are left out, as `read`
answers a hidden note like a missing one: a title-less line would still tell it when and how
often a note it may not see changed. Commits that name no note are shown to everyone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from jacked_vault.document import timestamps
from jacked_vault.store import git
from jacked_vault.store.layout import ARCHIVE_DIR, Store, archived
from jacked_vault.store.reviews import ACCEPT_SUBJECT

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.search.index import SearchIndex
    from jacked_vault.search.policy import Viewer
    from jacked_vault.search.readmodel import ReadModel


def _entry(commit: pygit2.Commit) -> dict[str, Any]:
    trailers = {}
    for line in commit.message.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key.startswith("Memory-"):
            trailers[key] = value.strip()
    when = datetime.fromtimestamp(commit.commit_time, tz=UTC)
    return {
        "commit": str(commit.id),
        "time": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "author": commit.author.name,
        "summary": commit.message.splitlines()[0] if commit.message else "",
        "memory_id": trailers.get("Memory-Id"),
        "origin": trailers.get("Memory-Origin"),
        "harness": trailers.get("Memory-Harness"),
    }


def _blob_at(commit: pygit2.Commit, rel: str) -> pygit2.Oid | None:
    try:
        return commit.tree[rel].id
    except KeyError:
        return None


def _changed(commit: pygit2.Commit, rel: str) -> bool:
    mine = _blob_at(commit, rel)
    parents = [_blob_at(p, rel) for p in commit.parents]
    if mine is None and not any(parents):
        return False
    return not (parents and all(p == mine for p in parents))


def _holds(repo: pygit2.Repository, blob_id: pygit2.Oid | None, id_line: re.Pattern[bytes]) -> bool:
    """Whether the blob is the file of the note whose `id:` line is `id_line`."""
    return blob_id is not None and id_line.search(cast("pygit2.Blob", repo[blob_id]).data) is not None


def _its_own(repo: pygit2.Repository, commit: pygit2.Commit, path: str, id_line: re.Pattern[bytes]) -> bool:
    """Whether `commit`'s change at `path` is to this note's file: the file there after the commit,
    or (a removal, a move away) before it, is this note's, not another that took the name."""
    if _holds(repo, _blob_at(commit, path), id_line):
        return True
    return any(_holds(repo, _blob_at(parent, path), id_line) for parent in commit.parents)


def _commits(store: Store, rel: str | None, note_id: str | None = None) -> Iterator[pygit2.Commit]:
    """Newest first: every commit, or only those that changed note `note_id`'s file `rel` (for a
    note the librarian archived, also those that changed it where it was before: the move keeps
    its history); a change at one of those paths to another note's file (one that took the
    name after a move) is not this note's."""
    import pygit2

    paths = () if rel is None else (rel, rel[len(ARCHIVE_DIR) + 1 :]) if archived(rel) else (rel,)
    id_line = None
    if note_id is not None:
        id_line = re.compile(rb"""^id:[ \t]*["']?""" + re.escape(note_id.encode()) + rb"""["']?[ \t]*$""", re.M)
    repo = git.open_repo(store.root)
    head = git.head_commit(repo)
    if head is None:
        return
    for commit in repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME):
        if rel is None or any(
            _changed(commit, path) and (id_line is None or _its_own(repo, commit, path, id_line)) for path in paths
        ):
            yield commit


def _note_state(index: ReadModel, note_id: str, viewer: Viewer) -> dict[str, Any] | None:
    """The note as `viewer` may see it now (status, validity, targets, scope), or None."""
    for doc in index.lookup(note_id, viewer):
        since, until, targets = index.db.execute(
            "SELECT valid_from, valid_until, targets FROM docs WHERE rowid=?", (doc.rowid,)
        ).fetchone()
        return {
            "status": doc.status, "valid_from": since, "valid_until": until, "targets": json.loads(targets),
            "scope": doc.scope, "group": doc.group,
        }  # fmt: skip
    return None


def _refused_in(commit: pygit2.Commit, problems: set[str]) -> str | None:
    """The committed file the gate refuses (quarantined: never recalled) that `commit` changed, if any."""
    for rel in sorted(problems):
        mine = _blob_at(commit, rel)
        if mine is not None and all(_blob_at(p, rel) != mine for p in commit.parents):
            return rel
    return None


def history_entries(
    store: Store, rel: str | None, index: SearchIndex, viewer: Viewer, *, person: bool, note_id: str | None = None
) -> Iterator[dict[str, Any]]:
    """The entries `viewer` may see (of note `note_id`'s file `rel`, or all), each with its note's
    state (`note`; None when it names none)."""
    states: dict[str, dict[str, Any] | None] = {}
    problems = index.read.problem_paths() if person else set()
    for commit in _commits(store, rel, note_id):
        entry = _entry(commit)
        review = index.proofs.review_at(entry["commit"]) if entry["summary"].startswith(ACCEPT_SUBJECT) else None
        entry["review"] = review.to_json() if review is not None else None  # an accept, with where it came from
        note_id = entry["memory_id"]
        if note_id is not None and note_id not in states:
            states[note_id] = _note_state(index.read, note_id, viewer)
            refused = _refused_in(commit, problems) if states[note_id] is None and problems else None
            if refused is not None:
                states[note_id] = {"status": None, "quarantined": True, "path": refused}
        entry["note"] = states[note_id] if note_id is not None else None
        if note_id is not None and entry["note"] is None and not person:
            continue
        yield entry


def _mark(note: dict[str, Any] | None, now: str) -> str:
    """How a person sees the note an entry names as it stands now, beside what may be an old
    commit, so it says so: `now: rejected · for codex · group api`."""
    if note is None:
        return "not in the vault now"
    if note.get("quarantined"):
        return "quarantined: refused by the gate, never recalled (`jacked memory doctor`)"
    status = note["status"]
    if status == "active" and note["valid_until"] and note["valid_until"] <= now:
        status = "expired"
    elif status == "active" and note["valid_from"] > now:
        status = f"valid from {note['valid_from']}"
    where = f"{note['scope']} {note['group']}" if note["group"] else note["scope"]
    return "now: " + " · ".join((status, "for " + ", ".join(note["targets"]), where))


def _provenance(review: dict[str, Any] | None) -> str:
    """How an accept's entry says where it came from (store/reviews.py): ` · accepted here by Ada <ada@x>`."""
    from jacked_vault.store.reviews import Provenance

    return f" · {Provenance.from_json(review).said()}" if review else ""


@dataclass(frozen=True)
class History:
    """Newest-first commits of the vault, or of one note's file (`id`, `path` set)."""

    id: str | None
    path: str | None
    entries: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "path": self.path, "entries": self.entries}

    def to_text(self) -> str:
        now = timestamps.utc_now()
        lines = [
            f"{e['commit'][:10]} {e['time']} {e['summary']}"
            + (f"  [{_mark(e['note'], now)}{_provenance(e['review'])}]" if e["memory_id"] else "")
            for e in self.entries
        ]
        return "\n".join(lines) or "no history"
