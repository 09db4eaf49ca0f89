"""The one gate (SPEC 5.0): every byte that goes into a vault commit, or arrives from a remote,
is checked here and nowhere else.

`inspect(store, rel, data, …)` decides what a store-relative path may hold: the path must be
part of the layout (`store.layout.classify_path`), the bytes must parse as that kind of file,
pass the secret scan over every field (raw and normalised views, `safety.secrets`), and a note
must not bring back a tombstoned value (`store.tombstones.blocks`). Every committing path (the
write transaction, repair, sync arrivals) and the search index (which mirrors only what passes)
call it, so a rule has exactly one owner. Refusals are `VaultError`s whose message names the
path, the field and the rule, never a value; `details["gate"]` carries a stable code.
`inspect_notes` gives each file of a batch the same verdict as a value, judging the notes rule by
rule over the batch (a build's workers); `inspect` of a note is that with a batch of one.

Append-only files (audit logs, tombstones, episodic day files) that extend their committed
version are checked on the appended part only, so a write costs what it adds.

Verdicts: a caller may hand `inspect` a machine-local `Verdicts` store (the search index keeps
one in `.git/jacked/`, which git never writes). The gate then remembers which note contents
passed its content rules (validation, secret scan), keyed by the sha256 of the rules' source
and the bytes, and on meeting the same bytes again skips only those two; the path, size and
tombstone rules are applied every time. A change to any rule's code changes every key.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from jacked_vault.document import MAX_FILE_BYTES, Note, timestamps
from jacked_vault.document.hot import MAX_HOT_FILE_BYTES, read_hot_text
from jacked_vault.document.model import FRONTMATTER_KEYS, TIMESTAMP_RE
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.safety.text import check_text
from jacked_vault.store.layout import Store, classify_note, classify_path, gitignore_template
from jacked_vault.store.statefile import json_lines
from jacked_vault.store.tombstones import Tombstoned

if TYPE_CHECKING:
    from jacked_vault.document import Note
    from jacked_vault.document.hot import Hot

MAX_EPISODIC_FILE = 4 * 1024 * 1024  # archive.md grows for years
MAX_DERIVED_FILE = 1024 * 1024
MAX_AUDIT_FILE = 64 * 1024 * 1024
MAX_TOMBSTONE_FILE = 16 * 1024 * 1024
APPEND_ONLY = frozenset({"audit", "tombstones", "episodic"})
_OVERLAP = 512  # bytes of the committed text re-scanned with an append (a token split at the seam)
QUARANTINE_DIR = "quarantine"
AUDIT_KEYS = ("ts", "op", "id", "path", "sha256", "prev", "harness", "origin")


class Verdicts(Protocol):
    """Where this machine keeps the gate's content verdicts (search.index.SearchIndex.verdicts)."""

    def passed(self, key: bytes) -> bool: ...

    def remember(self, key: bytes, note: object) -> None: ...

    def note(self, key: bytes) -> object | None:
        """The parse of these bytes, when this process kept it (the same bytes parse the same)."""


# The modules whose code decides a note's content verdict: a change to any of them changes every key.
_RULE_MODULES = (
    "jacked_vault.store.gate",
    "jacked_vault.safety.secrets",
    "jacked_vault.safety.text",
    "jacked_vault.document.reader",
    "jacked_vault.document.frontmatter",
    "jacked_vault.document.validate",
    "jacked_vault.document._note_check",
    "jacked_vault.document.model",
)


@cache
def _rules_digest() -> bytes:
    import hashlib
    import importlib

    from jacked_vault.document.validate import schema_digest

    digest = hashlib.sha256(schema_digest().encode())
    for name in _RULE_MODULES:
        digest.update(Path(importlib.import_module(name).__file__ or "").read_bytes())
    return digest.digest()


def verdict_key(kind: str, data: bytes) -> bytes:
    """The key of the content verdict on `data` as a file of layout `kind`, under today's rules."""
    import hashlib

    return hashlib.sha256(_rules_digest() + kind.encode() + b"\0" + data).digest()


