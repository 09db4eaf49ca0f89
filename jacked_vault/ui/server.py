"""Serving the review page: a socket on 127.0.0.1 only, a fresh random token, uvicorn on top.

The socket is bound and listening before the URL is announced, so a script that reads the URL
(`jacked memory ui --json`) can connect at once. uvicorn's access log is off: request lines
carry the token on the first request.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jacked_vault.errors import VaultError

HOST = "127.0.0.1"
TOKEN_BYTES = 32


@dataclass(frozen=True)
class Listening:
    """The page is up: its URL (with the token) and where it listens."""

    url: str
    port: int
    vault: str

    def to_json(self) -> dict[str, str | int]:
        return {"url": self.url, "port": self.port, "vault": self.vault}

    def to_text(self) -> str:
        return (
            f"review page for {self.vault}: {self.url}\n"
            "(only this machine can reach it; the link carries its key. Ctrl-C stops it)"
        )


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: any free port); USAGE when it is taken or not allowed."""
    if not 0 <= port <= 65535:
        raise VaultError("USAGE", f"--port {port}: give a number from 1 to 65535 (or leave it out for a free one)")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise VaultError(
            "USAGE",
            f"--port {port}: cannot listen on {HOST}:{port} ({exc.strerror}); pick another, or leave --port out",
        ) from None
    sock.set_inheritable(False)
    return sock


def open_browser(url: str) -> bool:
    """Open `url` in the person's browser, never a text browser in this terminal: only where a
    desktop session is (macOS, Windows, a DISPLAY or Wayland). Whether it tried."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    import webbrowser

    def go() -> None:
        with contextlib.suppress(Exception):  # the URL is printed anyway
            webbrowser.open(url)

    threading.Thread(target=go, name="jacked-ui-open", daemon=True).start()
    return True


def serve(
    vault: Path, cwd: Path, *, port: int = 0, announce: Callable[[Listening], None], browser: bool = True
) -> None:
    """Serve the page for `vault` until interrupted; `announce` is called once it listens."""
    import uvicorn

    from jacked_vault.ui.app import UiConfig, create_app

    sock = bind(port)
    actual = sock.getsockname()[1]
    token = secrets.token_urlsafe(TOKEN_BYTES)
    app = create_app(UiConfig(vault=vault, cwd=cwd, token=token, port=actual))
    listening = Listening(f"http://{HOST}:{actual}/?token={token}", actual, str(vault))
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=False,
        proxy_headers=False,
        lifespan="off",
        ws="none",
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)
    announce(listening)
    if browser:
        open_browser(listening.url)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
