"""The stdio transport: the SDK's `stdio_server`, fed only lines that `protocol.screen` passed.

Stdin and stdout are ours, taken the way the SDK takes them when it owns them: the wire moves
to private descriptors, fd 0 then reads /dev/null (no child swallows a frame) and fd 1 points
at stderr (a stray print misses the wire). Each stdin line is screened: a bad one is answered
here through the SDK's own write stream, a good one goes to the SDK as it is. Every request
handed on is remembered until its answer has been written, so when the client closes stdin
with requests still running, the server answers them before it exits (at most
`DRAIN_TIMEOUT_S`; a request the client cancelled is not waited for).
"""

import io
import json
import os
from collections.abc import AsyncIterator
from typing import Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError

from jacked_vault.mcp.protocol import ProtocolError, screen

DRAIN_TIMEOUT_S = 60.0  # how long a closed stdin waits for the requests still running


async def serve_screened(server: Any) -> None:
    """Serve one low-level SDK `Server` over this process's stdin/stdout until stdin closes
    and every request read has been answered."""
    pending = Pending()
    lines = ScreenedLines(_take_stdin(), pending)
    replies = Replies(_take_stdout(), pending)
    async with stdio_server(stdin=lines, stdout=replies) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.answer_into(write_stream)
        await server.run(read_stream, write_stream, server.create_initialization_options())


class Pending:
    """The ids of the requests handed to the SDK and not answered yet."""

    def __init__(self) -> None:
        self._ids: set[Any] = set()
        self._empty = anyio.Event()
        self._empty.set()

    def add(self, request_id: Any) -> None:
        self._ids.add(request_id)
        if self._empty.is_set():
            self._empty = anyio.Event()

    def done(self, request_id: Any) -> None:
        self._ids.discard(request_id)
        if not self._ids:
            self._empty.set()

    async def drained(self, timeout: float) -> None:
        with anyio.move_on_after(timeout):
            await self._empty.wait()


class ScreenedLines:
    """Stdin as the SDK reads it (an async iterable of lines), with bad lines answered, not passed."""

    def __init__(self, wire: BinaryIO, pending: Pending | None = None) -> None:
        self._wire = anyio.wrap_file(wire)
        self._pending = pending or Pending()
        self._replies: Any = None
        self._ready = anyio.Event()

    def answer_into(self, write_stream: Any) -> None:
        """Where error replies go: the stream the SDK writes its own replies from."""
        self._replies = write_stream
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        await self._ready.wait()
        async for line in self._wire:
            try:
                text = screen(line)
            except ProtocolError as exc:
                reply = JSONRPCError(
                    jsonrpc="2.0", id=exc.request_id, error=ErrorData(code=exc.code, message=exc.message)
                )
                await self._replies.send(SessionMessage(reply))
                continue
            if text is not None:
                self._note(text)
                yield text
        await self._pending.drained(DRAIN_TIMEOUT_S)  # stdin closed: answer what is still running first

    def _note(self, text: str) -> None:
        """Remember a request until it is answered; forget one the client cancelled."""
        message = json.loads(text)
        if "method" not in message:
            return
        if "id" in message:
            self._pending.add(message["id"])
        elif message["method"] == "notifications/cancelled" and isinstance(message.get("params"), dict):
            self._pending.done(message["params"].get("requestId"))


class Replies:
    """Stdout as the SDK writes it (`await write(text)`, `await flush()`): each answer, once on
    the wire, marks its request answered."""

    def __init__(self, wire: BinaryIO, pending: Pending) -> None:
        self._file = anyio.wrap_file(io.TextIOWrapper(wire, encoding="utf-8", newline="\n"))
        self._pending = pending
        self._written: list[Any] = []

    async def write(self, text: str) -> None:
        await self._file.write(text)
        try:
            message = json.loads(text)
        except ValueError:  # pragma: no cover - the SDK writes one JSON message per call
            return
        if isinstance(message, dict) and "method" not in message and "id" in message:
            self._written.append(message["id"])

    async def flush(self) -> None:
        await self._file.flush()
        written, self._written = self._written, []
        for request_id in written:
            self._pending.done(request_id)


def _take_stdin() -> BinaryIO:
    """The wire's stdin on a private descriptor for the rest of the process; fd 0 then reads
    /dev/null, so no child process can swallow protocol frames."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return os.fdopen(wire, "rb", closefd=False)


def _take_stdout() -> BinaryIO:
    """The wire's stdout on a private descriptor; fd 1 then points at stderr, so a stray print
    (ours or a child's) never lands among the protocol frames."""
    wire = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(wire, "wb", closefd=False)
