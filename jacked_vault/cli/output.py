"""Rendering for the CLI: one JSON object with a schema key, or human text made terminal-safe."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from jacked_vault.errors import VaultError


def safe(text: object) -> str:
    """Vault content for a terminal: escape sequences and control characters removed."""
    from jacked_vault.safety.text import strip_terminal

    return strip_terminal(str(text))


def emit_json(command: str, payload: dict[str, Any]) -> None:
    out = {"schema": f"jacked.{command}.v1", "ok": True, **payload}
    sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")


def emit(command: str, as_json: bool, payload: dict[str, Any], human: Callable[[], str]) -> None:
    """Print `payload` as `jacked.<command>.v1` JSON, or the human rendering."""
    if as_json:
        emit_json(command, payload)
    else:
        text = human()
        if text:
            sys.stdout.write(text.rstrip("\n") + "\n")


def emit_error(error: VaultError, as_json: bool) -> int:
    """Print an expected failure (JSON on stdout, or one line on stderr) and return the exit code."""
    if as_json:
        sys.stdout.write(json.dumps(error.to_json(), ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"error: {safe(error.message)} [{error.full_code}]\n")
    return error.exit_code


def emit_unexpected(exc: BaseException, as_json: bool) -> int:
    """An exception no library function expected: a coded error (and the trace only on request)."""
    import os

    from jacked_vault.errors import from_unexpected

    if os.environ.get("JACKED_DEBUG") == "1":
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    return emit_error(from_unexpected(exc), as_json)


def tty_progress(label: str):
    """A progress callback writing `label: N` on one stderr line, or None when not a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(count: int) -> None:
        sys.stderr.write(f"\r{label}: {count}")
        sys.stderr.flush()

    return show
