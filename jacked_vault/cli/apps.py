"""The typer apps, the options every command shares, and the one way a command runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer

from jacked_vault.cli.output import emit, emit_error, emit_unexpected
from jacked_vault.errors import VaultError

app = typer.Typer(
    name="jacked",
    help="jacked-vault: one git-native memory vault for every coding agent.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
memory_app = typer.Typer(
    help="Typed Markdown notes in a git repo: add, search, read, check.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(memory_app, name="memory")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object (schema jacked.<cmd>.v1).")]
VaultOpt = Annotated[Optional[str], typer.Option("--vault", help="Vault path (default $JACKED_VAULT_DIR or ~/jacked-vault).")]
Group = Annotated[Optional[str], typer.Option("--group", help="Group (default: the group of the cwd's repo).")]
Body = Annotated[Optional[str], typer.Option("--body", help="The text.")]
BodyFile = Annotated[Optional[str], typer.Option("--body-file", help="Read the text from a file.")]
Stdin = Annotated[bool, typer.Option("--stdin", help="Read the text from standard input.")]
Harness = Annotated[Optional[str], typer.Option("--harness", help="Who writes (default $JACKED_MEMORY_HARNESS or unknown).")]


@memory_app.callback()
def _memory(ctx: typer.Context, vault: VaultOpt = None) -> None:
    ctx.obj = {"vault": vault}


def context_for(ctx: typer.Context, vault: str | None, cwd: str | None = None):
    """The library Context for this command: --vault after the command wins over the one before it."""
    from jacked_vault.context import Context

    return Context.create(vault=vault if vault is not None else (ctx.obj or {}).get("vault"), cwd=cwd)


def run(command: str, as_json: bool, action: Callable[[], tuple[dict[str, Any], Callable[[], str]]]) -> None:
    """Call the library, render the result or the expected error; exit 1 (2 for usage)."""
    try:
        payload, human = action()
        emit(command, as_json, payload, human)
    except VaultError as exc:
        raise typer.Exit(emit_error(exc, as_json)) from None
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - no traceback ever reaches a person
        raise typer.Exit(emit_unexpected(exc, as_json)) from None


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
    if len(raw) > cap:
        raise VaultError("VALIDATION", f"the text is over the {cap}-byte cap; nothing was written")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise VaultError("VALIDATION", "the text is not valid UTF-8; nothing was written") from None


def time_option(value: str | None, option: str) -> str | None:
    if value is None:
        return None
    from jacked_vault.document.timestamps import normalise_timestamp

    try:
        return normalise_timestamp(value)
    except VaultError:
        raise VaultError("USAGE", f"{option}: not a date or an ISO 8601 time (like 2026-12-01 or 2026-12-01T17:30:00Z)") from None
