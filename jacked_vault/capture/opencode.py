"""Reading an OpenCode session from OpenCode's own storage, defensively and boundedly, for capture.

Where (observed with opencode-ai 1.18.33: `opencode debug paths`, `opencode db path`, and the
database a real `opencode run` wrote): one SQLite database in WAL mode,
`$XDG_DATA_HOME/opencode/opencode.db` (`~/.local/share/opencode/opencode.db`); `$OPENCODE_DB`
names another (absolute, or relative to that folder), and builds of other release channels use
`opencode-<channel>.db` beside it. The tables read here:

- `session(id, parent_id, directory, title, …)`: `parent_id` is set for a subagent's session;
- `message(id, session_id, time_created, data)`: `data` is the message without its id and
  session id: `{"role": "user" | "assistant", "time", "agent", "model", "path": {"cwd", "root"}, …}`;
- `part(id, message_id, session_id, data)`: `data` is one part: `{"type": "text", "text",
  "synthetic"?, "ignored"?}`, `{"type": "tool", "tool": "write", "state": {"status", "input":
  {"filePath"}, "output", "metadata"}}`, `{"type": "patch", "files": [absolute paths]}`,
  `step-start`, `step-finish`, `reasoning`, `file`, `compaction`, ….

Ids are time-ordered (`msg_…`, `prt_…`). Before the database, OpenCode kept the same objects as
JSON files under `<data>/storage/`: `session/<project>/<id>.json`, `message/<session>/<id>.json`,
`part/<message>/<id>.json` (each with its own ids inside); that layout is read from OpenCode's
`storage/json-migration.ts`, which moves such files into the database on upgrade.

A session becomes the same `Transcript` a Claude Code transcript does (`transcript._Builder`), so
capture's skips (subagent, fewer than 3 human messages), excerpt, distiller, guard and gate are
the ones Claude's sessions go through. A human message is a user message's text parts that are
neither `synthetic` (OpenCode's own additions) nor `ignored`; a user message holding a
`compaction` part is OpenCode's, not a person's. Only the newest `max_bytes` of text are read:
tool outputs and diffs are never loaded.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jacked_vault.capture.transcript import MAX_TAIL_BYTES, MAX_TURN_CHARS, Transcript, _Builder

MAX_PARTS = 20000
MAX_FILE_BYTES = 1024 * 1024  # one legacy JSON file
# OpenCode's file tools, named as the transcript builder knows them (an edit marks the file edited).
TOOL_NAMES = {
    "edit": "Edit",
    "write": "Write",
    "multiedit": "MultiEdit",
    "patch": "Edit",
    "apply_patch": "Edit",
    "read": "Read",
}


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "opencode"


def default_db(environ: Mapping[str, str] | None = None) -> Path:
    """The database OpenCode writes for this environment (`$OPENCODE_DB` honoured)."""
    env = os.environ if environ is None else environ
    named = env.get("OPENCODE_DB")
    if named and named != ":memory:":
        return Path(named) if os.path.isabs(named) else data_dir(env) / named
    return data_dir(env) / "opencode.db"


def _connect(db: Path) -> sqlite3.Connection:
    con = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True, timeout=2)
    con.execute("PRAGMA query_only = 1")
    return con


def message_count(db: str | os.PathLike[str], session_id: str) -> int | None:
    """How many messages the session has now (None when it cannot be read): a capture key
    changes when a session goes on after it was captured, as a Claude transcript's size does."""
    try:
        path = Path(db)
        if path.is_file():
            con = _connect(path)
            try:
                row = con.execute("SELECT count(*) FROM message WHERE session_id = ?", (session_id,)).fetchone()
            finally:
                con.close()
            if row and row[0]:
                return int(row[0])
        folder = _legacy_dir(path) / "message" / session_id
        return sum(1 for name in os.listdir(folder) if name.endswith(".json")) if folder.is_dir() else None
    except (OSError, sqlite3.Error, ValueError):
        return None


