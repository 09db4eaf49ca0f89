"""Repository identity: find the work tree, read its `origin` remote, normalise it.

This runs on hot paths (session-start hook, every CLI command), so it reads git's
files directly: no pygit2, no `git` process.

Identity forms (all lowercase, segments match `^[a-z0-9][a-z0-9._-]*$`):
- a remote URL gives `host/path/segments` (`github.com/acme/api`,
  `gitlab.com/group/subgroup/repo`, `dev.azure.com/org/proj/git/repo`);
- a local remote (`/srv/git/r.git`, `../r.git`, `file:///srv/git/r.git`) gives
  `local/<last path part>` (`local/r`): the same bare repo mounted at different paths
  on different machines keeps one identity;
- a repository without `origin` gives the slug of its directory name (`my-repo`); a linked
  worktree reads the main repository's config and takes the main work tree's name, so it has
  the same identity (and group) as the repository it belongs to.
"""

from __future__ import annotations

import ipaddress
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from jacked_vault.errors import VaultError

MAX_LEVELS = 64
MAX_GITFILE_BYTES = 4096
MAX_CONFIG_BYTES = 1 << 20
MAX_URL_CHARS = 2048
MAX_SEGMENTS = 8
MAX_IDENTITY_CHARS = 255
MAX_SLUG_CHARS = 64
LOCAL_HOST = "local"

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_UNSAFE_CHAR = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NOT_SLUG_CHAR = re.compile(r"[^a-z0-9._-]")
_LEADING_NON_ALNUM = re.compile(r"^[^a-z0-9]+")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_DOS_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_QUERY_OR_FRAGMENT = re.compile(r"[?#]")
_PORT = re.compile(r"[0-9]*")
_SLASH = re.compile("/")
_SLASH_OR_BACKSLASH = re.compile(r"[\\/]")

_CONFIG_TOKEN = re.compile(
    r"(?P<skip>[ \t\r\n]+|[#;][^\n]*)"
    r'|\[(?P<section>[A-Za-z0-9.-]*)(?:[ \t\r]+"(?P<sub>(?:[^"\\\n]|\\[^\n])*)")?\]'
    r"|(?P<key>[A-Za-z][A-Za-z0-9-]*)[ \t]*(?P<eq>=?)"
)
_SUBSECTION_ESCAPE = re.compile(r"\\(.)")
_COMMENT_START = re.compile(r"[#;]")
_VALUE_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}
_SPACE_TO_BLANK = str.maketrans("\t\r", "  ")


@dataclass(frozen=True)
class RepoInfo:
    """A work tree, its identity, its solo group and its (credential-free) origin URL."""

    root: Path
    identity: str
    solo_group: str
    remote_url: str | None


class _ConfigSyntaxError(Exception):
    """A git config file git itself would refuse to read."""


# --- slugs -----------------------------------------------------------------------------


def _slug_chars(text: str) -> str:
    """Lowercase, map characters outside `[a-z0-9._-]` to `-`, drop leading non-alnum."""
    return _LEADING_NON_ALNUM.sub("", _NOT_SLUG_CHAR.sub("-", text.lower()))


def slugify(text: str) -> str:
    """A group slug (`^[a-z0-9][a-z0-9._-]{0,63}$`) for `text`; "repo" if nothing is left."""
    return _slug_chars(text)[:MAX_SLUG_CHARS] or "repo"


# --- remote URL normalisation ------------------------------------------------------------


def _anonymise(url: str) -> str:
    """Drop the user-info (`user:password@`) as git's transport_anonymize_url does."""
    scheme = _SCHEME.match(url)
    if scheme:
        rest = url[scheme.end() :]
        end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
        return url[: scheme.end()] + rest[rest.rfind("@", 0, end) + 1 :]
    at = url.find("@")
    if _is_local(url) or at < 0 or ":" not in url[at + 1 :]:
        return url
    return url[at + 1 :]


def _hostile(url: str, reason: str) -> VaultError:
    """A CONFIG error naming a safe (credential-free, escaped, truncated) form of `url`."""
    shown = _anonymise(url)
    preview = ascii(shown[:80]) + ("..." if len(shown) > 80 else "")
    return VaultError("CONFIG", f"unusable remote URL {preview}: {reason}")


def _is_local(url: str) -> bool:
    """Git's rule: a path, not `host:path`, when there is no colon before the first slash."""
    colon, slash = url.find(":"), url.find("/")
    return colon < 0 or 0 <= slash < colon or _DOS_DRIVE.match(url) is not None


def _segment(raw: str, url: str) -> str:
    """One identity segment from a raw path part; "" when it has no letter or digit."""
    text = unquote(raw)
    if _UNSAFE_CHAR.search(text):
        raise _hostile(url, "encoded control or bidi character")
    if text in (".", ".."):
        raise _hostile(url, "'.' or '..' path segment")
    return _slug_chars(text)


