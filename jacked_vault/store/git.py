"""Git plumbing with pygit2: commits by tree surgery, so a create costs O(depth), not O(notes).

`fast_head` and `require_branch` read HEAD from git's files (`store.gitfiles`) so read-only paths
(search, brief) can tell whether the search index is current without importing pygit2.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from jacked_vault.errors import VaultError
from jacked_vault.store import gitfiles
from jacked_vault.store.digests import Digests
from jacked_vault.store.gitfiles import child_env
from jacked_vault.store.layout import state_dir

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.store.digests import Digests

# `_tree_with_changes`'s edits: name -> blob id, None (remove), or the edits of a subtree.
_Changes: TypeAlias = "dict[str, pygit2.Oid | _Changes | None]"

DEFAULT_AUTHOR = ("jacked-vault", "jacked-vault@localhost")
BRANCH = "main"


def _git_dir(root: Path) -> Path:
    return gitfiles.git_dir(root) or root / ".git"


def fast_head(root: Path) -> str | None:
    """The commit id HEAD points at, from git's files (`gitfiles`, no pygit2); None for an unborn
    branch."""
    return gitfiles.head_commit(root)


def require_branch(root: Path) -> str:
    """The branch HEAD is on; GIT when HEAD is detached, because a commit there belongs to no
    branch: sync would never push it and a checkout would strand it."""
    branch = gitfiles.branch(root)
    if branch is not None:
        return branch
    if gitfiles.head(root) is None:
        raise VaultError("GIT", f"{root}/.git/HEAD cannot be read; run `jacked memory doctor`")
    raise VaultError(
        "GIT",
        f"the vault's HEAD is detached, so a commit would belong to no branch; nothing was written. "
        f"Check out its branch first: `git -C {root} checkout {BRANCH}`",
    )


_OPEN = threading.local()


def open_repo(root: Path) -> pygit2.Repository:
    """The repository at `root`, kept open per thread: a long-lived process (the MCP server, a
    drain) then reuses libgit2's loaded git index, which it re-reads only when the file changed."""
    import pygit2

    cache = _OPEN.__dict__.setdefault("repos", {})
    key = str(root)
    repo = cache.get(key)
    if repo is not None and os.path.isdir(os.path.join(key, ".git")):
        return repo
    try:
        repo = pygit2.Repository(key)
    except pygit2.GitError as exc:
        raise VaultError("NO_VAULT", f"{root} is not a git repository ({exc})") from None
    cache[key] = repo
    return repo


def init_repo(root: Path) -> pygit2.Repository:
    import pygit2

    return pygit2.init_repository(str(root), initial_head=BRANCH)


def signature(repo: pygit2.Repository, author: Mapping[str, str] | None = None) -> pygit2.Signature:
    """Author from vault settings, else git config, else the jacked default."""
    import pygit2

    if author and author.get("name") and author.get("email"):
        return pygit2.Signature(author["name"], author["email"])
    try:
        return repo.default_signature
    except (KeyError, pygit2.GitError):
        return pygit2.Signature(*DEFAULT_AUTHOR)


def _tree_with_changes(repo: pygit2.Repository, tree: pygit2.Tree | None, changes: _Changes) -> pygit2.Oid:
    """A copy of `tree` with `changes` (name -> blob id, None = remove, or a dict for a subtree).

    Each touched tree is rebuilt once, so a commit of many files in one folder costs one rebuild
    of that folder, not one per file; untouched subtrees are never read. A subtree left empty by
    removals is dropped.
    """
    import pygit2

    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    for name, change in changes.items():
        if isinstance(change, dict):
            subtree = None
            if tree is not None and name in tree:
                entry = tree[name]
                if entry.type_str == "tree":
                    subtree = repo[entry.id].peel(pygit2.Tree)
            child = _tree_with_changes(repo, subtree, change)
            if len(repo[child].peel(pygit2.Tree)) == 0:
                if builder.get(name) is not None:
                    builder.remove(name)
            else:
                builder.insert(name, child, pygit2.GIT_FILEMODE_TREE)
        elif change is not None:
            builder.insert(name, change, pygit2.GIT_FILEMODE_BLOB)
        elif builder.get(name) is not None:
            builder.remove(name)
    return builder.write()


