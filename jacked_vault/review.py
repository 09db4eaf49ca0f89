"""The review queue: candidate notes waiting for a person's accept or reject
(the transitions themselves are `write.transitions`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jacked_vault.context import Context

if TYPE_CHECKING:
    from jacked_vault.search.entries import Doc


@dataclass
class Review:
    """The review queue and what a person decided while going through it."""

    candidates: list[Doc]  # oldest first
    decisions: list[dict[str, str]] = field(default_factory=list)  # {"id", "op", "commit"[, "new_id"]}
    interactive: bool = False  # a person went through the queue (else it is only listed)

    def to_json(self) -> dict[str, Any]:
        return {"candidates": [d.to_json() for d in self.candidates], "decisions": self.decisions}

    def to_text(self) -> str:
        if self.interactive:
            done = [
                f"  {d['op']} {d['id']}" + (f" -> {d['new_id']}" if "new_id" in d else "") + f" [{d['commit'][:10]}]"
                for d in self.decisions
            ]
            return "\n".join([f"{len(self.decisions)} decision(s) recorded:", *done])
        if not self.candidates:
            return "no candidates to review"
        lines = [f"{n}. {doc.to_text()}" for n, doc in enumerate(self.candidates, 1)]
        return "\n".join(
            [
                *lines,
                "accept or reject each with `jacked memory accept ID` / `reject ID --reason …`, or run `jacked "
                "memory review` in a terminal",
            ]
        )


def candidates(ctx: Context, limit: int = 200) -> list[Doc]:
    """The review queue: candidate notes in every visible store, oldest first."""
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    result = search(
        ctx, "", Filters(scopes=frozenset({"group", "project", "user"}), statuses=("candidate",), limit=limit)
    )
    return sorted(result.results, key=lambda d: (d.created_at, d.id))
