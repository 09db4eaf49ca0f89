"""Cursor (issue 19.3): jacked's entries in Cursor's hooks.json, checked against the format
Cursor documents (https://cursor.com/docs/hooks; there is no Cursor binary here to run), the
hooks fed the payloads that page documents, and capture reading a Cursor transcript."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from conftest import cli_env, make_repo, run_cli, write_machine_config

from jacked_vault.capture.cursor import read_transcript
from jacked_vault.harnesses.installers import cursor
from tests.helpers.state import state_dir

DISTILLER = Path(__file__).parents[1] / "fakes" / "distiller.py"

# The hooks.json format as https://cursor.com/docs/hooks documents it ("Configuration",
# "Per-Script Configuration Options", "Hook categories"): a version, and per event a list of hook
# definitions with these options only.
EVENTS = [
    "sessionStart",
    "sessionEnd",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "subagentStart",
    "subagentStop",
    "beforeShellExecution",
    "afterShellExecution",
    "beforeMCPExecution",
    "afterMCPExecution",
    "beforeReadFile",
    "afterFileEdit",
    "beforeSubmitPrompt",
    "preCompact",
    "stop",
    "afterAgentResponse",
    "afterAgentThought",
    "beforeTabFileRead",
    "afterTabFileEdit",
    "workspaceOpen",
]
HOOK = {
    "type": "object",
    "required": ["command"],
    "additionalProperties": False,
    "properties": {
        "command": {"type": "string", "minLength": 1},
        "type": {"enum": ["command", "prompt"]},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
        "loop_limit": {"type": ["number", "null"]},
        "failClosed": {"type": "boolean"},
        "matcher": {},
    },
}
SCHEMA = {
    "type": "object",
    "required": ["version", "hooks"],
    "properties": {
        "version": {"const": 1},
        "hooks": {
            "type": "object",
            "propertyNames": {"enum": EVENTS},
            "additionalProperties": {"type": "array", "items": HOOK},
        },
    },
}

THEIRS = b"""{
\t"version": 1,
\t"hooks": {
\t\t"afterFileEdit": [ { "command": "./hooks/format.sh" } ],
\t\t"sessionStart": [{"command": "./session-init.sh", "timeout": 5}]
\t}
}
"""


def _jacked(
    *args: str, home: Path, cwd: Path, vault: Path | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess:
    env = {**cli_env(vault), "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def _backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".jacked-backup-*"))


def test_install_adds_two_documented_entries_and_uninstall_puts_the_persons_bytes_back(tmp_path: Path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    hooks = home / ".cursor" / "hooks.json"
    hooks.parent.mkdir(parents=True)
    hooks.write_bytes(THEIRS)

    first = _jacked(
        "memory", "hooks", "install", "--cursor", "--user", "--vault", str(vault), "--json", home=home, cwd=tmp_path
    )
    assert first.returncode == 0, first.stdout + first.stderr
    [item] = json.loads(first.stdout)["cursor"]
    assert item["action"] == "installed" and item["events"] == ["sessionEnd", "sessionStart"]
    [backup] = _backups(hooks)
    assert backup.read_bytes() == THEIRS and item["backup"] == str(backup)
    doc = json.loads(hooks.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["hooks"]["afterFileEdit"] == [{"command": "./hooks/format.sh"}]
    theirs, ours = doc["hooks"]["sessionStart"]
    assert theirs == {"command": "./session-init.sh", "timeout": 5}
    assert ours == {"command": f"{cursor.hook_command('session-start', vault)}", "timeout": 15}
    assert (
        ours["command"].endswith(f"_hook session-start --harness cursor --vault {vault}") and "#" not in ours["command"]
    )
    assert doc["hooks"]["sessionEnd"] == [{"command": cursor.hook_command("session-end", vault), "timeout": 10}]
    assert hooks.read_text().splitlines()[1].startswith("\t")  # the file's own indentation

    installed = hooks.read_bytes()
    again = _jacked(
        "memory", "hooks", "install", "--cursor", "--user", "--vault", str(vault), "--json", home=home, cwd=tmp_path
    )
    assert (
        json.loads(again.stdout)["cursor"][0]["action"] == "unchanged"
        and hooks.read_bytes() == installed
        and len(_backups(hooks)) == 1
    )
    status = _jacked("memory", "hooks", "status", "--cursor", "--user", "--json", home=home, cwd=tmp_path)
    assert json.loads(status.stdout)["cursor"][0] | {"path": None} == {
        "harness": "cursor",
        "path": None,
        "exists": True,
        "installed": ["sessionEnd", "sessionStart"],
        "complete": True,
    }

    gone = _jacked("memory", "hooks", "uninstall", "--cursor", "--user", "--json", home=home, cwd=tmp_path)
    assert json.loads(gone.stdout)["cursor"][0]["action"] == "restored"
    assert hooks.read_bytes() == THEIRS and _backups(hooks) == []
    again = _jacked("memory", "hooks", "uninstall", "--cursor", "--user", "--json", home=home, cwd=tmp_path)
    assert json.loads(again.stdout)["cursor"][0]["action"] == "unchanged" and hooks.read_bytes() == THEIRS


def test_a_file_jacked_created_goes_away_and_later_edits_of_the_person_are_kept(tmp_path: Path):
    path = tmp_path / "proj" / ".cursor" / "hooks.json"
    made = cursor.install(path, vault=tmp_path / "vault")
    assert made.changed and made.backup is None
    jsonschema.validate(json.loads(path.read_text()), SCHEMA)
    removed = cursor.uninstall(path)
    assert removed.deleted and not path.parent.exists() and _backups(path) == []  # and the folder it made

    path.parent.mkdir(parents=True)
    path.write_bytes(THEIRS)
    cursor.install(path, vault=tmp_path / "vault")
    cursor.install(path, vault=tmp_path / "other-vault")  # another vault: replaced, not added
    doc = json.loads(path.read_text())
    assert [e["command"].endswith("other-vault") for e in doc["hooks"]["sessionStart"] if cursor.is_ours(e)] == [True]
    doc["hooks"]["stop"] = [{"command": "./audit.sh", "loop_limit": 10}]  # the person edits the file meanwhile
    path.write_text(json.dumps(doc, indent=2))
    cursor.uninstall(path)
    left = json.loads(path.read_text())
    assert left == {
        **json.loads(THEIRS),
        "hooks": {**json.loads(THEIRS)["hooks"], "stop": [{"command": "./audit.sh", "loop_limit": 10}]},
    }
    assert not cursor.installed_events(left)


@pytest.mark.parametrize(
    "content", [b"{not json", b'{"version": 1, "hooks": []}', b'{"hooks": {"sessionStart": {"command": "x"}}}', b"[1]"]
)
def test_a_file_cursor_would_not_read_as_we_do_is_refused_and_left_alone(tmp_path: Path, content: bytes):
    home = tmp_path / "home"
    hooks = home / ".cursor" / "hooks.json"
    hooks.parent.mkdir(parents=True)
    hooks.write_bytes(content)
    refused = _jacked("memory", "hooks", "install", "--cursor", "--user", "--json", home=home, cwd=tmp_path)
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["cursor"][0]["error"]["code"] == "JACKED_MEMORY_CONFIG"
    assert hooks.read_bytes() == content and _backups(hooks) == []


def test_only_jacked_cursor_commands_are_ours():
    assert cursor.is_ours({"command": "/opt/v/bin/jacked _hook session-end --harness cursor --vault '/my vault'"})
    assert cursor.is_ours({"command": cursor.hook_command("session-start", Path("/a b/vault"))})
    assert not cursor.is_ours({"command": "/opt/v/bin/jacked _hook session-end # jacked-vault"})  # Claude's
    assert not cursor.is_ours({"command": "./hooks/audit.sh _hook session-start"})
    assert not cursor.is_ours({"command": "jacked _hook drain --harness cursor"})
    assert not cursor.is_ours({"type": "prompt", "prompt": "_hook session-start --harness cursor"})


def test_project_install_goes_to_the_repo_root(tmp_path: Path):
    repo = tmp_path / "code"
    (repo / "src").mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/code.git")
    done = _jacked("memory", "hooks", "install", "--cursor", "--json", home=tmp_path / "home", cwd=repo / "src")
    [item] = json.loads(done.stdout)["cursor"]
    assert item["path"] == str(repo / ".cursor" / "hooks.json") and "--cursor --user" in item["notice"]


# --- the hooks, fed the payloads Cursor's docs describe ------------------------------------------


@pytest.fixture
def project(tmp_path: Path):
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    repo = tmp_path / "web"
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/web.git")
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    return vault, repo, home


def _common(repo: Path, event: str, transcript: Path | None = None) -> dict:
    """The fields every Cursor hook gets ("Common schema")."""
    return {
        "conversation_id": "c0ffee00-1111-2222-3333-444455556666",
        "generation_id": "gen-1",
        "model": "claude-4.5-sonnet",
        "hook_event_name": event,
        "cursor_version": "2.1.0",
        "workspace_roots": [str(repo)],
        "user_email": None,
        "transcript_path": str(transcript) if transcript else None,
    }


def test_session_start_answers_the_brief_as_additional_context(project):
    vault, repo, home = project
    run_cli(
        "memory",
        "add",
        "--title",
        "Cursor reads this",
        "--body",
        "Only for cursor.",
        "--target",
        "cursor",
        vault=vault,
        cwd=repo,
    )
    run_cli(
        "memory",
        "add",
        "--title",
        "Claude reads this",
        "--body",
        "Only for claude.",
        "--target",
        "claude",
        vault=vault,
        cwd=repo,
    )
    payload = {
        **_common(repo, "sessionStart"),
        "session_id": "c0ffee00-1111-2222-3333-444455556666",
        "is_background_agent": False,
        "composer_mode": "agent",
    }
    # a user hook runs in ~/.cursor/: the repo comes from workspace_roots, not the working folder
    proc = _jacked(
        "_hook",
        "session-start",
        "--harness",
        "cursor",
        home=home,
        cwd=home / ".cursor",
        vault=vault,
        stdin=json.dumps(payload),
    )
    assert proc.returncode == 0
    answer = json.loads(proc.stdout)
    assert list(answer) == ["additional_context"]
    assert answer["additional_context"].startswith("## jacked-vault memory for github.com/acme/web (group web;")
    assert (
        "Cursor reads this" in answer["additional_context"] and "Claude reads this" not in answer["additional_context"]
    )


def _wait_for_log(vault: Path, text: str, seconds: float = 40.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        log = (state_dir(vault) / "log").read_text() if (state_dir(vault) / "log").exists() else ""
        if text in log:
            return log
        time.sleep(0.3)
    raise AssertionError(f"{text!r} not in the log:\n{log}")


TRANSCRIPT = [
    {
        "role": "user",
        "message": {
            "content": [
                {
                    "type": "text",
                    "text": "<attached_files>\nsrc/app.ts\n</attached_files>\n"
                    "<user_query>\nmake the fetch client retry\n</user_query>",
                }
            ]
        },
    },
    {
        "role": "assistant",
        "message": {
            "content": [
                {"type": "text", "text": "I will add a retry wrapper."},
                {"type": "tool_use", "name": "Write", "input": {"path": "/w/src/retry.ts", "contents": "x"}},
            ]
        },
    },
    {
        "role": "user",
        "message": {"content": [{"type": "text", "text": "<user_query>\nthree attempts, with backoff\n</user_query>"}]},
    },
    {
        "role": "assistant",
        "message": {
            "content": [
                {"type": "tool_use", "name": "StrReplace", "input": {"path": "/w/src/app.ts"}},
                {"type": "text", "text": "Done."},
            ]
        },
    },
    {
        "role": "user",
        "message": {"content": [{"type": "text", "text": "<user_query>\nnow write the test\n</user_query>"}]},
    },
    {"role": "assistant", "message": {"content": "Added tests."}},
]


def test_session_end_queues_the_transcript_and_it_is_captured_as_cursors(project, tmp_path: Path):
    vault, repo, home = project
    transcript = tmp_path / "agent-transcripts" / "c0ffee00.jsonl"
    transcript.parent.mkdir()
    transcript.write_text("".join(json.dumps(line) + "\n" for line in TRANSCRIPT))
    record = tmp_path / "distilled"
    write_machine_config(
        {"distill": {"command": [sys.executable, str(DISTILLER), "null", str(record)], "timeout_s": 20}}
    )
    payload = {
        **_common(repo, "sessionEnd", transcript),
        "session_id": "c0ffee00-1111-2222-3333-444455556666",
        "reason": "user_close",
        "duration_ms": 45000,
        "is_background_agent": False,
        "final_status": "completed",
    }
    proc = _jacked(
        "_hook",
        "session-end",
        "--harness",
        "cursor",
        home=home,
        cwd=home / ".cursor",
        vault=vault,
        stdin=json.dumps(payload),
    )
    assert proc.returncode == 0 and proc.stdout == ""
    log = _wait_for_log(vault, "session entry groups/web/")
    assert "hook=session-end queued" in log
    [day] = (vault / "groups" / "web" / "episodic" / "github.com__acme__web").glob("today-*.md")
    assert "Made the capture queue safe" in day.read_text()
    prompt = Path(f"{record}.prompt").read_text()
    assert (
        "[user] make the fetch client retry" in prompt
        and "<user_query>" not in prompt
        and "attached_files" not in prompt
    )
    assert "[tool] Write /w/src/retry.ts" in prompt and "[tool] Edit /w/src/app.ts" in prompt


def test_a_background_agents_session_is_not_captured(project, tmp_path: Path):
    vault, repo, home = project
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in TRANSCRIPT))
    payload = {
        **_common(repo, "sessionEnd", transcript),
        "session_id": "bg",
        "reason": "completed",
        "is_background_agent": True,
    }
    assert (
        _jacked(
            "_hook",
            "session-end",
            "--harness",
            "cursor",
            home=home,
            cwd=home / ".cursor",
            vault=vault,
            stdin=json.dumps(payload),
        ).returncode
        == 0
    )
    log = _wait_for_log(vault, "session skipped (subagent)")
    assert "session entry" not in log


def test_a_session_end_without_a_transcript_path_finds_the_conversations_transcript(tmp_path: Path, monkeypatch):
    """Cursor's CLI was seen to send `transcript_path: null`: the transcript is looked up by
    conversation id where Cursor writes them (the newest of `<id>.jsonl`, `<id>/<id>.jsonl`, `<id>.txt`)."""
    from jacked_vault.harnesses.cursor import HARNESS

    adapt = HARNESS.adapt

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CURSOR_TRANSCRIPT_PATH", raising=False)
    folder = tmp_path / ".cursor" / "projects" / "home-me-web" / "agent-transcripts"
    (folder / "c0ffee").mkdir(parents=True)
    older, newer = folder / "c0ffee.txt", folder / "c0ffee" / "c0ffee.jsonl"
    older.write_text("user:\nhi\n")
    newer.write_text(json.dumps(TRANSCRIPT[0]) + "\n")
    os.utime(older, (1, 1))
    payload = {
        "hook_event_name": "sessionEnd",
        "conversation_id": "c0ffee",
        "workspace_roots": ["/w"],
        "transcript_path": None,
    }
    assert adapt(payload)["transcript_path"] == str(newer)
    assert adapt({**payload, "conversation_id": "../c0ffee"})["transcript_path"] is None
    assert adapt({**payload, "conversation_id": "elsewhere"})["transcript_path"] is None
    assert adapt({**payload, "transcript_path": "/given.jsonl"})["transcript_path"] == "/given.jsonl"


# --- the transcript reader --------------------------------------------------------------------------


def test_reader_reads_both_transcript_forms(tmp_path: Path):
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in TRANSCRIPT) + "{cut off mid-line\n")
    t = read_transcript(jsonl)
    assert t.found and t.human == ["make the fetch client retry", "three attempts, with backoff", "now write the test"]
    assert t.files == [("/w/src/retry.ts", True), ("/w/src/app.ts", True)] and t.bad_lines == 1

    text = tmp_path / "t.txt"
    text.write_text(
        "user:\n<user_query>\nAdd retries to the fetch client\n</user_query>\n\n"
        "assistant:\n[Thinking] where is the client\nI'll add retries.\n"
        "[Tool call] Write\n  path: /w/src/fetch.ts\n  contents: x\n\n"
        "[Tool result] Write\nwrote 1 file\n\nDone.\n\nuser:\n<user_query>\nthanks\n</user_query>\n"
    )
    t = read_transcript(text)
    assert t.human == ["Add retries to the fetch client", "thanks"]
    assert [(turn.role, turn.text) for turn in t.turns][:4] == [
        ("user", "Add retries to the fetch client"),
        ("assistant", "I'll add retries."),
        ("tool", "Write /w/src/fetch.ts"),
        ("assistant", "Done."),
    ]
    assert read_transcript(tmp_path / "missing.jsonl").problem == "missing"
    assert not read_transcript(os.devnull).found
