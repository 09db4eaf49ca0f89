"""The checks `doctor` runs on one store; each finding names its path and the fix."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from jacked_vault.doctor.damage import Damaged, fsck, problem
from jacked_vault.doctor.kept import (
    DERIVED,
    NOTES,
    TEMP,
    WALK,
    ObjectsState,
    keep,
    keep_listing,
    kept_for,
    loose,
    loose_listing,
    next_change,
    objects_state,
    stamp,
    taken,
    taken_listing,
    unchanged,
)
from jacked_vault.doctor.report import Report
from jacked_vault.document import MAX_FILE_BYTES, timestamps
from jacked_vault.document.model import SLUG_RE
from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.search.index import SearchIndex
from jacked_vault.search.treediff import changed_entries
from jacked_vault.store import audit, git
from jacked_vault.store.audit_cache import AuditParts
from jacked_vault.store.digests import digest
from jacked_vault.store.layout import GROUPS_DIR, Store, classify_note, classify_path, note_folder, note_name
from jacked_vault.store.progress import PROGRESS_STEP, Progress

if TYPE_CHECKING:
    import sqlite3

    import pygit2

    from jacked_vault.search.readmodel import ReadModel
    from jacked_vault.store.tombstones import Tombstoned

TEMP_PREFIX = ".jacked-tmp-"
READ_BY_DOCTOR = frozenset({"config", "index"})  # kinds whose committed blob plain doctor reads (vault.json, index.md)
MAX_OBJECTS_CHECKED = 200_000
MAX_OUTSIDE_SHOWN = 100  # committed paths outside the layout named in the report (all are counted)


def scope_of(store: Store, rel: str) -> str:
    found = classify_note(store, rel)
    return found[0] if found else store.label


def shown(store: Store, rel: str) -> str:
    return store.display(rel, scope_of(store, rel))


@dataclass
class Stray:
    """A working-tree file that differs from HEAD, and what repair will do with it."""

    rel: str
    state: str  # new | modified | missing
    kind: str | None  # layout kind (None: outside the layout)
    data: bytes | None
    committed: bytes | None
    action: str  # commit | quarantine | restore | roll back | leave
    problem: str | None = None  # why it fails the gate (field and rule, never a value)

    def to_json(self, store: Store) -> dict[str, Any]:
        out = {"path": shown(store, self.rel), "state": self.state, "kind": self.kind, "repair": self.action}
        if self.problem:
            out["problem"] = self.problem
        return out


def working_tree_changes(
    store: Store, repo: pygit2.Repository, damaged: Container[str] = frozenset()
) -> list[tuple[str, str]]:
    """(path, new|modified|missing) for every working-tree file that differs from HEAD. git status
    finds the candidates (`git.status_changes`: the git CLI, streamed); each is then compared with
    HEAD itself, so a git index a kill left behind (a commit landed, its index write did not) is
    no working-tree change: it is `git_index_stale`. A path a sparse checkout leaves out
    (skip-worktree) is present and unchanged, as git says; an unmerged path is left to git, and a
    path whose blob in HEAD is `damaged` to its restoring."""
    out = []
    for rel, code in sorted(git.status_changes(store.root)):
        if "U" in code or code in ("AA", "DD") or rel in damaged:
            continue  # unmerged, or nothing to compare it with
        if code == "??" or code[0] == "A":
            state = "new" if git.tree_blob(repo, rel) is None else "modified"
        elif "D" in code:
            state = "missing"
        elif any(c in "MTRC" for c in code):
            state = "modified"
        else:
            continue
        if rel.rsplit("/", 1)[-1].startswith(TEMP_PREFIX):
            continue  # our own crash leftovers: counted as stale temp files
        if _same_as_head(store, repo, rel):
            continue  # only git's index differs from HEAD
        out.append((rel, state))
    return out


def _same_as_head(store: Store, repo: pygit2.Repository, rel: str) -> bool:
    """Whether the working tree holds exactly what HEAD holds at `rel` (both nothing counts; a
    symlink or anything unreadable never does)."""

    path = store.root / rel
    head = git.tree_blob(repo, rel)
    if not os.path.lexists(path):
        return head is None
    if head is None or os.path.islink(path) or not os.path.isfile(path):
        return False
    try:
        if os.path.getsize(path) != len(head) or len(head) > max(MAX_FILE_BYTES, audit.MAX_AUDIT_FILE):
            return False
        with open(path, "rb") as handle:
            return handle.read() == head
    except OSError:
        return False


def judge(
    store: Store,
    repo: pygit2.Repository,
    rel: str,
    state: str,
    chain: audit.AuditReport,
    tombstoned: Tombstoned,
    leftovers: Container[str] = frozenset(),
) -> Stray:
    """Decide what repair does with one changed working-tree file (through the gate). `leftovers`:
    the paths rolling back an interrupted write puts back (`write.transaction.interrupted`): such
    a file is that write's, never a hand edit."""
    from jacked_vault.store.gate import inspect

    kind = classify_path(store, rel)
    committed = git.tree_blob(repo, rel)
    if rel in leftovers:
        return Stray(rel, state, kind, None, committed, "roll back")
    if state == "missing":
        return Stray(rel, state, kind, None, committed, "restore" if committed is not None else "leave")
    if kind is None:
        return Stray(
            rel,
            state,
            kind,
            None,
            committed,
            "leave",
            "outside the vault layout: not memory (move it out of the vault)",
        )
    try:
        data = fsio.read_file(store.root, rel, max_bytes=max(MAX_FILE_BYTES, audit.MAX_AUDIT_FILE))
    except (OSError, VaultError) as exc:
        why = exc.message if isinstance(exc, VaultError) else exc.strerror
        return Stray(rel, state, kind, None, committed, "leave", f"cannot be read ({why})")
    if kind == "index":
        return Stray(rel, state, kind, data, committed, "leave")  # derived: regenerated, see derived_stale
    if (
        kind == "note"
        and state == "modified"
        and not chain.last_by_id.matches(note_id_of(committed) or "", audit.content_hash(data))
    ):
        return Stray(
            rel,
            state,
            kind,
            data,
            committed,
            "quarantine",
            "a hand edit of a committed note (notes change only through transitions)",
        )
    try:
        inspect(store, rel, data, tombstoned=tombstoned, base=committed, new=committed is None)
    except VaultError as exc:
        return Stray(rel, state, kind, data, committed, "quarantine", exc.message.removeprefix(f"{rel}: "))
    return Stray(rel, state, kind, data, committed, "commit")


