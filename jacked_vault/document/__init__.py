"""The `jacked.memory.v1` note document: model, strict reader, canonical writer, validation.

Importing this package is cheap: ruamel.yaml and jsonschema load on first parse/validate.
"""

from jacked_vault.document.ids import new_note_id, slugify_title
from jacked_vault.document.model import (
    FRONTMATTER_KEYS,
    ID_RE,
    KINDS,
    MAX_BODY_BYTES,
    MAX_FILE_BYTES,
    MAX_LINKS,
    MAX_TAGS,
    MAX_TARGETS,
    MAX_TITLE,
    ORIGINS,
    REPO_RE,
    SCOPES,
    SLUG_RE,
    STATUSES,
    TIMESTAMP_RE,
    Note,
)
from jacked_vault.document.reader import parse_note
from jacked_vault.document.timestamps import format_timestamp, parse_timestamp, utc_now
from jacked_vault.document.validate import validate_note
from jacked_vault.document.writer import render_note

__all__ = [
    "FRONTMATTER_KEYS",
    "ID_RE",
    "KINDS",
    "MAX_BODY_BYTES",
    "MAX_FILE_BYTES",
    "MAX_LINKS",
    "MAX_TAGS",
    "MAX_TARGETS",
    "MAX_TITLE",
    "ORIGINS",
    "REPO_RE",
    "SCOPES",
    "SLUG_RE",
    "STATUSES",
    "TIMESTAMP_RE",
    "Note",
    "format_timestamp",
    "new_note_id",
    "parse_note",
    "parse_timestamp",
    "render_note",
    "slugify_title",
    "utc_now",
    "validate_note",
]