def head_commit(repo: pygit2.Repository) -> pygit2.Commit | None:
    """The commit HEAD points at (None for an unborn branch); GIT, with the fix, when HEAD's
    branch names a commit that is missing or unreadable."""
    import pygit2

    try:
        if repo.head_is_unborn:
            return None
        return repo.head.peel(pygit2.Commit)
    except (pygit2.GitError, KeyError, ValueError):
        root = repo.workdir.rstrip("/") if repo.workdir else repo.path
        raise VaultError(
            "GIT",
            f"the vault's branch points at a commit that is missing or unreadable; nothing was changed. "
            f"Find the last good commit with `git -C {root} reflog`, then `git -C {root} update-ref HEAD <commit>` "
            f"(or restore the vault from its remote); `jacked memory doctor` checks the rest",
        ) from None


def tree_with_files(repo: pygit2.Repository, tree: pygit2.Tree | None, files: Mapping[str, bytes | None]) -> pygit2.Oid:
    """A copy of `tree` (or an empty tree) with `files` (path -> bytes, None = removed): O(depth) per file."""
    changes: _Changes = {}
    for rel, data in files.items():
        *dirs, name = rel.split("/")
        node = changes
        for part in dirs:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[name] = repo.create_blob(data) if data is not None else None
    return _tree_with_changes(repo, tree, changes)


def commit_files(
    repo: pygit2.Repository,
    files: Mapping[str, bytes | None],
    message: str,
    *,
    author: Mapping[str, str] | None = None,
    sign: bool = False,
) -> str:
    """Commit `files` (store-relative path -> content already on disk) on top of HEAD.

    A value of None removes that path from the tree and the git index (the file is already gone).

    The new tree is built from the parent tree (TreeBuilder on the changed paths only) and the
    branch moves only if HEAD is still the parent (libgit2 checks), so no commit is ever lost.
    The git index is updated for the same paths so `git status` in the store stays clean.
    `sign`: the person's git signs the commit (`git commit-tree -S`, their signing setup).
    """
    import pygit2

    parent = head_commit(repo)
    tree_id = tree_with_files(repo, parent.tree if parent is not None else None, files)
    sig = signature(repo, author)
    parents = [parent.id] if parent is not None else []
    with _commit_marker(Path(repo.workdir)):
        try:
            if sign:
                oid = _signed_commit(repo, tree_id, parents, message, sig)
            else:
                oid = str(repo.create_commit("HEAD", sig, sig, message, tree_id, parents))
        except (pygit2.GitError, OSError) as exc:
            raise VaultError(
                "LOCKED",
                f"git refused the commit ({exc}); nothing was committed. If no git process is running, "
                "`jacked memory doctor --repair` removes stale git lock files",
            ) from None
        _stage(Path(repo.workdir), list(files))
    return oid


def _stage(root: Path, paths: list[str]) -> None:
    """Bring the git index to the working files of `paths` (a removed one leaves it) so `git status`
    in the store stays clean. git's own `update-index` does it: libgit2 parses and rewrites the whole
    index slower (interleaved, loaded machine: 43 vs 17 ms wall at 10k notes, 308 vs 101 ms at 100k)."""
    import subprocess

    env = child_env()
    # the commit landed either way; doctor reports a stale git index and --repair resyncs it
    with suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["git", "-C", str(root), "update-index", "--add", "--remove", "-z", "--stdin"],
            input="\0".join(paths).encode() + b"\0", env=env, capture_output=True, timeout=120, check=False,
        )  # fmt: skip


def signs_commits(repo: pygit2.Repository) -> bool:
    """Whether the person's git is set up to sign commits (`user.signingkey`, or `commit.gpgsign`)."""
    config = repo.config
    try:
        if config["user.signingkey"]:
            return True
    except KeyError:
        pass
    try:
        return config.get_bool("commit.gpgsign")
    except (KeyError, ValueError):
        return False


