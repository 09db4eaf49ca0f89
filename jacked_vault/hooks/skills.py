"""The librarian skill (`templates/librarian.md`), installed where each harness reads skills.

Every harness here reads the Agent Skills format (https://agentskills.io): a folder named after
the skill holding `SKILL.md`, which starts with YAML frontmatter naming it (`name`, equal to the
folder's name: lowercase words joined by single hyphens, 1-64 characters) and saying when to use
it (`description`, 1-1024 characters). The per-person folders (`skill_path`):

| harness  | folder                                                   | documented at                              |
|----------|----------------------------------------------------------|--------------------------------------------|
| claude   | `~/.claude/skills/<name>/SKILL.md`                       | https://code.claude.com/docs/en/skills      |
| codex    | `$CODEX_HOME/skills/<name>/SKILL.md` (`~/.codex/`)       | https://developers.openai.com/codex/skills  |
| opencode | `$XDG_CONFIG_HOME/opencode/skills/<name>/SKILL.md` (`~/.config`), or Claude's | https://opencode.ai/docs/skills |

OpenCode also reads `~/.claude/skills` and `~/.agents/skills`, and warns "duplicate skill name" at
a second copy. So Codex's goes to its own folder (read by Codex alone; the copy an older jacked
wrote into `~/.agents/skills` is removed by codex's and opencode's install and uninstall, and
status shows it `outdated`), and OpenCode's is Claude's copy whenever jacked's is there: that copy
then says so (SHARED), OpenCode's own folder holds none, and uninstalling Claude's moves it back
there. OpenCode reads one copy in every combination, order and uninstall (Cursor documents no
skills folder, so it gets none).

The file is jacked's when it holds MARKER: install writes or replaces only such a file (the same
bytes are not rewritten) and leaves someone else's file of that name alone (`refused`); uninstall
removes only jacked's file (and the folder, when that leaves it empty). `install_librarian` is
what `hooks install --skills` and `enable` call.
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

NAME = "jacked-librarian"
MARKER = "<!-- jacked-vault skill: `jacked memory hooks uninstall --skills HARNESS` removes this file -->"
DESCRIPTION = (
    "Tidy the jacked-vault memory with a person: find duplicate and contradicting notes, propose supersede, "
    "expire and archive, review candidates. Use when the session brief says [librarian: ...] "
    "or when asked to tidy the vault."
)
SHARED = (
    "<!-- OpenCode's copy too (it reads ~/.claude/skills): "
    "`jacked memory hooks uninstall --skills claude` moves it to OpenCode's own folder -->"
)
MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class Change:
    harness: str
    path: str
    action: str  # installed, unchanged, refused (someone else's file), removed, absent

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "path": self.path, "action": self.action}


def _has_skills(harness: Harness) -> bool:
    return harness.skills_folder() is not None


def names() -> tuple[str, ...]:
    """The harnesses that get the skill (their adapter names a skills folder)."""
    return harnesses.names(_has_skills)


HARNESSES = names()  # the default of the functions below: every harness with skills, as loaded


def skill_path(harness: str, environ: dict[str, str] | None = None) -> Path:
    """Where `harness` reads the librarian skill for this person (OpenCode: its own folder, which
    holds it unless Claude's copy is jacked's: see `where`)."""
    folder = harnesses.get(harness, "--skills", _has_skills).skills_folder(environ)
    assert folder is not None  # `get` takes only the harnesses that have one
    return folder / NAME / "SKILL.md"


def dead_paths(harness: str, environ: dict[str, str] | None = None) -> list[Path]:
    """Where an older jacked wrote Codex's copy (`~/.agents/skills`, read by OpenCode too): codex's
    and opencode's install and uninstall remove jacked's file there."""
    return harnesses.get(harness, "--skills", _has_skills).dead_skill_paths(NAME, environ)


def _pair() -> tuple[str, str] | None:
    """(owner, reader): a harness that also reads another's skills folder (`Harness.reads_skills_of`:
    OpenCode reads Claude's), whose copy is then the owner's when that one is jacked's."""
    reader = next(iter(harnesses.all_harnesses(lambda h: h.reads_skills_of)), None)
    return None if reader is None or reader.reads_skills_of is None else (reader.reads_skills_of, reader.name)


def install_paths(harness: str, environ: dict[str, str] | None = None) -> list[Path]:
    """Every file installing or uninstalling `harness`'s skill may change (Claude's and OpenCode's
    change each other's: OpenCode's copy is Claude's when that one is jacked's)."""
    pair = _pair()
    return [skill_path(h, environ) for h in (pair if pair and harness in pair else (harness,))]


def render(vault: Path | None = None, *, shared: bool = False) -> bytes:
    """SKILL.md: the frontmatter, MARKER (and SHARED: Claude's copy serving OpenCode too), then the
    template, its commands naming this install's `jacked` (and the vault, when one was named)."""

    command = shlex.join(jacked_argv() + ["memory"] + (["--vault", str(vault)] if vault is not None else []))
    body = data_file("templates", "librarian.md").read_text(encoding="utf-8").replace("jacked memory", command)
    front = f"---\nname: {NAME}\ndescription: {json.dumps(DESCRIPTION)}\n---\n\n"  # JSON: a YAML string
    shared_line = f"{SHARED}\n" if shared else ""
    return f"{front}{MARKER}\n{shared_line}\n{body}".encode()


