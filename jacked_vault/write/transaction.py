"""One write = one commit: files created or replaced, audit lines, one commit, all or nothing.

Every mutation of a store (note creates, transitions, hot.md, vault.json, episodic entries,
rollup, migration, repair) goes through `write_transaction`: gitignore check, a branch to
commit on, the store lock, then the caller's writes. `commit()` passes every staged file
through the gate (`store.gate.inspect`: layout, validation, secret scan, tombstones), appends
the audit lines, and commits with the `Memory-Audit` trailer; any failure before the commit
puts the working tree back exactly as it was. The search index is refreshed before the lock
is released.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store import audit, git
from jacked_vault.store.layout import Store
from jacked_vault.store.lock import store_lock

MAX_NAME_TRIES = 1000
MAX_SUBJECT = 200


def commit_message(subject: str, trailers: dict[str, str | None]) -> str:
    """The one commit-message builder: a one-line subject, a blank line, `Memory-*` trailers."""
    subject = " ".join(subject.split())
    if len(subject) > MAX_SUBJECT:
        subject = subject[: MAX_SUBJECT - 1] + "…"
    lines = [f"{key}: {' '.join(value.split())}" for key, value in trailers.items() if value]
    return subject + "\n\n" + "\n".join(lines) + "\n"


class Transaction:
    """Writes staged for one commit; `undo()` reverses the ones already on disk."""

    def __init__(self, store: Store, index, author: dict | None, *, harness: str, origin: str) -> None:
        self.store = store
        self.index = index  # the store's SearchIndex, refreshed to HEAD
        self.author = author
        self.harness = harness
        self.origin = origin
        self.files: dict[str, bytes | None] = {}  # None: removed in this commit
        self._before: dict[str, bytes | None] = {}
        self._events: list[audit.AuditEvent] = []
        self._person_override: set[str] = set()
        self.commit_id: str | None = None
        self.parent: str | None = None
        self._repo = None

    @property
    def repo(self):
        if self._repo is None:
            self._repo = git.open_repo(self.store.root)
        return self._repo

    def committed(self, rel: str) -> bytes | None:
        """`rel` as HEAD has it (None if HEAD has no such file): what transitions start from."""
        return git.tree_blob(self.repo, rel)

    def create(self, folder: str, stem: str, data: bytes, *, allow_rejected: bool = False) -> str:
        """Create `<folder>/<stem>.md` (or `-2`, `-3`, … on a clash); never replaces a file.

        `allow_rejected`: a person's explicit override of the tombstone rule for this file.
        """
        for n in range(1, MAX_NAME_TRIES + 1):
            rel = f"{folder}/{stem}.md" if n == 1 else f"{folder}/{stem}-{n}.md"
            try:
                fsio.create_file(self.store.root, rel, data)
            except VaultError as exc:
                if exc.code != "EXISTS":
                    raise
                continue
            self._before[rel] = None
            self.files[rel] = data
            if allow_rejected:
                self._person_override.add(rel)
            return rel
        raise VaultError("EXISTS", f"{folder}/{stem}.md and {MAX_NAME_TRIES} numbered variants exist")

    def replace(self, rel: str, data: bytes) -> None:
        """Write `rel` atomically (a derived file, a transition, an append-only file). A derived
        file (index.md) that a symlink or a folder took the place of is replaced, never followed."""
        from jacked_vault.store.layout import classify_path

        derived = classify_path(self.store, rel) == "index"
        if rel not in self._before:
            try:
                self._before[rel] = _working(self.store, rel)
            except VaultError:
                if not derived:
                    raise
                self._before[rel] = None
        fsio.replace_file(self.store.root, rel, data, replace_symlink=derived)
        self.files[rel] = data

    def transition(self, rel: str, data: bytes) -> str | None:
        """Replace the committed note `rel` with `data` (built from its committed blob, SPEC 5.0).
        A working copy that differs from the committed one (a hand edit) is first kept in
        `.jacked/quarantine/`, never committed; returns that file's name (None when there was none)."""
        from jacked_vault.store.gate import quarantine

        working = _working(self.store, rel)
        kept = None
        if working is not None and working != self.committed(rel):
            kept = quarantine(self.store, rel, working, "hand edit of a committed note, replaced by a transition", "transition")
        self._before.setdefault(rel, working)
        self.replace(rel, data)
        return kept

    def remove(self, rel: str) -> None:
        """Delete `rel` (it must exist) from the working tree and, at commit, from the tree and git index."""
        if rel not in self._before:
            before = _working(self.store, rel)
            if before is None:
                raise VaultError("NOT_FOUND", f"{rel} does not exist; nothing to remove")
            self._before[rel] = before
        fsio.remove_file(self.store.root, rel)
        self.files[rel] = None

    def record(self, event: audit.AuditEvent) -> None:
        """Add an audit line to this commit."""
        self._events.append(event)

    def event(self, op: str, note_id: str, rel: str, data: bytes | None, *, ts: str | None = None) -> None:
        """Record `op` on `rel` by this transaction's harness and origin (sha256 of the new bytes)."""
        from jacked_vault.document import utc_now

        sha = audit.content_hash(data) if data is not None else ""
        self.record(audit.AuditEvent(ts or utc_now(), op, note_id, rel, sha, self.harness, self.origin))

    def commit(self, subject: str, **trailers: str | None) -> str:
        """Gate every staged file, append the audit lines, commit it all in one commit.

        `trailers` become `Memory-<Name>` lines (`note_id` -> `Memory-Id`, `reason` -> `Memory-Reason`);
        origin, harness and the audit position are always added.
        """
        from jacked_vault.store.gate import inspect

        if not self._events:
            raise VaultError("INTERNAL", "a commit without an audit line (every mutation is logged)")
        for rel, data in self.files.items():
            if data is not None:
                base = self.committed(rel)
                inspect(
                    self.store,
                    rel,
                    data,
                    tombstoned=self.index.is_tombstoned,
                    base=base,
                    new=base is None,
                    allow_rejected=rel in self._person_override,
                )
        machine = audit.machine_id(self.store.cache)
        pending = audit.stage(self.store.root, machine, self._events)
        inspect(self.store, pending.rel, pending.after, base=self.committed(pending.rel))
        self.replace(pending.rel, pending.after)
        names = {"note_id": "Memory-Id", "reason": "Memory-Reason", "remote": "Memory-Remote"}
        message = commit_message(
            subject,
            {
                **{names.get(k, f"Memory-{k.title()}"): v for k, v in trailers.items()},
                "Memory-Origin": self.origin,
                "Memory-Harness": self.harness,
                "Memory-Audit": f"{machine} {pending.last_hash}",
            },
        )
        self.parent = git.fast_head(self.store.root)
        self.commit_id = git.commit_files(self.repo, self.files, message, author=self.author)
        return self.commit_id

    def undo(self) -> None:
        for rel, before in reversed(list(self._before.items())):
            if before is None:
                try:
                    fsio.remove_file(self.store.root, rel)
                except FileNotFoundError:
                    pass
            else:
                fsio.replace_file(self.store.root, rel, before)


