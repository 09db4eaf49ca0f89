"""A team's real git server on loopback, started and stopped by the test that needs it.

One bare repository (`remote.git`) served two ways, each behind a `Proxy` the test can switch:

- **ssh**: Debian's OpenSSH server (`sshd -D`) with its own host key and config in a temp dir,
  key login only, every key forced through `git-shell` (`command=…,restrict` in its
  authorized_keys), as the current user (root here: sshd then needs its privilege-separation
  folder `/run/sshd`, which Debian's service creates and which is made here when missing);
- **http**: `git http-backend` behind lighttpd (mod_cgi, mod_alias, mod_auth with a plain user
  file: basic auth). lighttpd because git's own `git-http-backend(1)` documents this exact
  setup, it runs in the foreground from one small config file (no site or module to enable
  system-wide, no user switch when started by root, unlike apache2), and it starts in
  milliseconds.

A machine reaches the server as a person's would: `ClientHome` writes the HOME's
`~/.ssh/config`, key and `known_hosts` (an `ssh` on the HOME's PATH reads that config: OpenSSH
reads the passwd entry's home, never $HOME, and a test must not touch the real one), and
`~/.gitconfig` with `credential.helper store` and `~/.git-credentials` for http. Nothing asks.

`server_or_skip` skips a test, saying why, where sshd or lighttpd cannot be found (`.ci/run`
installs both from Debian). Every process started here is stopped by `TeamServer.close()`.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import select
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SBIN = ("/usr/sbin", "/sbin", "/usr/local/sbin")
HOST_ALIAS = "jacked-team-server"  # the name the host key is known under, whatever the port
HTTP_USER = "alice"
HTTP_PASSWORD = "correct-horse-battery"  # the test server's; nothing real
ACCESS_LOG_WAIT_S = 15.0  # lighttpd buffers access log lines and writes them out seconds later


def find_program(name: str) -> str | None:
    """`name` on PATH or in the sbin folders (a test's PATH rarely holds them)."""
    return shutil.which(name) or shutil.which(name, path=os.pathsep.join(SBIN))


def missing_servers() -> str | None:
    """Why the real servers cannot run here, or None when they can."""
    missing = [pkg for prog, pkg in (("sshd", "openssh-server"), ("lighttpd", "lighttpd")) if not find_program(prog)]
    if not (Path("/usr/lib/git-core/git-http-backend").exists() or find_program("git-http-backend")):
        missing.append("git (git-http-backend)")
    if missing:
        return (
            f"the team-server tests need Debian's {' and '.join(missing)}, not installed here "
            f"(`apt-get install {' '.join(missing)}`; .ci/run installs them)"
        )
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_listening(port: int, proc: subprocess.Popen, log: Path, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited ({proc.returncode}): {_tail(log)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.02)
    raise RuntimeError(f"{proc.args[0]} did not listen on {port} within {timeout_s}s: {_tail(log)}")


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-800:] if log.exists() else "(no log)"


def _die_with_parent() -> None:
    """In the server's child before exec: it gets SIGTERM when the test process dies, even by a
    kill the test could not clean up after (Linux's PR_SET_PDEATHSIG)."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _spawn(argv: list[str], log: Path) -> subprocess.Popen:
    """A server in the foreground, in its own session (so `_stop` ends what it forks), its output
    in `log`, bound to die with the test process."""
    with log.open("ab") as out:
        return subprocess.Popen(
            argv, start_new_session=True, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
            preexec_fn=_die_with_parent,  # a ctypes call only: safe in the forked child
        )  # fmt: skip


def _stop(proc: subprocess.Popen | None) -> None:
    """Stop a server started in its own session, and everything it forked there (its process
    group outlives it while a child is alive)."""
    if proc is None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


# ------------------------------------------------------------------------------------- the proxy


class Proxy:
    """A TCP proxy on a free loopback port in front of `target_port`, switchable at any time:

    - `pass`: forwards both ways;
    - `refuse`: nobody listens on the port (a connection is refused), until switched back;
    - `blackhole`: accepts and never answers (the connection stays open, silent);
    - `slow`: forwards each chunk after `delay_s`.

    A switch applies to new connections; `refuse`/`blackhole` leave open ones as they are."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.mode = "pass"
        self.delay_s = 0.0
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._applied = threading.Event()  # the accept loop has opened or closed the port as `mode` says
        self._wake_r, self._wake_w = os.pipe()
        self._sockets: list[socket.socket] = []
        self._listener: socket.socket | None = self._listen(0)
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept_loop, name=f"proxy:{self.port}", daemon=True)
        self._thread.start()

    def set(self, mode: str, delay_s: float = 0.0) -> None:
        """Switch to `mode`; returns once the port is open or closed as the mode says."""
        if mode not in ("pass", "refuse", "blackhole", "slow"):
            raise ValueError(mode)
        with self._lock:
            self.mode, self.delay_s = mode, delay_s
            self._applied.clear()
        os.write(self._wake_w, b"x")
        if not self._applied.wait(timeout=10):
            raise RuntimeError(f"proxy {self.port} did not switch to {mode}")

    @contextlib.contextmanager
    def switched(self, mode: str, delay_s: float = 0.0):
        """`mode` for the duration of a `with` block, then `pass` again."""
        self.set(mode, delay_s)
        try:
            yield self
        finally:
            self.set("pass")

    def close(self) -> None:
        self._stopped.set()
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=10)
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.close()
            self._sockets.clear()
        os.close(self._wake_r)
        os.close(self._wake_w)

    @staticmethod
    def _listen(port: int) -> socket.socket:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
        return sock

    def _accept_loop(self) -> None:
        """The one owner of the listening socket: it opens and closes it as the mode says (so no
        other thread closes it under a `select`), and accepts while it is open."""
        while not self._stopped.is_set():
            with self._lock:
                refusing = self.mode == "refuse"
            if refusing and self._listener is not None:
                self._listener.close()
                self._listener = None
            elif not refusing and self._listener is None:
                self._listener = self._listen(self.port)
            self._applied.set()
            waiting = [self._wake_r] + ([self._listener] if self._listener is not None else [])
            ready, _, _ = select.select(waiting, [], [], 1.0)
            if self._wake_r in ready:
                os.read(self._wake_r, 64)
                continue
            if self._listener is not None and self._listener in ready:
                with contextlib.suppress(OSError):  # the client gave up meanwhile
                    self._start(self._listener.accept()[0])
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def _start(self, client: socket.socket) -> None:
        with self._lock:
            self._sockets.append(client)
            mode = self.mode
        if mode == "blackhole":
            return  # held open, never read, never answered
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        with self._lock:
            self._sockets.append(upstream)
        for src, dst in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                if self.mode == "slow":
                    time.sleep(self.delay_s)
                dst.sendall(data)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


