"""Machine-local JSON state files under `.git/jacked/` (sync state, capture ledgers, queue markers):
read bounded and without following symlinks, written atomically. The one helper for all of them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from jacked_vault.safety import fsio

MAX_STATE_BYTES = 4 * 1024 * 1024


def read_json(path: Path, limit: int = MAX_STATE_BYTES) -> dict[str, Any] | None:
    """The JSON object at `path`, or None when missing, unreadable, too large, not JSON or not an object."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        raw = os.read(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(raw) > limit:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict[str, Any], *, mode: int = 0o600, replace: bool = True) -> None:
    """Write `data` to `path` atomically (temp file, fsync, rename); `replace=False` never
    replaces an existing file (FileExistsError)."""

    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    fsio.write_file(path, text.encode("utf-8"), mode=mode, replace=replace)


def json_lines(text: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines text (audit lines, quarantine records); other lines skipped."""
    out = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out
