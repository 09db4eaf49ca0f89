"""Repository identity: the work tree holding a path, its `origin` remote, normalised.

This runs on hot paths (session-start hook, every CLI command), so git's facts come from
`store.gitfiles` (git's own files: no pygit2, no `git` process).

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
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from jacked_vault.errors import VaultError
from jacked_vault.safety.text import hostile_in_name
from jacked_vault.store import gitfiles

MAX_URL_CHARS = 2048
MAX_SEGMENTS = 8
MAX_IDENTITY_CHARS = 255
MAX_SLUG_CHARS = 64
LOCAL_HOST = "local"

_NOT_SLUG_CHAR = re.compile(r"[^a-z0-9._-]")
_LEADING_NON_ALNUM = re.compile(r"^[^a-z0-9]+")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_DOS_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_QUERY_OR_FRAGMENT = re.compile(r"[?#]")
_PORT = re.compile(r"[0-9]*")
_SLASH = re.compile("/")
_SLASH_OR_BACKSLASH = re.compile(r"[\\/]")


@dataclass(frozen=True)
class RepoInfo:
    """A work tree, its identity, its solo group and its (credential-free) origin URL."""

    root: Path
    identity: str
    solo_group: str
    remote_url: str | None


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
    if hostile_in_name(text):
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
    if hostile_in_name(url):
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


# --- the public entry point ----------------------------------------------------------------


def repo_for(path: Path) -> RepoInfo | None:
    """The repository containing `path`, or None; a hostile origin URL raises CONFIG."""
    root = gitfiles.find_work_tree(path)
    if root is None:
        return None
    url = gitfiles.origin_url(root)
    if url is None:
        identity = slugify(gitfiles.main_name(root))
    else:
        try:
            identity = normalise_remote(url)
        except VaultError as exc:
            raise VaultError("CONFIG", f"{exc.message} (origin of the repository at {str(root)!a})") from exc
    return RepoInfo(
        root=root,
        identity=identity,
        solo_group=slugify(identity.rpartition("/")[2]),
        remote_url=None if url is None else _anonymise(url),
    )
