"""Tombstones (SPEC 5.3): the sha256 of every rejected note's normalised title and body.

Normalisation folds what does not make a new value: Unicode NFKC, case, format characters
(zero-width spaces, soft hyphens, …) and runs of whitespace, punctuation and symbols. The
hashes live in `tombstones/<machine-id>.txt` (one a line, append-only, one file per machine so
two machines never conflict); they sync like notes. The search index keeps the set of every
machine's hashes plus those of the rejected notes themselves, and `blocks` is the one rule
that says whether a tombstoned value may exist as a note.

Two kinds of tombstone (issue 31.5). A *rejected* value keeps its text in the vault (the
rejected note is its record): only live notes may not hold it. A *forgotten* value (`forget`: a
person took the text back) is in no note at all, whatever its status, and not even a person's
`--allow-rejected` brings it back. Forgotten values are recorded in the same way, in a file of
their own per machine, `tombstones/<machine-id>.forgotten.txt`: a tombstone file like any other
(append-only, merged as a union, and read as rejections by a jacked that predates it), whose name
says its lines are forgotten. `Stones` is what a set of tombstone files says about values, and
its call (`Tombstoned`) is the oracle the gate asks: `REJECTED`, `FORGOTTEN` or None.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from jacked_vault.document.markdown import headings

TOMBSTONE_DIR = "tombstones"
MAX_TOMBSTONE_FILE = 16 * 1024 * 1024
_NOT_WORD = re.compile(r"[\W_]+")
# ASCII characters `_NOT_WORD` matches (all but letters and digits) as spaces: for ASCII text,
# splitting at them and joining with one space is the same normalisation, without a regex
_ASCII_NOT_WORD = str.maketrans({chr(code): " " for code in range(128) if not chr(code).isalnum()})
_HASH_LINE = re.compile(r"^[0-9a-f]{64}$")


def normalise(text: str) -> str:
    """NFKC, format characters removed, case-folded, runs of non-word characters as one space.

    ASCII text is its own NFKC form, holds no format character and case-folds as `lower()`,
    so it skips the per-character pass and the regex (a reindex normalises every note)."""
    if text.isascii():
        return " ".join(text.lower().translate(_ASCII_NOT_WORD).split())
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf").casefold()
    return _NOT_WORD.sub(" ", text).strip()


@lru_cache(maxsize=256)  # the gate and the index ask it of the same note in turn (a build: once each per note)
def tombstone_hash(title: str, body: str) -> str:
    return hashlib.sha256(f"{normalise(title)}\n{normalise(body)}".encode()).hexdigest()


REJECTED = "rejected"  # a tombstone's verdict: the value was rejected (its rejected note keeps the text)
FORGOTTEN = "forgotten"  # the value was forgotten: no note holds its text, whatever its status
FORGOTTEN_SUFFIX = ".forgotten.txt"

Tombstoned = Callable[[str], str | None]  # value hash -> REJECTED, FORGOTTEN, or None (no tombstone)


def tombstone_path(machine: str) -> str:
    """This machine's file of rejected values."""
    return f"{TOMBSTONE_DIR}/{machine}.txt"


def forgotten_path(machine: str) -> str:
    """This machine's file of forgotten values (`forget`)."""
    return f"{TOMBSTONE_DIR}/{machine}{FORGOTTEN_SUFFIX}"


def is_forgotten_file(rel: str) -> bool:
    """Whether the tombstone file at `rel` records forgotten values (else rejected ones)."""
    return rel.startswith(TOMBSTONE_DIR + "/") and rel.endswith(FORGOTTEN_SUFFIX)


def appended(stones: bytes | None, value: str) -> bytes | None:
    """A tombstone file's bytes with `value`'s line added, or None when it holds the value already
    (tombstones only grow; a line is never rewritten)."""
    data = stones or b""
    if value in parse_tombstones(data):
        return None
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data + (value + "\n").encode("ascii")


