"""Counting session entries in episodic files: what rollup must conserve (tests and bench only)."""

from __future__ import annotations

import re

from jacked_vault.document.markdown import iter_fenced

# A session entry at any level (`## 09:00 | b` in a day file, `###` in recent.md, `####` in archive.md).
ANY_LEVEL_ENTRY = re.compile(r"^#{2,6} \d{1,2}:\d{2}[ \t]*(?:[AaPp][Mm][ \t]*)?\|")


def count_session_entries(text: str) -> int:
    """`HH:MM |` entries at any header level outside code fences (day file -> recent -> archive)."""
    return sum(1 for line, inside in iter_fenced(text.splitlines()) if not inside and ANY_LEVEL_ENTRY.match(line))
