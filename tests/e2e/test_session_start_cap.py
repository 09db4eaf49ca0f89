"""The SessionStart pull's cap covers the whole pull (issue 31.9; SPEC 10 as amended: "The
SessionStart cap covers the whole pull; what it cannot judge in time waits for the next sync").

Twenty pushed notes of 64 KB of token-like lines held the SessionStart hook 9 s: the 3 s cap
bounded only the `git fetch`. Now fetch, judging the arrivals and integrating share one deadline
(`store.deadline`); when it passes, the session starts on the state it had (HEAD unchanged,
nothing half-applied, no lock held), the log and `status` say so, the verdicts the gate reached
are kept, and the next `sync` takes the notes. The forked workers judging ahead are killed and
reaped at the deadline.

Real vaults on a real bare remote; only the deadline's clock is the test's: it reads one second
per arriving note the gate has scanned here (or runs out once the fetch has landed), so where the
pull stops does not depend on this machine's speed. No test asserts a duration.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import git, run_cli
from helpers import sync_world
from helpers.main_process import main_process_scans
from helpers.secret_samples import token_lines
from helpers.state import state_dir
from helpers.sync_world import add_note

from jacked_vault.hooks import dispatch
from jacked_vault.hooks.dispatch import run_hook
from jacked_vault.search import parallel
from jacked_vault.search.index import SearchIndex
from jacked_vault.store import deadline as deadline_module
from jacked_vault.store import detached
from jacked_vault.store.deadline import Deadline, OutOfTime
from jacked_vault.store.git import open_repo
from jacked_vault.store.layout import Store
from jacked_vault.store.lock import store_lock
from jacked_vault.sync import (
    BACKGROUND_PULL_LOCK,
    SESSION_START_TIMEOUT_S,
    finish_pull,
    pull_at_session_start,
    push,
    sync,
)

two_machines = sync_world.two_machines  # (laptop, desktop, remote)
NOTES = 8


@pytest.fixture
def pushed(two_machines) -> tuple:
    """(laptop, desktop, the paths of the notes the laptop pushed): NOTES notes of token-like lines."""
    laptop, desktop, _ = two_machines
    paths = [add_note(laptop, f"Token lines {i}", body=token_lines(16_000, seed=i)).rel for i in range(NOTES)]
    push(laptop)
    return laptop, desktop, paths


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def _verdicts(root: Path) -> int:
    index = SearchIndex(Store(root))
    try:
        return index.db.execute("SELECT count(*) FROM verdicts").fetchone()[0]
    finally:
        index.close()


def _children() -> set[int]:
    """This process's child processes (zombies too: a child not yet reaped)."""
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{os.getpid()}\n" in status:
                out.add(int(entry.name))
    return out


def test_the_cap_runs_out_while_judging_the_session_starts_as_it_was_and_sync_takes_the_notes(
    pushed, monkeypatch, capsys
):
    laptop, desktop, paths = pushed
    root = desktop.vault.root
    head = _head(root)
    verdicts_before = _verdicts(root)
    spawned = _spawns(monkeypatch)
    scanned = main_process_scans(monkeypatch)
    arriving = set(paths)
    # one second per arriving note scanned here: the 3 s cap runs out after the third
    monkeypatch.setattr(deadline_module, "now", lambda: float(sum(rel in arriving for rel in scanned)))
    monkeypatch.setattr(sys, "stdin", None)  # the hook's payload: none
    assert run_hook(["session-start", "--vault", str(root)]) == 0
    assert "Token lines" not in capsys.readouterr().out  # the brief is of the vault as it was

    judged_here = [rel for rel in scanned if rel in arriving]
    assert len(judged_here) == 3  # stopped at the cap, between two notes
    assert _head(root) == head  # nothing moved, nothing half-applied
    assert git(root, "status", "--porcelain", "--untracked-files=all").strip() == ""
    assert not any((root / rel).exists() for rel in paths)
    with store_lock(desktop.vault.state, timeout_s=0):  # no lock left held
        pass
    log = (state_dir(root) / "log").read_text().splitlines()
    assert "hook=session-start" in log[-1] and "pull=timeout" in log[-1], log[-1]
    assert "cap ran out while judging" in log[-1], log[-1]
    assert spawned == [(root, "pull")]  # issue 34.3: the pull goes on in the background

    status = run_cli("memory", "status", "--json", vault=root).json["vault"]
    last = status["last_pull"]
    assert last["result"] == "timeout", last
    assert "session-start cap ran out while judging" in last["message"], last
    assert "goes on in the background" in last["message"], last
    assert status["behind"] == NOTES and status["head"] == head  # fetched (one commit a note), not taken
    text = run_cli("memory", "status", vault=root).out
    assert "last pull timeout" in text and "cap ran out" in text, text
    assert _verdicts(root) >= verdicts_before + 3  # what the gate passed in time is kept

    monkeypatch.setattr(deadline_module, "now", time.monotonic)
    scanned.clear()
    result = sync(desktop)  # no cap: takes every note
    assert result.action == "fast-forward", result
    assert all((root / rel).is_file() for rel in paths)
    assert _head(root) == git(laptop.vault.root, "rev-parse", "HEAD").strip()
    rescanned = {rel for rel in scanned if rel in arriving}
    assert rescanned == arriving - set(judged_here)  # the verdicts reached in time were not judged again
    assert run_cli("memory", "status", "--json", vault=root).json["vault"]["last_pull"]["result"] == "ok"


