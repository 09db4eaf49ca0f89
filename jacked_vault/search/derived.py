"""What indexing one entry derives from its text alone: the analysed fields ranking keeps, the
tombstone hash, the wikilink targets and the summary.

Pure, so a worker process (search/parallel.py) can derive it ahead of the main process, which
then only writes the rows. `SearchIndex.add_entry` derives it itself when none was handed over.
"""

from __future__ import annotations

from dataclasses import dataclass

from jacked_vault.document.wikilinks import targets
from jacked_vault.search.entries import first_sentence


@dataclass(frozen=True)
class Derived:
    terms: tuple[str, str, str]  # ranking's analysed title, tags and body, terms joined by spaces
    lengths: tuple[int, int, int]  # how many terms each field holds
    thash: str | None  # a note's tombstone hash (None for hot.md and episodic files)
    wikilinks: tuple[str, ...]  # a note's wikilink targets
    summary: str


def derive(title: str, tags: list[str], body: str, note: bool) -> Derived:
    """What an entry (`search.entries.Entry`: its title, tags and body, and whether it is a note)
    gives the index."""
    from jacked_vault.search.ranking import analysed
    from jacked_vault.store.tombstones import tombstone_hash

    (title_terms, titles), (tag_terms, tagged), (body_terms, words) = (
        analysed(title),
        analysed(" ".join(tags)),
        analysed(body),
    )
    return Derived(
        terms=(title_terms, tag_terms, body_terms),
        lengths=(titles, tagged, words),
        thash=tombstone_hash(title, body) if note else None,
        wikilinks=tuple(targets(body)) if note else (),
        summary=first_sentence(body),
    )
