"""`hooks install|uninstall|status`: jacked's entries in harness configs and code repos.

Each kind of entry is a family selected by its own option: `claude` (Claude Code's settings.json
hooks), `codex` (Codex's hooks in its config.toml), `git` (the post-merge hook of code repos) and
`mcp` (the MCP server registration of a harness). A harness's session hooks are its adapter's
(`jacked_vault.harnesses`): `--claude`, `--codex`, `--opencode` and `--cursor` name them, as does
`Selection.hooks` for any registered harness. A family turns the selection into one result
dict per file or repo; `manage` runs every family selected and returns one `HooksReport`. A repo
the git family cannot change is an `error` entry (the others are still done) and makes the report
not ok: the command exits 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacked_vault import environment
from jacked_vault.environment import vault_path
from jacked_vault.errors import VaultError
from jacked_vault.gitflow import githooks
from jacked_vault.harnesses import all_harnesses
from jacked_vault.harnesses import get as known_harness
from jacked_vault.harnesses.base import Harness, repo_file
from jacked_vault.hooks import commands, skills
from jacked_vault.hooks.health import cwd_table, row_text, table_rows
from jacked_vault.hooks.installed import record_installs

OPS = ("install", "uninstall", "status")


@dataclass(frozen=True)
class Selection:
    """What a `hooks` command was asked about (its options)."""

    claude: bool = False
    settings: str | None = None
    codex: bool = False  # Codex's hooks in $CODEX_HOME/config.toml (a per-person file: --user or not)
    git: tuple[str, ...] = ()
    git_all: str | None = None
    follow_hooks_path: bool = False
    force: bool = False
    mcp: tuple[str, ...] = ()
    config: str | None = None
    print_only: bool = False
    user: bool = False  # --mcp: the harness's per-person config, not the project file
    allow_user_scope: bool = False
    table: bool = False  # `hooks status` with no option: first the per-harness table (health.harness_table)
    opencode: bool = False  # OpenCode's session plugin (hooks/opencode.py); --user: the per-person folder
    cursor: bool = False  # Cursor's session hooks in hooks.json (hooks/cursor.py); --user: ~/.cursor/hooks.json
    commands: tuple[str, ...] = ()  # the /remember and /learn command files of these harnesses (hooks/commands.py)
    skills: tuple[str, ...] = ()  # the librarian skill of these harnesses (hooks/skills.py)
    hooks: tuple[str, ...] = ()  # the session hooks of these harnesses, as their own option names them

    def session_harnesses(self) -> list[Harness]:
        """The harnesses whose session hooks are asked for, in the registry's order."""
        return all_harnesses(lambda h: h.name in self.hooks or getattr(self, h.name, None) is True)


@dataclass
class HooksReport:
    """One result list per family, in the order they ran."""

    families: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any("error" in item for results in self.families.values() for item in results)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, **self.families}

    def to_text(self) -> str:
        render = {
            "git": _git_text,
            "mcp": _mcp_text,
            "harnesses": _harness_text,
            "commands": _commands_text,
            "skills": _skills_text,
        }
        return "\n".join(
            render[key](item) if key in render else known_harness(key).session_hooks_text(item)
            for key, results in self.families.items()
            for item in results
        )


def _git_text(item: dict[str, Any]) -> str:
    if "error" in item:
        message = item["error"]["message"].removeprefix(f"{item['repo']}: ")
        return f"error: post-merge in {item['repo']}: {message} [{item['error']['code']}]"
    done = "; ".join(item.get("actions") or []) or item.get("state", "")
    if not item.get("actions") and item.get("via"):
        done += f" (run by {item['via']})" if item["via"] != "repo-hook" else f" (run by the line in {item['hook']})"
    return f"post-merge in {item['repo']}: {done}" + "".join(f"\nwarning: {w}" for w in item.get("warnings") or [])


def _harness_rows(vault: str | None) -> list[dict[str, Any]]:
    """The per-harness table `status` shows (health.harness_table): one row per harness and part."""

    return table_rows(cwd_table(vault))


def _harness_text(item: dict[str, Any]) -> str:
    return f"{item['harness']:<9} {item['part']:<8} {row_text(item)}"


