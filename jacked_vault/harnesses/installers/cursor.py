"""Cursor session hooks in its `hooks.json` (https://cursor.com/docs/hooks; no Cursor binary was
available to run, so the format is the documented one): edited in place, verified, backed up and
written atomically (`store.configfile.save`), idempotent.

The file is `{"version": 1, "hooks": {"<event>": [{"command": "…", "timeout": <s>}, …]}}`, per
person at `~/.cursor/hooks.json` (commands run in `~/.cursor/`) or per project at
`<repo>/.cursor/hooks.json` (commands run at the project root). Two entries are jacked's:

- `sessionStart` → `jacked _hook session-start --harness cursor`: the brief goes back as
  `{"additional_context": …}`, which Cursor adds to the conversation's initial system context
  (the hook is fire-and-forget: the agent loop does not wait for it, so a slow brief can miss the
  first turn; the MCP prompt `brief` and tool `memory_brief` reach Cursor either way);
- `sessionEnd` → `jacked _hook session-end --harness cursor`: queues the conversation's
  `transcript_path` for capture and returns at once.

Entries are jacked's when their command runs `… _hook <session-start|session-end> --harness
cursor`: no trailing shell comment marks them, because Cursor may hand a hook its payload as a
heredoc appended to the command line, which a comment would swallow. Install backs up the
person's own file before jacked's first change; uninstall puts those exact bytes back when nothing
else changed since (else it removes only jacked's entries), and deletes a file that held only
jacked's.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

from jacked_vault.errors import VaultError
from jacked_vault.store import configfile
from jacked_vault.store.configfile import Change
from jacked_vault.store.gitfiles import find_work_tree
from jacked_vault.store.launcher import jacked_argv

HARNESS = "cursor"
# event -> (hook name, timeout seconds)
EVENTS = {"sessionStart": ("session-start", 15), "sessionEnd": ("session-end", 10)}
MAX_BYTES = 4 * 1024 * 1024


def default_path(*, user: bool, cwd: Path | None = None, environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if user:
        return Path(env.get("HOME") or os.path.expanduser("~")).absolute() / ".cursor" / "hooks.json"

    here = Path(cwd or Path.cwd()).absolute()
    root = find_work_tree(here)
    return Path(root or here) / ".cursor" / "hooks.json"


def hook_command(hook: str, vault: Path | None, argv: list[str] | None = None) -> str:
    parts = [*(argv or jacked_argv()), "_hook", hook, "--harness", HARNESS]
    if vault is not None:
        parts += ["--vault", str(vault)]
    return shlex.join(parts)


def is_ours(entry: object) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    try:
        words = shlex.split(entry["command"])
    except ValueError:
        return False
    for i, word in enumerate(words[:-1]):
        if word == "_hook" and words[i + 1] in ("session-start", "session-end"):
            rest = words[i + 2 :]
            return any(rest[j : j + 2] == ["--harness", HARNESS] for j in range(len(rest) - 1))
    return False


def _load(path: Path) -> tuple[dict[str, Any], str | None]:
    raw = configfile.read(path, MAX_BYTES)
    doc = configfile.parse_json(raw or "", path)
    if not isinstance(doc.get("hooks", {}), dict):
        raise VaultError("CONFIG", f'{path}: expected an object with a "hooks" object; nothing was changed')
    if any(not isinstance(v, list) for k, v in doc.get("hooks", {}).items() if k in EVENTS):
        raise VaultError("CONFIG", f"{path}: a hook event is not a list of hooks; nothing was changed")
    return doc, raw


def _entry(event: str, vault: Path | None) -> dict[str, Any]:
    hook, timeout = EVENTS[event]
    return {"command": hook_command(hook, vault), "timeout": timeout}


def installed_events(doc: dict[str, Any]) -> list[str]:
    hooks = configfile.table(doc, "hooks")
    return sorted(
        event for event, entries in hooks.items() if isinstance(entries, list) and any(is_ours(e) for e in entries)
    )


def _without_ours(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(doc))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    had = False
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list):
            continue
        kept = [e for e in entries if not is_ours(e)]
        if len(kept) != len(entries):
            had = True
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if had and not hooks:
        del out["hooks"]
    return out


def _with_ours(doc: dict[str, Any], vault: Path | None) -> dict[str, Any]:
    out = _without_ours(doc)
    out.setdefault("version", 1)
    hooks = out.setdefault("hooks", {})
    for event in EVENTS:
        hooks.setdefault(event, []).append(_entry(event, vault))
    return out


def _is_current(doc: dict[str, Any], vault: Path | None) -> bool:
    hooks = configfile.table(doc, "hooks")
    for event, entries in hooks.items():
        ours = [e for e in entries if is_ours(e)] if isinstance(entries, list) else []
        if ours and (event not in EVENTS or ours != [_entry(event, vault)]):
            return False
    return installed_events(doc) == sorted(EVENTS) and "version" in doc


def install(path: Path, vault: Path | None = None) -> Change:
    doc, raw = _load(path)
    if _is_current(doc, vault):
        return Change(str(path), False, None, installed_events(doc))
    wanted = _with_ours(doc, vault)
    new = configfile.json_toward(raw or "", wanted, path)
    check = configfile.Check(lambda text: configfile.parse_json(text, path), wanted, "add jacked's hooks")
    _, backup = configfile.save(path, raw, new, check)
    return Change(str(path), True, backup, installed_events(wanted))


def uninstall(path: Path) -> Change:
    doc, raw = _load(path)
    if raw is None or not installed_events(doc):
        return Change(str(path), False, None, installed_events(doc))
    cleaned = _without_ours(doc)

    def settings(doc: dict[str, Any]) -> dict[str, Any]:  # install's `"version": 1` is no setting of the person's
        return {k: v for k, v in doc.items() if (k, v) != ("version", 1)}

    new = configfile.json_toward(raw, cleaned, path)
    check = configfile.Check(
        lambda text: settings(configfile.parse_json(text, path)), settings(cleaned), "remove jacked's hooks"
    )
    action, backup = configfile.save(path, raw, new, check, uninstall=True)
    return Change.uninstalled(path, action, backup)


def status(path: Path) -> dict[str, Any]:
    doc, raw = _load(path)
    events = installed_events(doc)
    return {"path": str(path), "exists": raw is not None, "installed": events, "complete": events == sorted(EVENTS)}
