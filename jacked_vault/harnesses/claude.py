"""Claude Code: the reference harness (its hook payloads, brief and capture key are the defaults).

Session hooks in `~/.claude/settings.json` (`hooks.claude`); the MCP server in the project's
`.mcp.json` or the person's `~/.claude.json`, as `claude mcp add` writes it; commands in
`~/.claude/commands`, skills in `~/.claude/skills`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault import SERVER_NAME
from jacked_vault.errors import VaultError
from jacked_vault.harnesses.base import Env, Harness, backup_note, environ_of, home_of, project_root
from jacked_vault.harnesses.probe import Part, latest

if TYPE_CHECKING:
    from jacked_vault.harnesses.launch import Launch
    from jacked_vault.harnesses.probe import Part, Probe
    from jacked_vault.store.log import LastRun


class Claude(Harness):
    name = "claude"
    binaries = ("claude",)
    mcp_stdio_implied = True
    command_argument_hint = True

    def config_home(self, environ: Env | None = None) -> Path:
        return home_of(environ_of(environ)) / ".claude"

    def hook_files(self) -> list[Path]:
        from jacked_vault.harnesses.installers import claude

        return [claude.default_settings_path()]

    def session_hooks(self, op: str, *, user: bool, settings: str | None, vault: Path) -> list[dict[str, Any]]:
        from jacked_vault.harnesses.installers import claude

        path = Path(settings).absolute() if settings else None
        if op == "install":
            change = claude.install(path, vault=vault)
            action = "installed" if change.changed else "unchanged"
            return [{"path": change.path, "action": action, "backup": change.backup, "events": change.installed}]
        if op == "uninstall":
            change = claude.uninstall(path)
            return [{"path": change.path, "action": change.uninstall_action, "backup": change.backup, "events": []}]
        return [claude.status(path)]

    def session_hooks_text(self, item: dict[str, Any]) -> str:
        if "action" in item:
            return f"claude hooks {item['action']} in {item['path']}{backup_note(item)}"
        events = ", ".join(item["installed"]) or "none"
        return f"claude hooks in {item['path']}: {events}{'' if item['complete'] else ' (incomplete)'}"

    def probe(self, part: str, probe: Probe) -> Part | None:
        if part == "brief":  # its SessionStart hook (and the MCP prompt, if the server is registered)
            last = latest([r for r in (probe.hook_run("session-start"), probe.mcp_brief_run()) if r])
            return _settings_part(probe, ("SessionStart",), "hook", last)
        # SessionEnd and PreCompact (the capture itself runs in the detached drain)
        last = probe.hook_run("session-end", "pre-compact")
        return _settings_part(probe, ("SessionEnd", "PreCompact"), "hooks", last)

    def mcp_path(self, cwd: Path | None, environ: Env | None, *, user: bool) -> Path:
        return home_of(environ_of(environ)) / ".claude.json" if user else project_root(cwd) / ".mcp.json"

    def mcp_entry(self, launch: Launch) -> dict[str, Any]:
        # as `claude mcp add` writes it (without the type, `claude mcp get` shows no command)
        return {"type": "stdio", **super().mcp_entry(launch)}

    def mcp_cli(self, launch: Launch) -> str:
        return claude_cli(launch)

    def commands_folder(self, environ: Env | None = None) -> Path:
        return self.config_home(environ) / "commands"

    def skills_folder(self, environ: Env | None = None) -> Path:
        return self.config_home(environ) / "skills"


def _settings_part(probe: Probe, events: tuple[str, ...], via: str, last: LastRun | None) -> Part:
    from jacked_vault.harnesses.installers import claude

    try:
        found = claude.status()
    except VaultError as exc:
        return Part("unreadable", [str(claude.default_settings_path())], last_run=last, problem=exc.message)
    have = [event for event in events if event in found["installed"]]
    if not have:
        return Part("absent", last_run=last)
    state = "installed" if len(have) == len(events) else "partial"
    vaults = set(found.get("vaults") or [])
    if vaults and vaults != {str(probe.vault)}:
        return Part(
            "outdated",
            [found["path"]],
            via,
            last,
            problem=f"its hooks name another vault ({', '.join(sorted(vaults))})",
        )
    return Part(state, [found["path"]], f"{via} ({', '.join(have)})", last)


def claude_cli(launch: Launch, scope: str = "user") -> str:
    """Our MCP entry as a `claude mcp add` command line. The server's name comes right after
    `add`: Claude's `--env` takes several values, so a name after it would be read as one more."""
    import shlex  # printing only: never on a hook's path

    parts = ["claude", "mcp", "add", SERVER_NAME, "--transport", "stdio", "--scope", scope]
    for key, value in launch.env.items():
        parts += ["--env", f"{key}={value}"]
    parts += ["--", launch.command, *launch.args]
    return " ".join(shlex.quote(p) for p in parts)


HARNESS = Claude()
