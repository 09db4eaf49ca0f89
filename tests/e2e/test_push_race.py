"""Pushes at team scale: a push that loses the race integrates and pushes again (issue 32.4; SPEC
10, "A team's server").

With five session ends at once, 41-44 % of the pushes lost the non-fast-forward race with no
retry, the hook's message told it to run the sync it had just run, and 31-35 % of the next
session starts were "diverged" and did not take the teammates' notes. Now a sync whose push
loses a race (the remote moved between its fetch and its push) fetches, integrates through the
gate and pushes again, a few times with random jitter; only a race is tried again, never a
server's refusal or a failed login; `status` never calls a pull "pushed"; and a diverged vault
at session start merges the way `sync` does, within the start's cap
(`tests/e2e/test_session_start_cap.py` holds the cap's own test).

Real vaults on one real bare remote, real processes racing for it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, git, run_cli
from helpers import sync_world
from helpers.git_server import HTTP_USER, running_server
from helpers.state import state_dir
from helpers.sync_world import add_note, team

from jacked_vault.context import Context
from jacked_vault.doctor import doctor
from jacked_vault.sync import PUSH_ATTEMPTS, pull_at_session_start, sync

two_machines = sync_world.two_machines  # (laptop, desktop, remote)
RACERS = 5

# Every racer integrates what it fetched, then waits at the barrier before its first push: all of
# them have fetched the same remote before any pushes, so all but one lose the first round.
RACE_AT_PUSH = """
import os, sys, time
from pathlib import Path

from jacked_vault.cli.main import main
from jacked_vault.sync import remote

barrier, racers, command = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
first_push = remote.push
waited = []


def push(root, branch):
    if not waited:
        waited.append(True)
        (barrier / str(os.getpid())).touch()
        deadline = time.monotonic() + 60
        while len(list(barrier.iterdir())) < racers and time.monotonic() < deadline:
            time.sleep(0.01)
    return first_push(root, branch)


