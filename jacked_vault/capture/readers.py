"""What a capture asks of the harness that ran a session: its reader (`SessionReader`).

Each harness's adapter (`jacked_vault.harnesses`, two layers above) is one: it turns a queued
payload into the `Transcript` every harness shares (Claude Code's JSONL, `transcript.py`, is the
adapters' default; Codex's rollout, `codex.py`; Cursor's file, `cursor.py`; OpenCode's database,
`opencode.py`), and names the hook event that ends a turn rather than the session (`turn_end`,
Codex's `Stop`). The drain hands `session.capture_session` the adapter of the harness the queued
payload names, so the skips, redaction, guard, queue and distiller after it are one pipeline for
all harnesses and capture never asks which harness ran a session.

A session whose hook ended a turn is over once its transcript has been quiet for `SETTLE_S`
(`settled`); until then the queue keeps its marker.
"""

from __future__ import annotations

import os
import time
from typing import Any, Protocol

from jacked_vault.capture.transcript import Transcript

SETTLE_S = 600  # a session whose hook ends a turn is over when its transcript has been quiet this long


class SessionReader(Protocol):
    """The reader of one harness's sessions (every `jacked_vault.harnesses` adapter is one)."""

    @property
    def turn_end(self) -> str | None:
        """The hook event that ends a turn, not the session (None: its hooks end sessions)."""
        ...

    def read_transcript(self, payload: dict[str, Any]) -> Transcript:
        """The session `payload` names (its `transcript_path`, maybe its `session_id`)."""
        ...


def session_path(payload: dict[str, Any]) -> str:
    """The payload's `transcript_path`, `~` expanded."""
    return os.path.expanduser(payload["transcript_path"])


def last_activity(path: str) -> float | None:
    """When the transcript was last written (epoch seconds), or None if it cannot be read."""
    try:
        return os.stat(os.path.expanduser(path)).st_mtime
    except (OSError, ValueError):
        return None


def settled(path: str, *, now: float | None = None, settle_s: float = SETTLE_S) -> bool:
    """True when the session looks over: its transcript quiet for `settle_s`, or gone (the capture
    then skips it for good)."""
    modified = last_activity(path)
    return modified is None or (now if now is not None else time.time()) - modified >= settle_s
