"""Reading a Codex session (its rollout JSONL) into the `Transcript` a capture needs.

Codex writes one rollout per session at `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
(`CODEX_HOME` defaults to `~/.codex`). Each line is `{"timestamp", "type", "payload"}` (0.171 adds
`ordinal`); observed with codex-cli 0.115, 0.130, 0.145 and 0.171 (docs/harnesses.md):

- `session_meta` (first line): `id`, `cwd`, `cli_version`, `source` (`cli`, `exec`, `vscode`, …,
  or `{"subagent": …}` for a sub-agent's thread), `thread_source` (0.145+), `git.branch`;
- `turn_context`: the turn's `cwd`, model, sandbox;
- `response_item`: what the model saw and said. `message` with `role` `user` / `assistant` /
  `developer` and `content` items (`input_text`, `output_text`, `input_image`); Codex puts its
  own context (environment, AGENTS.md, skills, …) into `user` messages too: 0.171 labels every
  content item (`internal_chat_message_metadata_passthrough.content_item_kinds`, a person's text
  is `user.text`), older versions are told apart by the fragment's opening tag. `function_call`
  (`name`, `arguments` as a JSON string: `exec_command`, `shell`, `apply_patch`, …),
  `custom_tool_call` (`name`, `input`: the freeform `apply_patch`), their outputs, `reasoning`;
- `event_msg`: UI events (`user_message`, `agent_message`, `task_started`, `task_complete`,
  `token_count`, `patch_apply_end` with `changes` keyed by path, 0.171's `item_completed`);
- `compacted`, `world_state`, `token_usage_record`: nothing a capture reads.

The same bounds as a Claude transcript (transcript.py): only the last `MAX_TAIL_BYTES` are read,
every line that is not a JSON object is counted and skipped, nothing here raises for bad input.
The first line (`session_meta`) is read on its own when the tail does not reach it, so a long
session still knows its branch and whether it is a sub-agent's.

Codex has no session-end hook: its `Stop` hook fires at the end of every turn (the adapter's
`turn_end`). A capture of a `Stop` therefore waits until the rollout has been quiet for
`readers.SETTLE_S` (`readers.settled`), and the queue keeps one marker per session (`queue_key`)
until then.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from jacked_vault.capture.transcript import (
    MAX_FILES_KEPT,
    MAX_HUMAN_KEPT,
    MAX_TAIL_BYTES,
    MAX_TURN_CHARS,
    Transcript,
    Turn,
    _bounded,
    _read_tail,
    clean_text,
)

MAX_HEAD_BYTES = 1024 * 1024  # the session_meta line (it carries the base instructions)
MAX_SEARCH_DIRS = 400  # day folders looked at when finding a rollout by session id
MAX_SEARCH_FILES = 20000

# The openings of the context Codex itself puts into `user` messages (codex-rs/core
# contextual_user_message.rs: AGENTS.md, environment, skills, shell commands, aborted turns,
# sub-agent notices; plus older `<user_instructions>`); compared case-insensitively.
_CONTEXT_OPENINGS = (
    "# agents.md instructions for",
    "<environment_context>",
    "<user_instructions>",
    "<instructions>",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagents>",
    "<subagent_notification>",
    "<hook_prompt",
)
_SUBAGENT = re.compile(r"sub_?agent", re.IGNORECASE)
_SESSION_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z-]{7,99}$")
_PATCH_PATH = re.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (?P<path>.+?)\s*$|^\*\*\* Move to: (?P<moved>.+?)\s*$", re.MULTILINE
)
_PATH_KEYS = ("path", "file_path")


def codex_home(environ: dict[str, str] | None = None) -> Path:
    """`$CODEX_HOME` as Codex resolves it (symlinks resolved), else `~/.codex` as written."""
    env = os.environ if environ is None else environ
    named = env.get("CODEX_HOME")
    if named:
        return Path(os.path.realpath(os.path.expanduser(named)))
    return Path(os.path.expanduser("~")) / ".codex"


def queue_key(payload: dict[str, Any]) -> str:
    """The queue key of a Codex `Stop`: one waiting capture per session, whatever its turns."""
    session = re.sub(r"[^A-Za-z0-9._-]", "_", str(payload.get("session_id") or "-"))[:128]
    return f"codex:Stop:{session}"


def prepare(payload: dict[str, Any], environ: dict[str, str] | None = None) -> dict[str, Any]:
    """A Codex Stop payload ready to queue: its rollout path found by session id when Codex gave none."""
    path = payload.get("transcript_path")
    if payload.get("hook_event_name") != "Stop" or (isinstance(path, str) and path.strip()):
        return payload
    found = find_rollout(payload.get("session_id"), environ)
    return {**payload, "transcript_path": found} if found else payload


def find_rollout(session_id: object, environ: dict[str, str] | None = None) -> str | None:
    """`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<session_id>.jsonl`, newest day first; bounded
    (at most MAX_SEARCH_DIRS day folders and MAX_SEARCH_FILES names looked at); None if not found."""
    if not isinstance(session_id, str) or not _SESSION_ID.match(session_id):
        return None
    suffix = f"-{session_id}.jsonl"
    root = codex_home(environ) / "sessions"
    dirs = files = 0

    def numbered(folder: Path) -> list[str]:
        try:
            names = [n for n in os.listdir(folder) if n.isdigit()]
        except OSError:
            return []
        return sorted(names, reverse=True)

    for year in numbered(root):
        for month in numbered(root / year):
            for day in numbered(root / year / month):
                dirs += 1
                if dirs > MAX_SEARCH_DIRS:
                    return None
                folder = root / year / month / day
                try:
                    names = os.listdir(folder)
                except OSError:
                    continue
                files += len(names)
                for name in names:
                    if name.startswith("rollout-") and name.endswith(suffix):
                        return str(folder / name)
                if files > MAX_SEARCH_FILES:
                    return None
    return None


def _texts(content: object) -> list[tuple[str, str]]:
    """(item type, text) of a message's content items."""
    if isinstance(content, str):
        return [("input_text", content)]
    if not isinstance(content, list):
        return []
    return [(str(c.get("type")), c["text"]) for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]