def _spawns(monkeypatch) -> list[tuple[Path, str]]:
    """The detached hooks started from here, recorded instead of started."""
    started: list[tuple[Path, str]] = []
    monkeypatch.setattr(detached, "spawn_hook", lambda vault, hook: started.append((Path(vault), hook)))
    return started


def _log_lines(root: Path, hook: str) -> list[str]:
    log = state_dir(root) / "log"
    return [line for line in log.read_text().splitlines() if f"hook={hook} " in line] if log.is_file() else []


def _background_pull_ended(root: Path) -> list[str]:
    """The log lines of the detached `_hook pull` once it has written its own (90 s at most)."""
    waited = 0.0
    while not _log_lines(root, "pull") and waited < 90:
        time.sleep(0.2)
        waited += 0.2
    return _log_lines(root, "pull")


def test_the_session_start_answers_at_the_cap_and_the_pull_finishes_in_the_background(pushed, monkeypatch, capsys):
    """Issue 34.3: the session start never waits for what arrives. Past the cap it answers with the
    vault as it was and starts a detached `_hook pull` (a real process here, on the real clock),
    which takes every note; the next command sees them."""
    laptop, desktop, paths = pushed
    root = desktop.vault.root
    scanned = main_process_scans(monkeypatch)
    arriving = set(paths)
    monkeypatch.setattr(deadline_module, "now", lambda: float(sum(rel in arriving for rel in scanned)))
    monkeypatch.setattr(sys, "stdin", None)
    assert run_hook(["session-start", "--vault", str(root)]) == 0
    assert "Token lines" not in capsys.readouterr().out  # answered with the state the session had
    assert "pull=timeout" in _log_lines(root, "session-start")[-1]

    finished = _background_pull_ended(root)
    assert finished and "pull=ok" in finished[-1], finished
    assert _head(root) == _head(laptop.vault.root)
    found = run_cli("memory", "search", "Token lines", "--all", "--limit", "20", "--json", vault=root).json
    assert {hit["title"] for hit in found["results"]} >= {f"Token lines {i}" for i in range(NOTES)}, found
    assert run_cli("memory", "status", "--json", vault=root).json["vault"]["last_pull"]["result"] == "ok"


def test_a_fetch_still_running_at_the_cap_finishes_in_the_background(pushed, monkeypatch, tmp_path, capsys):
    """Issue 34.3: a fetch the cap cuts short (a big pack, a slow link) is not left for a manual
    sync: the session start answers as it was and the detached pull fetches and takes the notes.
    The remote here answers only after a pause longer than the cap (its upload-pack waits first)."""
    laptop, desktop, paths = pushed
    root = desktop.vault.root
    slow = tmp_path / "slow-upload-pack"
    slow.write_text(f'#!/bin/sh\nsleep {SESSION_START_TIMEOUT_S + 1:g}\nexec git-upload-pack "$@"\n')
    slow.chmod(0o755)
    git(root, "config", "remote.origin.uploadpack", str(slow))
    monkeypatch.setattr(sys, "stdin", None)
    assert run_hook(["session-start", "--vault", str(root)]) == 0
    assert "Token lines" not in capsys.readouterr().out
    started = _log_lines(root, "session-start")[-1]
    assert "pull=timeout" in started and "in the background" in started, started
    assert "verdicts" not in started, started  # nothing was judged yet: nothing to keep

    finished = _background_pull_ended(root)
    assert finished and "pull=ok" in finished[-1], finished
    assert _head(root) == _head(laptop.vault.root)
    assert all((root / rel).is_file() for rel in paths)


