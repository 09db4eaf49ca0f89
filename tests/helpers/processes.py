"""Proof that a command and everything it started (detached captures and drains too) have exited.

A run carries a unique mark in its environment (`run_mark()`); every process it starts inherits
it, whatever session it moves to. `wait_exited` polls /proc (with a deadline) until no live
process carries the mark: after that, anything the run would have done is done, so a test can
assert that nothing happened without sleeping and hoping.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

MARK = "JACKED_TEST_RUN"


def run_mark() -> dict[str, str]:
    """The environment entry that marks one run: pass it to the command (`**run_mark()`)."""
    return {MARK: uuid.uuid4().hex}


def marked(mark: dict[str, str]) -> list[int]:
    """The live processes whose environment carries `mark` (zombies have none, so do not count).
    /proc is listed, then each environment read, any read that fails passed by: a process can go
    between the two (a glob of /proc raised ProcessLookupError here once, in CI E of stop 45)."""
    needle = f"{MARK}={mark[MARK]}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            environ = Path("/proc", name, "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in environ.split(b"\0"):
            found.append(int(name))
    return found


QUIET_POLLS = 3  # polls in a row that find no marked process before the run counts as ended


def wait_exited(mark: dict[str, str], timeout_s: float = 60.0) -> None:
    """Wait (bounded) until every process of the marked run has exited: `QUIET_POLLS` polls in a
    row find none. One poll is not enough: a process in the middle of an exec reads as an empty
    environment (measured: 115 of 200 children read right after `Popen` returned), so a poll can
    miss a process that is starting."""
    deadline = time.monotonic() + timeout_s
    quiet = 0
    while quiet < QUIET_POLLS:
        alive = marked(mark)
        quiet = 0 if alive else quiet + 1
        if alive and time.monotonic() > deadline:
            raise AssertionError(f"processes of the run still alive after {timeout_s}s: {alive}")
        if quiet < QUIET_POLLS:
            time.sleep(0.05)


def running(pid: int) -> bool:
    """Process `pid` exists and is not a zombie waiting for its reaper."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait_blocked_reading(pid: int, timeout_s: float = 60.0) -> None:
    """Wait (bounded) until process `pid` sleeps in select/poll: waiting for input that is not there yet."""
    deadline = time.monotonic() + timeout_s
    wchan = ""
    while time.monotonic() < deadline:
        wchan = Path(f"/proc/{pid}/wchan").read_text()
        if "poll" in wchan or "select" in wchan:
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} never waited for input within {timeout_s}s (last wchan {wchan!r})")
