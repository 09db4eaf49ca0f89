"""Canonical timestamps: `YYYY-MM-DDTHH:MM:SS.mmmZ`, UTC, millisecond precision."""

from __future__ import annotations

from datetime import UTC, datetime

from jacked_vault.document.model import TIMESTAMP_RE
from jacked_vault.errors import VaultError


def format_timestamp(dt: datetime) -> str:
    """Render an aware datetime in UTC with milliseconds (truncated) and a `Z`.

    A naive datetime raises ValueError: its zone is unknown, and guessing would corrupt time.
    """
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise ValueError("format_timestamp needs an aware datetime")
    dt = dt.astimezone(UTC)
    return (
        f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T"
        f"{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}.{dt.microsecond // 1000:03d}Z"
    )


def utc_now() -> str:
    """The current time as a canonical timestamp."""
    return format_timestamp(datetime.now(UTC))


def parse_timestamp(s: object) -> datetime:
    """Parse a canonical timestamp into an aware UTC datetime; VALIDATION if malformed or not
    a real date/time (e.g. `2026-02-30T...`), or not a string at all (a value read from JSON)."""
    if not isinstance(s, str) or not TIMESTAMP_RE.fullmatch(s):
        raise VaultError("VALIDATION", "timestamp must look like YYYY-MM-DDTHH:MM:SS.mmmZ")
    try:
        return datetime(
            int(s[0:4]),
            int(s[5:7]),
            int(s[8:10]),
            int(s[11:13]),
            int(s[14:16]),
            int(s[17:19]),
            int(s[20:23]) * 1000,
            tzinfo=UTC,
        )
    except ValueError:
        raise VaultError("VALIDATION", f"timestamp {s} is not a real date and time") from None


def normalise_timestamp(text: str) -> str:
    """A user-given date or ISO 8601 time as a canonical timestamp (naive times are UTC)."""
    try:
        dt = datetime.fromisoformat(text.strip())
    except ValueError:
        raise VaultError("VALIDATION", "not a date or an ISO 8601 time") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return format_timestamp(dt)
