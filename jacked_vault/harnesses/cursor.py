"""Cursor: session hooks in `hooks.json` (`hooks.cursor`), the MCP server in `.cursor/mcp.json`
(the project's, or the person's `~/.cursor/`); no commands or skills folder is documented.

Its hooks send `conversation_id` / `session_id`, `workspace_roots`, `transcript_path` and
camelCase event names, but no `cwd` (a user hook runs in `~/.cursor/`): the session's folder is
the first workspace root (else `$CURSOR_PROJECT_DIR`), and the event is renamed (`sessionEnd` →
`SessionEnd`); a session end without a `transcript_path` gets the transcript found by
conversation id (`capture.cursor.find_transcript`). A background agent's session is marked as an
agent's, so capture skips it as it skips a subagent. The brief goes back as
`{"additional_context": …}`, the JSON a `sessionStart` hook answers with
(https://cursor.com/docs/hooks).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.capture import cursor as transcripts
from jacked_vault.capture.readers import session_path
from jacked_vault.errors import VaultError
from jacked_vault.harnesses.base import (
    Env,
    Harness,
    backup_note,
    environ_of,
    error_item,
    home_of,
    json_line,
    notes,
    project_hooks_item,
    project_root,
)
from jacked_vault.harnesses.probe import events_part

if TYPE_CHECKING:
    from jacked_vault.capture.transcript import Transcript
    from jacked_vault.harnesses.probe import Part, Probe

EVENTS = {"sessionStart": "SessionStart", "sessionEnd": "SessionEnd", "preCompact": "PreCompact", "stop": "Stop"}


class Cursor(Harness):
    name = "cursor"
    binaries = ("cursor", "cursor-agent")
    mcp_stdio_implied = True
    hooks_project_file = True

    def config_home(self, environ: Env | None = None) -> Path:
        return home_of(environ_of(environ)) / ".cursor"

    def hook_files(self) -> list[Path]:
        from jacked_vault.harnesses.installers import cursor

        return [cursor.default_path(user=True)]

    def session_hooks(self, op: str, *, user: bool, settings: str | None, vault: Path) -> list[dict[str, Any]]:
        """hooks.json entries: the per-person file with `user`, else the project's at the root of
        the repo holding the working directory. A file that cannot be changed is an `error` item."""
        from jacked_vault.harnesses.installers import cursor

        path = cursor.default_path(user=user)
        item: dict[str, Any] = {"harness": self.name, "path": str(path)}
        try:
            if op == "install":
                change = cursor.install(path, vault=vault)
                action = "installed" if change.changed else "unchanged"
                item.update(action=action, backup=change.backup, events=change.installed)
                project_hooks_item(item, vault, user=user)
            elif op == "uninstall":
                change = cursor.uninstall(path)
                item.update(action=change.uninstall_action, backup=change.backup, events=[])
            else:
                item.update(cursor.status(path))
        except VaultError as exc:
            error_item(item, exc)
        return [item]

    def session_hooks_text(self, item: dict[str, Any]) -> str:
        if "error" in item:
            return f"error: cursor hooks {item['path']}: {item['error']['message']} [{item['error']['code']}]"
        if "action" in item:
            return f"cursor hooks {item['action']} in {item['path']}{backup_note(item)}{notes(item)}"
        events = ", ".join(item["installed"]) or "none"
        return f"cursor hooks in {item['path']}: {events}{'' if item['complete'] else ' (incomplete)'}"

    def uninstall_project_hooks(self, root: Path) -> list[str]:
        from jacked_vault.harnesses.installers import cursor

        change = cursor.uninstall(cursor.default_path(user=False, cwd=root))
        return [change.path] if change.changed else []

    def probe(self, part: str, probe: Probe) -> Part | None:
        """Its sessionStart / sessionEnd hook in hooks.json (the person's and the project's)."""
        from jacked_vault.harnesses.installers import cursor

        event, hook = ("sessionStart", "session-start") if part == "brief" else ("sessionEnd", "session-end")
        found = [cursor.status(cursor.default_path(user=user, cwd=probe.cwd)) for user in (True, False)]
        return events_part(
            found, (event,), "hook", probe.hook_run(hook), probe.mcp_brief_run() if part == "brief" else None
        )

    def mcp_path(self, cwd: Path | None, environ: Env | None, *, user: bool) -> Path:
        return (home_of(environ_of(environ)) if user else project_root(cwd)) / ".cursor" / "mcp.json"

    def adapt(self, payload: dict[str, Any]) -> dict[str, Any]:
        out = dict(payload)
        roots = payload.get("workspace_roots")
        if not _text(out.get("cwd")):
            root = (
                roots[0]
                if isinstance(roots, list) and roots and _text(roots[0])
                else _text(os.environ.get("CURSOR_PROJECT_DIR"))
            )
            if root:
                out["cwd"] = root
        if not _text(out.get("session_id")) and _text(payload.get("conversation_id")):
            out["session_id"] = payload["conversation_id"]
        event = payload.get("hook_event_name")
        if isinstance(event, str):
            out["hook_event_name"] = EVENTS.get(event, event)
        if not _text(out.get("transcript_path")) and _text(os.environ.get("CURSOR_TRANSCRIPT_PATH")):
            out["transcript_path"] = os.environ["CURSOR_TRANSCRIPT_PATH"]
        if not _text(out.get("transcript_path")) and out.get("hook_event_name") == "SessionEnd":
            out["transcript_path"] = transcripts.find_transcript(out.get("session_id"))
        if payload.get("is_background_agent") is True:
            out["agent_id"] = "cursor-background-agent"
        return out

    def brief_output(self, text: str) -> str:
        return json_line({"additional_context": text})

    def read_transcript(self, payload: dict[str, Any]) -> Transcript:
        return transcripts.read_transcript(session_path(payload))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


HARNESS = Cursor()