def _mcp_text(item: dict[str, Any]) -> str:
    if item.get("action") == "printed":
        lines = [f"# {item['harness']}: add to {item['path']}", item["snippet"].rstrip("\n")]
        if item.get("cli"):
            lines.append(f"# or run: {item['cli']}")
        return "\n".join(lines)
    if "state" in item:
        return f"mcp {item['harness']}: {item['state']} ({item['path']})"
    text = f"mcp {item['harness']}: {item['action']} {item['path']}"
    text += f"\nwarning: {item['warning']}" if item.get("warning") else ""
    return text + (f"\nnote: {item['notice']}" if item.get("notice") else "")


def _commands_text(item: dict[str, Any]) -> str:
    if "error" in item:
        return f"error: {item['harness']} commands: {item['error']['message']} [{item['error']['code']}]"
    return f"{item['harness']} command {item.get('action') or item['state']}: {item['path']}"


def _commands(op: str, harnesses: tuple[str, ...], vault: Path | None) -> list[dict[str, Any]]:
    """`--commands HARNESS`: the `/remember` and `/learn` files in the harness's per-person
    command folder. A foreign file of that name is an `error` item (the command exits 1)."""

    results: list[dict[str, Any]] = []
    for name in dict.fromkeys(h.strip().lower() for h in harnesses):
        commands.folder(name)  # USAGE for a harness without commands
        try:
            if op == "status":
                results += commands.status(name, vault)
                continue
            changes = commands.install(name, vault) if op == "install" else commands.uninstall(name)
            results += [{"harness": name, "path": c.path, "action": c.action} for c in changes]
        except VaultError as exc:
            results.append({"harness": name, "error": {"code": exc.full_code, "message": exc.message}})
    return results


def _skills_text(item: dict[str, Any]) -> str:
    if "error" in item:
        return f"error: {item['harness']} librarian skill: {item['error']['message']} [{item['error']['code']}]"
    return f"{item['harness']} librarian skill {item.get('action') or item['state']}: {item['path']}"


def _skills(op: str, harnesses: tuple[str, ...], vault: Path | None) -> list[dict[str, Any]]:
    """`--skills HARNESS`: the jacked-librarian skill in the harness's per-person skills folder.
    Someone else's file of that name is an `error` item (the command exits 1), never replaced."""

    names = tuple(dict.fromkeys(h.strip().lower() for h in harnesses))
    for name in names:
        skills.skill_path(name)  # USAGE for a harness without skills
    if op == "status":
        return skills.librarian_status(names, vault)
    changes = skills.install_librarian(names, vault) if op == "install" else skills.uninstall_librarian(names)
    return [
        {"harness": c.harness, "error": {"code": "JACKED_MEMORY_CONFIG", "message": f"{c.path} exists and is not "
                                                                                    "jacked-vault's; not replacing "
                                                                                    "it"}}
        if c.action == "refused" else c.to_json()
        for c in changes
    ]  # fmt: skip


def _git(op: str, paths: list[Path], vault: Path | None, selection: Selection) -> list[dict[str, Any]]:
    results = []
    for path in dict.fromkeys(paths):
        try:
            if op == "install":
                report = githooks.install_git_hook(
                    path, vault=vault, follow_hooks_path=selection.follow_hooks_path, force=selection.force
                )
            elif op == "uninstall":
                report = githooks.uninstall_git_hook(path, follow_hooks_path=selection.follow_hooks_path)
            else:
                report = githooks.git_hook_status(path)
            item = report.to_json()
            if op == "status" and report.problem:  # stranded: installed where nothing runs it, something to fix
                item["error"] = {"code": "JACKED_MEMORY_CONFIG", "message": f"{report.repo}: {report.problem}"}
            results.append(item)
        except VaultError as exc:
            results.append({"repo": str(path), "error": {"code": exc.full_code, "message": exc.message}})
    return results


def _mcp(op: str, harnesses: tuple[str, ...], vault_path: Path, selection: Selection) -> list[dict[str, Any]]:
    from jacked_vault.hooks import mcp as reg

    names = list(dict.fromkeys(h.strip().lower() for h in harnesses))
    for name in names:
        known_harness(name, "--mcp")
    if selection.config and len(names) > 1:
        raise VaultError("USAGE", "--config names one file: give it with a single --mcp HARNESS")
    results: list[dict[str, Any]] = []
    for name in names:
        path = (
            Path(selection.config).absolute()
            if selection.config
            else reg.default_config_path(name, user=selection.user)
        )
        launch = reg.launch_for(name, vault_path, allow_user_scope=selection.allow_user_scope)
        item: dict[str, Any] = {"harness": name, "path": str(path)}
        if op == "install" and selection.print_only:
            item.update(action="printed", snippet=reg.render(name, launch))
            cli = reg.cli_line(name, launch)
            if cli:
                item["cli"] = cli
        elif op == "install":
            item["action"] = reg.install(name, path, launch).action
            if not (vault_path / "vault.json").exists():
                item["warning"] = f"no vault at {vault_path} yet; run `jacked memory init`"
            if not selection.user and reg.has_project_file(name):
                _say_where(item, repo_file(path))
        elif op == "uninstall":
            item["action"] = reg.uninstall(name, path).action
        else:
            item["state"] = reg.status(name, path, launch)
        results.append(item)
    return results


