"""OpenCode (issue 19.2): the plugin file `hooks install --opencode` writes, what it does inside
OpenCode (node drives it here; the real `opencode` below when it is installed), and capture
reading OpenCode's own session storage."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, make_repo, run_cli, write_machine_config

from jacked_vault.capture.opencode import default_db, message_count, read_session
from jacked_vault.harnesses.installers import opencode
from tests.helpers.state import state_dir

FIXTURE = Path(__file__).parents[1] / "fixtures" / "opencode" / "session.sql"
SESSION = "ses_dcbffa7e7ffemWdPkPhWHEvgS8"  # the session in FIXTURE
DISTILLER = Path(__file__).parents[1] / "fakes" / "distiller.py"
NODE = shutil.which("node")
OPENCODE = os.environ.get("OPENCODE_BIN") or shutil.which("opencode")


def _jacked(*args: str, home: Path, cwd: Path, vault: Path | None = None) -> subprocess.CompletedProcess:
    env = {**cli_env(vault), "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def _fixture_db(path: Path, *, parent: str | None = None) -> Path:
    con = sqlite3.connect(path)
    con.executescript(FIXTURE.read_text())
    if parent:
        con.execute("UPDATE session SET parent_id = ?", (parent,))
    con.commit()
    con.close()
    return path


# --- install / uninstall ------------------------------------------------------------------------


def test_install_writes_one_marked_plugin_file_and_uninstall_removes_only_it(tmp_path: Path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "opencode"
    (config / "plugins").mkdir(parents=True)
    theirs = config / "plugins" / "notify.js"
    theirs.write_text("export const Notify = async () => ({})\n")
    jsonc = config / "opencode.jsonc"
    jsonc.write_bytes(b'{\n  // my models\n  "model": "anthropic/claude-sonnet-4", /* keep */\n}\n')
    before = {p: p.read_bytes() for p in (theirs, jsonc)}

    first = _jacked(
        "memory", "hooks", "install", "--opencode", "--user", "--vault", str(vault), "--json", home=home, cwd=tmp_path
    )
    assert first.returncode == 0, first.stdout + first.stderr
    [item] = json.loads(first.stdout)["opencode"]
    plugin = config / "plugins" / "jacked-vault.js"
    assert item["action"] == "installed" and item["path"] == str(plugin)
    text = plugin.read_text()
    assert text.startswith(opencode.MARKER) and f'const VAULT = ["--vault", "{vault}"]' in text
    assert "export const JackedVault = async" in text and "experimental.chat.system.transform" in text
    again = _jacked(
        "memory", "hooks", "install", "--opencode", "--user", "--vault", str(vault), "--json", home=home, cwd=tmp_path
    )
    assert json.loads(again.stdout)["opencode"][0]["action"] == "unchanged" and plugin.read_text() == text
    status = _jacked("memory", "hooks", "status", "--opencode", "--user", "--json", home=home, cwd=tmp_path)
    assert json.loads(status.stdout)["opencode"][0] | {"path": None} == {
        "harness": "opencode",
        "path": None,
        "state": "installed",
        "vault": str(vault),
    }

    gone = _jacked("memory", "hooks", "uninstall", "--opencode", "--user", "--json", home=home, cwd=tmp_path)
    assert json.loads(gone.stdout)["opencode"][0]["action"] == "removed" and not plugin.exists()
    assert {p: p.read_bytes() for p in (theirs, jsonc)} == before  # their plugin and their JSONC config: untouched
    assert (
        json.loads(
            _jacked("memory", "hooks", "uninstall", "--opencode", "--user", "--json", home=home, cwd=tmp_path).stdout
        )["opencode"][0]["action"]
        == "absent"
    )


def test_a_plugin_file_of_that_name_that_is_not_ours_is_never_replaced_or_removed(tmp_path: Path):
    home = tmp_path / "home"
    plugin = Path(os.environ["XDG_CONFIG_HOME"]) / "opencode" / "plugins" / "jacked-vault.js"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("// my own jacked-vault experiment\nexport const Mine = async () => ({})\n")
    original = plugin.read_bytes()
    refused = _jacked("memory", "hooks", "install", "--opencode", "--user", "--json", home=home, cwd=tmp_path)
    assert refused.returncode == 1
    [item] = json.loads(refused.stdout)["opencode"]
    assert item["error"]["code"] == "JACKED_MEMORY_CONFIG" and "not jacked-vault's" in item["error"]["message"]
    assert _jacked("memory", "hooks", "uninstall", "--opencode", "--user", home=home, cwd=tmp_path).returncode == 0
    status = _jacked("memory", "hooks", "status", "--opencode", "--user", "--json", home=home, cwd=tmp_path)
    assert json.loads(status.stdout)["opencode"][0]["state"] == "foreign"
    assert plugin.read_bytes() == original


def test_project_install_goes_to_the_repo_root_and_says_it_holds_this_machines_paths(tmp_path: Path):
    repo = tmp_path / "code"
    (repo / "src").mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/code.git")
    done = _jacked("memory", "hooks", "install", "--opencode", "--json", home=tmp_path / "home", cwd=repo / "src")
    [item] = json.loads(done.stdout)["opencode"]
    assert item["path"] == str(repo / ".opencode" / "plugins" / "jacked-vault.js") and Path(item["path"]).is_file()
    assert item["repo_file"]["state"] == "untracked" and "--opencode --user" in item["notice"]
    human = _jacked("memory", "hooks", "status", "--opencode", home=tmp_path / "home", cwd=repo)
    assert human.stdout.startswith("opencode plugin installed: ")


# --- the plugin itself, driven by node ----------------------------------------------------------

STUB = """#!/usr/bin/env python3
import json, sys
record = {"argv": sys.argv[1:], "stdin": json.loads(sys.stdin.read() or "{}")}
with open(%r, "a") as fh:
    fh.write(json.dumps(record) + "\\n")