@dataclass(frozen=True)
class Checked:
    """What the gate made of one file: its layout kind and, for notes and hot.md, the parse.

    `check_note`'s answer also carries the note's bytes and the key of its content verdict: a
    write transaction handed it (`Transaction.create`) remembers the key in the index's
    `Verdicts`, so neither the commit nor the index judges those bytes' content again; bytes
    whose key was not checked are judged as ever."""

    kind: str
    note: Note | None = None
    hot: Hot | None = None  # its body without the values a tombstone covers
    text: str | None = None  # episodic text (without the values a tombstone covers)
    values: tuple[str, ...] = ()  # hot.md, episodic: the values the text holds (store.tombstones.Held)
    data: bytes = b""  # check_note: the canonical bytes
    # check_note: verdict_key("note", data) (None: the bytes parse to another note); inspect of a note
    # with `verdicts`: the key of its bytes' content verdict
    key: bytes | None = None


def refuse(
    code: str, rel: str, problem: str, *, error: str = "VALIDATION", details: dict[str, Any] | None = None
) -> VaultError:
    """A gate refusal: `error` is the VaultError code, `code` the gate's own (INVALID, SECRET, …)."""
    return VaultError(error, f"{rel}: {problem}", details={"gate": code, "path": rel, **(details or {})})


def cap_for(kind: str | None) -> int:
    """The largest file of this layout kind the vault accepts (a derived file's for any other)."""
    return _caps().get(kind or "", MAX_DERIVED_FILE)


@cache
def _caps() -> dict[str, int]:
    return {
        "note": MAX_FILE_BYTES,
        "archive": MAX_FILE_BYTES,
        "hot": MAX_HOT_FILE_BYTES,
        "episodic": MAX_EPISODIC_FILE,
        "audit": MAX_AUDIT_FILE,
        "tombstones": MAX_TOMBSTONE_FILE,
    }


# -- the secret scan of structured values -------------------------------------------------------


# Fields whose value is one of a closed set or a timestamp: validation refuses anything else,
# so a secret there is refused either way; scanning them would only cost time (a reindex
# scans every note).
CLOSED_FIELDS = frozenset(
    {"schema", "kind", "scope", "status", "trust", "origin", "valid_from", "valid_until", "created_at", "updated_at"}
)


def note_fields(note: Note) -> dict[str, object]:
    """Every free-form string a note carries, named as its field (what the secret scan looks at):
    its frontmatter's (`Note.frontmatter`, `status_reason` only when set) but the closed fields,
    then the body."""
    found = {key: getattr(note, key) for key in _open_keys()}
    if found.get("status_reason", "") is None:
        del found["status_reason"]
    found["body"] = note.body
    return found


@cache
def _open_keys() -> tuple[str, ...]:
    return tuple(key for key in FRONTMATTER_KEYS if key not in CLOSED_FIELDS)


def scan(fields: dict[str, object], rel: str | None = None) -> None:
    """SECRET if any field holds what looks like a credential (the field and kind named)."""
    from jacked_vault.safety.secrets import assert_no_secrets

    try:
        assert_no_secrets(fields)
    except VaultError as exc:
        if rel is None:
            raise
        raise VaultError(
            "SECRET", f"{rel}: {exc.message}", details={**exc.details, "gate": "SECRET", "path": rel}
        ) from None


# -- notes ---------------------------------------------------------------------------------------


def check_note(
    note: Note, *, tombstoned: Tombstoned | None, allow_rejected: bool = False, rel: str | None = None
) -> Checked:
    """The verdict on a new note: secret scan first (messages never quote values), then
    validation (its canonical bytes), then the tombstone rule. Raises SECRET / VALIDATION /
    TOMBSTONED. The key vouches for the bytes only when they parse back to this very note."""
    from jacked_vault.document import parse_note, render_note

    scan(note_fields(note), rel)
    data = render_note(note)
    check_tombstone(note, tombstoned, person_override=allow_rejected)
    same = parse_note(data, checked=True) == note
    return Checked("note", note=note, data=data, key=verdict_key("note", data) if same else None)


