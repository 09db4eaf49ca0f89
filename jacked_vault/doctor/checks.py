"""The checks `doctor` runs on one store; each finding names its path and the fix."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Container
from dataclasses import dataclass

from jacked_vault.doctor.report import Report
from jacked_vault.document.model import SLUG_RE
from jacked_vault.errors import VaultError
from jacked_vault.search.index import SearchIndex
from jacked_vault.store import audit, git
from jacked_vault.store.layout import GROUPS_DIR, Store, classify_note, classify_path

TEMP_PREFIX = ".jacked-tmp-"
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

    def to_json(self, store: Store) -> dict:
        out = {"path": shown(store, self.rel), "state": self.state, "kind": self.kind, "repair": self.action}
        if self.problem:
            out["problem"] = self.problem
        return out


def working_tree_changes(store: Store, repo) -> list[tuple[str, str]]:
    """(path, new|modified|missing) for every working-tree file that differs from HEAD. git status
    finds the candidates (`git.status_changes`: the git CLI, streamed); each is then compared with
    HEAD itself, so a git index a kill left behind (a commit landed, its index write did not) is
    no working-tree change: it is `git_index_stale`. A path a sparse checkout leaves out
    (skip-worktree) is present and unchanged, as git says; an unmerged path is left to git."""
    out = []
    for rel, code in sorted(git.status_changes(store.root)):
        if "U" in code or code in ("AA", "DD"):
            continue  # unmerged
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


def _same_as_head(store: Store, repo, rel: str) -> bool:
    """Whether the working tree holds exactly what HEAD holds at `rel` (both nothing counts; a
    symlink or anything unreadable never does)."""
    from jacked_vault.document import MAX_FILE_BYTES

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
    repo,
    rel: str,
    state: str,
    chain: audit.AuditReport,
    tombstoned,
    leftovers: Container[str] = frozenset(),
) -> Stray:
    """Decide what repair does with one changed working-tree file (through the gate). `leftovers`:
    the paths rolling back an interrupted write puts back (`write.transaction.interrupted`): such
    a file is that write's, never a hand edit."""
    from jacked_vault.document import MAX_FILE_BYTES
    from jacked_vault.safety import fsio
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


def check_git(repo, store: Store, report: Report) -> bool:
    """HEAD resolves, and every object HEAD's tree needs is there and sound (bounded); on the way,
    the committed files outside the vault layout are counted (the index never reads them). False
    when the store's objects cannot be trusted: nothing else of it is read then (a damaged object
    can fail or, in libgit2, hang every reader)."""
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
        return False
    if commit is None:
        return True
    walk = walk_head(repo, commit, store)
    report.outside_layout += [
        store.display(rel, scope_of(store, rel))
        for rel in walk.outside[: MAX_OUTSIDE_SHOWN - len(report.outside_layout)]
    ]
    report.outside_layout_count += walk.outside_count
    if walk.damaged:
        wait = (
            "; the store's other checks wait until they are restored (reading them could fail or never end)"
            if walk.unsafe
            else ""
        )
        report.git_problems.append(
            {
                "path": store.label,
                "code": "OBJECTS_MISSING_OR_CORRUPT",
                "problem": f"{len(walk.damaged)} git object(s) of the current tree are missing or corrupt, e.g. "
                           f"{walk.damaged[0]}{wait}",
                "fix": f"restore them from the remote (`git -C {store.root} fetch origin` then `jacked memory doctor "
                       "--reindex`), "
                "or from a backup of the vault",
            }
        )
    return not walk.unsafe


@dataclass
class HeadWalk:
    """What one pass over HEAD's tree found."""

    damaged: list[str]  # short ids of missing or corrupt objects
    unsafe: bool  # a damaged tree, or a truncated loose object: reading the store would fail or hang
    outside: list[str]  # the first committed paths outside the layout (MAX_OUTSIDE_SHOWN)
    outside_count: int
    complete: bool  # False: MAX_OBJECTS_CHECKED was reached first


