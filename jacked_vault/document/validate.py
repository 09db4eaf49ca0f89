"""Validate note fields: `schemas/note.schema.json`, then the rules a schema cannot express."""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from jacked_vault.document.model import FRONTMATTER_KEYS, MAX_BODY_BYTES, Note
from jacked_vault.document.problems import field_path, invalid
from jacked_vault.document.timestamps import parse_timestamp
from jacked_vault.errors import VaultError
from jacked_vault.resources import data_file
from jacked_vault.safety.text import check_text

_TYPE_NAMES = {
    "null": "null",
    "boolean": "a boolean",
    "number": "a number",
    "integer": "an integer",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
}
_TIMESTAMP_KEYS = ("valid_from", "valid_until", "created_at", "updated_at")


NOTE_SCHEMA = "note.schema.json"
# Each schema a command checks on its usual path -> the module its fast check is generated into
# (beside this one): the note's, the shared vault.json's (and vault.local.json's) and the machine
# config's, so no command imports jsonschema unless a document is refused (it explains why).
FAST_CHECKS = {NOTE_SCHEMA: "_note_check", "vault.schema.json": "_vault_check", "config.schema.json": "_config_check"}


@cache
def _schema(name: str = NOTE_SCHEMA) -> dict[str, Any]:
    return json.loads(data_file("schemas", name).read_text(encoding="utf-8"))


@cache
def _validator() -> Any:
    """The reference validator, used to explain a failure (jsonschema, imported on first use)."""
    import jsonschema

    return jsonschema.Draft202012Validator(_schema())


def fast_check_module(name: str = NOTE_SCHEMA) -> Path:
    """The generated fast check of schema `name` (a key of FAST_CHECKS)."""
    return Path(__file__).with_name(FAST_CHECKS[name] + ".py")


_FAST_CHECK_HEADER = """# Generated from schemas/{name} (sha256 {digest}) by fastjsonschema: do not edit.
# Regenerate: python -c "from jacked_vault.document.validate import write_fast_check; write_fast_check()"
# (tests/e2e/test_document.py fails while the digest differs from the schema's.)


class JsonSchemaValueException(ValueError):
    \"\"\"The schema refuses the value (the reference validator says why).\"\"\"

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)


JsonSchemaValuesException = JsonSchemaValueException
"""


def fast_check_source(name: str = NOTE_SCHEMA) -> str:
    """Schema `name` compiled to Python by fastjsonschema: ~40x faster than jsonschema on valid notes.

    The schema is compiled as draft-07 (fastjsonschema's newest) after moving each `$ref` with
    siblings into `allOf`, which keeps its 2020-12 meaning. The code is generated once and
    shipped (`_note_check.py`), so a command pays neither the import of fastjsonschema nor its
    compile (~60 ms together). `tests/e2e/test_document.py` checks that whatever it accepts
    jsonschema accepts too; a note it refuses is re-checked by jsonschema, which names the field.
    """
    import fastjsonschema

    schema = {key: value for key, value in _schema(name).items() if key != "$id"}  # `validate`, not a name from $id
    text = json.dumps({**schema, "$schema": "http://json-schema.org/draft-07/schema#"})
    draft7 = json.loads(text.replace('"$defs"', '"definitions"').replace("#/$defs/", "#/definitions/"))
    code = fastjsonschema.compile_to_code(_ref_siblings_to_all_of(draft7))
    code = code.replace("from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n", "")
    if code.count("Decimal") == 1:  # only its import: a schema without numbers never loads `decimal`
        code = code.replace("from decimal import Decimal\n", "")
    # An item's name (`data.tags[2]`) is made for every item checked, used only in a refusal:
    # `"…[{i}]".format(**locals())` copies every local each time, the same f-string does not.
    code = re.sub(r'"((?:[^"{}\\]|\{[A-Za-z_]\w*\})*)"\.format\(\*\*locals\(\)\)', r'f"\1"', code)
    return _FAST_CHECK_HEADER.replace("{name}", name).replace("{digest}", schema_digest(name)) + code


