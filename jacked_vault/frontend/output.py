"""Printing for the CLI: a result's JSON (with its schema) or its text made terminal-safe, and errors.

Every result type renders itself (`to_json()`, `to_text()`); this module only chooses which,
adds the `schema`/`ok` envelope, and strips escape sequences from all human text in one place.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from contextvars import ContextVar

from jacked_vault.errors import VaultError
from jacked_vault.render import Result

# Commands that share another command's JSON schema (SPEC 8: add and handoff are jacked.add.v1).
SCHEMA_ALIASES = {"handoff": "add"}  # SPEC 6: a handoff answers as the add it is
ERROR_SCHEMA = "jacked.error.v1"  # a failure before any command was chosen (`jacked memory frobnicate`)
_ANSWERING_JSON: ContextVar[bool] = ContextVar("answering_json", default=False)  # set by `execute`


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
    mode = _ANSWERING_JSON.set(as_json)  # progress lines stay off while a command answers in JSON
    try:
        result = action()
        emit(schema, as_json, result)
    except VaultError as exc:
        return emit_error(exc, as_json, schema)
    except reraised:
        raise
    except Exception as exc:  # no traceback ever reaches a person
        return emit_unexpected(exc, as_json, schema)
    finally:
        _ANSWERING_JSON.reset(mode)
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


PROGRESS_EVERY_S = 0.2  # at most five redraws of a progress line a second
RATE_AFTER_S = 0.5  # a rate, and the time left, only once there is enough to measure


def progress_text(label: str, done: int, total: int | None, elapsed: float) -> str:
    """`indexing notes: 250/1000 (125/s, ~6s left)`: how far, of how many, how fast, how long left."""
    text = f"{label}: {done}" + (f"/{total}" if total else "")
    if elapsed >= RATE_AFTER_S and done:
        rate = done / elapsed
        left = f", ~{(total - done) / rate:.0f}s left" if total and total > done else ""
        text += f" ({rate:,.0f}/s{left})"
    return text


class _Line:
    """One progress line on a terminal's stderr, redrawn in place (see `progress_text`)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.started = time.monotonic()
        self.drawn = 0.0
        self.shown = False

    def __call__(self, done: int, total: int | None = None) -> None:
        now = time.monotonic()
        if self.shown and now - self.drawn < PROGRESS_EVERY_S and (total is None or done < total):
            return
        self.drawn, self.shown = now, True
        sys.stderr.write("\r" + progress_text(self.label, done, total, now - self.started) + "\x1b[K")
        sys.stderr.flush()


def _progress_shown() -> bool:
    """Progress is for a person at a terminal: never while the command answers in JSON."""
    return not _ANSWERING_JSON.get() and sys.stderr.isatty()


def tty_progress(label: str) -> _Line | None:
    """A progress callback `(done, total=None)` keeping `label: done/total (rate, time left)` on
    one stderr line, or None when stderr is not a terminal or the answer is JSON."""
    return _Line(label) if _progress_shown() else None


class TtyStages:
    """Progress of work done in stages, one line each (`judging files`, then `indexing notes`), on
    a terminal's stderr: `stage(label)` ends the line before and gives the next callback; `end()`
    ends the last line. Callers pass `stage` down where the work is; None without a terminal."""

    def __init__(self) -> None:
        self.line: _Line | None = None

    def stage(self, label: str) -> _Line:
        self.end()
        self.line = _Line(label)
        return self.line

    def end(self) -> None:
        if self.line is not None and self.line.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
        self.line = None


def tty_stages() -> TtyStages | None:
    """Stages of progress for a person at a terminal; None with --json or no terminal."""
    return TtyStages() if _progress_shown() else None
