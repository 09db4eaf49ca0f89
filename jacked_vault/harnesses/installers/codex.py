"""Codex hook registration in `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`).

What Codex offers (checked with codex-cli 0.115 to 0.171, see docs/harnesses.md): command hooks
under `[hooks]` in config.toml (read from 0.124 on; 0.115-0.123 only read `hooks.json`, behind
`[features].codex_hooks`), events `SessionStart` (its stdout, or `hookSpecificOutput.
additionalContext`, is added to the model's context) and `Stop` (end of every turn; Codex has no
session-end event). From 0.130 on, Codex runs a hook from a person's config only when
`[hooks.state."<file>:<event>:<group>:<handler>"].trusted_hash` holds the hash of that exact hook
(what its `/hooks` review writes); the feature itself (`hooks`, formerly `codex_hooks`) is on by
default from 0.124.

`install` appends one block to config.toml, between two marker comments, holding our two hooks
(`jacked _hook session-start|session-end --harness codex … # jacked-vault`) and the trust record
of each: the person who runs `hooks install --codex` is the one reviewing them, and the hash pins
the exact command, so a changed command is not run until reviewed again. Every other byte of the
file stays as it is; the result is parsed (tomllib) and compared with the document we meant
before anything is written (`store.configfile.save`, the one writer: the file backed up the first
time jacked changes it, the new one written atomically).
Installing again changes nothing; `uninstall` removes the block (and the separator it added), so
the file is byte for byte what it was, plus whatever the person changed elsewhere meanwhile.

The same file holds the MCP server's `[mcp_servers.jacked-memory]` table (`hooks.mcp` registers
it through `with_mcp` / `without_mcp`): every splice of Codex's TOML is in this module. Both are
text splices, each handed to `configfile.save` with the document it must parse to, because
tomlkit's table API does not give the person's bytes back on uninstall (docs/design.md, "One
adapter per harness").
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault import SERVER_NAME
from jacked_vault.capture.codex import codex_home
from jacked_vault.errors import VaultError
from jacked_vault.store import configfile
from jacked_vault.store.configfile import Change
from jacked_vault.store.launcher import jacked_argv

if TYPE_CHECKING:
    from jacked_vault.harnesses.launch import Launch

HARNESS = "codex"
MARKER = "# jacked-vault"
BEGIN = (
    "# >>> jacked-vault: Codex hooks (`jacked memory hooks install --codex`; "
    "`hooks uninstall --codex` removes this block) >>>"
)
BEGIN_NO_EOL = BEGIN + " (the line above had no newline)"
END = "# <<< jacked-vault: Codex hooks <<<"
MAX_CONFIG = 4 * 1024 * 1024
MCP_MARKER = "# jacked-vault memory server (jacked memory hooks install --mcp codex)"
# event -> (jacked hook, timeout seconds, the event's label in Codex's hook-state keys)
EVENTS = {
    "SessionStart": ("session-start", 15, "session_start"),
    "Stop": ("session-end", 10, "stop"),
}
MIN_VERSION = (0, 124, 0)  # the first Codex that reads [hooks] from config.toml


def default_config_path(environ: dict[str, str] | None = None) -> Path:
    return codex_home(environ) / "config.toml"


def hook_command(hook: str, vault: Path | None) -> str:
    argv = [*jacked_argv(), "_hook", hook, "--harness", HARNESS]
    if vault is not None:
        argv += ["--vault", str(vault)]
    return f"{shlex.join(argv)} {MARKER}"


def trust_hash(label: str, command: str, timeout: int) -> str:
    """The hash Codex records for a hook it may run (codex-rs hooks discovery `command_hook_hash`,
    config `version_for_toml`): sha256 of the canonical JSON (sorted keys, no spaces) of the event's
    label and its matcher group holding this one normalised handler."""
    identity = {
        "event_name": label,
        "hooks": [{"type": "command", "command": command, "timeout": timeout, "async": False}],
    }
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def state_key(path: Path, label: str, group: int, handler: int = 0) -> str:
    return f"{path}:{label}:{group}:{handler}"


def session_start_output(brief: str) -> str:
    """The SessionStart hook's stdout as Codex documents it for added context."""
    return (
        json.dumps(
            {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": brief}}, ensure_ascii=False
        )
        + "\n"
    )


# -- the file -------------------------------------------------------------------------------------


def _read(path: Path) -> str | None:
    return configfile.read(path, MAX_CONFIG)


def _parse(text: str, path: Path) -> dict[str, Any]:
    return configfile.toml_value(text, path)


@dataclass(frozen=True)
class _Block:
    start: int  # line index of the begin marker
    end: int  # line index of the end marker
    no_eol: bool  # install added the newline ending the line above


def _find(lines: list[str], path: Path) -> _Block | None:
    begins = [i for i, line in enumerate(lines) if line.rstrip("\r\n") in (BEGIN, BEGIN_NO_EOL)]
    ends = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == END]
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise VaultError(
            "CONFIG",
            f"{path}: jacked-vault's marker lines were edited by hand; remove the block between them yourself, "
            "nothing was changed",
        )
    return _Block(begins[0], ends[0], lines[begins[0]].rstrip("\r\n") == BEGIN_NO_EOL)


