"""Damaged git objects, each named by its id and path with the command that restores it
(`problem`), and git's own `git fsck` over the whole history (`fsck`, for `doctor --full`).

A loose object can be written again once its damaged file is moved out of the way: from the
working file when that is the very version (its git hash is the object's id), else from another
clone that has it (`git cat-file` there piped into `git hash-object -w` here). An object in a
damaged pack cannot be mended in place (git keeps reading the pack), so the advice is the honest
one: restore the vault from another clone or a backup.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store import gitfiles
from jacked_vault.store.gitfiles import child_env
from jacked_vault.store.layout import Store, classify_path

if TYPE_CHECKING:
    import pygit2

CODE = "OBJECTS_MISSING_OR_CORRUPT"
OTHER_CLONE = "OTHER_CLONE"  # the placeholder a fix names another clone by
MAX_FSCK_FINDINGS = 200  # objects (and other lines) of one `git fsck` reported


@dataclass(frozen=True)
class Damaged:
    """One git object that cannot be read as it should."""

    oid: str  # its full id
    rel: str | None  # the path the tree holds it at ("": the top folder; None: a commit, or not known)
    kind: str | None  # blob, tree, commit, tag (None: not known)
    state: str  # missing, corrupt, truncated, malformed
    where: str = "head"  # head (the current tree), history (a branch's earlier commits), nowhere (no branch's
    # history holds it: read to its end), unknown (the history could not be read to its end)
    pack: str | None = None  # the pack file git found it damaged in
    detail: str = ""  # git fsck's reason for a malformed object


def problem(store: Store, item: Damaged, where: str, *, held_back: bool = False) -> dict[str, Any]:
    """The report's entry for one damaged object (`where`: its path as doctor shows paths): what it
    is, and the fix."""
    if item.kind == "blob" and item.rel:
        what = f"the file {item.rel}"
    elif item.kind == "tree" and item.rel is not None:
        what = f"the folder {item.rel or '(top)'}"
    else:
        what = f"a {item.kind}" if item.kind else "an object"
    what += {"head": "", "history": " in history", "nowhere": ", which no branch's history holds", "unknown": ""}[
        item.where
    ]
    state = {"truncated": "truncated (corrupt)", "malformed": f"malformed ({item.detail})"}.get(item.state, item.state)
    text = f"git object {item.oid[:12]} ({what}) is {state}"
    if held_back:
        text += "; the store's other checks wait until it is restored (reading them could fail or never end)"
    code = "FSCK" if item.state == "malformed" else CODE  # readable, only against git's rules
    return {"path": where, "code": code, "object": item.oid, "problem": text, "fix": _fix(store, item)}


def _fix(store: Store, item: Damaged) -> str:
    root = shlex.quote(str(store.root))
    loose = _loose_path(store, item.oid)
    if item.state == "malformed":
        return (
            "git reads it, but its own rules refuse it (another tool wrote it), so a strict server may refuse a "
            "push holding it: restore the vault from another clone or a backup made before it"
        )
    if loose is None and item.state != "missing":
        pack = f" ({item.pack})" if item.pack else ""
        return (
            f"it is in a damaged pack file{pack}, which git cannot mend in place: restore the vault from another "
            "clone (`jacked memory init --from URL` into a new folder, then bring over what this one had not "
            "pushed) or from a backup"
        )
    steps = []
    if loose is not None:  # git never writes an object again while its damaged file is there
        moved = _git_dir(store) / f"damaged-object-{item.oid[:12]}"
        steps.append(f"mv {shlex.quote(str(loose))} {shlex.quote(str(moved))}")
        if item.where == "nowhere":
            return f"nothing needs it: `{steps[0]}`"
    if _working_copy_is(store, item):
        steps.append(f"git -C {root} hash-object -w -- {shlex.quote(item.rel or '')}")
        return f"the working file is that version: `{' && '.join(steps)}`"
    kind = item.kind or f"$(git -C {OTHER_CLONE} cat-file -t {item.oid})"
    steps.append(f"git -C {OTHER_CLONE} cat-file {kind} {item.oid} | git -C {root} hash-object -t {kind} -w --stdin")
    return (
        f"`{' && '.join(steps)}`, where {OTHER_CLONE} is another clone of the vault that has it (a teammate's, or "
        "a fresh `git clone` of the remote if it was pushed); without one, restore the vault from a backup"
    )


def _git_dir(store: Store) -> Path:
    """The repository's own folder (a linked worktree's common one: where the objects are)."""

    found = gitfiles.git_dir(store.root)
    return gitfiles.common_dir(found) if found is not None else store.root / ".git"


def _loose_path(store: Store, oid: str) -> Path | None:
    path = _git_dir(store) / "objects" / oid[:2] / oid[2:]
    return path if os.path.lexists(path) else None


def _working_copy_is(store: Store, item: Damaged) -> bool:
    """Whether the working file at the object's path is that very blob (git's hash of it is the id)."""
    import pygit2

    from jacked_vault.store.gate import cap_for

    if item.kind != "blob" or not item.rel:
        return False
    try:
        data = fsio.read_optional(store.root, item.rel, max_bytes=cap_for(classify_path(store, item.rel)))
    except (OSError, VaultError):  # unreadable, a symlink, over its cap: not that blob
        return False
    return data is not None and str(pygit2.hash(data)) == item.oid


# -- git fsck ------------------------------------------------------------------------------------

_OID = r"(?P<oid>[0-9a-f]{40}(?:[0-9a-f]{24})?)"
_KIND = r"(?P<kind>blob|tree|commit|tag)"
_FOUND = [  # (a line of `git fsck`, what it says of the object it names)
    (re.compile(rf"^error: corrupt loose object '{_OID}'"), "corrupt"),
    (re.compile(rf"^error: {_OID}: object corrupt or missing"), "corrupt"),
    (re.compile(rf"^error: (?:index CRC mismatch for object|cannot unpack) {_OID} from (?P<pack>\S+)"), "corrupt"),
    (re.compile(rf"^error: (?:sha1|hash) mismatch for \S+ \(expected {_OID}\)"), "corrupt"),
    (re.compile(rf"^missing {_KIND} {_OID}"), "missing"),
    (re.compile(rf"^error in {_KIND} {_OID}: (?P<detail>[A-Za-z]+)"), "malformed"),
]
_LINK_FROM = re.compile(rf"^broken link from\s+tree {_OID}")
_LINK_TO = re.compile(rf"^\s+to\s+{_KIND} {_OID}")
_PACK = re.compile(r"^error: (?P<pack>\S+\.pack) pack checksum mismatch")
_SAID_ELSEWHERE = re.compile(  # the same damage in other words (or a broken link: the missing object is named)
    r"^(?:error: inflate:|error: unable to unpack|error: failed to unpack|error: delta data|broken link from)"
)
_RANK = {"malformed": 0, "missing": 1, "truncated": 2, "corrupt": 2}


@dataclass
class FsckResult:
    damaged: list[Damaged]
    other: list[str]  # what git fsck said that names no object (a damaged pack's checksum, …)


def fsck(store: Store, repo: pygit2.Repository) -> FsckResult:
    """`git fsck --full` over every object of the store (git's own CLI, the repository variables a
    hook sets dropped: `store.git.child_env`); each object it names, with the path a branch's
    history holds it at (`git rev-list --objects --all`; a missing one through the folder that
    names it)."""

    try:
        proc = subprocess.run(
            ["git", "-C", str(store.root), "fsck", "--full", "--no-dangling", "--no-progress"],
            capture_output=True,
            text=True,
            errors="replace",
            env=child_env({"LC_ALL": "C"}),
            check=False,
        )
    except OSError as exc:
        return FsckResult([], [f"git fsck could not run ({exc.strerror})"])
    found: dict[str, Damaged] = {}
    parents: dict[str, str] = {}  # a missing object -> the tree that names it
    other: list[str] = []
    linked_from = None
    for line in (proc.stdout + proc.stderr).splitlines():
        item = _read_line(line)
        if item is not None:
            known = found.get(item.oid)
            if known is not None:
                item = replace(
                    item if _RANK[item.state] > _RANK[known.state] else known,
                    kind=known.kind or item.kind,
                    pack=known.pack or item.pack,
                )
            found[item.oid] = item
        elif (link := _LINK_FROM.match(line)) is not None:
            linked_from = link["oid"]
        elif (link := _LINK_TO.match(line)) is not None and linked_from is not None:
            parents.setdefault(link["oid"], linked_from)
        elif (pack := _PACK.match(line)) is not None:
            other.append(f"the pack file {pack['pack']} does not match its checksum: it is damaged")
        elif line.startswith(("error", "fatal")) and not _SAID_ELSEWHERE.match(line):
            other.append(line.removeprefix("error: ").removeprefix("fatal: ")[:300])
    if proc.returncode != 0 and not found and not other:
        other.append(f"git fsck failed (exit {proc.returncode}) without naming an object")
    items = list(found.values())[:MAX_FSCK_FINDINGS]
    held, complete = _history_paths(
        store, {item.oid for item in items} | {parents[i.oid] for i in items if i.oid in parents}
    )
    out = []
    for item in items:
        rel = held.get(item.oid)
        folder = held.get(parents.get(item.oid, ""))
        if rel is None and folder is not None:
            rel = _named_in(repo, parents[item.oid], item.oid, folder)
        where = "history" if rel is not None or item.oid in held else "nowhere" if complete else "unknown"
        out.append(replace(item, rel=rel, where=where))
    said = [line for line in dict.fromkeys(other) if not any(item.oid in line for item in items)]
    return FsckResult(out, [f"git fsck: {line}" for line in said[:MAX_FSCK_FINDINGS]])


def _read_line(line: str) -> Damaged | None:
    for pattern, state in _FOUND:
        match = pattern.match(line)
        if match is not None:
            said = match.groupdict()
            detail = said.get("detail") or ""
            return Damaged(said["oid"], None, said.get("kind"), state, pack=said.get("pack"), detail=detail)
    return None


def _named_in(repo: pygit2.Repository, tree_id: str, oid: str, at: str) -> str | None:
    """The path of `oid` as an entry of the tree `tree_id` (itself at `at`), or None."""
    try:
        for entry in cast("pygit2.Tree", repo[tree_id]):  # not a tree: the except below
            if str(entry.id) == oid:
                return f"{at}/{entry.name}" if at else entry.name
    except Exception:  # pygit2: the tree cannot be read either
        return None
    return None


def _history_paths(store: Store, oids: Iterable[str]) -> tuple[dict[str, str | None], bool]:
    """(oid -> the path some commit of a branch holds it at ("" for a top folder, None for a
    commit), for each of `oids` a branch's history holds; whether that history was read to its
    end, so an object not found is in none of it). Read from `git rev-list --objects --all`
    (going on past missing objects; a corrupt one stops it), stopped once all are found."""

    wanted = set(oids)
    out: dict[str, str | None] = {}
    if not wanted:
        return out, True
    proc = subprocess.Popen(
        ["git", "-C", str(store.root), "rev-list", "--objects", "--all", "--missing=allow-any"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        errors="replace",
        env=child_env({"LC_ALL": "C"}),
    )
    try:
        assert proc.stdout is not None, "stdout is a pipe"
        for line in proc.stdout:
            oid, named, rel = line.rstrip("\n").partition(" ")
            if oid in wanted:
                out[oid] = rel if named else None
                wanted.discard(oid)
                if not wanted:
                    break
    finally:
        if wanted:  # read to its end (or its failure): how it ended says whether it was all read
            complete = proc.wait() == 0
        else:
            proc.kill()
            proc.wait()
            complete = True
        if proc.stdout is not None:
            proc.stdout.close()
    return out, complete
