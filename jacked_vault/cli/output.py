"""Printing for the CLI: a result's JSON (with its schema) or its text made terminal-safe, and errors.

Every result type renders itself (`to_json()`, `to_text()`); this module only chooses which,
adds the `schema`/`ok` envelope, and strips escape sequences from all human text in one place.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from jacked_vault.errors import VaultError
from jacked_vault.render import Result

# Commands that share another command's JSON schema (SPEC 8: add and handoff are jacked.add.v1).
SCHEMA_ALIASES = {"handoff": "add"}  # SPEC 6: a handoff answers as the add it is
ERROR_SCHEMA = "jacked.error.v1"  # a failure before any command was chosen (`jacked memory frobnicate`)


def schema_for(command_path: str) -> str:
    """`jacked.<cmd>.v1` for a click command path (`jacked memory hooks install` -> jacked.hooks.v1)."""
    words = command_path.split()
    if "memory" not in words[:-1]:
        return ERROR_SCHEMA
    name = words[words.index("memory") + 1]
    return f"jacked.{SCHEMA_ALIASES.get(name, name)}.v1"


def safe(text: object) -> str:
    """Text for a terminal: escape sequences and control characters (but tab and newline) removed."""
    from jacked_vault.safety.text import strip_terminal

    return strip_terminal(str(text))


def emit(schema: str, as_json: bool, result: Result) -> None:
    """Print `result` as one JSON object under `schema`, or as its text."""
    if as_json:
        out = {"schema": schema, "ok": True, **result.to_json()}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return
    text = safe(result.to_text()).rstrip("\n")
    if text:
        sys.stdout.write(text + "\n")


def execute(
    schema: str, as_json: bool, action: Callable[[], Result], passthrough: tuple[type[BaseException], ...] = ()
) -> int:
    """Call the library, print its result or the expected error, and return the exit code: 0, or 1
    when the result says it is not ok (doctor's problems, a refused hook), or the error's code
    (2 for usage errors). Never a traceback; `passthrough` exceptions (the CLI framework's own
    exits) and KeyboardInterrupt are raised as they are."""
    reraised: tuple[type[BaseException], ...] = (KeyboardInterrupt, *passthrough)
    try:
        result = action()
        emit(schema, as_json, result)
    except VaultError as exc:
        return emit_error(exc, as_json, schema)
    except reraised:
        raise
    except Exception as exc:  # no traceback ever reaches a person
        return emit_unexpected(exc, as_json, schema)
    return 1 if getattr(result, "ok", True) is False else 0


def emit_error(error: VaultError, as_json: bool, schema: str = ERROR_SCHEMA) -> int:
    """Print an expected failure (JSON on stdout, or one line on stderr) and return the exit code."""
    if as_json:
        sys.stdout.write(json.dumps({"schema": schema, **error.to_json()}, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"error: {safe(error.message)} [{error.full_code}]\n")
    return error.exit_code


def emit_unexpected(exc: BaseException, as_json: bool, schema: str = ERROR_SCHEMA) -> int:
    """An exception no library function expected: a coded error (and the trace only on request)."""
    import os

    from jacked_vault.errors import from_unexpected

    if os.environ.get("JACKED_DEBUG") == "1":
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    return emit_error(from_unexpected(exc), as_json, schema)


def tty_progress(label: str):
    """A progress callback writing `label: N` on one stderr line, or None when not a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(count: int) -> None:
        sys.stderr.write(f"\r{label}: {count}")
        sys.stderr.flush()

    return show
