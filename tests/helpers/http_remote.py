"""A git server over smart HTTP with basic auth, on loopback, for one test: Python's http.server
in a thread in front of git's own `git http-backend` (CGI), serving the bare repositories under
one folder. Every request without the right user and password gets 401 (with `anonymous_read`,
every push's), as a forge does, so git asks its credential helpers and then (unless told not to)
a person."""

from __future__ import annotations

import base64
import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass
class HttpRemote:
    root: Path  # the folder of bare repositories it serves
    user: str
    password: str
    anonymous_read: bool = False  # fetches need no login (pushes always do)
    port: int = 0
    users_seen: list[str] = field(default_factory=list)  # who each authorised request came as
    requests: list[tuple[str, bool]] = field(default_factory=list)  # (path and query, with credentials?) in order

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args) -> None:
        pass  # quiet

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        remote = self.server.remote
        remote.requests.append((self.path, "Authorization" in self.headers))
        expected = base64.b64encode(f"{remote.user}:{remote.password}".encode()).decode()
        reading = "git-upload-pack" in self.path
        if self.headers.get("Authorization") != f"Basic {expected}" and not (remote.anonymous_read and reading):
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        remote.users_seen.append(remote.user)
        body = self._body()
        path, _, query = self.path.partition("?")
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_PROJECT_ROOT": str(remote.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "REQUEST_METHOD": self.command,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            "REMOTE_USER": remote.user,
            "REMOTE_ADDR": "127.0.0.1",
        }
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=60).stdout
        end = min((i for i in (out.find(b"\r\n\r\n"), out.find(b"\n\n")) if i >= 0), default=len(out))
        head, payload = out[:end], out[end:].lstrip(b"\r\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        chunks = []
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            chunks.append(self.rfile.read(size))
            self.rfile.readline()
        self.rfile.readline()
        return b"".join(chunks)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    remote: HttpRemote


@contextmanager
def http_remote(
    root: Path, user: str = "alice", password: str = "s3cret-pass", *, anonymous_read: bool = False
) -> Iterator[HttpRemote]:
    """Serve the bare repositories under `root` on a free loopback port until the block ends."""
    remote = HttpRemote(root, user, password, anonymous_read)
    server = _Server(("127.0.0.1", 0), _Handler)
    server.remote = remote
    remote.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield remote
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
