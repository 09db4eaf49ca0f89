"""A stand-in for the Anthropic Messages API, so the real `claude -p` runs offline.

`serve(answer)` starts it on 127.0.0.1 (a free port) in a thread and returns (server, base_url,
requests): every POST body to `/v1/messages` is appended to `requests` (with its path under
`"_path"`). Point Claude Code at it with `ANTHROPIC_BASE_URL=<base_url>` and a dummy
`ANTHROPIC_API_KEY`. Each request is answered with `answer` (one text block), streamed as
server-sent events when the request asks for a stream, else as one JSON message.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

REPLY = "Answer from the stand-in model."


def _events(text: str, model: str) -> list[dict]:
    usage = {"input_tokens": 10, "output_tokens": 5}
    message = {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": usage},
        {"type": "message_stop"},
    ]


class _Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []
    answer: ClassVar[str] = REPLY

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if not self.path.startswith("/v1/messages"):
            self._send(404, "application/json", b'{"type": "error", "error": {"type": "not_found_error"}}')
            return
        if self.path.startswith("/v1/messages/count_tokens"):
            self._send(200, "application/json", b'{"input_tokens": 10}')
            return
        self.requests.append({**body, "_path": self.path})
        events = _events(self.answer, str(body.get("model", "m")))
        if body.get("stream"):
            data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
            self._send(200, "text/event-stream", data.encode())
            return
        whole = {
            **events[0]["message"],
            "content": [{"type": "text", "text": self.answer}],
            "stop_reason": "end_turn",
        }
        self._send(200, "application/json", json.dumps(whole).encode())

    def do_HEAD(self) -> None:
        self._send(200, "text/plain", b"")

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(answer: str = REPLY) -> tuple[ThreadingHTTPServer, str, list[dict]]:
    requests: list[dict] = []
    handler = type("Handler", (_Handler,), {"requests": requests, "answer": answer})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}", requests
