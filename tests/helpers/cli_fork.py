"""The real CLI in a process forked from a warm one (issue 35.6: the suite under 10 minutes).

Most of a `jacked` process's time is the interpreter starting and importing pygit2, typer and the
package; the suite starts thousands of them. `run(...)` gives a test the same thing
`subprocess.run([python, "-m", "jacked_vault.cli.main", ...])` gives, from a process forked off a
server that imported those once: its own pid, the test's argv, environment, working folder and
stdin, stdout and stderr of its own, `main()` run as `python -m` runs it, then atexit, then exit;
its exit status read with `waitpid` (a signal's death is `-signal`, as `subprocess` says it).

What a fork cannot give, `conftest.run_cli` gets from a plain subprocess: a fresh interpreter's
imports (what a command loads is tested through plain processes: test_lean_cli, test_secrets_lazy),
and any variable that acts at interpreter start (`PYTHON*`, the locale). `JACKED_TEST_SPAWN=1`
runs every CLI call as a plain subprocess.

One server per test process (each xdist worker), started on first use, gone when that process is.
Run as a script, this module is the server.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

# What the server imports once, beyond the whole package: the heavy libraries every command loads.
PRELOAD = ("pygit2", "sqlite3")
# Variables a fork cannot honour: they act when an interpreter starts.
AT_START = ("PYTHON", "LC_", "LANG")
MAIN = "jacked_vault.cli.main"


def forkable(env: dict[str, str]) -> bool:
    """Whether a call with `env` may be forked (no variable that acts at interpreter start differs)."""
    if os.environ.get("JACKED_TEST_SPAWN") == "1":
        return False
    here = {k: v for k, v in os.environ.items() if k.startswith(AT_START)}
    there = {k: v for k, v in env.items() if k.startswith(AT_START)}
    return here == there


class _Server:
    """This test process's warm server: its process and its socket."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="jacked-cli-fork-")
        self.path = os.path.join(self.folder, "s")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, self.path, str(os.getpid())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd="/",
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline() != b"ready\n":
            raise RuntimeError("the CLI fork server did not start")
        self.owner = os.getpid()
        atexit.register(self.close)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_server: _Server | None = None
_lock = threading.Lock()


def _the_server() -> _Server:
    global _server
    with _lock:
        if _server is None or _server.owner != os.getpid() or _server.proc.poll() is not None:
            _server = _Server()
        return _server


def jacked(
    args: list[str], *, env: dict[str, str], cwd: Path | None, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python -m jacked_vault.cli.main ARGS` with `env` in `cwd`, `stdin` its input (None: none), its
    output captured as text: forked from the warm server when `forkable`, else a fresh interpreter."""
    if forkable(env):
        return run(args, env=env, cwd=cwd, stdin=stdin, timeout=timeout)
    return subprocess.run(
        [sys.executable, "-m", MAIN, *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )


def run(
    args: list[str], *, env: dict[str, str], cwd: Path | None, stdin: str | None, timeout: float
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run([python, -m, jacked_vault.cli.main, *args], capture_output=True, text=True, ...)`,
    from a fork of the warm server."""
    folder = os.fspath(cwd) if cwd is not None else os.getcwd()
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"No such directory: {folder!r}")
    server = _the_server()
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        given.write((stdin or "").encode())
        given.seek(0)
        header = json.dumps({"args": args, "env": env, "cwd": folder, "stdin": stdin is not None}).encode()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(server.path)
            socket.send_fds(
                conn, [struct.pack("!I", len(header)) + header], [given.fileno(), out.fileno(), err.fileno()]
            )
            conn.settimeout(timeout)
            answer = b""
            try:
                while chunk := conn.recv(64):
                    answer += chunk
            except TimeoutError:
                if b"\n" in answer:  # as subprocess.run does: the command killed, then the timeout raised
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(answer.split(b"\n")[0]), signal.SIGKILL)
                raise subprocess.TimeoutExpired([MAIN, *args], timeout) from None
        status = answer.decode().partition("\n")[2]
        code = int(status or "-9")
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(
            [sys.executable, "-m", MAIN, *args], code, _text(out.read()), _text(err.read())
        )


def _text(data: bytes) -> str:
    """Bytes as `subprocess.run(text=True)` decodes them (the locale's encoding, universal newlines)."""
    return data.decode().replace("\r\n", "\n").replace("\r", "\n")


# == the server =====================================================================================


def _warm() -> None:
    """Import what the commands use, once: `PRELOAD`, every module of the package (no command
    imports anything here again), and the secret engine compiled (a pure cache of the rules, the
    same in every process; reads no file, environment or clock)."""
    import importlib
    import pkgutil

    import jacked_vault
    from jacked_vault.cli import main
    from jacked_vault.safety import secrets

    for name in PRELOAD:
        importlib.import_module(name)
    main.register_commands()  # first, so the commands keep the order the CLI gives them
    for module in pkgutil.walk_packages(jacked_vault.__path__, "jacked_vault."):
        if not module.name.endswith(".__main__"):
            importlib.import_module(module.name)
    secrets._engine()


def _serve(path: str, parent: int) -> None:
    _warm()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.settimeout(1.0)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers reap themselves
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while os.getppid() == parent:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _handle(conn)
        conn.close()


def _handle(conn: socket.socket) -> None:
    """One call: fork the command with its fds, wait for it, answer its exit status."""
    conn.settimeout(None)
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
    size = struct.unpack("!I", data[:4])[0]
    while len(data) < 4 + size:
        data += conn.recv(1 << 20)
    call = json.loads(data[4 : 4 + size])
    pid = os.fork()
    if pid == 0:
        conn.close()
        _command(call, fds)
    conn.sendall(f"{pid}\n".encode())  # first the pid, so a caller that times out can kill it
    for fd in fds:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    conn.sendall(str(code).encode())
    conn.close()
    os._exit(0)


def _command(call: dict[str, object], fds: list[int]) -> None:
    """The command's process: the call's fds as 0, 1, 2, its environment and folder, then
    `main()` as `python -m jacked_vault.cli.main` runs it (`sys.exit(main())`)."""
    import atexit as exits
    import traceback

    from jacked_vault.cli.main import main

    stdin = fds[0] if call["stdin"] else os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((stdin, 0), (fds[1], 1), (fds[2], 2)):
        os.dup2(fd, target)
    for fd in {*fds, stdin}:
        if fd > 2:
            os.close(fd)
    env = call["env"]
    assert isinstance(env, dict)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(str(call["cwd"]))
    _fresh_git_search_paths()
    args = call["args"]
    assert isinstance(args, list)
    sys.argv = [MAIN, *args]
    code = 0
    try:
        code = _exit_code(main())
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # what the interpreter does at exit
        exits._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _fresh_git_search_paths() -> None:
    """libgit2 keeps where it found the global, XDG and system config (from the server's HOME):
    forget them, so this call's HOME and XDG_CONFIG_HOME decide, as in a fresh process."""
    import pygit2
    from pygit2.enums import ConfigLevel

    for level in (ConfigLevel.GLOBAL, ConfigLevel.XDG, ConfigLevel.SYSTEM, ConfigLevel.PROGRAMDATA):
        pygit2.settings.search_path[level] = None


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]))
