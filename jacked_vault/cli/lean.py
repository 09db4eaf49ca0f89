"""The lean path: the hot commands (add, handoff, read, search, brief, sync) without importing typer.

Agents call these on every turn, and importing typer (and click under it) costs more than the
work itself; `sync` is the network command a person times against plain git (issue 32).
`run_lean` parses exactly the argument shapes typer would accept for these
commands and calls the same `frontend.actions` function the typer command calls; anything else
(`--help`, an unknown option, a missing value, a value that needs converting typer's way) returns
None and the command goes through typer, which prints its usual help or usage error.

The options are not written down twice: each one comes from the keyword parameters of the
action function (`--body-file` from `body_file`; `list[...]` repeatable, `bool` a flag, `int` a
number), with the few renames below. `tests/e2e/test_lean_cli.py` checks that this derivation
matches typer's own definition of every lean command, and that both paths print the same.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

from jacked_vault.frontend import actions


# NamedTuples, not dataclasses: every lean command defines these first, and a frozen dataclass
# costs ~6x a NamedTuple to define (issue 34.5).
class Lean(NamedTuple):
    """How one command's options map onto its action's parameters."""

    argument: str | None = None  # the positional parameter, if any
    renames: dict[str, str] | None = None  # parameter -> flag, where not `--` + its name


COMMANDS = {
    "add": Lean(),
    "handoff": Lean(),
    "read": Lean(argument="note_id", renames={"show_all": "--all"}),
    "search": Lean(argument="query", renames={"every_harness": "--all"}),
    "brief": Lean(),
    "sync": Lean(),
}
JSON_FLAG = "--json"


class Param(NamedTuple):
    """One parameter of an action, as the command line spells it."""

    name: str
    flag: str | None  # None: the positional argument
    kind: str  # "flag", "value", "int" or "many"
    required: bool


def params(command: str) -> list[Param]:
    """The parameters of `command`'s action, read from its signature (annotations are strings)."""
    import inspect

    spec = COMMANDS[command]
    out = []
    for p in list(inspect.signature(getattr(actions, command)).parameters.values())[1:]:  # [0] is outer_vault
        note = str(p.annotation)
        kind = "many" if note.startswith("list[") else "flag" if note == "bool" else "int" if note == "int" else "value"
        renamed = (spec.renames or {}).get(p.name, "--" + p.name.rstrip("_").replace("_", "-"))
        flag = None if p.name == spec.argument else renamed
        out.append(Param(p.name, flag, kind, p.default is inspect.Parameter.empty))
    return out


def parse(command: str, words: list[str]) -> tuple[dict[str, Any], bool] | None:
    """(keyword arguments, --json) for `words` after the command name, or None: leave it to typer."""
    spec = params(command)
    by_flag = {p.flag: p for p in spec if p.flag is not None}
    argument = next((p for p in spec if p.flag is None), None)
    values: dict[str, Any] = {}
    positional: list[str] = []
    as_json = False
    rest = iter(words)
    for word in rest:
        if word == "--":
            positional += list(rest)
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        flag, has_value, inline = word.partition("=")
        if flag == JSON_FLAG and not has_value:
            as_json = True
            continue
        param = by_flag.get(flag)
        if param is None:  # --help, a short option, a typo: typer's to answer
            return None
        if param.kind == "flag":
            if has_value:
                return None
            values[param.name] = True
            continue
        text = inline if has_value else next(rest, None)
        if text is None or (not has_value and text.startswith("-") and not text.lstrip("-").isdigit()):
            return None  # a missing value, or one typer might read differently
        value: str | int = text
        if param.kind == "int":
            try:
                value = int(text)
            except ValueError:
                return None
        if param.kind == "many":
            values.setdefault(param.name, []).append(value)
        else:
            values[param.name] = value  # given twice: the last wins, as in typer
    if argument is not None:
        if argument.kind == "many":
            values[argument.name] = positional
        elif len(positional) == 1:
            values[argument.name] = positional[0]
        else:
            return None
    elif positional:
        return None
    if any(p.required and p.name not in values for p in spec):
        return None
    return values, as_json


def run_lean(args: list[str]) -> int | None:
    """Run `memory [--vault PATH] COMMAND …` for a lean command; None when typer must handle it."""
    from jacked_vault.frontend.output import execute, schema_for

    if args[:1] != ["memory"]:
        return None
    words = args[1:]
    outer_vault = None
    if words[:1] == ["--vault"] and len(words) > 2:
        outer_vault, words = words[1], words[2:]
    elif words and words[0].startswith("--vault="):
        outer_vault, words = words[0].partition("=")[2], words[1:]
    if not words or words[0] not in COMMANDS:
        return None
    command = words[0]
    parsed = parse(command, words[1:])
    if parsed is None:
        return None
    options, as_json = parsed
    action = getattr(actions, command)
    try:
        return execute(schema_for(f"jacked memory {command}"), as_json, lambda: action(outer_vault, **options))
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
