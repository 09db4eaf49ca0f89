"""Register the `jacked-memory` MCP server in each harness's own config file.

| harness  | default file                         | entry                                                    |
|----------|--------------------------------------|----------------------------------------------------------|
| claude   | `<project>/.mcp.json`                | `mcpServers.jacked-memory = {command, args, env}`       |
| codex    | `$CODEX_HOME/config.toml` (~/.codex) | `[mcp_servers.jacked-memory]` command, args, env         |
| cursor   | `<project>/.cursor/mcp.json`         | `mcpServers.jacked-memory = {command, args, env}`       |
| opencode | `<project>/opencode.json` (or .jsonc)| `mcp.jacked-memory = {type: local, command, environment}`|

`<project>` is the root of the git repo containing the cwd (else the cwd). With `user=True` each
harness's per-person file is used instead (`~/.claude.json`, `~/.cursor/mcp.json`,
`$XDG_CONFIG_HOME/opencode/opencode.json`; codex has only that one): nothing lands in a code
repo. A project file holds this machine's absolute paths, so `repo_file` says when one sits
untracked (or tracked) in a code repo. Each entry sets
its own `JACKED_MEMORY_HARNESS`. Installing is idempotent (an identical entry is left alone,
the file untouched), touches nothing but our entry, and writes atomically (temp file +
rename, through a symlinked config to its target). A file we cannot parse, or where our entry
cannot be edited without touching anything else, is refused with nothing written.

Each harness's file, container and entry come from its adapter (`jacked_vault.harnesses`); this
module knows no harness by name, only the three forms a file takes (JSON, JSONC, TOML).

Files are read, edited and written by `store.configfile`: JSON entries are set in place (every
other byte kept; OpenCode's comments and trailing commas too, since it reads JSONC); a TOML
config is Codex's config.toml, whose every splice lives in `harnesses/installers/codex.py`
(`with_mcp`, `without_mcp`: our table rendered with tomlkit's escapes and spliced into the text,
its headers found by tomlkit), so every other byte of the file stays as it was. Each edit is
written by `configfile.save`, the one writer: the result parsed and compared with the expected
document before anything is written, the file backed up the first time jacked changes it, and
put back byte for byte on uninstall when nothing else changed since.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jacked_vault import SERVER_NAME, harnesses
from jacked_vault.errors import VaultError
from jacked_vault.harnesses.base import Harness
from jacked_vault.harnesses.installers import codex
from jacked_vault.harnesses.installers.codex import mcp_block as codex_block
from jacked_vault.harnesses.launch import Launch
from jacked_vault.store import configfile

HARNESSES = harnesses.names(sort=True)  # the registered harnesses as loaded (the registry answers live)
SCRIPT = "jacked-memory-mcp"
MAX_CONFIG_BYTES = 4 << 20


@dataclass(frozen=True)
class Change:
    """What install/uninstall did to one file."""

    harness: str
    path: Path
    action: str  # created, updated, unchanged, removed, restored, deleted, absent

    def to_json(self) -> dict[str, str]:
        return {"harness": self.harness, "path": str(self.path), "action": self.action}


def server_command() -> tuple[str, list[str]]:
    """The installed `jacked-memory-mcp` (beside this Python, else on PATH), else `python -m`."""
    beside = Path(sys.executable).parent / SCRIPT
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside), []
    found = shutil.which(SCRIPT)
    if found:
        return str(Path(found).absolute()), []
    return sys.executable, ["-m", "jacked_vault.mcp"]


def launch_for(
    harness: str, vault_path: Path, *, allow_user_scope: bool = False, command: tuple[str, list[str]] | None = None
) -> Launch:
    _harness(harness)
    cmd, args = command or server_command()
    env = {"JACKED_MEMORY_HARNESS": harness, "JACKED_VAULT_DIR": str(vault_path)}
    if allow_user_scope:
        env["JACKED_MEMORY_ALLOW_USER_SCOPE"] = "1"
    return Launch(cmd, list(args), env)


def default_config_path(
    harness: str, cwd: Path | None = None, environ: dict[str, str] | None = None, *, user: bool = False
) -> Path:
    """Where each harness reads its MCP servers: project files at the repo root, or with `user`
    the file that serves every project of this person."""
    return _harness(harness).mcp_path(cwd, environ, user=user)


def _harness(harness: str) -> Harness:
    return harnesses.get(harness)


def has_project_file(harness: str) -> bool:
    """Whether `harness` reads a project's MCP file (else only its per-person one)."""
    return _harness(harness).mcp_project_file


# -- the entries ----------------------------------------------------------------------------------


def entry(harness: str, launch: Launch) -> dict[str, Any]:
    """Our entry as the harness's config spells it (codex: the TOML table as a dict)."""
    return _harness(harness).mcp_entry(launch)


def _container(harness: str) -> str:
    return _harness(harness).mcp_container


def _toml(harness: str) -> bool:
    return _harness(harness).mcp_format == "toml"


