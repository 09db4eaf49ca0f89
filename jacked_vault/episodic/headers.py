"""Markdown structure of episodic files: entry headers, `##` sections, header demotion.

Shared by rollup and migrate. Everything here is fence-aware: a line inside a ``` or ~~~
code block is never a header, so pasted code cannot split a section or be counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from jacked_vault.document.markdown import iter_fenced

# What counts as one entry (SPEC 9 / issue 4): `## HH:MM |`, `## H:MM AM|PM |`, `## Week of …`,
# `## YYYY-MM-DD`. A non-empty file with none of these is one entry.
ENTRY_HEADER = re.compile(
    r"^## (?:"
    r"\d{1,2}:\d{2}[ \t]*\|"  # 24-hour: ## 09:00 | main
    r"|\d{1,2}:\d{2}[ \t]*[AaPp][Mm][ \t]*\|"  # 12-hour: ## 9:05 AM | main
    r"|Week of\b"
    r"|\d{4}-\d{2}-\d{2}\b"
    r")"
)
SECTION = re.compile(r"^## ")
HEADER = re.compile(r"^(#{1,6})([ \t]|$)")
TITLE = re.compile(r"^# ")
DATE_SECTION = re.compile(r"^## (\d{4}-\d{2}-\d{2})\b")
WEEK_SECTION = re.compile(r"^## Week of (\d{4}-\d{2}-\d{2})\b")
DAY_SUBSECTION = re.compile(r"^### (\d{4}-\d{2}-\d{2})\b")


def has_content(lines: list[str]) -> bool:
    """True if anything but blank lines and `# title` lines is there."""
    return any(line.strip() and (inside or not TITLE.match(line)) for line, inside in iter_fenced(lines))


def count_entries(text: str) -> int:
    """Entries of a remember-style file: matching `##` headers, or 1 for a non-empty headerless file."""
    lines = text.splitlines()
    headers = sum(1 for line, inside in iter_fenced(lines) if not inside and ENTRY_HEADER.match(line))
    if headers:
        return headers
    return 1 if has_content(lines) else 0


def strip_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def demote(lines: list[str], min_level: int) -> list[str]:
    """Every header one level deeper, and at least `min_level` (capped at 6); code fences untouched."""
    out = []
    for line, inside in iter_fenced(lines):
        match = None if inside else HEADER.match(line)
        if match:
            level = min(max(len(match.group(1)) + 1, min_level), 6)
            line = "#" * level + line[len(match.group(1)) :]
        out.append(line)
    return out


def drop_title(lines: list[str]) -> list[str]:
    """The lines without a leading `# title` line (the first non-blank line, when it is one)."""
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        return lines[i + 1 :] if TITLE.match(line) else lines
    return []


def parse_date(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


@dataclass
class Section:
    """One `## ` section: its header line, a sort key (a date, or None), body lines without blank ends."""

    header: str
    key: date | None
    body: list[str]


def section_date(section: Section) -> date:
    """The date of a dated section (its sort key)."""
    assert section.key is not None, "asked only of dated sections"
    return section.key


@dataclass
class Doc:
    """A file of `## ` sections: what comes before the first one, then the sections in file order."""

    preamble: list[str]
    sections: list[Section] = field(default_factory=list)


def split_sections(
    lines: list[str], start: re.Pattern[str], key: re.Pattern[str] | None
) -> tuple[list[str], list[Section]]:
    """Split `lines` at each line matching `start` (outside fences); keys parsed from `key`."""
    head: list[str] = []
    sections: list[Section] = []
    current: list[str] = head
    for line, inside in iter_fenced(lines):
        if not inside and start.match(line):
            found = key.match(line) if key is not None else None
            section = Section(line.rstrip(), parse_date(found.group(1)) if found else None, [])
            sections.append(section)
            current = section.body
        else:
            current.append(line)
    for section in sections:
        section.body = strip_blank(section.body)
    return strip_blank(head), sections


def parse_doc(text: str, key: re.Pattern[str]) -> Doc:
    preamble, sections = split_sections(text.splitlines(), SECTION, key)
    return Doc(preamble, sections)


def render_doc(doc: Doc) -> str:
    """Preamble, then the sections without a key in file order, then the keyed ones by key.

    Stable: rendering a parsed rendering gives the same text (idempotent rollups).
    """
    unkeyed = [s for s in doc.sections if s.key is None]
    keyed = sorted((s for s in doc.sections if s.key is not None), key=section_date)
    parts = ["\n".join(doc.preamble)] if doc.preamble else []
    parts += ["\n".join([s.header, *s.body]) for s in unkeyed + keyed]
    return "\n\n".join(parts) + "\n"