def note_id_of(data: bytes | None) -> str | None:
    """The id of the note `data` holds (None when there is none, or it cannot be read)."""
    from jacked_vault.document import parse_note

    try:
        return parse_note(data, source="note").id if data is not None else None
    except VaultError:
        return None


def check_git(
    repo: pygit2.Repository,
    store: Store,
    report: Report,
    *,
    full: bool = False,
    progress: Progress | None = None,
    index: SearchIndex | None = None,
) -> HeadWalk | None:
    """HEAD resolves, and every object HEAD's tree needs is there (`full`: and sound) (bounded),
    each damaged one reported by its id and path with its fix (`doctor.damage`); on the way, the
    committed files outside the vault layout are counted (the index never reads them). The walk,
    or None when HEAD does not resolve; `walk.unsafe` when the store's objects cannot be trusted:
    the checks that read them wait then (a damaged tree or truncated object can fail or, in
    libgit2, hang every reader). With `index`, a clean walk's verdict is kept there (`_walked`)."""

    try:
        commit = git.head_commit(repo)
    except Exception as exc:  # pygit2 raises several types for a broken ref
        report.git_problems.append(
            {
                "path": store.label,
                "code": "HEAD_UNRESOLVABLE",
                "problem": f"HEAD cannot be resolved ({type(exc).__name__})",
                "fix": f"find the last good commit with `git -C {store.root} reflog`, then `git -C {store.root} "
                "update-ref HEAD <commit>`",
            }
        )
        return None
    if commit is None:
        return HeadWalk([], False, [], 0, True)
    walk = _walked(repo, commit, store, index, full=full, progress=progress)
    report.outside_layout += [
        store.display(rel, scope_of(store, rel))
        for rel in walk.outside[: MAX_OUTSIDE_SHOWN - len(report.outside_layout)]
    ]
    report.outside_layout_count += walk.outside_count
    report.git_problems += [problem(store, item, _where(store, item), held_back=walk.unsafe) for item in walk.damaged]
    return walk


def _walked(
    repo: pygit2.Repository,
    commit: pygit2.Commit,
    store: Store,
    index: SearchIndex | None,
    *,
    full: bool,
    progress: Progress | None,
) -> HeadWalk:
    """`walk_head`, or what a clean walk kept in `index` (`doctor.kept`) makes of it. Each object
    it read in full (the trees, `READ_BY_DOCTOR`) must be the same file it read, and then: for the
    same tree, while no pack file and no folder of loose objects changed since that walk began, its
    verdict itself; for another tree, while every pack file it had is there unchanged and every
    loose object there was is still there (`walk_since`), the trees that differ from it walked
    alone. `full` neither takes nor keeps one; nor does an index file that cannot be opened (its
    refresh, after the walk, says why)."""
    objects = Path(repo.path) / "objects"
    try:
        db = index.db if index is not None and not full else None
    except VaultError:
        db = None
    state = objects_state(objects) if db is not None else None
    if db is None or state is None:
        return walk_head(repo, commit, store, full=full, progress=progress)
    key = f"{commit.tree_id} {state.digest}"
    held = kept_for(db, WALK)
    before = HeadWalk.unpack(held[1]) if held is not None else None
    if held is not None and before is not None and unchanged(objects, before.read):
        if held[0] == key:
            return before
        since = _since(repo, commit, store, db, before, state)
        if since is not None:
            walk, listing = since
            if walk.complete and not walk.damaged:
                keep_listing(db, state, listing)
                keep(db, WALK, key, walk.pack(str(commit.tree_id), state))
            return walk
    listing = loose_listing(objects)  # before the walk: what it finds there is at least this
    walk = walk_head(repo, commit, store, progress=progress)
    if walk.complete and not walk.damaged:
        keep_listing(db, state, listing)
        keep(db, WALK, key, walk.pack(str(commit.tree_id), state))
    return walk


def _since(
    repo: pygit2.Repository,
    commit: pygit2.Commit,
    store: Store,
    db: sqlite3.Connection,
    before: HeadWalk,
    state: ObjectsState,
) -> tuple[HeadWalk, dict[int, frozenset[str]]] | None:
    """`walk_since` the clean walk `before`, and the loose objects now in the folders that changed
    since, when nothing that walk found can have gone: every pack file it saw is there unchanged,
    and each folder of loose objects that changed still holds every object it held then; else
    None (the whole tree is walked)."""
    objects = Path(repo.path) / "objects"
    if before.tree is None or before.state is None or before.outside_count > MAX_OUTSIDE_SHOWN:
        return None  # an older verdict, or one that named only some files outside the layout
    changed = before.state.changed_folders(state)
    if changed is None:
        return None
    then = taken_listing(db, before.state, changed)
    if then is None:
        return None
    now = loose_listing(objects, changed)
    if any(not then[n] <= now[n] for n in changed):
        return None  # a loose object went: what the walk found may be gone
    import pygit2

    try:
        return walk_since(repo, commit, store, before), now
    except (KeyError, ValueError, pygit2.GitError):  # the kept tree cannot be read after all, or its id is none
        return None


