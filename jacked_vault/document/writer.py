"""Write a note canonically: one `key: <JSON value>` line per field, in canonical order."""

from __future__ import annotations

import json

from jacked_vault.document.model import MAX_FILE_BYTES, Note
from jacked_vault.document.problems import invalid
from jacked_vault.document.validate import validate_note


def json_line(value: object) -> str:
    """The canonical text of one frontmatter value."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def render_note(note: Note) -> bytes:
    """The canonical UTF-8 bytes of `note`; raises VALIDATION (and writes nothing) if invalid."""
    validate_note(note)
    lines = ["---"]
    for key, value in note.frontmatter().items():
        lines.append(f"{key}: {json_line(value)}")
    lines += ["---", "", note.body]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if len(data) > MAX_FILE_BYTES:
        raise invalid(None, f"the file would be {len(data)} bytes; the limit is {MAX_FILE_BYTES}")
    return data
