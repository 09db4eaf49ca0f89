"""Small text-layout helpers the result types share for their `to_text()` (no I/O, no vault rules)."""

from __future__ import annotations

from typing import Any, Protocol


class Result(Protocol):
    """What a library function returns to a front end: it renders itself, as JSON and as text."""

    def to_json(self) -> dict[str, Any]: ...

    def to_text(self) -> str: ...


def fields_block(rows: list[tuple[str, str]]) -> str:
    """`key: value` lines with the values aligned, like `git show --stat`'s headers."""
    width = max((len(key) for key, _ in rows), default=0) + 1
    return "\n".join(f"{key + ':':<{width}} {value}" for key, value in rows)


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 note`, `2 notes` (or the irregular plural given)."""
    return f"{count} {word if count == 1 else many or word + 's'}"
