"""The append-only audit log: `audit/<machine-id>/<YYYY-MM>.jsonl`, one hash-chained line per mutation.

Each line records what changed (op, id, path, sha256 of the new file, harness, origin) and the
sha256 of the previous line of the same machine, so any edit or removal breaks the chain.
Never a body, never a secret.

A month rolls into numbered parts (`<YYYY-MM>-2.jsonl`, `-3`, …) once a part holds
`ROLL_BYTES`, so a write reads, rewrites and commits one small file whatever the history
holds: the previous line's hash comes from the tail of the newest part, never the whole month.
The chain runs through the parts in order (month, then part number).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from jacked_vault.document import timestamps
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store import git
from jacked_vault.store.digests import DIGEST_BYTES, Digests, digest, digest_bytes
from jacked_vault.store.git import blob_at, head_commit
from jacked_vault.store.layout import AUDIT_DIR, audit_part

if TYPE_CHECKING:
    import pygit2

MAX_AUDIT_FILE = 64 * 1024 * 1024
ROLL_BYTES = 256 * 1024  # a part takes no line that would carry it past this (a lone line excepted)
MAX_LINE = 1024 * 1024  # a longer line is no record: reported unparsable, never read whole
_TAIL_CHUNK = 4096


def line_hash(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def part_name(month: str, part: int) -> str:
    """The file name of part `part` of `month` (`store.layout.audit_part` reads it back)."""
    return f"{month}.jsonl" if part == 1 else f"{month}-{part}.jsonl"


class _Committed:
    """HEAD's audit files: read for a part the working tree does not hold (a sparse checkout
    that leaves `audit/` out keeps it in git only)."""

    def __init__(self, root: Path) -> None:
        self.repo = git.open_repo(root)
        head = git.head_commit(self.repo)
        self.tree = head.tree if head is not None else None

    def names(self, folder: str) -> list[str]:
        import pygit2

        try:
            entry = self.tree[folder] if self.tree is not None else None
        except KeyError:
            return []
        return [e.name for e in entry if e.name is not None] if isinstance(entry, pygit2.Tree) else []

    def blob(self, rel: str) -> bytes | None:
        return blob_at(self.repo, self.tree, rel)

    def blob_id(self, rel: str) -> str | None:
        """The git blob id HEAD holds at `rel` (None: none there)."""
        try:
            entry = self.tree[rel] if self.tree is not None else None
        except KeyError:
            return None
        return str(entry.id) if entry is not None and entry.type_str == "blob" else None


def parts(root: Path, machine: str, committed: _Committed | None = None) -> list[str]:
    """The store-relative paths of `machine`'s audit files (on disk or in HEAD), in chain order."""
    try:
        names = set(os.listdir(root / AUDIT_DIR / machine))
    except OSError:
        names = set()
    names.update((committed or _Committed(root)).names(f"{AUDIT_DIR}/{machine}"))
    keyed = sorted((key, name) for name in names if (key := audit_part(name)) is not None)
    return [f"{AUDIT_DIR}/{machine}/{name}" for _, name in keyed]


def _records(raw: bytes) -> list[str]:
    """The lines one newline-ended piece of an audit file holds (as `str.splitlines` splits)."""
    text = raw.decode("utf-8", "replace")
    return text.splitlines() or [text]


def _last(data: bytes) -> str | None:
    body = data[:-1] if data.endswith(b"\n") else data
    return _records(body[body.rfind(b"\n") + 1 :])[-1] or None if data else None


def _tail(root: Path, rel: str, committed: _Committed) -> tuple[str | None, int]:
    """(the last line, or None when empty; the size) of an audit file, reading its end only."""
    if not os.path.lexists(root / rel):
        data = committed.blob(rel) or b""
        return _last(data), len(data)
    with fsio.open_regular(root, rel) as (fd, size):
        chunk = _TAIL_CHUNK
        while True:
            start = max(0, size - chunk)
            data = os.pread(fd, size - start, start)
            if start == 0 or data[:-1].rfind(b"\n") >= 0:
                return _last(data), size
            chunk *= 4


def lines(root: Path, rel: str, committed: _Committed | None = None) -> Iterator[str | None]:
    """Every line of an audit file, streamed from disk (None for one over MAX_LINE, never read
    whole), or HEAD's version when the working tree does not hold it."""
    with _opened(root, rel, committed or _Committed(root)) as (handle, _):
        yield from _stream(handle)


@contextlib.contextmanager
def _opened(root: Path, rel: str, committed: _Committed) -> Iterator[tuple[IO[bytes], str | None]]:
    """(a reader of the audit file, HEAD's blob id when the working tree does not hold it)."""
    import io

    if not os.path.lexists(root / rel):
        yield io.BytesIO(committed.blob(rel) or b""), committed.blob_id(rel)
        return
    with fsio.open_regular(root, rel) as (fd, _), os.fdopen(os.dup(fd), "rb", buffering=1 << 16) as handle:
        yield handle, None


