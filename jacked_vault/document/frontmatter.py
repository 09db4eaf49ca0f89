"""Load frontmatter YAML strictly: only what a safe loader turns into plain JSON values.

Refused: anchors, aliases, explicit tags, merge keys, duplicate keys, complex keys, YAML
directives and document markers, several documents, collections nested deeper than a list
inside the top mapping, and values that are not JSON (unquoted dates, .inf, .nan). Messages
name a field only if the schema knows it (`show`), give lines, and never quote what the author
wrote: a key, an anchor, a tag or the input a YAML error points at.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass, field
from typing import Any

from jacked_vault.document.problems import invalid, printable, show
from jacked_vault.errors import VaultError

# Top-level mapping (1) holding lists or mappings (2); nothing a note needs goes deeper.
_MAX_DEPTH = 2
# A valid note has about 300 values at most; stop hostile input before the slow pure loader.
MAX_VALUES = 1000
_MAX_PROBLEM_CHARS = 200
_FIRST_LINE = 2  # the frontmatter starts on line 2 of the file, after the opening fence
# What a YAML error may quote of its own: one character or a token name (`'\t'`, `'<stream end>'`);
# any other quoted text is input (a tag handle, an anchor) and is shown as `'…'`.
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_OWN_QUOTE = re.compile(r"'(?:\\?[^']|<[a-z ]+>)'|\"(?:\\?[^\"]|<[a-z ]+>)\"")


@dataclass
class _Mapping:
    keys: set[str] = field(default_factory=set)
    expecting_key: bool = True
    current_key: str = ""
    current_line: int = 0  # the file line of `current_key`


def _line(event: Any) -> int:
    return event.start_mark.line + _FIRST_LINE


def _where(stack: list[_Mapping | None]) -> str:
    """`field 'x' (line n): ` when the current event sits in the value of top-level field x."""
    top = stack[0] if stack else None
    if isinstance(top, _Mapping) and (len(stack) > 1 or not top.expecting_key):
        return f"{show(top.current_key, top.current_line)}: "
    return ""


def _check_events(events: Any, source: str) -> None:
    """Walk the parser's events and refuse every construct outside plain JSON-like YAML."""
    from ruamel.yaml import events as ev

    stack: list[_Mapping | None] = []  # None marks a sequence
    documents = values = 0
    for event in events:
        if isinstance(event, ev.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise invalid(source, "frontmatter holds more than one YAML document")
            if event.explicit or event.version or event.tags:
                raise invalid(source, "YAML directives and '---' markers are not allowed")
            continue
        if isinstance(event, ev.AliasEvent):
            raise invalid(source, f"{_where(stack)}YAML aliases are not allowed")
        if not isinstance(event, ev.NodeEvent):
            if isinstance(event, ev.CollectionEndEvent):
                stack.pop()
            continue
        values += 1
        if values > MAX_VALUES:
            raise invalid(source, f"frontmatter holds more than {MAX_VALUES} values")
        if event.anchor:
            raise invalid(source, f"{_where(stack)}YAML anchors are not allowed")
        if getattr(event, "tag", None):
            raise invalid(source, f"{_where(stack)}YAML tags are not allowed")
        parent = stack[-1] if stack else None
        if isinstance(parent, _Mapping):
            if parent.expecting_key:
                _check_key(event, parent, source)
                continue
            parent.expecting_key = True
        if isinstance(event, ev.CollectionStartEvent):
            if len(stack) >= _MAX_DEPTH:
                raise invalid(source, f"{_where(stack)}nested lists or mappings are not allowed")
            stack.append(_Mapping() if isinstance(event, ev.MappingStartEvent) else None)


def _check_key(event: Any, mapping: _Mapping, source: str) -> None:
    from ruamel.yaml import events as ev

    if not isinstance(event, ev.ScalarEvent):
        raise invalid(source, "mapping keys must be plain scalars, not lists or mappings")
    if event.value == "<<" and not event.style:
        raise invalid(source, "YAML merge keys ('<<') are not allowed")
    if event.value in mapping.keys:
        raise invalid(source, f"{show(event.value, _line(event))} is given twice")
    mapping.keys.add(event.value)
    mapping.expecting_key = False
    mapping.current_key = event.value
    mapping.current_line = _line(event)


def _json_problem(value: object) -> str | None:
    """Why `value` is not a JSON value, or None if it is."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return f"{value} is not a JSON number; quote it if it is text"
        return None
    if isinstance(value, (datetime.date, datetime.time)):
        return "an unquoted date or timestamp is not a JSON value; quote it"
    if isinstance(value, list):
        return next(filter(None, map(_json_problem, value)), None)
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            return "mapping keys must be strings"
        return next(filter(None, map(_json_problem, value.values())), None)
    return f"a {type(value).__name__} is not a JSON value"


def _masked(quoted: re.Match[str]) -> str:
    return quoted.group() if _OWN_QUOTE.fullmatch(quoted.group()) else "'…'"


def _yaml_problem(error: Exception) -> str:
    """A short description of a YAML error: the problem and its file line/column, no input text
    (only the YAML library's own problem, its quotes of the input masked)."""
    problem = getattr(error, "problem", None)
    problem = printable(_QUOTED.sub(_masked, problem), _MAX_PROBLEM_CHARS) if problem else type(error).__name__
    mark = getattr(error, "problem_mark", None)
    where = f" (line {mark.line + _FIRST_LINE}, column {mark.column + 1})" if mark is not None else ""
    return f"frontmatter is not valid YAML{where}: {problem}"


def load_frontmatter(text: str, source: str) -> dict[str, Any]:
    """Parse the YAML between the fences into a dict of JSON values; VALIDATION otherwise."""
    from ruamel.yaml import YAML

    try:
        _check_events(YAML(typ="safe", pure=True).parse(text), source)
        data = YAML(typ="safe", pure=True).load(text)
    except VaultError:
        raise
    except Exception as error:  # the YAML library may raise anything on hostile input
        raise invalid(source, _yaml_problem(error)) from None
    if data is None:
        raise invalid(source, "frontmatter is empty")
    if not isinstance(data, dict):
        raise invalid(source, f"frontmatter must be a mapping of fields, not {type(data).__name__}")
    for key, value in data.items():
        if not isinstance(key, str):
            raise invalid(source, f"field names must be strings, not {type(key).__name__}")
        problem = _json_problem(value)
        if problem:
            raise invalid(source, f"{show(key)}: {problem}")
    return data
