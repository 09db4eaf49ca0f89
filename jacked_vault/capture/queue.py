"""Retrying the one capture queue (its storage is `store.queue`): sessions and merges alike.

A marker is a small JSON document: its `kind` (`session` or `merge`), the `payload` that kind
needs to try again (a session's hook payload, known string fields only, never the transcript; a
merge's repo path, commit and branch), a `key` (one marker per key), `tries`, `first_seen`,
`last_try` and `last_error`.

`drain(handlers, cache)` tries them oldest first, each claimed with `store.lock.claim` (released
by the kernel if the drain dies, re-checked so two drains never take one marker), and hands it to
the handler of its kind (`capture.session.retry`, `capture.merge.retry`): done, the marker goes;
a retryable failure rewrites it with tries + 1; after MAX_TRIES it moves to `queue/failed/`.
`queue_counts` is what the brief, doctor and status all read. Nothing raises out of `drain`:
every problem is one line in `.git/jacked/log`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacked_vault.document import timestamps
from jacked_vault.document.timestamps import parse_timestamp
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store import queue as store_queue
from jacked_vault.store.lock import claim
from jacked_vault.store.log import log_line  # re-exported: the one `.git/jacked/log` writer
from jacked_vault.store.queue import (
    FAILED_DIR,
    KINDS,
    MAX_MARKER_BYTES,
    MAX_TRIES,
    QUEUE_DIR,
    QueueCounts,
    clean_payload,
    failed_dir,
    queue_counts,
    queue_dir,
)
from jacked_vault.store.queue import MARKER_NAME as _MARKER_NAME

DEFAULT_MAX_ITEMS = 20

__all__ = [
    "MAX_TRIES",
    "Attempt",
    "DrainReport",
    "QueueCounts",
    "capture_key",
    "drain",
    "enqueue",
    "log_line",
    "queue_counts",
]

_UNSAFE_ID = re.compile(r"[^A-Za-z0-9._-]")


def capture_key(payload: dict[str, Any]) -> str:
    """`<event>:<session id>:<transcript size>`: one capture per session end or compaction.

    The size tells a resumed session (or a second compaction) from the first; it is taken
    when the hook fires, because a compaction appends to the transcript right after.
    """
    event = _UNSAFE_ID.sub("_", str(payload.get("hook_event_name") or "-"))[:40]
    session = _UNSAFE_ID.sub("_", str(payload.get("session_id") or "-"))[:128]
    size = "-"
    path = payload.get("transcript_path")
    if isinstance(path, str) and path:
        with contextlib.suppress(OSError, ValueError):
            size = str(os.stat(os.path.expanduser(path)).st_size)
    return f"{event}:{session}:{size}"


def enqueue(
    cache_dir: Path,
    payload: dict[str, Any],
    *,
    kind: str = "session",
    key: str | None = None,
    tries: int = 0,
    error: str | None = None,
) -> Path:
    """Queue a capture to retry (`store.queue.enqueue`); a session's key defaults to `capture_key`."""
    return store_queue.enqueue(cache_dir, payload, kind=kind, key=key or capture_key(payload), tries=tries, error=error)


@dataclass
class Attempt:
    """What a handler made of one marker: `busy` (someone else is on it: leave it), `error` (a
    failure a retry may fix), `result` (for the report)."""

    result: object = None
    error: str | None = None
    busy: bool = False


Handler = Callable[[dict[str, Any]], Attempt]


@dataclass
class DrainReport:
    """What one drain did. `results` holds each attempted marker's result (None on error)."""

    attempted: int = 0
    done: int = 0  # captured or skipped for good: marker removed
    retried: int = 0  # will be retried: marker kept, tries + 1
    failed: int = 0  # moved to queue/failed/ this run (tries exhausted or unreadable marker)
    busy: int = 0  # claimed by another drain or capture right now: left alone
    waiting: int = 0  # tried less than min_age_s ago: left alone
    errors: int = 0  # exceptions (logged); the marker is kept or failed, never dropped
    pending: int = 0  # markers left in the queue afterwards
    failed_total: int = 0  # markers in queue/failed/ afterwards
    results: list[object] = field(default_factory=list, repr=False)

    def __str__(self) -> str:
        return (
            f"attempted={self.attempted} done={self.done} retried={self.retried} failed={self.failed} "
            f"busy={self.busy} errors={self.errors} pending={self.pending} failed_total={self.failed_total}"
        )


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        marker = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(marker, dict) or not isinstance(marker.get("payload"), dict):
        return None
    kind = marker.get("kind", "session")
    tries = marker.get("tries", 0)
    if kind not in KINDS or not isinstance(tries, int) or isinstance(tries, bool) or tries < 0:
        return None
    marker["kind"] = kind
    marker["payload"] = clean_payload(marker["payload"], kind)
    if not isinstance(marker.get("key"), str) or not marker["key"]:
        if kind != "session":
            return None
        marker["key"] = capture_key(marker["payload"])
    return marker


