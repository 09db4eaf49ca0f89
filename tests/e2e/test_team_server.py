"""Faults a team meets on a real server (issue 32), each through the real CLI or hook against
`helpers.git_server`: an OpenSSH server with forced git-shell and key login, `git http-backend`
behind lighttpd with basic auth, a proxy that refuses, blackholes or slows the link.

- wrong credentials fail fast and never prompt: a key the server does not know, an unknown host
  key, a wrong or missing http password; with stdin closed, on a terminal, and with an askpass
  program set that would block;
- at session start a refused, blackholed or slow link costs at most the pull's cap, the brief
  is printed all the same and the log says why;
- a server's own refusal (a pre-receive hook) is quoted, not read as a race;
- a server rewound by a force-push is healed by the next sync;
- a killed command leaves no git or ssh behind.

Each of these failed on the code before issue 32's fixes (then marked xfail for its item).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import git_server
from helpers.git_server import HOST_ALIAS, ClientHome, TeamServer
from helpers.processes import marked, run_mark, wait_exited
from helpers.team_world import GROUP, Machine, clone, found, make_machine, wait_all

team_server = git_server.team_server  # the fixture: a started TeamServer

SESSION_START_CAP_S = 3.0
FAST_S = 10.0  # a refused login: git reports it in 1-2 s; on a loaded test machine, well under this
PROMPTS = (b"assword", b"passphrase", b"Username for", b"continue connecting", b"(yes/no")
NOT_ASKED = (b"could not read Username for", b"could not read Password for")  # git's words for a prompt it skipped
BLOCKING_ASKPASS = """#!/bin/sh
# An askpass nobody answers: records that it was asked, then waits.
echo "$@" >> "$0.asked"
sleep 8
"""


@pytest.fixture
def team(team_server: TeamServer, tmp_path: Path) -> tuple[TeamServer, Machine, Machine]:
    """(server, a machine over ssh, one over http), both in the team's vault, which holds a note."""
    ssh = make_machine(tmp_path, team_server, "laptop", "ssh")
    http = make_machine(tmp_path, team_server, "desktop", "http")
    found(ssh, team_server)
    assert (
        ssh.cli("add", "--group", GROUP, "--title", "Deploys go through CI", "--body", "Never by hand.").returncode == 0
    )
    assert ssh.cli("push").returncode == 0
    clone(http, team_server)
    return team_server, ssh, http


