"""The append-only audit log: `audit/<machine-id>/<YYYY-MM>.jsonl`, one hash-chained line per mutation.

Each line records what changed (op, id, path, sha256 of the new file, harness, origin) and the
sha256 of the previous line of the same machine, so any edit or removal breaks the chain.
Never a body, never a secret.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from jacked_vault.safety import fsio
from jacked_vault.store.layout import AUDIT_DIR

MAX_AUDIT_FILE = 64 * 1024 * 1024
_MONTH_FILE = re.compile(r"^\d{4}-\d{2}\.jsonl$")
_MACHINE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def machine_id(cache_dir: Path) -> str:
    """This machine's id for audit files: `<cache>/machine-id`, created on first use."""
    path = cache_dir / "machine-id"
    try:
        value = path.read_text(encoding="ascii").strip()
        if _MACHINE_ID.match(value):
            return value
    except (OSError, UnicodeDecodeError):
        pass
    value = "m-" + secrets.token_hex(6)
    os.makedirs(cache_dir, exist_ok=True)
    fsio.replace_file(cache_dir, "machine-id", (value + "\n").encode())
    return value


def line_hash(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _last_line(data: bytes) -> str | None:
    lines = data.decode("utf-8", "replace").splitlines()
    return lines[-1] if lines else None


def _previous_hash(root: Path, machine: str, month_rel: str, current: bytes | None) -> str | None:
    """Hash of this machine's latest line: in the current month file, else the newest earlier one."""
    if current:
        last = _last_line(current)
        return line_hash(last) if last else None
    machine_dir = root / AUDIT_DIR / machine
    try:
        months = sorted(n for n in os.listdir(machine_dir) if _MONTH_FILE.match(n))
    except OSError:
        return None
    earlier = [n for n in months if f"{AUDIT_DIR}/{machine}/{n}" < month_rel]
    if not earlier:
        return None
    data = fsio.read_optional(root, f"{AUDIT_DIR}/{machine}/{earlier[-1]}", max_bytes=MAX_AUDIT_FILE)
    last = _last_line(data) if data else None
    return line_hash(last) if last else None


@dataclass(frozen=True)
class AuditEvent:
    ts: str
    op: str
    id: str
    path: str
    sha256: str
    harness: str
    origin: str


@dataclass
class PendingAudit:
    """Audit lines staged in memory for one commit: the file content to write and commit."""

    rel: str
    before: bytes | None
    after: bytes


def stage(root: Path, machine: str, events: list[AuditEvent]) -> PendingAudit:
    """Build the new content of this month's audit file with `events` appended to the chain."""
    month = events[0].ts[:7]
    rel = f"{AUDIT_DIR}/{machine}/{month}.jsonl"
    before = fsio.read_optional(root, rel, max_bytes=MAX_AUDIT_FILE)
    prev = _previous_hash(root, machine, rel, before)
    out = bytearray(before or b"")
    if out and not out.endswith(b"\n"):
        out += b"\n"
    for event in events:
        line = json.dumps(
            {
                "ts": event.ts,
                "op": event.op,
                "id": event.id,
                "path": event.path,
                "sha256": event.sha256,
                "prev": prev,
                "harness": event.harness,
                "origin": event.origin,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        out += line.encode("utf-8") + b"\n"
        prev = line_hash(line)
    return PendingAudit(rel=rel, before=before, after=bytes(out))


@dataclass
class AuditReport:
    """What verifying every machine's chain found."""

    problems: list[dict] = field(default_factory=list)
    last_by_path: dict[str, tuple[str, str]] = field(default_factory=dict)  # path -> (ts, sha256)
    recorded_ids: set[str] = field(default_factory=set)


def verify(root: Path) -> AuditReport:
    """Check every machine's chain and collect the last recorded sha256 of each note path."""
    report = AuditReport()
    audit_root = root / AUDIT_DIR
    try:
        machines = sorted(n for n in os.listdir(audit_root) if not n.startswith("."))
    except OSError:
        return report
    for machine in machines:
        scan = fsio.scan(root, f"{AUDIT_DIR}/{machine}", suffix=".jsonl", max_depth=2, max_bytes=1 << 30)
        prev: str | None = None
        for rel in sorted(f for f in scan.files if _MONTH_FILE.match(f.rsplit("/", 1)[-1])):
            data = fsio.read_file(root, rel, max_bytes=MAX_AUDIT_FILE)
            for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    report.problems.append({"path": rel, "line": number, "code": "UNPARSABLE"})
                    prev = line_hash(line)
                    continue
                if entry.get("prev") != prev:
                    report.problems.append({"path": rel, "line": number, "code": "CHAIN_BROKEN"})
                prev = line_hash(line)
                path, sha, ts = entry.get("path"), entry.get("sha256"), str(entry.get("ts", ""))
                if isinstance(path, str) and isinstance(sha, str) and ts >= report.last_by_path.get(path, ("", ""))[0]:
                    report.last_by_path[path] = (ts, sha)
                if isinstance(entry.get("id"), str):
                    report.recorded_ids.add(entry["id"])
    return report
