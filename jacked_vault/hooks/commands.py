"""The `/remember` and `/learn` commands: saving on purpose through `jacked memory add`.

Each harness that has file-based custom commands gets one Markdown file per command in its
per-person folder (the text is `templates/commands/<name>.md`, with this install's `jacked`):

| harness  | folder                                   | invoked as           | documented format                  |
|----------|------------------------------------------|----------------------|------------------------------------|
| claude   | `~/.claude/commands/`                    | `/remember`          | frontmatter description, argument-hint; `$ARGUMENTS` |
| codex    | `$CODEX_HOME/prompts/` (`~/.codex/`)     | `/prompts:remember`  | frontmatter description, argument-hint; `$ARGUMENTS` |
| opencode | `$XDG_CONFIG_HOME/opencode/commands/`    | `/remember`          | frontmatter description; `$ARGUMENTS` |

A file is jacked's when it holds MARKER: install writes or replaces only such a file (the same
bytes are not rewritten) and refuses a file of that name that is someone else's; uninstall
removes only jacked's files.
"""  # noqa: E501 - a Markdown table: its rows cannot wrap

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.hooks import ownedfile

HARNESSES = ("claude", "codex", "opencode")
NAMES = ("remember", "learn")
MARKER = "<!-- jacked-vault command: `jacked memory hooks uninstall --commands HARNESS` removes this file -->"
MAX_BYTES = 256 * 1024
DESCRIPTIONS = {
    "remember": "Save one durable fact, decision or convention to the jacked memory vault",
    "learn": "Record a lesson learned (what happened, why, the rule) in the jacked memory vault",
}
HINTS = {"remember": "[what to remember] [kind=K] [group=G]", "learn": "[the lesson] [kind=K] [group=G]"}


@dataclass(frozen=True)
class Change:
    path: str
    action: str  # installed, unchanged, removed, absent


def folder(harness: str, environ: dict[str, str] | None = None) -> Path:
    """The per-person folder where `harness` reads its custom commands."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or os.path.expanduser("~")).absolute()
    if harness == "claude":
        return home / ".claude" / "commands"
    if harness == "codex":
        return Path(env.get("CODEX_HOME") or home / ".codex").absolute() / "prompts"
    if harness == "opencode":
        return Path(env.get("XDG_CONFIG_HOME") or home / ".config").absolute() / "opencode" / "commands"
    raise VaultError("USAGE", f"--commands: use one of {', '.join(HARNESSES)}")


def paths(harness: str, environ: dict[str, str] | None = None) -> list[Path]:
    return [folder(harness, environ) / f"{name}.md" for name in NAMES]


def render(harness: str, name: str, vault: Path | None = None) -> bytes:
    """The command file: the harness's frontmatter, MARKER, then the template with this install's
    `jacked memory` (and `--vault` when one was named) in place of `__MEMORY__`."""
    from jacked_vault.hooks.launcher import jacked_argv
    from jacked_vault.resources import data_file

    memory = shlex.join([*jacked_argv(), "memory", *(["--vault", str(vault)] if vault is not None else [])])
    front = [f"description: {DESCRIPTIONS[name]}"]
    if harness in ("claude", "codex"):
        front.append(f"argument-hint: {HINTS[name]}")
    body = data_file("templates", f"commands/{name}.md").read_text(encoding="utf-8").replace("__MEMORY__", memory)
    return ("---\n" + "\n".join(front) + "\n---\n\n" + MARKER + "\n\n" + body).encode("utf-8")


def is_ours(data: bytes | None) -> bool:
    return data is not None and MARKER.encode() in data


def install(harness: str, vault: Path | None = None, environ: dict[str, str] | None = None) -> list[Change]:
    """Write both command files; a foreign file of either name refuses both, nothing written."""
    wanted = {path: render(harness, path.stem, vault) for path in paths(harness, environ)}
    current = {path: ownedfile.read(path, MAX_BYTES) for path in wanted}
    for path, data in current.items():
        if data is not None and not is_ours(data):
            raise VaultError(
                "CONFIG", f"{path} exists and is not jacked-vault's; not replacing it (nothing was written)"
            )
    return [Change(str(path), ownedfile.put(path, data, current[path])) for path, data in wanted.items()]


def uninstall(harness: str, environ: dict[str, str] | None = None) -> list[Change]:
    """Remove jacked's command files; a file of that name that is someone else's stays."""
    return [
        Change(str(path), "removed" if ownedfile.remove(path, is_ours) else "absent")
        for path in paths(harness, environ)
    ]


def status(harness: str, vault: Path | None = None, environ: dict[str, str] | None = None) -> list[dict]:
    """Per file: installed (as install would write it), outdated, absent or foreign."""
    return [
        {
            "harness": harness,
            "path": str(path),
            "state": ownedfile.state(path, render(harness, path.stem, vault), is_ours),
        }
        for path in paths(harness, environ)
    ]
