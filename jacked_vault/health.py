"""Are jacked's hooks in place, and how did they last run? One table for `status` and `hooks status`.

The table has a row per harness and part: `mcp` (the MCP server's registration), `brief` (how
the session-start brief reaches the agent) and `capture` (how a session ends up in the vault),
plus the cwd repo's post-merge hook (`git`, `capture`). Each row says its state, where it is
installed, how (`via`), and when it last ran and how that ended.

Whether a part is installed comes from its own config; its last run from the tail of
`<vault>/.git/jacked/log` (`store.log.last_runs`: hook lines carry `harness=<h>`, the MCP server
logs `mcp <h> started|ended|failed|brief`).

**Families contribute rows.** `PARTS` lists, per harness and part, the function that probes it:
`module:function(probe: Probe) -> Part`. A family for another harness (its hooks file, its
plugin) adds its rows there and nothing else. A harness without a `brief` row gets the brief
through the MCP prompt and tool when its server is registered; without a `capture` row, none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.store.layout import state_dir
from jacked_vault.store.log import LastRun, last_runs

# (harness, part, "module:function"): each family's probe of one part. Families add theirs here.
PARTS: tuple[tuple[str, str, str], ...] = (
    ("claude", "brief", "jacked_vault.health:claude_brief"),
    ("claude", "capture", "jacked_vault.health:claude_capture"),
    ("codex", "brief", "jacked_vault.health:codex_brief"),
    ("codex", "capture", "jacked_vault.health:codex_capture"),
    ("cursor", "brief", "jacked_vault.health:cursor_brief"),
    ("cursor", "capture", "jacked_vault.health:cursor_capture"),
    ("opencode", "brief", "jacked_vault.health:opencode_brief"),
    ("opencode", "capture", "jacked_vault.health:opencode_capture"),
)


@dataclass(frozen=True)
class Probe:
    """What a probe gets: the harness, the vault, the cwd, and the log's last runs."""

    harness: str
    vault: Path
    cwd: Path
    runs: dict[str, LastRun]

    def hook_run(self, *names: str) -> LastRun | None:
        """The latest run of this harness's hooks named `names` (`session-start`, `session-end`, …)."""
        keys = [name if self.harness == "claude" else f"{self.harness}:{name}" for name in names]
        return latest([self.runs[key] for key in keys if key in self.runs])

    def mcp_brief_run(self) -> LastRun | None:
        return self.runs.get(f"mcp-brief:{self.harness}")


@dataclass
class Part:
    """One row: `state` (installed, partial, outdated, stranded, absent, unreadable, or `mcp`/
    `elsewhere` for what the MCP server does), `where` it is, `via` what, and its last run."""

    state: str
    where: list[str] = field(default_factory=list)
    via: str | None = None
    last_run: LastRun | None = None
    problem: str | None = None

    def to_json(self) -> dict:
        out = {
            "state": self.state,
            "where": list(self.where),
            "via": self.via,
            "last_run": self.last_run.to_json() if self.last_run else None,
        }
        if self.problem:
            out["problem"] = self.problem
        return out


def latest(runs: list[LastRun]) -> LastRun | None:
    return max(runs, key=lambda run: run.seq) if runs else None


def _latest(runs: list[LastRun]) -> dict | None:
    run = latest(runs)
    return run.to_json() if run else None


# -- the table ------------------------------------------------------------------------------------


def harness_table(vault: Path, cwd: Path, repo: Path | None) -> dict[str, dict[str, Part]]:
    """harness -> part -> Part, for every harness jacked registers, a family probes, or the log
    has seen run; plus `git` -> `capture` for the post-merge hook of `repo` (the cwd's)."""
    from jacked_vault.hooks import mcp as reg

    runs = last_runs(state_dir(vault))
    seen = {key.split(":", 1)[1] for key in runs if key.startswith(("mcp:", "mcp-brief:"))}
    seen |= {key.split(":", 1)[0] for key in runs if ":" in key and not key.startswith(("mcp:", "mcp-brief:"))}
    names = list(dict.fromkeys([*reg.HARNESSES, *(h for h, _, _ in PARTS), *sorted(seen)]))
    table: dict[str, dict[str, Part]] = {}
    for harness in names:
        probe = Probe(harness, vault, cwd, runs)
        parts = {"mcp": _mcp_part(probe)}
        for part in ("brief", "capture"):
            found = [target for h, p, target in PARTS if h == harness and p == part]
            parts[part] = _run_probe(found[0], probe) if found else _default(part, probe, parts["mcp"])
        table[harness] = parts
    table["git"] = {"capture": _post_merge_part(repo, runs)}
    return table