def check_unreadable(repo: pygit2.Repository, store: Store, index: SearchIndex, report: Report, walk: HeadWalk) -> None:
    """The index's verdicts put to use: each committed file whose git object the index could not
    read (UNREADABLE) has that object read and checked in full (plain doctor's walk only found it
    there), so a damaged one is named by its id and path with its fix, once (`walk.damaged` gets
    it), and one restored since is indexed again."""
    import pygit2

    commit = git.head_commit(repo)
    if commit is None:
        return
    said = {item.oid for item in walk.damaged}
    objects = Path(repo.path) / "objects"
    restored = []
    for rel in sorted(index.read.problem_paths("UNREADABLE")):
        try:
            entry = commit.tree[rel]
        except (KeyError, pygit2.GitError):
            continue  # no longer in HEAD, or a folder on the way that cannot be read (the walk said so)
        if str(entry.id) in said:
            continue
        state = _sound(repo, objects, entry.id, blob=True)
        if state == "ok":
            restored.append(rel)
            continue
        item = Damaged(str(entry.id), rel, "blob", state)
        walk.damaged.append(item)
        report.git_problems.append(problem(store, item, _where(store, item)))
    if restored:
        index.reread(restored)


def _where(store: Store, item: Damaged) -> str:
    return shown(store, item.rel) if item.rel else store.label


def check_history(store: Store, repo: pygit2.Repository, report: Report) -> None:
    """`doctor --full`: every object `git fsck` finds damaged in the store's history (those of the
    current tree `check_git` reported are not said again), and what else it says is wrong."""

    said = {p.get("object") for p in report.git_problems}
    found = fsck(store, repo)
    report.git_problems += [problem(store, item, _where(store, item)) for item in found.damaged if item.oid not in said]
    report.git_problems += [
        {
            "path": store.label,
            "code": "FSCK",
            "problem": line,
            "fix": "restore the vault from another clone (`jacked memory init --from URL` into a new folder) or a "
            "backup",
        }
        for line in found.other
    ]


def held_repair(store: Store) -> dict[str, str]:
    """The finding that `--repair` left a store whose tree has damaged objects as it was."""
    return {
        "path": store.label,
        "code": "REPAIR_HELD",
        "problem": "`--repair` changed nothing here: git objects of the current tree are damaged, and repair "
        "compares every file with them",
        "fix": "restore the damaged objects (their fixes are listed here), then `jacked memory doctor --repair`",
    }


@dataclass
class HeadWalk:
    """What one pass over HEAD's tree found."""

    damaged: list[Damaged]  # missing or corrupt objects, by id and path
    unsafe: bool  # a damaged tree, or a truncated loose object: reading the store would fail or hang
    outside: list[str]  # the first committed paths outside the layout (MAX_OUTSIDE_SHOWN)
    outside_count: int
    complete: bool  # False: MAX_OBJECTS_CHECKED was reached first
    read: list[tuple[str, str, str]] = field(default_factory=list)  # (path, oid, `stamp` before) of each read in full
    tree: str | None = None  # the tree a kept walk walked, and the object store it saw (`pack`)
    state: ObjectsState | None = None

    def damaged_files(self) -> frozenset[str]:
        """The paths whose blob is damaged: the checks that would read them pass them by."""
        return frozenset(item.rel for item in self.damaged if item.kind == "blob" and item.rel)

    def pack(self, tree: str, state: ObjectsState) -> dict[str, Any]:
        """A clean walk's verdict on `tree`, begun with the object store in `state`, as
        `doctor.kept` keeps it."""
        return {
            "tree": tree,
            "state": state.to_json(),
            "read": self.read,
            "outside": self.outside,
            "outside_count": self.outside_count,
        }

    @classmethod
    def unpack(cls, held: object) -> HeadWalk | None:
        """The clean walk `pack` kept; None for anything else (the tree is walked again)."""
        try:
            value = cast(dict[str, Any], held)
            read = [(str(path), str(oid), str(seen)) for path, oid, seen in value["read"]]
            outside = [str(rel) for rel in value["outside"]]
            tree = value.get("tree")
            state = ObjectsState.from_json(value.get("state"))
            return cls(
                [],
                False,
                outside,
                int(value["outside_count"]),
                True,
                read,
                tree if isinstance(tree, str) else None,
                state,
            )
        except (KeyError, TypeError, ValueError):
            return None


class _Walker:
    """What a walk of HEAD's tree finds, object by object (`walk_head`, `walk_since`)."""

    def __init__(self, repo: pygit2.Repository, store: Store, full: bool) -> None:
        self.repo, self.store, self.full = repo, store, full
        self.objects = Path(repo.path) / "objects"
        self.odb = repo.odb
        self.damaged: list[Damaged] = []
        self.unsafe = False
        self.seen = 0
        self.classify = classify_path.__wrapped__  # each path once: the cache would only churn

    def tree(self, oid: pygit2.Oid, prefix: str) -> pygit2.Tree | None:
        """The tree `oid` at `prefix` (its path and "/"), checked; None when it is damaged (said)."""
        self.seen += 1
        state = _sound(self.repo, self.objects, oid)
        if state != "ok":
            self.damaged.append(Damaged(str(oid), prefix.rstrip("/"), "tree", state))
            self.unsafe = True  # every reader walks the trees: one that cannot be read stops them all
            return None
        return cast("pygit2.Tree", self.repo[oid])

    def stamp(self, oid: pygit2.Oid) -> str:
        return stamp(loose(self.objects, str(oid)))

    def kind(self, entry: pygit2.Object, rel: str, notes_here: bool) -> str | None:
        """A file's layout kind (None: outside the layout)."""
        return "note" if notes_here and note_name(entry.name or "") else self.classify(self.store, rel)

    def reads(self, kind: str | None) -> bool:
        """Whether a file of `kind` is read in full (`READ_BY_DOCTOR`, or `full`), not only found."""
        return self.full or kind in READ_BY_DOCTOR

    def blob(self, entry: pygit2.Object, rel: str, kind: str | None) -> None:
        """A file's object checked: read in full (`reads`), or found."""
        self.seen += 1
        if self.reads(kind):
            state = _sound(self.repo, self.objects, entry.id, blob=True)
        else:
            state = "ok" if self.odb.exists(entry.id) else "missing"
        if state != "ok":
            self.damaged.append(Damaged(str(entry.id), rel, "blob", state))
            self.unsafe |= state == "truncated"


