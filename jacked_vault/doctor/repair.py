"""`doctor --repair`: put a store back in step with HEAD, never deleting or rewriting a note.

Under the store lock it first removes jacked's own crash leftovers (hidden temp files, git
lock files of a killed commit), rolls back a write a kill interrupted (as the next write would,
`write.transaction.roll_back`) and re-stages git-index entries a kill left behind. Then one
write transaction (the gate checks every byte it commits) settles each working-tree file
that differs from HEAD, as `checks.judge` decided:

- commit: a valid file a crash left uncommitted (a new note, a transition or append whose audit
  line is there, a hand edit of hot.md or vault.json that passes the gate);
- quarantine: a file that fails the gate, or a hand edit of a committed note: its bytes move to
  `.git/jacked/quarantine/` (kept, never deleted) and the committed version is restored;
- restore: a committed file missing from the working tree comes back from HEAD.

Derived files (index.md) are regenerated in a second commit.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from jacked_vault.doctor.checks import judge, note_id_of, shown, stale_derived, temp_files, working_tree_changes
from jacked_vault.doctor.report import Report
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store import audit, git
from jacked_vault.store.layout import Store, classify_path
from jacked_vault.store.lock import store_lock
from jacked_vault.store.settings import DEFAULT_SETTINGS, Settings
from jacked_vault.store.vault import check_store_gitignore

if TYPE_CHECKING:
    from jacked_vault.write.transaction import Transaction


def repair(store: Store, report: Report, *, harness: str, settings: Settings = DEFAULT_SETTINGS) -> None:
    from jacked_vault.write.transaction import roll_back

    check_store_gitignore(store)
    with store_lock(store.state):
        for path in temp_files(store):
            os.unlink(path)
        report.repaired += [shown(store, rel) for rel in roll_back(store)]
        git.recover_killed_commit(store.root)
        for rel in git.stale_git_locks(store.root):
            os.unlink(store.root / rel)
            report.repaired.append(store.display(rel, store.label))
        repo = git.open_repo(store.root)
        for rel in git.resync_index(repo, store.root, git.index_out_of_step(repo)):
            report.repaired.append(shown(store, rel))
    _settle_working_tree(store, report, harness, settings)
    _regenerate_derived(store, report, harness, settings)


def _settle_working_tree(store: Store, report: Report, harness: str, settings: Settings) -> None:
    from jacked_vault.store.gate import quarantine
    from jacked_vault.write.transaction import write_transaction

    with write_transaction(store, harness=harness, origin="repair", settings=settings) as tx:
        changes = working_tree_changes(store, tx.repo)
        chain = audit.verify(store.root)
        done: list[str] = []
        audit_files: list[str] = []
        for rel, state in changes:
            if os.path.islink(store.root / rel) and classify_path(store, rel) != "index":
                continue  # reported by doctor; never followed, never moved
            stray = judge(store, tx.repo, rel, state, chain, tx.index.tombstoned)
            if stray.kind in (None, "index") or stray.action == "leave":
                continue
            if stray.kind == "audit":
                audit_files.append(rel)
                continue  # staged below, after this commit's own lines
            if stray.action == "quarantine":
                quarantine(store, rel, stray.data or b"", stray.problem or "refused by the gate", "repair")
                if stray.committed is None:
                    tx.remove(rel)
                    tx.event("quarantine", rel, rel, stray.data)
                else:
                    tx.replace(rel, stray.committed)
                    tx.event("quarantine", rel, rel, stray.committed)
            elif stray.action == "restore":
                assert stray.committed is not None, "judge restores only a committed file"
                tx.replace(rel, stray.committed)
                tx.event("restore", rel, rel, stray.committed)
            else:
                assert stray.data is not None, "judge commits only a file it read"
                tx.replace(rel, stray.data)
                tx.event("repair", (note_id_of(stray.data) if stray.kind == "note" else None) or rel, rel, stray.data)
            done.append(rel)
        if done:
            tx.commit(f"memory: doctor --repair settles {len(done)} file(s)")
            report.repaired += [shown(store, rel) for rel in done]
        elif _audit_ahead(store, tx, audit_files):
            tx.event("repair", "audit", "", None)
            tx.commit("memory: doctor --repair commits audit lines a crash left behind")
            report.repaired.append(store.display("audit", store.label))


def _audit_ahead(store: Store, tx: Transaction, changed: list[str]) -> bool:
    """True when a changed audit file holds lines HEAD does not (a crash after the audit write);
    one too large to commit is left for doctor to report."""
    found = False
    for rel in changed:
        try:
            working = fsio.read_file(store.root, rel, max_bytes=audit.MAX_AUDIT_FILE)
        except (OSError, VaultError):
            continue
        committed = tx.committed(rel) or b""
        if working != committed and working.startswith(committed):
            tx.replace(rel, working)
            found = True
    return found


def _regenerate_derived(store: Store, report: Report, harness: str, settings: Settings) -> None:
    from jacked_vault.write.transaction import write_transaction

    with write_transaction(store, harness=harness, origin="repair", settings=settings) as tx:
        derived = {rel: data for rel, data, _ in stale_derived(store, tx.index.read, tx.repo)}
        for rel, data in derived.items():
            tx.replace(rel, data)
            tx.event("regenerate", rel, rel, data)
        if derived:
            tx.commit("memory: doctor --repair regenerates index.md")
            report.repaired += [store.display(rel, store.label) for rel in sorted(derived)]
