"""The gate's content verdicts this machine reached (`store.gate.Verdicts`), kept in the search
index's file (its `verdicts` table, kept through a rebuild) and shared with the workers that judge
ahead of a build (search/parallel.py) and with arrivals (sync/arrivals.py)."""

from __future__ import annotations

import sqlite3


class Verdicts:
    """The gate's content verdicts on this machine (`store.gate.Verdicts`), kept in the index
    file: new ones are held in memory until `save()`, which writes them in one transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._new: set[bytes] = set()
        self._stored: set[bytes] | None = None  # every stored key, once a large build read them (`known`)
        self._offered: dict[bytes, object] = {}

    def passed(self, key: bytes) -> bool:
        if key in self._new or key in self._offered or (self._stored is not None and key in self._stored):
            return True
        if self._stored is not None:
            return False
        return self._db.execute("SELECT 1 FROM verdicts WHERE key=?", (key,)).fetchone() is not None

    def known(self) -> frozenset[bytes]:
        """Every key held (read once: a large build then asks no query per note; keys another
        process stores meanwhile are missed, so their bytes are judged again, never the reverse)."""
        if self._stored is None:
            self._stored = {key for (key,) in self._db.execute("SELECT key FROM verdicts")}
        return frozenset(self._stored | self._new)

    def release(self) -> None:
        """Drop what `known` read (a build's snapshot: the table may change after it)."""
        self._stored = None

    def remember(self, key: bytes, note: object) -> None:
        self._new.add(key)

    def note(self, key: bytes) -> object | None:
        """The offered parse of these bytes, handed out once (the build that asks uses it once);
        an offered verdict is remembered when taken."""
        if key in self._offered:
            note = self._offered.pop(key)
            self.remember(key, note)
            return note
        return None

    def offer(self, key: bytes, note: object) -> None:
        """A pass this machine's gate reached in a worker process (search/parallel.py): it counts
        once the gate here meets the same bytes (`note`), never for bytes it does not meet."""
        self._offered[key] = note

    def withdraw(self) -> None:
        self._offered.clear()

    def save(self) -> None:
        if not self._new:
            return
        own = not self._db.in_transaction
        if own:
            self._db.execute("BEGIN IMMEDIATE")
        self._db.executemany("INSERT OR IGNORE INTO verdicts(key) VALUES(?)", [(key,) for key in self._new])
        if own:
            self._db.execute("COMMIT")
        if self._stored is not None:
            self._stored |= self._new
        self._new.clear()