def walk_head(repo, commit, store: Store) -> HeadWalk:
    """Every object of HEAD's tree, checked as `git fsck` checks it (bounded): a loose object is
    inflated and hashed here before libgit2 reads it (libgit2 1.9 never returns from some
    truncated ones), a packed one is read in full by libgit2. Each file's path is classified on the
    way: one outside the layout is never indexed, so only this walk can see it."""
    from pathlib import Path

    objects = Path(repo.path) / "objects"
    damaged: list[str] = []
    unsafe = False
    outside: list[str] = []
    count = 0
    stack: list[tuple[object, str]] = [(commit.tree_id, "")]
    seen = 0
    while stack and seen < MAX_OBJECTS_CHECKED:
        oid, prefix = stack.pop()
        seen += 1
        if _sound(repo, objects, oid) != "ok":
            damaged.append(str(oid)[:12])
            unsafe = True  # every reader walks the trees: one that cannot be read stops them all
            continue
        for entry in repo[oid]:
            rel = f"{prefix}{entry.name}"
            if entry.filemode == 0o040000:
                stack.append((entry.id, rel + "/"))
                continue
            if classify_path(store, rel) is None:
                count += 1
                if len(outside) < MAX_OUTSIDE_SHOWN:
                    outside.append(rel)
            if entry.filemode == 0o160000:
                continue  # a submodule: its commit lives in another repository
            seen += 1
            state = _sound(repo, objects, entry.id, blob=True)
            if state != "ok":
                damaged.append(str(entry.id)[:12])
                unsafe |= state == "truncated"
    return HeadWalk(damaged, unsafe, sorted(outside), count, not stack)


def _sound(repo, objects, oid, *, blob: bool = False) -> str:
    """`ok`, `bad` (missing or corrupt: libgit2 says so when it is read) or `truncated` (a loose
    object whose zlib stream ends early: libgit2 1.9 never returns from reading it)."""
    hexsha = str(oid)
    loose = objects / hexsha[:2] / hexsha[2:]
    if os.path.lexists(loose):
        return _loose_object_state(loose, hexsha)  # never read through libgit2 when it is bad
    try:
        obj = repo[oid]
        if blob:
            obj.read_raw()
    except Exception:  # KeyError (missing) or GitError (corrupt pack data)
        return "bad"
    return "ok"


def _loose_object_state(path, hexsha: str) -> str:
    """`ok` when a loose object inflates completely, with nothing after its zlib stream, to
    `<type> <size>\\0` and exactly that many bytes, which hash to its name (git fsck's checks);
    `truncated` when its stream ends early; `bad` otherwise."""
    import hashlib
    import zlib

    digest = hashlib.sha256() if len(hexsha) == 64 else hashlib.sha1()
    inflate = zlib.decompressobj()
    header = b""
    size = None
    got = 0
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 16):
                if inflate.eof:
                    return "bad"  # garbage after the object
                out = inflate.decompress(chunk)
                if size is None:
                    header += out
                    if b"\0" not in header:
                        if len(header) > 64:
                            return "bad"
                        continue
                    head, _, out = header.partition(b"\0")
                    kind, _, length = head.partition(b" ")
                    if kind not in (b"blob", b"tree", b"commit", b"tag") or not length.isdigit():
                        return "bad"
                    size = int(length)
                    digest.update(head + b"\0")
                got += len(out)
                if got > size:
                    return "bad"
                digest.update(out)
    except (OSError, zlib.error):
        return "bad"
    if not inflate.eof:
        return "truncated"
    return (
        "ok" if not inflate.unused_data and size is not None and got == size and digest.hexdigest() == hexsha else "bad"
    )


