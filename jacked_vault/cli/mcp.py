"""`jacked memory mcp` (the stdio server) and the `--mcp` family of `jacked memory hooks …`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from jacked_vault.cli.apps import JsonOpt, VaultOpt, memory_app
from jacked_vault.cli.output import emit_error
from jacked_vault.errors import VaultError


@memory_app.command("mcp")
def mcp_server(ctx: typer.Context, vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Serve the vault over MCP stdio (what harness configs run; needs JACKED_MEMORY_HARNESS)."""
    from jacked_vault.mcp.server import Settings, StartupError, build_server

    try:
        settings = Settings.from_env(vault or (ctx.obj or {}).get("vault"))
    except StartupError as exc:
        if as_json:
            emit_error(VaultError("CONFIG", str(exc)), True)
        else:
            sys.stderr.write(f"jacked-memory-mcp: {exc}\n")
        raise typer.Exit(1) from None
    try:
        build_server(settings).run("stdio")
    except KeyboardInterrupt:
        pass


def mcp_family(
    ctx: typer.Context,
    op: str,
    harnesses: list[str],
    *,
    config: str | None,
    vault: str | None,
    print_only: bool = False,
    allow_user_scope: bool = False,
    user: bool = False,
):
    """The `--mcp` installer family for `hooks install|uninstall|status` (see jacked_vault.cli.hooks)."""
    from jacked_vault.mcp import registration as reg
    from jacked_vault.store.layout import resolve_vault_path

    names = list(dict.fromkeys(h.strip().lower() for h in harnesses))
    for name in names:
        if name not in reg.HARNESSES:
            raise VaultError("USAGE", f"--mcp: use one of {', '.join(reg.HARNESSES)}")
    if config and len(names) > 1:
        raise VaultError("USAGE", "--config names one file: give it with a single --mcp HARNESS")
    vault_path = resolve_vault_path(vault or (ctx.obj or {}).get("vault"))
    results: list[dict[str, Any]] = []
    for name in names:
        path = Path(config).absolute() if config else reg.default_config_path(name, user=user)
        launch = reg.launch_for(name, vault_path, allow_user_scope=allow_user_scope)
        item: dict[str, Any] = {"harness": name, "path": str(path)}
        if op == "install" and print_only:
            item.update(action="printed", snippet=reg.render(name, launch))
            if name == "claude":
                item["cli"] = reg.claude_cli(launch)
        elif op == "install":
            item["action"] = reg.install(name, path, launch).action
            if not (vault_path / "vault.json").exists():
                item["warning"] = f"no vault at {vault_path} yet; run `jacked memory init`"
            if not user and name != "codex":  # codex has no project file
                _say_where(item, reg.repo_file(path))
        elif op == "uninstall":
            item["action"] = reg.uninstall(name, path).action
        else:
            item["state"] = reg.status(name, path, launch)
        results.append(item)
    return "mcp", results, _human


def _say_where(item: dict[str, Any], found: dict | None) -> None:
    """A config written into a code repo holds this machine's absolute paths: say so, and offer
    the per-person file instead (`--user`)."""
    if found is None or found["state"] == "ignored":
        return
    item["repo_file"] = found
    harness, path, repo = item["harness"], item["path"], found["repo"]
    if found["state"] == "tracked":
        risk = f"{path} is tracked in the code repo {repo}: committing it shares this machine's absolute paths with everyone"
    else:
        risk = f"{path} is untracked in the code repo {repo} and holds this machine's absolute paths: keep it out of commits"
    item["notice"] = (
        f"{risk}. To register once for every project instead: "
        f"`jacked memory hooks uninstall --mcp {harness}`, then `jacked memory hooks install --mcp {harness} --user`"
    )


def _human(item: dict[str, Any]) -> str:
    if item.get("action") == "printed":
        lines = [f"# {item['harness']}: add to {item['path']}", item["snippet"].rstrip("\n")]
        if item.get("cli"):
            lines.append(f"# or run: {item['cli']}")
        return "\n".join(lines)
    if "state" in item:
        return f"mcp {item['harness']}: {item['state']} ({item['path']})"
    text = f"mcp {item['harness']}: {item['action']} {item['path']}"
    if item.get("warning"):
        text += f"\nwarning: {item['warning']}"
    if item.get("notice"):
        text += f"\nnote: {item['notice']}"
    return text