def walk_head(
    repo: pygit2.Repository,
    commit: pygit2.Commit,
    store: Store,
    *,
    full: bool = False,
    progress: Progress | None = None,
) -> HeadWalk:
    """Every object of HEAD's tree, checked (bounded): each tree, and each blob doctor reads itself
    (`READ_BY_DOCTOR`), as `git fsck` checks it: a loose object is inflated and hashed here before
    libgit2 reads it (libgit2 1.9 never returns from some truncated ones), a packed one is read in
    full by libgit2; every other blob is only found there, as `git fsck --connectivity-only` does
    (the index judged its content when it read it), unless `full`. Each file's path is classified
    on the way: one outside the layout is never indexed, so only this walk can see it. `progress`:
    told the files walked, of the git index's count."""
    import pygit2

    walker = _Walker(repo, store, full)
    outside: list[str] = []
    count = 0
    stack: list[tuple[pygit2.Oid, str]] = [(commit.tree_id, "")]
    files = 0
    read: list[tuple[str, str, str]] = []
    total = git.index_entries(store.root) if progress is not None else None
    while stack and walker.seen < MAX_OBJECTS_CHECKED:
        oid, prefix = stack.pop()
        if not full:
            read.append((prefix, str(oid), walker.stamp(oid)))
        tree = walker.tree(oid, prefix)
        if tree is None:
            continue
        notes_here = note_folder(store, prefix[:-1]) is not None  # a folder of notes: each name decides alone
        for entry in tree:
            rel = f"{prefix}{entry.name}"
            if isinstance(entry, pygit2.Tree):  # by type: each `filemode` read builds an enum
                stack.append((entry.id, rel + "/"))
                continue
            kind = walker.kind(entry, rel, notes_here)
            if kind is None:
                count += 1
                if len(outside) < MAX_OUTSIDE_SHOWN:
                    outside.append(rel)
            if entry.type_str == "commit":
                continue  # a submodule: its commit lives in another repository
            if walker.reads(kind) and not full:
                read.append((rel, str(entry.id), walker.stamp(entry.id)))  # before it is read
            walker.blob(entry, rel, kind)
            files += 1
            if progress is not None and files % PROGRESS_STEP == 0:
                progress(files, total)
    if progress is not None:
        progress(files, files)
    return HeadWalk(walker.damaged, walker.unsafe, sorted(outside), count, not stack, read)


def walk_since(repo: pygit2.Repository, commit: pygit2.Commit, store: Store, before: HeadWalk) -> HeadWalk:
    """`walk_head` of HEAD's tree made from `before`, a clean walk of another tree (`before.tree`)
    whose every object is still there and unchanged (`_since`): only the trees that differ from
    that tree's at the same path are read, with the files in them that differ; the rest is as
    `before` found it (its files outside the layout, its objects read in full, by path)."""
    import pygit2

    walker = _Walker(repo, store, False)
    read = {path: (oid, seen) for path, oid, seen in before.read}
    outside = set(before.outside)
    stack: list[tuple[pygit2.Oid, pygit2.Oid | None, str]] = [(commit.tree_id, _oid(before.tree), "")]

    def gone(rel: str, entry: pygit2.Object) -> None:
        """What `before` knew of the path `rel` (a file, or a whole folder) is no longer true."""
        if isinstance(entry, pygit2.Tree):
            for path in [path for path in read if path.startswith(rel + "/")]:
                del read[path]
            outside.difference_update([path for path in outside if path.startswith(rel + "/")])
        read.pop(rel, None)
        outside.discard(rel)

    while stack and walker.seen < MAX_OBJECTS_CHECKED:
        oid, was, prefix = stack.pop()
        read[prefix] = (str(oid), walker.stamp(oid))
        tree = walker.tree(oid, prefix)
        if tree is None:
            continue
        then = {entry.name: entry for entry in cast("pygit2.Tree", repo[was])} if was is not None else {}
        notes_here = note_folder(store, prefix[:-1]) is not None
        for entry in tree:
            rel = f"{prefix}{entry.name}"
            old = then.pop(entry.name or "", None)
            if old is not None and old.id == entry.id:
                continue  # the same object at the same path: as `before` judged it
            if old is not None and not (isinstance(old, pygit2.Tree) and isinstance(entry, pygit2.Tree)):
                gone(rel, old)
            if isinstance(entry, pygit2.Tree):
                stack.append((entry.id, old.id if isinstance(old, pygit2.Tree) else None, rel + "/"))
                continue
            kind = walker.kind(entry, rel, notes_here)
            if kind is None:
                outside.add(rel)
            if entry.type_str == "commit":
                continue
            if walker.reads(kind):
                read[rel] = (str(entry.id), walker.stamp(entry.id))
            walker.blob(entry, rel, kind)
        for name, old in then.items():  # removed
            gone(f"{prefix}{name}", old)
    shown = sorted(outside)
    return HeadWalk(
        walker.damaged,
        walker.unsafe,
        shown[:MAX_OUTSIDE_SHOWN],
        len(shown),
        not stack,
        [(path, oid, seen) for path, (oid, seen) in sorted(read.items())],
    )


