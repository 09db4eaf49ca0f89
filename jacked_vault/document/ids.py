"""Names for notes: generated ids (`mem_<YYYYMMDD>_<ulid>`), the short ids a person may type for
them (a prefix of the random part, like git's short hashes) and file-name stems from titles."""

from __future__ import annotations

import os
import re
import unicodedata
from datetime import UTC, datetime, timedelta

from jacked_vault.errors import VaultError
from jacked_vault.safety.text import compiled

_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)
_MAX_STEM = 80
# Device names Windows reserves whatever the extension (a stem never holds a dot).
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{n}" for n in range(10)} | {f"lpt{n}" for n in range(10)}
)


def _ulid(now: datetime) -> str:
    """26 lowercase Crockford base32 chars: a 48-bit millisecond timestamp, 80 random bits."""
    millis = (now - _EPOCH) // _MILLISECOND
    if not 0 <= millis < 1 << 48:
        raise ValueError("time is outside the ULID range")
    value = (millis << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_note_id(now: datetime | None = None) -> str:
    """A fresh id `mem_<YYYYMMDD>_<ulid>` (UTC date). `now` must be aware; default: the clock."""
    if now is None:
        now = datetime.now(UTC)
    elif now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("new_note_id needs an aware datetime")
    now = now.astimezone(UTC)
    return f"mem_{now:%Y%m%d}_{_ulid(now)}"


MIN_SHORT = 4  # characters of the random part a short id gives at least (git's minimum)
TYPED_ID = r"[A-Za-z0-9][A-Za-z0-9_-]{0,131}"  # what may be given for an id: a whole one or a short one
_DATED = r"mem_[0-9]{8}_"
_DATING = r"mem_[0-9]{0,8}_?"  # still inside `mem_<YYYYMMDD>_`: no random part yet


def random_part(note_id: str) -> str:
    """What follows `mem_<YYYYMMDD>_` in a generated id (what follows `mem_` in any other)."""
    dated = compiled(_DATED).match(note_id)
    return note_id[dated.end() if dated else len("mem_") :]


class ShortId:
    """A short id: a prefix of a note id's random part (`01jq7k2m`), or of the whole id with it
    (`mem_20261201_01jq7k2m`); any case (ids are lowercase). A plain class: a dataclass's methods
    are compiled when it is defined, which every process importing this would pay (a hook start)."""

    __slots__ = ("typed",)

    def __init__(self, typed: str) -> None:
        self.typed = typed

    def matches(self, note_id: str) -> bool:
        if self.typed.startswith("mem_"):
            return note_id.startswith(self.typed)
        return random_part(note_id).startswith(self.typed)

    def globs(self) -> tuple[str, ...]:
        """SQLite GLOB patterns that find at least every id it matches (`matches` decides)."""
        if self.typed.startswith("mem_"):
            return (f"{self.typed}*",)
        return (f"mem_{'[0-9]' * 8}_{self.typed}*", f"mem_{self.typed}*")


def short_id(typed: str) -> ShortId | None:
    """`typed` as a short id; None when it cannot be one (not an id's characters). USAGE when it
    gives fewer than MIN_SHORT characters of the random part (ambiguous by design)."""

    if not re.fullmatch(TYPED_ID, typed):
        return None
    typed = typed.lower()
    whole = typed.startswith("mem_")
    given = len(typed) if not whole else 0 if compiled(_DATING).fullmatch(typed) else len(random_part(typed))
    if given < MIN_SHORT:
        raise VaultError(
            "USAGE",
            f"a short id needs at least {MIN_SHORT} characters of the part after mem_<date>_ "
            "(any unique start of it, like git's short hashes); nothing was changed",
        )
    return ShortId(typed)


# Latin letters NFKD does not take apart (no base letter + accent), spelled as their languages
# write them in ASCII: Søren -> Soren, Łódź -> Lodz, Straße -> Strasse, Þór -> Thor.
LETTERS = str.maketrans(
    {
        "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE",
        "œ": "oe", "Œ": "OE", "đ": "d", "Đ": "D", "þ": "th", "Þ": "TH", "ð": "d", "Ð": "D",
        "ı": "i", "ħ": "h", "Ħ": "H", "ŧ": "t", "Ŧ": "T", "ŋ": "ng", "Ŋ": "NG", "ĸ": "k",  # noqa: RUF001 - the dotless i (Turkish) is a letter this table spells
    }
)  # fmt: skip


def transliterate(text: str) -> str:
    """`text` with accents removed (NFKD, combining marks dropped) and the letters of `LETTERS`
    spelled in ASCII; other scripts are kept."""
    text = unicodedata.normalize("NFKD", text).translate(LETTERS)
    return "".join(c for c in text if not unicodedata.combining(c))


def slugify_title(title: str) -> str:
    """A file-name stem for `title`: ASCII `[a-z0-9-]`, at most 80 chars, never empty, never a
    Windows device name, never starting with `.`. Accented and other Latin letters are spelled
    in ASCII (`transliterate`); what is left that is not ASCII (other scripts) is dropped."""
    ascii_text = transliterate(title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > _MAX_STEM:
        cut = slug[: _MAX_STEM + 1].rfind("-")
        slug = slug[:cut] if cut > 0 else slug[:_MAX_STEM]
    if not slug:
        return "note"
    if slug in _WINDOWS_RESERVED:
        return f"{slug}-note"
    return slug