def _is_context(text: str) -> bool:
    return text.lstrip()[:40].lower().startswith(_CONTEXT_OPENINGS)


def _patch_paths(patch: object) -> list[str]:
    if not isinstance(patch, str):
        return []
    return [m["path"] or m["moved"] for m in _PATCH_PATH.finditer(patch[:1_000_000])]


class _Builder:
    def __init__(self, transcript: Transcript) -> None:
        self.t = transcript
        self.files: dict[str, bool] = {}
        self.meta_seen = False

    # -- records --------------------------------------------------------------------------------

    def add(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            return
        if kind == "session_meta":
            self.meta(payload)
        elif kind == "turn_context":
            self._cwd(payload.get("cwd"))
        elif kind == "response_item":
            self.item(payload)
        elif kind == "event_msg" and payload.get("type") == "patch_apply_end":
            changes = payload.get("changes")
            if isinstance(changes, dict):
                for path in list(changes)[:MAX_FILES_KEPT]:
                    self._touch(path, edited=True)

    def meta(self, payload: dict[str, Any]) -> None:
        if self.meta_seen:
            return  # a resumed or forked session repeats it; the first one says what the session is
        self.meta_seen = True
        source, thread = payload.get("source"), payload.get("thread_source")
        subagent = (isinstance(source, dict) and any(_SUBAGENT.search(str(k)) for k in source)) or any(
            isinstance(v, str) and _SUBAGENT.search(v) for v in (source, thread)
        )
        if subagent:
            self.t.sidechain_entries += 1
        else:
            self.t.main_entries += 1
        git = payload.get("git")
        branch = git.get("branch") if isinstance(git, dict) else None
        if isinstance(branch, str) and branch.strip():
            self.t.branch = branch.strip()[:200]
        if self.t.cwd is None:
            self._cwd(payload.get("cwd"))
        session = payload.get("id")
        if isinstance(session, str) and session:
            self.t.last_uuid = session[:100]

    def item(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "message":
            role = payload.get("role")
            if role == "user":
                self._user(payload)
            elif role == "assistant":
                for _, text in _texts(payload.get("content")):
                    text = clean_text(text).strip()
                    if text:
                        self._turn("assistant", text)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self._tool(payload)

    def _user(self, payload: dict[str, Any]) -> None:
        items = _texts(payload.get("content"))
        meta = payload.get("internal_chat_message_metadata_passthrough")
        kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
        content = payload.get("content")
        if isinstance(kinds, list) and isinstance(content, list) and len(kinds) == len(content):
            # 0.171+: every content item says what it is; a person's words are `user.*`
            typed = [c for c, k in zip(content, kinds, strict=True) if isinstance(k, str) and k.startswith("user.")]
            items = [
                (str(c.get("type")), c["text"]) for c in typed if isinstance(c, dict) and isinstance(c.get("text"), str)
            ]
        words = [text for kind, text in items if kind == "input_text" and not _is_context(text)]
        text = clean_text("\n".join(words)).strip()
        if not text:
            return
        self.t.human_count += 1
        self.t.human.append(_bounded(text, 4 * MAX_TURN_CHARS))
        if len(self.t.human) > MAX_HUMAN_KEPT:
            del self.t.human[0]
        self._turn("user", text)

    def _tool(self, payload: dict[str, Any]) -> None:
        name = given if isinstance(given := payload.get("name"), str) else "shell"
        paths: list[str] = []
        edited = False
        if payload.get("type") == "custom_tool_call":
            if name == "apply_patch":
                paths, edited = _patch_paths(payload.get("input")), True
        elif payload.get("type") == "function_call":
            args = payload.get("arguments")
            try:
                args = json.loads(args) if isinstance(args, str) and len(args) < 2_000_000 else args
            except (ValueError, RecursionError):
                args = None
            if isinstance(args, dict):
                if name == "apply_patch":
                    paths, edited = _patch_paths(args.get("input") or args.get("patch")), True
                else:
                    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), None)
                    paths = [path] if path else []
        shown = []
        for path in paths[:MAX_FILES_KEPT]:
            shown.append(self._touch(path, edited=edited))
        label = clean_text(name)[:60]
        self._turn("tool", f"{label}{' ' + ', '.join(shown[:4]) if shown else ''}")

    # -- helpers --------------------------------------------------------------------------------

    def _cwd(self, cwd: object) -> None:
        if isinstance(cwd, str) and cwd:
            self.t.cwd = cwd[:4096]

    def _touch(self, path: object, *, edited: bool) -> str:
        path = clean_text(str(path)).strip()[:1024]
        if path and not os.path.isabs(path) and self.t.cwd:
            path = os.path.normpath(os.path.join(self.t.cwd, path))
        if not path:
            return path
        was = self.files.pop(path, False)
        self.files[path] = edited or was  # re-insert: order is by last touch
        if len(self.files) > MAX_FILES_KEPT:
            self.files.pop(next(iter(self.files)))
        return path

    def _turn(self, role: str, text: str) -> None:
        self.t.turns.append(Turn(role, _bounded(text)))

    def finish(self) -> Transcript:
        self.t.files = list(self.files.items())
        return self.t


