"""Contained file I/O: no symlink is ever followed below a scope root, creates never replace.

Every path is given as a root plus relative parts. Each component is opened with
O_NOFOLLOW relative to its parent's descriptor, so a symlink planted anywhere below
the root (a kind dir, `.jacked`, the destination itself) is refused instead of followed.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path, PurePosixPath

from jacked_vault.errors import VaultError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)


def split_relative(rel: str | PurePosixPath) -> tuple[str, ...]:
    """Split a scope-relative POSIX path, refusing absolute paths, `..`, `.` and empty parts."""
    text = str(rel)
    parts = tuple(text.split("/"))
    if not text or text.startswith("/") or any(p in ("", ".", "..") or "\x00" in p for p in parts):
        raise VaultError("UNSAFE_PATH", "a path escapes its scope root (absolute, `..`, `.` or an empty part)")
    return parts


def _unsafe(rel: Sequence[str], why: str) -> VaultError:
    return VaultError("UNSAFE_PATH", f"{'/'.join(rel)}: {why}; symlinks are never followed")


@contextmanager
def open_dir(root: Path, parts: Sequence[str], *, create: bool = False) -> Iterator[int]:
    """Yield a descriptor for root/parts, each component opened without following symlinks."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for i, part in enumerate(parts):
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
                child = _open_child_dir(fd, parts, i)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _unsafe(parts[: i + 1], "is a symlink or not a directory") from None
                raise
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _open_child_dir(parent_fd: int, parts: Sequence[str], i: int) -> int:
    try:
        return os.open(parts[i], _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _unsafe(parts[: i + 1], "is a symlink or not a directory") from None
        raise


def _write_temp(dir_fd: int, data: bytes) -> str:
    name = f".jacked-tmp-{os.getpid()}-{os.urandom(6).hex()}"
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(name, dir_fd=dir_fd)
        raise
    os.close(fd)
    return name


def create_file(root: Path, rel: str, data: bytes) -> None:
    """Create root/rel with `data` atomically; never replaces anything (EXISTS if the name is taken).

    The content goes to a hidden temp file in the destination dir, is fsynced, then hard-linked
    to its name: link() fails on any existing entry, a symlink included, and never follows one.
    """
    parts = split_relative(rel)
    with open_dir(root, parts[:-1], create=True) as dir_fd:
        temp = _write_temp(dir_fd, data)
        try:
            os.link(temp, parts[-1], src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError:
            raise VaultError("EXISTS", f"{rel} already exists; notes are create-only") from None
        finally:
            os.unlink(temp, dir_fd=dir_fd)
        os.fsync(dir_fd)


def replace_file(root: Path, rel: str, data: bytes, *, replace_symlink: bool = False) -> None:
    """Atomically write root/rel (derived or append-only files). A symlink (or anything not a
    regular file) there is refused, unless `replace_symlink` (a derived file): then the rename
    replaces the link itself, never what it points at."""
    parts = split_relative(rel)
    with open_dir(root, parts[:-1], create=True) as dir_fd:
        if not replace_symlink:
            _refuse_symlink(dir_fd, parts)
        temp = _write_temp(dir_fd, data)
        try:
            os.rename(temp, parts[-1], src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            os.unlink(temp, dir_fd=dir_fd)
            raise
        os.fsync(dir_fd)


def write_file(
    path: Path, data: bytes, *, replace: bool = True, mode: int | None = None, through_symlink: bool = False
) -> None:
    """Atomically write a file outside any scope root (harness configs, git hooks, cache markers).

    The content goes to an fsynced temp file beside it, then is renamed over `path` (`replace`)
    or linked to it (create-only: FileExistsError if the name is taken). `mode` defaults to the
    replaced file's mode, else 0o644. `through_symlink`: a person's own config file kept as a
    symlink (dotfiles) is written where it points, so the link survives.
    """
    if through_symlink and path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = 0o644
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        temp = _write_temp(dir_fd, data)
        try:
            os.chmod(temp, mode, dir_fd=dir_fd)
            if replace:
                os.rename(temp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            else:
                os.link(temp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        finally:
            with suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=dir_fd)
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_stream(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes from `fd` (a pipe, tty or file) until EOF, blocking or not.

    A non-blocking descriptor (what agent tool runners often hand over as stdin) is waited on
    with select() whenever it has nothing yet, so data that arrives late is never lost.
    """
    import select

    chunks: list[bytes] = []
    size = 0
    while size < limit:
        try:
            chunk = os.read(fd, min(limit - size, 1 << 16))
        except BlockingIOError:
            select.select([fd], [], [])
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_capped(path: Path, max_bytes: int) -> bytes | None:
    """A person's own file outside any scope root (a config, possibly a symlinked dotfile):
    None when missing; CONFIG when unreadable or over `max_bytes` (checked before reading it all)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise VaultError("CONFIG", f"{path}: cannot be read ({exc.strerror})") from None
    if len(data) > max_bytes:
        raise VaultError("CONFIG", f"{path}: over the {max_bytes}-byte cap; not reading it")
    return data


def read_text_capped(path: Path, max_bytes: int) -> str | None:
    """`read_capped` of a person's config decoded as UTF-8 (None when missing; CONFIG when it is
    not UTF-8, since such a file is not edited)."""
    data = read_capped(path, max_bytes)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise VaultError("CONFIG", f"{path} is not UTF-8; not editing it") from None


def remove_file(root: Path, rel: str) -> None:
    """Unlink root/rel (used only to undo a create that could not be committed)."""
    parts = split_relative(rel)
    with open_dir(root, parts[:-1]) as dir_fd:
        os.unlink(parts[-1], dir_fd=dir_fd)


def _refuse_symlink(dir_fd: int, parts: Sequence[str]) -> None:
    try:
        st = os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise _unsafe(parts, "is a symlink or not a regular file")


@contextmanager
def open_regular(root: Path, rel: str) -> Iterator[tuple[int, int]]:
    """Yield (descriptor, size) of the regular file root/rel, opened without following symlinks
    (for reading in parts: a file too large to read whole, or only its tail)."""
    parts = split_relative(rel)
    with open_dir(root, parts[:-1]) as dir_fd:
        try:
            fd = os.open(parts[-1], _FILE_READ_FLAGS, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _unsafe(parts, "is a symlink") from None
            raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _unsafe(parts, "is not a regular file")
        yield fd, st.st_size
    finally:
        os.close(fd)


def read_file(root: Path, rel: str, *, max_bytes: int) -> bytes:
    """Read root/rel without following symlinks; the size cap is checked before reading."""
    with open_regular(root, rel) as (fd, size):
        if size > max_bytes:
            raise VaultError("VALIDATION", f"{rel}: {size} bytes is over the {max_bytes}-byte cap")
        data = os.read(fd, max_bytes + 1)
    if len(data) > max_bytes:
        raise VaultError("VALIDATION", f"{rel}: over the {max_bytes}-byte cap")
    return data


def read_optional(root: Path, rel: str, *, max_bytes: int) -> bytes | None:
    """Like read_file, but a missing file (or missing parent) gives None."""
    try:
        return read_file(root, rel, max_bytes=max_bytes)
    except FileNotFoundError:
        return None