def read_session(
    path: str | os.PathLike[str], session_id: str | None, *, max_bytes: int = MAX_TAIL_BYTES
) -> Transcript:
    """The session `session_id` from the database at `path` (or OpenCode's older JSON storage
    beside it); never raises for bad content. `problem` says why nothing was read."""
    transcript = Transcript(path=str(path))
    if not isinstance(session_id, str) or not session_id or "/" in session_id or session_id.startswith("."):
        transcript.problem = "missing"
        return transcript
    db = Path(os.path.expanduser(str(path)))
    session = None
    try:
        if db.is_file():
            session = _from_db(db, session_id, max_bytes, transcript)
        if session is None:
            session = _from_json_storage(_legacy_dir(db), session_id, max_bytes, transcript)
    except (sqlite3.Error, OSError) as exc:
        transcript.problem = "unreadable"
        transcript.bad_lines += 1 if isinstance(exc, sqlite3.DatabaseError) else 0
        return transcript
    if session is None:
        transcript.problem = "missing"
        return transcript
    transcript.found = True
    parent, directory, messages = session
    builder = _Builder(transcript)
    for role, parts in messages:
        builder.add(_entry(role, parts, directory, sidechain=bool(parent)))
        for part in parts:  # a step's patch: the files it changed, edited whatever tool did it
            for changed in part["files"][:200] if part["type"] == "patch" and not parent else ():
                if isinstance(changed, str) and changed:
                    changed = _absolute(changed, directory)[:1024]
                    builder.files.pop(changed, None)
                    builder.files[changed] = True
    return builder.finish()


def _legacy_dir(db: Path) -> Path:
    return (db if db.is_dir() else db.parent) / "storage"


# --- the database -----------------------------------------------------------------------------

# A session as read: (its parent's id, its folder, its messages as (role, parts), oldest first).
_Session = tuple[object, str | None, list[tuple[str, list[dict[str, Any]]]]]
_PART_FIELDS = (
    "json_extract(data, '$.type')",
    f"substr(json_extract(data, '$.text'), 1, {4 * MAX_TURN_CHARS})",
    "json_extract(data, '$.synthetic')",
    "json_extract(data, '$.ignored')",
    "json_extract(data, '$.tool')",
    "coalesce(json_extract(data, '$.state.input.filePath'), json_extract(data, '$.state.input.path'))",
    "CASE WHEN json_type(data, '$.files') = 'array' THEN json_extract(data, '$.files') END",
)


