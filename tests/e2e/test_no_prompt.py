"""jacked never runs an askpass program or waits on a prompt; credential helpers still answer
(issue 32.3; SPEC 10, "A team's server").

With `GIT_ASKPASS` or `SSH_ASKPASS` set, or `core.askPass`, git ran the program to ask for a
password even with `GIT_TERMINAL_PROMPT=0`, and a push inside a hook waited up to 60 s (3 s at
session start) for an answer nobody gives. Here the askpass program would block for a minute and
records that it ran; the server is the team's real server on loopback (`helpers/git_server.py`:
`git http-backend` behind lighttpd with basic auth, and an OpenSSH server).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, git, run_cli
from helpers.git_server import HTTP_PASSWORD, HTTP_USER, TeamServer, team_server  # noqa: F401 (the fixture)
from helpers.state import state_dir

ASKPASS_VARIABLES = ("GIT_ASKPASS", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "GIT_TERMINAL_PROMPT")


@pytest.fixture(autouse=True)
def _no_askpass(monkeypatch):
    for name in ASKPASS_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _askpass(tmp_path: Path) -> tuple[Path, Path]:
    """(an askpass program that answers only after a minute and records that it ran, its record)."""
    record = tmp_path / "askpass.ran"
    program = tmp_path / "askpass"
    program.write_text(f'#!/bin/sh\necho "$1" >> {record}\nsleep 60\necho nobody\n')
    program.chmod(0o755)
    return program, record


def _vault(tmp_path: Path, server: TeamServer) -> Path:
    """A vault with one note on top of its init, its origin the server's `remote.git`."""
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    git(vault, "remote", "add", "origin", server.http_url)
    assert run_cli("memory", "add", "--group", "g", "--title", "T", "--body", "b", vault=vault).code == 0
    return vault


@pytest.mark.parametrize("where", ["GIT_ASKPASS", "SSH_ASKPASS", "core.askPass"])
def test_a_push_that_needs_a_password_fails_fast_and_runs_no_askpass(
    tmp_path: Path,
    team_server: TeamServer,  # noqa: F811
    where: str,
):
    program, record = _askpass(tmp_path)
    vault = _vault(tmp_path, team_server)
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
    assert team_server.head() is None  # nothing arrived
    assert git(vault, "rev-parse", "HEAD") == head


def test_the_session_start_pull_fails_at_once_instead_of_asking(tmp_path: Path, team_server: TeamServer):  # noqa: F811
    program, record = _askpass(tmp_path)
    vault = _vault(tmp_path, team_server)
    subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "session-start"],
        input=json.dumps({"cwd": str(tmp_path)}), capture_output=True, text=True, timeout=60,
        env=cli_env(vault, GIT_ASKPASS=str(program), SSH_ASKPASS=str(program)), cwd=vault.parent,
    )  # fmt: skip
    assert not record.exists(), "the askpass program ran"
    pull = json.loads((state_dir(vault) / "sync-state.json").read_text())["pull"]
    assert pull["result"] == "failed" and "could not read Username" in pull["message"], pull


def test_a_credential_helper_still_answers(tmp_path: Path, team_server: TeamServer):  # noqa: F811
    """A helper answers without a person: the push lands, and the askpass program never runs."""
    program, record = _askpass(tmp_path)
    vault = _vault(tmp_path, team_server)
    helper = f"!f() {{ test \"$1\" = get && printf 'username={HTTP_USER}\\npassword={HTTP_PASSWORD}\\n'; }}; f"
    git(vault, "config", "credential.helper", helper)
    done = run_cli("memory", "sync", vault=vault, GIT_ASKPASS=str(program))
    assert done.code == 0, done.err
    logged_in = lambda requests: any(user == HTTP_USER for _, _, user in requests)  # noqa: E731
    assert logged_in(team_server.http_requests(until=logged_in)), "no request came with the helper's login"
    assert team_server.head() == git(vault, "rev-parse", "HEAD").strip()
    assert not record.exists()


def test_ssh_asking_about_an_unknown_host_runs_no_askpass(tmp_path: Path, team_server: TeamServer):  # noqa: F811
    """The person's own GIT_SSH_COMMAND (kept) and an askpass ssh is told to use even with a
    terminal (`SSH_ASKPASS_REQUIRE=force`): a real sshd whose host key is unknown here."""
    program, record = _askpass(tmp_path)
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    url, _ = team_server.direct_ssh(tmp_path / "known_hosts")
    git(vault, "remote", "add", "origin", url)
    unknown = f"ssh -i {team_server.client_key} -o IdentitiesOnly=yes -o UserKnownHostsFile={tmp_path / 'none'}"
    started = time.monotonic()
    done = run_cli(
        "memory", "push", vault=vault, GIT_SSH_COMMAND=unknown, SSH_ASKPASS=str(program), SSH_ASKPASS_REQUIRE="force"
    )
    assert done.code == 1 and "Host key verification failed" in done.err, done.err
    assert not record.exists(), f"the askpass program ran ({record.read_text()!r})"
    assert time.monotonic() - started < 20
    assert team_server.head() is None