if sys.argv[2] == "session-start":
    print("## jacked-vault memory for " + record["stdin"]["cwd"])
"""

DRIVER = """
const mod = await import(process.argv[2])
const hooks = await mod.JackedVault({ directory: "/proj" })
const transform = hooks["experimental.chat.system.transform"]
const ev = (type, properties) => hooks.event({ event: { type, properties } })
await ev("session.created", { sessionID: "s1", info: { id: "s1", directory: "/work/api" } })
await ev("session.created", { sessionID: "child", info: { id: "child", parentID: "s1", directory: "/work/api" } })
const main = { system: ["You are opencode."] }
await transform({ sessionID: "s1", model: {} }, main)
await transform({ sessionID: "s1", model: {} }, main)
const title = { system: ["You are a title generator. You output ONLY a thread title."] }
await transform({ sessionID: "s1", model: {} }, title)
const child = { system: ["You are opencode."] }
await transform({ sessionID: "child", model: {} }, child)
const resumed = { system: [] }
await transform({ sessionID: "s2", model: {} }, resumed)
await ev("session.idle", { sessionID: "s1" })
await ev("session.idle", { sessionID: "child" })
await ev("session.status", { sessionID: "s1", status: { type: "busy" } })
await hooks.dispose()
console.log(JSON.stringify({ main, title, child, resumed }))
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed: the plugin is JavaScript")
def test_the_plugin_briefs_main_sessions_in_the_system_prompt_and_queues_them_at_exit(tmp_path: Path):
    record = tmp_path / "calls.jsonl"
    stub = tmp_path / "jacked-stub"
    stub.write_text(STUB % str(record))
    stub.chmod(0o755)
    plugin = tmp_path / "plugin.mjs"  # node wants .mjs for an ES module; OpenCode (Bun) loads the .js as is
    plugin.write_text(opencode.render(tmp_path / "vault", argv=[sys.executable, str(stub)]))
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    proc = subprocess.run([NODE, str(driver), plugin.as_uri()], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    # one system message stays one: the brief is appended to it, once, for the main session only
    assert seen["main"]["system"] == ["You are opencode.\n\n## jacked-vault memory for /work/api"]
    assert seen["title"]["system"] == ["You are a title generator. You output ONLY a thread title."]
    assert seen["child"]["system"] == ["You are opencode."]
    assert seen["resumed"]["system"] == [
        "## jacked-vault memory for /proj"
    ]  # a session opened before this process: its folder
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    hooks = [(c["argv"][1], c["stdin"]["session_id"]) for c in calls]
    assert sorted(hooks) == [("session-end", "s1"), ("session-start", "s1"), ("session-start", "s2")]
    for call in calls:
        assert call["argv"][:1] == ["_hook"] and call["argv"][2:] == [
            "--harness",
            "opencode",
            "--vault",
            str(tmp_path / "vault"),
        ]
    [end] = [c["stdin"] for c in calls if c["argv"][1] == "session-end"]
    assert end == {"session_id": "s1", "cwd": "/work/api", "hook_event_name": "SessionEnd", "reason": "exit"}


# --- reading OpenCode's storage ------------------------------------------------------------------


def test_reader_turns_a_real_opencode_session_into_a_transcript(tmp_path: Path):
    db = _fixture_db(tmp_path / "opencode.db")
    t = read_session(db, SESSION)
    assert t.found and t.problem is None and not t.is_sidechain and t.bad_lines == 0
    assert t.human == [
        '"please write the plan for the retry work"',
        '"now add a test for the plan"',
        '"and document the decision"',
    ]
    assert t.human_count == 3 and t.cwd == "/home/me/Github/proj"
    assert t.files == [("/home/me/Github/proj/notes/plan.md", True)]
    assert [turn.role for turn in t.turns][:3] == ["user", "tool", "assistant"] and t.turns[
        1
    ].text == "Write /home/me/Github/proj/notes/plan.md"
    assert message_count(db, SESSION) == 7

    assert read_session(db, "ses_missing").problem == "missing"
    assert read_session(tmp_path / "nope.db", SESSION).problem == "missing"
    assert read_session(db, "../etc").problem == "missing"
    assert (
        _fixture_db(tmp_path / "sub.db", parent="ses_parent")
        and read_session(tmp_path / "sub.db", SESSION).is_sidechain
    )

    con = sqlite3.connect(db)
    con.execute("UPDATE part SET data = '{not json' WHERE data LIKE '%document the decision%'")
    con.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
        "SELECT 'prt_zzz', message_id, session_id, 0, 0, "
        '\'{"type":"text","text":"Summary of the files read","synthetic":true}\' '
        "FROM part WHERE data LIKE '%now add a test%'"
    )
    con.commit()
    con.close()
    broken = read_session(db, SESSION)
    assert (
        broken.found
        and broken.bad_lines == 1
        and broken.human_count == 2
        and "Summary of the files read" not in broken.human[-1]
    )

    tail = read_session(_fixture_db(tmp_path / "tail.db"), SESSION, max_bytes=200)
    assert tail.tail_only and tail.human_count < 3


