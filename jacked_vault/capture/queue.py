"""The capture retry queue: `.jacked/queue/*.json` markers, drained oldest first.

A marker is a small JSON document: the hook payload (known string fields only, never the
transcript text), the capture key, tries, first_seen, last_try and last_error. Markers are
written atomically (temp file, fsync, link/rename) and named `<time_ns>-<key hash>.json`, so
sorting the names is oldest first and one capture key is queued at most once.

`drain` claims a marker with `flock` on the marker file itself (released by the kernel if the
drain dies) and re-checks after locking that the name still points at the locked inode, so
two concurrent drains never process one marker twice. A marker whose capture succeeded (or
was skipped for good) is removed; one that still needs its distillation is rewritten with
tries + 1; after MAX_TRIES tries it moves to `.jacked/queue/failed/`, where `queue_counts`
counts it. Nothing raises out of `drain`: every problem is one line in `.jacked/log`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from jacked_vault.safety import fsio
from jacked_vault.store.log import log_line  # re-exported: the one `.jacked/log` writer

__all__ = ["enqueue", "drain", "capture_key", "queue_counts", "log_line", "DrainReport", "QueueCounts", "MAX_TRIES"]

QUEUE_DIR = "queue"
FAILED_DIR = "failed"
MAX_TRIES = 3
MAX_MARKER_BYTES = 64 * 1024
MAX_FIELD_CHARS = 4096
DEFAULT_MAX_ITEMS = 20
PAYLOAD_KEYS = (
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "reason",
    "trigger",
    "agent_id",
    "agent_type",
)
_MARKER_NAME = re.compile(r"^[0-9]{20}-[0-9a-f]{16}\.json$")
MERGE_MARKER_NAME = re.compile(r"^merge-[0-9a-f]{40}\.json$")  # a post-merge capture's (gitflow.merge_capture)
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9._-]")


def queue_dir(cache_dir: Path) -> Path:
    return Path(cache_dir) / QUEUE_DIR


def failed_dir(cache_dir: Path) -> Path:
    return queue_dir(cache_dir) / FAILED_DIR


def clean_payload(payload: object) -> dict[str, str]:
    """The known string fields of a hook payload, bounded; nothing else is kept."""
    if not isinstance(payload, dict):
        return {}
    return {k: payload[k][:MAX_FIELD_CHARS] for k in PAYLOAD_KEYS if isinstance(payload.get(k), str)}


def capture_key(payload: dict) -> str:
    """`<event>:<session id>:<transcript size>`: one capture per session end or compaction.

    The size tells a resumed session (or a second compaction) from the first; it is taken
    when the hook fires, because a compaction appends to the transcript right after.
    """
    event = _UNSAFE_ID.sub("_", str(payload.get("hook_event_name") or "-"))[:40]
    session = _UNSAFE_ID.sub("_", str(payload.get("session_id") or "-"))[:128]
    size = "-"
    path = payload.get("transcript_path")
    if isinstance(path, str) and path:
        try:
            size = str(os.stat(os.path.expanduser(path)).st_size)
        except (OSError, ValueError):
            pass
    return f"{event}:{session}:{size}"


def _key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:16]


def _now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _write_atomic(folder: Path, name: str, data: bytes, *, replace: bool) -> None:
    """Write folder/name atomically: rename (replaces) or link (never replaces)."""
    fsio.write_file(folder / name, data, replace=replace, mode=0o600)


def _marker_bytes(marker: dict) -> bytes:
    return (json.dumps(marker, indent=2, sort_keys=True) + "\n").encode("utf-8")


def enqueue(
    cache_dir: Path,
    payload: dict,
    *,
    key: str | None = None,
    tries: int = 0,
    error: str | None = None,
    first_seen: str | None = None,
) -> Path:
    """Queue `payload` for capture (atomic, small, never the transcript); the marker's path.

    A key already waiting in the queue is not queued twice: its marker's path is returned.
    Raises OSError only if the marker cannot be written at all.
    """
    payload = clean_payload(payload)
    key = key or capture_key(payload)
    folder = queue_dir(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    suffix = f"-{_key_hash(key)}.json"
    for name in sorted(os.listdir(folder)):
        if name.endswith(suffix) and _MARKER_NAME.match(name):
            return folder / name
    now = _now_iso()
    marker = {
        "version": 1,
        "payload": payload,
        "key": key,
        "tries": int(tries),
        "first_seen": first_seen or now,
        "last_try": now if tries else None,
        "last_error": error,
    }
    while True:
        name = f"{time.time_ns():020d}{suffix}"
        try:
            _write_atomic(folder, name, _marker_bytes(marker), replace=False)
            return folder / name
        except FileExistsError:
            continue  # same nanosecond, same key: take the next tick


@dataclass(frozen=True)
class QueueCounts:
    """Session and merge captures waiting for a retry, and given up on (in `queue/failed/`)."""

    sessions_pending: int = 0
    sessions_failed: int = 0
    merges_pending: int = 0
    merges_failed: int = 0

    @property
    def pending(self) -> int:
        return self.sessions_pending + self.merges_pending

    @property
    def failed(self) -> int:
        return self.sessions_failed + self.merges_failed

    def to_json(self) -> dict:
        return {
            "pending": self.pending,
            "failed": self.failed,
            "sessions": {"pending": self.sessions_pending, "failed": self.sessions_failed},
            "merges": {"pending": self.merges_pending, "failed": self.merges_failed},
        }


def queue_counts(cache_dir: Path) -> QueueCounts:
    """Every capture marker, session and merge, waiting and given up on: the one count that
    `status`, the brief, doctor and the session-start hook use (only marker names count)."""

    def count(folder: Path) -> tuple[int, int]:
        try:
            names = os.listdir(folder)
        except OSError:
            return 0, 0
        return sum(1 for n in names if _MARKER_NAME.match(n)), sum(1 for n in names if MERGE_MARKER_NAME.match(n))

    (sessions, merges), (sessions_failed, merges_failed) = count(queue_dir(cache_dir)), count(failed_dir(cache_dir))
    return QueueCounts(sessions, sessions_failed, merges, merges_failed)


@dataclass
class DrainReport:
    """What one drain did. `results` holds each attempted marker's CaptureResult (None on error)."""

    attempted: int = 0
    done: int = 0  # captured or skipped for good: marker removed
    retried: int = 0  # the distillation will be retried: marker kept, tries + 1
    failed: int = 0  # moved to queue/failed/ this run (tries exhausted or unreadable marker)
    busy: int = 0  # claimed by another drain or capture right now: left alone
    waiting: int = 0  # tried less than min_age_s ago: left alone
    errors: int = 0  # exceptions (logged); the marker is kept or failed, never dropped
    pending: int = 0  # markers left in the queue afterwards
    failed_total: int = 0  # markers in queue/failed/ afterwards
    results: list = field(default_factory=list, repr=False)

    def __str__(self) -> str:
        return (
            f"attempted={self.attempted} done={self.done} retried={self.retried} failed={self.failed} "
            f"busy={self.busy} errors={self.errors} pending={self.pending} failed_total={self.failed_total}"
        )


