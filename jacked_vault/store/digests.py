"""Compact sets of strings: what a check must remember per note or line, in a few MB at 100k.

A string is held as the first 8 bytes of its sha256 (in an array: 8 bytes each): doctor at 200k
notes remembers 400k of them. Two different strings share a digest with odds of about n/2^64
per question, 1e-14 at 200k."""

from __future__ import annotations

import hashlib
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from itertools import groupby

DIGEST_BYTES = 8


def digest(value: str) -> int:
    """The first `DIGEST_BYTES` bytes of the sha256 of `value`, as an int."""
    return int.from_bytes(digest_bytes(value), "big")


def digest_bytes(value: str) -> bytes:
    """`digest` as its big-endian bytes."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()[:DIGEST_BYTES]


class Digests:
    """A set of strings held as their `digest`: membership is all the checks ask. The digests are
    kept in an array (8 bytes each: 100k ids or line hashes take under 1 MB, where a set of ints
    took ~11 MB), sorted with duplicates dropped when first asked after an add, then bisected."""

    __slots__ = ("_keys", "_sorted")

    def __init__(self) -> None:
        self._keys = array("Q")
        self._sorted = True

    def add(self, value: str) -> None:
        self._keys.append(digest(value))
        self._sorted = False

    def add_digests(self, keys: Iterable[int]) -> None:
        """Add strings already held as their `digest`."""
        self._keys.extend(keys)
        self._sorted = False

    def _ordered(self) -> array[int]:
        if not self._sorted:
            self._keys = array("Q", (key for key, _ in groupby(sorted(self._keys))))
            self._sorted = True
        return self._keys

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        keys, key = self._ordered(), digest(value)
        at = bisect_left(keys, key)
        return at < len(keys) and keys[at] == key

    def __len__(self) -> int:
        return len(self._ordered())