def test_reader_reads_the_older_json_storage_too(tmp_path: Path):
    """The rows of the real session written out as OpenCode kept them before its database
    (`storage/session|message|part/…json`, the layout `storage/json-migration.ts` reads)."""
    db = _fixture_db(tmp_path / "source.db")
    con = sqlite3.connect(db)
    storage = tmp_path / "data" / "storage"
    (project, directory) = con.execute("SELECT project_id, directory FROM session").fetchone()
    (storage / "session" / project).mkdir(parents=True)
    (storage / "session" / project / f"{SESSION}.json").write_text(
        json.dumps({"id": SESSION, "directory": directory, "projectID": project})
    )
    for mid, data in con.execute("SELECT id, data FROM message"):
        (storage / "message" / SESSION).mkdir(parents=True, exist_ok=True)
        (storage / "message" / SESSION / f"{mid}.json").write_text(
            json.dumps({"id": mid, "sessionID": SESSION, **json.loads(data)})
        )
    for pid, mid, data in con.execute("SELECT id, message_id, data FROM part"):
        (storage / "part" / mid).mkdir(parents=True, exist_ok=True)
        (storage / "part" / mid / f"{pid}.json").write_text(
            json.dumps({"id": pid, "messageID": mid, "sessionID": SESSION, **json.loads(data)})
        )
    con.close()
    from_db, from_files = read_session(db, SESSION), read_session(tmp_path / "data" / "opencode.db", SESSION)
    assert from_files.found and from_files.human == from_db.human and from_files.files == from_db.files
    assert [(t.role, t.text) for t in from_files.turns] == [(t.role, t.text) for t in from_db.turns]


def test_the_opencode_db_is_where_opencode_puts_it(tmp_path: Path):
    env = {"HOME": "/home/me"}
    assert default_db(env) == Path("/home/me/.local/share/opencode/opencode.db")
    assert default_db({**env, "XDG_DATA_HOME": "/data"}) == Path("/data/opencode/opencode.db")
    assert default_db({**env, "OPENCODE_DB": "other.db"}) == Path("/home/me/.local/share/opencode/other.db")
    assert default_db({**env, "OPENCODE_DB": "/x/y.db"}) == Path("/x/y.db")


def test_session_end_from_opencode_is_queued_as_opencodes_and_captured_from_its_database(tmp_path: Path):
    """What the plugin sends at exit: the capture reads OpenCode's database (not a Claude
    transcript), keyed by the session's message count, through the one pipeline."""
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    repo = tmp_path / "proj"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/proj.git")
    db = _fixture_db(tmp_path / "opencode.db")
    record = tmp_path / "distilled"
    write_machine_config(
        {"distill": {"command": [sys.executable, str(DISTILLER), "null", str(record)], "timeout_s": 20}}
    )
    payload = {"session_id": SESSION, "cwd": str(repo), "hook_event_name": "SessionEnd", "reason": "exit"}
    env = cli_env(vault, OPENCODE_DB=str(db))
    proc = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "session-end", "--harness", "opencode"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout == ""
    day = _wait_for_entry(vault, "proj", "github.com__acme__proj")
    assert "Made the capture queue safe for concurrent drains" in day.read_text()
    prompt = Path(f"{record}.prompt").read_text()
    assert (
        '[user] "and document the decision"' in prompt and "[tool] Write /home/me/Github/proj/notes/plan.md" in prompt
    )
    log = _wait_for_log(
        vault, "session entry groups/proj/"
    )  # the drain logs once it is done (after the entry's commit)
    assert "hook=session-end queued" in log
    ledger = json.loads((state_dir(vault) / "captured.json").read_text())["keys"]
    assert list(ledger) == [f"SessionEnd:{SESSION}:m7"]