def _age_s(marker: dict[str, Any]) -> float:
    try:
        return (parse_timestamp(timestamps.utc_now()) - parse_timestamp(marker.get("last_try"))).total_seconds()
    except VaultError:
        return float("inf")


def _describe(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}{'(' + code + ')' if isinstance(code, str) else ''}: {message}"[:300]


def _fail(cache_dir: Path, name: str, marker: dict[str, Any] | bytes) -> None:
    """Keep a given-up marker in failed/ (never dropped); the queue copy goes."""

    path = failed_dir(cache_dir) / name
    if isinstance(marker, dict):
        store_queue.write_marker(path, marker, replace=True)
    else:
        fsio.write_file(path, marker, mode=0o600)
    os.unlink(queue_dir(cache_dir) / name)


def _drain_one(handlers: dict[str, Handler], cache_dir: Path, name: str, report: DrainReport, min_age_s: float) -> None:
    path = queue_dir(cache_dir) / name
    with claim(path) as fd:
        if fd is None:
            report.busy += 1 if path.exists() else 0
            return
        raw = os.pread(fd, MAX_MARKER_BYTES + 1, 0)
        marker = _parse(raw) if len(raw) <= MAX_MARKER_BYTES else None
        if marker is None:
            _fail(cache_dir, name, raw[:MAX_MARKER_BYTES])
            report.failed += 1
            log_line(cache_dir, f"queue {name}: unreadable marker moved to {QUEUE_DIR}/{FAILED_DIR}/")
            return
        handler = handlers.get(marker["kind"])
        if handler is None:
            return  # this drain does not retry that kind
        if min_age_s > 0 and _age_s(marker) < min_age_s:
            report.waiting += 1
            return
        report.attempted += 1
        try:
            attempt = handler(marker)
        except Exception as exc:  # a drain runs from hooks that fail open
            attempt = Attempt(error=_describe(exc))
            report.errors += 1
        report.results.append(attempt.result)
        if attempt.busy:
            report.busy += 1
            return
        if attempt.error is None:
            os.unlink(path)
            report.done += 1
            summary = attempt.result.summary() if hasattr(attempt.result, "summary") else "done"
            log_line(cache_dir, f"queue {name}: {marker['kind']} {summary}")
            return
        marker.update(tries=marker["tries"] + 1, last_try=timestamps.utc_now(), last_error=attempt.error[:300])
        if marker["tries"] >= MAX_TRIES:
            _fail(cache_dir, name, marker)
            report.failed += 1
            log_line(
                cache_dir,
                f"queue {name}: try {marker['tries']}/{MAX_TRIES} failed ({attempt.error}); moved to "
                f"{QUEUE_DIR}/{FAILED_DIR}/",
            )
        else:
            store_queue.write_marker(path, marker, replace=True)
            report.retried += 1
            log_line(cache_dir, f"queue {name}: try {marker['tries']}/{MAX_TRIES} failed ({attempt.error}); will retry")


def drain(
    handlers: dict[str, Handler],
    cache_dir: Path,
    *,
    max_items: int = DEFAULT_MAX_ITEMS,
    min_age_s: float = 0.0,
) -> DrainReport:
    """Retry queued captures of the kinds `handlers` names, oldest first, at most `max_items`
    attempts; never raises. `min_age_s` leaves alone markers tried less than that long ago."""
    report = DrainReport()
    cache_dir = Path(cache_dir)
    try:
        if os.path.islink(cache_dir):
            raise OSError(errno.ELOOP, "a symlinked .jacked is never followed", str(cache_dir))
        try:
            names = sorted(n for n in os.listdir(queue_dir(cache_dir)) if _MARKER_NAME.match(n))
        except FileNotFoundError:
            names = []
        for name in names:
            if report.attempted >= max_items:
                break
            try:
                _drain_one(handlers, cache_dir, name, report, min_age_s)
            except Exception as exc:  # a drain fails open: counted and logged
                report.errors += 1
                log_line(cache_dir, f"queue {name}: drain error {_describe(exc)}")
        counts = queue_counts(cache_dir)
        report.pending, report.failed_total = counts.pending, counts.failed
    except Exception as exc:  # a drain fails open: counted and logged
        report.errors += 1
        log_line(cache_dir, f"queue: drain error {_describe(exc)}")
    return report