remote.push = push
sys.exit(main(command))
"""


def _team(tmp_path: Path, size: int) -> tuple[list[Context], Path]:
    """`size` machines on one bare remote, each with one note of its own not pushed yet."""
    remote = tmp_path / "remote.git"
    machines = team([tmp_path / f"m{i}" / "vault" for i in range(size)], remote)
    for i, ctx in enumerate(machines):
        add_note(ctx, f"Note of machine {i}")
    return machines, remote


def _on_remote(remote: Path) -> set[str]:
    listed = git(remote, "ls-tree", "-r", "--name-only", "main").split()
    return {path for path in listed if path.startswith("groups/tools/note/")}


def _own_notes(team: list[Context]) -> set[str]:
    return {f"groups/tools/note/note-of-machine-{i}.md" for i in range(len(team))}


def _start(args: list[str], ctx: Context) -> subprocess.Popen:
    """`python ARGS` on `ctx`'s machine (its vault, its HOME), started now, its output kept."""
    return subprocess.Popen(
        [sys.executable, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=cli_env(ctx.vault.root), cwd=ctx.vault.root.parent,
    )  # fmt: skip


def test_racing_syncs_each_land_after_losing(tmp_path: Path):
    team, remote = _team(tmp_path, RACERS)
    script = tmp_path / "race.py"
    script.write_text(RACE_AT_PUSH)
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    racers = [_start([str(script), str(barrier), str(RACERS), "memory", "sync", "--json"], ctx) for ctx in team]
    outcomes = [proc.communicate(timeout=300) for proc in racers]
    for proc, (_, err) in zip(racers, outcomes, strict=True):
        assert proc.returncode == 0, err  # every push landed (one that keeps losing says why: a test below)
        assert "run `jacked memory sync`" not in err
    attempts = sorted(json.loads(out)["push_attempts"] for out, _ in outcomes)
    assert attempts[0] == 1 and attempts[-1] > 1, attempts  # one won the first round; the others tried again
    assert attempts[-1] <= PUSH_ATTEMPTS
    assert _on_remote(remote) == _own_notes(team)
    said = []
    for ctx in team:
        states = json.loads((state_dir(ctx.vault.root) / "sync-state.json").read_text())
        assert states["push"]["result"] == "ok", states
        said.append(states["push"]["message"])
    lost = sorted(attempt - 1 for attempt in attempts)
    assert sorted(int(m.split("after ")[1].split()[0]) if "after " in m else 0 for m in said) == lost, said
    assert all("race(s) lost to other machines' pushes" in m for m in said if "after " in m), said


def test_five_session_ends_at_once_all_push(tmp_path: Path):
    """The issue's case: five SessionEnd drains at once (no barrier: whatever race happens)."""
    team, remote = _team(tmp_path, RACERS)
    drains = [_start(["-m", "jacked_vault.cli.main", "_hook", "drain"], ctx) for ctx in team]
    for proc in drains:
        proc.communicate(timeout=300)
    assert [proc.returncode for proc in drains] == [0] * RACERS
    assert _on_remote(remote) == _own_notes(team)
    for ctx in team:
        log = (state_dir(ctx.vault.root) / "log").read_text()
        assert "sync failed" not in log, log
    for ctx in team:  # each session start then takes every teammate's note
        assert pull_at_session_start(ctx).result in ("ok", "up-to-date")
        assert {p for p in _own_notes(team) if (ctx.vault.root / p).is_file()} == _own_notes(team)


MOVES_ON = """#!/bin/sh
# Another machine lands just before every push: main moves on (the same tree, one commit more),
# so each push here loses the race (git: "cannot lock ref ... is at X but expected Y").
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
echo push >> "$(dirname "$0")/pushes"
tip=$(git rev-parse refs/heads/main)
new=$(GIT_AUTHOR_NAME=o GIT_AUTHOR_EMAIL=o@example.com GIT_COMMITTER_NAME=o GIT_COMMITTER_EMAIL=o@example.com \\
      git commit-tree -p "$tip" -m "another machine" "$tip^{tree}")
git update-ref refs/heads/main "$new" "$tip"
"""
REFUSES = """#!/bin/sh
echo push >> "$(dirname "$0")/pushes"
echo "main is protected: pushes go through review" >&2
exit 1
"""


def _hook(remote: Path, script: str) -> Path:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(script)
    hook.chmod(0o755)
    return remote / "hooks" / "pushes"


def test_a_push_that_keeps_losing_says_why_and_status_does_not_call_it_pushed(two_machines):
    laptop, _, remote = two_machines
    pushes = _hook(remote, MOVES_ON)
    add_note(laptop, "Never lands")
    vault = laptop.vault.root
    done = run_cli("memory", "sync", vault=vault)
    assert done.code == 1
    assert f"moved on while this machine pushed, {PUSH_ATTEMPTS} times" in done.err, done.err
    assert "nothing was overwritten" in done.err and "run `jacked memory sync`" not in done.err
    assert len(pushes.read_text().split()) == PUSH_ATTEMPTS  # bounded
    states = json.loads((state_dir(vault) / "sync-state.json").read_text())
    assert states["push"]["result"] == "failed" and "moved on" in states["push"]["message"]
    assert "pushed" not in states["pull"]["message"], states["pull"]
    text = run_cli("memory", "status", vault=vault).out
    assert "last push failed" in text and "sync: pushed" not in text, text


def test_status_never_calls_a_pull_pushed_when_the_push_failed(two_machines):
    laptop, _, remote = two_machines
    _hook(remote, REFUSES)
    add_note(laptop, "Refused")
    vault = laptop.vault.root
    assert run_cli("memory", "sync", vault=vault).code == 1
    text = run_cli("memory", "status", vault=vault).out
    assert "last push refused" in text, text  # the server said no: a refusal, told apart (issue 32.5)
    assert "(sync: pushed)" not in text, text


def test_a_servers_refusal_is_never_tried_again(two_machines):
    laptop, _, remote = two_machines
    pushes = _hook(remote, REFUSES)
    add_note(laptop, "Refused")
    done = run_cli("memory", "sync", vault=laptop.vault.root)
    assert done.code == 1 and "moved on" not in done.err
    assert len(pushes.read_text().split()) == 1


def test_a_failed_login_is_never_tried_again(tmp_path: Path):
    trace = tmp_path / "trace2.json"  # git's own record of every git process it starts
    with running_server(tmp_path / "server", anonymous_read=True) as server:  # the fetch works, the push is refused
        vault = tmp_path / "vault"
        assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
        git(vault, "remote", "add", "origin", server.http_url)
        wrong = f"!f() {{ test \"$1\" = get && printf 'username={HTTP_USER}\\npassword=wrong\\n'; }}; f"
        git(vault, "config", "credential.helper", wrong)
        run_cli("memory", "add", "--group", "g", "--title", "T", "--body", "b", vault=vault)
        done = run_cli("memory", "sync", vault=vault, GIT_TRACE2_EVENT=str(trace))
    assert done.code == 1 and "moved on" not in done.err and "Authentication failed" in done.err, done.err
    started = [json.loads(line)["argv"] for line in trace.read_text().splitlines() if '"event":"start"' in line]
    commands = [_git_command(argv) for argv in started]
    assert [c for c in commands if c in ("fetch", "push")] == ["fetch", "push"], started  # one of each


def _git_command(argv: list[str]) -> str:
    """The git command of a git command line (`git -C DIR -c K=V push …` is push)."""
    words = iter(argv[1:])
    for word in words:
        if word in ("-C", "-c"):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return ""


def test_a_diverged_session_start_merges_and_takes_the_teammates_notes(two_machines):
    laptop, desktop, remote = two_machines
    theirs = add_note(laptop, "From the laptop")
    sync(laptop)
    mine = add_note(desktop, "Desktop only, not pushed yet")
    pushed_head = git(remote, "rev-parse", "main")
    state = pull_at_session_start(desktop)
    assert state.result == "ok", state
    root = desktop.vault.root
    assert (root / theirs.rel).is_file() and (root / mine.rel).is_file()
    assert len(git(root, "rev-list", "--parents", "-n", "1", "HEAD").split()) == 3  # a merge commit
    assert git(remote, "rev-parse", "main") == pushed_head  # a session start never pushes
    assert git(root, "status", "--porcelain") == ""
    report = doctor(desktop)
    assert report.ok, report.to_json()
    sync(desktop)  # the next trigger pushes the merge: both machines converge
    assert pull_at_session_start(laptop).result == "ok"
    assert git(laptop.vault.root, "rev-parse", "HEAD") == git(root, "rev-parse", "HEAD")


def test_a_diverged_session_start_that_cannot_merge_changes_nothing(two_machines):
    """What `sync` stops for (one note hand-edited on both machines) leaves the session start on
    the state it had, saying why."""
    laptop, desktop, _ = two_machines
    shared = add_note(laptop, "Shared")
    sync(laptop)
    sync(desktop)
    for ctx, text in ((laptop, "laptop edit"), (desktop, "desktop edit")):
        path = ctx.vault.root / shared.rel
        path.write_text(path.read_text().replace("Shared body.", text))
        git(ctx.vault.root, "commit", "-qam", "hand edit")
    sync(laptop)
    root = desktop.vault.root
    head = git(root, "rev-parse", "HEAD")
    state = pull_at_session_start(desktop)
    assert state.result == "failed" and shared.rel in state.message, state
    assert git(root, "rev-parse", "HEAD") == head
    assert git(root, "status", "--porcelain") == ""
    assert "desktop edit" in (root / shared.rel).read_text()