def _parse_marker(raw: bytes) -> dict | None:
    try:
        marker = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(marker, dict) or not isinstance(marker.get("payload"), dict):
        return None
    tries = marker.get("tries", 0)
    if not isinstance(tries, int) or isinstance(tries, bool) or tries < 0:
        return None
    marker["payload"] = clean_payload(marker["payload"])
    if not isinstance(marker.get("key"), str) or not marker["key"]:
        marker["key"] = capture_key(marker["payload"])
    return marker


def _when(marker: dict) -> datetime | None:
    """The local time the session ended (the marker's first_seen), for the entry header."""
    stamp = marker.get("first_seen")
    if not isinstance(stamp, str):
        return None
    try:
        parsed = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None
    return parsed.astimezone()


def _age_s(marker: dict) -> float:
    stamp = marker.get("last_try")
    if not isinstance(stamp, str):
        return float("inf")
    try:
        parsed = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return float("inf")
    return (datetime.now(timezone.utc) - parsed).total_seconds()


def _describe(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}{'(' + code + ')' if isinstance(code, str) else ''}: {message}"[:300]


def _fail(cache_dir: Path, name: str, data: bytes) -> None:
    """Keep a given-up marker in failed/ (never dropped); the queue copy goes."""
    _write_atomic(failed_dir(cache_dir), name, data, replace=True)
    os.unlink(queue_dir(cache_dir) / name)