def check_tombstone(note: Note, tombstoned: Tombstoned | None, *, person_override: bool) -> None:
    """TOMBSTONED when the note holds a value its state may not hold (`tombstones.blocks`): a
    rejected one (gate code TOMBSTONED), or a forgotten one, whatever its state (FORGOTTEN)."""
    from jacked_vault.store.tombstones import FORGOTTEN, blocks, tombstone_hash

    if not tombstoned:  # None, or `Stones` holding nothing (a function oracle is always asked)
        return
    verdict = tombstoned(tombstone_hash(note.title, note.body))
    if not blocks(note.status, note.origin, person_override=person_override, verdict=verdict):
        return
    if verdict == FORGOTTEN:
        raise VaultError(
            "TOMBSTONED",
            "this text was forgotten (a person took it back): it is never saved again, not even with "
            "--allow-rejected; write it in other words if it is still needed",
            details={"gate": "FORGOTTEN"},
        )
    hint = " (add --allow-rejected to save it anyway)" if note.origin == "cli" else ""
    raise VaultError(
        "TOMBSTONED", f"this note was rejected before; not re-created{hint}", details={"gate": "TOMBSTONED"}
    )


def _notes(
    store: Store,
    batch: Sequence[tuple[str, bytes]],
    tombstoned: Tombstoned | None,
    new: bool,
    allow_rejected: bool,
    verdicts: Verdicts | None,
) -> list[Checked | Exception]:
    """The verdict on each note of `batch` ((path, bytes), each a note by its path and within its
    cap), a refusal as its exception; judged rule by rule over the whole batch (see
    `inspect_notes`): what this machine holds, the parse, the secret scan, the place, the
    tombstone rule. A note whose rule fails takes no further rule."""
    from jacked_vault.document import parse_note

    verdict: list[Checked | Exception | None] = [None] * len(batch)
    keys: list[bytes | None] = [None] * len(batch)
    known = [False] * len(batch)
    notes: list[Note | None] = [None] * len(batch)

    def each(rule: Callable[[int, str, bytes], None]) -> None:
        for at, (rel, data) in enumerate(batch):
            if verdict[at] is None:
                try:
                    rule(at, rel, data)
                except Exception as exc:  # the note's verdict: `inspect` raises it again
                    verdict[at] = exc

    def held(at: int, rel: str, data: bytes) -> None:
        assert verdicts is not None
        keys[at] = key = verdict_key("note", data)
        known[at] = verdicts.passed(key)
        kept = verdicts.note(key) if known[at] else None
        notes[at] = kept if isinstance(kept, Note) else None

    def parsed(at: int, rel: str, data: bytes) -> None:
        if notes[at] is None:
            notes[at] = parse_note(data, source=rel, checked=known[at])

    def scanned(at: int, rel: str, data: bytes) -> None:
        note, key = notes[at], keys[at]
        assert note is not None
        if not known[at]:
            scan(note_fields(note), rel)
            if verdicts is not None and key is not None:
                verdicts.remember(key, note)

    def placed(at: int, rel: str, data: bytes) -> None:
        note = notes[at]
        assert note is not None
        place = classify_note(store, rel)
        assert place is not None, "_notes is handed only paths classify_path calls notes"
        scope, group, kind = place
        if (note.scope, note.kind) != (scope, kind) or (scope == "group" and note.group != group):
            raise refuse("MISPLACED", rel, "the note's scope, group or kind is not the one its folder says")
        try:
            check_tombstone(note, tombstoned, person_override=allow_rejected if new else True)
        except VaultError as exc:
            code = exc.details["gate"]
            forgotten = code == "FORGOTTEN"
            why = "a forgotten value (taken back by a person)" if forgotten else "a rejected value (tombstoned)"
            raise refuse(code, rel, why, error="TOMBSTONED") from exc
        verdict[at] = Checked("note", note=note, key=keys[at])

    if verdicts is not None:
        each(held)
    for rule in (parsed, scanned, placed):
        each(rule)
    assert all(found is not None for found in verdict), "placed gives every note left its verdict"
    return verdict  # type: ignore[return-value]


