"""Are jacked's hooks in place, and how did they last run? For `status`.

Whether each is installed comes from its own config: Claude Code's settings.json, each
harness's MCP config (the cwd repo's and the per-person one), and the cwd repo's post-merge
hook. The last run of each comes from the tail of `<vault>/.jacked/log` (`store.log.last_runs`;
the brief reads its failures there too).
"""

from __future__ import annotations

from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.store.log import LastRun, last_runs


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
