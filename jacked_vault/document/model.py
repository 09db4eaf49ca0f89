"""The `jacked.memory.v1` note: vocabularies, grammars, limits and the immutable `Note`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

SCHEMA = "jacked.memory.v1"
TRUST = "unreviewed"  # every write; only a person's `accept` sets "reviewed"
UNKNOWN_HARNESS = "unknown"  # a writer or reader who did not say which harness it is

KINDS = (
    "decision",
    "convention",
    "vision",
    "reference",
    "progress",
    "fact",
    "handoff",
    "lesson",
    "note",
    "preference",
    "runbook",
    "context",
)
SCOPES = ("group", "user", "project")
STATUSES = ("candidate", "active", "rejected", "superseded")
ORIGINS = (
    "cli",
    "mcp",
    "session-end",
    "pre-compact",
    "post-merge",
    "migration",
    "milestone",
    "librarian",
)

# Use fullmatch(): these mirror the patterns in schemas/note.schema.json (a test keeps them equal).
SLUG_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
ID_RE = re.compile(r"mem_[a-z0-9][a-z0-9_-]{2,127}")
REPO_RE = re.compile(r"[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}")
TIMESTAMP_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")

MAX_BODY_BYTES = 64 * 1024
MAX_FILE_BYTES = 128 * 1024
MAX_TITLE = 200
MAX_TAGS = 32
MAX_TARGETS = 32
MAX_LINKS = 64


@dataclass(frozen=True, kw_only=True)
class Note:
    """One note: the frontmatter fields in canonical order, then the Markdown body.

    Timestamps are canonical strings (`format_timestamp`). Keyword-only, so the fields keep
    the canonical order while `schema`, `trust` and `status_reason` have defaults.
    """

    schema: str = SCHEMA
    id: str
    title: str
    kind: str
    scope: str
    group: str | None
    repos: list[str]
    trust: str = TRUST
    status: str
    status_reason: str | None = None
    origin: str
    source_harness: str
    target_harnesses: list[str]
    tags: list[str]
    links: list[str]
    supersedes: list[str]
    valid_from: str
    valid_until: str | None
    created_at: str
    updated_at: str
    body: str = field(repr=False)

    def frontmatter(self) -> dict[str, Any]:
        """The frontmatter as a dict in canonical key order (`status_reason` only when set);
        lists are copies."""
        result: dict[str, Any] = {}
        for key in FRONTMATTER_KEYS:
            value = getattr(self, key)
            if key == "status_reason" and value is None:
                continue
            result[key] = list(value) if isinstance(value, list) else value
        return result

    def to_json(self) -> dict[str, Any]:
        """The frontmatter plus `body`."""
        return {**self.frontmatter(), "body": self.body}


FRONTMATTER_KEYS = tuple(f.name for f in fields(Note) if f.name != "body")
