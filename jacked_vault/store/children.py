"""Long children that die with the jacked process that started them (SPEC 10: "Children of a
killed command die with it"): the network git and what it starts (ssh, a remote helper), the
distiller, `gh`.

Each runs in a session and process group of its own (no terminal to prompt on), tethered: a
pipe's write end stays in this process, and a watcher in the child's group blocks reading the
other end. However this process ends, `kill -9` included, the kernel closes the write end, the
watcher reads end-of-file and kills the whole group. When the child is done, leaving `tethered`
ends the group (the watcher, anything the child left in it) and reaps the child.

Only POSIX parts: `/bin/sh`, a pipe, process groups and `/dev/fd/N`, so the same on Linux and
macOS; without `/dev/fd` the watcher gives up and the child is only ended by `tethered` itself.
What leaves the group on purpose (its own `setsid`: ssh's ControlPersist master, a daemon) is
not followed. The detached runs (`store.detached`) are not tethered: they outlive the hook that
starts them by design, and their own long children are tethered to them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
from collections.abc import Iterator, Mapping
from typing import Any

# The watcher (in the background, its output nowhere) waits for end-of-file on the tether, then
# kills its process group; the shell becomes the child (`exec`), keeping the pid Popen knows.
_LAUNCH = '{{ exec 3</dev/fd/{fd} || exit; read _ <&3; kill -KILL 0; }} </dev/null >/dev/null 2>&1 & exec "$@"'


@contextlib.contextmanager
def tethered(argv: list[str], *, env: Mapping[str, str] | None = None, **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """`subprocess.Popen(argv, env=env, **popen)`, in a process group of its own that dies with this
    process; on leaving, the group is killed and the child reaped. OSError as Popen's when the
    program cannot be found or run."""
    program = _program(argv[0], env, popen.get("cwd"))
    reader, writer = (_above_std(fd) for fd in os.pipe())
    try:
        proc = subprocess.Popen(
            ["/bin/sh", "-c", _LAUNCH.format(fd=reader), "jacked-tether", program, *argv[1:]],
            env=env, start_new_session=True, pass_fds=(reader,), **popen,
        )  # fmt: skip
    except BaseException:
        os.close(writer)
        raise
    finally:
        os.close(reader)
    try:
        yield proc
    finally:
        end_group(proc)
        os.close(writer)


def run_tethered(argv: list[str], *, timeout: float, **popen: Any) -> subprocess.CompletedProcess[Any]:
    """`argv` run to its end like `subprocess.run(capture_output=True)`, tethered; past `timeout`
    its whole group is killed and TimeoutExpired raised."""
    with tethered(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen) as proc:
        out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def end_group(proc: subprocess.Popen[Any]) -> None:
    """Kill the child's whole process group, reap the child, and close its pipes unread (a process
    that left the group could hold them open for ever). While the watcher lives the group's id
    cannot be anyone else's, even once the child itself has been reaped."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _above_std(fd: int) -> int:
    """`fd`, or a copy above 2 when it is one of the standard descriptors (a process started with
    one closed): the child's stdin, stdout or stderr must never be the tether."""
    if fd > 2:
        return fd
    import fcntl

    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    finally:
        os.close(fd)


def _program(name: str, env: Mapping[str, str] | None, cwd: object) -> str:
    """The program `name` runs, found as exec would find it (on the child's PATH); OSError (ENOENT)
    when there is none, as Popen raises it, so a missing program fails before anything starts."""
    import shutil

    if os.sep in name:
        path = name if os.path.isabs(name) or cwd is None else os.path.join(str(cwd), name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return name
    else:
        found = shutil.which(name, path=(env if env is not None else os.environ).get("PATH", os.defpath))
        if found is not None:
            return found
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
