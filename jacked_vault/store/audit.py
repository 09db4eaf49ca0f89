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
    value = "m-" + os.urandom(6).hex()
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
    remote: str | None = None  # a sync merge: the remote commit merged


@dataclass
class PendingAudit:
    """Audit lines staged in memory for one commit: the file content to write and commit, and the
    hash of its last line (the commit's `Memory-Audit` trailer)."""

    rel: str
    before: bytes | None
    after: bytes
    last_hash: str


def stage(root: Path, machine: str, events: list[AuditEvent]) -> PendingAudit:
    """Build the new content of this month's audit file with `events` appended to the chain."""
    from jacked_vault.document.timestamps import utc_now

    month = utc_now()[:7]  # the month of the write, not of the event: the chain follows write order
    rel = f"{AUDIT_DIR}/{machine}/{month}.jsonl"
    before = fsio.read_optional(root, rel, max_bytes=MAX_AUDIT_FILE)
    prev = _previous_hash(root, machine, rel, before)
    out = bytearray(before or b"")
    if out and not out.endswith(b"\n"):
        out += b"\n"
    for event in events:
        record = {
            "ts": event.ts,
            "op": event.op,
            "id": event.id,
            "path": event.path,
            "sha256": event.sha256,
            "prev": prev,
            "harness": event.harness,
            "origin": event.origin,
        }
        if event.remote:
            record["remote"] = event.remote
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        out += line.encode("utf-8") + b"\n"
        prev = line_hash(line)
    return PendingAudit(rel=rel, before=before, after=bytes(out), last_hash=prev or "")


@dataclass
class AuditReport:
    """What verifying every machine's chain found."""

    problems: list[dict] = field(default_factory=list)
    last_by_path: dict[str, tuple[str, str]] = field(default_factory=dict)  # path -> (ts, sha256)
    last_by_id: dict[str, tuple[str, str]] = field(default_factory=dict)  # note id -> (ts, sha256)
    recorded_ids: set[str] = field(default_factory=set)
    hashes: dict[str, set[str]] = field(default_factory=dict)  # machine -> hash of every line
    last: dict[str, str] = field(default_factory=dict)  # machine -> hash of its last line


def verify(root: Path) -> AuditReport:
    """Check every machine's chain; collect the last recorded sha256 of each path and note id."""
    report = AuditReport()
    audit_root = root / AUDIT_DIR
    try:
        machines = sorted(n for n in os.listdir(audit_root) if not n.startswith("."))
    except OSError:
        return report
    for machine in machines:
        scan = fsio.scan(root, f"{AUDIT_DIR}/{machine}", suffix=".jsonl", max_depth=2, max_bytes=1 << 30)
        prev: str | None = None
        seen = report.hashes.setdefault(machine, set())
        for rel in sorted(f for f in scan.files if _MONTH_FILE.match(f.rsplit("/", 1)[-1])):
            data = fsio.read_file(root, rel, max_bytes=MAX_AUDIT_FILE)
            for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    report.problems.append({"path": rel, "line": number, "code": "UNPARSABLE"})
                    prev = line_hash(line)
                    seen.add(prev)
                    continue
                if not isinstance(entry, dict) or entry.get("prev") != prev:
                    report.problems.append({"path": rel, "line": number, "code": "CHAIN_BROKEN"})
                prev = line_hash(line)
                seen.add(prev)
                if isinstance(entry, dict):
                    _collect(report, entry)
        if prev:
            report.last[machine] = prev
    return report


def _collect(report: AuditReport, entry: dict) -> None:
    path, sha, ts, note_id = entry.get("path"), entry.get("sha256"), str(entry.get("ts", "")), entry.get("id")
    if isinstance(path, str) and isinstance(sha, str) and sha and ts >= report.last_by_path.get(path, ("", ""))[0]:
        report.last_by_path[path] = (ts, sha)
    if isinstance(note_id, str):
        report.recorded_ids.add(note_id)
        if isinstance(sha, str) and sha and note_id.startswith("mem_") and ts >= report.last_by_id.get(note_id, ("", ""))[0]:
            report.last_by_id[note_id] = (ts, sha)


TRAILER = "Memory-Audit: "
MAX_COMMITS_CHECKED = 200_000


def verify_trailers(repo, report: AuditReport) -> list[dict]:
    """Compare every commit's `Memory-Audit: <machine> <hash>` trailer with the chains.

    A trailer names the last line of that machine's chain when the commit was made, so its hash
    must be a line of the chain: one that is not means lines were cut or the chain rewritten.
    """
    import pygit2

    from jacked_vault.store.git import head_commit

    problems: list[dict] = []
    head = head_commit(repo)
    if head is None:
        return problems
    for n, commit in enumerate(repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)):
        if n >= MAX_COMMITS_CHECKED:
            break
        for line in (commit.message or "").splitlines():
            if not line.startswith(TRAILER):
                continue
            machine, _, value = line[len(TRAILER) :].strip().partition(" ")
            if value not in report.hashes.get(machine, ()):
                problems.append({"path": f"{AUDIT_DIR}/{machine}", "commit": str(commit.id), "code": "CHAIN_TRUNCATED_OR_REWRITTEN"})
    return problems