def test_a_session_start_leaves_the_pull_to_a_background_pull_already_going_on(pushed, monkeypatch, capsys):
    """While a background pull holds its claim, a session start neither pulls nor starts another:
    it answers at once with the vault as it is, and the log says why."""
    _, desktop, paths = pushed
    root = desktop.vault.root
    head = _head(root)
    spawned = _spawns(monkeypatch)
    monkeypatch.setattr(sys, "stdin", None)
    with store_lock(desktop.vault.state, timeout_s=0, name=BACKGROUND_PULL_LOCK):
        assert run_hook(["session-start", "--vault", str(root)]) == 0
        assert run_hook(["pull", "--vault", str(root)]) == 0  # a second background pull stands down
    assert "pull=background" in _log_lines(root, "session-start")[-1]
    assert "already" in _log_lines(root, "pull")[-1]
    assert spawned == [] and _head(root) == head
    assert not any((root / rel).exists() for rel in paths)


def test_a_later_session_start_with_time_enough_takes_the_notes(pushed, monkeypatch):
    _, desktop, paths = pushed
    root = desktop.vault.root
    scanned = main_process_scans(monkeypatch)
    arriving = set(paths)
    monkeypatch.setattr(deadline_module, "now", lambda: float(sum(rel in arriving for rel in scanned)))
    assert pull_at_session_start(desktop).result == "timeout"
    assert pull_at_session_start(desktop, timeout_s=100.0).result == "ok"
    assert all((root / rel).is_file() for rel in paths)


def test_a_diverged_vault_merges_at_session_start_within_the_cap(pushed, monkeypatch):
    """Issue 32.4: a vault with a commit of its own merges what arrives as `sync` does, under the
    same cap: past it nothing moves; with time enough the merge takes every note, pushing nothing."""
    _, desktop, paths = pushed
    root = desktop.vault.root
    mine = add_note(desktop, "Desktop only, not pushed yet")
    head = _head(root)
    scanned = main_process_scans(monkeypatch)
    arriving = set(paths)
    monkeypatch.setattr(deadline_module, "now", lambda: float(sum(rel in arriving for rel in scanned)))
    state = pull_at_session_start(desktop)
    assert state.result == "timeout" and "cap ran out" in state.message, state
    assert _head(root) == head and not any((root / rel).exists() for rel in paths)
    assert git(root, "status", "--porcelain", "--untracked-files=all").strip() == ""
    state = pull_at_session_start(desktop, timeout_s=100.0)
    assert state.result == "ok" and "merged" in state.message, state
    assert all((root / rel).is_file() for rel in paths) and (root / mine.rel).is_file()
    assert git(root, "rev-parse", "HEAD^2").strip() == git(root, "rev-parse", "origin/main").strip()


WORKER_DONE: list[Path] = []  # where a worker's batch leaves a mark once judged (set before the fork)


def _slow_batch(batch):
    """A worker's batch that takes longer than any pull waits (the worker's own `_judge` after a
    pause), leaving a mark when it is done: a worker killed at the deadline leaves none."""
    time.sleep(20)
    WORKER_DONE[0].write_text("judged")
    return _JUDGE(batch)


_JUDGE = parallel._judge
_slow_batch.__module__, _slow_batch.__qualname__ = parallel.__name__, "_judge"  # pickled by name into the worker


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="the workers need a second core")
def test_the_deadline_kills_the_workers_judging_ahead(pushed, monkeypatch, tmp_path):
    """The cap runs out once the fetch has landed, while the forked workers judge the notes ahead:
    they are killed (their batch never ends) and reaped, and the pull changes nothing."""
    laptop, desktop, paths = pushed
    root = desktop.vault.root
    head = _head(root)
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)  # a few notes make a worker's batch
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # as tests/e2e/test_arrivals_parallel.py
    monkeypatch.setattr(parallel, "_judge", _slow_batch)
    monkeypatch.setattr(sys.modules[__name__], "WORKER_DONE", [tmp_path / "batch-judged"])
    pushed_head = _head(laptop.vault.root)
    tracking = root / ".git" / "refs" / "remotes" / "origin" / "main"

    def clock() -> float:  # no time passes until the fetch has landed, then the cap has run out
        return 1e9 if tracking.is_file() and tracking.read_text().strip() == pushed_head else 0.0

    forks: list[int] = []
    os.register_at_fork(after_in_parent=lambda: forks.append(1))
    before = _children()
    monkeypatch.setattr(deadline_module, "now", clock)
    state = pull_at_session_start(desktop)
    assert state.result == "timeout", state
    assert "cap ran out while judging" in state.message
    assert forks, "the workers were started"
    assert _children() <= before  # every worker ended and reaped
    assert not (tmp_path / "batch-judged").exists()  # killed, not waited for
    assert _head(root) == head
    assert not any((root / rel).exists() for rel in paths)
    with store_lock(desktop.vault.state, timeout_s=0):
        pass


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="the workers need a second core")
def test_a_wait_for_the_workers_past_the_deadline_kills_them(pushed, monkeypatch, tmp_path):
    """`parallel.ahead` waiting for a batch when the deadline passes: OutOfTime, the workers
    killed and reaped before it reaches the caller."""
    laptop, _, paths = pushed
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(parallel, "_judge", _slow_batch)
    monkeypatch.setattr(sys.modules[__name__], "WORKER_DONE", [tmp_path / "batch-judged"])
    repo = open_repo(laptop.vault.root)
    tree = repo.head.peel().tree
    index = SearchIndex(laptop.vault)
    before = _children()
    try:
        with pytest.raises(OutOfTime, match="waiting for the workers"):
            for _ in parallel.ahead(laptop.vault, repo, [(rel, tree[rel]) for rel in paths], index.verdicts,
                                    deadline=Deadline.after(0.0)):  # fmt: skip
                pass
    finally:
        index.close()
    assert _children() <= before
    assert not (tmp_path / "batch-judged").exists()