def _without_block(text: str, block: _Block) -> str:
    """`text` with our block removed: the bytes it had before install (plus later edits elsewhere)."""
    lines = text.splitlines(keepends=True)
    prefix = "".join(lines[: block.start])
    suffix = "".join(lines[block.end + 1 :])
    if block.start > 0 and lines[block.start - 1] in ("\n", "\r\n"):
        prefix = prefix[: -len(lines[block.start - 1])]  # the blank line install put before the block
    if block.no_eol and not suffix and prefix.endswith("\n"):
        prefix = prefix[:-1]  # the newline install added to the person's last line
    return prefix + suffix


def _render(commands: dict[str, str], trust: dict[str, str], begin: str) -> str:
    out = [begin]
    for event, (_, timeout, _label) in EVENTS.items():
        out += [
            f"[[hooks.{event}]]",
            f"[[hooks.{event}.hooks]]",
            'type = "command"',
            f"command = {configfile.toml_string(commands[event])}",
            f"timeout = {timeout}",
            "",
        ]
    for key, digest in trust.items():
        out += [f"[hooks.state.{configfile.toml_string(key)}]", f"trusted_hash = {configfile.toml_string(digest)}", ""]
    if out[-1] == "":
        out.pop()
    out.append(END)
    return "\n".join(out) + "\n"


def _place(text: str, base: str, block: _Block | None, block_text: str) -> str:
    """The file with `block_text` as our block: where the old block was (its lines replaced, nothing
    else touched), else appended after a blank line."""
    if block is not None:
        lines = text.splitlines(keepends=True)
        if block.no_eol:
            block_text = block_text.replace(BEGIN + "\n", BEGIN_NO_EOL + "\n", 1)
        return "".join(lines[: block.start]) + block_text + "".join(lines[block.end + 1 :])
    if not base:
        return block_text
    if base.endswith("\n"):
        return base + "\n" + block_text
    return base + "\n\n" + block_text.replace(BEGIN + "\n", BEGIN_NO_EOL + "\n", 1)


def _ours(handler: object) -> bool:
    return (
        isinstance(handler, dict)
        and isinstance(handler.get("command"), str)
        and handler["command"].rstrip().endswith(MARKER)
    )


def _our_groups(doc: dict[str, Any]) -> dict[str, list[int]]:
    """event -> indexes of the matcher groups holding a hook of ours."""
    hooks = configfile.table(doc, "hooks")
    found: dict[str, list[int]] = {}
    for event in EVENTS:
        groups = hooks.get(event)
        if isinstance(groups, list):
            idx = [
                i
                for i, g in enumerate(groups)
                if isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(_ours(h) for h in g["hooks"])
            ]
            if idx:
                found[event] = idx
    return found


def _plan(text: str | None, path: Path, vault: Path | None) -> tuple[str, dict[str, Any]]:
    """The file as install wants it, and the document it must parse to; refuses what it cannot do
    exactly."""
    text = text or ""
    _parse(text, path)
    block = _find(text.splitlines(keepends=True), path)
    base = _without_block(text, block) if block is not None else text
    base_doc = _parse(base, path)
    if _our_groups(base_doc):
        raise VaultError(
            "CONFIG",
            f"{path}: holds a jacked-vault hook outside jacked's marked block; remove it by hand, nothing was changed",
        )
    commands = {event: hook_command(hook, vault) for event, (hook, _, _) in EVENTS.items()}
    try:
        groups = _our_groups(_parse(_place(text, base, block, _render(commands, {}, BEGIN)), path))
    except VaultError:
        groups = {}
    if set(groups) != set(EVENTS) or any(len(v) != 1 for v in groups.values()):
        raise VaultError(
            "CONFIG",
            f"{path}: Codex's [hooks] are written in a form jacked cannot add to without rewriting them (an inline "
            "table or array?); add the hooks by hand (docs/harnesses.md), nothing was changed",
        )
    hooks = configfile.table(base_doc, "hooks")
    base_state = configfile.table(hooks, "state")
    trust = {}
    for event, (_, timeout, label) in EVENTS.items():
        key = state_key(path, label, groups[event][0])
        if key not in base_state:  # a state Codex (or the person) wrote outside our block stays theirs
            trust[key] = trust_hash(label, commands[event], timeout)
    wanted = _place(text, base, block, _render(commands, trust, BEGIN))
    expected = copy.deepcopy(base_doc)  # the person's settings, our groups appended, our trust records
    hooks = expected.setdefault("hooks", {})
    for event, (_, timeout, _) in EVENTS.items():
        handler = {"type": "command", "command": commands[event], "timeout": timeout}
        hooks.setdefault(event, []).append({"hooks": [handler]})
    if trust and isinstance(hooks.setdefault("state", {}), dict):
        hooks["state"].update({key: {"trusted_hash": digest} for key, digest in trust.items()})
    return wanted, expected


