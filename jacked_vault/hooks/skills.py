"""The librarian skill (`templates/librarian.md`), installed where each harness reads skills.

Every harness here reads the Agent Skills format (https://agentskills.io): a folder named after
the skill holding `SKILL.md`, which starts with YAML frontmatter naming it (`name`, equal to the
folder's name: lowercase words joined by single hyphens, 1-64 characters) and saying when to use
it (`description`, 1-1024 characters). The per-person folders:

| harness  | folder                                          | documented at                                   |
|----------|-------------------------------------------------|-------------------------------------------------|
| claude   | `~/.claude/skills/<name>/SKILL.md`              | https://code.claude.com/docs/en/skills           |
| codex    | `~/.agents/skills/<name>/SKILL.md` (user scope) | https://developers.openai.com/codex/skills       |
| opencode | `$XDG_CONFIG_HOME/opencode/skills/<name>/SKILL.md` (`~/.config`) | https://opencode.ai/docs/skills |

(OpenCode also reads `~/.claude/skills` and `~/.agents/skills`; Cursor documents no skills
folder, so it gets none.) The file is jacked's when it holds MARKER: install writes or replaces
only such a file (the same bytes are not rewritten) and leaves someone else's file of that name
alone (`refused`); uninstall removes only jacked's file (and the folder, when that leaves it
empty). `install_librarian` is what `hooks install --skills` and `enable` call.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.hooks import ownedfile

HARNESSES = ("claude", "codex", "opencode")
NAME = "jacked-librarian"
MARKER = "<!-- jacked-vault skill: `jacked memory hooks uninstall --skills HARNESS` removes this file -->"
DESCRIPTION = (
    "Tidy the jacked-vault memory with a person: find duplicate and contradicting notes, propose supersede, "
    "expire and archive, review candidates. Use when the session brief says [librarian: ...] "
    "or when asked to tidy the vault."
)
MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class Change:
    harness: str
    path: str
    action: str  # installed, unchanged, refused (someone else's file), removed, absent

    def to_json(self) -> dict:
        return {"harness": self.harness, "path": self.path, "action": self.action}


def skill_path(harness: str, environ: dict[str, str] | None = None) -> Path:
    """Where `harness` reads the librarian skill for this person."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or os.path.expanduser("~")).absolute()
    folder = {
        "claude": home / ".claude" / "skills",
        "codex": home / ".agents" / "skills",
        "opencode": Path(env.get("XDG_CONFIG_HOME") or home / ".config").absolute() / "opencode" / "skills",
    }.get(harness)
    if folder is None:
        raise VaultError("USAGE", f"--skills: use one of {', '.join(HARNESSES)}")
    return folder / NAME / "SKILL.md"


def render(vault: Path | None = None) -> bytes:
    """SKILL.md: the frontmatter, MARKER, then the template, its commands naming this install's
    `jacked` (and the vault, when one was named)."""
    from jacked_vault.hooks.launcher import jacked_argv
    from jacked_vault.resources import data_file

    command = shlex.join(jacked_argv() + ["memory"] + (["--vault", str(vault)] if vault is not None else []))
    body = data_file("templates", "librarian.md").read_text(encoding="utf-8").replace("jacked memory", command)
    front = f"---\nname: {NAME}\ndescription: {json.dumps(DESCRIPTION)}\n---\n\n"  # JSON: a YAML string
    return f"{front}{MARKER}\n\n{body}".encode()


def _ours(data: bytes) -> bool:
    return MARKER.encode() in data


def _install_one(path: Path, wanted: bytes) -> str:
    try:
        data = ownedfile.read(path, MAX_BYTES, own_folder=True)
    except VaultError:
        return "refused"  # not a plain file: never followed nor replaced
    return "refused" if data is not None and not _ours(data) else ownedfile.put(path, wanted, data)


def install_librarian(
    harnesses: tuple[str, ...] = HARNESSES, vault: Path | None = None, environ: dict[str, str] | None = None
) -> list[Change]:
    """Write the skill for each harness; a foreign file of that name is left alone (`refused`)."""
    wanted = render(vault)
    return [Change(h, str(skill_path(h, environ)), _install_one(skill_path(h, environ), wanted)) for h in harnesses]


def uninstall_librarian(harnesses: tuple[str, ...] = HARNESSES, environ: dict[str, str] | None = None) -> list[Change]:
    """Remove jacked's skill file for each harness (and its folder when that leaves it empty)."""
    out = []
    for harness in harnesses:
        path = skill_path(harness, environ)
        out.append(
            Change(harness, str(path), "removed" if ownedfile.remove(path, _ours, own_folder=True) else "absent")
        )
    return out


def librarian_status(
    harnesses: tuple[str, ...] = HARNESSES, vault: Path | None = None, environ: dict[str, str] | None = None
) -> list[dict]:
    """Per harness: installed (as install would write it), outdated, absent or foreign."""
    wanted = render(vault)
    return [
        {
            "harness": h,
            "path": str(skill_path(h, environ)),
            "state": ownedfile.state(skill_path(h, environ), wanted, _ours, own_folder=True),
        }
        for h in harnesses
    ]
