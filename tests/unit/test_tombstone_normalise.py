"""Tombstone hashes are stored in vaults (tombstones/<machine>.txt) and compared across machines
and versions, so their normalisation may never change. ASCII text skips the regex (issue 21: a
clone normalises every note twice): its result must be exactly the regex's, on every ASCII
character, on real notes and on values pinned from earlier versions."""

from __future__ import annotations

import hashlib
import random
import re

import pytest

from jacked_vault.store.tombstones import normalise, tombstone_hash

ASCII = [chr(code) for code in range(128)]


def _by_the_rule(text: str) -> str:
    """The normalisation as the module states it for ASCII text: lower case, every run of
    characters that are not letters or digits as one space, no space at either end."""
    return re.sub(r"[\W_]+", " ", text.lower()).strip()


@pytest.mark.parametrize("seed", range(4))
def test_ascii_text_is_normalised_as_the_rule_says(seed: int) -> None:
    rng = random.Random(seed)
    texts = ["".join(rng.choice(ASCII) for _ in range(rng.randint(0, 80))) for _ in range(20_000)]
    texts += ["", " ", "_", "__a__", "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f", "a\x00b", "A_B-c.d", "Hunter2 !!"]
    for text in texts:
        assert normalise(text) == _by_the_rule(text), repr(text)


def test_each_ascii_character_alone_and_between_letters() -> None:
    for char in ASCII:
        for text in (char, f"a{char}b", f"{char}{char}x{char}"):
            assert normalise(text) == _by_the_rule(text), repr(text)


@pytest.mark.parametrize(
    ("title", "body", "pinned"),
    [  # pinned: what the version before this change (regex only, 7cecc2a) gave
        (
            "Use SQLite FTS5 for search",
            "It ships with Python and ranks with BM25.",
            "9d326bc2a29cd07c81005de78d3430f8ff38dc7e6ab0e07bc6cac937f55f92fc",
        ),
        (
            "  Retry__the upload ",
            "after a *timeout* -- twice!\n\n- once\n- twice",
            "50ada359f58b5b0eb2984370d39424ce968bc34a04af916627e67e6346b8018a",
        ),
    ],
)
def test_hashes_are_those_of_the_rule_and_of_earlier_versions(title: str, body: str, pinned: str) -> None:
    expected = hashlib.sha256(f"{_by_the_rule(title)}\n{_by_the_rule(body)}".encode()).hexdigest()
    assert tombstone_hash(title, body) == expected == pinned


def test_non_ascii_text_keeps_its_own_path() -> None:
    assert normalise("Søren\u200b   Kierkegaard_ŒUVRE") == "søren kierkegaard œuvre"
