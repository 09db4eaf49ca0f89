"""One write = one commit: files created or replaced, audit lines, one commit, all or nothing.

Every mutation of a store (a note create, hot.md, vault.json, later transitions and episodic
entries) goes through `write_transaction`: gitignore check, store lock, then the caller's
writes; `commit()` commits them with the audit lines; any failure before the commit puts the
working tree back exactly as it was. The search index is refreshed before the lock is released.
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


class Transaction:
    """Writes staged for one commit; `undo()` reverses the ones already on disk."""

    def __init__(self, store: Store, index, author: dict | None) -> None:
        self.store = store
        self.index = index  # the store's SearchIndex, refreshed to HEAD
        self.author = author
        self.files: dict[str, bytes | None] = {}  # None: removed in this commit
        self._before: dict[str, bytes | None] = {}
        self._events: list[audit.AuditEvent] = []
        self.commit_id: str | None = None

    def create(self, folder: str, stem: str, data: bytes) -> str:
        """Create `<folder>/<stem>.md` (or `-2`, `-3`, … on a clash); never replaces a file."""
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
            return rel
        raise VaultError("EXISTS", f"{folder}/{stem}.md and {MAX_NAME_TRIES} numbered variants exist")

    def replace(self, rel: str, data: bytes) -> None:
        """Write `rel` atomically (a derived file, or a transition of an existing note)."""
        if rel not in self._before:
            self._before[rel] = fsio.read_optional(self.store.root, rel, max_bytes=audit.MAX_AUDIT_FILE)
        fsio.replace_file(self.store.root, rel, data)
        self.files[rel] = data

    def remove(self, rel: str) -> None:
        """Delete `rel` (it must exist) from the working tree and, at commit, from the tree and git index."""
        if rel not in self._before:
            try:
                self._before[rel] = fsio.read_file(self.store.root, rel, max_bytes=audit.MAX_AUDIT_FILE)
            except FileNotFoundError:
                raise VaultError("NOT_FOUND", f"{rel} does not exist; nothing to remove") from None
        fsio.remove_file(self.store.root, rel)
        self.files[rel] = None

    def record(self, event: audit.AuditEvent) -> None:
        """Add an audit line to this commit."""
        self._events.append(event)

    def commit(self, message: str) -> str:
        """Append the audit lines and commit every staged file in one commit."""
        if self._events:
            pending = audit.stage(self.store.root, audit.machine_id(self.store.cache), self._events)
            self.replace(pending.rel, pending.after)
        repo = git.open_repo(self.store.root)
        self.commit_id = git.commit_files(repo, self.files, message, author=self.author)
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


@contextmanager
def write_transaction(store: Store, *, author: dict | None = None, lock_timeout_s: float | None = None) -> Iterator[Transaction]:
    """Lock the store and yield a Transaction; undo on error, refresh the index after a commit."""
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.store.vault import check_store_gitignore

    check_store_gitignore(store)
    lock_args = {} if lock_timeout_s is None else {"timeout_s": lock_timeout_s}
    with store_lock(store.cache, **lock_args):
        index = SearchIndex(store)
        try:
            index.refresh()
            tx = Transaction(store, index, author)
            try:
                yield tx
            except BaseException:
                if tx.commit_id is None:
                    tx.undo()
                raise
            if tx.commit_id is not None:
                index.refresh()
        finally:
            index.close()
