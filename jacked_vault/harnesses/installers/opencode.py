"""OpenCode session hooks: one plugin file, `jacked-vault.js`, in an OpenCode plugin folder.

OpenCode (checked with opencode-ai 1.18.33) loads every `{plugin,plugins}/*.{ts,js}` file of its
config folders at startup: `$XDG_CONFIG_HOME/opencode/` (`~/.config/opencode/`, per person) and
`.opencode/` of the project. A plugin module exports async functions; each gets
`{client, project, directory, worktree, $, …}` and returns hooks. The plugin written here:

- fetches the brief with `jacked _hook session-start --harness opencode` when a session is
  created (or first used) and adds it to the system prompt through the
  `experimental.chat.system.transform` hook, appended to the last system block (one system
  message stays one: some backends accept only one); title generation and subagent sessions
  (`parentID`) get none;
- queues a session for capture with `jacked _hook session-end --harness opencode` once it has gone
  idle (`session.idle`) and then stayed quiet for QUIET_MINUTES, and for every session still
  waiting when OpenCode shuts down (the plugin's `dispose` hook): OpenCode has no session-end
  event, and `session.idle` fires after every turn.

The file is jacked's when its first line starts with MARKER: install replaces only such a file
(idempotent: the same bytes are not rewritten), uninstall removes only such a file, and a file of
that name that is someone else's is refused, never touched.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jacked_vault.errors import VaultError
from jacked_vault.store import ownedfile
from jacked_vault.store.gitfiles import find_work_tree
from jacked_vault.store.launcher import jacked_argv

MARKER = "// jacked-vault:"
FILENAME = "jacked-vault.js"
FOLDER = "plugins"  # the documented folder; OpenCode 1.x also reads `plugin/`
OTHER_FOLDER = "plugin"
QUIET_MINUTES = 15
MAX_PLUGIN_BYTES = 256 * 1024

_TEMPLATE = """\
// jacked-vault: written by `jacked memory hooks install --opencode`; `jacked memory hooks uninstall --opencode` removes it. Edits are replaced on the next install.
// Each OpenCode session gets the jacked-vault brief in its system prompt, and is queued for capture
// (an episodic entry, maybe a candidate note) once it has been quiet for a while or OpenCode exits.
// Everything goes through `jacked _hook ...`, which always exits 0: nothing here can stop OpenCode.
import { spawn } from "node:child_process"

const JACKED = __JACKED__
const VAULT = __VAULT__
const HARNESS = "opencode"
const START_TIMEOUT_MS = 15000
const END_TIMEOUT_MS = 10000
const QUIET_MS = __QUIET__ * 60 * 1000
const MAX_BRIEF = 1 << 20

