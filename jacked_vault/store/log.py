"""`.git/jacked/log`: one line per hook run or background failure; machine-local, bounded.

Runs are read back from its tail: `hook=<name> … harness=<h>` (the session hooks; a line with
no `harness=` is Claude Code's), `post-merge run ok|failed …` (the git hook), `mcp <harness>
started|ended|failed …` (the MCP server) and `mcp <harness> brief ok|failed …` (its brief).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jacked_vault.document import timestamps

MAX_LOG_BYTES = 1024 * 1024
BARE_HARNESS = "claude"  # the harness of a hook line without `harness=`, whose runs keep the hooks' bare names
MAX_LINE = 500


def log_line(cache_dir: Path, text: str) -> None:
    """Append `<UTC time> <text>` (one line, control characters removed); never raises."""
    line = " ".join("".join(c if c.isprintable() else " " for c in text).split())[:MAX_LINE]

    stamp = timestamps.utc_now()
    if os.path.islink(cache_dir):
        return  # a symlinked .jacked is never followed
    try:
        os.makedirs(cache_dir, exist_ok=True)
        path = cache_dir / "log"
        try:
            if path.stat().st_size > MAX_LOG_BYTES:
                os.replace(path, cache_dir / "log.1")
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, f"{stamp} {line}\n".encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


LOG_TAIL_BYTES = 64 * 1024
_LINE = re.compile(
    r"^(?P<at>\S+) (?:hook=(?P<hook>\S+) (?P<hook_rest>.*?)(?: harness=(?P<harness>[a-z0-9][a-z0-9._-]{0,63}))?"
    r"|post-merge run (?P<merge>ok|failed) (?P<merge_rest>.*)"
    r"|mcp (?P<mcp>\S+) (?P<mcp_state>started|ended|failed|brief)(?P<mcp_rest>.*))$"
)


@dataclass(frozen=True)
class LastRun:
    """One hook's latest run as its log line tells it."""

    # session-start, session-end, pre-compact, drain (Claude Code's, or the vault's), <harness>:<hook>,
    # post-merge, mcp:<harness>, mcp-brief:<harness>
    name: str
    at: str  # to the second: `seq` orders runs within one
    ok: bool
    outcome: str
    seq: int = 0  # the line's place in the tail read

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "at": self.at, "ok": self.ok, "outcome": self.outcome}


def run_name(harness: str, hook: str) -> str:
    """The name a harness's hook runs go by: Claude Code's the hook's own (the vault's hooks log no
    harness), another's `<harness>:<hook>`."""
    return hook if harness == BARE_HARNESS else f"{harness}:{hook}"


def last_runs(cache_dir: Path) -> dict[str, LastRun]:
    """The latest logged run of each hook, from the last LOG_TAIL_BYTES of `.git/jacked/log`."""
    try:
        with open(Path(cache_dir) / "log", "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - LOG_TAIL_BYTES))
            tail = handle.read(LOG_TAIL_BYTES).decode("utf-8", "replace")
    except OSError:
        return {}
    runs: dict[str, LastRun] = {}
    lines = tail.splitlines()[1 if len(tail) >= LOG_TAIL_BYTES else 0 :]  # the first may be cut
    for seq, line in enumerate(lines):
        match = _LINE.match(line)
        if match is None:
            continue
        if match["hook"]:
            rest, name = match["hook_rest"], run_name(match["harness"] or BARE_HARNESS, match["hook"])
            run = LastRun(name, match["at"], not rest.startswith(("error ", "unknown hook")), rest, seq)
        elif match["merge"]:
            run = LastRun("post-merge", match["at"], match["merge"] == "ok", match["merge_rest"], seq)
        elif match["mcp_state"] == "brief":
            ok, _, rest = match["mcp_rest"].strip().partition(" ")
            run = LastRun(f"mcp-brief:{match['mcp']}", match["at"], ok == "ok", rest, seq)
        else:
            state = (match["mcp_state"] + match["mcp_rest"]).strip()
            run = LastRun(f"mcp:{match['mcp']}", match["at"], match["mcp_state"] != "failed", state, seq)
        runs[run.name] = run
    return runs


def failed_runs(cache_dir: Path) -> list[LastRun]:
    """The hooks whose latest run failed (for the brief's warning line)."""
    return [run for run in last_runs(cache_dir).values() if not run.ok]
