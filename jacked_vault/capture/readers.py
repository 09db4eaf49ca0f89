"""Which reader turns a queued session into a `Transcript`: the one for the harness that ran it.

The harness is the queued payload's `jacked_harness` (`hooks.dispatch` stores it when a hook
queues a session), else the capture's own. Claude Code's JSONL transcripts (`transcript.py`) are
the default; OpenCode's sessions are read from its database (`opencode.py`), Cursor's from the
transcript file its hooks name (`cursor.py`). Every reader returns the same `Transcript`, so the
skips, redaction, guard, queue and distiller after it are one pipeline for all harnesses.
"""

from __future__ import annotations

import os

from jacked_vault.capture.codex import read_rollout
from jacked_vault.capture.cursor import read_transcript as read_cursor
from jacked_vault.capture.transcript import Transcript, read_transcript

HARNESS_KEY = "jacked_harness"


def harness_of(payload: dict, default: str) -> str:
    named = payload.get(HARNESS_KEY) if isinstance(payload, dict) else None
    return named if isinstance(named, str) and named else default


def read_session(harness: str, payload: dict) -> Transcript:
    """The session `payload` names (its `transcript_path`, and for OpenCode its `session_id`)."""
    path = os.path.expanduser(payload["transcript_path"])
    if harness == "opencode":
        from jacked_vault.capture.opencode import read_session as read_opencode

        return read_opencode(path, payload.get("session_id"))
    if harness == "cursor":
        return read_cursor(path)
    if harness == "codex":
        return read_rollout(path)
    return read_transcript(path)
