"""The MCP server's protocol surface: every stdio line answered (or knowingly dropped), a
`memory_save` input schema that states the limits validation enforces, and a start-up that
loads nothing heavy before a tool needs it.

Strictness tests spawn the real server (`python -m jacked_vault.mcp`) and write raw lines to
it; every read has a deadline, so a server that leaves its client waiting fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import jsonschema
import pytest
from conftest import snapshot
from helpers.mcp_server import SERVER_ARGV, call, err, inproc, lib_add, ok, run, server_env
from mcp import Client

from jacked_vault.document.model import ID_RE, MAX_BODY_BYTES, MAX_LINKS, MAX_TAGS, MAX_TARGETS, MAX_TITLE, SLUG_RE

READ_DEADLINE_S = 30
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


class RawServer:
    """The real server as a child process, spoken to in raw lines; `reply` waits at most READ_DEADLINE_S."""

    def __init__(self, vault: Path, work: Path, argv: list[str] = SERVER_ARGV) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=work,
            env=server_env(vault),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._replies: queue.Queue[bytes] = queue.Queue()
        self._stderr: list[bytes] = []
        threading.Thread(target=lambda: [self._replies.put(line) for line in self.proc.stdout], daemon=True).start()
        threading.Thread(target=lambda: self._stderr.extend(self.proc.stderr), daemon=True).start()

    def send(self, line: str | bytes) -> None:
        self.proc.stdin.write((line.encode() if isinstance(line, str) else line) + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict:
        try:
            line = self._replies.get(timeout=READ_DEADLINE_S)
        except queue.Empty:
            raise AssertionError(f"no reply within {READ_DEADLINE_S}s: the server left its client waiting") from None
        return json.loads(line)

    def request(self, method: str, params: dict | None = None, request_id: int | str = "req") -> dict:
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            **({"params": params} if params is not None else {}),
        }
        self.send(json.dumps(message))
        return self.reply()

    def assert_alive(self) -> None:
        """A valid tools/list is the very next thing answered: nothing stray, nothing lost."""
        answer = self.request("tools/list", request_id="alive")
        assert answer["id"] == "alive" and len(answer["result"]["tools"]) == 5, answer

    def close(self) -> str:
        self.proc.stdin.close()
        self.proc.wait(timeout=READ_DEADLINE_S)
        return b"".join(self._stderr).decode(errors="replace")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def raw(vault_path: Path, work: Path):
    server = RawServer(vault_path, work)
    try:
        assert (
            server.request("initialize", INITIALIZE["params"], request_id=0)["result"]["serverInfo"]["name"]
            == "jacked-memory"
        )
        server.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        yield server
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr, stderr


def assert_error(reply: dict, code: int, request_id: int | str | None) -> None:
    assert set(reply) == {"jsonrpc", "id", "error"} and reply["jsonrpc"] == "2.0", reply
    assert reply["id"] == request_id and reply["error"]["code"] == code, reply
    message = reply["error"]["message"]
    assert message and "Traceback" not in message and "\\u" not in json.dumps(message), reply


# -- 1. not JSON: -32700 ----------------------------------------------------------------------------

NOT_JSON = [
    "this is not json",
    "{",
    "[1, 2",
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"',
    "{'single': 'quotes'}",
    b"\xff\xfe{}",  # not UTF-8
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": NaN}}',
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"} trailing',
    "[" * 100_000 + "]" * 100_000,  # deeper than any parser's recursion limit
]


def test_stdio_line_that_is_not_json_gets_parse_error(raw):
    for line in NOT_JSON:
        raw.send(line)
        assert_error(raw.reply(), -32700, None)
        raw.assert_alive()


# -- 2. not a request: -32600 -----------------------------------------------------------------------

BAD_IDS = ["null", "false", "true", "{}", '{"n": 1}', "[]", "[1]", "1.5", "1e3", "1.0", '"\\ud800"']
NOT_REQUESTS = [
    "[]",
    '[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]',
    "42",
    '"tools/list"',
    "null",
    "true",
    "{}",
    '{"id": 1, "method": "tools/list"}',
    '{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}',
    '{"jsonrpc": 2.0, "id": 1, "method": "tools/list"}',
    '{"jsonrpc": "2.0", "id": 1}',
    '{"jsonrpc": "2.0", "id": 1, "method": 5}',
    '{"jsonrpc": "2.0", "id": 1, "method": null}',
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/\\udc00list"}',
    '{"jsonrpc": "2.0", "method": ["tools/list"]}',
]


@pytest.mark.parametrize("bad_id", BAD_IDS)
def test_stdio_request_with_a_bad_id_gets_invalid_request(raw, bad_id):
    """Not read as a notification (silence) nor answered under some other id."""
    raw.send(
        f'{{"jsonrpc": "2.0", "id": {bad_id}, "method": "tools/call", '
        f'"params": {{"name": "memory_doctor", "arguments": {{}}}}}}'
    )
    assert_error(raw.reply(), -32600, None)
    raw.assert_alive()


def test_stdio_value_that_is_not_a_request_gets_invalid_request(raw):
    for line in NOT_REQUESTS:
        raw.send(line)
        assert_error(raw.reply(), -32600, None)
        raw.assert_alive()


# -- 3. bad params: -32602 with the request's id -----------------------------------------------------

BAD_TOOLS_CALL_PARAMS = [
    '"garbage"',
    "[]",
    '["memory_doctor", {}]',
    "null",
    "5",
    '{"name": "memory_doctor", "arguments": null}',
    '{"name": "memory_doctor", "arguments": []}',
    '{"name": "memory_doctor", "arguments": "scopes=group"}',
    '{"name": "memory_doctor", "arguments": {}, "_meta": null}',
    '{"name": "memory_doctor", "arguments": {}, "_meta": "x"}',
    '{"name": "memory_doctor", "arguments": {}, "extra": 1}',
    '{"name": "memory_doctor", "arguments": {}, "task": {}}',
    '{"name": "memory_doctor", "args": {}}',
    '{"arguments": {}}',
    '{"name": 5, "arguments": {}}',
    '{"name": null, "arguments": {}}',
    '{"name": "memory_doctor", "arguments": {"scopes": ' + "[" * 300 + "]" * 300 + "}}",  # JSON, too deep for the SDK
]


@pytest.mark.parametrize("request_id", [7, "call-7"])
def test_stdio_tools_call_with_bad_params_gets_invalid_params_with_its_id(raw, vault_path, request_id):
    before = snapshot(vault_path)
    for params in BAD_TOOLS_CALL_PARAMS:
        raw.send(f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "method": "tools/call", "params": {params}}}')
        assert_error(raw.reply(), -32602, request_id)
        raw.assert_alive()
    raw.send(f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "method": "tools/call"}}')
    assert_error(raw.reply(), -32602, request_id)
    save = {"name": "memory_save", "arguments": {"title": "t", "body": "b", "group": "g"}, "source_harness": "beta"}
    assert_error(raw.request("tools/call", save, request_id), -32602, request_id)
    assert snapshot(vault_path) == before


def test_stdio_other_requests_need_object_params_too(raw):
    for params in ('"x"', "[]", "null", '{"_meta": null}', '{"_meta": []}'):
        raw.send(f'{{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {params}}}')
        assert_error(raw.reply(), -32602, 3)
    raw.assert_alive()


# -- 4. a lone surrogate: -32602, nothing written, the server goes on -----------------------------------


def test_stdio_lone_surrogate_in_arguments_gets_invalid_params_and_writes_nothing(raw, vault_path):
    before = snapshot(vault_path)
    cases = [
        '{"title": "\\ud800", "body": "b", "group": "g"}',
        '{"title": "t", "body": "tail \\udfff", "group": "g"}',
        '{"title": "t", "body": "b", "group": "g", "tags": ["\\ud83d"]}',
        '{"title": "t", "body": "b", "group": "g", "\\ud800": 1}',
    ]
    for number, arguments in enumerate(cases):
        raw.send(
            f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", '
            f'"params": {{"name": "memory_save", "arguments": {arguments}}}}}'
        )
        reply = raw.reply()
        assert_error(reply, -32602, number)
        assert "surrogate" in reply["error"]["message"]
        raw.assert_alive()
    assert snapshot(vault_path) == before
    paired = raw.request(
        "tools/call", {"name": "memory_save", "arguments": {"title": "Emoji \U0001f600 ok", "body": "b", "group": "g"}}
    )
    assert paired["result"]["isError"] is False, paired
    assert paired["result"]["structuredContent"]["memory"]["id"].startswith("mem_")


# -- 5. bad notifications and stray responses: no reply, and the stream goes on ---------------------------

SILENT = [
    "",
    "   ",
    '{"jsonrpc": "2.0", "method": "notifications/initialized", "params": "x"}',
    '{"jsonrpc": "2.0", "method": "notifications/initialized", "params": null}',
    '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "\\ud800"}}',
    '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"_meta": null}}',
    '{"jsonrpc": "2.0", "method": "no/such/notification"}',
    '{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "memory_save", "arguments": null}}',
    '{"jsonrpc": "2.0", "id": 99, "result": {}}',
    '{"jsonrpc": "2.0", "id": 99, "result": "not an object"}',
    '{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}',
]


def test_stdio_bad_notifications_and_stray_responses_get_no_reply(raw, vault_path):
    before = snapshot(vault_path)
    for line in SILENT:
        raw.send(line)
        raw.assert_alive()
    assert snapshot(vault_path) == before


CLI_ARGV = [
    sys.executable,
    "-c",
    "import sys; from jacked_vault.cli.main import main; sys.exit(main(sys.argv[1:]))",
    "memory",
    "mcp",
]


@pytest.mark.parametrize("argv", [SERVER_ARGV, CLI_ARGV], ids=["jacked-memory-mcp", "jacked memory mcp"])
def test_stdio_garbage_before_the_handshake_is_answered_then_served(vault_path, work, argv):
    server = RawServer(vault_path, work, argv)
    try:
        for line in ("not json", '{"jsonrpc": "2.0", "id": null, "method": "initialize"}'):
            server.send(line)
            assert "error" in server.reply()
        assert (
            server.request("initialize", INITIALIZE["params"], request_id=1)["result"]["serverInfo"]["name"]
            == "jacked-memory"
        )
    finally:
        assert "Traceback" not in server.close()


# -- 6. memory_save's schema states what validation enforces ---------------------------------------------


def save_schema(vault_path: Path, work: Path) -> dict:
    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}

    return run(go)["memory_save"]


def test_memory_save_schema_states_the_document_limits(vault_path, work):
    props = save_schema(vault_path, work)["properties"]
    assert (props["title"]["minLength"], props["title"]["maxLength"]) == (1, MAX_TITLE)
    assert (props["body"]["minLength"], props["body"]["maxLength"]) == (1, MAX_BODY_BYTES)
    assert f"{MAX_BODY_BYTES} bytes of UTF-8" in props["body"]["description"]
    slug, memory_id = f"^{SLUG_RE.pattern}$", f"^{ID_RE.pattern}$"
    for name, pattern, limit in (
        ("tags", slug, MAX_TAGS),
        ("target_harnesses", slug, MAX_TARGETS),
        ("links", memory_id, MAX_LINKS),
        ("supersedes", memory_id, MAX_LINKS),
    ):
        assert props[name]["items"] == {"type": "string", "pattern": pattern}, name
        assert props[name]["maxItems"] == limit, name
        assert str(limit) in props[name]["description"], name


def many(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i:03d}" for i in range(count)]


SCHEMA_BOUNDARIES = [
    ({"title": "t" * MAX_TITLE}, True),
    ({"title": "t" * (MAX_TITLE + 1)}, False),
    ({"title": ""}, False),
    ({"body": "b" * MAX_BODY_BYTES}, True),
    ({"body": "b" * (MAX_BODY_BYTES + 1)}, False),
    ({"body": ""}, False),
    ({"tags": many("tag", MAX_TAGS)}, True),
    ({"tags": many("tag", MAX_TAGS + 1)}, False),
    ({"tags": ["Not A Slug"]}, False),
    ({"target_harnesses": many("h", MAX_TARGETS)}, True),
    ({"target_harnesses": many("h", MAX_TARGETS + 1)}, False),
    ({"target_harnesses": ["-dash"]}, False),
    ({"links": many("mem_20260101_link", MAX_LINKS)}, True),
    ({"links": many("mem_20260101_link", MAX_LINKS + 1)}, False),
    ({"links": ["../../etc/passwd"]}, False),
]


def test_memory_save_schema_and_the_server_agree_at_the_limits(vault_path, work):
    schema = save_schema(vault_path, work)
    cases = [
        ({"title": f"Boundary case {i}", "body": "b", "group": "g", **change}, valid)
        for i, (change, valid) in enumerate(SCHEMA_BOUNDARIES)
    ]
    for arguments, valid in cases:
        assert jsonschema.Draft202012Validator(schema).is_valid(arguments) is valid, list(arguments)
    saved = [lib_add(vault_path, work, "alpha", f"Link target {i}", "b") for i in range(MAX_LINKS)]
    for arguments, valid in cases:
        if valid and "links" in arguments:
            arguments["links"] = saved[: len(arguments["links"])]  # the server links only notes that exist

    async def go():
        async with Client(inproc(vault_path, work)) as client:
            return [await call(client, "memory_save", arguments) for arguments, _ in cases]

    for (arguments, valid), pair in zip(cases, run(go), strict=True):
        if valid:
            ok(pair)
        else:
            assert err(pair, "MEMORY_WRITE_REJECTED")["reason"] == "JACKED_MEMORY_VALIDATION", list(arguments)


# -- start-up: the handshake and tools/list load none of our heavy modules ---------------------------

STARTUP_PROBE = """
import sys, anyio
from mcp import Client
from jacked_vault.mcp.server import Settings, build_server

