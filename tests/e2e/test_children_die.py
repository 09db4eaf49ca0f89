"""A jacked process killed with SIGKILL takes its long children with it (issue 32.7; SPEC 10:
"Children of a killed command die with it").

A network git ran in a session of its own, so a `kill -9` of `sync` or of a hook left git and
its ssh running: a killed push finished by itself. Now every long child (the network git and
what it starts, the distiller, `gh`) is tethered to the jacked process that started it
(`store.children`): when that process dies, however, the child's whole process group dies too.

Each test kills a real jacked process at a real point (the remote stalled mid-fetch or mid-push
by a fake ssh, the distiller or gh hanging) and proves with `helpers.processes` (every process
of the run carries its mark in its environment) that nothing it started is left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, git, run_cli
from helpers.capture import Env, env, transcript  # noqa: F401 (the fixture)
from helpers.fake_ssh import calls, write_fake_ssh
from helpers.processes import marked, run_mark, running, wait_exited
from helpers.state import state_dir
from helpers.sync_world import bare_remote

LEFT_S = 10  # how long the killed command's children may take to go


@pytest.fixture(autouse=True)
def _no_ssh_variables(monkeypatch):
    for name in ("GIT_SSH_COMMAND", "GIT_SSH", "GIT_SSH_VARIANT"):
        monkeypatch.delenv(name, raising=False)


def _start(args: list[str], vault: Path, mark: dict[str, str]) -> subprocess.Popen:
    """`jacked ARGS` (or `jacked _hook …`) in the background, its every process carrying `mark`."""
    return subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=cli_env(vault, **mark), cwd=vault.parent,
    )  # fmt: skip


def _wait_for(found, what: str, proc: subprocess.Popen, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not found():
        assert proc.poll() is None, f"the command ended (rc={proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.05)


def _kill_and_check(proc: subprocess.Popen, mark: dict[str, str]) -> None:
    """SIGKILL the jacked process alone (not its group), then nothing it started may be left."""
    try:
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
        wait_exited(mark, timeout_s=LEFT_S)
    finally:
        for pid in marked(mark):  # whatever the outcome, leave nothing of the test's running
            os.kill(pid, signal.SIGKILL)


def _ssh_vault(tmp_path: Path, fake: Path) -> tuple[Path, Path]:
    """(a vault with one unpushed note whose origin is reached through `fake`, the bare remote)."""
    remote_path = tmp_path / "remote.git"
    bare_remote(remote_path)
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    git(vault, "config", "core.sshCommand", str(fake))
    git(vault, "remote", "add", "origin", f"ssh://git.example.invalid{remote_path}")
    assert run_cli("memory", "add", "--group", "g", "--title", "T", "--body", "b", vault=vault).code == 0
    return vault, remote_path


def test_kill_9_of_sync_mid_fetch_leaves_no_git_or_ssh(tmp_path: Path):
    fake, log = write_fake_ssh(tmp_path / "bin", hang=("git-upload-pack",))
    vault, _ = _ssh_vault(tmp_path, fake)
    mark = run_mark()
    sync = _start(["memory", "sync"], vault, mark)
    _wait_for(lambda: any(run["hung"] for run in calls(log)), "the fetch reach the remote", sync)
    _kill_and_check(sync, mark)


def test_a_killed_push_does_not_finish_by_itself(tmp_path: Path):
    """The remote crawls (its receive-pack answers after 3 s): the push dies with the sync."""
    fake, log = write_fake_ssh(tmp_path / "bin", hang=("git-receive-pack",), delay_s=3)
    vault, remote_path = _ssh_vault(tmp_path, fake)
    mark = run_mark()
    sync = _start(["memory", "sync"], vault, mark)
    _wait_for(lambda: any(run["hung"] for run in calls(log)), "the push reach the remote", sync)
    _kill_and_check(sync, mark)
    time.sleep(4)  # past the moment the crawling remote would have taken the push
    assert git(remote_path, "for-each-ref") == "", "the killed push landed by itself"


def test_kill_9_of_the_session_start_hook_mid_fetch_leaves_nothing(tmp_path: Path):
    fake, log = write_fake_ssh(tmp_path / "bin", hang=("git-upload-pack",))
    vault, _ = _ssh_vault(tmp_path, fake)
    mark = run_mark()
    hook = _start(["_hook", "session-start"], vault, mark)
    _wait_for(lambda: any(run["hung"] for run in calls(log)), "the fetch reach the remote", hook)
    _kill_and_check(hook, mark)


def test_kill_9_of_the_drain_mid_distill_leaves_no_distiller(env: Env):  # noqa: F811
    """The SessionEnd drain is detached on purpose; the distiller it runs is not. (A distiller runs
    with an environment of its own, without the run's mark: its pids come from its record.)"""
    from jacked_vault.capture.queue import enqueue

    record = env.tmp / "record"
    env.distiller("hang", timeout_s=120, record=record)  # it leaves a grandchild too, then hangs
    enqueue(state_dir(env.vault), env.payload(transcript(env)))
    mark = run_mark()
    drain = _start(["_hook", "drain", "--vault", str(env.vault)], env.vault, mark)
    _wait_for(lambda: Path(f"{record}.child").exists(), "the distiller start", drain)
    pids = [json.loads(record.read_text())["pid"], int(Path(f"{record}.child").read_text())]
    try:
        _kill_and_check(drain, mark)
        deadline = time.monotonic() + LEFT_S
        while (alive := [pid for pid in pids if running(pid)]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive, f"the distiller (or its child) outlived the killed drain: {alive}"
    finally:
        for pid in filter(running, pids):
            os.kill(pid, signal.SIGKILL)


def test_kill_9_while_gh_answers_leaves_no_gh(tmp_path: Path):
    """capture-merge asks `gh` about a pull request; a killed capture takes gh with it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    started = tmp_path / "gh.started"
    (bin_dir / "gh").write_text(f"#!/bin/sh\necho $$ > {started}\nexec sleep 120\n")
    (bin_dir / "gh").chmod(0o755)
    mark = run_mark()
    code = f"from jacked_vault.capture.merge.info import gh_pull_request; gh_pull_request({str(tmp_path)!r}, 1)"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, **mark, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
    )
    _wait_for(started.exists, "gh start", proc)
    _kill_and_check(proc, mark)


def test_a_finished_network_git_leaves_nothing_behind(tmp_path: Path):
    """The tether costs nothing when all goes well: the sync lands, and no watcher outlives it."""
    fake, _ = write_fake_ssh(tmp_path / "bin")
    vault, remote_path = _ssh_vault(tmp_path, fake)
    mark = run_mark()
    done = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "sync", "--json"],
        capture_output=True, text=True, env=cli_env(vault, **mark), cwd=vault.parent, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["action"] == "pushed"
    assert git(remote_path, "rev-parse", "main") == git(vault, "rev-parse", "HEAD")
    wait_exited(mark, timeout_s=LEFT_S)


def test_a_process_started_without_stdin_still_runs_its_children_to_their_end():
    """With fd 0 closed the tether's pipe gets descriptor 0, which the child's own stdin would
    replace: the watcher would read /dev/null and kill the child at once."""
    code = (
        "import os; os.close(0)\n"
        "from jacked_vault.store.children import run_tethered\n"
        "done = run_tethered(['sh', '-c', 'sleep 0.3; echo answered'], timeout=30, text=True)\n"
        "print(done.returncode, done.stdout.strip())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "0 answered", (done.stdout, done.stderr)