def stronger(first: str | None, second: str | None) -> str | None:
    """The verdict of two tombstone oracles asked about one value: forgotten outweighs rejected."""
    return FORGOTTEN if FORGOTTEN in (first, second) else first or second


@dataclass(frozen=True)
class Stones:
    """What tombstone files say about values: every tombstoned hash, and which were forgotten. Its
    call is the gate's oracle (`Tombstoned`); `in` asks whether a value is tombstoned at all."""

    values: frozenset[str] = frozenset()  # every tombstoned hash (the forgotten ones too)
    forgotten: frozenset[str] = frozenset()

    @classmethod
    def read(cls, files: Iterable[tuple[str, bytes]]) -> Stones:
        """The verdicts of tombstone files, given as (path, bytes)."""
        values: set[str] = set()
        forgotten: set[str] = set()
        for rel, data in files:
            hashes = parse_tombstones(data)
            values |= hashes
            if is_forgotten_file(rel):
                forgotten |= hashes
        return cls(frozenset(values), frozenset(forgotten))

    @classmethod
    def of_sources(cls, rows: Iterable[tuple[str, str]]) -> Stones:
        """The verdicts of (hash, source) rows: a source is the tombstone file (or note) a hash came from."""
        values: set[str] = set()
        forgotten: set[str] = set()
        for value, source in rows:
            values.add(value)
            if is_forgotten_file(source):
                forgotten.add(value)
        return cls(frozenset(values), frozenset(forgotten))

    def __call__(self, value: str) -> str | None:
        if value in self.forgotten:
            return FORGOTTEN
        return REJECTED if value in self.values else None

    def __contains__(self, value: object) -> bool:
        return value in self.values

    def __or__(self, other: Stones) -> Stones:
        return Stones(self.values | other.values, self.forgotten | other.forgotten)

    def __sub__(self, other: Stones) -> Stones:
        """What `self` says that `other` does not: new tombstones, and values newly forgotten."""
        return Stones(self.values - other.values, self.forgotten - other.forgotten)

    def within(self, other: Stones) -> bool:
        """Whether `other` says at least all that `self` says (tombstones only grow)."""
        return self.values <= other.values and self.forgotten <= other.forgotten

    def __bool__(self) -> bool:
        return bool(self.values or self.forgotten)


def parse_tombstones(data: bytes) -> set[str]:
    """The hashes of one tombstone file (malformed lines are the gate's business, not ours)."""
    return {line for line in data.decode("ascii", "replace").split("\n") if _HASH_LINE.match(line)}


def check_tombstone_lines(data: bytes, first: int = 1) -> str | None:
    """None if every line is a lowercase sha256 hex digest, else what is wrong (never the line;
    `data` starts at line `first` of its file)."""
    lines = data.decode("ascii", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, first):
        if not _HASH_LINE.match(line):
            return f"line {number} is not a sha256 hex digest"
    return None


NO_STONES = Stones()  # no tombstone at all


def blocks(status: str, origin: str, *, person_override: bool, verdict: str | None = REJECTED) -> bool:
    """Whether a note in this state may not carry a value with this tombstone `verdict`.

    A forgotten value is in no note, whatever its state or origin: a person took its text back,
    and a person's own override does not bring it back either (every other machine would take it
    out again). For a rejected value: rejected and superseded notes are the record of the
    rejection; a person may re-add a rejected value on purpose (`add --allow-rejected`, which for
    a committed note means it came from the CLI). Everything else (capture, MCP, migration,
    repair, sync arrivals) never brings a rejected value back, and a claim of `trust: reviewed` is
    no exemption: it is only a field of the file (store/reviews.py), and a rejection made later
    outweighs an earlier accept.
    """
    if verdict is None:
        return False
    if verdict == FORGOTTEN:
        return True
    if status in RECORDS:
        return False
    return not (person_override and origin == PERSON_ORIGIN)


