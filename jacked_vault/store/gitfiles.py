"""Git facts read from git's own files: the work tree, git dir, common dir, HEAD, branch, refs and
config. No pygit2 and no `git` process, so hot paths (session-start hook, every CLI command, the
search index's freshness check) pay for a few small reads only.

A work tree's git dir is its `.git` directory, or where a `.git` file points (`gitdir: …`: linked
worktrees, submodules); a bare repository is its own git dir. HEAD and per-worktree refs live in
the git dir; branches, packed-refs and config live in the common dir (a linked worktree's
`commondir`, else the git dir itself). Every read is capped and never follows a final symlink.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

MAX_LEVELS = 64
MAX_POINTER_BYTES = 4096
MAX_HEAD_BYTES = 1024
MAX_CONFIG_BYTES = 1 << 20
MAX_PACKED_REFS_BYTES = 64 << 20
HEADS = "refs/heads/"
DETACHED = "detached"

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_CONFIG_TOKEN = re.compile(
    r"(?P<skip>[ \t\r\n]+|[#;][^\n]*)"
    r'|\[(?P<section>[A-Za-z0-9.-]*)(?:[ \t\r]+"(?P<sub>(?:[^"\\\n]|\\[^\n])*)")?\]'
    r"|(?P<key>[A-Za-z][A-Za-z0-9-]*)[ \t]*(?P<eq>=?)"
)
_SUBSECTION_ESCAPE = re.compile(r"\\(.)")
_COMMENT_START = re.compile(r"[#;]")
_VALUE_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}
_SPACE_TO_BLANK = str.maketrans("\t\r", "  ")


class ConfigSyntaxError(Exception):
    """A git config file git itself would refuse to read."""


# --- small reads -------------------------------------------------------------------------


def read_small(path: Path, limit: int) -> bytes | None:
    """A regular file's bytes (final symlink not followed); None if missing, odd or > limit."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _pointer(path: Path, prefix: str) -> Path | None:
    """The path named by a one-line pointer file (`gitdir: …`, `commondir`), against its dir."""
    data = read_small(path, MAX_POINTER_BYTES)
    if data is None:
        return None
    text = os.fsdecode(data).rstrip("\r\n")
    if not text.startswith(prefix) or len(text) == len(prefix) or "\x00" in text:
        return None
    return path.parent / text[len(prefix) :]


def _ascii(path: Path, limit: int) -> str | None:
    data = read_small(path, limit)
    try:
        return None if data is None else data.decode("ascii")
    except UnicodeDecodeError:
        return None


