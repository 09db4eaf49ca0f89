"""What every harness adapter answers, and the answers most harnesses share.

A harness is one object (`Harness`): its name, the binaries and per-person folder that say it is
on this machine, where it reads its MCP servers and in what form, where it reads custom commands
and skills, the per-person files of its session hooks, and how its hook payloads, briefs, capture
keys and transcripts differ from Claude Code's (the reference). The machinery that installs,
reports and dispatches (`hooks.mcp`, `hooks.commands`, `hooks.skills`, `hooks.enable`,
`hooks.dispatch`) asks the registry (`jacked_vault.harnesses`) for these objects instead of
branching on names; a capture gets the adapter as its transcript reader (`capture.readers`).

A harness module holds only what is its own; everything else is the default here. The hook
dispatcher loads the registry on every hook, so the adapters load at their top only what a hook
needs: the status table's types (`probe`) and the MCP entry's (`launch`) are loaded by the code
that uses them (`health`, `hooks.mcp`), and an adapter's probe imports its helpers when called.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from jacked_vault.capture import transcript
from jacked_vault.capture.readers import session_path
from jacked_vault.errors import VaultError
from jacked_vault.store.gitfiles import find_work_tree

if TYPE_CHECKING:
    from jacked_vault.harnesses.launch import Launch
    from jacked_vault.harnesses.probe import Part, Probe

Env = Mapping[str, str]


def environ_of(environ: Env | None) -> Env:
    return os.environ if environ is None else environ


def home_of(env: Env) -> Path:
    """The person's home folder ($HOME, else the user's)."""
    return Path(env.get("HOME") or os.path.expanduser("~")).absolute()


def xdg_config(env: Env) -> Path:
    """$XDG_CONFIG_HOME, else ~/.config."""
    return Path(env.get("XDG_CONFIG_HOME") or home_of(env) / ".config").absolute()


def project_root(cwd: Path | None) -> Path:
    """The root of the git work tree holding `cwd` (else `cwd` itself)."""
    here = Path(cwd or Path.cwd()).absolute()
    return find_work_tree(here) or here


def repo_file(path: Path) -> dict[str, str] | None:
    """`{"repo", "state"}` when `path` lies in a git work tree: `tracked`, `ignored` or `untracked`."""
    import pygit2  # only when a project file was written: the hook dispatcher never gets here

    real = Path(os.path.realpath(path))
    root = find_work_tree(real.parent)
    if root is None or not real.is_relative_to(root):
        return None
    rel = real.relative_to(root).as_posix()
    try:
        repo = pygit2.Repository(str(root))
        state = "tracked" if rel in repo.index else "ignored" if repo.path_is_ignored(rel) else "untracked"
    except (pygit2.GitError, KeyError, ValueError):
        return None
    return {"repo": str(root), "state": state}


def backup_note(item: dict[str, Any]) -> str:
    """The backup an install wrote, or the one an uninstall put back (and removed)."""
    if not item.get("backup"):
        return ""
    if item["action"] == "restored":
        return f" (as it was before install; its backup {item['backup']} removed)"
    return f" (backup {item['backup']})" if item["action"] == "installed" else ""


def notes(item: dict[str, Any]) -> str:
    """An item's warning and notice lines."""
    text = f"\nwarning: {item['warning']}" if item.get("warning") else ""
    return text + (f"\nnote: {item['notice']}" if item.get("notice") else "")


def error_item(item: dict[str, Any], exc: VaultError) -> dict[str, Any]:
    item["error"] = {"code": exc.full_code, "message": exc.message}
    return item


def project_hooks_item(item: dict[str, Any], vault: Path, *, user: bool) -> None:
    """An install's warnings: no vault yet, and a project file written into a code repo, which
    holds this machine's absolute paths."""
    if not (vault / "vault.json").exists():
        item["warning"] = f"no vault at {vault} yet; run `jacked memory init`"
    if user:
        return
    found = repo_file(Path(item["path"]))
    if found is None or found["state"] == "ignored":
        return
    harness = item["harness"]
    item["repo_file"] = found
    kept = "is tracked: committing it shares" if found["state"] == "tracked" else "is untracked and holds"
    item["notice"] = (
        f"{item['path']} {kept} this machine's absolute paths in the code repo {found['repo']}. "
        f"For every project instead: `jacked memory hooks uninstall --{harness}`, then `jacked memory hooks install "
        f"--{harness} --user`"
    )