function hook(name, payload, timeoutMs) {
  return new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(out)
    }
    let child
    try {
      child = spawn(JACKED[0], [...JACKED.slice(1), "_hook", name, "--harness", HARNESS, ...VAULT], {
        stdio: ["pipe", "pipe", "ignore"],
      })
    } catch {
      resolve("")
      return
    }
    const timer = setTimeout(() => {
      try { child.kill() } catch {}
      finish()
    }, timeoutMs)
    child.on("error", finish)
    child.on("close", finish)
    child.stdout.on("data", (chunk) => {
      if (out.length < MAX_BRIEF) out += chunk
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

export const JackedVault = async ({ directory }) => {
  const briefs = new Map() // session id -> Promise of its brief
  const dirs = new Map() // session id -> its directory
  const subagents = new Set() // sessions with a parent: no brief, no capture
  const waiting = new Map() // session id -> quiet timer (null while busy): not captured yet

  const dirOf = (id) => dirs.get(id) || directory
  const brief = (id) => {
    if (!briefs.has(id)) {
      const payload = { session_id: id, cwd: dirOf(id), hook_event_name: "SessionStart", source: "startup" }
      briefs.set(id, hook("session-start", payload, START_TIMEOUT_MS).then((text) => text.trim()))
    }
    return briefs.get(id)
  }
  const capture = async (id, reason) => {
    if (!waiting.has(id)) return
    clearTimeout(waiting.get(id))
    waiting.delete(id)
    await hook("session-end", { session_id: id, cwd: dirOf(id), hook_event_name: "SessionEnd", reason }, END_TIMEOUT_MS)
  }

  return {
    event: async ({ event }) => {
      const props = (event && event.properties) || {}
      if (event.type === "session.created") {
        const info = props.info || {}
        if (!info.id) return
        if (info.parentID) {
          subagents.add(info.id)
          return
        }
        if (info.directory) dirs.set(info.id, info.directory)
        brief(info.id)
      } else if (event.type === "session.idle") {
        const id = props.sessionID
        if (!id || subagents.has(id)) return
        clearTimeout(waiting.get(id))
        const timer = setTimeout(() => capture(id, "quiet"), QUIET_MS)
        if (timer.unref) timer.unref()
        waiting.set(id, timer)
      } else if (event.type === "session.status" && props.status && props.status.type === "busy") {
        if (waiting.has(props.sessionID)) {
          clearTimeout(waiting.get(props.sessionID))
          waiting.set(props.sessionID, null)
        }
      } else if (event.type === "session.deleted") {
        const id = props.sessionID || (props.info && props.info.id)
        clearTimeout(waiting.get(id))
        waiting.delete(id)
        briefs.delete(id)
      }
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = input && input.sessionID
      if (!id || subagents.has(id) || !output || !Array.isArray(output.system)) return
      if (String(output.system[0] || "").startsWith("You are a title generator")) return
      const text = await brief(id)
      if (!text || output.system.some((block) => typeof block === "string" && block.includes(text))) return
      const last = output.system.length - 1
      if (last >= 0 && typeof output.system[last] === "string") output.system[last] += "\\n\\n" + text
      else output.system.push(text)
    },
    dispose: async () => {
      await Promise.all([...waiting.keys()].map((id) => capture(id, "exit")))
    },
  }
}
"""  # noqa: E501 - the plugin file's bytes, which install compares


@dataclass(frozen=True)
class Change:
    path: str
    action: str  # installed, unchanged, removed, absent


def config_dir(*, user: bool, cwd: Path | None = None, environ: dict[str, str] | None = None) -> Path:
    """OpenCode's per-person config folder (`$XDG_CONFIG_HOME/opencode`), or the project's
    `.opencode/` at the root of the git repo holding `cwd` (else `cwd` itself)."""
    env = os.environ if environ is None else environ
    if user:
        home = Path(env.get("HOME") or os.path.expanduser("~")).absolute()
        return Path(env.get("XDG_CONFIG_HOME") or home / ".config").absolute() / "opencode"

    here = Path(cwd or Path.cwd()).absolute()
    root = find_work_tree(here)
    return Path(root or here) / ".opencode"


def plugin_path(*, user: bool, cwd: Path | None = None, environ: dict[str, str] | None = None) -> Path:
    return config_dir(user=user, cwd=cwd, environ=environ) / FOLDER / FILENAME


def render(vault: Path | None = None, argv: list[str] | None = None) -> str:
    """The plugin's source: `vault` (an explicit --vault) is baked in, else `jacked` follows
    $JACKED_VAULT_DIR / the default vault when it runs."""

    vault_args = ["--vault", str(vault)] if vault is not None else []
    return (
        _TEMPLATE.replace("__JACKED__", json.dumps(argv or jacked_argv()))
        .replace("__VAULT__", json.dumps(vault_args))
        .replace("__QUIET__", str(QUIET_MINUTES))
    )


def _read(path: Path) -> bytes | None:
    return ownedfile.read(path, MAX_PLUGIN_BYTES)


def is_ours(data: bytes | None) -> bool:
    return data is not None and data.startswith(MARKER.encode())


def _refuse_foreign(path: Path) -> VaultError:
    return VaultError("CONFIG", f"{path} exists and is not jacked-vault's (no `{MARKER}` first line); not replacing it")


def install(path: Path, vault: Path | None = None) -> Change:
    wanted = render(vault).encode("utf-8")
    current = _read(path)
    if current is not None and not is_ours(current):
        raise _refuse_foreign(path)
    return Change(str(path), ownedfile.put(path, wanted, current))


def uninstall(path: Path) -> Change:
    """Remove jacked's plugin at `path` (and one left in the sibling `plugin/` folder); a file of
    that name that is not jacked's is left alone."""
    removed = [ownedfile.remove(candidate, is_ours) for candidate in dict.fromkeys((path, _sibling(path)))]
    return Change(str(path), "removed" if any(removed) else "absent")


def status(path: Path) -> dict[str, Any]:
    """`installed` (what install would write now, for the vault baked in it), `outdated` (jacked's,
    written by another version or for another `jacked`), `absent`, or `foreign` (someone else's
    file of that name). `vault` is the vault baked in (None: the default vault)."""
    try:
        current = _read(path)
    except VaultError:
        return {"path": str(path), "state": "foreign", "vault": None}
    if current is None and is_ours(_read_quietly(_sibling(path))):
        path, current = _sibling(path), _read_quietly(_sibling(path))
    vault = baked_vault(current) if is_ours(current) else None
    if current is None:
        state = "absent"
    elif not is_ours(current):
        state = "foreign"
    else:
        state = "installed" if current == render(Path(vault) if vault else None).encode("utf-8") else "outdated"
    return {"path": str(path), "state": state, "vault": vault}


def baked_vault(data: bytes | None) -> str | None:
    """The vault a jacked plugin file names (`const VAULT = ["--vault", PATH]`), else None."""
    for line in (data or b"").decode("utf-8", "replace").splitlines():
        if line.startswith("const VAULT = "):
            try:
                args = json.loads(line.removeprefix("const VAULT = "))
            except ValueError:
                return None
            return args[1] if isinstance(args, list) and len(args) == 2 and isinstance(args[1], str) else None
    return None


def _sibling(path: Path) -> Path:
    """The same file in the other plugin folder OpenCode reads (`plugin/` beside `plugins/`)."""
    other = OTHER_FOLDER if path.parent.name == FOLDER else FOLDER if path.parent.name == OTHER_FOLDER else None
    return path.parent.parent / other / path.name if other else path


def _read_quietly(path: Path) -> bytes | None:
    try:
        return _read(path)
    except VaultError:
        return None
