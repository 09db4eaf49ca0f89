"""Locks: the one place jacked takes `flock`, released by the kernel if the holder dies.

- `store_lock`: a named lock in a store's state folder `.git/jacked/` (the write lock, the merge-capture lock, a
  ledger's lock), waited for up to a timeout, then LOCKED.
- `claim`: try once to hold one file (a queue marker, a per-key lock file); yields None when
  another process holds it, or when the name no longer points at the inode that was locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio

DEFAULT_TIMEOUT_S = 30.0
_FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC


@contextmanager
def store_lock(cache_dir: Path, timeout_s: float = DEFAULT_TIMEOUT_S, *, name: str = "lock") -> Iterator[None]:
    """Hold `<cache>/<name>` (flock) for the block; LOCKED after `timeout_s` of waiting. A symlinked
    cache folder is refused (UNSAFE_PATH), never followed."""

    cache_dir = Path(cache_dir)
    os.makedirs(cache_dir.parent, exist_ok=True)
    with fsio.open_dir(cache_dir.parent, (cache_dir.name,), create=True) as dir_fd:
        fd = os.open(name, _FLAGS | os.O_CREAT, 0o644, dir_fd=dir_fd)
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


@contextmanager
def claim(path: Path, *, create: bool = False) -> Iterator[int | None]:
    """Try once to hold `path` exclusively: yields its descriptor, or None when it is taken.

    `create`: a lock file of its own (made here, and removed on exit while still held, so its
    name never outlives the lock); otherwise the file itself is claimed (it must exist; None if
    it is gone). Either way the name is re-checked after locking: if it points at another inode
    now, the claim is refused, so two processes never both believe they hold it.
    """
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, _FLAGS | (os.O_CREAT if create else 0), 0o600)
    except FileNotFoundError:
        yield None
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        try:
            live = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            live = None
        held = os.fstat(fd)
        if live is None or (live.st_ino, live.st_dev) != (held.st_ino, held.st_dev):
            yield None
            return
        try:
            yield fd
        finally:
            if create:
                with suppress(FileNotFoundError):
                    os.unlink(path)
    finally:
        os.close(fd)
