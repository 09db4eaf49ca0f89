"""Tombstones: the sha256 of every rejected note's normalised title and body (SPEC 5.3).

Kept per machine in `tombstones/<machine-id>.txt` (one hash a line, append-only) so two
machines never conflict. Automatic capture never re-creates a tombstoned value; a manual add
of one is refused unless the person says `--allow-rejected`.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata

from jacked_vault.safety import fsio
from jacked_vault.store.layout import Store

TOMBSTONE_DIR = "tombstones"
MAX_TOMBSTONE_FILE = 16 * 1024 * 1024


def normalise(text: str) -> str:
    """Case-folded, NFKC, whitespace-collapsed: trivial rewording does not escape a tombstone."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def tombstone_hash(title: str, body: str) -> str:
    return hashlib.sha256(f"{normalise(title)}\n{normalise(body)}".encode("utf-8")).hexdigest()


def tombstone_path(machine: str) -> str:
    return f"{TOMBSTONE_DIR}/{machine}.txt"


def all_tombstones(store: Store) -> set[str]:
    """Every machine's tombstones (files are small: one 64-char hash per rejection)."""
    folder = store.root / TOMBSTONE_DIR
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".txt") and not n.startswith("."))
    except OSError:
        return set()
    out: set[str] = set()
    for name in names:
        data = fsio.read_optional(store.root, f"{TOMBSTONE_DIR}/{name}", max_bytes=MAX_TOMBSTONE_FILE) or b""
        out.update(line.strip() for line in data.decode("ascii", "replace").splitlines() if len(line.strip()) == 64)
    return out


def is_tombstoned(store: Store, title: str, body: str) -> bool:
    return tombstone_hash(title, body) in all_tombstones(store)
