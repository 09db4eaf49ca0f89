"""The `/remember` and `/learn` commands: saving on purpose through `jacked memory add`.

Each harness gets them in its per-person folder, in the form that harness loads today (the text is
`templates/commands/<name>.md`, with this install's `jacked` and the harness's own name, so the note
records who saved it: `add --harness H`):

| harness  | file                                                | invoked as  | documented format |
|----------|-----------------------------------------------------|-------------|-------------------|
| claude   | `~/.claude/commands/<name>.md`                      | `/remember` | frontmatter description, argument-hint; `$ARGUMENTS` |
| codex    | `$CODEX_HOME/skills/<name>/SKILL.md` (`~/.codex/`)  | `$remember` | a skill: frontmatter name (the folder's), description; no arguments |
| opencode | `$XDG_CONFIG_HOME/opencode/commands/<name>.md`      | `/remember` | frontmatter description; `$ARGUMENTS` |

Codex 0.171 no longer loads custom prompts (`$CODEX_HOME/prompts/<name>.md`, `/prompts:remember`,
which older versions of jacked wrote): install and uninstall remove jacked's files there
(`dead_paths`), and status shows them `outdated`. Codex's own skills folder is read by Codex
alone (`~/.agents/skills` is read by OpenCode too), so the librarian goes there as well
(hooks/skills.py).

A file is jacked's when it holds MARKER: install writes or replaces only such a file (the same
bytes are not rewritten) and refuses a file of that name that is someone else's; uninstall
removes only jacked's files (and a skill's folder, when that leaves it empty).
"""  # noqa: E501 - a Markdown table: its rows cannot wrap

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jacked_vault import harnesses
from jacked_vault.errors import VaultError
from jacked_vault.harnesses.base import Harness
from jacked_vault.resources import data_file
from jacked_vault.store import ownedfile
from jacked_vault.store.launcher import jacked_argv

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


def _has_commands(harness: Harness) -> bool:
    return harness.commands_folder() is not None


def names() -> tuple[str, ...]:
    """The harnesses that get the commands (their adapter names a commands folder)."""
    return harnesses.names(_has_commands)


def _harness(harness: str) -> Harness:
    return harnesses.get(harness, "--commands", _has_commands)


def _as_skills(harness: str) -> bool:
    """Whether `harness` gets the commands as skills, one folder each (Codex)."""
    return _harness(harness).commands_as_skills


def folder(harness: str, environ: dict[str, str] | None = None) -> Path:
    """The per-person folder where `harness` reads its custom commands (Codex: its skills)."""
    found = _harness(harness).commands_folder(environ)
    assert found is not None  # _harness takes only the harnesses that have one
    return found


def paths(harness: str, environ: dict[str, str] | None = None) -> list[Path]:
    base = folder(harness, environ)
    return [base / name / "SKILL.md" if _as_skills(harness) else base / f"{name}.md" for name in NAMES]


def dead_paths(harness: str, environ: dict[str, str] | None = None) -> list[Path]:
    """Where an older jacked wrote `harness`'s commands and the harness no longer looks."""
    return _harness(harness).dead_command_paths(NAMES, environ)


def render(harness: str, name: str, vault: Path | None = None) -> bytes:
    """The command file: the harness's frontmatter, MARKER, then the template with this install's
    `jacked memory` (and `--vault` when one was named) in place of `__MEMORY__` and the harness in
    place of `__HARNESS__`; a skill, which gets no arguments, says where the person's words are."""

    memory = shlex.join([*jacked_argv(), "memory", *(["--vault", str(vault)] if vault is not None else [])])
    body = data_file("templates", f"commands/{name}.md").read_text(encoding="utf-8")
    body = body.replace("__MEMORY__", memory).replace("__HARNESS__", harness)
    if _as_skills(harness):
        front = [f"name: {name}", f"description: {json.dumps(DESCRIPTIONS[name])}"]  # JSON: a YAML string
        body = body.replace("$ARGUMENTS", f"what the person wrote with `${name}`")
    else:
        front = [f"description: {DESCRIPTIONS[name]}"]
    if _harness(harness).command_argument_hint:
        front.append(f"argument-hint: {HINTS[name]}")
    return ("---\n" + "\n".join(front) + "\n---\n\n" + MARKER + "\n\n" + body).encode("utf-8")


def is_ours(data: bytes | None) -> bool:
    return data is not None and MARKER.encode() in data


def install(harness: str, vault: Path | None = None, environ: dict[str, str] | None = None) -> list[Change]:
    """Write both command files and remove jacked's dead ones; a foreign file of either name
    refuses both, nothing written."""
    own = _as_skills(harness)
    wanted = {path: render(harness, path.parent.name if own else path.stem, vault) for path in paths(harness, environ)}
    current = {path: ownedfile.read(path, MAX_BYTES, own_folder=own) for path in wanted}
    for path, data in current.items():
        if data is not None and not is_ours(data):
            raise VaultError(
                "CONFIG", f"{path} exists and is not jacked-vault's; not replacing it (nothing was written)"
            )
    written = [Change(str(path), ownedfile.put(path, data, current[path])) for path, data in wanted.items()]
    return written + _remove(dead_paths(harness, environ), own_folder=False, quiet=True)


def uninstall(harness: str, environ: dict[str, str] | None = None) -> list[Change]:
    """Remove jacked's command files (and dead ones); a file of that name that is someone else's stays."""
    return _remove(paths(harness, environ), own_folder=_as_skills(harness)) + _remove(
        dead_paths(harness, environ), own_folder=False, quiet=True
    )


def _remove(files: list[Path], *, own_folder: bool, quiet: bool = False) -> list[Change]:
    """A change per file (`quiet`: only the files removed)."""
    changes = [
        Change(str(path), "removed" if ownedfile.remove(path, is_ours, own_folder=own_folder) else "absent")
        for path in files
    ]
    return [c for c in changes if c.action == "removed"] if quiet else changes


def status(harness: str, vault: Path | None = None, environ: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Per file: installed (as install would write it), outdated, absent or foreign; a dead file
    of jacked's is listed as outdated (install removes it)."""
    own = _as_skills(harness)
    rows = [
        {
            "harness": harness,
            "path": str(path),
            "state": ownedfile.state(
                path, render(harness, path.parent.name if own else path.stem, vault), is_ours, own_folder=own
            ),
        }
        for path in paths(harness, environ)
    ]
    dead = [path for path in dead_paths(harness, environ) if ownedfile.state(path, b"", is_ours) == "outdated"]
    return rows + [{"harness": harness, "path": str(path), "state": "outdated"} for path in dead]
