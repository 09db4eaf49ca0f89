"""Compact sets of strings: what a check must remember per note or line, in a few MB at 100k."""

from __future__ import annotations

import hashlib


def digest(value: str) -> bytes:
    """The first 16 bytes of the sha256 of `value`."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()[:16]


class Digests:
    """A set of strings held as the first 16 bytes of their sha256: membership is all the checks
    ask, and 100k ids or line hashes then take a few MB (doctor's memory stays bounded)."""

    __slots__ = ("_keys",)

    def __init__(self) -> None:
        self._keys: set[bytes] = set()

    def add(self, value: str) -> None:
        self._keys.add(digest(value))

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and digest(value) in self._keys

    def __len__(self) -> int:
        return len(self._keys)
