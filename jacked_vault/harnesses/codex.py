"""Codex: everything in `$CODEX_HOME` (`~/.codex`), one per-person config for hooks and MCP.

Session hooks and the MCP server in `config.toml` (`hooks.codex`, `hooks.mcp`; no project file);
the commands are skills (`$CODEX_HOME/skills/<name>/SKILL.md`), and the custom prompts an older
jacked wrote (`$CODEX_HOME/prompts`) are removed. Its Stop ends a turn, not a session: the payload
gets its rollout path, and the capture is keyed per session (`capture.codex`); the brief goes back
as `hookSpecificOutput.additionalContext`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.capture.codex import prepare, queue_key, read_rollout
from jacked_vault.capture.readers import session_path
from jacked_vault.errors import VaultError
from jacked_vault.harnesses.base import Env, Harness, agents_skill, backup_note, environ_of, error_item, home_of
from jacked_vault.harnesses.probe import events_part

if TYPE_CHECKING:
    from jacked_vault.capture.transcript import Transcript
    from jacked_vault.harnesses.probe import Part, Probe


class Codex(Harness):
    name = "codex"
    binaries = ("codex",)
    mcp_format = "toml"
    mcp_container = "mcp_servers"
    mcp_project_file = False
    commands_as_skills = True
    turn_end = "Stop"  # no session end: a session is captured once its rollout is quiet

    def config_home(self, environ: Env | None = None) -> Path:
        env = environ_of(environ)
        return Path(env.get("CODEX_HOME") or home_of(env) / ".codex").absolute()

    def hook_files(self) -> list[Path]:
        from jacked_vault.harnesses.installers import codex

        return [codex.default_config_path()]

    def session_hooks(self, op: str, *, user: bool, settings: str | None, vault: Path) -> list[dict[str, Any]]:
        from jacked_vault.harnesses.installers import codex

        if op == "install":
            change = codex.install(vault=vault)
            action = "installed" if change.changed else "unchanged"
            return [
                {
                    "path": change.path,
                    "action": action,
                    "backup": change.backup,
                    "events": change.installed,
                    "warnings": change.warnings,
                }
            ]
        if op == "uninstall":
            change = codex.uninstall()
            return [{"path": change.path, "action": change.uninstall_action, "backup": change.backup, "events": []}]
        try:
            return [codex.status()]
        except VaultError as exc:  # a config.toml Codex itself could not read either
            return [error_item({"path": str(codex.default_config_path())}, exc)]

    def session_hooks_text(self, item: dict[str, Any]) -> str:
        if "error" in item:
            return f"error: codex hooks in {item['path']}: {item['error']['message']} [{item['error']['code']}]"
        warnings = "".join(f"\nwarning: {w}" for w in item.get("warnings") or [])
        if "action" in item:
            return f"codex hooks {item['action']} in {item['path']}{backup_note(item)}{warnings}"
        events = ", ".join(item["installed"]) or "none"
        untrusted = sorted(set(item["installed"]) - set(item["trusted"]))
        note = (
            f" (not trusted by Codex: {', '.join(untrusted)})"
            if untrusted
            else ("" if item["complete"] else " (incomplete)")
        )
        return f"codex hooks in {item['path']}: {events}{note}{warnings}"

    def probe(self, part: str, probe: Probe) -> Part | None:
        """Its SessionStart hook in config.toml; its Stop hook (each turn's end queues the session;
        the drain captures it once quiet)."""
        from jacked_vault.harnesses.installers import codex

        event, hook = ("SessionStart", "session-start") if part == "brief" else ("Stop", "session-end")
        found = codex.status()
        row = events_part(
            [found], (event,), "hook", probe.hook_run(hook), probe.mcp_brief_run() if part == "brief" else None
        )
        if row.state != "absent" and event not in found.get("trusted", []):
            row.problem = "Codex runs it only once trusted (Codex asks at its next start, or /hooks)"
        if row.state != "absent" and found.get("warnings"):
            row.problem = "; ".join(filter(None, [row.problem, *found["warnings"]]))
        return row

    def mcp_path(self, cwd: Path | None, environ: Env | None, *, user: bool) -> Path:
        return self.config_home(environ) / "config.toml"

    def commands_folder(self, environ: Env | None = None) -> Path:
        return self.config_home(environ) / "skills"

    def dead_command_paths(self, names: tuple[str, ...], environ: Env | None = None) -> list[Path]:
        return [self.config_home(environ) / "prompts" / f"{name}.md" for name in names]

    def skills_folder(self, environ: Env | None = None) -> Path:
        return self.config_home(environ) / "skills"  # Codex's alone (~/.agents/skills is OpenCode's too)

    def dead_skill_paths(self, name: str, environ: Env | None = None) -> list[Path]:
        return [agents_skill(name, environ)]

    def adapt(self, payload: dict[str, Any]) -> dict[str, Any]:
        return prepare(payload)  # a Stop without a rollout path: found by session id

    def brief_output(self, text: str) -> str:
        from jacked_vault.harnesses.installers.codex import session_start_output

        return session_start_output(text)

    def capture_key(self, payload: dict[str, Any]) -> str | None:
        return queue_key(payload)  # Stop ends a turn: one waiting capture per session

    def read_transcript(self, payload: dict[str, Any]) -> Transcript:
        return read_rollout(session_path(payload))


HARNESS = Codex()