def _oid(tree: str | None) -> pygit2.Oid | None:
    import pygit2

    return pygit2.Oid(hex=tree) if tree is not None else None


def _sound(repo: pygit2.Repository, objects: Path, oid: pygit2.Oid, *, blob: bool = False) -> str:
    """`ok`, `missing`, `corrupt` (libgit2 says so when it is read) or `truncated` (a loose object
    whose zlib stream ends early: libgit2 1.9 never returns from reading it)."""
    hexsha = str(oid)
    loose = objects / hexsha[:2] / hexsha[2:]
    if os.path.lexists(loose):
        return git.loose_object(loose, hexsha)[0]  # never read through libgit2 when it is bad
    try:
        obj = repo[oid]
        if blob:
            obj.read_raw()
    except KeyError:
        return "missing"
    except Exception:  # GitError: corrupt pack data
        return "corrupt"
    return "ok"


def check_store(
    store: Store,
    index: SearchIndex,
    repo: pygit2.Repository,
    report: Report,
    damaged: frozenset[str] = frozenset(),
    progress: Progress | None = None,
) -> None:
    """Everything doctor knows about one store, except repair, the gate's verdicts taken from the
    index. `damaged`: the files whose blob in HEAD is damaged (reported by `check_git`), which
    the checks pass by; a git object a check cannot read stops that check only (`_reading`),
    never the others. `progress`: told the notes compared with their audit lines."""
    from jacked_vault.write.transaction import interrupted

    diag = index.read.diagnostics()
    report.memory_count += index.read.count()
    for path, code, message in index.read.problems():
        if code == "SYMLINK":
            report.skipped_symlinks.append(shown(store, path))
        elif not (code == "UNREADABLE" and path in damaged):  # reported with its fix by check_git
            report.invalid_files.append(
                {"path": shown(store, path), "code": code, "problem": message.removeprefix(f"{path}: ")}
            )
    report.truncated |= diag.truncated
    chain = None
    with _reading(report, store, "the audit log"):
        chain = audit.verify(store.root, AuditParts(index.db))  # a part verified before is not read again
        leftovers = interrupted(store, repo)
    if chain is not None:
        with _reading(report, store, "the working tree"):
            for rel, state in working_tree_changes(store, repo, damaged):
                if os.path.islink(store.root / rel):
                    report.skipped_symlinks.append(shown(store, rel))
                    continue
                stray = judge(store, repo, rel, state, chain, index.tombstoned, leftovers)
                if stray.kind != "index":
                    report.uncommitted.append(stray.to_json(store))
        report.audit_problems += [{**p, "path": store.display(p["path"], store.label)} for p in chain.problems]
        with _reading(report, store, "the audit trailers of history"):
            report.audit_problems += [
                {**p, "path": store.display(p["path"], store.label)} for p in audit.verify_trailers(repo, chain)
            ]
        with _reading(report, store, "the notes against their audit lines"):
            _audited(store, index.read, repo, report, chain, leftovers, damaged, progress)
    check_local(store, report, index)
    with _reading(report, store, "the derived index.md files"):
        report.derived_stale += [
            {"path": store.display(rel, store.label), "state": state}
            for rel, _, state in _derived(store, index.read, repo, damaged)
        ]
    with _reading(report, store, "git's index"):
        report.git_index_stale += [shown(store, p) for p in git.index_out_of_step(repo)]
    with _reading(report, store, "the reviews"):
        report.unproven_reviews += [
            {"path": shown(store, rel), "id": note_id, "review": review.to_json() if review else None}
            for rel, note_id, review in index.read.unproven_reviews()
        ]


def check_local(store: Store, report: Report, index: SearchIndex | None = None) -> None:
    """The checks that read no git object (they run even while a tree of the store is damaged):
    jacked's stale temp files (with `index`: none while no folder a walk that found none walked
    has changed since, `TEMP`), git's stale lock files, the quarantine records."""
    from jacked_vault.store.gate import quarantine_records

    held = taken(index.db, TEMP, str(store.root)) if index is not None else None
    kept = {str(path): str(seen) for path, seen in held} if isinstance(held, list) else {}
    changed = [path for path, seen in kept.items() if stamp(Path(path)) != seen]
    if not kept or changed:
        folders: list[tuple[str, str]] = []
        for path in changed:
            del kept[path]  # listed again below (or gone)
        walked = temp_files(store, folders, changed, kept) if kept else temp_files(store, folders)
        found = sum(1 for _ in walked)
        report.stale_temp_files += found
        if index is not None and not found:
            keep(index.db, TEMP, str(store.root), [*kept.items(), *folders])
    report.stale_git_locks += [store.display(p, store.label) for p in git.stale_git_locks(store.root)]
    report.quarantine += [{**r, "store": store.label} for r in quarantine_records(store, limit=50)]