def cwd_table(vault: str | None = None) -> dict[str, dict]:
    """The table for the current folder and `vault` (`hooks status`), as JSON rows by harness."""
    from jacked_vault import environment

    ctx = environment.context(vault)
    try:
        repo = ctx.repo.root if ctx.repo is not None else None
    except VaultError:
        repo = None
    table = harness_table(ctx.vault_path, ctx.cwd, repo)
    return {harness: {name: part.to_json() for name, part in parts.items()} for harness, parts in table.items()}


def _run_probe(target: str, probe: Probe) -> Part:
    import importlib

    module, function = target.split(":")
    try:
        return getattr(importlib.import_module(module), function)(probe)
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
    if probe.harness not in reg.HARNESSES:
        return Part(
            "elsewhere" if last else "absent", via="registered by the client itself" if last else None, last_run=last
        )
    states = {}
    launch = reg.launch_for(probe.harness, probe.vault)
    for where, path in _mcp_places(reg, probe).items():
        states[where] = (_mcp_state(reg, probe.harness, path, launch), path)
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


def _mcp_places(reg, probe: Probe) -> dict[str, Path]:
    places = {"user": reg.default_config_path(probe.harness, probe.cwd, user=True)}
    if probe.harness != "codex":  # codex has only the per-person file
        places["project"] = reg.default_config_path(probe.harness, probe.cwd)
    return places


def _mcp_state(reg, name: str, path: Path, launch) -> str:
    try:
        return reg.status(name, path, launch)
    except VaultError:
        return "unreadable"


def _claude_settings(probe: Probe) -> tuple[dict | None, str | None]:
    from jacked_vault.hooks import claude

    try:
        return claude.status(), None
    except VaultError as exc:
        return None, exc.message


def _claude_part(probe: Probe, events: tuple[str, ...], via: str, last: LastRun | None) -> Part:
    from jacked_vault.hooks import claude

    found, problem = _claude_settings(probe)
    if found is None:
        return Part("unreadable", [str(claude.default_settings_path())], last_run=last, problem=problem)
    have = [event for event in events if event in found["installed"]]
    if not have:
        return Part("absent", last_run=last)
    state = "installed" if len(have) == len(events) else "partial"
    vaults = set(found.get("vaults") or [])
    if vaults and vaults != {str(probe.vault)}:
        return Part(
            "outdated",
            [found["path"]],
            via,
            last,
            problem=f"its hooks name another vault ({', '.join(sorted(vaults))})",
        )
    return Part(state, [found["path"]], f"{via} ({', '.join(have)})", last)


def claude_brief(probe: Probe) -> Part:
    """Claude Code's SessionStart hook (and the MCP prompt, if the server is registered)."""
    return _claude_part(
        probe,
        ("SessionStart",),
        "hook",
        latest([r for r in (probe.hook_run("session-start"), probe.mcp_brief_run()) if r]),
    )


def claude_capture(probe: Probe) -> Part:
    """Claude Code's SessionEnd and PreCompact hooks (the capture itself runs in the detached drain)."""
    return _claude_part(probe, ("SessionEnd", "PreCompact"), "hooks", probe.hook_run("session-end", "pre-compact"))


def _events_part(
    found: list[dict], events: tuple[str, ...], via: str, last: LastRun | None, mcp_brief: LastRun | None = None
) -> Part:
    """A hooks file's part (`found`: each file's status, `installed` its events) as one row."""
    where = [item["path"] for item in found if set(events) & set(item["installed"])]
    have = sorted({event for item in found for event in item["installed"] if event in events})
    last = latest([r for r in (last, mcp_brief) if r])
    if not have:
        return Part("absent", last_run=last)
    return Part("installed" if len(have) == len(events) else "partial", where, f"{via} ({', '.join(have)})", last)