def schema_digest(name: str = NOTE_SCHEMA) -> str:
    """sha256 of schema file `name`, recorded in its generated check."""
    import hashlib

    return hashlib.sha256(data_file("schemas", name).read_bytes()).hexdigest()


def write_fast_check() -> None:
    """Generate every fast check of FAST_CHECKS."""
    for name in FAST_CHECKS:
        fast_check_module(name).write_text(fast_check_source(name), encoding="utf-8")


def _ref_siblings_to_all_of(node: Any) -> Any:
    """Draft-07 ignores keywords beside `$ref`; 2020-12 applies them. Move `$ref` into allOf."""
    if isinstance(node, list):
        return [_ref_siblings_to_all_of(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _ref_siblings_to_all_of(value) for key, value in node.items()}
    if "$ref" in node and len(node) > 1:
        ref = node.pop("$ref")
        node["allOf"] = [*node.get("allOf", []), {"$ref": ref}]
    return node


def _plain_json(value: object) -> bool:
    """Only JSON's own Python types (fastjsonschema would take a tuple for an array)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


def schema_accepts(fields: dict[str, Any], *, plain: bool = False) -> bool:
    """True when the fast validator (the generated `_note_check`) accepts `fields` (`plain`: see
    `fast_accepts`)."""
    return fast_accepts(NOTE_SCHEMA, fields, plain=plain)


@cache
def _fast_check(name: str) -> Any:
    """The generated module of schema `name` (imported once, on first use)."""
    from importlib import import_module

    return import_module(f"jacked_vault.document.{FAST_CHECKS[name]}")


def fast_accepts(name: str, data: object, *, plain: bool = False) -> bool:
    """True when the generated fast check of schema `name` accepts `data` (never laxer than
    jsonschema: a refusal is for the reference validator to confirm and explain). `plain`: the
    caller knows `data` holds only JSON's own Python types (the canonical frontmatter reader's
    strings, None and lists of strings), so they are not checked again."""
    check = _fast_check(name)
    if not plain and not _plain_json(data):
        return False
    try:
        check.validate(data)
    except check.JsonSchemaValueException:
        return False
    return True


def _json_type(value: object) -> str:
    """How a value looks in JSON terms, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def _describe(error: Any) -> str:
    """One jsonschema error as `field 'x': problem`: the field and the rule broken, never the
    value (a bad value may be a credential pasted into the wrong field), and never a name the
    schema does not know (unknown fields are counted)."""
    keyword, expected, value = error.validator, error.validator_value, error.instance
    if keyword == "required":
        missing = [k for k in expected if k not in value]
        return f"missing required field(s) {', '.join(repr(k) for k in missing)}"
    if keyword == "additionalProperties":
        unknown = sum(key not in error.schema["properties"] for key in value)
        return "an unknown field" if unknown == 1 else f"{unknown} unknown fields"
    if keyword == "type":
        wanted = [expected] if isinstance(expected, str) else expected
        problem = f"expected {' or '.join(_TYPE_NAMES[t] for t in wanted)}, got {_json_type(value)}"
    elif keyword == "const":
        problem = f"must be {json.dumps(expected)}"
    elif keyword == "enum":
        problem = f"not one of: {', '.join(expected)}"
    elif keyword == "pattern":
        grammar = error.schema.get("title", "required")
        problem = f"does not match the {grammar} grammar"
    elif keyword == "minLength":
        problem = "must not be empty"
    elif keyword == "maxLength":
        problem = f"is {len(value)} characters long; the limit is {expected}"
    elif keyword == "minItems":
        problem = f"needs at least {expected} item(s)"
    elif keyword == "maxItems":
        problem = f"has {len(value)} items; the limit is {expected}"
    elif keyword == "uniqueItems":
        problem = "items must be unique"
    else:
        problem = f"breaks the schema rule '{keyword}'"
    where = field_path(error.absolute_path)
    return f"field '{where}': {problem}" if where else problem