def install(path: Path | None = None, vault: Path | None = None) -> Change:
    path = path or default_config_path()
    text = _read(path)
    wanted, expected = _plan(text, path, vault)
    warnings = _warnings(expected, path)
    if wanted == (text or "") and text is not None:
        return Change(str(path), False, None, installed_events(expected), warnings)
    what = "add jacked's hooks (docs/harnesses.md says how to add them by hand)"
    _, backup = configfile.save(path, text, wanted, configfile.Check(lambda new: _parse(new, path), expected, what))
    return Change(str(path), True, backup, installed_events(expected), warnings)


def uninstall(path: Path | None = None) -> Change:
    path = path or default_config_path()
    text = _read(path)
    if text is None:
        return Change(str(path), False, None, [])
    _parse(text, path)
    block = _find(text.splitlines(keepends=True), path)
    if block is None:
        return Change(str(path), False, None, installed_events(_parse(text, path)))
    base = _without_block(text, block)
    left = _parse(base, path)  # what is left must still be a config Codex can read
    check = configfile.Check(lambda new: _parse(new, path), left, "remove jacked's hooks")
    action, backup = configfile.save(path, text, base, check, uninstall=True)
    return Change.uninstalled(path, action, backup)


def installed_events(doc: dict[str, Any]) -> list[str]:
    return sorted(_our_groups(doc))


def status(path: Path | None = None, vault: Path | None = None) -> dict[str, Any]:
    """What is installed in the file, whether Codex will run it (trusted), and what is off."""
    path = path or default_config_path()
    text = _read(path)
    doc = _parse(text or "", path)
    groups = _our_groups(doc)
    hooks = configfile.table(doc, "hooks")
    state = configfile.table(hooks, "state")
    trusted = []
    for event, idx in groups.items():
        _, _, label = EVENTS[event]
        for gi in idx:
            for hi, handler in enumerate(hooks[event][gi]["hooks"]):
                if _ours(handler):
                    entry = state.get(state_key(path, label, gi, hi))
                    digest = (
                        trust_hash(label, handler["command"], handler.get("timeout", 600))
                        if isinstance(handler.get("timeout", 600), int)
                        else None
                    )
                    if (
                        isinstance(entry, dict)
                        and entry.get("trusted_hash") == digest
                        and entry.get("enabled") is not False
                    ):
                        trusted.append(event)
    events = sorted(groups)
    return {
        "path": str(path),
        "exists": text is not None,
        "installed": events,
        "trusted": sorted(set(trusted)),
        "complete": events == sorted(EVENTS) and sorted(set(trusted)) == sorted(EVENTS),
        "warnings": _warnings(doc, path),
    }


# -- what else decides whether Codex runs them ----------------------------------------------------


def _warnings(doc: dict[str, Any], path: Path) -> list[str]:
    out = []
    features = configfile.table(doc, "features")
    for name in ("hooks", "codex_hooks"):
        if features.get(name) is False:
            out.append(
                f"{path} turns Codex's hooks off ([features] {name} = false): jacked's hooks will not run until "
                "it is true; jacked left it as it is"
            )
    json_hooks = path.parent / "hooks.json"
    if json_hooks.is_file():
        out.append(f"{json_hooks} also holds hooks: Codex loads both and warns that a layer should use one")
    version = installed_version()
    if version is not None and version < MIN_VERSION:
        out.append(
            f"codex {'.'.join(map(str, version))} reads hooks only from hooks.json behind [features] codex_hooks; "
            f"jacked's hooks in config.toml need codex {'.'.join(map(str, MIN_VERSION))} or later "
            "(npm install -g @openai/codex)"
        )
    return out


def installed_version(timeout_s: float = 5.0) -> tuple[int, int, int] | None:
    """`codex --version` of the codex on PATH, or None (not installed, or it did not answer)."""
    found = shutil.which("codex")
    if found is None:
        return None
    try:
        proc = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", proc.stdout or "")
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


