"""Read a note file strictly: size cap, UTF-8, `---` fences, strict YAML, then validation."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from jacked_vault.document.frontmatter import MAX_VALUES, load_frontmatter
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
        raise invalid(source, f"not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})") from None
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


# What a YAML stream may not hold raw (ruamel's non-printable characters), and what it reads as a
# line break inside a quoted scalar (NEL, LS, PS) where JSON keeps the character: frontmatter with
# any of them takes the YAML path, so the fast path never reads such text differently.
_NOT_PLAIN_ASCII = re.compile("[^\n\x20-\x7e]")  # the same class for ASCII text (compiled in a fraction)


@cache
def _not_plain() -> re.Pattern[str]:
    return re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _has_not_plain(text: str) -> bool:
    return (_NOT_PLAIN_ASCII if text.isascii() else _not_plain()).search(text) is not None


_KEY_ORDER = {key: position for position, key in enumerate(FRONTMATTER_KEYS)}
_DECLINED = object()


def _canonical_value(raw: str) -> object:
    """The value of one canonical `key: <JSON>` line: a string, null or a list of strings (all a
    note holds) exactly as `json_line` writes it; `_DECLINED` for anything else."""
    if raw == "null":
        return None
    if raw == "[]":
        return []
    if len(raw) > 1 and raw[0] == '"' and raw[-1] == '"':
        inner = raw[1:-1]
        if '"' not in inner and "\\" not in inner:  # json_line writes such a string as it is
            return inner
    elif raw.startswith('["') and raw.endswith('"]') and len(raw) > 3:
        inner = raw[2:-2]
        if "\\" not in inner:
            parts = inner.split('", "')
            if not any('"' in part for part in parts):  # every quote a delimiter: json_line writes exactly this
                return parts
    else:
        return _DECLINED
    try:  # escapes: read with json, kept only if written back byte for byte
        value = json.loads(raw)
    except ValueError:
        return _DECLINED
    if not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(item, str) for item in value))):
        return _DECLINED
    return value if json_line(value) == raw else _DECLINED


def _canonical_fields(yaml_text: str) -> dict[str, Any] | None:
    """The frontmatter as written by `render_note` (one `key: <JSON>` line each, keys in order,
    values strings, null or lists of strings), read without YAML; None for anything else, which
    then takes the strict YAML path.

    A line counts only if writing its value again reproduces it byte for byte, and the text holds
    no character YAML reads differently from JSON, so this path accepts only the writer's output
    (which the round-trip tests prove is valid YAML with the same meaning) and gives exactly what
    the strict reader gives (tests/unit/test_reader_fast.py fuzzes the two against each other).
    """
    if not yaml_text.endswith("\n") or _has_not_plain(yaml_text):
        return None
    fields: dict[str, Any] = {}
    last = -1
    values = 0
    for line in yaml_text[:-1].split("\n"):
        key, separator, raw = line.partition(": ")
        position = _KEY_ORDER.get(key, -1)
        if not separator or not raw or position <= last:  # keys come once each, in canonical order
            return None
        last = position
        value = _canonical_value(raw)
        if value is _DECLINED:
            return None
        values += 2 + (len(value) if isinstance(value, list) else 0)
        fields[key] = value
    return fields if values + 1 <= MAX_VALUES else None  # the strict reader counts the mapping too


def parse_note(data: bytes, *, source: str = "<note>", checked: bool = False) -> Note:
    """Parse and validate one note file; any problem raises VALIDATION naming `source` and the
    problem, never quoting the body. `checked`: these exact bytes already passed the gate (their
    content hash is the one the search index holds), so only parse them."""
    if len(data) > MAX_FILE_BYTES:
        raise invalid(source, f"file is {len(data)} bytes; the limit is {MAX_FILE_BYTES}")
    yaml_text, body = _split(_decode(data, source), source)
    fields = _canonical_fields(yaml_text)
    plain = fields is not None  # strings, None and lists of strings only
    if fields is None:
        fields = load_frontmatter(yaml_text, source)
    if not checked:
        check_fields(fields, body, source, plain=plain)
    return Note(**fields, body=body)
