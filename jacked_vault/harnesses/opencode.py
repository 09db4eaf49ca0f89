"""OpenCode: a session plugin (`hooks.opencode`), the MCP server in `opencode.json` or
`opencode.jsonc` (JSON with comments: the project's, or the person's `$XDG_CONFIG_HOME/opencode`),
commands and skills in that folder.

The plugin sends Claude's field names already; the session's "transcript" is OpenCode's database,
and the capture key counts the session's messages (a database's size says nothing about one
session).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.capture.queue import capture_key as default_key
from jacked_vault.capture.readers import session_path
from jacked_vault.errors import VaultError
from jacked_vault.harnesses.base import (
    Env,
    Harness,
    agents_skill,
    environ_of,
    error_item,
    notes,
    project_hooks_item,
    project_root,
    xdg_config,
)
from jacked_vault.harnesses.installers import opencode
from jacked_vault.harnesses.probe import Part, latest

if TYPE_CHECKING:
    from jacked_vault.capture.transcript import Transcript
    from jacked_vault.harnesses.launch import Launch
    from jacked_vault.harnesses.probe import Part, Probe


class OpenCode(Harness):
    name = "opencode"
    binaries = ("opencode",)
    mcp_format = "jsonc"
    mcp_container = "mcp"
    hooks_project_file = True
    reads_skills_of = "claude"  # ~/.claude/skills: one copy of a skill serves both (hooks.skills)

    def config_home(self, environ: Env | None = None) -> Path:
        return xdg_config(environ_of(environ)) / "opencode"

    def hook_files(self) -> list[Path]:
        return [opencode.plugin_path(user=True)]

    def session_hooks(self, op: str, *, user: bool, settings: str | None, vault: Path) -> list[dict[str, Any]]:
        """The plugin file: the per-person folder's with `user`, else the project's `.opencode/` at
        the root of the repo holding the working directory. A file that cannot be changed is an
        `error` item."""

        path = opencode.plugin_path(user=user)
        item: dict[str, Any] = {"harness": self.name, "path": str(path)}
        try:
            if op == "install":
                item["action"] = opencode.install(path, vault=vault).action
                project_hooks_item(item, vault, user=user)
            elif op == "uninstall":
                item["action"] = opencode.uninstall(path).action
            else:
                item.update(opencode.status(path))
        except VaultError as exc:
            error_item(item, exc)
        return [item]

    def session_hooks_text(self, item: dict[str, Any]) -> str:
        if "error" in item:
            return f"error: opencode plugin {item['path']}: {item['error']['message']} [{item['error']['code']}]"
        return f"opencode plugin {item['action'] if 'action' in item else item['state']}: {item['path']}{notes(item)}"

    def uninstall_project_hooks(self, root: Path) -> list[str]:
        change = opencode.uninstall(opencode.plugin_path(user=False, cwd=root))
        return [change.path] if change.action == "removed" else []

    def probe(self, part: str, probe: Probe) -> Part | None:
        """Its plugin (the person's and the project's): the brief in the system prompt; a session
        queued once it has gone quiet (or OpenCode exits)."""

        hook = "session-start" if part == "brief" else "session-end"
        found = [opencode.status(opencode.plugin_path(user=user, cwd=probe.cwd)) for user in (True, False)]
        brief = probe.mcp_brief_run() if part == "brief" else None
        last = latest([r for r in (probe.hook_run(hook), brief) if r])
        for state in ("installed", "outdated"):
            mine = [item for item in found if item["state"] == state]
            if mine:
                vaults = {item["vault"] for item in mine if item.get("vault")}
                if vaults and vaults != {str(probe.vault)}:
                    return Part(
                        "outdated",
                        [item["path"] for item in mine],
                        "plugin",
                        last,
                        problem=f"it names another vault ({', '.join(sorted(vaults))})",
                    )
                return Part(state, [item["path"] for item in mine], "plugin", last)
        return Part("absent", last_run=last)

    def mcp_path(self, cwd: Path | None, environ: Env | None, *, user: bool) -> Path:
        folder = self.config_home(environ) if user else project_root(cwd)
        jsonc = folder / "opencode.jsonc"
        return jsonc if jsonc.exists() and not (folder / "opencode.json").exists() else folder / "opencode.json"

    def mcp_entry(self, launch: Launch) -> dict[str, Any]:
        return {
            "type": "local",
            "command": [launch.command, *launch.args],
            "environment": dict(launch.env),
            "enabled": True,
        }

    def commands_folder(self, environ: Env | None = None) -> Path:
        return self.config_home(environ) / "commands"

    def skills_folder(self, environ: Env | None = None) -> Path:
        return self.config_home(environ) / "skills"

    def dead_skill_paths(self, name: str, environ: Env | None = None) -> list[Path]:
        return [agents_skill(name, environ)]

    def adapt(self, payload: dict[str, Any]) -> dict[str, Any]:
        path = payload.get("transcript_path")
        if isinstance(path, str) and path:
            return payload
        from jacked_vault.capture.opencode import default_db

        return {**payload, "transcript_path": str(default_db())}

    def capture_key(self, payload: dict[str, Any]) -> str | None:
        from jacked_vault.capture.opencode import message_count

        base = default_key({**payload, "transcript_path": None})  # "<event>:<session>:-"
        path, session = payload.get("transcript_path"), payload.get("session_id")
        count = (
            message_count(os.path.expanduser(path), session)
            if isinstance(path, str) and isinstance(session, str)
            else None
        )
        return base[:-1] + (f"m{count}" if count is not None else "-")

    def read_transcript(self, payload: dict[str, Any]) -> Transcript:
        from jacked_vault.capture.opencode import read_session  # sqlite3: only when a session is read

        return read_session(session_path(payload), payload.get("session_id"))


HARNESS = OpenCode()
