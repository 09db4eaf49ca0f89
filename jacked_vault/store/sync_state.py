"""The outcome of the last pull or sync (`.jacked/sync-state.json`), for `status` and the brief."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

from jacked_vault.store.layout import CACHE_DIR

STATE_FILE = "sync-state.json"
OK_RESULTS = ("ok", "up-to-date", "no-remote")


@dataclass(frozen=True)
class SyncState:
    result: str  # ok | up-to-date | no-remote | diverged | refused | deletions | failed | timeout
    message: str
    at: float


def write_state(root: Path, result: str, message: str) -> SyncState:
    """Record an outcome (never raises: the state is only a report)."""
    from jacked_vault.store.statefile import write_json

    state = SyncState(result, " ".join(message.split())[:400], time.time())
    try:
        write_json(root / CACHE_DIR / STATE_FILE, asdict(state))
    except OSError:
        pass
    return state


def read_state(root: Path) -> SyncState | None:
    from jacked_vault.store.statefile import read_json

    data = read_json(root / CACHE_DIR / STATE_FILE)
    try:
        return SyncState(str(data["result"]), str(data["message"]), float(data["at"])) if data else None
    except (KeyError, TypeError, ValueError):
        return None