def render(harness: str, launch: Launch) -> str:
    """What `--print` shows: the snippet to paste into the harness's config."""
    if _toml(harness):
        return codex_block(launch)
    doc = {_container(harness): {SERVER_NAME: entry(harness, launch)}}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def cli_line(harness: str, launch: Launch) -> str | None:
    """The same entry as the harness's own command line adds it, when it has one."""
    return _harness(harness).mcp_cli(launch)


# -- install / uninstall / status -----------------------------------------------------------------


def install(harness: str, path: Path, launch: Launch) -> Change:
    target = _real(path)
    old = _read(target)
    new, check = (
        codex.with_mcp(old or "", entry(harness, launch), launch, path)
        if _toml(harness)
        else _json_install(harness, old, launch, path)
    )
    if old is not None and new == old:
        return Change(harness, path, "unchanged")
    configfile.save(target, old, new, check)
    return Change(harness, path, "created" if old is None else "updated")


def uninstall(harness: str, path: Path) -> Change:
    target = _real(path)
    old = _read(target)
    if old is None:
        return Change(harness, path, "absent")
    new, check = codex.without_mcp(old, path) if _toml(harness) else _json_uninstall(harness, old, path)
    if new == old:
        return Change(harness, path, "absent")
    return Change(harness, path, configfile.save(target, old, new, check, uninstall=True)[0])


def status(harness: str, path: Path, launch: Launch) -> str:
    """installed (as install would write it), outdated (ours, but different), or absent."""
    _harness(harness)
    text = _read(_real(path))
    if text is None:
        return "absent"
    current = _current_entry(harness, text, path)
    if current is None:
        return "absent"
    return "installed" if _same_entry(harness, current, entry(harness, launch)) else "outdated"


def _same_entry(harness: str, current: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Our entry as we write it, or as the harness's own CLI writes it: `"type": "stdio"` is what
    no type means (`claude mcp add` writes it; entries written before we did have none)."""
    if _harness(harness).mcp_stdio_implied:
        current, wanted = (
            {k: v for k, v in d.items() if not (k == "type" and v == "stdio")} for d in (current, wanted)
        )
    return current == wanted


def _current_entry(harness: str, text: str, path: Path) -> dict[str, Any] | None:
    doc = configfile.toml_value(text, path) if _toml(harness) else _json_load(harness, text, path)
    container = doc.get(_container(harness))
    if not isinstance(container, dict):
        return None
    found = container.get(SERVER_NAME)
    return found if isinstance(found, dict) else None


# -- files ----------------------------------------------------------------------------------------


def _real(path: Path) -> Path:
    """Write through a symlinked config (dotfile setups) to the file it points at."""
    return Path(os.path.realpath(path))


def _read(path: Path) -> str | None:
    return configfile.read(path, MAX_CONFIG_BYTES)


# -- JSON configs (claude, cursor, opencode) ------------------------------------------------------


def _jsonc(harness: str) -> bool:
    """Whether the harness reads comments and trailing commas (OpenCode's opencode.jsonc)."""
    return _harness(harness).mcp_format == "jsonc"


def _json_load(harness: str, text: str, path: Path) -> dict[str, Any]:
    return configfile.parse_json(text, path, jsonc=_jsonc(harness))


def _json_check(harness: str, expected: dict[str, Any], path: Path, what: str) -> configfile.Check:
    return configfile.Check(lambda text: _json_load(harness, text, path), expected, what)


def _json_install(harness: str, old: str | None, launch: Launch, path: Path) -> tuple[str, configfile.Check]:
    """The file with our entry set in place, and what it must parse to."""
    doc = _json_load(harness, old or "", path)
    key = _container(harness)
    container = doc.get(key, {})
    if not isinstance(container, dict):
        raise VaultError("CONFIG", f"{path}: {key!r} is not an object; not editing it")
    wanted = entry(harness, launch)
    if (
        isinstance(container.get(SERVER_NAME), dict)
        and _same_entry(harness, container[SERVER_NAME], wanted)
        and old is not None
    ):
        return old, _json_check(harness, doc, path, "keep it")  # already there: the file left byte for byte
    expected = {**doc, key: {**container, SERVER_NAME: wanted}}
    new = configfile.set_json(old or "", [key, SERVER_NAME], wanted, path, jsonc=_jsonc(harness))
    return new, _json_check(harness, expected, path, f"set {key}.{SERVER_NAME}")


def _json_uninstall(harness: str, old: str, path: Path) -> tuple[str, configfile.Check]:
    """The file without our entry (nor a container it leaves empty), and what it must parse to."""
    key = _container(harness)
    doc = _json_load(harness, old, path)
    container = {k: v for k, v in configfile.table(doc, key).items() if k != SERVER_NAME}
    expected = {k: v for k, v in doc.items() if k != key} | ({key: container} if container else {})
    new = configfile.delete_json(old, [key, SERVER_NAME], path, jsonc=_jsonc(harness))
    return new, _json_check(harness, expected, path, f"remove {key}.{SERVER_NAME}")
