"""Health check of every visible store, and the one safe repair: committing orphaned valid notes.

Doctor never deletes or rewrites a note. `--repair` commits (a) valid new notes that a crash
left uncommitted, (b) tracked notes whose working copy matches the audit log (a transition
that was written but not committed), and (c) audit files ahead of HEAD; it re-stages git-index
entries a kill left behind HEAD and regenerates any index.md that is stale (derived files). Under the store lock (so no jacked writer is mid-create) it
removes jacked's own stale temp files and git lock files older than a minute.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.search.index import SearchIndex, classify
from jacked_vault.store import audit, git
from jacked_vault.store.layout import AUDIT_DIR, GROUPS_DIR, USER_DIR, Store

TEMP_PREFIX = ".jacked-tmp-"


@dataclass
class Report:
    memory_count: int = 0
    invalid_files: list[dict] = field(default_factory=list)
    duplicate_ids: list[dict] = field(default_factory=list)
    broken_links: list[dict] = field(default_factory=list)
    skipped_symlinks: list[str] = field(default_factory=list)
    uncommitted: list[dict] = field(default_factory=list)
    audit_problems: list[dict] = field(default_factory=list)
    truncated: bool = False
    stale_temp_files: int = 0
    git_index_stale: list[str] = field(default_factory=list)
    config_problems: list[dict] = field(default_factory=list)
    derived_stale: list[dict] = field(default_factory=list)
    stale_git_locks: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    reindexed: bool = False

    @property
    def ok(self) -> bool:
        return not (
            self.invalid_files
            or self.duplicate_ids
            or self.broken_links
            or self.skipped_symlinks
            or self.uncommitted
            or self.audit_problems
            or self.truncated
            or self.git_index_stale
            or self.config_problems
            or self.derived_stale
            or self.stale_git_locks
        )

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "memory_count": self.memory_count,
            "invalid_files": self.invalid_files,
            "duplicate_ids": self.duplicate_ids,
            "broken_links": self.broken_links,
            "skipped_symlinks": self.skipped_symlinks,
            "uncommitted": self.uncommitted,
            "audit_problems": self.audit_problems,
            "truncated": self.truncated,
            "stale_temp_files": self.stale_temp_files,
            "git_index_stale": self.git_index_stale,
            "config_problems": self.config_problems,
            "derived_stale": self.derived_stale,
            "stale_git_locks": self.stale_git_locks,
            "repaired": self.repaired,
            "reindexed": self.reindexed,
        }


def doctor(ctx: Context, *, repair: bool = False, reindex: bool = False, progress=None) -> Report:
    """Check every visible store; `progress(n)` is called while a full index pass runs."""
    from jacked_vault.groups.suggest import duplicate_mappings

    report = Report(reindexed=reindex)
    report.config_problems = [{"code": "DUPLICATE_MAPPING", **d} for d in duplicate_mappings(ctx.config)]
    stores = ctx.stores()
    all_ids: dict[str, list[str]] = {}
    links: list[tuple[str, str]] = []
    for store in stores:
        if repair:
            _repair(store, report)
        index = SearchIndex(store, progress=progress)
        try:
            index.rebuild() if reindex else index.refresh()
            _check_store(store, index, report)
            report.duplicate_ids += index.duplicate_ids()
            for doc_id in index.ids():
                all_ids.setdefault(doc_id, []).append(store.label)
            links += list(index.link_pairs())
        finally:
            index.close()
    report.broken_links = [{"id": src, "missing": dst} for src, dst in links if dst not in all_ids]
    for doc_id, labels in sorted(all_ids.items()):
        if len(labels) > 1:
            report.duplicate_ids.append({"id": doc_id, "stores": labels})
    report.skipped_symlinks = sorted(set(report.skipped_symlinks))
    return report


def _note_roots(store: Store) -> tuple[list[str], list[str]]:
    """Scope roots to scan in the working tree, and symlinks found where roots should be."""
    if store.is_project:
        return [""], []
    roots, symlinks = [USER_DIR], []
    try:
        entries = sorted(os.scandir(store.root / GROUPS_DIR), key=lambda e: e.name)
    except OSError:
        entries = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            symlinks.append(f"{GROUPS_DIR}/{entry.name}")
        elif entry.is_dir(follow_symlinks=False):
            roots.append(f"{GROUPS_DIR}/{entry.name}")
    return roots, symlinks


@dataclass
class _WorkingNote:
    rel: str
    data: bytes
    sha: str


def _working_notes(store: Store, report: Report) -> list[_WorkingNote]:
    """Every note-shaped file in the working tree (bounded scans), read without following links."""
    from jacked_vault.document import MAX_FILE_BYTES

    roots, symlinks = _note_roots(store)
    report.skipped_symlinks += [store.display(p, "group") for p in symlinks]
    found = []
    for root in roots:
        scan = fsio.scan(store.root, root)
        report.truncated |= not scan.complete
        report.skipped_symlinks += [store.display(p, _scope(store, p)) for p in scan.skipped_symlinks]
        for rel in scan.files:
            if classify(store, rel) is None or scan.sizes[rel] > MAX_FILE_BYTES:
                continue
            data = fsio.read_file(store.root, rel, max_bytes=MAX_FILE_BYTES)
            found.append(_WorkingNote(rel, data, audit.content_hash(data)))
    return found


def _scope(store: Store, rel: str) -> str:
    found = classify(store, rel)
    return found[0] if found else store.label


def _check_store(store: Store, index: SearchIndex, report: Report) -> None:
    diag = index.diagnostics()
    report.memory_count += index.count()
    report.invalid_files += diag.invalid_files
    report.skipped_symlinks += [store.display(p, _scope(store, p)) for p in diag.skipped_symlinks]
    report.truncated |= diag.truncated
    committed = index.indexed_files()
    problems = index.problem_paths()
    for note in _working_notes(store, report):
        if note.rel in committed and committed[note.rel] == note.sha:
            continue
        if note.rel in problems and git.tree_blob(git.open_repo(store.root), note.rel) is not None:
            continue  # committed but invalid: already reported as invalid
        state = "modified" if note.rel in committed else "new"
        report.uncommitted.append({"path": store.display(note.rel, _scope(store, note.rel)), "state": state})
    chain = audit.verify(store.root)
    report.audit_problems += [{**p, "path": store.display(p["path"], store.label)} for p in chain.problems]
    for rel, sha in sorted(committed.items()):
        last = chain.last_by_path.get(rel)
        if last is None:
            report.audit_problems.append({"path": store.display(rel, _scope(store, rel)), "code": "NO_AUDIT_RECORD"})
        elif last[1] != sha:
            report.audit_problems.append({"path": store.display(rel, _scope(store, rel)), "code": "EDITED_OUTSIDE_TOOL"})
    report.stale_temp_files += sum(1 for _ in _temp_files(store))
    repo = git.open_repo(store.root)
    report.derived_stale += [{"path": store.display(rel, store.label), "state": state} for rel, _, state in _stale_derived(store, index, repo)]
    report.git_index_stale += [store.display(p, _scope(store, p)) for p in git.index_out_of_step(repo)]
    report.stale_git_locks += [store.display(p, store.label) for p in git.stale_git_locks(store.root)]


def _temp_files(store: Store):
    for dirpath, dirnames, filenames in os.walk(store.root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.startswith(TEMP_PREFIX):
                yield os.path.join(dirpath, name)


def _repair(store: Store, report: Report) -> None:
    """Commit what a crash left behind (valid notes, audit lines) in one commit; never rewrite."""
    from jacked_vault.document import parse_note, utc_now
    from jacked_vault.store.lock import store_lock
    from jacked_vault.store.vault import check_store_gitignore

    check_store_gitignore(store)
    with store_lock(store.cache):
        for path in _temp_files(store):
            os.unlink(path)
        git.recover_killed_commit(store.root)
        for rel in git.stale_git_locks(store.root):
            os.unlink(store.root / rel)
            report.repaired.append(store.display(rel, store.label))
        repo = git.open_repo(store.root)
        for rel in git.resync_index(repo, store.root, git.index_out_of_step(repo)):
            report.repaired.append(store.display(rel, _scope(store, rel)))
        index = SearchIndex(store)
        try:
            index.refresh()
            known_ids = index.ids()
            committed = index.indexed_files()
        finally:
            index.close()
        chain = audit.verify(store.root)
        files: dict[str, bytes] = {}
        events = []
        scratch = Report()
        for note in _working_notes(store, scratch):
            if committed.get(note.rel) == note.sha:
                continue
            try:
                parsed = parse_note(note.data, source=note.rel)
            except VaultError:
                continue
            if note.rel in committed:
                if chain.last_by_path.get(note.rel, ("", ""))[1] == note.sha:
                    files[note.rel] = note.data  # a transition written but not committed
                continue
            if parsed.id in known_ids or classify(store, note.rel)[0] != parsed.scope:
                continue
            known_ids.add(parsed.id)
            files[note.rel] = note.data
            if chain.last_by_path.get(note.rel, ("", ""))[1] != note.sha:
                events.append(audit.AuditEvent(utc_now(), "repair", parsed.id, note.rel, note.sha, parsed.source_harness, parsed.origin))
        if events:
            pending = audit.stage(store.root, audit.machine_id(store.cache), events)
            fsio.replace_file(store.root, pending.rel, pending.after)
        for rel, data in _audit_files_ahead(store, repo).items():
            files.setdefault(rel, data)
        if files:
            message = f"memory: doctor --repair commits {len(files)} file(s)\n\nMemory-Origin: repair\n"
            git.commit_files(repo, files, message)
            report.repaired += [store.display(rel, _scope(store, rel)) for rel in sorted(files)]
        index = SearchIndex(store)
        try:
            index.refresh()
            derived = {rel: data for rel, data, _ in _stale_derived(store, index, repo)}
        finally:
            index.close()
        for rel, data in derived.items():
            fsio.replace_file(store.root, rel, data)
        if derived:
            git.commit_files(repo, derived, "memory: doctor --repair regenerates index.md\n\nMemory-Origin: repair\n")
            report.repaired += [store.display(rel, store.label) for rel in sorted(derived)]


def _stale_derived(store: Store, index: SearchIndex, repo) -> list[tuple[str, bytes, str]]:
    """(path, expected bytes, state) for each index.md that the working tree or HEAD has wrong."""
    from jacked_vault.recall.index_md import index_path, render_index

    if store.is_project:
        groups: set[str | None] = {None}
    else:
        groups = set(index.notes_per_group())
        try:
            groups |= {e.name for e in os.scandir(store.root / GROUPS_DIR) if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")}
        except OSError:
            pass
    out = []
    for group in sorted(groups, key=str):
        rel = index_path(store, group)
        expected = render_index(index, store, group)
        working = fsio.read_optional(store.root, rel, max_bytes=1 << 20)
        if working is None and not index.group_index(group, 1)[1]:
            continue  # a group folder with no notes needs no index.md
        if working != expected:
            out.append((rel, expected, "stale" if working is not None else "missing"))
        elif git.tree_blob(repo, rel) != expected:
            out.append((rel, expected, "uncommitted"))
    return out


def _audit_files_ahead(store: Store, repo) -> dict[str, bytes]:
    scan = fsio.scan(store.root, AUDIT_DIR, suffix=".jsonl", max_depth=3, max_bytes=1 << 30)
    out = {}
    for rel in scan.files:
        data = fsio.read_file(store.root, rel, max_bytes=audit.MAX_AUDIT_FILE)
        if git.tree_blob(repo, rel) != data:
            out[rel] = data
    return out