async def main():
    async with Client(build_server(Settings.from_env())) as client:
        await client.list_tools()
    heavy = {"pygit2", "jsonschema", "fastjsonschema", "ruamel", "sqlite3"}
    print(sorted(heavy & {name.split(".")[0] for name in sys.modules}))

anyio.run(main)
"""


def test_startup_loads_no_heavy_module_before_a_tool_needs_it(vault_path, work):
    out = subprocess.run(
        [sys.executable, "-c", STARTUP_PROBE],
        cwd=work,
        env=server_env(vault_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stdout.strip() == "[]", out.stdout


# -- issue 19.11: stdin closed while a request runs -------------------------------------------------


def test_a_request_still_running_when_stdin_closes_is_answered_before_exit(vault_path, work):
    """A client that writes its last requests and closes stdin at once (a pipe, `echo … |`) gets
    every answer: the server finishes what it started before it exits."""
    proc = subprocess.Popen(
        SERVER_ARGV,
        cwd=work,
        env=server_env(vault_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    lines = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": "save",
            "method": "tools/call",
            "params": {"name": "memory_save", "arguments": {"title": "Saved at the end", "body": "b", "group": "g"}},
        },
        {
            "jsonrpc": "2.0",
            "id": "doctor",
            "method": "tools/call",
            "params": {"name": "memory_doctor", "arguments": {}},
        },
        {"jsonrpc": "2.0", "id": "list", "method": "tools/list"},
    ]
    out, errors = proc.communicate(
        b"".join(json.dumps(line).encode() + b"\n" for line in lines), timeout=READ_DEADLINE_S
    )
    replies = {reply["id"]: reply for reply in map(json.loads, out.splitlines())}
    assert sorted(replies, key=str) == sorted([0, "save", "doctor", "list"], key=str), out.decode()
    assert replies["save"]["result"]["isError"] is False and replies["doctor"]["result"]["isError"] is False
    assert proc.returncode == 0 and b"Traceback" not in errors


# -- issue 33.8: a client hanging up is a normal end ---------------------------------------------


@pytest.mark.parametrize("when", ["before-the-answer", "after-the-answer"])
def test_a_client_that_hangs_up_ends_the_server_as_an_ordinary_end(vault_path, work, when: str):
    """A client that closes its end of both pipes (a killed harness, a closed terminal) while an
    answer is on its way, or after it: the server ends, exit 0, no traceback, and its log (what
    `status` shows) says it ended, never `failed ExceptionGroup`."""
    from helpers.state import state_dir

    proc = subprocess.Popen(
        SERVER_ARGV, cwd=work, env=server_env(vault_path),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    json.loads(proc.stdout.readline())
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n")
    listing = {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}
    if when == "after-the-answer":
        proc.stdin.write(json.dumps(listing).encode() + b"\n")
        proc.stdin.flush()
        json.loads(proc.stdout.readline())
    else:
        proc.stdout.close()  # nobody reads the answer: its write finds a broken pipe
        proc.stdin.write(b"".join(json.dumps({**listing, "id": n}).encode() + b"\n" for n in range(20)))
        proc.stdin.flush()
    proc.stdin.close()
    proc.stdout.close()
    errors = proc.stderr.read() if proc.stderr is not None else b""
    assert proc.wait(timeout=READ_DEADLINE_S) == 0, errors.decode()
    assert b"Traceback" not in errors and b"ExceptionGroup" not in errors, errors.decode()
    last = [line for line in (state_dir(vault_path) / "log").read_text().splitlines() if "mcp" in line][-1]
    assert "failed" not in last and "ended" in last, last