def check_store(store: Store, index: SearchIndex, repo, report: Report) -> None:
    """Everything doctor knows about one store, except repair."""
    from jacked_vault.store.gate import quarantine_records
    from jacked_vault.write.transaction import interrupted

    diag = index.diagnostics()
    report.memory_count += index.count()
    for path, code, message in index.problems():
        if code == "SYMLINK":
            report.skipped_symlinks.append(shown(store, path))
        else:
            report.invalid_files.append(
                {"path": shown(store, path), "code": code, "problem": message.removeprefix(f"{path}: ")}
            )
    report.truncated |= diag.truncated
    changes = working_tree_changes(store, repo)
    chain = audit.verify(store.root)
    leftovers = interrupted(store, repo)
    for rel, state in changes:
        if os.path.islink(store.root / rel):
            report.skipped_symlinks.append(shown(store, rel))
            continue
        stray = judge(store, repo, rel, state, chain, index.tombstoned, leftovers)
        if stray.kind == "index":
            continue
        report.uncommitted.append(stray.to_json(store))
    report.audit_problems += [{**p, "path": store.display(p["path"], store.label)} for p in chain.problems]
    report.audit_problems += [
        {**p, "path": store.display(p["path"], store.label)} for p in audit.verify_trailers(repo, chain)
    ]
    for rel, sha, note_id in index.audited():
        if rel in leftovers:
            continue  # the working audit log holds the interrupted write's line: reported above, rolled back
        last = chain.last_by_id.matches(note_id, sha) if note_id is not None else chain.last_by_path.matches(rel, sha)
        if last is None:
            report.audit_problems.append({"path": shown(store, rel), "code": "NO_AUDIT_RECORD"})
        elif not last:
            report.audit_problems.append({"path": shown(store, rel), "code": "EDITED_OUTSIDE_TOOL"})
    config = git.tree_blob(repo, "vault.json") if not store.is_project else None
    if config is not None and chain.last_by_path.matches("vault.json", audit.content_hash(config)) is False:
        report.audit_problems.append({"path": store.display("vault.json", store.label), "code": "EDITED_OUTSIDE_TOOL"})
    report.stale_temp_files += sum(1 for _ in temp_files(store))
    report.derived_stale += [
        {"path": store.display(rel, store.label), "state": state} for rel, _, state in stale_derived(store, index, repo)
    ]
    report.git_index_stale += [shown(store, p) for p in git.index_out_of_step(repo)]
    report.stale_git_locks += [store.display(p, store.label) for p in git.stale_git_locks(store.root)]
    report.quarantine += [{**r, "store": store.label} for r in quarantine_records(store, limit=50)]
    report.unproven_reviews += [{"path": shown(store, rel), "id": note_id} for rel, note_id in index.unproven_reviews()]


def temp_files(store: Store):
    for dirpath, dirnames, filenames in os.walk(store.root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.startswith(TEMP_PREFIX):
                yield os.path.join(dirpath, name)


def stale_derived(store: Store, index: SearchIndex, repo) -> list[tuple[str, bytes, str]]:
    """(path, expected bytes, state) for each index.md that the working tree or HEAD has wrong;
    one a sparse checkout leaves out is for the checkouts that hold its group."""
    from jacked_vault.recall.index_md import SHARED, index_path, render_index
    from jacked_vault.safety import fsio

    if store.is_project:
        groups: set[str | None] = {None}
    else:
        groups = set(index.notes_per_group())
        with contextlib.suppress(OSError):
            groups |= {
                e.name
                for e in os.scandir(store.root / GROUPS_DIR)
                if e.is_dir(follow_symlinks=False) and SLUG_RE.fullmatch(e.name)
            }
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
        if working is None and not index.group_index(group, 1, SHARED)[1] and git.tree_blob(repo, rel) is None:
            continue  # a group folder with nothing to list needs no index.md
        if working != expected:
            out.append((rel, expected, "stale" if working is not None else "missing"))
        elif git.tree_blob(repo, rel) != expected:
            out.append((rel, expected, "uncommitted"))
    return out
