"""Tokens split over lines (issue 17.11): a seeded property test over thousands of shapes.

Each token family the scanner reports by its own shape (every rule that is not a generic
`fallback`) is split at every or random positions into 2 or 3 lines, with plain breaks (LF,
CRLF, trailing blanks, indentation), quoted halves joined by `+` or juxtaposition, shell line
continuations or inside a JSON string, and with prose before and after: on the same line, on
a line ending in a word, on a next line starting with a word, or as a long identifier of its
own. Every shape must still be reported as its kind; the same shapes made of near misses must
stay clean. Fake secrets are assembled at run time from pieces and seeded random characters.
"""

from __future__ import annotations

from helpers.secret_shapes import FAMILIES, NEAR_MISSES, Rng, split_shape

from jacked_vault.safety import secrets
from jacked_vault.safety.secrets import scan_text

GENERIC = {rule.kind for rule in secrets._RULES if rule.fallback}


def test_every_token_kind_has_split_shapes() -> None:
    """The families are the scanner's own token kinds: a new rule without shapes fails here."""
    assert set(FAMILIES) == {rule.kind for rule in secrets._RULES} - GENERIC


def test_the_issue_shape_at_every_cut() -> None:
    """`scan_text("a\\n" + G[:26] + "\\n" + G[26:])` found nothing for a GitHub token."""
    rng = Rng(1710)
    missed = [
        (kind, cut)
        for kind, makers in FAMILIES.items()
        for prefix, token, suffix in [makers[0](rng)]
        for cut in range(1, len(token))
        if kind not in scan_text("a\n" + prefix + token[:cut] + "\n" + token[cut:] + suffix)
    ]
    assert missed == []


def test_split_tokens_are_found_in_every_shape() -> None:
    rng = Rng(1711)
    tried, missed = 0, []
    for kind, makers in FAMILIES.items():
        for make in makers:
            # The issue's shape, at every cut: a line ending in a word, the token split in two, a
            # line starting with a word; then 120 random shapes.
            prefix, token, suffix = make(rng)
            for cut in range(1, len(token)):
                text = "a\n" + prefix + token[:cut] + "\n" + token[cut:] + suffix + "\nnext words"
                tried += 1
                if kind not in scan_text(text):
                    missed.append((kind, text))
            for _ in range(120):
                text = split_shape(rng, make(rng))
                tried += 1
                if kind not in scan_text(text):
                    missed.append((kind, text))
    print(f"split-line shapes tried: {tried}, missed: {len(missed)}")
    assert tried > 4000
    assert missed == []


def test_split_near_misses_stay_clean() -> None:
    rng = Rng(1712)
    tried, alarms = 0, []
    for make in NEAR_MISSES:
        for _ in range(150):
            text = split_shape(rng, make(rng))
            tried += 1
            if scan_text(text):
                alarms.append((scan_text(text), text))
    print(f"split near-miss shapes tried: {tried}, false alarms: {len(alarms)}")
    assert alarms == []