def _ours(data: bytes) -> bool:
    return MARKER.encode() in data


def _read(path: Path) -> bytes | None:
    """The file's bytes, None when missing; b"" (never jacked's) when it is not a plain file."""
    try:
        return ownedfile.read(path, MAX_BYTES, own_folder=True)
    except VaultError:
        return b""


def _install_one(path: Path, wanted: bytes) -> str:
    data = _read(path)
    return "refused" if data is not None and not _ours(data) else ownedfile.put(path, wanted, data)


def _remove(path: Path) -> bool:
    return ownedfile.remove(path, _ours, own_folder=True)


@dataclass(frozen=True)
class _Copies:
    """jacked's copies of the owner (Claude) and the reader (OpenCode), as they are now."""

    owner_name: str
    reader_name: str
    owner: Path
    reader: Path
    owner_ours: bool  # the owner's copy is jacked's
    shared: bool  # ... and serves the reader too
    reader_ours: bool  # the reader's own copy is jacked's

    @property
    def reader_installed(self) -> bool:
        return self.shared or self.reader_ours


def _copies(environ: dict[str, str] | None) -> _Copies | None:
    pair = _pair()
    if pair is None:
        return None
    owner, reader = skill_path(pair[0], environ), skill_path(pair[1], environ)
    data = _read(owner)
    ours = data is not None and _ours(data)
    own = _read(reader)
    shared = data is not None and ours and SHARED.encode() in data
    return _Copies(*pair, owner, reader, ours, shared, own is not None and _ours(own))


def where(harness: str, environ: dict[str, str] | None = None) -> Path:
    """The file holding `harness`'s copy: OpenCode's is Claude's when that one is jacked's."""
    now = _copies(environ)
    if now is not None and harness == now.reader_name and now.owner_ours:
        return now.owner
    return skill_path(harness, environ)


def _install(harness: str, wanted: dict[bool, bytes], environ: dict[str, str] | None) -> Change:
    now = _copies(environ)
    if now is not None and harness == now.owner_name:
        action = _install_one(now.owner, wanted[now.reader_installed])
        if action != "refused" and now.reader_installed:
            _remove(now.reader)  # the reader reads the owner's copy now
        return Change(harness, str(now.owner), action)
    if now is not None and harness == now.reader_name and now.owner_ours:
        action = _install_one(now.owner, wanted[True])
        _remove(now.reader)
        return Change(harness, str(now.owner), action)
    return Change(harness, str(skill_path(harness, environ)), _install_one(skill_path(harness, environ), wanted[False]))


def install_librarian(
    harnesses: tuple[str, ...] = HARNESSES, vault: Path | None = None, environ: dict[str, str] | None = None
) -> list[Change]:
    """Write the skill for each harness (and remove jacked's dead copies); a foreign file of that
    name is left alone (`refused`)."""
    wanted = {shared: render(vault, shared=shared) for shared in (False, True)}
    out = []
    for harness in harnesses:
        out.append(_install(harness, wanted, environ))
        out += _remove_dead(harness, environ)
    return out


def uninstall_librarian(harnesses: tuple[str, ...] = HARNESSES, environ: dict[str, str] | None = None) -> list[Change]:
    """Remove jacked's skill file for each harness (and its folder when that leaves it empty, and
    jacked's dead copies). Claude's copy serving OpenCode too: uninstalling OpenCode's makes it
    Claude's alone (first, so that both going moves nothing), uninstalling Claude's moves
    OpenCode's to its own folder."""
    pair = _pair()
    out = []
    for harness in sorted(harnesses, key=lambda h: pair is None or h != pair[1]):
        out.append(_uninstall(harness, environ))
        out += _remove_dead(harness, environ)
    return out


def _uninstall(harness: str, environ: dict[str, str] | None) -> Change:
    now = _copies(environ)
    if now is not None and now.shared and harness in (now.owner_name, now.reader_name):
        data = _read(now.owner) or b""
        alone = data.replace(SHARED.encode() + b"\n", b"")
        if harness == now.reader_name:
            ownedfile.put(now.owner, alone, data)
            return Change(harness, str(now.owner), "removed")
        _install_one(now.reader, alone)
    path = skill_path(harness, environ)
    return Change(harness, str(path), "removed" if _remove(path) else "absent")


def _remove_dead(harness: str, environ: dict[str, str] | None) -> list[Change]:
    return [Change(harness, str(p), "removed") for p in dead_paths(harness, environ) if _remove(p)]


def librarian_status(
    harnesses: tuple[str, ...] = HARNESSES, vault: Path | None = None, environ: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Per harness: installed (as install would write it), outdated, absent or foreign; a dead copy
    of jacked's is listed as outdated (install removes it)."""
    rows = []
    for harness in harnesses:
        now = _copies(environ)
        path = where(harness, environ)
        shared = now is not None and path == now.owner and (harness == now.reader_name or now.reader_installed)
        state = ownedfile.state(path, render(vault, shared=shared), _ours, own_folder=True)
        rows.append({"harness": harness, "path": str(path), "state": state})
        dead = [
            p for p in dead_paths(harness, environ) if ownedfile.state(p, b"", _ours, own_folder=True) == "outdated"
        ]
        rows += [{"harness": harness, "path": str(p), "state": "outdated"} for p in dead]
    return rows
