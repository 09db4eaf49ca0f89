"""Reading a Cursor agent transcript, defensively and boundedly, for capture.

Cursor's hooks documentation (https://cursor.com/docs/hooks, "Common schema") gives every agent
hook a `transcript_path`: "Path to the main conversation transcript file (null if transcripts
disabled)", also in `$CURSOR_TRANSCRIPT_PATH`. It does not document the file's format. What is
read here is the format others observed in the files Cursor writes under
`~/.cursor/projects/<project>/agent-transcripts/` (no Cursor binary was available to check it):

- JSON Lines, one message a line: `{"role": "user" | "assistant", "message": {"content": [blocks]}}`
  with Claude-style blocks (`{"type": "text", "text"}`, `{"type": "tool_use", "name", "input"}`);
  what the person typed is inside `<user_query>…</user_query>` in a user text block, beside
  context Cursor adds (attached files, rules);
- older plain-text transcripts: `user:` / `assistant:` lines open each turn, the person's text in
  `<user_query>` tags, and `[Tool call] Name` (its arguments indented below), `[Tool result]`
  and `[Thinking]` lines in assistant turns.

Anything else is counted as a bad line and skipped; a transcript with no human message is skipped
by capture as too short. Each message becomes an entry of a Claude Code transcript
(`transcript._Builder`), so the skips, excerpt, distiller, guard and gate are Claude's.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from jacked_vault.capture.transcript import MAX_TAIL_BYTES, Transcript, _Builder, _read_tail

_QUERY = re.compile(r"<user_query>\s*(?P<text>.*?)\s*</user_query>", re.DOTALL)
_TURN = re.compile(r"^(user|assistant):\s*$")
_TOOL_CALL = re.compile(r"^\[Tool call\]\s+(?P<name>\S+)")
_ARG = re.compile(r"^\s+(?P<key>[A-Za-z_]+):\s*(?P<value>.*)$")
# Cursor's file tools, named as the transcript builder knows them (an edit marks the file edited).
TOOL_NAMES = {
    "Write": "Write",
    "StrReplace": "Edit",
    "Delete": "Edit",
    "MultiEdit": "MultiEdit",
    "Edit": "Edit",
    "EditNotebook": "NotebookEdit",
}
_PATH_ALIASES = ("file_path", "path", "target_file", "filePath")


_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")


def find_transcript(conversation_id: object, home: str | os.PathLike[str] | None = None) -> str | None:
    """A conversation's transcript when the hook names none (Cursor's CLI was seen to send
    `transcript_path: null`): `~/.cursor/projects/*/agent-transcripts/<id>.jsonl`, `<id>/<id>.jsonl`
    or `<id>.txt`, where others observed Cursor writing them; the newest when several match."""
    if not isinstance(conversation_id, str) or not _SAFE_ID.match(conversation_id):
        return None
    projects = os.path.join(os.fspath(home) if home else os.path.expanduser("~"), ".cursor", "projects")
    found = []
    try:
        names = os.listdir(projects)[:1000]
    except OSError:
        return None
    for name in names:
        folder = os.path.join(projects, name, "agent-transcripts")
        for candidate in (
            f"{conversation_id}.jsonl",
            os.path.join(conversation_id, f"{conversation_id}.jsonl"),
            f"{conversation_id}.txt",
        ):
            path = os.path.join(folder, candidate)
            try:
                found.append((os.stat(path).st_mtime_ns, path))
            except OSError:
                continue
    return max(found)[1] if found else None


def read_transcript(path: str | os.PathLike[str], *, max_bytes: int = MAX_TAIL_BYTES) -> Transcript:
    """Parse the last `max_bytes` of a Cursor transcript; never raises for bad content."""
    transcript = Transcript(path=str(path))
    data, size, tail_only, problem = _read_tail(os.path.expanduser(os.fspath(path)), max_bytes)
    transcript.size, transcript.tail_only, transcript.problem = size, tail_only, problem
    transcript.found = problem is None
    builder = _Builder(transcript)
    text = data.decode("utf-8", "replace")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    entries = _jsonl(text, transcript) if first.startswith("{") else _plain(text, transcript)
    for entry in entries:
        try:
            builder.add(entry)
        except (TypeError, AttributeError, KeyError, ValueError):
            transcript.bad_lines += 1
    return builder.finish()


def _person(text: str) -> str:
    """What the person typed: the `<user_query>` parts when Cursor wrapped it, else the text."""
    queries = [m["text"] for m in _QUERY.finditer(text)]
    return "\n".join(queries) if queries else text


def _tool_use(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    path = next((inputs[k] for k in _PATH_ALIASES if isinstance(inputs.get(k), str) and inputs[k]), None)
    return {"type": "tool_use", "name": TOOL_NAMES.get(name, name), "input": {"file_path": path} if path else {}}


def _jsonl(text: str, transcript: Transcript) -> list[dict[str, Any]]:
    entries = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        transcript.lines += 1
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            transcript.bad_lines += 1
            continue
        message = obj.get("message") if isinstance(obj, dict) else None
        role = obj.get("role") if isinstance(obj, dict) else None
        if not isinstance(message, dict) or role not in ("user", "assistant"):
            transcript.bad_lines += 0 if isinstance(obj, dict) else 1
            continue
        content = message.get("content")
        blocks = (
            [{"type": "text", "text": content}]
            if isinstance(content, str)
            else [b for b in content if isinstance(b, dict)]
            if isinstance(content, list)
            else []
        )
        if role == "user":
            texts = [_person(b["text"]) for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
            entries.append(
                {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "\n".join(texts)}]}}
            )
        else:
            out = []
            for block in blocks:
                if block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                    out.append(
                        _tool_use(block["name"], inputs if isinstance(inputs := block.get("input"), dict) else {})
                    )
                elif block.get("type") == "text":
                    out.append(block)
            entries.append({"type": "assistant", "message": {"role": "assistant", "content": out}})
    return entries


def _plain(text: str, transcript: Transcript) -> list[dict[str, Any]]:
    """The older text transcripts: `user:` / `assistant:` turns."""
    entries = []
    role: str | None = None
    lines: list[str] = []

    def flush() -> None:
        if role == "user":
            entries.append(
                {
                    "type": "user",
                    "message": {"role": "user", "content": [{"type": "text", "text": _person("\n".join(lines))}]},
                }
            )
        elif role == "assistant":
            entries.append({"type": "assistant", "message": {"role": "assistant", "content": _assistant_blocks(lines)}})
        elif any(line.strip() for line in lines):
            transcript.bad_lines += 1

    for line in text.splitlines():
        turn = _TURN.match(line)
        if turn:
            flush()
            transcript.lines += 1
            role, lines = turn[1], []
        else:
            lines.append(line)
    flush()
    return entries


def _assistant_blocks(lines: list[str]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    said: list[str] = []
    tool: tuple[str, dict[str, Any]] | None = None
    skipping = False
    for line in lines:
        call = _TOOL_CALL.match(line)
        if call:
            if tool is not None:
                blocks.append(_tool_use(*tool))
            if any(s.strip() for s in said):
                blocks.append({"type": "text", "text": "\n".join(said)})
            tool, skipping, said = (call["name"], {}), False, []
            continue
        if tool is not None:
            arg = _ARG.match(line)
            if arg:
                tool[1][arg["key"]] = arg["value"].strip()
                continue
            blocks.append(_tool_use(*tool))
            tool = None
        if line.startswith("[Thinking]"):
            continue  # the model's reasoning, not what it said
        if line.startswith("[Tool result]"):
            skipping = True  # a tool's output, up to the next blank line
            continue
        if skipping:
            if not line.strip():
                skipping = False
            continue
        said.append(line)
    if tool is not None:
        blocks.append(_tool_use(*tool))
    if any(s.strip() for s in said):
        blocks.append({"type": "text", "text": "\n".join(said)})
    return blocks