def _path_parts(path: str, separator: re.Pattern[str]) -> list[str]:
    """Non-empty parts of `path`, the last one without its `.git` suffix."""
    parts = [part for part in separator.split(path) if part]
    if parts and parts[-1].lower().endswith(".git"):
        parts[-1] = parts[-1][:-4]
        if not parts[-1]:
            parts.pop()
    return parts


def _host_label(hostport: str, url: str) -> str:
    """`host`, `host:port`, `[v6]`, `[v6]:port` or `[host:port]` as one identity segment."""
    if hostport.startswith("["):
        inner, closed, after = hostport[1:].partition("]")
        if not closed or (after and not (after[0] == ":" and _PORT.fullmatch(after[1:]))):
            raise _hostile(url, "malformed bracketed host")
        try:
            return _slug_chars("ipv6-" + ipaddress.IPv6Address(inner).compressed)
        except ValueError:
            hostport = inner
    host, _, port = hostport.partition(":")
    if not _PORT.fullmatch(port):
        raise _hostile(url, "port is not a number")
    label = _segment(host, url)
    if not label:
        raise _hostile(url, "no host")
    return label


def _join(host: str, raw_parts: list[str], url: str) -> str:
    """`host/seg/…` from raw path parts, within the segment and length limits."""
    segments = [seg for seg in (_segment(part, url) for part in raw_parts) if seg]
    if not segments:
        raise _hostile(url, "no usable path segment")
    if len(segments) + 1 > MAX_SEGMENTS:
        raise _hostile(url, f"more than {MAX_SEGMENTS} segments")
    identity = "/".join([host, *segments])
    if len(identity) > MAX_IDENTITY_CHARS:
        raise _hostile(url, f"identity longer than {MAX_IDENTITY_CHARS} characters")
    return identity


def _scp_split(url: str) -> tuple[str, str]:
    """`[user@]host:path` (host may be `[…]`) → (`[user@]host`, `path`)."""
    at_bracket = url.find("@[")
    bracket = at_bracket + 1 if at_bracket >= 0 else (0 if url.startswith("[") else -1)
    close = url.find("]", bracket) if bracket >= 0 else -1
    colon = url.find(":", max(close, 0))
    if colon < 0:
        raise _hostile(url, "no path after the host")
    return url[:colon], url[colon + 1 :]


def _local_identity(path: str, url: str) -> str:
    """`local/<last path part>` for a path or `file://` remote."""
    parts = _path_parts(path, _SLASH_OR_BACKSLASH)
    return _join(LOCAL_HOST, parts[-1:], url)


def normalise_remote(url: str) -> str:
    """Normalise a remote URL to `host/owner/repo`; hostile or unusable → VaultError CONFIG."""
    if len(url) > MAX_URL_CHARS:
        message = f"remote URL is too long ({len(url)} > {MAX_URL_CHARS} characters)"
        raise VaultError("CONFIG", message)
    if _UNSAFE_CHAR.search(url):
        raise _hostile(url, "control or bidi character")
    text = url.strip(" ")
    if not text:
        raise _hostile(url, "empty")
    scheme = _SCHEME.match(text)
    if scheme:
        rest = _QUERY_OR_FRAGMENT.split(text[scheme.end() :], maxsplit=1)[0]
        if scheme.group(1).lower() == "file":
            return _local_identity(rest, url)
        authority, _, path = rest.partition("/")
        host = _host_label(authority.rpartition("@")[2], url)
        return _join(host, _path_parts(path, _SLASH), url)
    if _is_local(text):
        return _local_identity(text, url)
    userhost, path = _scp_split(text)
    host = _host_label(userhost.rpartition("@")[2], url)
    return _join(host, _path_parts(path, _SLASH), url)


# --- reading git's files -----------------------------------------------------------------


def _read_small(path: Path, limit: int) -> bytes | None:
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
    data = _read_small(path, MAX_GITFILE_BYTES)
    if data is None:
        return None
    text = os.fsdecode(data).rstrip("\r\n")
    if not text.startswith(prefix) or len(text) == len(prefix) or "\x00" in text:
        return None
    return path.parent / text[len(prefix) :]


def current_branch(root: Path) -> str | None:
    """The branch checked out in the work tree at `root`, from its HEAD file (no git process);
    `detached` for a detached HEAD, None when unknown."""
    git_dir = _git_dir(root)
    if git_dir is None:
        return None
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace")[:1000].strip()
    except OSError:
        return None
    if head.startswith("ref: refs/heads/"):
        return head[len("ref: refs/heads/") :]
    return "detached" if head else None


