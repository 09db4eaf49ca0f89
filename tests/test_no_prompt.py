"""jacked never runs an askpass program or waits on a prompt; credential helpers still answer
(issue 32.3; SPEC 10, "A team's server").

With `GIT_ASKPASS` or `SSH_ASKPASS` set, or `core.askPass`, git ran the program to ask for a
password even with `GIT_TERMINAL_PROMPT=0`, and a push inside a hook waited up to 60 s (3 s at
session start) for an answer nobody gives. Here the askpass program would block for a minute and
records that it ran; the server is a real `git http-backend` behind basic auth on loopback
(`helpers/http_remote.py`), or a real sshd on loopback (`helpers/sshd.py`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_env, git, run_cli
from helpers.http_remote import HttpRemote, http_remote
from helpers.sshd import Sshd, sshd  # noqa: F401 (the fixture)
from helpers.state import state_dir
from helpers.sync_world import bare_remote, remote_head

ASKPASS_VARIABLES = ("GIT_ASKPASS", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "GIT_TERMINAL_PROMPT")


@pytest.fixture(autouse=True)
def _no_askpass(monkeypatch):
    for name in ASKPASS_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _askpass(tmp_path: Path) -> tuple[Path, Path]:
    """(an askpass program that answers only after a minute and records that it ran, its record)."""
    record = tmp_path / "askpass.ran"
    program = tmp_path / "askpass"
    program.write_text(f"#!/bin/sh\necho \"$1\" >> {record}\nsleep 60\necho nobody\n")
    program.chmod(0o755)
    return program, record


def _vault(tmp_path: Path, server: HttpRemote) -> Path:
    """A vault with one note on top of its init, its origin the server's `remote.git`."""
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    git(vault, "remote", "add", "origin", server.url("remote.git"))
    assert run_cli("memory", "add", "--group", "g", "--title", "T", "--body", "b", vault=vault).code == 0
    return vault


@pytest.mark.parametrize("where", ["GIT_ASKPASS", "SSH_ASKPASS", "core.askPass"])
def test_a_push_that_needs_a_password_fails_fast_and_runs_no_askpass(tmp_path: Path, where: str):
    program, record = _askpass(tmp_path)
    bare_remote(tmp_path / "served" / "remote.git")
    with http_remote(tmp_path / "served") as server:
        vault = _vault(tmp_path, server)
        env = {where: str(program)} if where != "core.askPass" else {}
        if where == "core.askPass":
            git(vault, "config", "core.askPass", str(program))
        head = git(vault, "rev-parse", "HEAD")
        started = time.monotonic()
        done = run_cli("memory", "push", vault=vault, **env)
        took = time.monotonic() - started
    assert done.code == 1 and "JACKED_MEMORY_SYNC" in done.err
    assert "could not read Username" in done.err and "prompts disabled" in done.err, done.err
    assert not record.exists(), f"the askpass program ran ({record.read_text()!r})"
    assert took < 20, f"the push waited {took:.1f} s"
    assert remote_head(tmp_path / "served" / "remote.git") == ""  # nothing arrived
    assert git(vault, "rev-parse", "HEAD") == head


def test_the_session_start_pull_fails_at_once_instead_of_asking(tmp_path: Path):
    program, record = _askpass(tmp_path)
    bare_remote(tmp_path / "served" / "remote.git")
    with http_remote(tmp_path / "served") as server:
        vault = _vault(tmp_path, server)
        subprocess.run(
            [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "session-start"],
            input=json.dumps({"cwd": str(tmp_path)}), capture_output=True, text=True, timeout=60,
            env=cli_env(vault, GIT_ASKPASS=str(program), SSH_ASKPASS=str(program)), cwd=vault.parent,
        )  # fmt: skip
    assert not record.exists(), "the askpass program ran"
    pull = json.loads((state_dir(vault) / "sync-state.json").read_text())["pull"]
    assert pull["result"] == "failed" and "could not read Username" in pull["message"], pull


def test_a_credential_helper_still_answers(tmp_path: Path):
    """A helper answers without a person: the push lands, and the askpass program never runs."""
    program, record = _askpass(tmp_path)
    bare_remote(tmp_path / "served" / "remote.git")
    with http_remote(tmp_path / "served") as server:
        vault = _vault(tmp_path, server)
        helper = f"!f() {{ test \"$1\" = get && printf 'username={server.user}\\npassword={server.password}\\n'; }}; f"
        git(vault, "config", "credential.helper", helper)
        done = run_cli("memory", "sync", vault=vault, GIT_ASKPASS=str(program))
        assert done.code == 0, done.err
        assert server.users_seen, "the server never saw the helper's credentials"
    assert remote_head(tmp_path / "served" / "remote.git") == git(vault, "rev-parse", "HEAD").strip()
    assert not record.exists()


def test_ssh_asking_about_an_unknown_host_runs_no_askpass(tmp_path: Path, sshd: Sshd):  # noqa: F811
    """The person's own GIT_SSH_COMMAND (kept) and an askpass ssh is told to use even with a
    terminal (`SSH_ASKPASS_REQUIRE=force`): a real sshd whose host key is unknown here."""
    program, record = _askpass(tmp_path)
    remote_path = tmp_path / "remote.git"
    bare_remote(remote_path)
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    git(vault, "remote", "add", "origin", sshd.url(remote_path))
    unknown = f"ssh -i {sshd.user_key} -o IdentitiesOnly=yes -o UserKnownHostsFile={tmp_path / 'none'}"
    started = time.monotonic()
    done = run_cli(
        "memory", "push", vault=vault, GIT_SSH_COMMAND=unknown, SSH_ASKPASS=str(program), SSH_ASKPASS_REQUIRE="force"
    )
    assert done.code == 1 and "Host key verification failed" in done.err, done.err
    assert not record.exists(), f"the askpass program ran ({record.read_text()!r})"
    assert time.monotonic() - started < 20
    assert remote_head(remote_path) == ""
