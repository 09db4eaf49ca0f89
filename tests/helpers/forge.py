"""What an insider with push access can build with plain git: an accept commit with every piece of
the evidence `store/reviews.py` checks (the note's transition, an `accept` audit line of some
machine's chain naming the new blob, the subject and the `Memory-Id` / `Memory-Audit` trailers),
unsigned. Nothing here goes through jacked's doors."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from conftest import git

from jacked_vault.document import parse_note, render_note

FORGER = "m-forger"  # the machine id the hand-built audit line claims


def forge_accept(clone: Path, rel: str, *, machine: str = FORGER, when: str = "2026-12-01T10:00:00.000Z") -> str:
    """In a plain clone (or the vault itself), turn the committed note at `rel` into an accepted,
    reviewed one and commit it as `memory(accept)` with its audit line in `audit/<machine>/`;
    returns the commit. The caller pushes (or not)."""
    note = parse_note((clone / rel).read_bytes(), source=rel)
    accepted = dataclasses.replace(note, status="active", trust="reviewed", updated_at=when)
    data = render_note(accepted)
    (clone / rel).write_bytes(data)
    audit_rel = f"audit/{machine}/{when[:7]}.jsonl"
    audit_path = clone / audit_rel
    prev = None
    if audit_path.exists():
        lines = audit_path.read_text().splitlines()
        prev = hashlib.sha256(lines[-1].encode()).hexdigest() if lines else None
    record = {"ts": when, "op": "accept", "id": note.id, "path": rel, "sha256": hashlib.sha256(data).hexdigest(),
              "prev": prev, "harness": "claude", "origin": "cli"}  # fmt: skip
    line = json.dumps(record, separators=(",", ":"))
    audit_path.parent.mkdir(parents=True, exist_ok=True)
    with audit_path.open("a") as out:
        out.write(line + "\n")
    git(clone, "add", "-f", rel, audit_rel)
    message = (
        f"memory(accept): {note.title}\n\nMemory-Id: {note.id}\nMemory-Origin: cli\nMemory-Harness: claude\n"
        f"Memory-Audit: {machine} {hashlib.sha256(line.encode()).hexdigest()}\n"
    )
    git(clone, "commit", "-q", "-m", message)
    return git(clone, "rev-parse", "HEAD").strip()
