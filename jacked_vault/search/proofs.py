"""What `trust: reviewed` proves here: the accepts in a store's history (store/reviews.py finds and
weighs them) recorded in the index file's `reviews` table, judged by this machine's review policy,
and every claimed review judged again when that policy changes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from jacked_vault.search.schema import meta, set_meta
from jacked_vault.store.git import open_repo, tree_blob
from jacked_vault.store.machine_state import machine_id

if TYPE_CHECKING:
    from jacked_vault.document import Note
    from jacked_vault.search.readmodel import ReadModel
    from jacked_vault.store.reviews import ReviewPolicy
    from jacked_vault.store.settings import ReviewTrust
    from jacked_vault.store.trust import Provenance, Verdict


class ReviewProofs:
    """The accepts behind the reviews an index shows (its `reviews` table), as this machine weighs them."""

    def __init__(self, index: ReadModel) -> None:
        self._index = index
        self.head: str | None = None  # the commit being indexed (whose history holds the accepts)
        self._trust: tuple[str, ReviewTrust] | None = None
        self._policy: ReviewPolicy | None = None

    def _machine_trust(self) -> tuple[str, ReviewTrust]:
        """This machine's id and how it weighs a review (its machine config), read once."""
        if self._trust is None:
            from jacked_vault.store.config import machine_review

            self._trust = (machine_id(self._index.store.state), machine_review())
        return self._trust

    def _digest(self) -> str:
        """The review policy as the index remembers it (`ReviewTrust.digest`): every refresh asks,
        and store.reviews is not loaded for it."""
        machine, trust = self._machine_trust()
        return trust.digest(machine)

    @property
    def policy(self) -> ReviewPolicy:
        """How this machine judges an accept (its machine config and machine id)."""
        if self._policy is None:
            from jacked_vault.store.reviews import ReviewPolicy

            self._policy = ReviewPolicy(*self._machine_trust())
        return self._policy

    def review_of(self, note: Note) -> Provenance | None:
        """The accept of this note's value history holds that this machine shows it by (one that
        counts first), judged by this machine's policy; None when there is none."""
        from jacked_vault.store.reviews import best, value_key

        self._find_reviews()
        rows = self._index.db.execute(
            "SELECT commit_id, machine, author, signed, verified FROM reviews WHERE id=? AND value=?",
            (note.id, value_key(note)),
        ).fetchall()
        return best([self._judged(note.id, *row) for row in rows])

    def verdict(self, note: Note, claim: str) -> Verdict:
        """What the trust `note`'s file claims counts for here (the accept behind a claimed review)."""
        from jacked_vault.store.trust import Verdict

        return Verdict.of_claim(claim, lambda: self.review_of(note))

    def _judged(self, note_id: str, commit: str, machine: str, author: str, signed: int, verified: int) -> Provenance:
        from jacked_vault.store.reviews import Review

        review = Review(note_id, "", commit, machine, author, bool(signed))
        return self.policy.judge(review, bool(verified))

    def review_at(self, commit: str) -> Provenance | None:
        """The accept `commit` is (with its evidence), as this machine weighs it; None otherwise
        (the accepts up to the indexed commit are recorded first)."""
        self.head = self.head or self._index.commit
        self._find_reviews()
        row = self._index.db.execute(
            "SELECT id, commit_id, machine, author, signed, verified FROM reviews WHERE commit_id=? LIMIT 1", (commit,)
        ).fetchone()
        return self._judged(*row) if row else None

    def _find_reviews(self) -> None:
        """Record the accepts in the commits up to the one being indexed that were not looked at yet
        (each verified against the trusted keys, when this machine names any)."""
        from jacked_vault.store.reviews import reviews_between, verified_by

        head, walked = self.head, meta(self._index.db, "reviews")
        if not head or head == walked:
            return
        repo = open_repo(self._index.store.root)
        policy = self.policy
        if meta(self._index.db, "review_policy") is None:
            set_meta(self._index.db, "review_policy", self._digest())
        found = list(reviews_between(repo, head, walked))
        signers = policy.trust.signers
        verified = verified_by(self._index.store.root, repo, [r.commit for r in found], signers) if signers else set()
        self._index.db.executemany(
            "INSERT OR REPLACE INTO reviews(id, value, commit_id, machine, author, signed, verified)"
            " VALUES(?,?,?,?,?,?,?)",
            [
                (r.note_id, r.value, r.commit, r.machine, r.author, int(r.signed), int(r.commit in verified))
                for r in found
            ],
        )
        set_meta(self._index.db, "reviews", head)

    def follow_policy(self) -> None:
        """When this machine's review policy changed (its allowed-signers file named, unnamed or
        changed; the machines it trusts unsigned), verify every recorded accept against it again
        and re-derive every claimed review."""
        digest = self._digest()
        known = meta(self._index.db, "review_policy")
        if known is None or known == digest:
            if known is None:
                set_meta(self._index.db, "review_policy", digest)
            return
        from jacked_vault.document import parse_note
        from jacked_vault.store.reviews import verified_by

        policy = self.policy
        repo = open_repo(self._index.store.root)
        db = self._index.db
        db.execute("BEGIN IMMEDIATE")
        try:
            commits = [commit for (commit,) in db.execute("SELECT DISTINCT commit_id FROM reviews").fetchall()]
            signers = policy.trust.signers
            verified = verified_by(self._index.store.root, repo, commits, signers) if signers else set()
            db.executemany(
                "UPDATE reviews SET verified=? WHERE commit_id=?", [(int(c in verified), c) for c in commits]
            )
            set_meta(self._index.db, "review_policy", digest)
            for rowid, path in db.execute("SELECT rowid, path FROM docs WHERE claim='reviewed'").fetchall():
                data = tree_blob(repo, path)
                review = self.review_of(parse_note(data, source=path, checked=True)) if data is not None else None
                db.execute(
                    "UPDATE docs SET trust=?, review=? WHERE rowid=?",
                    ("reviewed" if review and review.counts else "unreviewed", review_json(review), rowid),
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def review_json(review: Provenance | None) -> str | None:
    """`docs.review`: the accept behind a claimed review, as `store.trust.Verdict.from_row` reads it."""
    return json.dumps(review.to_json(), sort_keys=True) if review is not None else None
