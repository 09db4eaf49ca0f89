"""Are jacked's hooks in place, and how did they last run? One table for `status` and `hooks status`.

The table has a row per harness and part: `mcp` (the MCP server's registration), `brief` (how
the session-start brief reaches the agent) and `capture` (how a session ends up in the vault),
plus the cwd repo's post-merge hook (`git`, `capture`). Each row says its state, where it is
installed, how (`via`), and when it last ran and how that ended.

Whether a part is installed comes from its own config; its last run from the tail of
`<vault>/.git/jacked/log` (`store.log.last_runs`: hook lines carry `harness=<h>`, the MCP server
logs `mcp <h> started|ended|failed|brief`).

**Harnesses contribute rows.** Each harness adapter (`jacked_vault.harnesses`) probes its own
`brief` and `capture` parts (`Harness.probe`); a harness without a `brief` row gets the brief
through the MCP prompt and tool when its server is registered; without a `capture` row, none.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault import environment, harnesses
from jacked_vault.errors import VaultError
from jacked_vault.gitflow.githooks import git_hook_status
from jacked_vault.harnesses.probe import Part, PartJson, Probe, latest
from jacked_vault.store.layout import state_dir
from jacked_vault.store.log import LastRun, last_runs

if TYPE_CHECKING:
    from jacked_vault.context import Context
    from jacked_vault.harnesses.launch import Launch


def _latest(runs: list[LastRun]) -> dict[str, Any] | None:
    run = latest(runs)
    return run.to_json() if run else None


Table = dict[str, dict[str, PartJson]]  # harness -> part -> row, as JSON


# -- the table ------------------------------------------------------------------------------------


def harness_table(vault: Path, cwd: Path, repo: Path | None) -> dict[str, dict[str, Part]]:
    """harness -> part -> Part, for every harness jacked registers, a family probes, or the log
    has seen run; plus `git` -> `capture` for the post-merge hook of `repo` (the cwd's)."""
    runs = last_runs(state_dir(vault))
    seen = {key.split(":", 1)[1] for key in runs if key.startswith(("mcp:", "mcp-brief:"))}
    seen |= {key.split(":", 1)[0] for key in runs if ":" in key and not key.startswith(("mcp:", "mcp-brief:"))}
    names = list(dict.fromkeys([*harnesses.names(sort=True), *sorted(seen)]))
    table: dict[str, dict[str, Part]] = {}
    for harness in names:
        probe = Probe(harness, vault, cwd, runs)
        parts = {"mcp": _mcp_part(probe)}
        for part in ("brief", "capture"):
            parts[part] = _run_probe(part, probe) or _default(part, probe, parts["mcp"])
        table[harness] = parts
    table["git"] = {"capture": _post_merge_part(repo, runs)}
    return table


def cwd_table(vault: str | None = None) -> Table:
    """The table for the current folder and `vault` (`hooks status`), as JSON rows by harness."""

    ctx = environment.context(vault)
    try:
        repo = ctx.repo.root if ctx.repo is not None else None
    except VaultError:
        repo = None
    table = harness_table(ctx.vault_path, ctx.cwd, repo)
    return {harness: {name: part.to_json() for name, part in parts.items()} for harness, parts in table.items()}


def _run_probe(part: str, probe: Probe) -> Part | None:
    """The harness's own row for `part`, when its adapter has one."""
    adapter = harnesses.find(probe.harness)
    if adapter is None:
        return None
    try:
        return adapter.probe(part, probe)
    except (VaultError, OSError) as exc:
        message = exc.message if isinstance(exc, VaultError) else str(exc)
        return Part("unreadable", problem=message)


def _default(part: str, probe: Probe, mcp: Part) -> Part:
    """A harness no family probes for `part`: the brief comes over MCP when the server is there."""
    if part == "brief" and mcp.state in ("installed", "outdated", "elsewhere"):
        return Part("mcp", mcp.where, "the MCP prompt `brief` / tool `memory_brief`", probe.mcp_brief_run())
    return Part(
        "absent",
        last_run=probe.hook_run("session-start") if part == "brief" else probe.hook_run("session-end", "pre-compact"),
    )


def _mcp_part(probe: Probe) -> Part:
    """The harness's MCP registration: its per-person file and the cwd repo's (codex: one file)."""
    from jacked_vault.hooks import mcp as reg

    last = probe.runs.get(f"mcp:{probe.harness}")
    if harnesses.find(probe.harness) is None:
        return Part(
            "elsewhere" if last else "absent", via="registered by the client itself" if last else None, last_run=last
        )
    states = {}
    launch = reg.launch_for(probe.harness, probe.vault)
    for where, path in _mcp_places(probe).items():
        states[where] = (_mcp_state(probe.harness, path, launch), path)
    for state in ("installed", "outdated"):
        places = [f"{where}: {path}" for where, (found, path) in states.items() if found == state]
        if places:
            return Part(state, places, "jacked-memory-mcp", last)
    if any(found == "unreadable" for found, _ in states.values()):
        return Part("unreadable", [f"{w}: {p}" for w, (s, p) in states.items() if s == "unreadable"], last_run=last)
    return Part(
        "elsewhere" if last else "absent",
        via="registered outside the files jacked knows" if last else None,
        last_run=last,
    )


def _mcp_places(probe: Probe) -> dict[str, Path]:
    from jacked_vault.hooks import mcp as reg

    places = {"user": reg.default_config_path(probe.harness, probe.cwd, user=True)}
    if reg.has_project_file(probe.harness):
        places["project"] = reg.default_config_path(probe.harness, probe.cwd)
    return places


def _mcp_state(name: str, path: Path, launch: Launch) -> str:
    from jacked_vault.hooks import mcp as reg

    try:
        return reg.status(name, path, launch)
    except VaultError:
        return "unreadable"


def _post_merge_part(root: Path | None, runs: dict[str, LastRun]) -> Part:
    """The cwd repo's post-merge hook, wherever a framework put it."""

    last = runs.get("post-merge")
    if root is None:
        return Part("n/a", via="not in a code repo", last_run=last)
    try:
        report = git_hook_status(root)
    except (VaultError, OSError) as exc:
        return Part("unreadable", [str(root)], last_run=last, problem=getattr(exc, "message", str(exc)))
    state = {"legacy-chained": "installed", "foreign": "absent", "not-installed": "absent"}.get(
        report.state, report.state
    )
    where = [str(report.jacked_hook)] if report.jacked_hook else [str(report.repo)]
    via = f"post-merge hook, run by {report.via}" if report.via else "post-merge hook"
    return Part(state, where, via, last, problem=report.problem)


# -- status -----------------------------------------------------------------------------------------


def hooks_health(ctx: Context) -> dict[str, Any]:
    """`status --json`'s `hooks`: the per-harness table (`harnesses`), and the keys it had before
    (`claude`, `mcp`, `post_merge`)."""
    try:
        repo = ctx.repo.root if ctx.repo is not None else None
    except VaultError:
        repo = None
    table = harness_table(ctx.vault.root, ctx.cwd, repo)
    runs = last_runs(ctx.vault.state)
    claude_runs = [runs[name] for name in ("session-start", "session-end", "pre-compact", "drain") if name in runs]
    return {
        "harnesses": {
            harness: {name: part.to_json() for name, part in parts.items()} for harness, parts in table.items()
        },
        "claude": {**_claude_hooks(), "last_run": _latest(claude_runs)},
        "mcp": {
            name: {**where, "last_run": _latest([runs[f"mcp:{name}"]] if f"mcp:{name}" in runs else [])}
            for name, where in _mcp(ctx).items()
        },
        "post_merge": {**_post_merge(ctx), "last_run": _latest([runs["post-merge"]] if "post-merge" in runs else [])},
    }


def _claude_hooks() -> dict[str, Any]:
    from jacked_vault.harnesses.installers import claude

    try:
        found = claude.status()
    except VaultError as exc:
        return {"path": str(claude.default_settings_path()), "state": "unreadable", "problem": exc.message}
    state = "installed" if found["complete"] else "partial" if found["installed"] else "absent"
    return {"path": found["path"], "state": state, "events": found["installed"]}


def _mcp(ctx: Context) -> dict[str, dict[str, Any]]:
    """Each harness's registration: in the cwd repo's file (`project`) and the per-person one (`user`)."""
    from jacked_vault.hooks import mcp as reg

    out = {}
    for name in harnesses.names(sort=True):
        launch = reg.launch_for(name, ctx.vault.root)
        places = {"user": reg.default_config_path(name, ctx.cwd, user=True)}
        if reg.has_project_file(name):
            places["project"] = reg.default_config_path(name, ctx.cwd)
        out[name] = {where: _mcp_state(name, path, launch) for where, path in places.items()}
    return out


def _post_merge(ctx: Context) -> dict[str, Any]:
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


def table_rows(harnesses: Table) -> list[dict[str, Any]]:
    """The table as rows (`hooks status`): one per harness and part, as `status --json` has them."""
    return [
        {"harness": harness, "part": part, **row} for harness, parts in harnesses.items() for part, row in parts.items()
    ]


def table_text(harnesses: Table) -> list[str]:
    """The table as text lines: a row per installed or run part; harnesses with neither, on one line."""
    lines, idle = [], []
    for harness, parts in harnesses.items():
        shown = {
            part: row
            for part, row in parts.items()
            if row["state"] not in ("absent", "n/a") or row["last_run"] or harness == "git"
        }
        if harness == "git" and parts["capture"]["state"] == "n/a" and not parts["capture"]["last_run"]:
            continue  # not in a repo: no post-merge to speak of
        if not shown:
            idle.append(harness)
            continue
        for i, (part, row) in enumerate(shown.items()):
            lines.append(f"  {harness if i == 0 else '':<9} {part:<8} {row_text(row)}")
    if idle:
        lines.append(f"  nothing installed for {', '.join(idle)}")
    return lines


def row_text(row: Mapping[str, Any]) -> str:
    """A row (`PartJson`, or a `table_rows` row) as text."""
    text = row["state"]
    if row.get("via"):
        text += f" ({row['via']})"
    if row["where"]:
        text += f" in {', '.join(row['where'])}"
    run = row.get("last_run")
    if run:
        outcome = " ".join(run["outcome"].split())
        outcome = outcome if len(outcome) <= 60 else outcome[:59] + "…"
        text += f"; last ran {run['at'][:19].replace('T', ' ')} UTC, {'ok' if run['ok'] else 'FAILED'}" + (
            f": {outcome}" if outcome else ""
        )
    if row.get("problem"):
        text += f"; {row['problem']}"
    return text


def summary(hooks: dict[str, Any], captures: dict[str, Any]) -> str:
    """What `status` prints for `hooks` and `captures` (as `status --json` has them)."""
    lines = ["hooks (per harness and part: state, where, last run):", *table_text(hooks["harnesses"])]
    lines.append(f"captures: {captures['pending']} pending, {captures['failed']} failed")
    return "\n".join(lines)