def _wait_for_log(vault: Path, text: str, seconds: float = 40.0) -> str:
    path = state_dir(vault) / "log"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        log = path.read_text() if path.exists() else ""
        if text in log:
            return log
        time.sleep(0.3)
    raise AssertionError(f"{text!r} never logged; log:\n{log}")


def _wait_for_entry(vault: Path, group: str, folder: str, seconds: float = 40.0) -> Path:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        days = list((vault / "groups" / group / "episodic" / folder).glob("today-*.md"))
        if days and "\n## " in days[0].read_text():
            return days[0]
        time.sleep(0.3)
    log = (state_dir(vault) / "log").read_text() if (state_dir(vault) / "log").exists() else ""
    raise AssertionError(f"no episodic entry; log:\n{log}")


# --- the real OpenCode ---------------------------------------------------------------------------


@pytest.mark.skipif(
    OPENCODE is None,
    reason="opencode is not installed (npm install -g opencode-ai, or set OPENCODE_BIN): "
    "the real-client run is skipped",
)
def test_real_opencode_loads_the_plugin_briefs_the_model_and_captures_the_session(tmp_path: Path):
    """The real `opencode run`, offline: a local OpenAI-compatible stub is its model. Three runs
    of one session (`run`, then `run -c` twice): each gets the brief in its one system message
    (title generation does not), each exit queues the session, and the third is captured from
    OpenCode's database with the files it wrote."""
    from fakes.openai_stub import serve

    home, vault = tmp_path / "home", tmp_path / "home" / "vault"
    home.mkdir()
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    repo = home / "Github" / "proj"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/proj.git")
    record = tmp_path / "distilled"
    write_machine_config(
        {"distill": {"command": [sys.executable, str(DISTILLER), "null", str(record)], "timeout_s": 20}}
    )
    installed = _jacked(
        "memory", "hooks", "install", "--opencode", "--user", "--vault", str(vault), home=home, cwd=repo
    )
    assert installed.returncode == 0, installed.stderr
    server, url, requests = serve()
    try:
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Stub",
            "options": {"baseURL": url, "apiKey": "none"},
            "models": {"m": {"name": "m"}},
        }
        (repo / "opencode.json").write_text(
            json.dumps({"provider": {"stub": provider}, "model": "stub/m", "small_model": "stub/m"})
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JACKED_", "OPENCODE"))}
        env.update(
            HOME=str(home), PWD=str(repo), OPENCODE_DISABLE_AUTOUPDATE="1"
        )  # OpenCode takes its folder from $PWD
        env.pop("XDG_DATA_HOME", None)
        for args in (
            ["please write the plan for the retry work"],
            ["-c", "now add a test for the plan"],
            ["-c", "and document the decision"],
        ):
            run = subprocess.run(
                [OPENCODE, "run", *args], capture_output=True, text=True, cwd=repo, env=env, timeout=180
            )
            assert run.returncode == 0, run.stdout + run.stderr
    finally:
        server.shutdown()
    day = _wait_for_entry(vault, "proj", "github.com__acme__proj")
    log = (state_dir(vault) / "log").read_text()
    assert log.count("hook=session-start brief") == 3 and log.count("hook=session-end queued") == 3
    assert log.count("session skipped (too-short)") == 2 and "session entry groups/proj/" in log
    assert "Made the capture queue safe for concurrent drains" in day.read_text()
    prompt = Path(f"{record}.prompt").read_text()
    assert "now add a test for the plan" in prompt and "[tool] Write " in prompt and "notes/plan.md" in prompt

    briefed = [
        r
        for r in requests
        if any("## jacked-vault memory for github.com/acme/proj" in json.dumps(m) for m in r["messages"])
    ]
    titles = [r for r in requests if "title generator" in json.dumps(r["messages"][:1])]
    assert len(briefed) >= 3 and titles and not any(r in briefed for r in titles)
    assert all(sum(m["role"] == "system" for m in r["messages"]) == 1 for r in briefed)  # one system message stays one
    assert (repo / "notes" / "plan.md").read_text() == "# Plan\n"
