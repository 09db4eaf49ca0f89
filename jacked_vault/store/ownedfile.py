"""Files jacked owns outright (the `/remember` and `/learn` command files, the librarian skill,
the OpenCode plugin): a file is jacked's when it carries its marker. Install writes or replaces
only such a file (the same bytes are not rewritten), uninstall removes only such a file, and a
file of that name that is someone else's, a symlink or something other than a plain file is never
followed, replaced or removed."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio

MAX_BYTES = 256 * 1024


def read(path: Path, max_bytes: int = MAX_BYTES, *, own_folder: bool = False) -> bytes | None:
    """The file's bytes, None when missing; CONFIG when it is a symlink or not a plain file, or
    (`own_folder`: the folder is jacked's too, as a skill's is) when its folder is a symlink."""
    if path.is_symlink() or (own_folder and path.parent.is_symlink()) or (path.exists() and not path.is_file()):
        raise VaultError("CONFIG", f"{path} is not a plain file; not touching it")
    return fsio.read_capped(path, max_bytes)


def state(path: Path, wanted: bytes, ours: Callable[[bytes], bool], *, own_folder: bool = False) -> str:
    """installed (holds `wanted`), outdated (jacked's, other bytes), absent, or foreign (someone
    else's, or not a plain file)."""
    try:
        data = read(path, own_folder=own_folder)
    except VaultError:
        return "foreign"
    if data is None:
        return "absent"
    return "foreign" if not ours(data) else "installed" if data == wanted else "outdated"


def put(path: Path, wanted: bytes, current: bytes | None) -> str:
    """Write `wanted` (0644, atomically) unless `current` already is it: installed or unchanged."""
    if current == wanted:
        return "unchanged"
    fsio.write_file(path, wanted, mode=0o644)
    return "installed"


def remove(path: Path, ours: Callable[[bytes], bool], *, own_folder: bool = False) -> bool:
    """Remove `path` when it is jacked's (and with `own_folder` its folder, when that leaves it
    empty); whether it was removed."""
    try:
        data = read(path, own_folder=own_folder)
    except VaultError:
        return False
    if data is None or not ours(data):
        return False
    path.unlink()
    if own_folder:
        with contextlib.suppress(OSError):  # something else is in the folder: it stays
            path.parent.rmdir()
    return True
