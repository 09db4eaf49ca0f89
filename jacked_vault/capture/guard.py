"""The injection guard: what a model distilled from untrusted text (a transcript, a merge's pull
request) must not simply repeat that text, nor carry an instruction to a model. Session and merge
capture both call `parrots` before anything reaches the gate."""

from __future__ import annotations

import difflib
import re

PARROT_MIN_CHARS = 12
PARROT_RATIO = 0.85
_PUNCT = re.compile(r"[^\w\s]")
INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:previous|prior|above|earlier|all|any|your)\b.{0,40}\b(?:instructions?|prompts?|rules)\b",
    re.IGNORECASE | re.DOTALL,
)


def looks_like_instruction(text: str) -> bool:
    """Text telling a model to ignore its instructions."""
    return INSTRUCTION.search(text) is not None


def _norm(text: str) -> str:
    from jacked_vault.store.tombstones import normalise

    return " ".join(_PUNCT.sub(" ", normalise(text)).split())


def parrots(title: str, body: str, sources: list[str]) -> bool:
    """True if a distilled title/body merely repeats the untrusted `sources` or carries an injection.

    Refused: title or body (near-)equal to a source message or one of its lines, a body that
    is a verbatim piece of one, a body that is mostly one, or text telling a model to ignore
    its instructions.
    """
    if looks_like_instruction(f"{title}\n{body}"):
        return True
    title, body = _norm(title)[:4000], _norm(body)[:4000]
    lines: set[str] = set()
    for message in sources:
        for piece in [message, *message.splitlines()]:
            line = _norm(piece)[:4000]
            if len(line) >= PARROT_MIN_CHARS:
                lines.add(line)
    for line in lines:
        if len(body) >= PARROT_MIN_CHARS and (body in line or (line in body and len(line) >= 0.6 * len(body))):
            return True
        for text in (title, body):
            if len(text) < PARROT_MIN_CHARS or not 0.7 <= len(text) / len(line) <= 1.4:
                continue
            matcher = difflib.SequenceMatcher(None, text, line, autojunk=False)
            if (
                matcher.real_quick_ratio() >= PARROT_RATIO
                and matcher.quick_ratio() >= PARROT_RATIO
                and matcher.ratio() >= PARROT_RATIO
            ):
                return True
    return False
