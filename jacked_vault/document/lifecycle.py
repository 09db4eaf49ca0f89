"""A note's lifecycle (SPEC 5.2): which transitions exist, what each may change, and whether one
version of a note can follow another through them. The one owner of that rule: the CLI's
transitions start from it, and an arrival from a remote is judged by it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from jacked_vault.document.model import Note


class Closable(Protocol):
    """As much of a note as `closed_at` reads (a note, or an index row of one)."""

    @property
    def status(self) -> str: ...
    @property
    def updated_at(self) -> str: ...
    @property
    def valid_until(self) -> str | None: ...


# operation -> statuses it may start from
ALLOWED_FROM = {
    "accept": ("candidate", "active"),
    "reject": ("candidate", "active"),
    "supersede": ("active",),
    "expire": ("active", "candidate"),
}
# operation -> the status it leaves (None: unchanged)
RESULT = {"accept": "active", "reject": "rejected", "supersede": "superseded", "expire": None}
# The only frontmatter fields a transition changes; everything else (the value) is create-only.
TRANSITION_FIELDS = frozenset({"status", "status_reason", "trust", "valid_until", "updated_at"})
OPERATIONS = tuple(ALLOWED_FROM)


def value_fields(note: Note) -> dict[str, Any]:
    """What a transition never changes: every frontmatter field but the transition ones, and the body."""
    return {**{k: v for k, v in note.frontmatter().items() if k not in TRANSITION_FIELDS}, "body": note.body}


def reachable_statuses(start: str) -> set[str]:
    """Every status a note in `start` can reach through transitions (itself included)."""
    seen = {start}
    frontier = [start]
    while frontier:
        status = frontier.pop()
        for op, starts in ALLOWED_FROM.items():
            after = RESULT[op] or status
            if status in starts and after not in seen:
                seen.add(after)
                frontier.append(after)
    return seen


def follows(before: Note, after: Note) -> str | None:
    """None when `after` can be `before` after zero or more transitions; else what forbids it
    (a field name and the rule, never a value)."""
    if value_fields(before) != value_fields(after):
        changed = sorted(k for k, v in value_fields(after).items() if value_fields(before).get(k) != v)
        return f"changes {', '.join(changed)}, which no transition changes (notes are create-only)"
    if after.status not in reachable_statuses(before.status):
        return f"goes from {before.status} to {after.status}, which no transition does"
    if before.trust == "reviewed" and after.trust != "reviewed":
        return "takes back a person's review, which no transition does"
    return None


def winner(a: Note, b: Note) -> Note:
    """Of one note transitioned apart on two machines, the version that stands: a person's reject
    wins; otherwise the later transition by record time (`updated_at`); a tie keeps `a`."""
    if (a.status == "rejected") != (b.status == "rejected"):
        return a if a.status == "rejected" else b
    return b if b.updated_at > a.updated_at else a


def settles(before: Note, after: Note) -> bool:
    """Whether `after` may replace `before` as the settling of two machines' transitions of one
    note: the same value, and `after` is what `winner` keeps (so a reject is never undone)."""
    return value_fields(before) == value_fields(after) and winner(before, after) is after and after is not before


# -- archive/ (SPEC 2: notes moved out of recall by the librarian) ---------------------------------


def closed_at(note: Closable) -> str | None:
    """When a note stopped holding for good: a superseded note's end (its `valid_until`, else the
    supersede), an active note's `valid_until` (expired, or to expire then); None for a note that
    still holds or never did (a candidate, a rejected note: the review queue and tombstones own those)."""
    if note.status == "superseded":
        return note.valid_until or note.updated_at
    if note.status == "active":
        return note.valid_until
    return None


def archivable(note: Closable, cutoff: str) -> bool:
    """Whether the librarian may move `note` to archive/: closed at or before `cutoff` (now less
    the configured age, `settings.librarian.archive_after_days`)."""
    closed = closed_at(note)
    return closed is not None and closed <= cutoff


def moves(was_archived: bool | None, archived: bool, note: Note, now: str) -> str | None:
    """None when `note` may be where it arrives (in archive/ or not), having been in archive/ or not
    (None: new here); else why not. The one move a transition makes is into archive/, of a note
    closed by `now`; nothing leaves archive/ (an archived note is found with `--include-archived`
    or by its id, never restored by a move)."""
    if was_archived and not archived:
        return "leaves archive/, which no transition does"
    if archived and not was_archived and not archivable(note, now):
        return (
            f"moves a {note.status} note that still holds into archive/ (only superseded or expired notes are archived)"
        )
    return None
