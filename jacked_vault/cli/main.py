"""The `jacked` console script.

`jacked _hook <name>` is dispatched before typer is even imported, so the hooks a harness
runs at session start and end pay only for what they use; a hook fired inside a distiller run
(`capture.marker`) returns 0 before anything else is imported. The hot commands (add, handoff,
read, search, brief) take the lean path (`cli.lean`) when their arguments are plain, also without
typer. Every other command, and anything the lean path leaves alone, goes through the typer apps;
command modules register on them when imported, and import the library inside each command so
`jacked --help` stays fast.
"""

from __future__ import annotations

import sys

# The command modules, in the order `jacked memory --help` lists their commands: importing one
# registers its commands on the typer apps, so this order is the help's (never sorted).
COMMAND_MODULES = (
    "notes",
    "recall",
    "review",
    "ui",
    "groups",
    "sync",
    "enable",
    "hooks",
    "mcp",
    "gitflow",
    "episodic",
    "librarian",
)


def register_commands() -> None:
    """Register every command on the typer apps, in `COMMAND_MODULES` order (a module imported
    earlier keeps its place: the order is set by the first import)."""
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(f"jacked_vault.cli.{name}")


def _run_typer(args: list[str]) -> int:
    """Typer in non-standalone mode so every failure gets our codes (and JSON with --json)."""
    import typer

    register_commands()
    from jacked_vault.cli.apps import app
    from jacked_vault.errors import VaultError
    from jacked_vault.frontend.output import ERROR_SCHEMA, emit_error, emit_unexpected, schema_for

    as_json = "--json" in args
    try:
        result = app(args=args, prog_name="jacked", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        if as_json:
            return emit_error(VaultError("USAGE", "aborted"), as_json)
        sys.stderr.write("aborted\n")
        return 1
    except typer.TyperException as exc:  # usage errors (exit 2) and the command line's own failures
        code = "USAGE" if exc.exit_code == 2 else "INTERNAL"
        if not as_json:
            show = getattr(exc, "show", None)  # usage errors print the usage line with the message
            if callable(show):
                show()
            else:
                sys.stderr.write(f"Error: {exc.format_message()}\n")
            return 2 if code == "USAGE" else 1
        context = getattr(exc, "ctx", None)
        schema = schema_for(context.command_path) if context else ERROR_SCHEMA
        return emit_error(VaultError(code, exc.format_message()), as_json, schema)
    except VaultError as exc:  # raised outside a command's own handler (the app callback)
        return emit_error(exc, as_json)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except Exception as exc:  # no traceback ever reaches a person
        return emit_unexpected(exc, as_json)
    return result if isinstance(result, int) else 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["_hook"]:
        from jacked_vault.capture.marker import inside_distiller

        if inside_distiller():
            return 0  # the agent a distiller runs: no brief, no capture of the capture, no log line
        from jacked_vault.hooks.dispatch import run_hook

        return run_hook(args[1:])
    from jacked_vault.cli.lean import run_lean

    code = run_lean(args)
    return _run_typer(args) if code is None else code


if __name__ == "__main__":
    sys.exit(main())
