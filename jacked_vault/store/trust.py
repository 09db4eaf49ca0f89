"""What a note's review is worth on this machine, as every surface shows it (`Verdict`), and the
accept behind it as this machine weighs it (`Provenance`). store/reviews.py finds and weighs the
accepts; these value types are apart from it so a write or a read that judges no claimed review
(most notes claim none) does not load it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HERE, MACHINE, VERIFIED = "here", "machine", "verified"  # a review's provenance


@dataclass(frozen=True)
class Provenance:
    """One accept as this machine weighs it: where it came from, and whether it counts here."""

    provenance: str  # HERE (this machine's chain), MACHINE (another's, not verified), VERIFIED (a trusted key)
    machine: str
    author: str
    commit: str
    signed: bool
    verified: bool
    counts: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "provenance": self.provenance,
            "machine": self.machine,
            "author": self.author,
            "commit": self.commit,
            "verified": self.verified,
            "signed": self.signed,
            "counts": self.counts,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Provenance:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})

    def said(self) -> str:
        """For a person: `accepted on machine M by Ada <ada@x>, not verified (unsigned)`."""
        where = "accepted here" if self.provenance == HERE else f"accepted on machine {self.machine}"
        text = f"{where} by {self.author}"
        if self.verified:
            return text + ", verified against a trusted key"
        if self.provenance != HERE or not self.counts:
            text += f", not verified ({'signed by a key not trusted here' if self.signed else 'unsigned'})"
        if self.counts and self.provenance != HERE:
            text += f"; counted: this machine trusts {self.machine}'s unsigned accepts (review.trust_unsigned)"
        return text

    def short(self) -> str:
        """For the brief and a search hit: no author, no machine id (text from git that anyone with
        push access chose; the brief quotes no such text in a sentence of its own)."""
        if self.verified:
            return "accepted, verified against a trusted key"
        if self.provenance == HERE:
            return "accepted here" if self.counts else "accepted here, not verified"
        trusted = ("unsigned" if not self.signed else "not verified") + "; trusted here"
        return f"accepted on another machine, {trusted if self.counts else 'not verified'}"


@dataclass(frozen=True)
class Verdict:
    """What a note's review is worth on this machine, as every surface shows it: the trust that
    counts (`reviewed` only with an accept that counts here), what its file claims, and the accept
    behind the claim (None: none at all)."""

    trust: str
    claim: str
    review: Provenance | None = None

    @classmethod
    def from_row(cls, trust: str, claim: str, review: str | None) -> Verdict:
        """The verdict the search index recorded (`docs.trust`, `docs.claim`, `docs.review`)."""
        return cls(trust, claim, Provenance.from_json(json.loads(review)) if review else None)

    @classmethod
    def of_claim(cls, claim: str, accept: Callable[[], Provenance | None]) -> Verdict:
        """The verdict on a file claiming `claim`: a claimed review counts only with the accept
        behind it (`accept()`, asked only then) counting here."""
        if claim != "reviewed":
            return cls(claim, claim)
        review = accept()
        return cls("reviewed" if review is not None and review.counts else "unreviewed", claim, review)

    @property
    def reviewed(self) -> bool:
        return self.trust == "reviewed"

    def to_json(self) -> dict[str, Any]:
        """`trust`, `review`, and `claimed_trust` when the file claims more than counts."""
        out: dict[str, Any] = {"trust": self.trust, "review": self.review.to_json() if self.review else None}
        if self.claim != self.trust:
            out["claimed_trust"] = self.claim
        return out

    def said(self) -> str:
        """The trust line a person reads."""
        if self.reviewed:
            return f"reviewed ({self.review.said()})" if self.review else "reviewed (accepted by a person)"
        text = "unreviewed (context, not instructions)"
        if self.review is not None:
            return f"{text}; {self.review.said()}: not counted as reviewed here"
        if self.claim == "reviewed":
            return f"{text}; its file claims reviewed, but no accept by a person is behind it"
        return text

    def label(self) -> str:
        """A search hit's trust: `reviewed (accepted here)`, `unreviewed`."""
        return f"{self.trust} ({self.review.short()})" if self.review else self.trust

    def mark(self) -> str:
        """What follows a quoted title in the brief: ` [reviewed] (accepted here)` for what counts
        (the brief's framing names `[reviewed]`), the provenance alone for an accept that does not."""
        if self.reviewed:
            return " [reviewed]" + (f" ({self.review.short()})" if self.review else "")
        return f" ({self.review.short()})" if self.review else ""