def _audited(
    store: Store,
    index: ReadModel,
    repo: pygit2.Repository,
    report: Report,
    chain: audit.AuditReport,
    leftovers: Container[str],
    damaged: frozenset[str],
    progress: Progress | None = None,
) -> None:
    """Committed notes (and vault.json) that are not their last audited version (`compare_notes`),
    or the clean verdict kept for the same notes, vault.json and audit lines (`_notes_judged`), or,
    after a clean verdict on others, the notes that changed since (`_changed_notes`)."""
    judged = _notes_judged(repo, index, chain) if not leftovers and not damaged else None
    held = kept_for(index.db, NOTES) if judged is not None else None
    if held is not None and held[0] == judged:
        return
    state = _NotesState.of(index, chain) if judged is not None else None  # before the records are put
    before = len(report.audit_problems)
    rows = _changed_notes(repo, index, chain, held[1], state) if held is not None and state is not None else None
    if rows is None:
        last = chain.last_by_path, chain.last_by_id
        compare_notes(store, index, report, last, leftovers, progress)
    else:
        last = chain.recorded(
            {i for _, _, i in rows if i is not None}, {"vault.json", *(r for r, _, i in rows if i is None)}
        )
        compare_rows(store, report, last, leftovers, rows)
    config = git.tree_blob(repo, "vault.json") if not store.is_project and "vault.json" not in damaged else None
    if config is not None and last[0].matches("vault.json", audit.content_hash(config)) is False:
        report.audit_problems.append({"path": store.display("vault.json", store.label), "code": "EDITED_OUTSIDE_TOOL"})
    if judged is not None and state is not None and len(report.audit_problems) == before:
        keep(index.db, NOTES, judged, state.to_json())


def _notes_judged(repo: pygit2.Repository, index: ReadModel, chain: audit.AuditReport) -> str | None:
    """What comparing the notes with their audit lines judges, as its verdict is keyed: the commit
    whose notes the index holds, HEAD (its vault.json) and the bytes of every audit part (by git
    blob id); None when a part could not be read."""
    if any(blob is None for _, blob in chain.parts):
        return None
    head = git.head_commit(repo)
    return hashlib.sha256(
        json.dumps([index.commit, str(head.id) if head is not None else None, chain.parts]).encode()
    ).hexdigest()


# refused files a kept verdict names; with more, or with a scope root cut at the index's bounds (its
# files past them neither indexed nor refused: a later commit there indexes them all), a later run
# judges every note and group
MAX_REFUSED_KEPT = 1000


def _refused(index: ReadModel) -> list[str] | None:
    """The files the index refuses, as a kept verdict names them; None when it cannot name every
    one it left out (more than `MAX_REFUSED_KEPT`, or a scope root cut at the bounds)."""
    refused = sorted(index.problem_paths())
    return refused if len(refused) <= MAX_REFUSED_KEPT and not index.truncated() else None


def _changed_since(repo: pygit2.Repository, then: str, now: str) -> set[str] | None:
    """The paths of the files that differ between the commits `then` and `now` (the ones the
    index held); None when `then` is gone (a history rewritten)."""
    try:
        return {rel for rel, _ in changed_entries(repo, _tree(repo, then), _tree(repo, now))}
    except (KeyError, ValueError):
        return None


@dataclass(frozen=True)
class _NotesState:
    """What a clean comparison of the notes with their audit lines was made on: the commit the
    index held, each audit part (its blob id, lines, records and last line's hash) and the files
    the index refused then (None: too many to name, or a scope root was cut at the bounds)."""

    commit: str | None
    parts: list[tuple[str, str, int, int, str | None]]
    refused: list[str] | None

    @classmethod
    def of(cls, index: ReadModel, chain: audit.AuditReport) -> _NotesState | None:
        """The state now; None when the parts' verdicts are not one a part (an unread part)."""
        if len(chain.records) != len(chain.parts):
            return None
        parts = [
            (rel, str(blob), verdict.lines, len(verdict.keys), verdict.tail)
            for (rel, blob), verdict in zip(chain.parts, chain.records, strict=True)
        ]
        return cls(index.commit, parts, _refused(index))

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "parts": self.parts, "refused": self.refused}

    @classmethod
    def from_json(cls, value: object) -> _NotesState | None:
        """The state `to_json` kept; None for anything else (every note is compared)."""
        try:
            held = cast(dict[str, Any], value)
            parts = [(str(r), str(b), int(n), int(k), None if t is None else str(t)) for r, b, n, k, t in held["parts"]]
            refused = held["refused"]
            commit = held["commit"]
            return cls(
                None if commit is None else str(commit),
                parts,
                None if refused is None else [str(rel) for rel in refused],
            )
        except (KeyError, TypeError, ValueError):
            return None


def _changed_notes(
    repo: pygit2.Repository, index: ReadModel, chain: audit.AuditReport, held: object, now: _NotesState
) -> list[tuple[str, str, str | None]] | None:
    """The rows to compare (`ReadModel.audited_at`) when a clean comparison was kept on `held`
    (a `_NotesState`): the notes and hot.md files at the paths that changed between the commits
    the index held then and now, and those it refused then or refuses now; None (compare every
    note) unless every audit part then is there with the same lines first, and each record added
    since is of one of those notes (by id) or paths."""
    then = _NotesState.from_json(held)
    if then is None or then.commit is None or now.commit is None or then.refused is None or now.refused is None:
        return None
    was = {rel: (blob, lines, records, tail) for rel, blob, lines, records, tail in then.parts}
    added: set[int] = set()  # the digests of the note ids and paths recorded since
    for (rel, blob, _, _, _), verdict in zip(now.parts, chain.records, strict=True):
        old = was.pop(rel, None)
        if old is not None and old[0] == blob:
            continue
        start = 0
        if old is not None:
            _, lines, records, tail = old
            if verdict.problems or verdict.lines < lines or len(verdict.keys) < records:
                return None
            if lines and verdict.hashes[lines - 1] != digest(tail or ""):
                return None  # the lines there were are not the part's first lines: rewritten
            start = records
        added.update(verdict.keys[start:])
    if was:
        return None  # a part went
    paths = _changed_since(repo, then.commit, now.commit)
    if paths is None:
        return None
    paths |= set(then.refused) ^ set(now.refused)
    rows = index.audited_at(paths)
    if not added <= {digest(note_id) for _, _, note_id in rows if note_id is not None} | {digest(p) for p in paths}:
        return None
    return rows