# -- other files of the layout -------------------------------------------------------------------


def _markdown(
    rel: str, text: str, base: str | None, tombstoned: Tombstoned | None, committed: bool
) -> tuple[str, tuple[str, ...]]:
    """The tombstone rule for a Markdown file (hot.md's body, an episodic file), a value being a
    titled part of its text (`tombstones.markdown_values`). A write or an arrival may not bring a
    value this store knows to be rejected or forgotten (TOMBSTONED, or FORGOTTEN: refused); one
    the file held before (`base`), or that was rejected after it was committed (`committed`: the
    search index mirrors it), is withheld from recall. Returns (the text recall may show, the
    values it holds)."""
    from jacked_vault.store.tombstones import FORGOTTEN, brought, markdown_values, withheld

    if tombstoned is None:
        return text, ()
    held = markdown_values(text)
    if not committed:
        verdict = brought(held, markdown_values(base) if base else [], tombstoned)
        if verdict == FORGOTTEN:
            raise refuse("FORGOTTEN", rel, "brings back a forgotten value (taken back by a person)", error="TOMBSTONED")
        if verdict is not None:
            raise refuse("TOMBSTONED", rel, "brings back a rejected value (tombstoned)", error="TOMBSTONED")
    return withheld(text, held, tombstoned), tuple(dict.fromkeys(h.value for h in held))


def _text(rel: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise refuse("INVALID", rel, "not UTF-8") from None
    try:
        check_text(rel, text, multiline=True)
    except VaultError as exc:
        raise refuse("INVALID", rel, exc.message.removeprefix(f"{rel} ")) from None
    return text


_AUDIT_SCAN_LINES = 1000  # audit lines scanned for secrets together (their plain words in one text)


def _audit(rel: str, data: bytes, first: int = 1) -> None:
    """The lines of an audit file (`data`, whose first line is line `first` of the file)."""

    values: dict[str, object] = {}
    lines = 0
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), first):
        try:
            entry = json.loads(line)
        except ValueError:
            raise refuse("INVALID", rel, f"line {number} is not JSON") from None
        if (
            not isinstance(entry, dict)
            or not set(AUDIT_KEYS) <= set(entry)
            or not set(entry) <= {*AUDIT_KEYS, "remote"}
        ):
            raise refuse("INVALID", rel, f"line {number} is not an audit record")
        if not all(v is None or isinstance(v, str) for v in entry.values()):
            raise refuse("INVALID", rel, f"line {number} holds a non-string value")
        # A canonical `ts` is digits in a closed format, as a note's timestamps (CLOSED_FIELDS): not
        # scanned. Named by line and key, so a finding names the field (`line 3.harness`); the keys
        # themselves are the record's, checked above, so they are names, not scanned.
        for key, value in entry.items():
            if value and not (key == "ts" and TIMESTAMP_RE.fullmatch(value)):
                values[f"line {number}.{key}"] = value
        lines += 1
        if lines == _AUDIT_SCAN_LINES:
            scan(values, rel)
            values.clear()
            lines = 0
    scan(values, rel)


def _config(rel: str, data: bytes, arrival: bool) -> None:
    """vault.json: the schema (which refuses program-running settings on a write; an arrival's are
    dropped on read, so they are ignored here too) and the secret scan."""
    from jacked_vault.store.config import validate_config, without_programs

    try:
        config = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise refuse("INVALID", rel, "not valid JSON") from None
    if arrival:
        config = without_programs(config, rel, [])
    try:
        validate_config(rel, config, local=False)
    except VaultError as exc:
        raise refuse("INVALID", rel, exc.message.removeprefix(f"{rel}: "), error="CONFIG") from None
    scan({"vault.json": config}, rel)