def _git_dir(root: Path) -> Path | None:
    """The git directory of a work tree: `.git` itself, or where a `.git` file points."""
    dotgit = root / ".git"
    try:
        mode = os.lstat(dotgit).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return dotgit
    if not stat.S_ISREG(mode):
        return None
    target = _pointer(dotgit, "gitdir: ")
    return target if target is not None and target.is_dir() else None


def _common_dir(git_dir: Path) -> Path:
    """The shared git directory (a linked worktree's `commondir`), else `git_dir`."""
    common = _pointer(git_dir / "commondir", "")
    return common if common is not None else git_dir


def _main_name(root: Path) -> str:
    """The name of the repository a work tree belongs to: a linked worktree (`git worktree add`)
    is named after its main work tree (or bare repo), so every worktree shares one identity."""
    git_dir = _git_dir(root)
    common = _common_dir(git_dir) if git_dir is not None else None
    if common is None or common == git_dir:
        return root.name
    common = Path(os.path.normpath(common))
    if common.name == ".git":
        return common.parent.name
    return common.name[:-4] if common.name.lower().endswith(".git") and len(common.name) > 4 else common.name


def find_repo_root(start: Path) -> Path | None:
    """The nearest enclosing work tree (a dir holding a `.git` dir or gitfile), or None.

    Walks at most MAX_LEVELS levels, stops at the filesystem root and, like git, at a
    filesystem boundary. A symlinked `.git` is not followed and does not count.
    """
    try:
        current = Path(os.path.realpath(start))
        if not current.is_dir():
            current = current.parent
        device = current.stat().st_dev
    except OSError:
        return None
    for _ in range(MAX_LEVELS):
        if _git_dir(current) is not None:
            return current
        parent = current.parent
        try:
            if parent == current or parent.stat().st_dev != device:
                return None
        except OSError:
            return None
        current = parent
    return None


# --- git config ----------------------------------------------------------------------------


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
                raise _ConfigSyntaxError("unterminated quote")
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
                raise _ConfigSyntaxError("unknown escape")
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


def _config_entries(text: str) -> list[tuple[str | None, str, str | None]]:
    """Every `(section[.subsection], key, value)` of a config file, as git parses it."""
    entries: list[tuple[str | None, str, str | None]] = []
    section: str | None = None
    pos = 0
    while pos < len(text):
        token = _CONFIG_TOKEN.match(text, pos)
        if token is None:
            raise _ConfigSyntaxError(f"bad config at offset {pos}")
        pos = token.end()
        if token["skip"] is not None:
            continue
        if token["key"] is None:
            name, sub = token["section"].lower(), token["sub"]
            if sub is None and not name:
                raise _ConfigSyntaxError("empty section name")
            section = name if sub is None else name + "." + _SUBSECTION_ESCAPE.sub(r"\1", sub)
            continue
        value: str | None = None
        if token["eq"]:
            value, pos = _parse_value(text, pos)
        elif pos < len(text) and text[pos] != "\n":
            raise _ConfigSyntaxError("key without '='")
        entries.append((section, token["key"].lower(), value))
    return entries


def origin_url(root: Path) -> str | None:
    """The first `remote.origin.url` in the repo's shared config, as git reads it.

    None when there is no origin, or the config is missing, unreadable, larger than
    MAX_CONFIG_BYTES or malformed (git refuses such a file too). `[include]` is ignored.
    """
    git_dir = _git_dir(root)
    if git_dir is None:
        return None
    data = _read_small(_common_dir(git_dir) / "config", MAX_CONFIG_BYTES)
    if data is None:
        return None
    text = data.decode("utf-8", "replace").removeprefix("\ufeff").replace("\r\n", "\n")
    try:
        entries = _config_entries(text)
    except _ConfigSyntaxError:
        return None
    urls = [v for s, k, v in entries if s == "remote.origin" and k == "url" and v is not None]
    return urls[0] if urls else None


# --- the public entry point ----------------------------------------------------------------


def repo_for(path: Path) -> RepoInfo | None:
    """The repository containing `path`, or None; a hostile origin URL raises CONFIG."""
    root = find_repo_root(path)
    if root is None:
        return None
    url = origin_url(root)
    if url is None:
        identity = slugify(_main_name(root))
    else:
        try:
            identity = normalise_remote(url)
        except VaultError as exc:
            raise VaultError(
                "CONFIG", f"{exc.message} (origin of the repository at {ascii(str(root))})"
            ) from exc
    return RepoInfo(
        root=root,
        identity=identity,
        solo_group=slugify(identity.rpartition("/")[2]),
        remote_url=None if url is None else _anonymise(url),
    )