def _tree(repo: pygit2.Repository, commit: str) -> pygit2.Tree:
    """The tree of `commit` (KeyError, ValueError: no such commit here)."""
    return cast("pygit2.Commit", repo[commit]).tree


def compare_notes(
    store: Store,
    index: ReadModel,
    report: Report,
    last: tuple[audit.LastRecorded, audit.LastRecorded],
    leftovers: Container[str],
    progress: Progress | None = None,
) -> None:
    """Each committed note and hot.md that is not its last audited version (streamed from the
    index; `progress` told how many)."""
    total = index.audited_count() if progress is not None else None
    compare_rows(store, report, last, leftovers, index.audited(), progress, total)


def compare_rows(
    store: Store,
    report: Report,
    last: tuple[audit.LastRecorded, audit.LastRecorded],
    leftovers: Container[str],
    rows: Iterable[tuple[str, str, str | None]],
    progress: Progress | None = None,
    total: int | None = None,
) -> None:
    """Each of `rows` ((path, sha256, note id; None for hot.md), `ReadModel.audited`'s) that is not
    its last audited version (`last`: the audit chain's (`last_by_path`, `last_by_id`), holding at
    least these rows'; `progress` told how many, of `total`)."""
    by_path, by_id = last
    done = 0
    for rel, sha, note_id in rows:
        done += 1
        if progress is not None and done % PROGRESS_STEP == 0:
            progress(done, total)
        if rel in leftovers:
            continue  # the working audit log holds the interrupted write's line: reported above, rolled back
        matched = by_id.matches(note_id, sha) if note_id is not None else by_path.matches(rel, sha)
        if matched is None:
            report.audit_problems.append({"path": shown(store, rel), "code": "NO_AUDIT_RECORD"})
        elif not matched:
            report.audit_problems.append({"path": shown(store, rel), "code": "EDITED_OUTSIDE_TOOL"})
    if progress is not None:
        progress(done, done)


@contextlib.contextmanager
def _reading(report: Report, store: Store, what: str) -> Iterator[None]:
    """Run one check; a git object it cannot read ends that check alone, reported (GIT, or the
    error pygit2 raised for a missing or corrupt object), and the next check runs."""
    try:
        yield
    except Exception as exc:
        if not (isinstance(exc, VaultError) and exc.code == "GIT") and type(exc).__module__ not in (
            "_pygit2",
            "pygit2",
        ):
            raise
        named = exc.details.get("object") if isinstance(exc, VaultError) else _object_in(str(exc))
        report.git_problems.append(
            {
                "path": store.label,
                "code": "CHECK_UNFINISHED",
                "problem": f"{what} could not be checked: git could not read "
                + (f"the object {named[:12]}" if named else "an object it needs"),
                "fix": "restore the damaged objects first (`jacked memory doctor --full` names each one in the "
                "whole history, with its fix), then run doctor again",
            }
        )


def _object_in(message: str) -> str | None:
    """The object id an error message of libgit2 names (never the rest of it: it may quote text)."""
    import re

    found = re.search(r"\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b", message)
    return found.group() if found else None


def temp_files(
    store: Store,
    folders: list[tuple[str, str]] | None = None,
    start: list[str] | None = None,
    known: Container[str] = (),
) -> Iterator[str]:
    """Each of jacked's temp files in the working tree (no dot folder, no symlinked one walked),
    or in the folders `start` and those below them but the `known` ones (each judged by its own
    stamp); `folders` told each folder walked and its `stamp`, taken before it is listed (one
    that is gone is not told)."""
    stack = list(start) if start is not None else [str(store.root)]
    queued = set(stack)  # a changed folder below another is listed once
    while stack:
        path = stack.pop()
        seen = stamp(Path(path))
        try:
            with os.scandir(path) as listing:
                entries = list(listing)
        except OSError:
            continue
        if folders is not None:
            folders.append((path, seen))
        for entry in entries:
            if entry.is_dir():
                if entry.path in known or entry.path in queued or entry.name.startswith(".") or entry.is_symlink():
                    continue
                queued.add(entry.path)
                stack.append(entry.path)
            elif entry.name.startswith(TEMP_PREFIX):
                yield entry.path


def _derived(
    store: Store, index: ReadModel, repo: pygit2.Repository, damaged: frozenset[str]
) -> list[tuple[str, bytes, str]]:
    """`stale_derived`, or its clean verdict kept for the same commit, the same group folders and
    the same index.md files in the working tree (each by `stamp`), until the next moment a
    note's validity starts or ends (`next_change`); or, after a clean verdict on another commit
    still in time, `stale_derived` of the groups whose index.md may have changed since
    (`_changed_groups`)."""
    from jacked_vault.recall.index_md import index_path

    now, head = timestamps.utc_now(), git.head_commit(repo)
    groups: list[str | None] = [None] if store.is_project else [*sorted(_group_folders(store))]
    stamps = [stamp(store.root / index_path(store, group)) for group in groups]
    judged = hashlib.sha256(
        json.dumps(
            [
                str(head.id) if head is not None else None,  # HEAD's index.md files
                index.commit,  # what the index renders
                groups,
                stamps,
            ]
        ).encode()
    ).hexdigest()
    held = kept_for(index.db, DERIVED) if not damaged else None
    value = held[1] if held is not None and isinstance(held[1], dict) else {}
    in_time = held is not None and (value.get("until") is None or now < str(value["until"]))
    if held is not None and held[0] == judged and in_time:
        return []
    state = _DerivedState.of(index, head, groups, stamps)
    since = _changed_groups(store, repo, index, value, state) if in_time else None
    found = stale_derived(store, index, repo, damaged, since[0] if since is not None else None)
    if not found and not damaged:
        if since is None:
            until = next_change(index.db, now)
        else:  # the notes left alone change no sooner than they did: the earlier of theirs and the changed notes'
            moments = [
                str(value["until"]) if value.get("until") is not None else None,
                next_change(index.db, now, since[1]),
            ]
            until = min((moment for moment in moments if moment is not None), default=None)
        keep(index.db, DERIVED, judged, {"until": until, **state.to_json()})
    return found


