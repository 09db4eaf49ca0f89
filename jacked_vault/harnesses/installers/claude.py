"""Claude Code hook registration in `~/.claude/settings.json`: edited in place, verified, backed
up and written atomically (`store.configfile.save`), idempotent.

Our entries are recognised by a marker comment at the end of the command
(`… _hook session-start # jacked-vault`): the shell ignores it, and it lets install replace
only our entries and uninstall remove only ours, leaving every other tool's hooks untouched.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.errors import VaultError
from jacked_vault.store import configfile
from jacked_vault.store.configfile import Change
from jacked_vault.store.launcher import jacked_argv

if TYPE_CHECKING:
    from jacked_vault.episodic.migrate import MigrateResult

MARKER = "# jacked-vault"
MAX_SETTINGS = 4 * 1024 * 1024
# event -> (matcher or None, hook name, timeout seconds)
EVENTS = {
    "SessionStart": (None, "session-start", 15),
    "SessionEnd": (None, "session-end", 10),
    "PreCompact": ("auto", "pre-compact", 10),
}


def default_settings_path() -> Path:
    return Path(os.path.expanduser("~/.claude/settings.json"))


def hook_command(hook: str, vault: Path | None) -> str:
    """The command line of one hook, each word shell-quoted (a path with a space stays one word)."""

    words = [*jacked_argv(), "_hook", hook] + (["--vault", str(vault)] if vault is not None else [])
    return f"{shlex.join(words)} {MARKER}"


def _named_vault(command: str) -> str | None:
    """The `--vault` one of our hook commands names, or None."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    return words[words.index("--vault") + 1] if "--vault" in words[:-1] else None


def _is_ours(entry: object) -> bool:
    return (
        isinstance(entry, dict) and isinstance(entry.get("command"), str) and entry["command"].rstrip().endswith(MARKER)
    )


def _load(path: Path) -> tuple[dict[str, Any], str | None]:
    raw = configfile.read(path, MAX_SETTINGS)
    data = configfile.parse_json(raw or "", path)
    if not isinstance(data.get("hooks", {}), dict):
        raise VaultError("CONFIG", f'{path}: expected an object with a "hooks" object; nothing was changed')
    return data, raw


def _without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """A copy of settings with every jacked-vault hook removed (and containers it leaves empty)."""
    out: dict[str, Any] = json.loads(json.dumps(settings))
    hooks = out.get("hooks", {})
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                remaining = [h for h in group["hooks"] if not _is_ours(h)]
                if not remaining and len(remaining) != len(group["hooks"]):
                    continue
                group = {**group, "hooks": remaining}
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if (
        "hooks" in out
        and not out["hooks"]
        and "hooks" in settings
        and any(_is_ours_group(g) for g in _all_groups(settings))
    ):
        del out["hooks"]
    return out


def _all_groups(settings: dict[str, Any]) -> list[Any]:
    return [g for groups in settings.get("hooks", {}).values() if isinstance(groups, list) for g in groups]


def _is_ours_group(group: object) -> bool:
    return isinstance(group, dict) and any(_is_ours(h) for h in group.get("hooks", []) if isinstance(h, dict))


def _with_ours(settings: dict[str, Any], vault: Path | None) -> dict[str, Any]:
    out = _without_ours(settings)
    hooks = out.setdefault("hooks", {})
    for event, (matcher, hook, timeout) in EVENTS.items():
        group: dict[str, Any] = {
            "hooks": [{"type": "command", "command": hook_command(hook, vault), "timeout": timeout}]
        }
        if matcher is not None:
            group = {"matcher": matcher, **group}
        hooks.setdefault(event, []).append(group)
    return out