class Harness:
    """One coding agent jacked plugs into. Subclasses set `name` and override what differs."""

    name: ClassVar[str]
    binaries: ClassVar[tuple[str, ...]] = ()  # on PATH: the harness is on this machine
    # -- its MCP registration (hooks.mcp)
    mcp_format: ClassVar[Literal["json", "jsonc", "toml"]] = "json"
    mcp_container: ClassVar[str] = "mcpServers"  # the top-level key (TOML: the table) of MCP servers
    mcp_project_file: ClassVar[bool] = True  # False: one per-person file only, never a code repo's
    mcp_stdio_implied: ClassVar[bool] = False  # an entry without `"type": "stdio"` means the same
    # -- its session hooks
    hooks_project_file: ClassVar[bool] = False  # without --user they go into the code repo's files
    # -- its /remember and /learn commands (hooks.commands)
    commands_as_skills: ClassVar[bool] = False  # the commands are skills, one folder each
    command_argument_hint: ClassVar[bool] = False  # its command frontmatter takes `argument-hint`
    reads_skills_of: ClassVar[str | None] = None  # it also reads that harness's skills folder
    # -- its sessions (capture.readers.SessionReader)
    turn_end: ClassVar[str | None] = None  # its hook event that ends a turn, not the session

    # -- on this machine

    def config_home(self, environ: Env | None = None) -> Path:
        """The per-person config folder whose presence says the harness is installed."""
        raise NotImplementedError

    def hook_files(self) -> list[Path]:
        """The per-person files of its session hooks (`enable` keeps their bytes)."""
        return []

    # -- its session hooks (`hooks install|uninstall|status --<name>`)

    def session_hooks(self, op: str, *, user: bool, settings: str | None, vault: Path) -> list[dict[str, Any]]:
        """Install, uninstall or report its session hooks: one result item per file. `user`: the
        per-person file, not the project's; `settings`: a file named by `--settings`."""
        return []  # none: the brief comes over the MCP prompt and tool

    def session_hooks_text(self, item: dict[str, Any]) -> str:
        """One result item of `session_hooks` as `hooks` prints it."""
        return f"{self.name} hooks {item.get('action') or item.get('state', '')}: {item.get('path', '')}"

    def uninstall_project_hooks(self, root: Path) -> list[str]:
        """Remove its session hooks from the project files of the repo at `root` (`disable`):
        the files it changed."""
        return []

    def probe(self, part: str, probe: Probe) -> Part | None:
        """Its own row of the health table for `part` (`brief`, `capture`); None: it has no hook
        for it (the brief then comes over MCP when the server is registered)."""
        return None

    # -- MCP registration

    def mcp_path(self, cwd: Path | None, environ: Env | None, *, user: bool) -> Path:
        """Where it reads MCP servers: the project's file at the repo root, or with `user` the
        file that serves every project of this person."""
        raise NotImplementedError

    def mcp_entry(self, launch: Launch) -> dict[str, Any]:
        """Our server's entry as its config spells it."""
        return {"command": launch.command, "args": list(launch.args), "env": dict(launch.env)}

    def mcp_cli(self, launch: Launch) -> str | None:
        """The same entry as the harness's own command line adds it (None: it has none)."""
        return None

    # -- commands and skills

    def commands_folder(self, environ: Env | None = None) -> Path | None:
        """The per-person folder of its custom commands (None: it gets none)."""
        return None

    def dead_command_paths(self, names: tuple[str, ...], environ: Env | None = None) -> list[Path]:
        """Where an older jacked wrote its commands and it no longer looks."""
        return []

    def skills_folder(self, environ: Env | None = None) -> Path | None:
        """The per-person folder of its skills (None: it documents none)."""
        return None

    def dead_skill_paths(self, name: str, environ: Env | None = None) -> list[Path]:
        """Where an older jacked wrote the skill `name` for it and it must not stay."""
        return []

    # -- `_hook`

    def adapt(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Its hook payload in Claude Code's shape."""
        return payload

    def brief_output(self, text: str) -> str:
        """What a session-start hook prints."""
        return text + "\n"

    def capture_key(self, payload: dict[str, Any]) -> str | None:
        """The queue key of a session's capture, when it needs its own (else None)."""
        return None

    def read_transcript(self, payload: dict[str, Any]) -> transcript.Transcript:
        """The session a queued payload names, read for a capture (Claude Code's JSONL)."""
        return transcript.read_transcript(session_path(payload))


def agents_skill(name: str, environ: Env | None) -> Path:
    """The skill `name` in `~/.agents/skills`, where an older jacked wrote Codex's copy (OpenCode
    reads that folder too): codex's and opencode's install and uninstall remove jacked's file."""
    return home_of(environ_of(environ)) / ".agents" / "skills" / name / "SKILL.md"


def json_line(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) + "\n"