# What git reads from the environment to choose another repository, index or object store (`git
# rev-parse --local-env-vars`): a hook's, never the store's.
REPO_ENV = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_IMPLICIT_WORK_TREE",
        "GIT_GRAFT_FILE",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_REPLACE_REF_BASE",
        "GIT_PREFIX",
        "GIT_INTERNAL_SUPER_PREFIX",
        "GIT_SHALLOW_FILE",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
    }
)


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child git (or gh) run on the store or a project: this process's,
    without git's repository variables (`REPO_ENV`: a git hook sets them for its own repository),
    plus `extra`."""
    return {**{k: v for k, v in os.environ.items() if k not in REPO_ENV}, **(extra or {})}


# --- where things are --------------------------------------------------------------------


def _is_bare(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


def git_dir(root: Path) -> Path | None:
    """The git directory of `root`: its `.git` directory, where its `.git` file points, or `root`
    itself when it is a bare repository; None when `root` is none of these."""
    dotgit = root / ".git"
    try:
        mode = os.lstat(dotgit).st_mode
    except OSError:
        return root if _is_bare(root) else None
    if stat.S_ISDIR(mode):
        return dotgit
    if not stat.S_ISREG(mode):
        return None
    target = _pointer(dotgit, "gitdir: ")
    return target if target is not None and target.is_dir() else None


def common_dir(gitdir: Path) -> Path:
    """The shared git directory (a linked worktree's `commondir`), else `gitdir` itself."""
    common = _pointer(gitdir / "commondir", "")
    return Path(os.path.normpath(common)) if common is not None else gitdir


def find_work_tree(start: Path) -> Path | None:
    """The nearest enclosing work tree (a dir holding a `.git` dir or gitfile), or None.

    Walks at most MAX_LEVELS levels, stops at the filesystem root and, like git, at a filesystem
    boundary. A symlinked `.git` is not followed and does not count; a bare repository has no work
    tree.
    """
    try:
        current = Path(os.path.realpath(start))
        if not current.is_dir():
            current = current.parent
        device = current.stat().st_dev
    except OSError:
        return None
    for _ in range(MAX_LEVELS):
        found = git_dir(current)
        if found is not None and found != current:
            return current
        parent = current.parent
        try:
            if parent == current or parent.stat().st_dev != device:
                return None
        except OSError:
            return None
        current = parent
    return None


def main_name(root: Path) -> str:
    """The name of the repository a work tree belongs to: a linked worktree (`git worktree add`)
    is named after its main work tree (or bare repo), so every worktree shares one name."""
    gitdir = git_dir(root)
    common = common_dir(gitdir) if gitdir is not None else None
    if common is None or common == gitdir:
        return root.name
    if common.name == ".git":
        return common.parent.name
    return common.name[:-4] if common.name.lower().endswith(".git") and len(common.name) > 4 else common.name


# --- HEAD, branch, refs ------------------------------------------------------------------


def _head_at(gitdir: Path | None) -> str | None:
    text = _ascii(gitdir / "HEAD", MAX_HEAD_BYTES) if gitdir is not None else None
    return (text.strip() or None) if text is not None else None


def head(root: Path) -> str | None:
    """HEAD as git wrote it: `ref: refs/heads/<branch>`, or a commit id when detached; None when
    `root` is no repository or HEAD cannot be read."""
    return _head_at(git_dir(root))


def branch(root: Path) -> str | None:
    """The branch HEAD is on; None when HEAD is detached or unreadable."""
    text = head(root)
    return text[len("ref: " + HEADS) :] if text is not None and text.startswith("ref: " + HEADS) else None


def current_branch(root: Path) -> str | None:
    """The branch checked out in the work tree at `root`; DETACHED for a detached HEAD, None when
    unknown."""
    text = head(root)
    if text is None:
        return None
    return text[len("ref: " + HEADS) :] if text.startswith("ref: " + HEADS) else DETACHED


def _resolve_at(gitdir: Path, ref: str) -> str | None:
    if ".." in ref.split("/"):
        return None
    common = common_dir(gitdir)
    for place in dict.fromkeys((gitdir, common)):  # per-worktree refs first, then the shared ones
        loose = _ascii(place / ref, MAX_HEAD_BYTES)
        if loose is not None:
            return loose.strip() or None
    packed = _ascii(common / "packed-refs", MAX_PACKED_REFS_BYTES)
    for line in (packed or "").splitlines():
        sha, _, name = line.partition(" ")
        if name == ref:
            return sha
    return None


def resolve_ref(root: Path, ref: str) -> str | None:
    """The commit id a full ref name (`refs/heads/main`) holds: its loose file, else packed-refs;
    None when it does not exist or cannot be read."""
    gitdir = git_dir(root)
    return _resolve_at(gitdir, ref) if gitdir is not None else None


def head_commit(root: Path) -> str | None:
    """The commit id HEAD points at; None for an unborn branch or an unreadable HEAD."""
    gitdir = git_dir(root)
    text = _head_at(gitdir)
    if gitdir is None or text is None or not text.startswith("ref: "):
        return text
    return _resolve_at(gitdir, text[len("ref: ") :])


# --- config ------------------------------------------------------------------------------


def config_path(root: Path) -> Path | None:
    """The repository's shared config file (in the common dir)."""
    gitdir = git_dir(root)
    return common_dir(gitdir) / "config" if gitdir is not None else None


def _parse_value_slowly(text: str, pos: int) -> tuple[str, int]:
    """Git's value grammar (quotes, escapes, continuations, comments) from `pos`."""
    out: list[str] = []
    quoted = in_comment = False
    spaces = 0
    while True:
        char = text[pos] if pos < len(text) else "\n"
        pos += 1
        if char == "\n":
            if quoted:
                raise ConfigSyntaxError("unterminated quote")
            return "".join(out), pos
        if in_comment:
            continue
        if char in " \t\r" and not quoted:
            if out:
                spaces += 1
            continue
        if char in "#;" and not quoted:
            in_comment = True
            continue
        out.extend(" " * spaces)
        spaces = 0
        if char == "\\":
            char = text[pos] if pos < len(text) else "\n"
            pos += 1
            if char == "\n":
                continue
            if char not in _VALUE_ESCAPES:
                raise ConfigSyntaxError("unknown escape")
            out.append(_VALUE_ESCAPES[char])
        elif char == '"':
            quoted = not quoted
        else:
            out.append(char)


def _parse_value(text: str, pos: int) -> tuple[str, int]:
    """The value after `=` at `pos` and the position after it; plain values take a fast path."""
    eol = text.find("\n", pos)
    eol = len(text) if eol < 0 else eol
    body = _COMMENT_START.split(text[pos:eol], maxsplit=1)[0]
    if '"' in body or "\\" in body:
        return _parse_value_slowly(text, pos)
    return body.strip(" \t\r").translate(_SPACE_TO_BLANK), eol


def config_entries(text: str) -> list[tuple[str | None, str, str | None]]:
    """Every `(section[.subsection], key, value)` of a config file's text, as git parses it;
    ConfigSyntaxError for a file git would refuse."""
    entries: list[tuple[str | None, str, str | None]] = []
    section: str | None = None
    pos = 0
    while pos < len(text):
        token = _CONFIG_TOKEN.match(text, pos)
        if token is None:
            raise ConfigSyntaxError(f"bad config at offset {pos}")
        pos = token.end()
        if token["skip"] is not None:
            continue
        if token["key"] is None:
            name, sub = token["section"].lower(), token["sub"]
            if sub is None and not name:
                raise ConfigSyntaxError("empty section name")
            section = name if sub is None else name + "." + _SUBSECTION_ESCAPE.sub(r"\1", sub)
            continue
        value: str | None = None
        if token["eq"]:
            value, pos = _parse_value(text, pos)
        elif pos < len(text) and text[pos] != "\n":
            raise ConfigSyntaxError("key without '='")
        entries.append((section, token["key"].lower(), value))
    return entries


def config_values(root: Path, section: str, key: str) -> list[str]:
    """Every value of `section.key` (section lowercase, subsection as written) in the repository's
    shared config, in file order; [] when the config is missing, unreadable, larger than
    MAX_CONFIG_BYTES or malformed (git refuses such a file too). `[include]` is ignored."""
    path = config_path(root)
    data = read_small(path, MAX_CONFIG_BYTES) if path is not None else None
    if data is None:
        return []
    text = data.decode("utf-8", "replace").removeprefix("\ufeff").replace("\r\n", "\n")
    try:
        entries = config_entries(text)
    except ConfigSyntaxError:
        return []
    return [v for s, k, v in entries if s == section and k == key.lower() and v is not None]


def origin_url(root: Path) -> str | None:
    """The first `remote.origin.url` of the repository at `root`, as git reads it; None without one."""
    urls = config_values(root, "remote.origin", "url")
    return urls[0] if urls else None
