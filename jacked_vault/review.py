"""The review queue: candidate notes waiting for a person's accept or reject
(the transitions themselves are `write.transitions`)."""

from __future__ import annotations

from jacked_vault.context import Context


def candidates(ctx: Context, limit: int = 200) -> list:
    """The review queue: candidate notes in every visible store, oldest first."""
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    result = search(ctx, "", Filters(scopes=frozenset({"group", "project", "user"}), statuses=("candidate",), limit=limit))
    return sorted(result.results, key=lambda d: (d.created_at, d.id))
