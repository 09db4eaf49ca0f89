"""What differs per harness where `jacked _hook` meets it: the payload it sends, how the brief
goes back, and the key a session's capture is queued under.

Claude Code's shapes are the reference (`hooks.dispatch`, `capture.session`); a payload from
another harness is mapped onto them here, before any hook runs:

- cursor: its hooks send `conversation_id` / `session_id`, `workspace_roots`, `transcript_path`
  and camelCase event names, but no `cwd` (a user hook runs in `~/.cursor/`): the session's folder
  is the first workspace root (else `$CURSOR_PROJECT_DIR`), and the event is renamed
  (`sessionEnd` → `SessionEnd`); a session end without a `transcript_path` gets the transcript
  found by conversation id (`capture.cursor.find_transcript`). A background agent's session is
  marked as an agent's, so capture
  skips it as it skips a subagent. The brief goes back as `{"additional_context": …}`, the JSON
  a `sessionStart` hook answers with (https://cursor.com/docs/hooks).
- opencode: the plugin sends Claude's field names already; the session's "transcript" is
  OpenCode's database, and the capture key counts the session's messages (a database's size says
  nothing about one session).
Any other harness passes through unchanged.
"""

from __future__ import annotations

import json
import os

CURSOR_EVENTS = {"sessionStart": "SessionStart", "sessionEnd": "SessionEnd", "preCompact": "PreCompact", "stop": "Stop"}


def adapt(harness: str, payload: dict) -> dict:
    if harness == "cursor":
        return _cursor(payload)
    if harness == "opencode":
        return _opencode(payload)
    if harness == "codex":  # a Stop without a rollout path: found by session id (capture.codex)
        from jacked_vault.capture.codex import prepare

        return prepare(payload)
    return payload


def brief_output(harness: str, text: str) -> str:
    """What a session-start hook prints for `harness`."""
    if harness == "cursor":
        return json.dumps({"additional_context": text}, ensure_ascii=False) + "\n"
    if harness == "codex":  # hookSpecificOutput.additionalContext (hooks.codex)
        from jacked_vault.hooks.codex import session_start_output

        return session_start_output(text)
    return text + "\n"


def capture_key(harness: str, payload: dict) -> str | None:
    """The queue key of a session's capture, when the harness needs its own (else None)."""
    if harness == "codex":  # Stop ends a turn: one waiting capture per session (capture.codex)
        from jacked_vault.capture.codex import queue_key

        return queue_key(payload)
    if harness != "opencode":
        return None
    from jacked_vault.capture.opencode import message_count
    from jacked_vault.capture.queue import capture_key as default_key

    base = default_key({**payload, "transcript_path": None})  # "<event>:<session>:-"
    path, session = payload.get("transcript_path"), payload.get("session_id")
    count = (
        message_count(os.path.expanduser(path), session) if isinstance(path, str) and isinstance(session, str) else None
    )
    return base[:-1] + (f"m{count}" if count is not None else "-")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _cursor(payload: dict) -> dict:
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
        out["hook_event_name"] = CURSOR_EVENTS.get(event, event)
    if not _text(out.get("transcript_path")) and _text(os.environ.get("CURSOR_TRANSCRIPT_PATH")):
        out["transcript_path"] = os.environ["CURSOR_TRANSCRIPT_PATH"]
    if not _text(out.get("transcript_path")) and out.get("hook_event_name") == "SessionEnd":
        from jacked_vault.capture.cursor import find_transcript

        out["transcript_path"] = find_transcript(out.get("session_id"))
    if payload.get("is_background_agent") is True:
        out["agent_id"] = "cursor-background-agent"
    return out


def _opencode(payload: dict) -> dict:
    if _text(payload.get("transcript_path")):
        return payload
    from jacked_vault.capture.opencode import default_db

    return {**payload, "transcript_path": str(default_db())}