def _gitignore(rel: str, data: bytes) -> None:
    if data.decode("utf-8", "replace") != gitignore_template():
        raise refuse(
            "INVALID", rel, "differs from the template (the vault's .gitignore is fail-closed)", error="GITIGNORE"
        )


def _appended(kind: str, rel: str, data: bytes, base: bytes | None) -> bytes:
    """For an append-only file that extends its committed version, what is new (plus a seam).
    An audit log or tombstone file whose committed lines changed is refused."""
    if kind in ("audit", "tombstones") and base and not data.startswith(base):
        raise refuse("REWRITTEN", rel, "an append-only file whose committed lines changed")
    if kind in APPEND_ONLY and base and data.startswith(base):
        cut = max(0, len(base) - _OVERLAP)
        if kind in ("audit", "tombstones"):
            cut = base.rfind(b"\n", 0, len(base)) + 1 if base.endswith(b"\n") else cut
        return data[cut:]
    return data


def _admitted(store: Store, rel: str, data: bytes) -> str:
    """The layout kind of `rel`, refused when it has none or `data` is over that kind's cap."""
    kind = classify_path(store, rel)
    if kind is None:
        raise refuse("OUTSIDE_LAYOUT", rel, "not part of the vault layout", error="UNSAFE_PATH")
    cap = cap_for(kind)
    if len(data) > cap:
        raise refuse("TOO_LARGE", rel, f"{len(data)} bytes is over the {cap}-byte cap")
    return kind


def inspect(
    store: Store,
    rel: str,
    data: bytes,
    *,
    tombstoned: Tombstoned | None = None,
    base: bytes | None = None,
    new: bool = False,
    allow_rejected: bool = False,
    arrival: bool = False,
    committed: bool = False,
    verdicts: Verdicts | None = None,
) -> Checked:
    """Check one file for `rel` (see the module docstring); raises VaultError if it may not be there.

    `base` is the committed version (append-only files are then checked on what they add); `new`
    says the path is being created (a new note: the create-time tombstone rule applies);
    `arrival` says the bytes come from the remote (a program setting in vault.json is then
    ignored, as on every read, rather than refused). `committed` says the bytes are committed
    already (the search index mirrors them): a hot.md or episodic file holding a value rejected
    since is then withheld from recall, not refused (`_markdown`). `verdicts`: this machine's
    record of the note contents that passed before (see the module docstring).
    """
    kind = _admitted(store, rel, data)
    if kind == "note":
        found = _notes(store, [(rel, data)], tombstoned, new, allow_rejected, verdicts)[0]
        if isinstance(found, Exception):
            raise found
        return found
    if kind == "hot":
        try:
            hot = read_hot_text(data, rel)
        except VaultError as exc:
            raise refuse("INVALID", rel, exc.message.removeprefix(f"{rel}: ")) from None
        before = None
        if base:
            try:
                before = read_hot_text(base, rel).body
            except VaultError:
                before = base.decode("utf-8", "replace")  # a hand-made one: its values, every line of it
        scan({"hot.md": data.decode("utf-8")}, rel)
        body, values = _markdown(rel, hot.body, before, tombstoned, committed)
        return Checked("hot", hot=replace(hot, body=body), values=values)
    if kind == "config":
        _config(rel, data, arrival)
        return Checked(kind)
    if kind == "gitignore":
        _gitignore(rel, data)
        return Checked(kind)
    part = _appended(kind, rel, data, base)
    if kind in ("audit", "tombstones"):  # a line is named by its number in the whole file
        first = data[: len(data) - len(part)].count(b"\n") + 1
    if kind == "tombstones":
        from jacked_vault.store.tombstones import check_tombstone_lines

        problem = check_tombstone_lines(part, first)
        if problem:
            raise refuse("INVALID", rel, problem)
        return Checked(kind)
    if kind == "audit":
        _audit(rel, part, first)
        return Checked(kind)
    text = _text(rel, part)
    scan({kind: text}, rel)
    if kind in ("readme", "archive"):  # Markdown a person or agent reads: no rejected value there either
        _markdown(rel, text, base.decode("utf-8", "replace") if base else None, tombstoned, committed)
    if kind == "episodic":
        whole = text if part is data else data.decode("utf-8", "replace")
        if base and data.startswith(base):  # an append: what it adds is judged (a write, an arrival)
            _markdown(rel, data[len(base) :].decode("utf-8", "replace"), None, tombstoned, committed)
            return Checked(kind, text=whole)
        before = base.decode("utf-8", "replace") if base else None
        shown, values = _markdown(rel, whole, before, tombstoned, committed)
        return Checked(kind, text=shown, values=values)
    return Checked(kind)