def _signed_commit(
    repo: pygit2.Repository,
    tree_id: pygit2.Oid,
    parents: Sequence[pygit2.Oid | str],
    message: str,
    sig: pygit2.Signature,
) -> str:
    """A commit made and signed by the person's own git (`commit-tree -S`), then the branch moved
    to it only if it still points at the parent (`update-ref NEW OLD`)."""
    import subprocess

    root = repo.workdir.rstrip("/")
    env = child_env(
        {
            "GIT_AUTHOR_NAME": sig.name,
            "GIT_AUTHOR_EMAIL": sig.email,
            "GIT_COMMITTER_NAME": sig.name,
            "GIT_COMMITTER_EMAIL": sig.email,
        }
    )
    args = [
        "git",
        "-C",
        root,
        "commit-tree",
        "-S",
        str(tree_id),
        *[a for p in parents for a in ("-p", str(p))],
        "-F",
        "-",
    ]
    made = subprocess.run(args, input=message, capture_output=True, text=True, env=env, timeout=120)
    if made.returncode != 0:
        why = " ".join(made.stderr.split())[:300] or f"exit {made.returncode}"
        raise VaultError(
            "GIT",
            f"your git could not sign the commit ({why}); nothing was committed. Check your signing setup "
            f"(`git -C {root} commit-tree -S` must work: user.signingkey, gpg.format)",
        )
    oid = made.stdout.strip()
    moved = subprocess.run(
        [
            "git",
            "-C",
            root,
            "update-ref",
            "-m",
            "jacked: signed commit",
            "HEAD",
            oid,
            str(parents[0]) if parents else "",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    if moved.returncode != 0:
        raise VaultError("LOCKED", "the vault moved while the signed commit was made; nothing was committed, try again")
    return oid


def merge_histories(repo: pygit2.Repository, ours: pygit2.Oid | str, theirs: pygit2.Oid | str) -> pygit2.Index:
    """The one merge of two histories of a vault (sync's, a join's): files are paired by path only,
    never by content (no rename or copy detection), so a forgotten note's file is never taken for
    another note created meanwhile (issue 32.1). The index may hold conflicts: `sync.merge` settles
    them."""
    import pygit2

    return repo.merge_commits(ours, theirs, flags=pygit2.enums.MergeFlag(0))


def advance_to(repo: pygit2.Repository, commit_id: pygit2.Oid | str, expected_head: pygit2.Oid) -> None:
    """Check out `commit_id` and move the current branch to it, if HEAD is still `expected_head`.

    git's own two-tree `read-tree -m -u` does the checkout: the safe one (a local change or an
    untracked file it would overwrite stops it, SYNC, before anything moves), which updates git's
    index to the new tree so `git status` stays clean, and keeps what sparse-checkout patterns
    leave out out (libgit2 cannot check a sparse checkout out; it also took 2.4x git's time for
    10k arriving notes: 0.88 vs 0.36 s). Then the branch moves only if it still names
    `expected_head` (`update-ref NEW OLD`).
    """
    head = head_commit(repo)
    if head is None or head.id != expected_head:
        raise VaultError("SYNC", "the vault changed while syncing; nothing was moved: run sync again")
    _git_checkout(Path(repo.workdir), str(expected_head), str(commit_id))


def _git_checkout(root: Path, old: str, new: str) -> None:
    """git's `read-tree -m -u OLD NEW` in `root`, then HEAD's branch moved from `old` to `new`.
    git's index is refreshed first (`update-index --refresh`, as git's own porcelain does): a
    file rewritten with the same bytes (an atomic write is a new inode) is not a local change."""
    import subprocess

    with _commit_marker(root):
        refresh = ["git", "-C", str(root), "update-index", "-q", "--refresh"]
        # its exit status says some file differs: read-tree then decides whether that is in the way
        subprocess.run(refresh, capture_output=True, check=False, env=child_env())
        for args in (["read-tree", "-m", "-u", old, new], ["update-ref", "HEAD", new, old]):
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, check=False, env=child_env()
            )
            if done.returncode != 0:
                raise VaultError(
                    "SYNC",
                    f"git could not update the working tree ({' '.join(done.stderr.split())[:200]}); "
                    "nothing was moved. "
                    "Uncommitted files are in the way: run `jacked memory doctor --repair`, then sync again",
                )


@contextmanager
def checking_out(root: Path, commit_id: str) -> Iterator[None]:
    """Check out `commit_id` into the new repository at `root` (no working file and no git index
    yet: a `clone --no-checkout`) while the caller's block runs, and wait for it at the end.

    git's own `read-tree --reset -u` does it (the working files and git's index), in a child of
    its own, so on a second core, with no hook run. SYNC, naming git's words, when it fails; when
    the block raises, git is stopped (the caller removes the folder)."""
    import subprocess

    from jacked_vault.store.children import tethered

    argv = ["git", "-C", str(root), "-c", f"core.hooksPath={os.devnull}", "read-tree", "--reset", "-u", commit_id]
    quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE}
    with tethered(argv, env=child_env(), **quiet) as proc:
        yield
        _, err = proc.communicate()
    if proc.returncode != 0:
        words = " ".join(err.decode("utf-8", "replace").split())[:300]
        raise VaultError("SYNC", f"git could not write the working tree ({words}); nothing was left behind")