def _save(
    path: Path, raw: str | None, wanted: dict[str, Any], what: str, *, uninstall: bool = False
) -> tuple[str, str | None]:
    """settings.json edited in place into `wanted`, through the one writer (`configfile.save`)."""
    new = configfile.json_toward(raw or "", wanted, path)
    check = configfile.Check(lambda text: configfile.parse_json(text, path), wanted, what)
    return configfile.save(path, raw, new, check, uninstall=uninstall)


def installed_events(settings: dict[str, Any]) -> list[str]:
    return sorted(
        event
        for event, groups in settings.get("hooks", {}).items()
        if isinstance(groups, list) and any(_is_ours_group(g) for g in groups)
    )


def install(path: Path | None = None, vault: Path | None = None) -> Change:
    path = path or default_settings_path()
    settings, raw = _load(path)
    wanted = _with_ours(settings, vault)
    if wanted == settings:
        return Change(str(path), False, None, installed_events(settings))
    _, backup = _save(path, raw, wanted, "add jacked's hooks")
    return Change(str(path), True, backup, installed_events(wanted))


def uninstall(path: Path | None = None) -> Change:
    path = path or default_settings_path()
    settings, raw = _load(path)
    if raw is None or not installed_events(settings):
        return Change(str(path), False, None, installed_events(settings))
    cleaned = _without_ours(settings)
    action, backup = _save(path, raw, cleaned, "remove jacked's hooks", uninstall=True)
    return Change.uninstalled(path, action, backup)


PLUGINS = "enabledPlugins"  # plugin@marketplace -> true/false, how Claude Code turns a plugin (and its hooks) on


def enabled_plugins(name: str, path: Path | None = None) -> list[str]:
    """The `enabledPlugins` keys that turn on the plugin `name` (`name` or `name@marketplace`)."""
    settings, _ = _load(path or default_settings_path())
    plugins = settings.get(PLUGINS)
    if not isinstance(plugins, dict):
        return []
    return sorted(k for k, v in plugins.items() if v is True and k.split("@", 1)[0] == name)


def disable_plugin(name: str, path: Path | None = None) -> Change:
    """Turn the plugin `name` off (its hooks stop; its files and data stay): in place, backed up
    the first time jacked changes the file, atomic, idempotent; `installed` lists the keys turned off."""
    path = path or default_settings_path()
    settings, raw = _load(path)
    keys = enabled_plugins(name, path)
    if not keys:
        return Change(str(path), False, None, [])
    out: dict[str, Any] = json.loads(json.dumps(settings))
    for key in keys:
        out[PLUGINS][key] = False
    return Change(str(path), True, _save(path, raw, out, f"turn {name} off")[1], keys)


def retire_plugin(result: MigrateResult, decide: Callable[[str], bool]) -> MigrateResult:
    """After a migration whose counts were verified: the `remember` plugin still enabled in Claude
    Code's settings is turned off when `decide(question)` says yes (its hooks stop; the settings
    are backed up; its data is never touched), else offered."""
    from dataclasses import replace

    if result.dry_run:
        return result
    settings = default_settings_path()
    keys = enabled_plugins("remember", settings)
    if not keys:
        return result
    plugin = {"settings": str(settings), "plugins": keys, "action": "offered", "backup": None}
    if decide(
        f"turn off the remember plugin ({', '.join(keys)}) in {settings}, so it and jacked do not both brief your "
        "sessions?"
    ):
        change = disable_plugin("remember", settings)
        plugin.update(action="disabled", backup=change.backup)
    return replace(result, plugin=plugin)


def status(path: Path | None = None) -> dict[str, Any]:
    path = path or default_settings_path()
    settings, raw = _load(path)
    events = installed_events(settings)
    commands = [
        h["command"] for g in _all_groups(settings) if isinstance(g, dict) for h in g.get("hooks", []) if _is_ours(h)
    ]
    vaults = sorted({v for v in map(_named_vault, commands) if v})
    return {
        "path": str(path),
        "exists": raw is not None,
        "installed": events,
        "complete": events == sorted(EVENTS),
        "vaults": vaults,
    }