def test_a_pull_within_the_cap_is_unchanged(pushed):
    _, desktop, paths = pushed
    state = pull_at_session_start(desktop, timeout_s=100.0)
    assert state.result == "ok", state
    assert all((desktop.vault.root / rel).is_file() for rel in paths)
    assert json.loads(run_cli("memory", "status", "--json", vault=desktop.vault.root).out)["vault"]["behind"] == 0
    assert git(desktop.vault.root, "status", "--porcelain") == ""


def _index_commit(root: Path) -> str | None:
    index = SearchIndex(Store(root))
    try:
        return index.read.commit
    finally:
        index.close()


@pytest.fixture
def behind(two_machines) -> tuple:
    """(laptop, desktop): the desktop took the laptop's five new notes with plain `git pull`, so its
    index (current before) is five notes and their audit lines behind HEAD."""
    laptop, desktop, _ = two_machines
    for i in range(5):
        add_note(laptop, f"Arrived by plain git {i}")
    push(laptop)
    root = desktop.vault.root
    _index_commit(root)  # the desktop's index exists, at its HEAD
    git(root, "-c", "core.hooksPath=/dev/null", "pull", "-q", "--ff-only")  # git alone, no hook of ours
    assert _index_commit(root) != _head(root)
    return laptop, desktop


def test_a_session_start_leaves_an_index_far_behind_to_a_background_catch_up(behind, monkeypatch, capsys):
    """Issue 34.3: the brief does not wait for an index more files behind HEAD than the session start
    catches up with (the cap, made 3 files here): it answers from the index as it was, says so, and a
    detached `_hook catch-up` (run here as the real process) brings the index to HEAD for the next command."""
    _, desktop = behind
    root = desktop.vault.root
    indexed = _index_commit(root)
    monkeypatch.setattr(dispatch, "SESSION_START_CATCH_UP", 3)
    spawned = _spawns(monkeypatch)
    monkeypatch.setattr(sys, "stdin", None)
    assert run_hook(["session-start", "--vault", str(root)]) == 0
    out = capsys.readouterr().out
    assert "the index is catching up" in out, out
    assert _index_commit(root) == indexed  # left as it was
    assert spawned == [(root, "catch-up")]
    assert "index=behind" in _log_lines(root, "session-start")[-1]

    assert run_cli("_hook", "catch-up", "--vault", str(root), vault=root).code == 0
    assert _index_commit(root) == _head(root)
    assert "index=" in _log_lines(root, "catch-up")[-1]
    found = run_cli("memory", "search", "Arrived by plain git", "--all", "--json", vault=root).json
    assert {hit["title"] for hit in found["results"]} >= {f"Arrived by plain git {i}" for i in range(5)}, found


def test_a_session_start_catches_up_an_index_a_few_files_behind(behind, monkeypatch, capsys):
    _, desktop = behind
    root = desktop.vault.root
    spawned = _spawns(monkeypatch)
    monkeypatch.setattr(sys, "stdin", None)
    assert run_hook(["session-start", "--vault", str(root)]) == 0
    assert "catching up" not in capsys.readouterr().out
    assert _index_commit(root) == _head(root) and spawned == []


def test_a_background_pull_waits_out_a_session_starts_look_at_its_lock(pushed):
    """A session start looks at the background pull's lock by taking it for an instant; a pull
    starting at that moment waits it out and takes the notes instead of standing down."""
    _, desktop, paths = pushed
    looked = threading.Event()

    def look() -> None:
        with store_lock(desktop.vault.state, timeout_s=0, name=BACKGROUND_PULL_LOCK):
            looked.set()
            time.sleep(0.5)

    looker = threading.Thread(target=look)
    looker.start()
    looked.wait(10)
    outcome = finish_pull(desktop)
    looker.join()
    assert outcome == "pull=ok", outcome
    assert all((desktop.vault.root / rel).is_file() for rel in paths)
