"""The CLI's command tree as click sees it, for tests that must cover every command and option."""

from __future__ import annotations


def root_command():
    """The `jacked` click group with every command module registered."""
    import importlib

    import typer

    for name in (
        "enable",
        "episodic",
        "gitflow",
        "groups",
        "hooks",
        "librarian",
        "mcp",
        "notes",
        "recall",
        "review",
        "sync",
        "ui",
    ):
        importlib.import_module(f"jacked_vault.cli.{name}")  # each registers its commands on the app
    from jacked_vault.cli.apps import app

    return typer.main.get_command(app)


def walk(command=None, path: tuple[str, ...] = ()):
    """(path, click command) for every group and command under `command` (default: `jacked`)."""
    command = command or root_command()
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from walk(sub, (*path, name))


def leaf_commands() -> list[str]:
    """`memory add`, `memory hot show`, … : every command that runs something."""
    return [" ".join(path) for path, command in walk() if not getattr(command, "commands", None) and path]
