"""Markdown structure the vault reads: code fences and ATX headings.

Fence-aware: a line inside a ``` or ~~~ code block is never a heading, so pasted code cannot
split a section. Shared by the episodic files (episodic/headers.py) and by what the tombstones
call a value held in Markdown text (store/tombstones.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")  # an ATX heading's optional closing `#`s


def iter_fenced(lines: list[str]) -> Iterator[tuple[str, bool]]:
    """(line, inside a code fence) for each line; a fence's opening and closing lines count as inside."""
    fence: str | None = None
    for line in lines:
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            yield line, True
        elif fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) and not line.strip(" `~"):
                fence = None
            yield line, True
        else:
            yield line, False


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line number from 0, level 1-6, text) of every ATX heading outside code fences."""
    out = []
    for number, (line, inside) in enumerate(iter_fenced(lines)):
        match = None if inside else _HEADING.match(line)
        if match:
            out.append((number, len(match.group(1)), _CLOSING.sub("", match.group(2) or "").strip()))
    return out