# ------------------------------------------------------------------------------------- the servers


@dataclass
class TeamServer:
    """One bare repository served over ssh and http, each behind its proxy. Start with `start`;
    `close` stops every process and thread it started."""

    root: Path
    repo: Path = field(init=False)
    user: str = field(init=False)
    sshd: subprocess.Popen | None = None
    httpd: subprocess.Popen | None = None
    ssh_proxy: Proxy | None = None
    http_proxy: Proxy | None = None
    client_key: Path = field(init=False)  # the key authorized_keys lets in
    host_public: str = ""
    anonymous_read: bool = False  # http: fetches need no login (pushes always do), as on a public forge

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.repo = self.root / "repos" / "remote.git"
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.client_key = self.root / "client_key"

    @classmethod
    def start(cls, root: Path, *, anonymous_read: bool = False) -> TeamServer:
        server = cls(root, anonymous_read=anonymous_read)
        try:
            server._make_repo()
            server._start_sshd()
            server._start_httpd()
        except BaseException:
            server.close()
            raise
        return server

    # --- what a test does to the server --------------------------------------------------------

    @property
    def ssh_url(self) -> str:
        """The URL a machine set up by `ClientHome.ssh` uses (its ssh config names the host)."""
        return f"{HOST_ALIAS}:{self.repo}"

    @property
    def http_url(self) -> str:
        assert self.http_proxy is not None
        return f"http://127.0.0.1:{self.http_proxy.port}/git/{self.repo.name}"

    def url(self, via: str) -> str:
        return self.ssh_url if via == "ssh" else self.http_url

    def direct_ssh(self, known_hosts: Path) -> tuple[str, str]:
        """(an ssh:// URL by address and port, the ssh command that logs in with the server's client
        key and knows its host key from `known_hosts`, written here): what a person puts in
        `core.sshCommand` when no ssh config names the server."""
        port = self.proxy("ssh").port
        known_hosts.write_text(f"[127.0.0.1]:{port} {self.host_public}\n")
        command = f"ssh -i {self.client_key} -o IdentitiesOnly=yes -o UserKnownHostsFile={known_hosts}"
        return f"ssh://{self.user}@127.0.0.1:{port}{self.repo}", command

    def http_requests(self, until: Callable[[list[tuple[str, int, str]]], bool]) -> list[tuple[str, int, str]]:
        """(request path and query, status, user or "-") of every http request so far, in order,
        once `until` holds of them or after `ACCESS_LOG_WAIT_S` (lighttpd buffers its access log
        and writes it out a few seconds later; the user is there only when the password was right)."""
        log = self.root / "lighttpd-access.log"
        deadline = time.monotonic() + ACCESS_LOG_WAIT_S
        while True:
            out = []
            for line in log.read_text(errors="replace").splitlines() if log.exists() else []:
                # host vhost user [time] "METHOD path HTTP/1.1" status bytes "referer" "agent"
                head, _, rest = line.partition(' "')
                request, _, tail = rest.partition('" ')
                out.append((request.split(" ")[1], int(tail.split()[0]), head.split()[2]))
            if until(out) or time.monotonic() > deadline:
                return out
            time.sleep(0.2)

    def proxy(self, via: str) -> Proxy:
        proxy = self.ssh_proxy if via == "ssh" else self.http_proxy
        assert proxy is not None
        return proxy

    def git(self, *args: str) -> str:
        """git run on the bare repository, server side."""
        return subprocess.run(
            ["git", "-C", str(self.repo), *args], capture_output=True, text=True, check=True, env=self._git_env()
        ).stdout

    def head(self) -> str | None:
        proc = subprocess.run(
            ["git", "-C", str(self.repo), "rev-parse", "--verify", "-q", "refs/heads/main"],
            capture_output=True, text=True, env=self._git_env(),
        )  # fmt: skip
        return proc.stdout.strip() or None

    def pre_receive(self, script: str | None) -> None:
        """Install (a shell script's body) or remove the bare repository's pre-receive hook."""
        hook = self.repo / "hooks" / "pre-receive"
        if script is None:
            hook.unlink(missing_ok=True)
            return
        hook.write_text("#!/bin/sh\n" + script)
        hook.chmod(0o755)

    def rewind(self, commit: str) -> None:
        """Force the server's main to `commit` (what a force-push does), whatever it held."""
        self.git("update-ref", "refs/heads/main", commit)

    def close(self) -> None:
        for proxy in (self.ssh_proxy, self.http_proxy):
            if proxy is not None:
                proxy.close()
        _stop(self.sshd)
        _stop(self.httpd)

    # --- starting ------------------------------------------------------------------------------

    def _git_env(self) -> dict[str, str]:
        return {
            "PATH": "/usr/bin:/bin", "HOME": str(self.root), "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C",
        }  # fmt: skip

    def _make_repo(self) -> None:
        self.repo.parent.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(self.repo)], check=True, env=self._git_env())

    def _start_sshd(self) -> None:
        sshd = find_program("sshd")
        assert sshd is not None
        keygen = ["ssh-keygen", "-q", "-t", "ed25519", "-N", ""]
        subprocess.run([*keygen, "-f", str(self.root / "host_key")], check=True)
        subprocess.run([*keygen, "-f", str(self.client_key)], check=True)
        self.host_public = " ".join((self.root / "host_key.pub").read_text().split()[:2])
        serve = self.root / "git-serve"
        serve.write_text(
            "#!/bin/sh\n# forced command of every key: git-shell, with the server's own HOME\n"
            f"export HOME='{self.root}' GIT_CONFIG_NOSYSTEM=1 PATH=/usr/bin:/bin\n"
            'exec git-shell -c "$SSH_ORIGINAL_COMMAND"\n'
        )
        serve.chmod(0o755)
        public = (self.client_key.with_suffix(".pub")).read_text().strip()
        (self.root / "authorized_keys").write_text(f'command="{serve}",restrict {public}\n')
        if os.getuid() == 0 and not Path("/run/sshd").is_dir():
            Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)  # sshd's privsep folder
        log = self.root / "sshd.log"
        for _ in range(3):  # a free port can be taken between the probe and sshd's bind
            port = free_port()
            config = self.root / "sshd_config"
            config.write_text(
                "\n".join(
                    (
                        f"Port {port}",
                        "ListenAddress 127.0.0.1",
                        f"HostKey {self.root / 'host_key'}",
                        f"AuthorizedKeysFile {self.root / 'authorized_keys'}",
                        "AuthenticationMethods publickey",
                        "PubkeyAuthentication yes",
                        "PasswordAuthentication no",
                        "KbdInteractiveAuthentication no",
                        "PermitRootLogin prohibit-password",
                        "StrictModes no",  # the temp dirs above are not a home's
                        "UsePAM no",
                        "PidFile none",
                        "MaxStartups 100",
                        "LogLevel VERBOSE",
                        "",
                    )
                )
            )
            self.sshd = _spawn([sshd, "-D", "-f", str(config), "-E", str(log)], log)
            try:
                _wait_listening(port, self.sshd, log)
            except RuntimeError:
                _stop(self.sshd)
                continue
            self.ssh_proxy = Proxy(port)
            return
        raise RuntimeError(f"sshd did not start: {_tail(log)}")

    def _start_httpd(self) -> None:
        lighttpd = find_program("lighttpd")
        assert lighttpd is not None
        backend = "/usr/lib/git-core/git-http-backend"
        if not Path(backend).exists():
            backend = find_program("git-http-backend") or backend
        for folder in ("www", "upload"):
            (self.root / folder).mkdir(exist_ok=True)
        (self.root / "http_users").write_text(f"{HTTP_USER}:{HTTP_PASSWORD}\n")
        log = self.root / "lighttpd.log"
        login = '("" => ("method" => "basic", "realm" => "jacked team", "require" => "valid-user"))'
        required = f"  auth.require = {login}"
        if self.anonymous_read:  # only a push (its ref advertisement and its pack) asks for a login
            required = (
                f'  $HTTP["querystring"] =~ "service=git-receive-pack" {{ auth.require = {login} }}\n'
                f'  else $HTTP["url"] =~ "/git-receive-pack$" {{ auth.require = {login} }}'
            )
        for _ in range(3):
            port = free_port()
            config = self.root / "lighttpd.conf"
            config.write_text(
                f"""
server.document-root = "{self.root / "www"}"
server.bind = "127.0.0.1"
server.port = {port}
server.modules = ("mod_auth", "mod_authn_file", "mod_alias", "mod_setenv", "mod_cgi", "mod_accesslog")
server.errorlog = "{log}"
accesslog.filename = "{self.root / "lighttpd-access.log"}"
server.upload-dirs = ("{self.root / "upload"}")
alias.url = ("/git" => "{backend}")
$HTTP["url"] =~ "^/git" {{
  cgi.assign = ("" => "")
  setenv.set-environment = (
    "GIT_PROJECT_ROOT" => "{self.repo.parent}", "GIT_HTTP_EXPORT_ALL" => "1",
    "HOME" => "{self.root}", "GIT_CONFIG_NOSYSTEM" => "1", "PATH" => "/usr/bin:/bin"
  )
  auth.backend = "plain"
  auth.backend.plain.userfile = "{self.root / "http_users"}"
{required}
}}
"""
            )
            self.httpd = _spawn([lighttpd, "-D", "-f", str(config)], log)
            try:
                _wait_listening(port, self.httpd, log)
            except RuntimeError:
                _stop(self.httpd)
                continue
            self.http_proxy = Proxy(port)
            return
        raise RuntimeError(f"lighttpd did not start: {_tail(log)}")


