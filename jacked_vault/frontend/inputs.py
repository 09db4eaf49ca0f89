"""Option values turned into what the library takes: the vault chosen, text read from
--body/--body-file/--stdin, times, limits. No typer here: the lean path (`cli.lean`) uses it too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jacked_vault.errors import VaultError

if TYPE_CHECKING:
    from jacked_vault.context import Context


def context_for_options(outer_vault: str | None, vault: str | None, cwd: str | None = None) -> Context:
    """The library Context for a command: its own --vault wins over `jacked memory --vault`, then
    $JACKED_VAULT_DIR (`jacked_vault.environment`); the harness is $JACKED_MEMORY_HARNESS."""
    from jacked_vault import environment

    return environment.context(vault if vault is not None else outer_vault, cwd)


def read_text_input(body: str | None, body_file: str | None, stdin: bool, cap: int) -> str:
    """Exactly one of --body / --body-file / --stdin, read to EOF (blocking or not) but never past cap+1 bytes."""
    import os

    from jacked_vault.safety.fsio import read_stream

    given = [x for x in (body is not None, body_file is not None, stdin) if x]
    if len(given) != 1:
        raise VaultError("USAGE", "give exactly one of --body, --body-file or --stdin")
    if body is not None:
        return body
    source = "--body-file" if body_file is not None else "--stdin"
    try:
        if body_file is not None:
            fd = os.open(body_file, os.O_RDONLY | os.O_CLOEXEC)
            try:
                raw = read_stream(fd, cap + 1)
            finally:
                os.close(fd)
        else:
            raw = read_stream(0, cap + 1)
    except OSError as exc:
        raise VaultError("USAGE", f"cannot read {source}: {exc.strerror}") from None
    except ValueError:  # a NUL byte in the path
        raise VaultError("USAGE", f"cannot read {source}: the path holds a NUL character") from None
    if len(raw) > cap:
        raise VaultError("VALIDATION", f"the text is over the {cap}-byte cap; nothing was written")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise VaultError("VALIDATION", "the text is not valid UTF-8; nothing was written") from None


def time_option(value: str | None, option: str) -> str | None:
    """An ISO 8601 time or date option, normalised; anything else is a usage error."""
    if value is None:
        return None
    from jacked_vault.document.timestamps import normalise_timestamp

    try:
        return normalise_timestamp(value)
    except VaultError:
        raise VaultError(
            "USAGE", f"{option}: not a date or an ISO 8601 time (like 2026-12-01 or 2026-12-01T17:30:00Z)"
        ) from None


def check_limit(value: int, high: int) -> int:
    """--limit N: a usage error outside 1..high."""
    if not 1 <= value <= high:
        raise VaultError("USAGE", f"--limit {value}: give a number from 1 to {high}")
    return value
