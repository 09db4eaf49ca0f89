"""The verdicts plain doctor keeps between runs (issue 34.4: doctor in time): a check that finds
nothing wrong keeps its verdict in the store's index file (a `meta` row; machine-local, under
`.git/jacked/`, never in the vault; a rebuild of the index drops it), keyed by exactly what it
judged, and the next run takes it only when that key is the same: any change re-checks. Only a
clean verdict is kept (a finding is always judged again)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from jacked_vault.search.schema import meta, set_meta

WALK = "doctor.walk"  # HEAD's tree walked: every object there, the trees and READ_BY_DOCTOR blobs sound
NOTES = "doctor.notes"  # each committed note, hot.md and vault.json is its last audited version
TEMP = "doctor.temp"  # no temp file of jacked's in the working tree: each folder walked, by its stamp
DERIVED = "doctor.derived"  # every index.md is what the index renders, in the working tree and in HEAD
FAN_OUT = [f"{n:02x}" for n in range(256)]  # the folders of loose objects


def taken(db: sqlite3.Connection, name: str, key: str) -> object | None:
    """The value kept under `name` when it was kept for `key` (None: judge again)."""
    try:
        held = json.loads(meta(db, name) or "null")
    except (ValueError, sqlite3.OperationalError):  # unreadable or busy: no verdict
        return None
    return held.get("value") if isinstance(held, dict) and held.get("key") == key else None


def keep(db: sqlite3.Connection, name: str, key: str, value: object) -> None:
    """Keep a clean verdict for `key` (busy or read-only: the next run judges again)."""
    with contextlib.suppress(sqlite3.OperationalError):
        set_meta(db, name, json.dumps({"key": key, "value": value}, separators=(",", ":")))


def stamp(path: Path) -> str:
    """What changes when a file or folder is written, replaced or removed: its size, inode, and
    change and modification times (`ctime` cannot be set back by hand)."""
    try:
        st = os.lstat(path)
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_ino}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def objects_state(objects: Path) -> str | None:
    """The object store's state, as the walk's verdict is keyed: each pack file (name and `stamp`)
    and each folder of loose objects (a folder's times change when an object in it is added,
    removed or renamed). None when the store borrows objects (`info/alternates`): another store's
    objects can go without this one changing, so no walk is kept."""
    if os.path.lexists(objects / "info" / "alternates") or not os.path.isdir(objects / "pack"):
        return None
    state = hashlib.sha256()
    with os.scandir(objects / "pack") as entries:
        for name in sorted(e.name for e in entries):
            state.update(f"{name} {stamp(objects / 'pack' / name)}\n".encode())
    for folder in FAN_OUT:
        state.update(f"{stamp(objects / folder)}\n".encode())
    return state.hexdigest()


def unchanged(objects: Path, read: Iterable[tuple[str, str]]) -> bool:
    """Whether each object a walk read in full still has the `stamp` it had when it was read
    (its loose file; "-": packed, the pack's own stamp in `objects_state`)."""
    return all(stamp(loose(objects, oid)) == seen for oid, seen in read)


def loose(objects: Path, oid: str) -> Path:
    """Where git keeps the object `oid` when it is loose."""
    return objects / oid[:2] / oid[2:]


def next_change(db: sqlite3.Connection, now: str) -> str | None:
    """The first moment after `now` a note's validity starts or ends (what index.md lists changes
    then, with no commit), or None."""
    row = db.execute(
        "SELECT MIN(t) FROM (SELECT valid_from AS t FROM docs WHERE tier='note' AND valid_from > ?1 "
        "UNION ALL SELECT valid_until FROM docs WHERE tier='note' AND valid_until > ?1)",
        (now,),
    ).fetchone()
    return row[0] if row else None
