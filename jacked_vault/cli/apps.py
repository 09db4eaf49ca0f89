"""The typer apps, the options every command shares, the help layout, and the one way a command runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from jacked_vault.frontend.inputs import context_for_options
from jacked_vault.frontend.output import Result, execute, schema_for

if TYPE_CHECKING:
    from typer import _click as click  # typer vendors click: its types are what typer's classes take

    from jacked_vault.context import Context

# Help sections of `jacked memory --help`, in the order they are listed.
NOTES, RECALL, REVIEW, GROUPS, SYNC, HOOKS, MAINTENANCE = (
    "Notes",
    "Recall",
    "Review",
    "Groups",
    "Sync",
    "Hooks & integrations",
    "Maintenance",
)
SECTIONS = (NOTES, RECALL, REVIEW, GROUPS, SYNC, HOOKS, MAINTENANCE)


class SectionedGroup(TyperGroup):
    """A command group whose help lists its commands under headed sections (`rich_help_panel`)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, click.Command]]] = {}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                sections.setdefault(getattr(command, "rich_help_panel", None) or "Commands", []).append((name, command))
        if not sections:
            return
        width = max(len(name) for rows in sections.values() for name, _ in rows)
        order = {title: n for n, title in enumerate(SECTIONS)}
        for title in sorted(sections, key=lambda t: order.get(t, len(order))):
            with formatter.section(title):
                formatter.write_dl(
                    [
                        (name.ljust(width), cmd.get_short_help_str(formatter.width - 6 - width))
                        for name, cmd in sections[title]
                    ]
                )


class Command(TyperCommand):
    """A command whose arguments show as git shows them: `ID`, `[ID]`, `[WORDS]...` (no braces, no types)."""

    @staticmethod
    def _arguments(ctx: click.Context) -> list[TyperArgument]:
        return [p for p in ctx.command.params if isinstance(p, TyperArgument) and not p.hidden]

    @staticmethod
    def _usage(param: TyperArgument) -> str:
        assert param.name is not None, "click names every argument"
        name = param.metavar or param.name.upper()
        name = name if param.required else f"[{name}]"
        return name + ("..." if param.nargs != 1 else "")

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        assert self.options_metavar is not None, "click's default is [OPTIONS] and no command here unsets it"
        return [self.options_metavar, *(self._usage(p) for p in self._arguments(ctx))]

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        arguments = [(self._usage(p), p.help or "") for p in self._arguments(ctx)]
        options = [
            record for p in self.get_params(ctx) if p.param_type_name == "option" and (record := p.get_help_record(ctx))
        ]
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def example(*lines: str) -> str:
    """A help epilog: `Example:` and command lines kept as written (click's \\b stops rewrapping)."""
    return "\b\nExample" + ("s" if len(lines) > 1 else "") + ":\n" + "\n".join(f"  $ {line}" for line in lines)


def _version(value: bool) -> None:
    if value:
        from jacked_vault import __version__

        typer.echo(f"jacked {__version__}")
        raise typer.Exit(0)


app = typer.Typer(
    name="jacked",
    help="jacked-vault: one git-native memory vault for every coding agent.",
    epilog="Run `jacked memory --help` for the commands. Shell completion: `jacked --install-completion`.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
memory_app = typer.Typer(
    cls=SectionedGroup,
    help="Typed Markdown notes in a git repo: add, search, read, review, sync.",
    short_help="The memory vault: notes, search, recall, review, sync.",
    epilog="Run `jacked memory COMMAND --help` for a command's options and an example.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(memory_app, name="memory")


def sub_app(name: str, section: str, help: str, epilog: str | None = None) -> typer.Typer:
    """A command group under `jacked memory` (like `group` or `hooks`), listed in `section`."""
    sub = typer.Typer(help=help, epilog=epilog, no_args_is_help=True, rich_markup_mode=None)
    memory_app.add_typer(sub, name=name, rich_help_panel=section)
    return sub


@app.callback()
def _jacked(
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_version, help="Print the version and exit.")
    ] = False,
) -> None:
    """jacked-vault: one git-native memory vault for every coding agent."""


JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON object (schema jacked.COMMAND.v1) instead of text.")
]
VaultOpt = Annotated[
    str | None,
    typer.Option("--vault", metavar="PATH", help="The vault folder (default $JACKED_VAULT_DIR, else ~/jacked-vault)."),
]
Group = Annotated[
    str | None, typer.Option("--group", metavar="GROUP", help="The group (default: the group of the current repo).")
]
Body = Annotated[str | None, typer.Option("--body", metavar="TEXT", help="The text.")]
BodyFile = Annotated[str | None, typer.Option("--body-file", metavar="PATH", help="Read the text from a file.")]
Stdin = Annotated[bool, typer.Option("--stdin", help="Read the text from standard input.")]
Harness = Annotated[
    str | None,
    typer.Option("--harness", metavar="HARNESS", help="Who writes (default $JACKED_MEMORY_HARNESS, else unknown)."),
]


@memory_app.callback()
def _memory(ctx: typer.Context, vault: VaultOpt = None) -> None:
    ctx.obj = {"vault": vault}


def outer_vault(ctx: typer.Context) -> str | None:
    """`jacked memory --vault PATH`, given before the command."""
    return (ctx.obj or {}).get("vault")


def context_for(ctx: typer.Context, vault: str | None, cwd: str | None = None) -> Context:
    """The library Context for this command: --vault after the command wins over the one before it."""
    return context_for_options(outer_vault(ctx), vault, cwd)


def run(ctx: typer.Context, as_json: bool, action: Callable[[], Result]) -> None:
    """Call the library and print its result (JSON or text) or the expected error.

    Exit 0, or 1 when the result says it is not ok (doctor's problems, a refused hook), or the
    error's code (2 for usage errors). Never a traceback.
    """
    code = execute(schema_for(ctx.command_path), as_json, action, passthrough=(typer.Exit, typer.Abort))
    if code:
        raise typer.Exit(code)
