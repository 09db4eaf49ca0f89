"""Talking to the vault's remote through the user's own `git` (their credentials, their ssh config).

Nothing here resets or force-pushes. The outcome of the last pull is kept in
`.jacked/sync-state.json` so `status` and `brief` can say when it failed or diverged.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from jacked_vault.store.layout import CACHE_DIR

STATE_FILE = "sync-state.json"
DEFAULT_PULL_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class PullResult:
    result: str  # ok | up-to-date | no-remote | diverged | failed | timeout
    message: str
    at: float


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait for a password on a hook path
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def has_remote(root: Path) -> bool:
    from jacked_vault.groups.identity import origin_url

    return bool(origin_url(root))


def pull_ff_only(root: Path, timeout_s: float = DEFAULT_PULL_TIMEOUT_S) -> PullResult:
    """`git pull --ff-only` with a hard timeout; records and returns the outcome, never raises."""
    if not has_remote(root):
        return PullResult("no-remote", "no remote is set", time.time())
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "pull", "--ff-only", "--quiet", "origin", "main"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=_git_env(),
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        outcome = PullResult("timeout", f"pull took over {timeout_s:g}s and was stopped", time.time())
    except OSError as exc:
        outcome = PullResult("failed", f"git could not run: {exc.strerror}", time.time())
    else:
        error = " ".join(proc.stderr.split())[:300]
        if proc.returncode == 0:
            outcome = PullResult("ok", "fast-forwarded or already up to date", time.time())
        elif "Not possible to fast-forward" in proc.stderr or "diverg" in proc.stderr:
            outcome = PullResult("diverged", "the vault and its remote have diverged; run `jacked memory sync`", time.time())
        else:
            outcome = PullResult("failed", error or f"git exited {proc.returncode}", time.time())
    write_state(root, outcome)
    return outcome


def write_state(root: Path, outcome: PullResult) -> None:
    from jacked_vault.safety import fsio

    try:
        fsio.replace_file(root, f"{CACHE_DIR}/{STATE_FILE}", json.dumps(asdict(outcome)).encode())
    except OSError:
        pass


def read_state(root: Path) -> PullResult | None:
    try:
        data = json.loads((root / CACHE_DIR / STATE_FILE).read_text(encoding="utf-8"))
        return PullResult(str(data["result"]), str(data["message"]), float(data["at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
