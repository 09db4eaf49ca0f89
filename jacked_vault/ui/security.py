"""Who may talk to the review page: the one ASGI middleware every request passes.

- **Host**: exactly `127.0.0.1:<port>` or `localhost:<port>`. A DNS-rebinding page (evil.example
  resolving to 127.0.0.1) sends its own name as Host and gets a bare 403, nothing of the vault.
- **Origin** (and, without it, Referer): when a browser sends one it must be this server's; a
  POST from any other origin is refused before its form is read.
- **The token**: the URL `jacked memory ui` prints carries a random token (`?token=…`). A request
  with the right token gets a session (a random id in an HttpOnly, SameSite=Strict cookie named
  for this port, never the token itself) and is redirected to the same URL without the token, so
  it stays out of history and Referer headers. Every other request needs that cookie; without it
  the answer is a 401 page that names nothing of the vault.
- **CSRF**: each session has its own random CSRF token; every POST must carry it (`csrf` form
  field or `X-CSRF-Token` header), checked by `check_csrf` before any state changes.
- **Headers on every answer**: a Content-Security-Policy that allows scripts, styles, images and
  fetches only from this origin (no inline script, nothing from the network, no framing, forms
  only to this origin), nosniff, a Referer only to this origin (with `no-referrer` a browser
  sends `Origin: null` on every POST; the token left the URL at the first redirect), no caching.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src "
    "'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),  # not no-referrer: with it a browser sends `Origin: null` on every POST
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]
MAX_SESSIONS = 64
SESSION_BYTES = 32


@dataclass
class Session:
    id: str
    csrf: str
    created: float = field(default_factory=time.time)
    flash: list[tuple[str, str]] = field(default_factory=list)  # (kind, text) shown once on the next page


class Sessions:
    """The sessions the token opened (newest kept, at most MAX_SESSIONS)."""

    def __init__(self) -> None:
        self._by_id: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def open(self) -> Session:
        session = Session(secrets.token_urlsafe(SESSION_BYTES), secrets.token_urlsafe(SESSION_BYTES))
        with self._lock:
            self._by_id[session.id] = session
            while len(self._by_id) > MAX_SESSIONS:
                self._by_id.popitem(last=False)
        return session

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        with self._lock:
            for known, session in self._by_id.items():
                if secrets.compare_digest(known, session_id):
                    return session
        return None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key == name:
            return value.decode("latin-1")
    return None


class Guard:
    """ASGI middleware: Host, Origin, token or session, and the security headers (module docstring)."""

    def __init__(self, app: ASGIApp, *, token: str, port: int, sessions: Sessions, max_body: int = 1024 * 1024) -> None:
        self.app = app
        self.max_body = max_body
        self.token = token
        self.port = port
        self.sessions = sessions
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{host}" for host in self.hosts}
        self.cookie = f"jacked_ui_{port}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets

        started = time.perf_counter()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in HEADERS}
                took = (
                    f"app;dur={(time.perf_counter() - started) * 1000:.1f}".encode()
                )  # the page's server time (bench/bench_ui.py)
                message = {
                    **message,
                    "headers": [(k, v) for k, v in message.get("headers", []) if k not in names]
                    + HEADERS
                    + [(b"server-timing", took)],
                }
            await send(message)

        refusal = self.refusal(scope) or self.too_large(scope)
        if refusal is not None:
            status, text = refusal
            await _plain(send_with_headers, status, text)
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        if "token" in query:
            if not secrets.compare_digest(query["token"].encode(), self.token.encode()):
                await _plain(send_with_headers, 401, LOCKED_OUT)
                return
            opened = self.sessions.open()
            rest = urlencode(
                [
                    (k, v)
                    for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
                    if k != "token"
                ]
            )
            path = (scope.get("raw_path") or scope.get("path", "/").encode("utf-8")).decode(
                "latin-1"
            )  # as sent: percent-encoded
            if not path.startswith("/") or path.startswith("//") or "\\" in path:
                path = "/"  # never a redirect to another site (`//evil.example`)
            location = path + (f"?{rest}" if rest else "")
            cookie = f"{self.cookie}={opened.id}; Path=/; HttpOnly; SameSite=Strict"
            await send_with_headers({"type": "http.response.start", "status": 303,
                                     "headers": [(b"location", location.encode("latin-1")),
                                                 (b"set-cookie", cookie.encode()),
                                                 (b"content-length", b"0")]})  # fmt: skip
            await send_with_headers({"type": "http.response.body", "body": b""})
            return
        jar = SimpleCookie()
        try:
            jar.load(_header(scope, b"cookie") or "")
        except Exception:  # a malformed cookie header is no session
            jar = SimpleCookie()
        session = self.sessions.get(jar[self.cookie].value if self.cookie in jar else None)
        if session is None:
            await _plain(send_with_headers, 401, LOCKED_OUT)
            return
        scope.setdefault("state", {})["session"] = session
        await self.app(scope, receive, send_with_headers)

    def too_large(self, scope: Scope) -> tuple[int, str] | None:
        """A POST must say its length (a form always does), at most `max_body` bytes; the server
        (h11) holds the body to what it says."""
        if scope.get("method") != "POST":
            return None
        length = _header(scope, b"content-length")
        if length is None or not length.isdigit():
            return 411, "refused: a POST must give its Content-Length\n"
        if int(length) > self.max_body:
            return 413, "refused: the form is too large\n"
        return None

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, text) when the request is refused before anything else: a foreign Host, Origin or Referer."""
        if _header(scope, b"host") not in self.hosts:
            return 403, "refused: this server answers only to http://127.0.0.1:PORT (Host)\n"
        origin = _header(scope, b"origin")
        if origin is not None and origin not in self.origins:
            return 403, "refused: a request from another origin\n"
        if scope.get("method") == "POST" and origin is None:
            referer = _header(scope, b"referer")
            if referer is not None:
                parts = urlsplit(referer)
                if f"{parts.scheme}://{parts.netloc}" not in self.origins:
                    return 403, "refused: a request from another origin\n"
        return None


LOCKED_OUT = (
    "This page needs the link `jacked memory ui` printed (it carries a token), opened in this browser.\n"
    "Run `jacked memory ui` again for a new link.\n"
)


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})


def check_csrf(session: Session | None, given: object) -> bool:
    """Whether a POST carries its session's CSRF token."""
    return session is not None and bool(given) and secrets.compare_digest(str(given).encode(), session.csrf.encode())