@dataclass(frozen=True)
class _DerivedState:
    """What a clean verdict on the index.md files was made on: the commit the index rendered (and
    HEAD's), each group folder's index.md by `stamp`, and the files the index refused (None: too
    many to name, or a scope root was cut at the bounds)."""

    commit: str | None
    head: str | None
    stamps: dict[str, str]  # group ("" for the project store's one) -> its index.md's stamp
    refused: list[str] | None

    @classmethod
    def of(
        cls, index: ReadModel, head: pygit2.Commit | None, groups: list[str | None], stamps: list[str]
    ) -> _DerivedState:
        return cls(
            index.commit,
            str(head.id) if head is not None else None,
            {group or "": seen for group, seen in zip(groups, stamps, strict=True)},
            _refused(index),
        )

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "head": self.head, "stamps": self.stamps, "refused": self.refused}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> _DerivedState | None:
        """The state `to_json` kept; None for anything else (every group is judged)."""
        try:
            commit, head, stamps, refused = value["commit"], value["head"], value["stamps"], value["refused"]
            return cls(
                None if commit is None else str(commit),
                None if head is None else str(head),
                {str(group): str(seen) for group, seen in cast(dict[str, Any], stamps).items()},
                None if refused is None else [str(rel) for rel in refused],
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


def _changed_groups(
    store: Store, repo: pygit2.Repository, index: ReadModel, held: dict[str, Any], now: _DerivedState
) -> tuple[set[str | None], set[str]] | None:
    """The groups whose index.md may differ from the one a clean verdict (`held`, a
    `_DerivedState`) judged: a group folder new or gone since, one whose index.md changed in the
    working tree or between the commits, the groups of the notes that changed between them and of the
    notes those link to (before and after: links count in the order); with the paths that changed.
    None (judge every group) when the index or HEAD is not at one commit, or the files the index
    refuses changed other than by those commits."""
    from jacked_vault.document import parse_note
    from jacked_vault.recall.index_md import index_path

    then = _DerivedState.from_json(held)
    if then is None or then.commit is None or now.commit is None or then.refused is None or now.refused is None:
        return None
    if then.head != then.commit or now.head != now.commit:
        return None
    changed = _changed_since(repo, then.commit, now.commit)
    if changed is None:
        return None
    trees = (_tree(repo, then.commit), _tree(repo, now.commit))
    if not (set(then.refused) ^ set(now.refused)) <= changed:
        return None  # a note taken or refused without a commit (a tombstone, a restored object)
    groups: set[str | None] = set()
    targets: set[str] = set()
    for group, seen in now.stamps.items():
        name = group or None
        if then.stamps.get(group) != seen or index_path(store, name) in changed:
            groups.add(name)
    groups.update(group or None for group in then.stamps.keys() - now.stamps.keys())  # a folder gone since
    for rel in changed:
        placed = classify_note(store, rel)
        if placed is None:
            continue
        groups.add(placed[1] if placed[0] == "group" else None)
        for tree in trees:
            try:
                blob = tree[rel]
                targets.update(parse_note(cast("pygit2.Blob", blob).data, source=rel, checked=True).links)
            except (KeyError, VaultError):
                continue  # not in that tree, or no note the index took
    groups.update(index.groups_of(targets))
    return ({None} if store.is_project and groups else groups), changed


def _group_folders(store: Store) -> set[str]:
    """The group folders the working tree holds (each has an index.md, or is to have one)."""
    with contextlib.suppress(OSError):
        return {
            e.name
            for e in os.scandir(store.root / GROUPS_DIR)
            if e.is_dir(follow_symlinks=False) and SLUG_RE.fullmatch(e.name)
        }
    return set()


def stale_derived(
    store: Store,
    index: ReadModel,
    repo: pygit2.Repository,
    damaged: Container[str] = frozenset(),
    only: set[str | None] | None = None,
) -> list[tuple[str, bytes, str]]:
    """(path, expected bytes, state) for each index.md that the working tree or HEAD has wrong
    (HEAD's is not read where its blob is `damaged`), of the groups in `only` when given; one a
    sparse checkout leaves out is for the checkouts that hold its group."""
    from jacked_vault.recall.index_md import SHARED, index_path, render_index

    if store.is_project:
        groups: set[str | None] = {None}
    else:
        groups = set(index.note_groups())
        groups.update(_group_folders(store))
    if only is not None:
        groups &= only
    out = []
    hidden = git.skip_worktree(store.root)
    for group in sorted(groups, key=str):
        rel = index_path(store, group)
        if rel in hidden:
            continue
        expected = render_index(index, store, group)
        try:
            working = fsio.read_optional(store.root, rel, max_bytes=1 << 20)
        except VaultError:
            working = b""  # a symlink or not a file: regenerate (repair replaces the entry itself)
        committed = git.tree_blob(repo, rel) if rel not in damaged else expected  # damaged: said by check_git
        if working is None and not index.group_index(group, 1, SHARED)[1] and committed is None:
            continue  # a group folder with nothing to list needs no index.md
        if working != expected:
            out.append((rel, expected, "stale" if working is not None else "missing"))
        elif committed != expected:
            out.append((rel, expected, "uncommitted"))
    return out