def kept_aside(names: list[str]) -> list[str]:
    """The lines that tell a person where `Transaction.transition` kept each hand edit."""
    return [f"the hand-edited working copy was kept in .jacked/quarantine/{name}" for name in names]


def _working(store: Store, rel: str) -> bytes | None:
    return fsio.read_optional(store.root, rel, max_bytes=audit.MAX_AUDIT_FILE)


@contextmanager
def write_transaction(
    store: Store,
    *,
    harness: str,
    origin: str,
    author: dict | None = None,
    lock_timeout_s: float | None = None,
) -> Iterator[Transaction]:
    """Lock the store and yield a Transaction; undo on error, refresh the index after a commit."""
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.store.vault import check_store_gitignore

    check_store_gitignore(store)
    git.require_branch(store.root)
    lock_args = {} if lock_timeout_s is None else {"timeout_s": lock_timeout_s}
    with store_lock(store.cache, **lock_args):
        index = SearchIndex(store)
        try:
            index.refresh()
            tx = Transaction(store, index, author, harness=harness, origin=origin)
            try:
                yield tx
            except BaseException:
                if tx.commit_id is None:
                    tx.undo()
                raise
            if tx.commit_id is not None and not index.apply_commit(tx.parent, tx.commit_id, tx.files):
                index.refresh()
        finally:
            index.close()


def settings_for(ctx) -> dict:
    """The `write_transaction` keywords a Context's settings give (author, lock timeout)."""
    settings = ctx.config.get("settings", {}) or {}
    return {"author": settings.get("author"), "lock_timeout_s": settings.get("lock_timeout_s")}