def inspect_notes(
    store: Store,
    batch: Sequence[tuple[str, bytes]],
    *,
    tombstoned: Tombstoned | None = None,
    verdicts: Verdicts | None = None,
) -> list[Checked | Exception]:
    """`inspect` of each committed file of `batch` ((path, bytes)), its verdict a value (a refusal
    as its exception). The notes among them are judged rule by rule over the whole batch, not
    note by note: the same rules in the same order for each note, at a fifth less CPU (each
    rule's code and tables stay warm in the processor's caches; bench/README, stop 49)."""
    verdict: list[Checked | Exception | None] = [None] * len(batch)
    notes: list[int] = []
    for at, (rel, data) in enumerate(batch):
        try:
            if _admitted(store, rel, data) == "note":
                notes.append(at)
            else:
                verdict[at] = inspect(store, rel, data, tombstoned=tombstoned, verdicts=verdicts)
        except Exception as exc:  # the file's verdict, as `inspect` raises it
            verdict[at] = exc
    judged = _notes(store, [batch[at] for at in notes], tombstoned, False, False, verdicts)
    for at, found in zip(notes, judged, strict=True):
        verdict[at] = found
    return verdict  # type: ignore[return-value]


# -- quarantine ----------------------------------------------------------------------------------


def quarantine(store: Store, rel: str, data: bytes, reason: str, source: str) -> str:
    """Keep refused bytes in `<store>/.git/jacked/quarantine/` (never deleted, never committed,
    never recalled) with a record line; returns the quarantine file's name.

    `source` says where the bytes came from: `repair` (a stray working-tree file), `sync` (an
    arrival from the remote), `transition` (a hand edit replaced by the committed version).
    """
    from jacked_vault.store.audit import content_hash

    folder = store.state / QUARANTINE_DIR
    os.makedirs(folder, exist_ok=True)
    sha = content_hash(data)
    now = timestamps.utc_now()
    name = f"{now.replace(':', '').replace('-', '')}-{sha[:12]}-{rel.replace('/', '__')[-120:]}"
    try:
        fsio.create_file(folder, name, data)
    except VaultError as exc:
        if exc.code != "EXISTS":
            raise
    record = {"at": now, "path": rel, "sha256": sha, "reason": reason, "source": source, "file": name}
    _append_line(folder / "records.jsonl", json.dumps(record, ensure_ascii=False))
    return name


def _append_line(path: Path, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def quarantine_records(store: Store, limit: int = 1000) -> list[dict[str, Any]]:
    """The newest quarantine records of this store (what doctor shows)."""
    path = store.state / QUARANTINE_DIR / "records.jsonl"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return []
    try:
        raw = os.read(fd, 4 * 1024 * 1024)
    finally:
        os.close(fd)

    return json_lines("\n".join(raw.decode("utf-8", "replace").splitlines()[-limit:]))
