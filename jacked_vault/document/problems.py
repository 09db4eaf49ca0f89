"""VALIDATION errors about a note: `<source>: <where>: <problem>`, never quoting a value."""

from __future__ import annotations

from collections.abc import Iterable

from jacked_vault.document.model import FRONTMATTER_KEYS
from jacked_vault.errors import VaultError


def invalid(source: str | None, problem: str) -> VaultError:
    """A VALIDATION error, prefixed with the source (a file name) when there is one."""
    return VaultError("VALIDATION", f"{source}: {problem}" if source else problem)


def field_path(path: Iterable[str | int]) -> str:
    """`('tags', 2)` -> `tags[2]`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _escape(char: str) -> str:
    point = ord(char)
    return f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"


def printable(text: str, limit: int = 60) -> str:
    """`text` cut after `limit` characters, unprintable characters escaped as `\\uXXXX`."""
    escaped = "".join(c if c.isprintable() else _escape(c) for c in text[:limit])
    return escaped + ("…" if len(text) > limit else "")


def show(name: object, line: int | None = None) -> str:
    """A field for messages: `field 'title'` when the note schema knows the name, else `an
    unknown field` (a name the author wrote may be anything, a credential too: never quoted);
    then its line in the file, when known."""
    field = f"field '{name}'" if name in FRONTMATTER_KEYS else "an unknown field"
    return field + (f" (line {line})" if line is not None else "")