_GIT_LOCKS = ("index.lock", "HEAD.lock", "packed-refs.lock", f"refs/heads/{BRANCH}.lock")


def _marker(root: Path) -> Path:
    return state_dir(root) / "committing"


def recover_killed_commit(root: Path) -> bool:
    """Remove the git lock files a killed commit left behind; callers hold the store lock.

    `.git/jacked/committing` exists only while a commit and its git-index update run. Found by the
    next holder of the store lock, it means that writer was killed inside libgit2, so the lock
    files are its leftovers (one `kill -9` at the wrong moment must not block every later write).
    """
    import stat

    marker = _marker(root)
    try:
        mode = os.lstat(marker).st_mode
    except FileNotFoundError:
        return False
    os.unlink(marker)  # a symlink planted here is removed, never followed
    if not stat.S_ISREG(mode):
        return False
    for name in _GIT_LOCKS:
        with suppress(FileNotFoundError):
            os.unlink(_git_dir(root) / name)
    return True


@contextmanager
def _commit_marker(root: Path) -> Iterator[None]:
    recover_killed_commit(root)
    marker = _marker(root)
    marker.parent.mkdir(exist_ok=True)
    fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, str(os.getpid()).encode())
    finally:
        os.close(fd)
    try:
        yield
    finally:
        os.unlink(marker)


def index_out_of_step(repo: pygit2.Repository) -> list[str]:
    """Paths whose git-index entry differs from HEAD (a write killed between commit and index):
    `git diff-index --cached`, so the index is read in git's process (libgit2's index and its
    diff against a tree of 100k files held ~30 MB in ours)."""
    import subprocess

    if head_commit(repo) is None:
        return []
    root = repo.workdir
    done = subprocess.run(
        [
            "git",
            "--no-optional-locks",
            "-C",
            root,
            "diff-index",
            "--cached",
            "--name-only",
            "-z",
            "--no-renames",
            "HEAD",
        ],
        capture_output=True,
        env=child_env(),
        check=False,
    )
    if done.returncode != 0:
        raise VaultError(
            "GIT", f"`git diff-index` failed in {root} (exit {done.returncode}); run `git -C {root} status` to see why"
        )
    return sorted({rel.decode("utf-8", "surrogateescape") for rel in done.stdout.split(b"\0") if rel})


def resync_index(repo: pygit2.Repository, root: Path, paths: list[str]) -> list[str]:
    """Re-stage HEAD's version of `paths` whose working file equals HEAD, and drop the entries of
    those neither HEAD nor the working tree holds (a commit that removed them, killed before its
    index write); returns what was fixed."""
    import hashlib

    fixed = []
    index = repo.index
    index.read(False)
    for rel in paths:
        blob = tree_blob(repo, rel)
        if blob is None and rel in index and not os.path.lexists(root / rel):
            index.remove(rel)
            fixed.append(rel)
            continue
        try:
            data = (root / rel).read_bytes() if not (root / rel).is_symlink() else None
        except OSError:
            data = None
        if blob is not None and data is not None and hashlib.sha256(blob).digest() == hashlib.sha256(data).digest():
            index.add(rel)
            fixed.append(rel)
    if fixed:
        index.write()
    return fixed


STALE_LOCK_AGE_S = 60.0


def stale_git_locks(root: Path, min_age_s: float = STALE_LOCK_AGE_S) -> list[str]:
    """Git lock files (index, refs) older than `min_age_s`: left by a killed git or jacked."""
    import time

    git_dir = _git_dir(root)
    candidates = [git_dir / "index.lock", git_dir / "HEAD.lock", git_dir / "packed-refs.lock"]
    candidates += list((git_dir / "refs").rglob("*.lock"))
    now = time.time()
    out = []
    for path in candidates:
        try:
            if now - path.lstat().st_mtime >= min_age_s:
                out.append(str(path.relative_to(root)))
        except OSError:
            continue
    return sorted(out)


def index_entries(root: Path) -> int | None:
    """How many entries git's index holds (its header's count: nothing else is read), or None
    when it cannot be read; what a walk of HEAD's files counts toward."""
    try:
        with open(_git_dir(root) / "index", "rb") as handle:
            header = handle.read(12)
    except OSError:
        return None
    return int.from_bytes(header[8:12], "big") if len(header) == 12 and header[:4] == b"DIRC" else None


