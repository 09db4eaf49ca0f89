"""The verdicts plain doctor keeps between runs (issue 34.4: doctor in time): a check that finds
nothing wrong keeps its verdict in the store's index file (`meta` rows; machine-local, under
`.git/jacked/`, never in the vault; a rebuild of the index drops them), keyed by exactly what it
judged. The next run takes it whole when that key is the same; after a change, a check that can
tell what the change touched judges only that (doctor.checks: `walk_since`, `_changed_notes`,
`_changed_groups`, the temp files), and everything otherwise. Only a clean verdict is kept (a
finding is always judged again)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.search.schema import meta, rows_in, set_meta

WALK = "doctor.walk"  # HEAD's tree walked: every object there, the trees and READ_BY_DOCTOR blobs sound
LOOSE = "doctor.walk.loose"  # `.<folder>`: the loose objects there were when that walk began (a later one needs them)
NOTES = "doctor.notes"  # each committed note, hot.md and vault.json is its last audited version
TEMP = "doctor.temp"  # no temp file of jacked's in the working tree: each folder walked, by its stamp
DERIVED = "doctor.derived"  # every index.md is what the index renders, in the working tree and in HEAD
FAN_OUT = [f"{n:02x}" for n in range(256)]  # the folders of loose objects


def taken(db: sqlite3.Connection, name: str, key: str) -> object | None:
    """The value kept under `name` when it was kept for `key` (None: judge again)."""
    held = kept_for(db, name)
    return held[1] if held is not None and held[0] == key else None


def kept_for(db: sqlite3.Connection, name: str) -> tuple[str, object] | None:
    """The key and value kept under `name`, whatever the key (a check that can judge only what
    changed since compares the two itself); None when nothing readable is kept."""
    try:
        held = json.loads(meta(db, name) or "null")
    except (ValueError, sqlite3.OperationalError):  # unreadable or busy: no verdict
        return None
    return (held["key"], held.get("value")) if isinstance(held, dict) and isinstance(held.get("key"), str) else None


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


@dataclass(frozen=True)
class ObjectsState:
    """The object store as a walk's verdict is keyed: each pack file's `stamp` by name, and each
    folder of loose objects' (a folder's times change when an object in it is added, removed or
    renamed)."""

    packs: dict[str, str]
    folders: list[str]  # by FAN_OUT

    @property
    def digest(self) -> str:
        state = hashlib.sha256()
        for name in sorted(self.packs):
            state.update(f"{name} {self.packs[name]}\n".encode())
        for folder in self.folders:
            state.update(f"{folder}\n".encode())
        return state.hexdigest()

    def to_json(self) -> dict[str, object]:
        return {"packs": self.packs, "folders": self.folders}

    @classmethod
    def from_json(cls, value: object) -> ObjectsState | None:
        """The state `to_json` kept; None for anything else."""
        if not isinstance(value, dict):
            return None
        packs, folders = value.get("packs"), value.get("folders")
        if not (isinstance(packs, dict) and all(isinstance(v, str) for v in packs.values())):
            return None
        if not (
            isinstance(folders, list) and len(folders) == len(FAN_OUT) and all(isinstance(f, str) for f in folders)
        ):
            return None
        return cls({str(k): v for k, v in packs.items()}, folders)

    def changed_folders(self, now: ObjectsState) -> list[int] | None:
        """The folders of loose objects whose stamp is not the one they had here, when `now`
        still has every pack file this state had, each unchanged (packs added take nothing away);
        None when a pack file went or changed."""
        if any(now.packs.get(name) != seen for name, seen in self.packs.items()):
            return None
        return [n for n, (was, is_now) in enumerate(zip(self.folders, now.folders, strict=True)) if was != is_now]


def objects_state(objects: Path) -> ObjectsState | None:
    """The object store's state now. None when the store borrows objects (`info/alternates`):
    another store's objects can go without this one changing, so no walk is kept."""
    if os.path.lexists(objects / "info" / "alternates") or not os.path.isdir(objects / "pack"):
        return None
    with os.scandir(objects / "pack") as entries:
        names = sorted(e.name for e in entries)
    return ObjectsState({name: stamp(objects / "pack" / name) for name in names}, [stamp(objects / f) for f in FAN_OUT])


def loose_listing(objects: Path, folders: Iterable[int] = range(len(FAN_OUT))) -> dict[int, frozenset[str]]:
    """The names of the loose objects in each of `folders` (by FAN_OUT position), git's and
    libgit2's temporary files left out."""
    listing = {}
    for n in folders:
        try:
            names = os.listdir(objects / FAN_OUT[n])
        except OSError:
            names = []
        listing[n] = frozenset(name for name in names if _OBJECT_NAME.fullmatch(name))
    return listing


_OBJECT_NAME = re.compile(r"[0-9a-f]{38}(?:[0-9a-f]{24})?")  # the rest of a SHA-1 or SHA-256 id


def keep_listing(db: sqlite3.Connection, state: ObjectsState, listing: dict[int, frozenset[str]]) -> None:
    """Keep the loose objects each folder of `listing` held (`loose_listing`) when the object
    store was in `state` (a walk's, taken before the listing): one row a folder, its stamp then
    and its names (busy or read-only: not kept, and the next run walks the whole tree)."""
    with contextlib.suppress(sqlite3.OperationalError):
        db.execute("SAVEPOINT loose")
        try:
            for n, names in listing.items():
                set_meta(db, f"{LOOSE}.{FAN_OUT[n]}", state.folders[n] + "\n" + " ".join(sorted(names)))
        except sqlite3.OperationalError:
            db.execute("ROLLBACK TO loose")  # all the rows or none
            raise
        finally:
            db.execute("RELEASE loose")


def taken_listing(db: sqlite3.Connection, state: ObjectsState, folders: Iterable[int]) -> dict[int, set[str]] | None:
    """The names `keep_listing` kept for each of `folders` when the object store was in `state`;
    None when one was kept for another state of its folder, or none was."""
    found = {}
    for n in folders:
        try:
            text = meta(db, f"{LOOSE}.{FAN_OUT[n]}")
        except sqlite3.OperationalError:
            return None
        seen, newline, names = (text or "").partition("\n")
        if not newline or seen != state.folders[n]:
            return None
        found[n] = set(names.split())
    return found


def unchanged(objects: Path, read: Iterable[tuple[str, str, str]]) -> bool:
    """Whether each object a walk read in full ((path, id, `stamp`)) still has the `stamp` it had
    when it was read (its loose file; "-": packed, the pack's own stamp in `objects_state`)."""
    return all(stamp(loose(objects, oid)) == seen for _, oid, seen in read)


def loose(objects: Path, oid: str) -> Path:
    """Where git keeps the object `oid` when it is loose."""
    return objects / oid[:2] / oid[2:]


def next_change(db: sqlite3.Connection, now: str, paths: Iterable[str] | None = None) -> str | None:
    """The first moment after `now` a note's validity starts or ends (what index.md lists changes
    then, with no commit), or None; of the notes at `paths` only, when given."""
    if paths is None:
        row = db.execute(
            "SELECT MIN(t) FROM (SELECT valid_from AS t FROM docs WHERE tier='note' AND valid_from > ?1 "
            "UNION ALL SELECT valid_until FROM docs WHERE tier='note' AND valid_until > ?1)",
            (now,),
        ).fetchone()
        return row[0] if row else None
    sql = "SELECT valid_from, valid_until FROM docs WHERE tier='note' AND path IN ({marks})"
    return min((t for row in rows_in(db, sql, paths) for t in row if t is not None and t > now), default=None)