# ------------------------------------------------------------------------------------- a machine


@dataclass(frozen=True)
class ClientHome:
    """A person's HOME set up to reach `server` the way a person's is: ssh keys and config,
    or git's credential helper. `env()` is the environment of that person's commands."""

    home: Path
    server: TeamServer

    def ssh(self, key: Path | None = None, known: bool = True) -> ClientHome:
        """`~/.ssh/config` naming the server (through its proxy), the key (the server's own client
        key unless `key`), `known_hosts` with the server's host key (none unless `known`), and an
        `ssh` on the HOME's PATH that reads that config."""
        ssh_dir = self.home / ".ssh"
        ssh_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        identity = ssh_dir / "id_ed25519"
        shutil.copyfile(key or self.server.client_key, identity)
        identity.chmod(0o600)
        (ssh_dir / "known_hosts").write_text(f"{HOST_ALIAS} {self.server.host_public}\n" if known else "")
        (ssh_dir / "config").write_text(
            f"Host {HOST_ALIAS}\n"
            f"  HostName 127.0.0.1\n  Port {self.server.proxy('ssh').port}\n  User {self.server.user}\n"
            f"  IdentityFile {identity}\n  IdentitiesOnly yes\n  HostKeyAlias {HOST_ALIAS}\n"
            f"  UserKnownHostsFile {ssh_dir / 'known_hosts'}\n  GlobalKnownHostsFile /dev/null\n"
            f"  StrictHostKeyChecking yes\n"
        )
        wrapper = self.home / "bin" / "ssh"
        wrapper.parent.mkdir(parents=True, exist_ok=True)
        wrapper.write_text(
            "#!/bin/sh\n# ssh reading this HOME's ~/.ssh/config (OpenSSH reads the passwd home's, not $HOME's)\n"
            f'exec {shutil.which("ssh") or "/usr/bin/ssh"} -F "{ssh_dir / "config"}" "$@"\n'
        )
        wrapper.chmod(0o755)
        self._gitconfig()
        return self

    def http(self, password: str | None = HTTP_PASSWORD) -> ClientHome:
        """`credential.helper store` in `~/.gitconfig`, and `~/.git-credentials` holding the
        server's user and `password` (no line at all with None: git would have to ask)."""
        self._gitconfig(helper=True)
        line = f"http://{HTTP_USER}:{password}@127.0.0.1:{self.server.proxy('http').port}\n"
        (self.home / ".git-credentials").write_text(line if password is not None else "")
        (self.home / ".git-credentials").chmod(0o600)
        return self

    def _gitconfig(self, helper: bool = False) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        path = self.home / ".gitconfig"
        text = path.read_text() if path.exists() else "[user]\n\tname = Team Mate\n\temail = mate@example.com\n"
        if helper and "[credential]" not in text:
            text += "[credential]\n\thelper = store\n"
        path.write_text(text)

    def env(self, **extra: str) -> dict[str, str]:
        """The person's environment: this HOME (its git config, ssh, credentials, machine config),
        nothing of the test runner's jacked, git or ssh settings."""
        drop = ("JACKED_", "GIT_", "SSH_", "CODEX_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            PATH=os.pathsep.join((str(self.home / "bin"), "/usr/bin", "/bin")),
            GIT_CONFIG_NOSYSTEM="1",
            **extra,
        )
        return env


def server_or_skip(root: Path, *, anonymous_read: bool = False) -> TeamServer:
    """A started `TeamServer` in `root`; the test is skipped, saying why, where it cannot run."""
    reason = missing_servers()
    if reason:
        pytest.skip(reason)
    return TeamServer.start(root, anonymous_read=anonymous_read)


@contextlib.contextmanager
def running_server(root: Path, *, anonymous_read: bool = False):
    """`server_or_skip` for the duration of a `with` block, stopped after it."""
    server = server_or_skip(root, anonymous_read=anonymous_read)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def team_server(tmp_path: Path):
    """A started `TeamServer` for one test, stopped after it."""
    with running_server(tmp_path / "server") as server:
        yield server
