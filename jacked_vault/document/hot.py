"""The `hot.md` document: a group's current progress slice, its canonical form and its reader."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jacked_vault.errors import VaultError
from jacked_vault.safety.text import check_text

MAX_HOT_BYTES = 4096
MAX_HOT_FILE_BYTES = MAX_HOT_BYTES + 1024
_UPDATED = re.compile(
    r"^<!-- updated (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) by ([a-z0-9][a-z0-9._-]{0,63}) -->$"
)


@dataclass(frozen=True)
class Hot:
    body: str
    updated_at: str | None
    harness: str | None


def render_hot(group: str | None, body: str, updated_at: str, harness: str) -> bytes:
    return f"# Hot: {group or 'project'}\n<!-- updated {updated_at} by {harness} -->\n\n{body}\n".encode()


def read_hot_text(data: bytes, source: str) -> Hot:
    """Parse a hot.md (ours, or hand-edited: then the whole text is the body)."""

    if len(data) > MAX_HOT_FILE_BYTES:
        raise VaultError("VALIDATION", f"{source}: {len(data)} bytes is over the hot.md cap")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise VaultError("VALIDATION", f"{source}: not UTF-8") from None
    lines = text.split("\n")
    updated = harness = None
    if len(lines) >= 2 and lines[0].startswith("# Hot: ") and (match := _UPDATED.match(lines[1])):
        updated, harness = match.group(1), match.group(2)
        text = "\n".join(lines[2:])
    body = text.strip("\n")
    check_text("hot.md", body, multiline=True)
    return Hot(body=body, updated_at=updated, harness=harness)
