"""The stdio transport: the SDK's `stdio_server`, fed only lines that `protocol.screen` passed.

The SDK keeps stdout (it points fd 1 at stderr so stray prints miss the wire, and writes
every reply). Stdin is ours: each line is screened, a bad one is answered here through the
SDK's own write stream, a good one goes to the SDK as it is.
"""

import os
from collections.abc import AsyncIterator
from typing import Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError

from jacked_vault.mcp.protocol import ProtocolError, screen


async def serve_screened(server: Any) -> None:
    """Serve one low-level SDK `Server` over this process's stdin/stdout until stdin closes."""
    lines = ScreenedLines(_take_stdin())
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.answer_into(write_stream)
        await server.run(read_stream, write_stream, server.create_initialization_options())


class ScreenedLines:
    """Stdin as the SDK reads it (an async iterable of lines), with bad lines answered, not passed."""

    def __init__(self, wire: BinaryIO) -> None:
        self._wire = anyio.wrap_file(wire)
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
                reply = JSONRPCError(jsonrpc="2.0", id=exc.request_id, error=ErrorData(code=exc.code, message=exc.message))
                await self._replies.send(SessionMessage(reply))
                continue
            if text is not None:
                yield text


def _take_stdin() -> BinaryIO:
    """The wire's stdin on a private descriptor for the rest of the process; fd 0 then reads
    /dev/null, so no child process can swallow protocol frames."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return os.fdopen(wire, "rb", closefd=False)