def skip_worktree(root: Path) -> Digests:
    """The paths git's index marks skip-worktree (a sparse checkout leaves them out of the working
    tree: present and unchanged for git), as `Digests` (100k of them in a few MB). libgit2
    does not read the flag, so `git ls-files -t` does, streamed, and only when the index format
    can hold it (version 3 or later)."""
    import subprocess

    found = Digests()
    try:
        with open(_git_dir(root) / "index", "rb") as handle:
            header = handle.read(8)
    except OSError:
        return found
    if len(header) < 8 or header[:4] != b"DIRC" or int.from_bytes(header[4:8], "big") < 3:
        return found
    with subprocess.Popen(
        ["git", "-C", str(root), "ls-files", "-t", "-z"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env(),
    ) as listing:
        assert listing.stdout is not None, "stdout is a pipe (subprocess.PIPE)"
        rest = b""
        while chunk := listing.stdout.read(1 << 16):
            *entries, rest = (rest + chunk).split(b"\0")
            for entry in entries:
                if entry.startswith(b"S "):
                    found.add(entry[2:].decode("utf-8", "surrogateescape"))
    if listing.returncode != 0:
        raise VaultError(
            "GIT", f"`git ls-files` failed in {root} (exit {listing.returncode}); run `git -C {root} status` to see why"
        )
    return found


def status_changes(root: Path) -> Iterator[tuple[str, str]]:
    """(path, git's two-letter status `XY`) of every path `git status` reports in the working tree
    at `root`, untracked files one by one, a rename as a deletion and an addition; streamed from
    the git CLI, so what status holds stays in git's process (libgit2's status of 100k files held
    ~20 MB in ours). A skip-worktree path (a sparse checkout) is unchanged, as git says. Optional
    locks off: this never writes git's index."""
    import subprocess

    with subprocess.Popen(
        [
            "git", "--no-optional-locks", "-C", str(root),
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env(),
    ) as listing:  # fmt: skip
        assert listing.stdout is not None, "stdout is a pipe (subprocess.PIPE)"
        rest = b""
        while chunk := listing.stdout.read(1 << 16):
            *entries, rest = (rest + chunk).split(b"\0")
            for entry in entries:
                if len(entry) > 3:
                    yield entry[3:].decode("utf-8", "surrogateescape"), entry[:2].decode("ascii", "replace")
    if listing.returncode != 0:
        raise VaultError(
            "GIT", f"`git status` failed in {root} (exit {listing.returncode}); run `git -C {root} status` to see why"
        )


def offered_blob(offered: bytes | None, oid: pygit2.Oid) -> bytes | None:
    """`offered` (bytes another process read for a tree entry) when they are the bytes of the blob
    `oid` (git's hash of them, computed here), else None: read the object then. Hashing costs a
    tenth of reading the object again."""
    import pygit2

    return offered if offered is not None and pygit2.hash(offered) == oid else None


def tree_blob(repo: pygit2.Repository, rel: str) -> bytes | None:
    """Content of `rel` in HEAD, or None when HEAD has no such file."""
    commit = head_commit(repo)
    return blob_at(repo, commit.tree if commit is not None else None, rel)


def blob_at(repo: pygit2.Repository, tree: pygit2.Tree | None, rel: str) -> bytes | None:
    """Content of `rel` in `tree` (None: no tree, no such file, or not a file); GIT naming the
    object and the path when git cannot read it (`read_blob`)."""
    if tree is None:
        return None
    import pygit2

    try:
        entry = tree[rel]
    except KeyError:
        return None
    except pygit2.GitError:  # a folder on the way that cannot be read
        raise damaged_object(repo, None, rel) from None
    return read_blob(repo, entry.id, rel) if entry.type_str == "blob" else None


def read_blob(repo: pygit2.Repository, oid: pygit2.Oid | str, rel: str | None = None) -> bytes:
    """The bytes of the blob `oid` (at `rel`, for the message); GIT (`damaged_object`) when git
    cannot read them. A loose object is inflated and checked here as `git fsck` does
    (`loose_object`), never handed to libgit2, which never returns from some truncated ones; a
    packed one is read by libgit2."""
    _, data = read_capped(repo, oid, None, rel)
    assert data is not None, "no cap: the bytes, or GIT"
    return data


def read_capped(
    repo: pygit2.Repository, oid: pygit2.Oid | str, cap: int | None, rel: str | None = None
) -> tuple[int, bytes | None]:
    """(size, bytes) of the blob `oid` as `read_blob` reads it; the bytes None when its size is
    over `cap` (then never inflated whole: a loose object's size is its header's, a packed one's
    libgit2's). One read of a loose object gives both (an index build asks each file's size for
    its bounds, then its bytes)."""
    import pygit2

    hexsha = str(oid)
    state, data, size = _loose(os.path.join(repo.path, "objects", hexsha[:2], hexsha[2:]), hexsha, True, cap)
    if state == "ok" and data is not None and size is not None:
        return size, data
    if state == "large" and size is not None:
        return size, None
    if state == "missing":  # not loose: packed (or in an alternate object store)
        try:
            if cap is not None and (packed := repo.odb.read_header(oid)[1]) > cap:
                return packed, None
            kind, data = repo.odb.read(oid)  # the bytes alone: no object made first (a third of the cost)
            if kind == pygit2.enums.ObjectType.BLOB:
                return len(data), data
        except (KeyError, pygit2.GitError):
            pass
    raise damaged_object(repo, oid, rel)


def loose_object(path: Path, hexsha: str, *, keep: bool = False) -> tuple[str, bytes | None]:
    """(state, content) of the loose object file `path`, checked as `git fsck` checks it: `ok`
    when it inflates completely, with nothing after its zlib stream, to `<type> <size>\\0` and
    exactly that many bytes, which hash to its name (the content only with `keep`, and only of a
    blob); `missing` when there is no such file; `truncated` when its stream ends early;
    `corrupt` otherwise. Read a chunk at a time: a large object never sits in memory unkept."""
    state, data, _ = _loose(path, hexsha, keep, None)
    return state, data


def _loose(path: str | Path, hexsha: str, keep: bool, cap: int | None) -> tuple[str, bytes | None, int | None]:
    """`loose_object`'s (state, content) and the size its header gives; with `cap`, the state
    `large` (nothing more inflated) once the header gives a size over it."""
    import hashlib
    import zlib

    if not os.access(path, os.F_OK):  # most objects of a clone are packed: no exception raised for each
        return "missing", None, None
    digest = hashlib.sha256() if len(hexsha) == 64 else hashlib.sha1()
    inflate = zlib.decompressobj()
    header = b""
    size = None
    kind = b""
    got = 0
    kept: list[bytes] = []
    try:
        handle = os.open(path, os.O_RDONLY)  # unbuffered: a build reads thousands of small files
    except FileNotFoundError:
        return "missing", None, None
    except OSError:
        return "corrupt", None, None
    try:
        while chunk := os.read(handle, 1 << 16):
            if inflate.eof:
                return "corrupt", None, size  # garbage after the object
            out = inflate.decompress(chunk)
            if size is None:
                header += out
                if b"\0" not in header:
                    if len(header) > 64:
                        return "corrupt", None, None
                    continue
                head, _, out = header.partition(b"\0")
                kind, _, length = head.partition(b" ")
                if kind not in (b"blob", b"tree", b"commit", b"tag") or not length.isdigit():
                    return "corrupt", None, None
                size = int(length)
                if cap is not None and size > cap:
                    return "large", None, size
                digest.update(head + b"\0")
            got += len(out)
            if got > size:
                return "corrupt", None, size
            digest.update(out)
            if keep:
                kept.append(out)
    except (OSError, zlib.error):
        return "corrupt", None, size
    finally:
        os.close(handle)
    if not inflate.eof:
        return "truncated", None, size
    if inflate.unused_data or size is None or got != size or digest.hexdigest() != hexsha:
        return "corrupt", None, size
    return "ok", b"".join(kept) if keep and kind == b"blob" else None, size


def damaged_object(repo: pygit2.Repository, oid: pygit2.Oid | str | None, rel: str | None) -> VaultError:
    """GIT: the git object `oid` (of `rel`; None: a folder on the way to `rel`) is missing or
    corrupt; `doctor` names it and the fix."""
    root = repo.workdir.rstrip("/") if repo.workdir else repo.path
    what = f"git object {str(oid)[:12]}" if oid is not None else "a git object on its way"
    return VaultError(
        "GIT",
        f"{rel + ': ' if rel else ''}{what} is missing or corrupt, so git cannot read it; nothing was changed. "
        f"`jacked memory doctor` (in {root}) names every damaged object and how to restore it",
        details={**({"path": rel} if rel else {}), **({"object": str(oid)} if oid is not None else {})},
    )