def _drain_one(ctx_factory: Callable[[dict], object], cache_dir: Path, name: str, report: DrainReport, min_age_s: float) -> None:
    from jacked_vault.capture.session import capture_session

    folder = queue_dir(cache_dir)
    path = folder / name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # another drain finished it
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            report.busy += 1
            return
        try:
            live = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return  # finished by the drain that held the lock before us
        held = os.fstat(fd)
        if (live.st_ino, live.st_dev) != (held.st_ino, held.st_dev):
            return  # rewritten since we opened it: the new marker is for the next drain
        raw = os.pread(fd, MAX_MARKER_BYTES + 1, 0)
        marker = _parse_marker(raw) if len(raw) <= MAX_MARKER_BYTES else None
        if marker is None:
            _fail(cache_dir, name, raw[:MAX_MARKER_BYTES])
            report.failed += 1
            log_line(cache_dir, f"queue {name}: unreadable marker moved to {QUEUE_DIR}/{FAILED_DIR}/")
            return
        if min_age_s > 0 and _age_s(marker) < min_age_s:
            report.waiting += 1
            return
        report.attempted += 1
        error: str | None
        try:
            ctx = ctx_factory(marker["payload"])
            result = capture_session(ctx, marker["payload"], key=marker["key"], when=_when(marker), enqueue_retry=False)
            report.results.append(result)
            if result.skipped == "in-progress":
                report.busy += 1
                return
            error = f"distiller {result.fallback}" if result.retry else None
        except Exception as exc:  # noqa: BLE001 - a drain runs from hooks that fail open
            report.results.append(None)
            report.errors += 1
            error = _describe(exc)
        if error is None:
            os.unlink(path)
            report.done += 1
            log_line(cache_dir, f"queue {name}: {result.summary()}")
            return
        marker["tries"] += 1
        marker["last_try"] = _now_iso()
        marker["last_error"] = error
        data = _marker_bytes(marker)
        if marker["tries"] >= MAX_TRIES:
            _fail(cache_dir, name, data)
            report.failed += 1
            log_line(cache_dir, f"queue {name}: try {marker['tries']}/{MAX_TRIES} failed ({error}); moved to {QUEUE_DIR}/{FAILED_DIR}/")
        else:
            _write_atomic(folder, name, data, replace=True)
            report.retried += 1
            log_line(cache_dir, f"queue {name}: try {marker['tries']}/{MAX_TRIES} failed ({error}); will retry")
    finally:
        os.close(fd)


def drain(
    ctx_factory: Callable[[dict], object],
    cache_dir: Path,
    *,
    max_items: int = DEFAULT_MAX_ITEMS,
    min_age_s: float = 0.0,
) -> DrainReport:
    """Capture queued sessions, oldest first, at most `max_items` attempts; never raises.

    `ctx_factory(payload)` builds the Context for a marker's payload (its `cwd`).
    `min_age_s` leaves alone markers tried less than that many seconds ago.
    """
    report = DrainReport()
    cache_dir = Path(cache_dir)
    try:
        try:
            names = sorted(n for n in os.listdir(queue_dir(cache_dir)) if _MARKER_NAME.match(n))
        except FileNotFoundError:
            names = []
        for name in names:
            if report.attempted >= max_items:
                break
            try:
                _drain_one(ctx_factory, cache_dir, name, report, min_age_s)
            except Exception as exc:  # noqa: BLE001
                report.errors += 1
                log_line(cache_dir, f"queue {name}: drain error {_describe(exc)}")
        counts = queue_counts(cache_dir)
        report.pending, report.failed_total = counts.pending, counts.failed
    except Exception as exc:  # noqa: BLE001
        report.errors += 1
        log_line(cache_dir, f"queue: drain error {_describe(exc)}")
    return report