def _error_order(error: Any) -> tuple[int, str]:
    """Whole-document errors first, then fields in canonical order."""
    path = list(error.absolute_path)
    if not path:
        return (-1, "")
    key = path[0]
    rank = FRONTMATTER_KEYS.index(key) if key in FRONTMATTER_KEYS else len(FRONTMATTER_KEYS)
    return (rank, field_path(path))


def _check_text(source: str | None, label: str, value: str, *, multiline: bool) -> None:
    try:
        check_text(label, value, multiline=multiline)
    except VaultError as error:
        raise invalid(source, error.message) from None


def _check_no_line_breaks(fields: dict[str, Any], source: str | None) -> None:
    """Frontmatter values are single-line. This also closes a gap in the schema patterns:
    Python's `$` (used by jsonschema) accepts a trailing newline, ECMA-262's does not."""
    for key, value in fields.items():
        items = value if isinstance(value, list) else [value]
        for index, item in enumerate(items):
            if isinstance(item, str) and "\n" in item:
                where = f"{key}[{index}]" if isinstance(value, list) else key
                raise invalid(source, f"field '{where}': line breaks are not allowed")


@lru_cache(maxsize=1024)
def _parsed_time(text: str) -> datetime:
    """`parse_timestamp` of a string, kept: a note's timestamps are often one value (created,
    updated and valid from at once), and a build checks every note."""
    return parse_timestamp(text)


def _check_times(fields: dict[str, Any], source: str | None) -> None:
    times = {}
    for key in _TIMESTAMP_KEYS:
        value = fields[key]
        if value is not None:
            try:
                times[key] = _parsed_time(value) if type(value) is str else parse_timestamp(value)
            except VaultError:  # its message quotes the value
                raise invalid(source, f"field '{key}': not a real date and time") from None
    if "valid_until" in times and times["valid_until"] < times["valid_from"]:
        raise invalid(source, "field 'valid_until': is before valid_from")


def _check_body(body: object, source: str | None) -> None:
    if not isinstance(body, str):
        raise invalid(source, f"body: expected a string, got {_json_type(body)}")
    _check_text(source, "body", body, multiline=True)
    size = len(body.encode("utf-8"))
    if size > MAX_BODY_BYTES:
        raise invalid(source, f"body is {size} bytes of UTF-8; the limit is {MAX_BODY_BYTES}")
    if not body.strip():
        raise invalid(source, "body is empty")


def check_fields(fields: dict[str, Any], body: object, source: str | None, *, plain: bool = False) -> None:
    """Validate frontmatter `fields` (JSON values) and `body`; raise VALIDATION naming
    `source` and the first problem. `plain`: `fields` hold only strings, None and lists of
    strings (as `document.reader` reads canonical frontmatter), whose types need no check."""
    if not schema_accepts(fields, plain=plain):  # the fast check is never laxer; the reference one explains
        errors = sorted(_validator().iter_errors(fields), key=_error_order)
        if errors:
            raise invalid(source, _describe(errors[0]))
    _check_text(source, "field 'title'", fields["title"], multiline=False)
    if "\t" in fields["title"]:  # one line of text: no control character, a tab included (a body may hold tabs)
        raise invalid(source, "field 'title' contains control character U+0009")
    if not fields["title"].strip():
        raise invalid(source, "field 'title': must not be blank")
    if fields.get("status_reason") is not None:
        _check_text(source, "field 'status_reason'", fields["status_reason"], multiline=False)
    _check_no_line_breaks(fields, source)
    _check_times(fields, source)
    _check_body(body, source)


def validate_note(note: Note) -> None:
    """Raise VALIDATION unless `note` is a valid `jacked.memory.v1` note."""
    check_fields(note.frontmatter(), note.body, None)
