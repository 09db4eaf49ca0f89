"""What the main process (not a forked worker: search/parallel.py) does, recorded through
pytest's monkeypatch."""

from __future__ import annotations

import os
from collections import Counter

from jacked_vault.search import index as index_module
from jacked_vault.store import gate


def main_process_scans(monkeypatch) -> list[str | None]:
    """The paths whose secret scan (`store.gate.scan`) runs in this process, from now on."""
    main, scanned = os.getpid(), []
    plain = gate.scan

    def scan(fields, rel=None):
        if os.getpid() == main:
            scanned.append(rel)
        return plain(fields, rel)

    monkeypatch.setattr(gate, "scan", scan)
    return scanned


def main_process_derivations(monkeypatch) -> list[str]:
    """The titles of the entries whose text this process analyses for the index, from now on: by
    the index, or as a note arrives (sync/arrivals.py)."""
    from jacked_vault.sync import arrivals

    main, titles = os.getpid(), []
    plain = index_module.derive

    def derive(title, tags, body, note):
        if os.getpid() == main:
            titles.append(title)
        return plain(title, tags, body, note)

    monkeypatch.setattr(index_module, "derive", derive)
    monkeypatch.setattr(arrivals, "derive", derive)
    return titles


def main_process_blob_reads(monkeypatch) -> list[str]:
    """The ids of the blobs this process reads from git (`store.git.read_capped`, the one reader:
    `read_blob` reads through it), from now on."""
    from jacked_vault.store import git

    main, read = os.getpid(), []
    plain = git.read_capped

    def read_capped(repo, oid, cap, rel=None):
        if os.getpid() == main:
            read.append(str(oid))
        return plain(repo, oid, cap, rel)

    monkeypatch.setattr(git, "read_capped", read_capped)
    return read


def main_process_gate_calls(monkeypatch) -> Counter[str]:
    """How many times this process consults the gate (`store.gate.inspect`) for each path, from now on."""
    main, calls = os.getpid(), Counter[str]()
    plain = gate.inspect

    def inspect(store, rel, data, **kw):
        if os.getpid() == main:
            calls[rel] += 1
        return plain(store, rel, data, **kw)

    monkeypatch.setattr(gate, "inspect", inspect)
    return calls
