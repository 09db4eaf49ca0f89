"""The store lock: one writer at a time, released by the kernel if the holder dies."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from jacked_vault.errors import VaultError

DEFAULT_TIMEOUT_S = 30.0


@contextmanager
def store_lock(cache_dir: Path, timeout_s: float = DEFAULT_TIMEOUT_S, *, name: str = "lock") -> Iterator[None]:
    """Hold `<cache>/<name>` (flock) for the block; LOCKED after `timeout_s` of waiting."""
    os.makedirs(cache_dir, exist_ok=True)
    fd = os.open(cache_dir / name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + timeout_s
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    what = "the vault lock" if name == "lock" else name
                    raise VaultError("LOCKED", f"another jacked process has held {what} for {timeout_s:g}s") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