LIFT_OP = "allow-rejected"  # the audit op of a person's `add --allow-rejected` over a rejected value


def lifts(status: str, origin: str, created_at: str, rejected_at: str | None) -> bool:
    """Whether a note that arrives holding a rejected value, with its `LIFT_OP` audit line, is a
    person's newer decision than the rejection (issue 33.14): a live note a person saved after the
    latest rejected note of that value was rejected (`rejected_at`; None: no such note is known,
    the rejection stands). The newer of the two decisions wins on every machine."""
    return (
        status in ("candidate", "active")
        and origin == PERSON_ORIGIN
        and rejected_at is not None
        and (created_at > rejected_at)
    )


RECORDS = ("rejected", "superseded")  # statuses that are the record of a rejection, not a live value
PERSON_ORIGIN = "cli"  # a committed note with this origin was saved by a person (who may override)


def blocks_sql(alias: str, forgotten: str = "0") -> str:
    """`blocks(status, origin, person_override=True, verdict=…)` for the committed note rows `alias`
    names, as SQL (the same rule; a test holds the two equal): `forgotten` is an SQL condition,
    true where the row's value was forgotten (else it was rejected)."""
    statuses = ", ".join(f"'{s}'" for s in RECORDS)
    return f"(({forgotten}) OR ({alias}.status NOT IN ({statuses}) AND {alias}.origin <> '{PERSON_ORIGIN}'))"


# -- values held in Markdown text (hot.md, episodic files) ----------------------------------------


@dataclass(frozen=True)
class Held:
    """A value a Markdown text holds: its tombstone hash and the lines [start, end) that hold it."""

    value: str
    start: int
    end: int


def markdown_values(text: str) -> list[Held]:
    """The values a Markdown text (hot.md's body, an episodic file) holds, matched as a note's is
    (its title and body, normalised and hashed as `tombstone_hash`): every heading with the text
    under it, up to the next heading and, where it has subsections, with them (a `##` section of
    core-memories.md is exactly what `migrate` makes a candidate of); and the first line of the
    text before any heading with the lines after it, or with itself (a headerless text is one
    candidate, its first line the title). A heading with nothing under it is its own body."""

    lines = text.split("\n")
    marks = headings(lines)
    out: list[Held] = []

    def hold(title: str, start: int, body_from: int, end: int) -> None:
        body = "\n".join(lines[body_from:end])
        out.append(Held(tombstone_hash(title, body if body.strip() else title), start, end))

    first = marks[0][0] if marks else len(lines)
    opening = next((n for n in range(first) if lines[n].strip()), None)
    if opening is not None:
        hold(lines[opening].strip(), opening, opening + 1, first)
        hold(lines[opening].strip(), opening, opening, first)
    for n, (line, level, title) in enumerate(marks):
        leaf = marks[n + 1][0] if n + 1 < len(marks) else len(lines)
        whole = next((later for later, deeper, _ in marks[n + 1 :] if deeper <= level), len(lines))
        hold(title, line, line + 1, leaf)
        if whole != leaf:
            hold(title, line, line + 1, whole)
    return out


def brought(held: list[Held], before: list[Held], tombstoned: Tombstoned) -> str | None:
    """The strongest verdict among the tombstoned values of `held` (a text's) that `before` (the
    version it replaces) did not hold: what a change brings into a Markdown file."""
    known = {h.value for h in before}
    verdict = None
    for value in {h.value for h in held} - known:
        verdict = stronger(verdict, tombstoned(value))
    return verdict


def withheld(text: str, held: list[Held], tombstoned: Tombstoned) -> str:
    """`text` without the lines of every tombstoned value of `held` (its values): what recall may
    show of a Markdown file whose value was rejected or forgotten after it was written."""
    gone = [(h.start, h.end) for h in held if tombstoned(h.value)]
    if not gone:
        return text
    lines = text.split("\n")
    return "\n".join(line for n, line in enumerate(lines) if not any(start <= n < end for start, end in gone))
