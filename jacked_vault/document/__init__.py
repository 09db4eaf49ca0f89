"""The `jacked.memory.v1` note document: model, strict reader, canonical writer, validation.

Importing this package is cheap: the model's constants load now; the reader, validator, writer
and id functions load on first use (PEP 562), and ruamel.yaml and jsonschema on first parse or
validate. Read commands never pay for them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from jacked_vault.document.ids import new_note_id, slugify_title
    from jacked_vault.document.reader import parse_note
    from jacked_vault.document.timestamps import format_timestamp, parse_timestamp, utc_now
    from jacked_vault.document.validate import validate_note
    from jacked_vault.document.writer import render_note

_LAZY = {
    "new_note_id": "ids",
    "slugify_title": "ids",
    "parse_note": "reader",
    "format_timestamp": "timestamps",
    "parse_timestamp": "timestamps",
    "utc_now": "timestamps",
    "validate_note": "validate",
    "render_note": "writer",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:  # resolved once: later lookups find it in the module's namespace
        value = globals()[name] = getattr(import_module(f"jacked_vault.document.{_LAZY[name]}"), name)
        return value
    raise AttributeError(f"module 'jacked_vault.document' has no attribute {name!r}")


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