# -- the MCP server's table (`hooks.mcp` registers the server here) ---------------------------------


def mcp_block(launch: Launch) -> str:
    """Our `[mcp_servers.jacked-memory]` table, with the marker comment above it."""
    toml_key, toml_string = configfile.toml_key, configfile.toml_string
    env = ", ".join(f"{toml_key(k)} = {toml_string(v)}" for k, v in launch.env.items())
    args = ", ".join(toml_string(a) for a in launch.args)
    return (
        f"{MCP_MARKER}\n"
        f"[mcp_servers.{SERVER_NAME}]\n"
        f"command = {toml_string(launch.command)}\n"
        f"args = [{args}]\n"
        f"env = {{ {env} }}\n"
    )


def _mcp_header(line: str) -> bool | None:
    """Whether a line is a table header of our entry (True), another table's (False), or no header."""
    key = configfile.toml_header(line)
    return None if key is None else key[:2] == ["mcp_servers", SERVER_NAME]


def _mcp_span(lines: list[str]) -> tuple[int, int] | None:
    """[start, end) of our table (marker comment and sub-tables included) in `lines`, or None.

    The block ends at the next table header that is not ours, less any comment or blank lines
    right before it (they belong to what follows), plus blank lines right after our last line.
    """
    start = next((i for i, line in enumerate(lines) if _mcp_header(line)), None)
    if start is None:
        return None
    end = next((j for j in range(start + 1, len(lines)) if _mcp_header(lines[j]) is False), len(lines))
    last = end
    while last > start + 1 and (not lines[last - 1].strip() or lines[last - 1].lstrip().startswith("#")):
        last -= 1
    while last < end and not lines[last].strip():
        last += 1
    if start > 0 and lines[start - 1].rstrip("\r\n") == MCP_MARKER:
        start -= 1
    return start, last


def _mcp_check(doc: dict[str, Any], wanted: dict[str, Any] | None, path: Path) -> configfile.Check:
    """What config.toml must parse to once our table holds `wanted` (None: once it is gone); an
    empty `[mcp_servers]` is no setting."""
    expected = copy.deepcopy(doc)
    servers = expected.get("mcp_servers")
    if wanted is None:
        if isinstance(servers, dict):
            servers.pop(SERVER_NAME, None)
    else:
        expected.setdefault("mcp_servers", {})[SERVER_NAME] = wanted

    def normal(doc: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in doc.items() if (k, v) != ("mcp_servers", {})}

    return configfile.Check(
        lambda text: normal(_parse(text, path)), normal(expected), f"place [mcp_servers.{SERVER_NAME}]"
    )


def with_mcp(old: str, wanted: dict[str, Any], launch: Launch, path: Path) -> tuple[str, configfile.Check]:
    """`old` (config.toml's text) with our table holding `wanted` (`launch`, as TOML): in place of
    ours, else appended after a blank line, every other byte kept; and what it must parse to."""
    doc = _parse(old, path)
    servers = doc.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise VaultError("CONFIG", f"{path}: mcp_servers is not a table; not editing it")
    check = _mcp_check(doc, wanted, path)
    if servers.get(SERVER_NAME) == wanted:
        return old, check
    block = mcp_block(launch)
    lines = old.splitlines(keepends=True)
    found = _mcp_span(lines)
    if found is not None:
        start, end = found
        tail = "\n" if end < len(lines) else ""
        return "".join(lines[:start]) + block + tail + "".join(lines[end:]), check
    if SERVER_NAME in servers:
        raise VaultError(
            "CONFIG",
            f"{path}: mcp_servers.{SERVER_NAME} is written in a form we do not edit; change it by hand (see --print)",
        )
    new = old
    if new and not new.endswith("\n"):
        new += "\n"
    if new.strip():
        new += "\n"
    return new + block, check


def without_mcp(old: str, path: Path) -> tuple[str, configfile.Check]:
    """`old` without our table (and the blank line install put before it), and what it must parse
    to; `old` itself when it holds no entry of ours."""
    doc = _parse(old, path)
    check = _mcp_check(doc, None, path)
    servers = doc.get("mcp_servers")
    if not isinstance(servers, dict) or SERVER_NAME not in servers:
        return old, check
    lines = old.splitlines(keepends=True)
    found = _mcp_span(lines)
    if found is None:
        raise VaultError(
            "CONFIG", f"{path}: mcp_servers.{SERVER_NAME} is written in a form we do not edit; remove it by hand"
        )
    start, end = found
    if end == len(lines) and start > 0 and not lines[start - 1].strip():
        start -= 1  # the blank line install put before a block it appended
    return "".join(lines[:start]) + "".join(lines[end:]), check
