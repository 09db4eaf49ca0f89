"""Are jacked's hooks in place, and how did they last run? For `status` and the brief.

Each hook run logs one line to `<vault>/.jacked/log` (`hook=<name> …` for the Claude Code
hooks, `post-merge run ok|failed …` for the git hook, `mcp <harness> started|ended|failed`
for the MCP server); the last run of each is read from the log's tail (bounded, no parse of
the whole file). Whether each is installed comes from its own config: Claude Code's
settings.json, each harness's MCP config (the cwd repo's and the per-person one), and the
cwd repo's post-merge hook.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.errors import VaultError

LOG_TAIL_BYTES = 64 * 1024
_LINE = re.compile(
    r"^(?P<at>\S+) (?:hook=(?P<hook>\S+) (?P<hook_rest>.*)"
    r"|post-merge run (?P<merge>ok|failed) (?P<merge_rest>.*)"
    r"|mcp (?P<mcp>\S+) (?P<mcp_state>started|ended|failed)(?P<mcp_rest>.*))$"
)


@dataclass(frozen=True)
class LastRun:
    """One hook's latest run as its log line tells it."""

    name: str  # session-start, session-end, pre-compact, drain, post-merge, mcp:<harness>
    at: str  # to the second: `seq` orders runs within one
    ok: bool
    outcome: str
    seq: int = 0  # the line's place in the tail read

    def to_json(self) -> dict:
        return {"name": self.name, "at": self.at, "ok": self.ok, "outcome": self.outcome}


def last_runs(cache_dir: Path) -> dict[str, LastRun]:
    """The latest logged run of each hook, from the last LOG_TAIL_BYTES of `.jacked/log`."""
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
            rest = match["hook_rest"]
            run = LastRun(match["hook"], match["at"], not rest.startswith(("error ", "unknown hook")), rest, seq)
        elif match["merge"]:
            run = LastRun("post-merge", match["at"], match["merge"] == "ok", match["merge_rest"], seq)
        else:
            state = (match["mcp_state"] + match["mcp_rest"]).strip()
            run = LastRun(f"mcp:{match['mcp']}", match["at"], match["mcp_state"] != "failed", state, seq)
        runs[run.name] = run
    return runs


def failed_runs(cache_dir: Path) -> list[LastRun]:
    """The hooks whose latest run failed (for the brief's warning line)."""
    return [run for run in last_runs(cache_dir).values() if not run.ok]


def hooks_health(ctx) -> dict:
    """Installed or not, and the last run, of the Claude Code hooks, each MCP registration and the
    cwd repo's post-merge hook."""
    runs = last_runs(ctx.vault.cache)
    claude_runs = [runs[name] for name in ("session-start", "session-end", "pre-compact", "drain") if name in runs]
    return {
        "claude": {**_claude_hooks(), "last_run": _latest(claude_runs)},
        "mcp": {name: {**where, "last_run": _latest([runs[f"mcp:{name}"]] if f"mcp:{name}" in runs else [])} for name, where in _mcp(ctx).items()},
        "post_merge": {**_post_merge(ctx), "last_run": _latest([runs["post-merge"]] if "post-merge" in runs else [])},
    }


def _latest(runs: list[LastRun]) -> dict | None:
    return max(runs, key=lambda run: run.seq).to_json() if runs else None


def _claude_hooks() -> dict:
    from jacked_vault.hooks import claude

    try:
        found = claude.status()
    except VaultError as exc:
        return {"path": str(claude.default_settings_path()), "state": "unreadable", "problem": exc.message}
    state = "installed" if found["complete"] else "partial" if found["installed"] else "absent"
    return {"path": found["path"], "state": state, "events": found["installed"]}


def _mcp(ctx) -> dict[str, dict]:
    """Each harness's registration: in the cwd repo's file (`project`) and the per-person one (`user`)."""
    from jacked_vault.mcp import registration as reg

    out = {}
    for name in reg.HARNESSES:
        launch = reg.launch_for(name, ctx.vault.root)
        places = {"user": reg.default_config_path(name, ctx.cwd, user=True)}
        if name != "codex":  # codex has only the per-person file
            places["project"] = reg.default_config_path(name, ctx.cwd)
        out[name] = {where: _mcp_state(reg, name, path, launch) for where, path in places.items()}
    return out


def _mcp_state(reg, name: str, path: Path, launch) -> str:
    try:
        return reg.status(name, path, launch)
    except VaultError:
        return "unreadable"


def _post_merge(ctx) -> dict:
    from jacked_vault.gitflow.githooks import git_hook_status

    try:
        repo = ctx.repo
    except VaultError:
        repo = None
    if repo is None:
        return {"repo": None, "state": None}
    try:
        return {"repo": str(repo.root), "state": git_hook_status(repo.root).state}
    except (VaultError, OSError):
        return {"repo": str(repo.root), "state": "unreadable"}


def summary(hooks: dict, captures: dict) -> str:
    """The one human line `status` prints for `hooks` and `captures` (as `status --json` has them)."""

    def last(entry: dict) -> str:
        run = entry.get("last_run")
        return f", last {run['name']} {run['at']} {'ok' if run['ok'] else 'FAILED'}" if run else ""

    claude = hooks["claude"]
    mcp = [f"{name} ({', '.join(w for w in ('user', 'project') if where.get(w) == 'installed')})" for name, where in hooks["mcp"].items()
           if "installed" in (where.get("user"), where.get("project"))]  # fmt: skip
    merge = hooks["post_merge"]
    parts = [
        f"claude {claude['state']}{last(claude)}",
        f"mcp {', '.join(mcp) or 'none'}",
        f"post-merge {merge['state'] or 'n/a (not in a repo)'}{last(merge)}",
        f"captures {captures['pending']} pending, {captures['failed']} failed",
    ]
    return "hooks: " + "; ".join(parts)
