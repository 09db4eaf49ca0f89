"""Compact sets of strings: what a check must remember per note or line, in a few MB at 100k.

A string is held as the first 8 bytes of its sha256, an int (40 bytes where a 16-byte `bytes`
takes 56): doctor at 200k notes remembers 400k of them. Two different strings share a digest
with odds of about n/2^64 per question, 1e-14 at 200k."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

DIGEST_BYTES = 8


def digest(value: str) -> int:
    """The first `DIGEST_BYTES` bytes of the sha256 of `value`, as an int."""
    return int.from_bytes(digest_bytes(value), "big")


def digest_bytes(value: str) -> bytes:
    """`digest` as its big-endian bytes."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()[:DIGEST_BYTES]


class Digests:
    """A set of strings held as their `digest`: membership is all the checks ask, and 100k ids or
    line hashes then take a few MB (doctor's memory stays bounded)."""

    __slots__ = ("_keys",)

    def __init__(self) -> None:
        self._keys: set[int] = set()

    def add(self, value: str) -> None:
        self._keys.add(digest(value))

    def add_digests(self, keys: Iterable[int]) -> None:
        """Add strings already held as their `digest`."""
        self._keys.update(keys)

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and digest(value) in self._keys

    def __len__(self) -> int:
        return len(self._keys)
