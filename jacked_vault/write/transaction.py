"""One write = one commit: files created or replaced, audit lines, one commit, all or nothing.

Every mutation of a store (note creates, transitions, hot.md, vault.json, episodic entries,
rollup, migration, repair) goes through `write_transaction`: gitignore check, a branch to
commit on, the store lock, then the caller's writes. `commit()` passes every staged file
through the gate (`store.gate.inspect`: layout, validation, secret scan, tombstones), appends
the audit lines, and commits with the `Memory-Audit` trailer; any failure before the commit
puts the working tree back exactly as it was. The search index is refreshed before the lock
is released.

A kill can still stop a write between its first working-tree write and its commit. So each
write is first journaled in `<store>/.git/jacked/journal.jsonl` (machine-local, never committed:
the path and the sha256 of the bytes about to be written), and the journal is removed once the
commit landed or the writes were undone. The next holder of the lock that finds a journal rolls
that write back (`roll_back`, with `interrupted` the one rule, which doctor shares): SPEC 5.2,
an interrupted transition is rolled back, never taken for a person's hand edit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, cast

from jacked_vault.document import timestamps
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store import audit, detached, git
from jacked_vault.store.gate import Checked
from jacked_vault.store.layout import Store, classify_path
from jacked_vault.store.lock import DEFAULT_TIMEOUT_S, store_lock
from jacked_vault.store.machine_state import machine_id
from jacked_vault.store.settings import DEFAULT_SETTINGS, Settings
from jacked_vault.store.tombstones import NO_STONES, Tombstoned, stronger
from jacked_vault.store.vault import check_store_gitignore

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import pygit2

    from jacked_vault.search.index import SearchIndex

MAX_NAME_TRIES = 1000
MAX_SUBJECT = 200
JOURNAL = "journal.jsonl"  # in the store's .git/jacked/: the writes of the transaction in progress
MAX_JOURNAL = 64 * 1024 * 1024


def commit_message(subject: str, trailers: dict[str, str | None]) -> str:
    """The one commit-message builder: a one-line subject, a blank line, `Memory-*` trailers."""
    subject = " ".join(subject.split())
    if len(subject) > MAX_SUBJECT:
        subject = subject[: MAX_SUBJECT - 1] + "…"
    lines = [f"{key}: {' '.join(value.split())}" for key, value in trailers.items() if value]
    return subject + "\n\n" + "\n".join(lines) + "\n"


class Transaction:
    """Writes staged for one commit; `undo()` reverses the ones already on disk."""

    def __init__(
        self, store: Store, index: SearchIndex, author: Mapping[str, str] | None, *, harness: str, origin: str
    ) -> None:
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
        self._repo: pygit2.Repository | None = None
        self._journal: int | None = None  # the journal's descriptor, once this transaction wrote
        self.rolled_back: list[str] = []  # what a write a kill interrupted had left, put back first
        self.rejected_elsewhere: Tombstoned = NO_STONES  # values rejected or forgotten in the other stores read with it

    @property
    def repo(self) -> pygit2.Repository:
        if self._repo is None:
            self._repo = git.open_repo(self.store.root)
        return self._repo

    def rejected(self, value_hash: str) -> str | None:
        """The tombstone rule's oracle for this write (`store.tombstones.Tombstoned`): rejected or
        forgotten in this store or in any other the writer reads (the gate asks it for every note
        this transaction commits)."""
        return stronger(self.index.tombstoned(value_hash), self.rejected_elsewhere(value_hash))

    def committed(self, rel: str) -> bytes | None:
        """`rel` as HEAD has it (None if HEAD has no such file): what transitions start from."""
        return git.tree_blob(self.repo, rel)

    def create(self, folder: str, stem: str, data: bytes | Checked, *, allow_rejected: bool = False) -> str:
        """Create `<folder>/<stem>.md` (or `-2`, `-3`, … on a clash); never replaces a file.

        `data` may be the gate's verdict on the bytes (`store.gate.check_note`): its key is then
        remembered, and `commit()` and the index do not judge that content again.
        `allow_rejected`: a person's explicit override of the tombstone rule for this file.
        """
        if isinstance(data, Checked):
            if data.key is not None:
                self.index.verdicts.remember(data.key, data.note)
            data = data.data
        for n in range(1, MAX_NAME_TRIES + 1):
            rel = f"{folder}/{stem}.md" if n == 1 else f"{folder}/{stem}-{n}.md"
            self._intend(rel, data, created=True)
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

        derived = classify_path(self.store, rel) == "index"
        if rel not in self._before:
            try:
                self._before[rel] = _working(self.store, rel)
            except VaultError:
                if not derived:
                    raise
                self._before[rel] = None
        if data != self._before[rel]:
            self._intend(rel, data)
        fsio.replace_file(self.store.root, rel, data, replace_symlink=derived)
        self.files[rel] = data

    def transition(self, rel: str, data: bytes) -> str | None:
        """Replace the committed note `rel` with `data` (built from its committed blob, SPEC 5.0).
        A working copy that differs from the committed one (a hand edit) is first kept in
        `.git/jacked/quarantine/`, never committed; returns that file's name (None when there was none)."""
        from jacked_vault.store.gate import quarantine

        working = _working(self.store, rel)
        kept = None
        if working is not None and working != self.committed(rel):
            kept = quarantine(
                self.store, rel, working, "hand edit of a committed note, replaced by a transition", "transition"
            )
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
        self._intend(rel, None)
        fsio.remove_file(self.store.root, rel)
        self.files[rel] = None

    def _intend(self, rel: str, after: bytes | None, *, created: bool = False) -> None:
        """Journal a working-tree write before it is made: `rel`, the sha256 of `after` (None: a
        removal) and whether this write creates the file. One line appended, no fsync: it guards
        against a killed process, whose writes the kernel keeps."""
        if self._journal is None:
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
            self._journal = os.open(self.store.state / JOURNAL, flags, 0o600)
        os.write(
            self._journal, (json.dumps({"path": rel, "after": _sha(after), "created": created}) + "\n").encode("utf-8")
        )

    def end_journal(self, *, settled: bool) -> None:
        """Close the journal; `settled` (committed, undone, or left as the caller wanted): remove
        it too, nothing is left to roll back."""
        if self._journal is None:
            return
        os.close(self._journal)
        self._journal = None
        if settled:
            _drop_journal(self.store)

    def record(self, event: audit.AuditEvent) -> None:
        """Add an audit line to this commit."""
        self._events.append(event)

    def event(self, op: str, note_id: str, rel: str, data: bytes | None, *, ts: str | None = None) -> None:
        """Record `op` on `rel` by this transaction's harness and origin (sha256 of the new bytes)."""

        sha = audit.content_hash(data) if data is not None else ""
        self.record(audit.AuditEvent(ts or timestamps.utc_now(), op, note_id, rel, sha, self.harness, self.origin))

    def commit(self, subject: str, *, sign: bool = False, **trailers: str | None) -> str:
        """Gate every staged file (a note's content only when its key was not checked: the index's
        `Verdicts`), append the audit lines, commit it all in one commit.

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
                    tombstoned=self.rejected,
                    base=base,
                    new=base is None,
                    allow_rejected=rel in self._person_override,
                    verdicts=self.index.verdicts,
                )
        sealed = _sealed(self.store, self._events, subject, trailers, self.origin, self.harness, self.committed)
        audit_files, message = sealed
        for rel, data in audit_files.items():
            self.replace(rel, data)
        self.parent = git.fast_head(self.store.root)
        self.commit_id = git.commit_files(self.repo, self.files, message, author=self.author, sign=sign)
        return self.commit_id

    def undo(self) -> None:
        for rel, before in reversed(list(self._before.items())):
            if before is None:
                with suppress(FileNotFoundError):
                    fsio.remove_file(self.store.root, rel)
            else:
                fsio.replace_file(self.store.root, rel, before)


def _sealed(
    store: Store,
    events: list[audit.AuditEvent],
    subject: str,
    trailers: Mapping[str, str | None],
    origin: str,
    harness: str,
    base: Callable[[str], bytes | None],
) -> tuple[dict[str, bytes], str]:
    """What every commit of a store carries besides its files: the audit files `events` append
    (each through the gate, against `base(rel)`, the parent's bytes) and the message, `subject`
    with the `Memory-*` trailers (`note_id` -> `Memory-Id`, `reason` -> `Memory-Reason`, `remote`
    -> `Memory-Remote`; then origin, harness and the audit position)."""
    from jacked_vault.store.gate import inspect

    if not events:
        raise VaultError("INTERNAL", "a commit without an audit line (every mutation is logged)")
    machine = machine_id(store.state)
    pending = audit.stage(store.root, machine, events)
    for rel, data in pending.files.items():
        inspect(store, rel, data, base=base(rel))
    names = {"note_id": "Memory-Id", "reason": "Memory-Reason", "remote": "Memory-Remote"}
    message = commit_message(
        subject,
        {
            **{names.get(k, f"Memory-{k.title()}"): v for k, v in trailers.items()},
            "Memory-Origin": origin,
            "Memory-Harness": harness,
            "Memory-Audit": f"{machine} {pending.last_hash}",
        },
    )
    return pending.files, message


def commit_tree(
    store: Store,
    repo: pygit2.Repository,
    tree: pygit2.Oid,
    parents: list[pygit2.Oid | str],
    events: list[audit.AuditEvent],
    subject: str,
    *,
    harness: str,
    origin: str,
    settings: Settings = DEFAULT_SETTINGS,
    **trailers: str | None,
) -> pygit2.Oid:
    """Commit `tree` on `parents` (a sync merge, built from git objects, the store lock held) the
    way `Transaction.commit` commits: the audit lines of `events` added to the tree (gated), the
    same trailers, the settings' author. Nothing moves: the caller checks the commit out and moves
    the branch (`store.git.advance_to`), which brings the git index to it."""
    given = cast("pygit2.Tree", repo[tree])

    def base(rel: str) -> bytes | None:
        return git.blob_at(repo, given, rel)

    audit_files, message = _sealed(store, events, subject, trailers, origin, harness, base)
    full = git.tree_with_files(repo, given, audit_files)
    sig = git.signature(repo, settings.author)
    return repo.create_commit(None, sig, sig, message, full, parents)


def kept_aside(names: list[str]) -> list[str]:
    """The lines that tell a person where `Transaction.transition` kept each hand edit."""
    return [f"the hand-edited working copy was kept in .git/jacked/quarantine/{name}" for name in names]


def _working(store: Store, rel: str) -> bytes | None:
    return fsio.read_optional(store.root, rel, max_bytes=audit.MAX_AUDIT_FILE)


def _sha(data: bytes | None) -> str | None:
    return audit.content_hash(data) if data is not None else None


def _drop_journal(store: Store) -> None:
    with suppress(FileNotFoundError):
        os.unlink(store.state / JOURNAL)


def interrupted(store: Store, repo: pygit2.Repository) -> dict[str, bytes | None]:
    """What rolling back a write that a kill interrupted puts in the working tree: path -> HEAD's
    bytes (None: the file goes). Empty when no journal is left.

    Only a journaled path that still holds bytes that write put there is rolled back; anything
    else in it (a person's edit since) is left to be judged as ever. The notes a plain create made
    are kept for `doctor --repair` to commit (SPEC 5.1); when the same write also changed a
    committed note (`add --supersedes`), they go back together (SPEC 5.2). What was there before
    the write and never committed is not brought back: a transition kept a hand edit in
    quarantine first.
    """

    try:
        raw = fsio.read_optional(store.state, JOURNAL, max_bytes=MAX_JOURNAL)
    except (OSError, VaultError):
        return {}  # a journal that is not a plain readable file was not written by a transaction
    ours: dict[str, set[str | None]] = {}
    created: set[str] = set()
    for text in (raw or b"").decode("utf-8", "replace").splitlines():
        try:
            line = json.loads(text)
            rel, after, new = line["path"], line["after"], line["created"]
        except (ValueError, TypeError, KeyError):
            continue  # cut by the kill: the write it announced was not made
        if not isinstance(rel, str) or not (after is None or isinstance(after, str)):
            continue
        ours.setdefault(rel, set()).add(after)
        if new is True:
            created.add(rel)
    notes = {rel for rel in ours if classify_path(store, rel) == "note"}
    keep = created & notes if notes <= created else set()
    plan: dict[str, bytes | None] = {}
    for rel in ours.keys() - keep:
        try:
            working = _working(store, rel)
        except (OSError, VaultError):
            continue
        head = git.tree_blob(repo, rel)
        if working != head and _sha(working) in ours[rel]:
            plan[rel] = head
    return plan


def roll_back(store: Store) -> list[str]:
    """Roll back the write a kill interrupted (see `interrupted`) and drop its journal; returns
    the paths put back. Callers hold the store lock, so a journal found is a dead writer's."""
    if not os.path.lexists(store.state / JOURNAL):
        return []
    plan = interrupted(store, git.open_repo(store.root))
    for rel, data in plan.items():
        if data is None:
            fsio.remove_file(store.root, rel)
        else:
            fsio.replace_file(store.root, rel, data)
    _drop_journal(store)
    return sorted(plan)


@contextmanager
def write_transaction(
    store: Store,
    *,
    harness: str,
    origin: str,
    settings: Settings = DEFAULT_SETTINGS,
    rejected_elsewhere: Tombstoned = NO_STONES,
    may_push: bool = False,
) -> Iterator[Transaction]:
    """Lock the store and yield a Transaction; undo on error, refresh the index after a commit.
    `settings` (`Context.settings`) give the author and the lock timeout; `may_push` (a person's or
    an agent's write, not capture, rollup, sync or repair): a commit starts a detached push when
    `settings.push` is `after-write` (vault only);
    `rejected_elsewhere`: the values rejected in the other stores the writer reads (SPEC 5.3: one
    rejection holds in every store; `search.index.rejected_elsewhere`)."""
    from jacked_vault.search.index import SearchIndex

    check_store_gitignore(store)
    git.require_branch(store.root)
    with store_lock(store.state, DEFAULT_TIMEOUT_S if settings.lock_timeout_s is None else settings.lock_timeout_s):
        rolled_back = roll_back(store)
        index = SearchIndex(store)
        try:
            index.refresh()
            tx = Transaction(store, index, settings.author, harness=harness, origin=origin)
            tx.rolled_back = rolled_back
            tx.rejected_elsewhere = rejected_elsewhere
            settled = False
            try:
                yield tx
                settled = True
            except BaseException:
                if tx.commit_id is None:
                    tx.undo()
                settled = True
                raise
            finally:
                tx.end_journal(settled=settled)
            if tx.commit_id is not None and not index.apply_commit(tx.parent, tx.commit_id, tx.files):
                index.refresh()
        finally:
            index.close()
    if may_push and settings.push_after_write and tx.commit_id is not None and not store.is_project:
        detached.spawn_hook(store.root, "push")