def _blob_id(root: Path, rel: str, committed: _Committed) -> str | None:
    """The git blob id of an audit file's bytes (on disk: hashed here, never read from git's
    index or its stat cache), or HEAD's when the working tree does not hold it."""
    if not os.path.lexists(root / rel):
        return committed.blob_id(rel)
    with fsio.open_regular(root, rel) as (fd, size):
        sha = hashlib.sha1(b"blob %d\0" % size)  # git's object id
        while chunk := os.read(fd, 1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


class _Hashing:
    """A reader that hashes what is read through it as git hashes a blob of `size` bytes."""

    def __init__(self, handle: IO[bytes], size: int) -> None:
        self.handle = handle
        self.sha = hashlib.sha1(b"blob %d\0" % size)  # git's object id

    def readline(self, limit: int) -> bytes:
        raw = self.handle.readline(limit)
        self.sha.update(raw)
        return raw


def _stream(handle: IO[bytes] | _Hashing) -> Iterator[str | None]:
    while raw := handle.readline(MAX_LINE + 1):
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            while (more := handle.readline(MAX_LINE + 1)) and not more.endswith(b"\n"):
                pass
            yield None
            continue
        yield from _records(raw)


@dataclass(frozen=True)
class AuditEvent:
    ts: str
    op: str
    id: str
    path: str
    sha256: str | None  # of the new bytes; "" or None (a rollup's) for a removal
    harness: str
    origin: str
    remote: str | None = None  # a sync merge: the remote commit merged


@dataclass
class PendingAudit:
    """Audit lines staged in memory for one commit: the new content of each part they go to
    (the newest part, then any new ones), and the hash of the last line (the commit's
    `Memory-Audit` trailer)."""

    files: dict[str, bytes]
    last_hash: str


def stage(root: Path, machine: str, events: list[AuditEvent]) -> PendingAudit:
    """Build the new content of the part(s) `events` are appended to, chained to the last line.

    The month is the write's (never earlier than the newest part's, so the chain keeps its
    order); a part over `ROLL_BYTES` is left as it is and the lines start the next one."""

    month, part, prev, out = timestamps.utc_now()[:7], 1, None, bytearray()
    committed = _Committed(root)
    existing = parts(root, machine, committed)
    if existing:
        last_rel = existing[-1]
        last, size = _tail(root, last_rel, committed)
        prev = line_hash(last) if last else None
        last_month, last_part = audit_part(last_rel.rsplit("/", 1)[-1]) or (month, 1)
        if last_month >= month:
            month, part = last_month, last_part
            if size >= ROLL_BYTES:
                part += 1
            elif os.path.lexists(root / last_rel):
                out += fsio.read_file(root, last_rel, max_bytes=ROLL_BYTES)
            else:
                out += committed.blob(last_rel) or b""
    if out and not out.endswith(b"\n"):
        out += b"\n"
    files: dict[str, bytes] = {}
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
        encoded = line.encode("utf-8") + b"\n"
        if out and len(out) + len(encoded) > ROLL_BYTES:
            files[f"{AUDIT_DIR}/{machine}/{part_name(month, part)}"] = bytes(out)
            part, out = part + 1, bytearray()
        out += encoded
        prev = line_hash(line)
    if events:
        files[f"{AUDIT_DIR}/{machine}/{part_name(month, part)}"] = bytes(out)
    return PendingAudit(files=files, last_hash=prev or "")


class LastRecorded:
    """The sha256 each path (or note id) was last recorded with (latest `ts` wins), compactly."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[int, bytes] = {}  # key digest -> sha digest (DIGEST_BYTES) + ts

    def put(self, slot: int, sha: int, ts: str) -> None:
        """Record that the key whose `digest` is `slot` had the sha256 whose digest is `sha` at `ts`."""
        stamp = ts.encode("utf-8", "surrogatepass")  # UTF-8 bytes sort as their text does
        held = self._last.get(slot)
        if held is None or stamp >= held[DIGEST_BYTES:]:
            self._last[slot] = sha.to_bytes(DIGEST_BYTES, "big") + stamp

    def matches(self, key: str, sha: str) -> bool | None:
        """Whether `key` was last recorded with `sha`; None when it was never recorded."""
        held = self._last.get(digest(key))
        return None if held is None else held[:DIGEST_BYTES] == digest_bytes(sha)


@dataclass
class AuditReport:
    """What verifying every machine's chain found."""

    problems: list[dict[str, Any]] = field(default_factory=list)
    hashes: dict[str, Digests] = field(default_factory=dict)  # machine -> hash of every line
    last: dict[str, str] = field(default_factory=dict)  # machine -> hash of its last line
    lines_verified: int = 0  # lines read and hashed this time (a part's kept verdict reads none)
    parts: list[tuple[str, str | None]] = field(default_factory=list)  # each part and its blob id (None: unread)
    records: list[PartVerdict] = field(default_factory=list)  # each part's, in chain order, until first asked
    _recorded: tuple[LastRecorded, LastRecorded] | None = field(default=None, init=False, repr=False)

    @property
    def last_by_path(self) -> LastRecorded:
        """What is no note (hot.md, vault.json, …): the sha256 each path was last recorded with."""
        return self._last()[0]

    @property
    def last_by_id(self) -> LastRecorded:
        """Notes, by id (mem_…): the sha256 each was last recorded with."""
        return self._last()[1]

    def recorded(self, ids: Iterable[str], paths: Iterable[str]) -> tuple[LastRecorded, LastRecorded]:
        """(`last_by_path`, `last_by_id`) as they hold these paths and note ids, the others left
        out: one pass over the parts' records, which stay (a check that asks of a few notes needs
        no 100k puts)."""
        if self._recorded is not None:
            return self._recorded
        wanted = {digest(value) for value in (*ids, *paths)}
        by_path, by_id = LastRecorded(), LastRecorded()
        for verdict in self.records:  # the chain's order: the later of two equal `ts` wins
            for key, sha, note, ts in zip(verdict.keys, verdict.shas, verdict.by_id, verdict.stamps, strict=True):
                if key in wanted:
                    (by_id if note else by_path).put(key, sha, ts)
        return by_path, by_id

    def _last(self) -> tuple[LastRecorded, LastRecorded]:
        """Both, made from the parts' records when first asked (a doctor that takes its kept
        verdict on the notes asks neither: 100k records are then never put); each part's records
        are dropped once put, so they and what they make are not held twice."""
        if self._recorded is None:
            by_path, by_id = LastRecorded(), LastRecorded()
            self.records.reverse()
            while self.records:
                verdict = self.records.pop()  # the chain's order: the later of two equal `ts` wins
                for key, sha, note, ts in zip(verdict.keys, verdict.shas, verdict.by_id, verdict.stamps, strict=True):
                    (by_id if note else by_path).put(key, sha, ts)
            self._recorded = (by_path, by_id)
        return self._recorded


class PartCache(Protocol):
    """Verdicts of audit parts verified before (`store.audit_cache.AuditParts`), by the part's
    git blob id and the chain hash it starts from."""

    def get(self, rel: str, blob: str, prev: str | None) -> bytes | None: ...

    def put(self, rel: str, blob: str, prev: str | None, verdict: bytes) -> None: ...


@dataclass
class PartVerdict:
    """What one audit part says, given the chain hash it starts from: its problems, the hash of
    its last line, and (as digests) every line's hash and every sha256 it records."""

    problems: list[dict[str, Any]] = field(default_factory=list)
    tail: str | None = None  # the chain hash after the part (its start's when it has no line)
    lines: int = 0
    hashes: array[int] = field(default_factory=lambda: array("Q"))  # the digest of each line's hash
    keys: array[int] = field(default_factory=lambda: array("Q"))  # per record: the digest of its id or path
    shas: array[int] = field(default_factory=lambda: array("Q"))  # per record: the digest of its sha256
    by_id: list[bool] = field(default_factory=list)  # per record: a note's (by id) or by path
    stamps: list[str] = field(default_factory=list)  # per record: its `ts`

    def check(self, rel: str, line: str | None) -> None:
        """Check the part's next line against the chain and collect what it records."""
        self.lines += 1
        if line is None:
            self.problems.append({"path": rel, "line": self.lines, "code": "UNPARSABLE"})
            self._chain("")
            return
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            self.problems.append({"path": rel, "line": self.lines, "code": "UNPARSABLE"})
            self._chain(line_hash(line))
            return
        if not isinstance(entry, dict) or entry.get("prev") != self.tail:
            self.problems.append({"path": rel, "line": self.lines, "code": "CHAIN_BROKEN"})
        if isinstance(entry, dict):
            self._collect(entry)
        self._chain(line_hash(line))

    def _chain(self, hashed: str) -> None:
        self.tail = hashed
        self.hashes.append(digest(hashed))

    def _collect(self, entry: dict[str, Any]) -> None:
        """A line about a note (a `mem_` id) counts by id (a sync rename is no edit); any other by path."""
        path, sha, ts, note_id = entry.get("path"), entry.get("sha256"), str(entry.get("ts", "")), entry.get("id")
        if not isinstance(sha, str) or not sha:
            return
        if isinstance(note_id, str) and note_id.startswith("mem_"):
            key, by_id = note_id, True
        elif isinstance(path, str):
            key, by_id = path, False
        else:
            return
        self.keys.append(digest(key))
        self.shas.append(digest(sha))
        self.by_id.append(by_id)
        self.stamps.append(ts)

    def apply(self, report: AuditReport, seen: Digests) -> None:
        """Add what the part says to the whole chain's report (`seen`: its machine's line hashes;
        its records are put when the report is first asked for them)."""
        report.problems += self.problems
        seen.add_digests(self.hashes)
        report.records.append(self)

    def pack(self) -> bytes:
        head = json.dumps([self.problems, self.tail, self.lines, self.stamps, self.by_id]).encode("utf-8")
        return len(head).to_bytes(4, "big") + head + self.hashes.tobytes() + self.keys.tobytes() + self.shas.tobytes()

    @classmethod
    def unpack(cls, data: bytes) -> PartVerdict | None:
        """The verdict `pack` wrote; None for bytes it did not write (the part is verified again)."""
        try:
            size = int.from_bytes(data[:4], "big")
            problems, tail, count, stamps, by_id = json.loads(data[4 : 4 + size])
            numbers = array("Q", data[4 + size :])
        except (ValueError, TypeError):  # a JSON or size error
            return None
        records = len(stamps)
        if len(numbers) != count + 2 * records or len(by_id) != records:
            return None
        return cls(
            problems, tail, count, numbers[:count], numbers[count : count + records], numbers[count + records :],
            by_id, stamps,
        )  # fmt: skip


def _machines(root: Path, committed: _Committed) -> list[str]:
    try:
        found = set(os.listdir(root / AUDIT_DIR))
    except OSError:
        found = set()
    found.update(committed.names(AUDIT_DIR))
    return sorted(n for n in found if not n.startswith("."))


def verify(root: Path, cache: PartCache | None = None) -> AuditReport:
    """Check every machine's chain; collect the last recorded sha256 of each path and note id.
    Each file is streamed: no size of history stops it. A file the working tree does not hold
    (a sparse checkout) is read as HEAD has it. With `cache`, a part whose bytes (by git blob
    id) and starting hash were verified before is not read again: its kept verdict is used."""
    report = AuditReport()
    committed = _Committed(root)
    for machine in _machines(root, committed):
        prev: str | None = None
        seen = report.hashes.setdefault(machine, Digests())
        for rel in parts(root, machine, committed):
            verdict, fresh, unreadable = None, False, False
            try:
                blob = _blob_id(root, rel, committed) if cache is not None else None
                stored = cache.get(rel, blob, prev) if cache is not None and blob is not None else None
                verdict = PartVerdict.unpack(stored) if stored is not None else None
                if verdict is None:
                    verdict, fresh = PartVerdict(tail=prev), True
                    blob = _verify_part(root, rel, committed, verdict)
                    if cache is not None and blob is not None:
                        cache.put(rel, blob, prev, verdict.pack())
            except (OSError, VaultError):
                unreadable = True
            if verdict is not None:
                verdict.apply(report, seen)
                report.lines_verified += verdict.lines if fresh else 0
                prev = verdict.tail
            if unreadable:
                report.problems.append({"path": rel, "code": "UNREADABLE"})
            report.parts.append((rel, None if unreadable else blob))
        if prev:
            report.last[machine] = prev
    return report


def _verify_part(root: Path, rel: str, committed: _Committed, verdict: PartVerdict) -> str | None:
    """Check every line of one part into `verdict` (a part cut short by an error keeps the lines
    read before it); the git blob id of the bytes it read."""
    with _opened(root, rel, committed) as (handle, head_id):
        if head_id is not None:
            for line in _stream(handle):
                verdict.check(rel, line)
            return head_id
        reader = _Hashing(handle, os.fstat(handle.fileno()).st_size)
        for line in _stream(reader):
            verdict.check(rel, line)
        return reader.sha.hexdigest()


def recorded_ids(root: Path) -> Digests:
    """Every `id` the audit lines record, of every machine (what an import already brought)."""
    found = Digests()
    committed = _Committed(root)
    for machine in _machines(root, committed):
        for rel in parts(root, machine, committed):
            for line in lines(root, rel, committed):
                try:
                    entry = json.loads(line) if line is not None else None
                except json.JSONDecodeError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    found.add(entry["id"])
    return found


TRAILER = "Memory-Audit: "
MAX_COMMITS_CHECKED = 200_000


def verify_trailers(repo: pygit2.Repository, report: AuditReport) -> list[dict[str, Any]]:
    """Compare every commit's `Memory-Audit: <machine> <hash>` trailer with the chains.

    A trailer names the last line of that machine's chain when the commit was made, so its hash
    must be a line of the chain: one that is not means lines were cut or the chain rewritten.
    """
    import pygit2

    problems: list[dict[str, Any]] = []
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
                problems.append(
                    {"path": f"{AUDIT_DIR}/{machine}", "commit": str(commit.id), "code": "CHAIN_TRUNCATED_OR_REWRITTEN"}
                )
    return problems
