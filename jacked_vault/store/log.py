"""`.jacked/log`: one line per hook run or background failure; machine-local, bounded."""

from __future__ import annotations

import os
from pathlib import Path

MAX_LOG_BYTES = 1024 * 1024
MAX_LINE = 500


def log_line(cache_dir: Path, text: str) -> None:
    """Append `<UTC time> <text>` (one line, control characters removed); never raises."""
    line = " ".join("".join(c if c.isprintable() else " " for c in text).split())[:MAX_LINE]
    from jacked_vault.document.timestamps import utc_now

    stamp = utc_now()
    try:
        os.makedirs(cache_dir, exist_ok=True)
        path = cache_dir / "log"
        try:
            if path.stat().st_size > MAX_LOG_BYTES:
                os.replace(path, cache_dir / "log.1")
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, f"{stamp} {line}\n".encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass
