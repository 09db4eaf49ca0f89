"""The capture retry queue's storage: `.git/jacked/queue/*.json` markers for sessions and merges alike
(machine-local, never committed). What a marker holds and how it is named, enqueueing, and the
counts the brief, doctor and status all read; retrying is `capture.queue`."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacked_vault.document import timestamps
from jacked_vault.store.statefile import read_json, write_json

QUEUE_DIR = "queue"
FAILED_DIR = "failed"
KINDS = ("session", "merge")
MAX_TRIES = 3
MAX_MARKER_BYTES = 64 * 1024
MAX_FIELD_CHARS = 4096

PAYLOAD_KEYS = {
    "session": (
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "reason",
        "trigger",
        "agent_id",
        "agent_type",
        "jacked_harness",
    ),
    "merge": ("repo", "identity", "commit", "merge_kind", "branch"),
}
MARKER_NAME = re.compile(r"^[0-9]{20}-[0-9a-f]{16}\.json$")


def queue_dir(cache_dir: Path) -> Path:
    return Path(cache_dir) / QUEUE_DIR


def failed_dir(cache_dir: Path) -> Path:
    return queue_dir(cache_dir) / FAILED_DIR


def clean_payload(payload: object, kind: str = "session") -> dict[str, str]:
    """The known string fields of a payload of `kind`, bounded; nothing else is kept."""
    if not isinstance(payload, dict):
        return {}
    return {k: payload[k][:MAX_FIELD_CHARS] for k in PAYLOAD_KEYS[kind] if isinstance(payload.get(k), str)}


def _key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:16]


def write_marker(path: Path, marker: dict[str, Any], *, replace: bool) -> None:
    write_json(path, marker, replace=replace)


def enqueue(
    cache_dir: Path,
    payload: dict[str, Any],
    *,
    kind: str = "session",
    key: str,
    tries: int = 0,
    error: str | None = None,
) -> Path:
    """Queue `payload` of `kind` under `key` (atomic, small); the marker's path. A key already
    waiting is not queued twice: its marker's path is returned. Raises OSError only if it cannot
    be written."""

    payload = clean_payload(payload, kind)
    if os.path.islink(cache_dir):
        raise OSError(errno.ELOOP, "a symlinked .jacked is never followed", str(cache_dir))
    folder = queue_dir(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    suffix = f"-{_key_hash(key)}.json"
    for name in sorted(os.listdir(folder)):
        if name.endswith(suffix) and MARKER_NAME.match(name):
            return folder / name
    now = timestamps.utc_now()
    marker = {
        "version": 1,
        "kind": kind,
        "payload": payload,
        "key": key,
        "tries": int(tries),
        "first_seen": now,
        "last_try": now if tries else None,
        "last_error": error,
    }
    while True:
        path = folder / f"{time.time_ns():020d}{suffix}"
        try:
            write_marker(path, marker, replace=False)
            return path
        except FileExistsError:
            continue  # same nanosecond, same key: take the next tick


@dataclass(frozen=True)
class QueueCounts:
    pending: int
    failed: int
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict, compare=False)  # kind -> {"pending", "failed"}

    def to_json(self) -> dict[str, Any]:
        return {"pending": self.pending, "failed": self.failed, "by_kind": self.by_kind}


def queue_counts(cache_dir: Path) -> QueueCounts:
    """Markers waiting and markers given up on, in total and per kind (brief, doctor and status)."""
    by_kind = {kind: {"pending": 0, "failed": 0} for kind in KINDS}
    for state, folder in (("pending", queue_dir(cache_dir)), ("failed", failed_dir(cache_dir))):
        try:
            names = [n for n in os.listdir(folder) if MARKER_NAME.match(n)]
        except OSError:
            continue
        for name in names:
            marker = read_marker(folder / name)
            kind = marker.get("kind", "session") if marker else "session"
            by_kind.setdefault(kind, {"pending": 0, "failed": 0})[state] += 1
    return QueueCounts(sum(k["pending"] for k in by_kind.values()), sum(k["failed"] for k in by_kind.values()), by_kind)


def read_marker(path: Path) -> dict[str, Any] | None:
    return read_json(path, MAX_MARKER_BYTES)
