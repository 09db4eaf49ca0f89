"""The audit parts' verdicts this machine reached, kept in its index file (`search.index`'s, under
`.git/jacked/`; machine-local, never tracked): one row per part, keyed by the part's git blob id
and the chain hash it starts from, so a part whose bytes are the same is not verified again
(`audit.verify`). Content-keyed like the gate's verdicts, so it is kept through a rebuild; a row
that cannot be read is no verdict (the part is verified again)."""

from __future__ import annotations

import contextlib
import sqlite3

TABLE = (
    "CREATE TABLE IF NOT EXISTS audit_parts(rel TEXT PRIMARY KEY, blob TEXT NOT NULL, prev TEXT, verdict BLOB NOT NULL)"
)


class AuditParts:
    """The verdicts by part (`audit.PartCache`), in the index file `db` is connected to."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._ready = False

    def get(self, rel: str, blob: str, prev: str | None) -> bytes | None:
        """The stored verdict of part `rel` when its bytes are `blob` and the chain enters it at `prev`."""
        row = None
        with contextlib.suppress(sqlite3.OperationalError):  # no table yet, or the file is busy: no verdict
            row = self._db.execute("SELECT blob, prev, verdict FROM audit_parts WHERE rel=?", (rel,)).fetchone()
        if row is None or row[0] != blob or row[1] != prev or not isinstance(row[2], bytes):
            return None
        return row[2]

    def put(self, rel: str, blob: str, prev: str | None, verdict: bytes) -> None:
        """Keep the verdict of part `rel` (replacing the one of its earlier bytes)."""
        with contextlib.suppress(sqlite3.OperationalError):  # busy or read-only: the next run verifies it again
            if not self._ready:
                self._db.execute(TABLE)
                self._ready = True
            self._db.execute(
                "INSERT OR REPLACE INTO audit_parts(rel, blob, prev, verdict) VALUES(?, ?, ?, ?)",
                (rel, blob, prev, verdict),
            )
