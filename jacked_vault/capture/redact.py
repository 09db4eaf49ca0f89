"""Redaction of untrusted text (merge messages, pull requests, transcripts) before it is stored:
terminal escapes, controls and bidi characters removed, lines bounded, and any piece that looks
like a credential or an instruction to a model replaced by `[dropped: looked like <kind>]`."""

from __future__ import annotations

import re

from jacked_vault.capture.guard import looks_like_instruction
from jacked_vault.safety.text import strip_terminal

# refused in stored text (SPEC 4) and not removed by strip_terminal: surrogates, non-characters
_LEFTOVER = re.compile("[\ud800-\udfff\ufffe\uffff\u2028\u2029]")


def clean_line(text: str, limit: int) -> str:
    """One line of merge text, safe to store: escapes/controls/bidi removed, spaces collapsed, bounded."""

    text = _LEFTOVER.sub(" ", strip_terminal(text))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def clean_block(text: str, limit: int) -> str:
    """A multi-line piece of merge text, safe to store and bounded; our header lines neutralised."""

    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _LEFTOVER.sub(" ", strip_terminal(text))
    lines = [line.rstrip() for line in text.split("\n")]
    lines = ["(quoted) " + line if line.startswith("Merge-Commit:") else line for line in lines]
    out = "\n".join(lines).strip("\n")
    out = re.sub(r"\n{3,}", "\n\n", out)
    if len(out) > limit:
        out = out[:limit].rsplit("\n", 1)[0].rstrip() + "\n… (truncated)"
    return out


def unsafe_kinds(text: str) -> list[str]:
    """What makes a piece of merge text unfit to store: credentials, or an instruction to a model."""
    from jacked_vault.safety.secrets import scan_text

    if not text:
        return []
    return scan_text(text) + (["an instruction to a model"] if looks_like_instruction(text) else [])


def _drop(kinds: list[str]) -> str:
    return f"[dropped: looked like {' and '.join(kinds)}]"


def scrub_line(text: str, dropped: list[str]) -> str:
    kinds = unsafe_kinds(text)
    if kinds:
        dropped += kinds
        return _drop(kinds)
    return text


def scrub_block(text: str, dropped: list[str]) -> str:
    """Drop the lines that look like secrets; drop the whole block if it still does."""
    kinds = unsafe_kinds(text)
    if not kinds:
        return text
    lines = []
    for line in text.split("\n"):
        found = unsafe_kinds(line)
        if found:
            dropped += found
            lines.append(_drop(found))
        else:
            lines.append(line)
    out = "\n".join(lines)
    still = unsafe_kinds(out)
    if still:  # a secret spread over several lines (a JSON key file, …): drop the whole block
        dropped += still
        return _drop(sorted(set(kinds)))
    return out