def _from_db(db: Path, session_id: str, max_bytes: int, transcript: Transcript) -> _Session | None:
    con = _connect(db)
    try:
        row = con.execute("SELECT parent_id, directory FROM session WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            return None
        parent, directory = row
        roles = {}
        order = []
        for mid, valid, role in con.execute(
            "SELECT id, json_valid(data), CASE WHEN json_valid(data) THEN json_extract(data, '$.role') END "
            "FROM message WHERE session_id = ? ORDER BY time_created, id",
            (session_id,),
        ):
            transcript.lines += 1
            if not valid or role not in ("user", "assistant"):
                transcript.bad_lines += 0 if valid else 1
                continue
            roles[mid] = role
            order.append(mid)
        parts: dict[str, list[dict[str, Any]]] = {}
        used = 0
        query = (
            "SELECT message_id, json_valid(data), "
            f"{', '.join(f'CASE WHEN json_valid(data) THEN {f} END' for f in _PART_FIELDS)} "
            "FROM part WHERE session_id = ? ORDER BY id DESC LIMIT ?"
        )
        for mid, valid, kind, text, synthetic, ignored, tool, file_path, files in con.execute(
            query, (session_id, MAX_PARTS)
        ):
            if not valid:
                transcript.bad_lines += 1
                continue
            size = len(text or "") + len(file_path or "") + len(files or "") + 64
            if used + size > max_bytes:
                transcript.tail_only = True
                break
            used += size
            part = {
                "type": kind,
                "text": text,
                "synthetic": synthetic,
                "ignored": ignored,
                "tool": tool,
                "path": file_path,
            }
            try:
                part["files"] = json.loads(files) if files else []
            except ValueError:
                part["files"] = []
            parts.setdefault(mid, []).append(part)
        transcript.size = used
    finally:
        con.close()
    messages = [(roles[mid], list(reversed(parts.get(mid, [])))) for mid in order if mid in parts]
    return parent, directory, messages


# --- the older JSON storage --------------------------------------------------------------------


def _json_file(path: Path, transcript: Transcript) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        transcript.bad_lines += 1
        return None
    try:
        obj = json.loads(raw.decode("utf-8", "replace")) if len(raw) <= MAX_FILE_BYTES else None
    except (ValueError, RecursionError):
        obj = None
    if not isinstance(obj, dict):
        transcript.bad_lines += 1
        return None
    return obj


def _sorted_json(folder: Path) -> list[Path]:
    try:
        return sorted(
            folder / name for name in os.listdir(folder) if name.endswith(".json") and not name.startswith(".")
        )
    except OSError:
        return []


def _from_json_storage(storage: Path, session_id: str, max_bytes: int, transcript: Transcript) -> _Session | None:
    info = None
    try:  # session/<project>/<id>.json
        projects = sorted(p for p in (storage / "session").iterdir() if p.is_dir())
    except OSError:
        projects = []
    for project in projects:
        candidate = project / f"{session_id}.json"
        if candidate.is_file():
            info = _json_file(candidate, transcript) or {}
            break
    message_files = _sorted_json(storage / "message" / session_id)
    if info is None and not message_files:
        return None
    info = info or {}
    used = 0
    chosen: list[tuple[str, list[dict[str, Any]]]] = []
    for message_file in reversed(message_files):
        transcript.lines += 1
        message = _json_file(message_file, transcript)
        if message is None or message.get("role") not in ("user", "assistant"):
            continue
        parts = []
        for part_file in _sorted_json(storage / "part" / message_file.stem):
            part = _json_file(part_file, transcript)
            if part is None:
                continue
            state = found if isinstance(found := part.get("state"), dict) else {}
            inputs = raw if isinstance(raw := state.get("input"), dict) else {}
            text = part.get("text")
            path = inputs.get("filePath") or inputs.get("path")
            files = part.get("files") if isinstance(part.get("files"), list) else []
            parts.append(
                {
                    "type": part.get("type"),
                    "text": text[: 4 * MAX_TURN_CHARS] if isinstance(text, str) else None,
                    "synthetic": part.get("synthetic"),
                    "ignored": part.get("ignored"),
                    "tool": part.get("tool"),
                    "path": path if isinstance(path, str) else None,
                    "files": files,
                }
            )
        size = sum(len(p["text"] or "") + len(p["path"] or "") + 64 for p in parts)
        if used + size > max_bytes:
            transcript.tail_only = True
            break
        used += size
        chosen.append((message["role"], parts))
    transcript.size = used
    directory = info.get("directory") if isinstance(info.get("directory"), str) else None
    return info.get("parentID"), directory, list(reversed(chosen))


# --- one message as the transcript builder's entries ------------------------------------------


def _absolute(path: str, directory: str | None) -> str:
    return path if os.path.isabs(path) or not directory else os.path.join(directory, path)


def _entry(role: str, parts: list[dict[str, Any]], directory: str | None, *, sidechain: bool) -> dict[str, Any]:
    """One OpenCode message as a Claude Code transcript entry (what `_Builder` reads)."""
    base = {"isSidechain": sidechain, **({"cwd": directory} if isinstance(directory, str) and directory else {})}
    if role == "user":
        if any(p["type"] == "compaction" for p in parts):
            return base  # OpenCode's own message asking for a summary
        texts = [
            p["text"]
            for p in parts
            if p["type"] == "text" and isinstance(p["text"], str) and not p["synthetic"] and not p["ignored"]
        ]
        if not texts:
            return base
        return {
            **base,
            "type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": "\n".join(texts)}]},
        }
    blocks: list[dict[str, Any]] = []
    for part in parts:
        if part["type"] == "text" and isinstance(part["text"], str) and not part["synthetic"]:
            blocks.append({"type": "text", "text": part["text"]})
        elif part["type"] == "tool" and isinstance(part["tool"], str):
            name = TOOL_NAMES.get(part["tool"], part["tool"])
            inputs = (
                {"file_path": _absolute(part["path"], directory)}
                if isinstance(part["path"], str) and part["path"]
                else {}
            )
            blocks.append({"type": "tool_use", "name": name, "input": inputs})
    return {**base, "type": "assistant", "message": {"role": "assistant", "content": blocks}}
