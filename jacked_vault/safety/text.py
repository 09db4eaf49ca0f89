"""Text safety: refuse control and bidi characters in stored text, strip escapes before printing.

Dependency-free so every front end can import it cheaply.
"""

from __future__ import annotations

import functools
import re

from jacked_vault.errors import VaultError

# The character classes every rule below is made of (one owner: other modules ask this one).
_DEL_C1 = "\x7f-\x9f"
_BIDI = "\u202a-\u202e\u2066-\u2069"  # overrides and isolates
_BIDI_MARKS = "\u061c\u200e\u200f"  # ALM, LRM, RLM: invisible, and right in prose
_UNENCODABLE = "\ud800-\udfff\ufffe\uffff"  # surrogates (not UTF-8) and U+FFFE/U+FFFF (YAML refuses them)
# Always refused: C0 except tab/LF/CR, DEL, C1, bidi overrides/isolates, surrogates and U+FFFE/U+FFFF.
_REFUSED_MULTILINE = f"[\x00-\x08\x0b\x0c\x0e-\x1f{_DEL_C1}{_BIDI}{_UNENCODABLE}]"
# Single-line text also refuses every line break: LF, CR, U+2028, U+2029 (tab is allowed).
_REFUSED_SINGLE_LINE = f"[\x00-\x08\x0a-\x1f{_DEL_C1}\u2028\u2029{_BIDI}{_UNENCODABLE}]"
# A name read from outside (a remote URL and its decoded parts): no C0 at all (tab too), no DEL or
# C1, no bidi control and no bidi mark either, since nothing in a name may be invisible.
_HOSTILE_IN_NAME = f"[\x00-\x1f{_DEL_C1}{_BIDI_MARKS}{_BIDI}]"

_TERMINAL_NOISE = (
    # CSI (ESC [ or U+009B): parameters, intermediates, one final byte.
    "(?:\x1b\\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    # OSC, DCS, SOS, PM, APC (7-bit or C1 introducer) up to BEL or ST (ESC \\ or U+009C).
    # The payload excludes controls, so an unterminated sequence costs one short scan.
    "|(?:\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x00-\x1f\x7f-\x9f]*(?:\x07|\x1b\\\\|\x9c)"
    # Any other escape sequence: ESC, intermediates, final byte.
    "|\x1b[\x20-\x2f]*[\x30-\x7e]"
    # Leftovers: C0 except tab/LF, DEL, C1, bidi overrides/isolates.
    f"|[\x00-\x08\x0b-\x1f{_DEL_C1}{_BIDI}]"
)


@functools.cache
def compiled(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled on first use (flags inline): most processes that import a module holding
    one never use it (this module's rules; a wikilink's, an id's)."""
    return re.compile(pattern)


def _describe(char: str) -> str:
    point = ord(char)
    if 0xD800 <= point <= 0xDFFF:
        kind = "surrogate code point"
    elif point in (0xFFFE, 0xFFFF):
        kind = "non-character"
    elif point in (0x2028, 0x2029):
        kind = "line separator"
    elif point >= 0x202A:
        kind = "bidirectional control character"
    else:
        kind = "control character"
    return f"{kind} U+{point:04X}"


def check_text(field: str, value: str, *, multiline: bool) -> None:
    """Raise VALIDATION if `value` holds a refused character; the message names the field and
    the code point, never the value.

    Multi-line text allows tab, LF and CR; single-line text allows tab only.
    """
    pattern = compiled(_REFUSED_MULTILINE if multiline else _REFUSED_SINGLE_LINE)
    match = pattern.search(value)
    if match:
        raise VaultError("VALIDATION", f"{field} contains {_describe(match.group())}")


def without_refused(text: str) -> str:
    """`text` without every character `check_text` refuses in multi-line text (tab and line
    breaks stay): what a transcript may hand on, whatever a harness wrote."""
    return compiled(_REFUSED_MULTILINE).sub("", text)


def hostile_in_name(text: str) -> bool:
    """Whether `text`, a name read from outside (a remote URL, one of its decoded parts), holds a
    control character (tab included), DEL, a C1 control, or a bidi control or mark."""
    return compiled(_HOSTILE_IN_NAME).search(text) is not None


def strip_terminal(text: str) -> str:
    """Remove escape sequences (CSI, OSC, DCS, ...), bidi controls and C0/C1 controls except
    tab and LF, so vault content can be printed to a terminal safely."""
    return compiled(_TERMINAL_NOISE).sub("", text)
