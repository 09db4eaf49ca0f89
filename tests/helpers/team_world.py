"""A team's machines sharing one real server (`git_server.TeamServer`): each a HOME of its own
(git config, ssh keys or stored http credentials, machine config), its vault at the default
`~/jacked-vault`, and a code repo `~/code/api` (origin github.com/acme/api, group `api`).

Everything a machine does goes through the real CLI or the real hooks in a subprocess, with
the HOME's environment and stdin closed, as a person's terminal or a harness runs them."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from conftest import make_repo

from helpers.git_server import ClientHome, TeamServer
from tests.helpers import cli_fork

GROUP = "api"
CODE_ORIGIN = "git@github.com:acme/api.git"


@dataclass(frozen=True)
class Machine:
    name: str
    via: str  # ssh | http
    client: ClientHome

    @property
    def home(self) -> Path:
        return self.client.home

    @property
    def vault(self) -> Path:
        return self.home / "jacked-vault"

    @property
    def code(self) -> Path:
        return self.home / "code" / GROUP

    def env(self, **extra: str) -> dict[str, str]:
        return self.client.env(JACKED_MEMORY_HARNESS=self.name, **extra)

    def cli(self, *args: str, timeout: float = 180, **extra: str) -> subprocess.CompletedProcess:
        """`jacked memory ARGS` on this machine, stdin closed; never raises on a failure."""
        return cli_fork.jacked(["memory", *args], env=self.env(**extra), cwd=self.code, timeout=timeout)

    def cli_json(self, *args: str, **extra: str) -> dict:
        proc = self.cli(*args, "--json", **extra)
        try:
            return json.loads(proc.stdout)
        except ValueError:
            raise AssertionError(f"{self.name}: {args} printed no JSON: {proc.stdout!r} {proc.stderr!r}") from None

    def hook(self, name: str, payload: dict, **extra: str) -> subprocess.Popen:
        """Start `jacked _hook NAME` with the payload on stdin, as a harness does (not waited for)."""
        sent = self.home / "payloads" / f"{name}-{time.monotonic_ns()}.json"
        sent.parent.mkdir(exist_ok=True)
        sent.write_text(json.dumps(payload))
        with sent.open("rb") as stdin:
            return subprocess.Popen(
                [sys.executable, "-m", "jacked_vault.cli.main", "_hook", name],
                stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.code, env=self.env(**extra),
                start_new_session=True,  # `wait_all` can end it with every git it started
            )  # fmt: skip

    def start_payload(self, session: str) -> dict:
        return {"session_id": session, "cwd": str(self.code), "hook_event_name": "SessionStart", "source": "startup"}

    def end_payload(self, session: str, transcript: Path) -> dict:
        return {
            "session_id": session, "transcript_path": str(transcript), "cwd": str(self.code),
            "hook_event_name": "SessionEnd", "reason": "exit",
        }  # fmt: skip

    def log(self) -> list[str]:
        from helpers.state import state_dir

        path = state_dir(self.vault) / "log"
        return path.read_text().splitlines() if path.exists() else []


def make_machine(root: Path, server: TeamServer, name: str, via: str) -> Machine:
    """A HOME under `root` that reaches `server` over `via`, with its code repo (no vault yet)."""
    client = ClientHome(root / name, server)
    client = client.ssh() if via == "ssh" else client.http()
    machine = Machine(name, via, client)
    machine.code.mkdir(parents=True)
    make_repo(machine.code, CODE_ORIGIN)
    return machine


def found(machine: Machine, server: TeamServer) -> None:
    """The machine makes the team's vault and pushes it to the server."""
    for args in (("init", "--no-scan"), ("remote", "set", server.url(machine.via)), ("push",)):
        proc = machine.cli(*args)
        assert proc.returncode == 0, (machine.name, args, proc.stdout, proc.stderr)


def clone(machine: Machine, server: TeamServer) -> None:
    """The machine joins the team: `init --from` the server's URL over its own link."""
    proc = machine.cli("init", "--from", server.url(machine.via))
    assert proc.returncode == 0, (machine.name, proc.stdout, proc.stderr)


def join(machines: list[Machine], server: TeamServer) -> None:
    """The first machine makes the vault and pushes it; every other clones it."""
    found(machines[0], server)
    for machine in machines[1:]:
        clone(machine, server)


def wait_all(procs: list[subprocess.Popen], timeout_s: float) -> list[Ended]:
    """Wait for processes started together (each in a session of its own), each within
    `timeout_s` from now (one overrunning is killed with its session: its code is None); how
    each ended, and when."""
    started = time.monotonic()

    def one(proc: subprocess.Popen) -> Ended:
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # and its git children, which hold its pipes too
            out, err = proc.communicate()
            return Ended(None, out, err, time.monotonic() - started)
        return Ended(proc.returncode, out, err, time.monotonic() - started)

    with ThreadPoolExecutor(max_workers=max(1, len(procs))) as pool:
        return list(pool.map(one, procs))


@dataclass(frozen=True)
class Ended:
    code: int | None  # None: still running at the deadline, killed
    out: bytes
    err: bytes
    seconds: float
