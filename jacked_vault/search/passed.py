"""The gate's pass of one committed file, handed on as a value from where it was judged (an
arrival of `init --from`) to the index build, which then neither reads nor judges those bytes
again (`SearchIndex.rebuild(passed=)`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jacked_vault.search.derived import Derived
    from jacked_vault.store.gate import Checked


@dataclass(frozen=True)
class Passed:
    """The gate's pass of one committed file's bytes, handed on as a value (an arrival judged by
    `init --from`, then indexed): whoever takes it for the same blob neither reads nor judges the
    bytes again."""

    oid: object  # the blob id of the bytes judged (pygit2.Oid)
    size: int
    sha: str  # store.audit.content_hash of the bytes
    checked: Checked
    derived: Derived  # what the search index derives from checked.note (a worker's, else made as it arrived)