def _head(machine: Machine) -> str:
    return subprocess.run(
        ["git", "-C", str(machine.vault), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def _timed(machine: Machine, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    proc = machine.cli(*args, **env)
    return proc, time.monotonic() - started


def _askpass(tmp_path: Path) -> Path:
    program = tmp_path / "askpass"
    program.write_text(BLOCKING_ASKPASS)
    program.chmod(0o755)
    return program


def _on_terminal(machine: Machine, *args: str, **env: str) -> tuple[int, bytes, float]:
    """`jacked memory ARGS` with stdin, stdout and stderr on a pseudo-terminal, nothing typed;
    (exit code, what the terminal showed, seconds)."""
    import pty

    main_fd, child_fd = pty.openpty()
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", *args],
        stdin=child_fd, stdout=child_fd, stderr=child_fd, cwd=machine.code, env=machine.env(**env),
        start_new_session=True,
    )  # fmt: skip
    os.close(child_fd)
    shown = b""
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:
            break  # the child closed the terminal
        if not chunk:
            break
        shown += chunk
    code = proc.wait(timeout=120)
    os.close(main_fd)
    return code, shown, time.monotonic() - started


# --- the harness itself ------------------------------------------------------------------------


def test_the_server_lets_in_its_key_and_password_only(team_server: TeamServer, tmp_path: Path):
    good = ClientHome(tmp_path / "good", team_server).ssh().http()
    clone = subprocess.run(
        ["git", "clone", "-q", team_server.ssh_url, str(tmp_path / "over-ssh")], capture_output=True, env=good.env()
    )
    assert clone.returncode == 0, clone.stderr
    shell = subprocess.run(
        ["ssh", HOST_ALIAS, "ls", "/"], capture_output=True, text=True, env=good.env(), stdin=subprocess.DEVNULL
    )
    assert shell.returncode != 0 and "unrecognized command" in shell.stderr  # the forced git-shell
    listed = subprocess.run(["git", "ls-remote", team_server.http_url], capture_output=True, env=good.env())
    assert listed.returncode == 0, listed.stderr
    stranger = ClientHome(tmp_path / "stranger", team_server).http(password=None)
    refused = subprocess.run(
        ["git", "ls-remote", team_server.http_url], capture_output=True, text=True,
        env=stranger.env(GIT_TERMINAL_PROMPT="0"),
    )  # fmt: skip
    assert refused.returncode != 0 and "terminal prompts disabled" in refused.stderr


def test_the_proxy_refuses_blackholes_slows_and_passes(team_server: TeamServer, tmp_path: Path):
    home = ClientHome(tmp_path / "home", team_server).http()
    proxy = team_server.proxy("http")

    def ls_remote(timeout: float) -> tuple[int | None, str, float]:
        started = time.monotonic()
        proc = subprocess.Popen(
            ["git", "ls-remote", team_server.http_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=home.env(GIT_TERMINAL_PROMPT="0"), start_new_session=True,
        )  # fmt: skip
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # git and its git-remote-http, which holds the pipes too
            proc.communicate()
            return None, "", time.monotonic() - started
        return proc.returncode, err, time.monotonic() - started

    with proxy.switched("refuse"):
        code, err, _ = ls_remote(30)
        assert code != 0 and "Couldn't connect to server" in err  # curl's words for a refused connection
    with proxy.switched("blackhole"):
        code, _, _ = ls_remote(2)
        assert code is None  # still waiting for an answer
    with proxy.switched("slow", delay_s=0.5):
        code, err, seconds = ls_remote(60)
        assert code == 0 and seconds >= 1.0, err
    code, err, _ = ls_remote(30)
    assert code == 0, err


# --- wrong credentials: fast, prompt-free -----------------------------------------------------


def _stranger(tmp_path: Path, server: TeamServer, via: str, fault: str) -> Machine:
    """A team member's machine whose credentials are wrong by `fault`, with a vault of its own
    that holds an unpushed note (so a sync has something to push)."""
    machine = make_machine(tmp_path, server, f"{via}-{fault}", via)
    if fault == "unknown-key":
        key = tmp_path / f"other-key-{via}"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        machine.client.ssh(key=key)
    elif fault == "unknown-host":
        machine.client.ssh(known=False)
    elif fault == "locked-key":  # the right key, behind a passphrase, and no agent holds it
        key = tmp_path / f"locked-key-{via}"
        shutil.copyfile(server.client_key, key)
        key.chmod(0o600)
        subprocess.run(["ssh-keygen", "-q", "-p", "-P", "", "-N", "only in my head", "-f", str(key)], check=True)
        machine.client.ssh(key=key)
    elif fault == "wrong-password":
        machine.client.http(password="not-the-password")
    else:  # no-password: nothing stored, git would have to ask
        machine.client.http(password=None)
    assert machine.cli("init", "--no-scan").returncode == 0
    assert machine.cli("add", "--group", GROUP, "--title", "Unpushed", "--body", "Waits here.").returncode == 0
    subprocess.run(
        ["git", "-C", str(machine.vault), "remote", "add", "origin", server.url(via)], check=True, capture_output=True
    )
    return machine


REFUSALS = {  # fault -> what git or ssh says, as a person sees it in jacked's answer
    "unknown-key": "Permission denied (publickey)",
    "unknown-host": "Host key verification failed",
    "locked-key": "Permission denied (publickey)",
    "wrong-password": "Authentication failed",
    "no-password": "terminal prompts disabled",
}
FAULTS = [
    ("ssh", "unknown-key"),
    ("ssh", "unknown-host"),
    ("ssh", "locked-key"),
    ("http", "wrong-password"),
    ("http", "no-password"),
]


@pytest.mark.parametrize(("via", "fault"), FAULTS)
@pytest.mark.parametrize("command", ["sync", "push"])
def test_wrong_credentials_fail_fast_with_stdin_closed(team_server, tmp_path: Path, via, fault, command):
    machine = _stranger(tmp_path, team_server, via, fault)
    head = _head(machine)
    proc, seconds = _timed(machine, command)
    assert proc.returncode == 1 and "JACKED_MEMORY_SYNC" in proc.stderr, proc.stderr
    assert REFUSALS[fault] in proc.stderr and seconds < FAST_S, (seconds, proc.stderr)
    assert team_server.head() is None and _head(machine) == head  # nothing pushed, nothing changed here


@pytest.mark.parametrize(("via", "fault"), FAULTS)
def test_wrong_credentials_fail_fast_on_a_terminal_without_a_prompt(team_server, tmp_path: Path, via, fault):
    machine = _stranger(tmp_path, team_server, via, fault)
    code, shown, seconds = _on_terminal(machine, "sync")
    assert code == 1 and REFUSALS[fault].encode() in shown and seconds < FAST_S, (seconds, shown)
    said = shown
    for words in NOT_ASKED:
        said = said.replace(words, b"")
    assert not [p for p in PROMPTS if p in said], shown


@pytest.mark.parametrize(
    ("via", "fault", "asking"),
    [
        ("ssh", "unknown-key", {"SSH_ASKPASS": "program"}),
        ("ssh", "locked-key", {"SSH_ASKPASS": "program"}),
        pytest.param(
            "ssh",
            "locked-key",
            {"SSH_ASKPASS": "program", "GIT_SSH_COMMAND": "ssh"},
            id="ssh-locked-key-own-ssh-command",
        ),  # the person's own ssh command, which jacked keeps: ssh asks for the passphrase
        ("http", "wrong-password", {"GIT_ASKPASS": "program"}),
        pytest.param("http", "no-password", {"GIT_ASKPASS": "program"}, id="http-no-password-git-askpass"),
        pytest.param(
            "http", "no-password", {"SSH_ASKPASS": "program"}, id="http-no-password-ssh-askpass"
        ),  # git falls back to it
    ],
)
def test_an_askpass_program_is_never_asked(team_server, tmp_path: Path, via, fault, asking):
    machine = _stranger(tmp_path, team_server, via, fault)
    askpass = _askpass(tmp_path)
    env = {name: str(askpass) if value == "program" else value for name, value in asking.items()}
    proc, seconds = _timed(machine, "sync", SSH_ASKPASS_REQUIRE="force", DISPLAY=":0", **env)
    assert proc.returncode == 1 and "JACKED_MEMORY_SYNC" in proc.stderr, proc.stderr
    assert not askpass.with_suffix(".asked").exists() and seconds < FAST_S, (seconds, proc.stderr)


def test_session_start_never_waits_on_an_askpass(team_server, tmp_path: Path):
    machine = _stranger(tmp_path, team_server, "http", "no-password")
    askpass = _askpass(tmp_path)
    ended = wait_all([machine.hook("session-start", machine.start_payload("s"), GIT_ASKPASS=str(askpass))], 30)[0]
    assert ended.code == 0 and ended.out.startswith(b"## jacked-vault memory")
    pulled = [line for line in machine.log() if "hook=session-start" in line][-1]
    assert "pull=failed" in pulled and "terminal prompts disabled" in pulled, pulled
    assert not askpass.with_suffix(".asked").exists()


def test_the_persons_core_ssh_command_is_kept(team):
    server, ssh, _ = team
    (ssh.home / "bin" / "ssh").unlink()  # no ssh that reads the HOME's config by itself: only core.sshCommand names it
    command = f"ssh -F {ssh.home / '.ssh' / 'config'}"
    subprocess.run(["git", "config", "--global", "core.sshCommand", command], env=ssh.env(), check=True)
    plain = subprocess.run(
        ["git", "-C", str(ssh.vault), "ls-remote", "origin"], capture_output=True, text=True, env=ssh.env()
    )
    assert plain.returncode == 0 and server.head() in plain.stdout, plain.stderr  # the person's git gets there
    assert ssh.cli("add", "--group", GROUP, "--title", "Over my own key", "--body", "b").returncode == 0
    proc = ssh.cli("sync")
    assert proc.returncode == 0, proc.stderr
    assert server.head() == _head(ssh)


# --- links at session start -------------------------------------------------------------------


def _hook_ms(line: str) -> float:
    """The duration a hook's log line records ('(1234 ms)')."""
    return float(line.rsplit("(", 1)[1].split(" ms)", 1)[0])


@pytest.mark.parametrize("via", ["ssh", "http"])
@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("refuse", "pull=failed: fetch failed"),
        # the background fetch begun on a black hole waits out the network bound (60 s)
        pytest.param("blackhole", "pull=timeout", marks=pytest.mark.slow),
        ("slow", "pull=timeout"),
    ],
)
def test_a_bad_link_at_session_start_costs_the_cap_and_is_said(team, via, mode, said):
    server, ssh, http = team
    machine = ssh if via == "ssh" else http
    writer = http if via == "ssh" else ssh
    assert writer.cli("add", "--group", GROUP, "--title", "Waiting upstream", "--body", "b").returncode == 0
    assert writer.cli("sync").returncode == 0  # something the start would take, over a good link
    head = _head(machine)
    with server.proxy(via).switched(mode, delay_s=2.0):
        ended = wait_all([machine.hook("session-start", machine.start_payload("s"))], 60)[0]
        moved = _head(machine) != head  # looked at before the link is back
    assert ended.code == 0 and ended.out.startswith(b"## jacked-vault memory for github.com/acme/api"), ended
    line = [entry for entry in machine.log() if "hook=session-start" in entry][-1]
    assert said in line, line
    result = "failed" if mode == "refuse" else "timeout"
    assert f"last sync {result} at ".encode() in ended.out, ended.out  # the brief says so, in one line
    assert _hook_ms(line) < (SESSION_START_CAP_S + 4) * 1000, line  # the cap, the brief and a loaded machine
    assert not moved
    if mode == "refuse":
        assert "Connection refused" in line or "Couldn't connect to server" in line, line  # ssh's, curl's words
        assert machine.cli_json("status")["vault"]["last_pull"]["result"] == "failed"
        assert _head(machine) == head
        return
    # the cap ran out while fetching: the pull goes on in the background (issue 34.3), and takes the
    # notes once the link is back (a background fetch begun on the bad link gives up at its own bound)
    assert "ran out while fetching" in line and "in the background" in line, line
    waited = 0.0
    while not (finished := [entry for entry in machine.log() if "hook=pull " in entry]) and waited < 90:
        time.sleep(0.2)
        waited += 0.2
    assert finished, machine.log()
    assert "pull=ok" in finished[-1] or "pull=timeout" in finished[-1], finished
    if "pull=ok" in finished[-1]:
        assert _head(machine) != head and machine.cli_json("status")["vault"]["last_pull"]["result"] == "ok"


@pytest.mark.parametrize("via", ["ssh", "http"])
def test_a_slightly_slow_link_still_brings_the_teams_notes_at_session_start(team, via):
    server, ssh, http = team
    machine, writer = (ssh, http) if via == "ssh" else (http, ssh)
    assert writer.cli("add", "--group", GROUP, "--title", "Arrives over a slow link", "--body", "b").returncode == 0
    assert writer.cli("sync").returncode == 0
    with server.proxy(via).switched("slow", delay_s=0.05):
        ended = wait_all([machine.hook("session-start", machine.start_payload("s"))], 60)[0]
    assert ended.code == 0 and b"Arrives over a slow link" in ended.out, ended.out[-600:]
    assert "pull=ok" in [entry for entry in machine.log() if "hook=session-start" in entry][-1]


# --- the server says no -----------------------------------------------------------------------

POLICY = 'echo "GL-HOOK-ERR: main is protected: pushes need a merge request" >&2\nexit 1\n'


@pytest.mark.parametrize("via", ["ssh", "http"])
def test_a_pre_receive_refusal_is_quoted(team, via):
    server, ssh, http = team
    machine = ssh if via == "ssh" else http
    assert machine.cli("add", "--group", GROUP, "--title", "Held back", "--body", "By the policy.").returncode == 0
    before = server.head()
    server.pre_receive(POLICY)
    proc = machine.cli("sync")
    assert proc.returncode == 1 and server.head() == before
    assert "main is protected: pushes need a merge request" in proc.stderr, proc.stderr
    assert "run `jacked memory sync`" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("via", ["ssh", "http"])
def test_a_refused_push_loses_nothing_and_goes_through_once_allowed(team, via):
    server, ssh, http = team
    machine = ssh if via == "ssh" else http
    assert machine.cli("add", "--group", GROUP, "--title", "Held back", "--body", "By the policy.").returncode == 0
    head, before = _head(machine), server.head()
    server.pre_receive(POLICY)
    assert machine.cli("push").returncode == 1
    assert server.head() == before and _head(machine) == head
    assert machine.cli_json("status")["vault"]["last_push"]["result"] == "refused"  # the server said no (32.5)
    server.pre_receive(None)
    assert machine.cli("sync").returncode == 0
    assert server.head() == _head(machine) and "Held back" in server.git("log", "--format=%s", "main")


def test_a_rewound_server_is_healed_by_the_next_sync(team):
    server, ssh, http = team
    before = server.head()
    assert before is not None
    assert ssh.cli("add", "--group", GROUP, "--title", "Pushed then lost", "--body", "b").returncode == 0
    assert ssh.cli("push").returncode == 0
    assert http.cli("sync").returncode == 0
    server.rewind(before)  # someone force-pushed an older main
    for machine in (http, ssh, http):
        proc = machine.cli("sync")
        assert proc.returncode == 0, proc.stderr
    assert server.head() == _head(ssh) == _head(http)
    titles = server.git("log", "--format=%s", "main")
    assert "Pushed then lost" in titles, titles


# --- a killed command leaves nothing running --------------------------------------------------


@pytest.mark.parametrize("via", ["ssh", "http"])
@pytest.mark.parametrize("command", ["push", "sync"])
def test_kill_9_mid_transfer_leaves_no_git_or_ssh_running(team, via, command):
    server, ssh, http = team
    machine = ssh if via == "ssh" else http
    assert machine.cli("add", "--group", GROUP, "--title", "Killed mid-push", "--body", "b").returncode == 0
    mark = run_mark()
    with server.proxy(via).switched("blackhole"):
        proc = subprocess.Popen(
            [sys.executable, "-m", "jacked_vault.cli.main", "memory", command],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            cwd=machine.code, env=machine.env(**mark),
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while not [pid for pid in marked(mark) if pid != proc.pid] and time.monotonic() < deadline:
            time.sleep(0.05)  # until git is on its way (blackholed: it waits for the server)
        assert [pid for pid in marked(mark) if pid != proc.pid], "git never started"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        try:
            wait_exited(mark, timeout_s=5)
        finally:
            for pid in marked(mark):  # what the kill left: ended here, so nothing outlives the test
                os.kill(pid, signal.SIGKILL)
