"""Read a note file strictly: size cap, UTF-8, `---` fences, strict YAML, then validation."""

from __future__ import annotations

import json
import re

from jacked_vault.document.frontmatter import load_frontmatter
from jacked_vault.document.model import FRONTMATTER_KEYS, MAX_FILE_BYTES, Note
from jacked_vault.document.problems import invalid
from jacked_vault.document.validate import check_fields
from jacked_vault.document.writer import json_line

_FENCE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)  # trailing spaces or tabs (an editor's) do not unmake a fence


def _decode(data: bytes, source: str) -> str:
    """UTF-8 text without a leading byte-order mark (tolerated: some editors add one)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise invalid(
            source, f"not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None
    return text.removeprefix("\ufeff")


def _split(text: str, source: str) -> tuple[str, str]:
    """Split into (frontmatter YAML, body). The body is what follows the closing fence line,
    minus one leading and one trailing line break (CRLF ones too in a CRLF file)."""
    first_line, newline, rest = text.partition("\n")
    if first_line.removesuffix("\r").rstrip(" \t") != "---" or not newline:
        raise invalid(source, "missing frontmatter: the first line must be '---'")
    closing = _FENCE.search(rest)
    if closing is None:
        raise invalid(source, "missing the closing '---' line of the frontmatter")
    after_fence = rest[closing.end() :].removeprefix("\n")
    return rest[: closing.start()], _trim_breaks(after_fence, crlf=first_line.endswith("\r"))


def _trim_breaks(text: str, *, crlf: bool) -> str:
    """Remove one leading line break (the blank line after the fence) and one trailing one."""
    breaks = ("\r\n", "\n") if crlf else ("\n",)
    for line_break in breaks:
        if text.startswith(line_break):
            text = text[len(line_break) :]
            break
    for line_break in breaks:
        if text.endswith(line_break):
            text = text[: -len(line_break)]
            break
    return text


_CANONICAL_LINE = re.compile(r"([a-z_]+): (.+)")


def _canonical_fields(yaml_text: str) -> dict | None:
    """The frontmatter as written by `render_note` (one `key: <JSON>` line each, keys in order),
    read with json; None for anything else, which then takes the strict YAML path.

    A line counts only if re-serialising its value reproduces it byte for byte, so this path
    accepts exactly the writer's output (which the round-trip tests prove is valid YAML with the
    same meaning) and nothing the strict reader would judge differently.
    """
    fields: dict = {}
    keys = iter(FRONTMATTER_KEYS)
    for line in yaml_text.split("\n")[:-1] if yaml_text.endswith("\n") else [None]:
        match = _CANONICAL_LINE.fullmatch(line) if line is not None else None
        if match is None:
            return None
        key, raw = match.groups()
        if key not in keys:  # consumes the iterator: keys must come in canonical order
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        if json_line(value) != raw:
            return None
        fields[key] = value
    return fields


def parse_note(data: bytes, *, source: str = "<note>", checked: bool = False) -> Note:
    """Parse and validate one note file; any problem raises VALIDATION naming `source` and the
    problem, never quoting the body. `checked`: these exact bytes already passed the gate (their
    content hash is the one the search index holds), so only parse them."""
    if len(data) > MAX_FILE_BYTES:
        raise invalid(source, f"file is {len(data)} bytes; the limit is {MAX_FILE_BYTES}")
    yaml_text, body = _split(_decode(data, source), source)
    fields = _canonical_fields(yaml_text)
    if fields is None:
        fields = load_frontmatter(yaml_text, source)
    if not checked:
        check_fields(fields, body, source)
    return Note(**fields, body=body)
