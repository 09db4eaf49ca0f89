"""The outcome of the last pull and of the last push (`.git/jacked/sync-state.json`), for `status`
and the brief. Only what happened is recorded: no remote means no state at all. Times are
canonical timestamps; a file an earlier version wrote (epoch seconds) still reads."""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from jacked_vault.document import timestamps
from jacked_vault.document.timestamps import format_timestamp, parse_timestamp
from jacked_vault.errors import VaultError
from jacked_vault.store.layout import state_dir
from jacked_vault.store.statefile import read_json, write_json

STATE_FILE = "sync-state.json"
OK_RESULTS = ("ok", "up-to-date", "quarantined")
KINDS = ("pull", "push")


@dataclass(frozen=True)
class SyncState:
    result: str  # ok | up-to-date | quarantined | diverged | refused | deletions | failed | timeout
    message: str
    at: str  # canonical timestamp (document/timestamps.py)
    kind: str = "pull"  # pull (fetch and take what arrived) | push

    def to_json(self) -> dict[str, Any]:
        return {"result": self.result, "message": self.message, "at": self.at}


def shown_at(at: str) -> str:
    """A recorded time as a person reads it (minutes, UTC)."""

    return parse_timestamp(at).strftime("%Y-%m-%d %H:%M UTC")


def write_state(root: Path, result: str, message: str, *, kind: str = "pull") -> SyncState:
    """Record an outcome of this kind (never raises: the state is only a report)."""

    state = SyncState(result, " ".join(message.split())[:400], timestamps.utc_now(), kind)
    path = state_dir(root) / STATE_FILE
    data = _states(read_json(path))
    data[kind] = {k: v for k, v in asdict(state).items() if k != "kind"}
    with contextlib.suppress(OSError):
        write_json(path, data)
    return state


def _states(data: dict[str, Any] | None) -> dict[str, Any]:
    if not data:
        return {}
    if "result" in data:  # the one-record format of earlier versions: a pull
        return {"pull": data}
    return {kind: data[kind] for kind in KINDS if isinstance(data.get(kind), dict)}


def read_states(root: Path) -> dict[str, SyncState | None]:
    """The last pull and the last push, each None when none happened."""

    data = _states(read_json(state_dir(root) / STATE_FILE))
    out: dict[str, SyncState | None] = {}
    for kind in KINDS:
        record = data.get(kind)
        try:
            at = _timestamp(record["at"]) if record else ""
            out[kind] = SyncState(str(record["result"]), str(record["message"]), at, kind) if record else None
        except (KeyError, TypeError, ValueError, OverflowError, OSError, VaultError):
            out[kind] = None
    return out


def _timestamp(value: object) -> str:
    """A recorded time as a canonical timestamp: as written, or from epoch seconds (earlier versions)."""
    from datetime import UTC, datetime

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_timestamp(datetime.fromtimestamp(value, UTC))
    parse_timestamp(value)  # VALIDATION unless a real canonical timestamp
    return str(value)


def read_state(root: Path) -> SyncState | None:
    """The last pull (what `sync` and the session-start pull took from the remote)."""
    return read_states(root)["pull"]
