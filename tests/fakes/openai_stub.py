"""A local OpenAI-compatible chat endpoint for running a real agent CLI offline (OpenCode here).

`serve()` starts it on 127.0.0.1 (a free port) in a thread and returns (server, base_url,
requests): every POST body is appended to `requests`. The answer is streamed (SSE) or whole, as
asked: a `write` tool call creating `notes/plan.md` when the last message is a person's asking to
"write the plan" and the tool is offered, else one sentence.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

REPLY = "Done: the plan is written down."


def _answer(body: dict) -> tuple[str | None, dict | None]:
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    offered = {t.get("function", {}).get("name") for t in body.get("tools") or []}
    if last.get("role") == "user" and "write the plan" in json.dumps(last.get("content")) and "write" in offered:
        return None, {"name": "write", "arguments": json.dumps({"filePath": "notes/plan.md", "content": "# Plan\n"})}
    return REPLY, None


class _Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.requests.append(body)
        text, call = _answer(body)
        base = {
            "id": "stub",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", "m"),
        }
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            message = (
                {"role": "assistant", "content": text}
                if call is None
                else {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
                }
            )
            data = {
                **base,
                "object": "chat.completion",
                "choices": [
                    {"index": 0, "message": message, "finish_reason": "stop" if call is None else "tool_calls"}
                ],
                "usage": usage,
            }
            self._send("application/json", json.dumps(data).encode())
            return
        if call is None:
            chunks = [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]
            finish = "stop"
        else:
            chunks = [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": call}],
                    },
                    "finish_reason": None,
                }
            ]
            finish = "tool_calls"
        events = [
            {**base, "choices": chunks},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
        ]
        self._send(
            "text/event-stream", b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"
        )

    def _send(self, kind: str, data: bytes) -> None:
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve() -> tuple[ThreadingHTTPServer, str, list[dict]]:
    requests: list[dict] = []
    handler = type("Handler", (_Handler,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1", requests
