#!/usr/bin/env python3
"""A stand-in for the OpenAI Responses API, so the real `codex` runs whole turns offline.

Usage: codex_model.py [PORT]   (0 = any free port; the port is printed on the first line)

Point Codex at it with a model provider in `$CODEX_HOME/config.toml`:

    model_provider = "fake"
    [model_providers.fake]
    name = "fake"
    base_url = "http://127.0.0.1:<port>/v1"
    wire_api = "responses"
    requires_openai_auth = false
    supports_websockets = false

Each POST /v1/responses is answered by a server-sent event stream (`response.created`,
`response.output_item.done`, `response.completed`, the events codex-rs's own tests send) scripted by
the last user message: `PATCH` → an `apply_patch` call adding `notes-<n>.md` (when the request
offers that tool), `SHELL` → an `exec_command` call, a skill Codex put in the context whose text
prescribes a `jacked memory add` line → an `exec_command` running that line (KIND `fact`, TITLE
`Saved through a Codex skill`, a body on stdin), as an agent following it would; after a tool's
output → "Done with the tool", anything else → "Answer <n>.". Every request body is appended to
$CODEX_MODEL_LOG when set.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNTER = itertools.count(1)


def _sse(events: list[dict]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _tool_names(tools: object, prefix: str = "") -> set[str]:
    out: set[str] = set()
    for tool in tools if isinstance(tools, list) else []:
        if tool.get("type") == "namespace":
            out |= _tool_names(tool.get("tools"), f"{tool.get('name', '')}.")
        else:
            out.add(prefix + str(tool.get("name")))
    return out


def _skill_save(items: list) -> str | None:
    """The shell command an agent runs to follow a skill that prescribes `… add --kind KIND …`."""
    for item in items:
        for part in item.get("content") or [] if item.get("type") == "message" else []:
            text = part.get("text", "") if isinstance(part, dict) else ""
            lines = [ln.strip() for ln in text.splitlines() if " add --kind " in ln] if "<skill>" in text else []
            if lines:
                line = lines[0].replace("KIND", "fact").replace("TITLE", "Saved through a Codex skill")
                return f"printf 'The build uses bazel.\\n' | {line}"
    return None


def reply(body: dict) -> bytes:
    n = next(COUNTER)
    items = body.get("input") or []
    last = items[-1] if items else {}
    names = _tool_names(body.get("tools"))
    text = ""
    for item in reversed(items):
        if item.get("type") == "message" and item.get("role") == "user":
            text = " ".join(c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict))
            break
    if last.get("type") in ("function_call_output", "custom_tool_call_output"):
        out = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_{n}",
            "content": [{"type": "output_text", "text": f"Done with the tool ({n})."}],
        }
    elif _skill_save(items) and "exec_command" in names:
        out = {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "name": "exec_command",
            "arguments": json.dumps({"cmd": _skill_save(items)}),
        }
    elif "PATCH" in text and "apply_patch" in names:
        patch = f"*** Begin Patch\n*** Add File: notes-{n}.md\n+written through apply_patch\n*** End Patch\n"
        out = {
            "type": "custom_tool_call",
            "id": f"ctc_{n}",
            "call_id": f"call_{n}",
            "name": "apply_patch",
            "input": patch,
        }
    elif "SHELL" in text and "exec_command" in names:
        out = {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "name": "exec_command",
            "arguments": json.dumps({"cmd": f"echo ran > shell-{n}.txt"}),
        }
    else:
        out = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_{n}",
            "content": [{"type": "output_text", "text": f"Answer {n}."}],
        }
    usage = {
        "input_tokens": 0,
        "input_tokens_details": None,
        "output_tokens": 0,
        "output_tokens_details": None,
        "total_tokens": 0,
    }
    return _sse(
        [
            {"type": "response.created", "response": {"id": f"resp_{n}"}},
            {"type": "response.output_item.done", "item": out},
            {"type": "response.completed", "response": {"id": f"resp_{n}", "usage": usage}},
        ]
    )


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(200, "application/json", json.dumps({"models": [], "data": []}).encode())

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        log = os.environ.get("CODEX_MODEL_LOG")
        if log:
            with open(log, "ab") as handle:
                handle.write(raw + b"\n")
        try:
            body = reply(json.loads(raw))
        except (ValueError, AttributeError, TypeError) as exc:
            self._send(500, "text/plain", str(exc).encode())
            return
        self._send(200, "text/event-stream", body)


def main() -> int:
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