def _say_where(item: dict[str, Any], found: dict[str, Any] | None) -> None:
    """A config written into a code repo holds this machine's absolute paths: say so, and offer
    the per-person file instead (`--user`)."""
    if found is None or found["state"] == "ignored":
        return
    item["repo_file"] = found
    harness, path, repo = item["harness"], item["path"], found["repo"]
    if found["state"] == "tracked":
        risk = (
            f"{path} is tracked in the code repo {repo}: "
            "committing it shares this machine's absolute paths with everyone"
        )
    else:
        risk = (
            f"{path} is untracked in the code repo {repo} "
            "and holds this machine's absolute paths: keep it out of commits"
        )
    item["notice"] = (
        f"{risk}. To register once for every project instead: "
        f"`jacked memory hooks uninstall --mcp {harness}`, then `jacked memory hooks install --mcp {harness} --user`"
    )


def manage(op: str, selection: Selection, vault: str | None = None) -> HooksReport:
    """Run `op` for every family `selection` names. `vault` is an explicit --vault; whether given,
    set by $JACKED_VAULT_DIR or the default, every registration names the vault it resolves to
    (issue 19.10), so hooks and MCP servers started without that variable still agree."""

    if op not in OPS:
        raise VaultError("USAGE", f"{op}: use one of {', '.join(OPS)}")
    hooked = selection.session_harnesses()
    if not (hooked or selection.git or selection.git_all or selection.mcp or selection.commands or selection.skills):
        raise VaultError(
            "USAGE",
            f"say what to {op}: --claude, --opencode, --cursor, --codex, --git REPO / --git-all GROUP, --mcp HARNESS "
            "(claude, codex, cursor, opencode) --commands HARNESS or --skills HARNESS (claude, codex, opencode)",
        )
    writes = (hooked, selection.git, selection.git_all, selection.commands, selection.skills)
    if selection.print_only and any(writes):
        raise VaultError(
            "USAGE",
            "--print prints MCP entries only (--mcp HARNESS --print); hooks, commands and skills have no printed "
            "form: run the install without --print, or `jacked memory hooks status` to see what is installed. "
            "Nothing was written",
        )

    explicit = vault_path(vault)
    report = HooksReport()
    if selection.table:
        report.families["harnesses"] = _harness_rows(vault)
    for harness in hooked:
        report.families[harness.name] = harness.session_hooks(
            op, user=selection.user, settings=selection.settings, vault=explicit
        )
    if selection.git or selection.git_all:
        report.families["git"] = _git(op, _git_paths(selection, vault), explicit, selection)
    if selection.mcp:
        report.families["mcp"] = _mcp(op, selection.mcp, vault_path(vault), selection)
    if selection.commands:
        report.families["commands"] = _commands(op, selection.commands, explicit)
    if selection.skills:
        report.families["skills"] = _skills(op, selection.skills, explicit)
    in_repo = not (selection.user or selection.print_only or selection.config)
    record_installs(explicit, op, report.families, project=in_repo)
    return report


def _git_paths(selection: Selection, vault: str | None) -> list[Path]:
    """The repos `--git` names, plus this machine's clones of those of `--git-all GROUP`."""

    paths = [Path(r).expanduser().absolute() for r in selection.git]
    group = selection.git_all
    if group:
        paths += githooks.group_repo_paths(environment.context(vault), group)
    if not paths:
        from jacked_vault.store.config import machine_roots

        roots = machine_roots()
        raise VaultError(
            "USAGE",
            f"--git-all {group}: no clone of a repo of that group on this machine (looked under {roots.source}: "
            f"{', '.join(roots.folders)}); name a clone with --git REPO, or add its folder to `roots` in the machine "
            "config (`jacked memory group suggest --root DIR` does)",
        )
    return paths