def _codex(probe: Probe, event: str, hook: str) -> Part:
    from jacked_vault.hooks import codex

    found = codex.status()
    part = _events_part(
        [found], (event,), "hook", probe.hook_run(hook), probe.mcp_brief_run() if hook == "session-start" else None
    )
    if part.state != "absent" and event not in found.get("trusted", []):
        part.problem = "Codex runs it only once trusted (Codex asks at its next start, or /hooks)"
    if part.state != "absent" and found.get("warnings"):
        part.problem = "; ".join(filter(None, [part.problem, *found["warnings"]]))
    return part


def codex_brief(probe: Probe) -> Part:
    """Codex's SessionStart hook in its config.toml (`hooks install --codex`)."""
    return _codex(probe, "SessionStart", "session-start")


def codex_capture(probe: Probe) -> Part:
    """Codex's Stop hook (each turn's end queues the session; the drain captures it once quiet)."""
    return _codex(probe, "Stop", "session-end")


def _cursor(probe: Probe, event: str, hook: str) -> Part:
    from jacked_vault.hooks import cursor

    found = [cursor.status(cursor.default_path(user=user, cwd=probe.cwd)) for user in (True, False)]
    return _events_part(
        found, (event,), "hook", probe.hook_run(hook), probe.mcp_brief_run() if hook == "session-start" else None
    )


def cursor_brief(probe: Probe) -> Part:
    """Cursor's sessionStart hook in hooks.json (`hooks install --cursor [--user]`)."""
    return _cursor(probe, "sessionStart", "session-start")


def cursor_capture(probe: Probe) -> Part:
    return _cursor(probe, "sessionEnd", "session-end")


def _opencode(probe: Probe, hook: str) -> Part:
    from jacked_vault.hooks import opencode

    found = [opencode.status(opencode.plugin_path(user=user, cwd=probe.cwd)) for user in (True, False)]
    last = latest([r for r in (probe.hook_run(hook), probe.mcp_brief_run() if hook == "session-start" else None) if r])
    for state in ("installed", "outdated"):
        mine = [item for item in found if item["state"] == state]
        if mine:
            vaults = {item["vault"] for item in mine if item.get("vault")}
            if vaults and vaults != {str(probe.vault)}:
                return Part(
                    "outdated",
                    [item["path"] for item in mine],
                    "plugin",
                    last,
                    problem=f"it names another vault ({', '.join(sorted(vaults))})",
                )
            return Part(state, [item["path"] for item in mine], "plugin", last)
    return Part("absent", last_run=last)


def opencode_brief(probe: Probe) -> Part:
    """OpenCode's jacked-vault plugin (`hooks install --opencode [--user]`): the brief in the system prompt."""
    return _opencode(probe, "session-start")


def opencode_capture(probe: Probe) -> Part:
    """The same plugin queues a session once it has gone quiet (or OpenCode exits)."""
    return _opencode(probe, "session-end")


def _post_merge_part(root: Path | None, runs: dict[str, LastRun]) -> Part:
    """The cwd repo's post-merge hook, wherever a framework put it."""
    from jacked_vault.gitflow.githooks import git_hook_status

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


def hooks_health(ctx) -> dict:
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
    from jacked_vault.hooks import mcp as reg

    out = {}
    for name in reg.HARNESSES:
        launch = reg.launch_for(name, ctx.vault.root)
        places = {"user": reg.default_config_path(name, ctx.cwd, user=True)}
        if name != "codex":  # codex has only the per-person file
            places["project"] = reg.default_config_path(name, ctx.cwd)
        out[name] = {where: _mcp_state(reg, name, path, launch) for where, path in places.items()}
    return out


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


def table_rows(harnesses: dict) -> list[dict]:
    """The table as rows (`hooks status`): one per harness and part, as `status --json` has them."""
    return [
        {"harness": harness, "part": part, **row} for harness, parts in harnesses.items() for part, row in parts.items()
    ]


def table_text(harnesses: dict) -> list[str]:
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


def row_text(row: dict) -> str:
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


def summary(hooks: dict, captures: dict) -> str:
    """What `status` prints for `hooks` and `captures` (as `status --json` has them)."""
    lines = ["hooks (per harness and part: state, where, last run):", *table_text(hooks["harnesses"])]
    lines.append(f"captures: {captures['pending']} pending, {captures['failed']} failed")
    return "\n".join(lines)
