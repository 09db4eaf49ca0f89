"""Tombstones (SPEC 5.3): the sha256 of every rejected note's normalised title and body.

Normalisation folds what does not make a new value: Unicode NFKC, case, format characters
(zero-width spaces, soft hyphens, …) and runs of whitespace, punctuation and symbols. The
hashes live in `tombstones/<machine-id>.txt` (one a line, append-only, one file per machine so
two machines never conflict); they sync like notes. The search index keeps the set of every
machine's hashes plus those of the rejected notes themselves, and `blocks` is the one rule
that says whether a tombstoned value may exist as a live note.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

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


def tombstone_path(machine: str) -> str:
    return f"{TOMBSTONE_DIR}/{machine}.txt"


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


def blocks(status: str, origin: str, *, person_override: bool) -> bool:
    """Whether a note in this state may not carry a tombstoned value.

    Rejected and superseded notes are the record of the rejection; a person may re-add a
    rejected value on purpose (`add --allow-rejected`, which for a committed note means it came
    from the CLI). Everything else (capture, MCP, migration, repair, sync arrivals) never brings
    a rejected value back, and a claim of `trust: reviewed` is no exemption: it is only a field
    of the file (store/reviews.py), and a rejection made later outweighs an earlier accept.
    """
    if status in RECORDS:
        return False
    return not (person_override and origin == PERSON_ORIGIN)


RECORDS = ("rejected", "superseded")  # statuses that are the record of a rejection, not a live value
PERSON_ORIGIN = "cli"  # a committed note with this origin was saved by a person (who may override)


def blocks_sql(alias: str) -> str:
    """`blocks(status, origin, person_override=True)` for the committed note rows `alias` names,
    as SQL (the same rule; a test holds the two equal)."""
    statuses = ", ".join(f"'{s}'" for s in RECORDS)
    return f"({alias}.status NOT IN ({statuses}) AND {alias}.origin <> '{PERSON_ORIGIN}')"
