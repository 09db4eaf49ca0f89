"""A real OpenSSH server on loopback for one test: its own host key, one authorised user key, a
free port, everything in a temp folder; stopped (and reaped) when the test ends. The test skips,
saying why, where `sshd` is not installed (`.ci/run` installs Debian's openssh-server)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SSHD = shutil.which("sshd") or next((p for p in ("/usr/sbin/sshd", "/usr/local/sbin/sshd") if Path(p).exists()), None)


@dataclass(frozen=True)
class Sshd:
    port: int
    user_key: Path  # the private key the server accepts
    known_hosts: Path  # a known_hosts file that vouches for the server's host key
    folder: Path

    def url(self, path: Path) -> str:
        """The ssh:// URL of a repository at `path` on this server."""
        return f"ssh://127.0.0.1:{self.port}{path}"

    def ssh_command(self, ssh: str = "ssh") -> str:
        """An ssh command line that logs in with the test's key and knows the server (what a person
        puts in core.sshCommand)."""
        return f"{ssh} -i {self.user_key} -o IdentitiesOnly=yes -o UserKnownHostsFile={self.known_hosts}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[Sshd]:
    if SSHD is None or shutil.which("ssh-keygen") is None or shutil.which("ssh") is None:
        pytest.skip("OpenSSH (sshd, ssh, ssh-keygen) is not installed: `apt-get install openssh-server`")
    folder = tmp_path / "sshd"
    folder.mkdir()
    host, user = folder / "host_key", folder / "user_key"
    _keygen(host)
    _keygen(user)
    (folder / "authorized_keys").write_text((folder / "user_key.pub").read_text())
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(exist_ok=True)  # OpenSSH's privilege separation folder (its package makes it)
    port = _free_port()
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host}\nAuthorizedKeysFile {folder / 'authorized_keys'}\n"
        f"PidFile {folder / 'sshd.pid'}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
    )
    known = folder / "known_hosts"
    known.write_text(f"[127.0.0.1]:{port} {' '.join((folder / 'host_key.pub').read_text().split()[:2])}\n")
    server = subprocess.Popen(
        [SSHD, "-D", "-f", str(config), "-E", str(folder / "sshd.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                log = folder / "sshd.log"
                pytest.skip(f"sshd did not start: {log.read_text()[-300:] if log.exists() else 'no log'}")
            time.sleep(0.05)
        yield Sshd(port, user, known, folder)
    finally:
        server.kill()
        server.wait()