def _lines(data: bytes, transcript: Transcript, builder: _Builder, *, count: bool = True) -> None:
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        if count:
            transcript.lines += 1
        try:
            obj = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            transcript.bad_lines += 1 if count else 0
            continue
        if not isinstance(obj, dict):
            transcript.bad_lines += 1 if count else 0
            continue
        try:
            builder.add(obj)
        except (TypeError, AttributeError, KeyError, ValueError):  # an odd shape in a known type
            transcript.bad_lines += 1 if count else 0


def _head_line(path: str) -> bytes:
    """The rollout's first line (its session_meta) when it ends within MAX_HEAD_BYTES, else b""."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_HEAD_BYTES)
    except OSError:
        return b""
    cut = data.find(b"\n")
    return data[:cut] if cut != -1 else b""


def read_rollout(path: str | os.PathLike[str], *, max_bytes: int = MAX_TAIL_BYTES) -> Transcript:
    """Parse the last `max_bytes` of a Codex rollout (and its first line); never raises for bad content."""
    transcript = Transcript(path=str(path))
    data, size, tail_only, problem = _read_tail(os.fspath(path), max_bytes)
    transcript.size, transcript.tail_only, transcript.problem = size, tail_only, problem
    transcript.found = problem is None
    builder = _Builder(transcript)
    if tail_only:
        _lines(_head_line(os.fspath(path)), transcript, builder, count=False)
    _lines(data, transcript, builder)
    return builder.finish()
