"""JSON-RPC screening of one stdio line, before the MCP SDK sees it.

The SDK drops what it cannot parse without a word (the client then waits forever), and
reads a request whose `id` is null, a float or an object as a notification. `screen`
decides for each line: hand it on, drop it, or answer it with a JSON-RPC error.

- not UTF-8 JSON (NaN and Infinity included)                       -> -32700, id null
- not a JSON-RPC 2.0 request or notification, or a bad id         -> -32600, id null
- a request's params are bad (not an object, `_meta` or `arguments`
  not an object, `tools/call` keys beyond name/arguments/_meta,
  a lone UTF-16 surrogate in any string)                           -> -32602, the request's id
- a notification or a response with bad content                    -> dropped, never answered

Whatever is handed on, the SDK's own message parser accepts too: the SDK never drops a
line this screen let through.
"""

import json
from typing import Any

from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter

TOOLS_CALL_KEYS = frozenset({"name", "arguments", "_meta"})


class ProtocolError(Exception):
    """A line answered here with a JSON-RPC error; `request_id` is None when it is unknown."""

    def __init__(self, code: int, message: str, request_id: str | int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def screen(line: bytes) -> str | None:
    """The line's text to hand to the SDK, or None to drop it; raises ProtocolError to answer it."""
    if not line.strip():
        return None  # a blank line: there is nothing to answer
    message = _parse(line)
    if not isinstance(message, dict):
        raise ProtocolError(INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    if "method" not in message and ("result" in message or "error" in message):
        return _forward(line) if _valid_id(message.get("id")) else None  # a response is never answered
    if message.get("jsonrpc") != "2.0":
        raise ProtocolError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    is_request = "id" in message
    if is_request and not _valid_id(message["id"]):
        raise ProtocolError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if not isinstance(message.get("method"), str) or not _is_unicode(message["method"]):
        raise ProtocolError(INVALID_REQUEST, "Invalid Request: method must be a string")
    problem = _params_problem(message)
    if problem is None:
        text = _forward(line)
        if text is not None:
            return text
        problem = "the request does not fit the MCP message schema"
    if not is_request:
        return None  # a notification is never answered, not even to say it was bad
    raise ProtocolError(INVALID_PARAMS, f"Invalid params: {problem}", message["id"])


def _parse(line: bytes) -> Any:
    """The JSON value on the line."""
    try:
        return json.loads(line.decode("utf-8"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise ProtocolError(PARSE_ERROR, "Parse error: the line is not a JSON text") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and _is_unicode(value))


def _params_problem(message: dict[str, Any]) -> str | None:
    """Why a request's (or notification's) params are unacceptable, or None."""
    method = message["method"]
    if "params" not in message:
        return "tools/call needs params" if method == "tools/call" else None
    params = message["params"]
    if not isinstance(params, dict):
        return "params must be an object"
    if "_meta" in params and not isinstance(params["_meta"], dict):
        return "_meta must be an object"
    if method == "tools/call":
        if not set(params) <= TOOLS_CALL_KEYS:
            return "tools/call takes name, arguments and _meta, nothing else"
        if not isinstance(params.get("name"), str):
            return "tools/call needs a tool name (a string)"
        if "arguments" in params and not isinstance(params["arguments"], dict):
            return "arguments must be an object"
    if not _is_unicode(params):
        return "a string holds an unpaired UTF-16 surrogate, which is not Unicode text"
    return None


def _is_unicode(value: Any) -> bool:
    """False if any string in value (keys included) holds a lone surrogate, which UTF-8 cannot carry."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


def _forward(line: bytes) -> str | None:
    """The line's text if the SDK's parser takes it as it is (it refuses lone surrogates too), else None."""
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return None
    return line.decode("utf-8")
