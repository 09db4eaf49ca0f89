"""Codex (issue 19): its hooks in $CODEX_HOME/config.toml (installed, trusted, removed byte for byte),
the SessionStart brief as Codex's added context, and capture from Codex's rollout JSONL through the
one pipeline (skips, guard, queue, distiller).

tests/fixtures/codex/rollout-0.171.0.jsonl and rollout-0.130.0.jsonl are real rollouts, unedited:
written by codex-cli 0.171.0 and 0.130.0 (`codex exec` and three `codex exec resume --last`)
against tests/fakes/codex_model.py, in a repo on branch `feature/queue`, with jacked's hooks
installed by `hooks install --codex`. The last test runs the real `codex` when it is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, git, make_repo, run_cli
from helpers import capture as capture_world
from helpers.capture import INJECTION, SENTENCE, TOKEN, Env
from helpers.codex_model import codex_offline

from jacked_vault.capture import codex as rollout
from jacked_vault.capture.queue import drain, enqueue
from jacked_vault.capture.session import capture_session, retry
from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.harnesses.codex import HARNESS as CODEX
from jacked_vault.harnesses.installers import codex
from tests.helpers.state import state_dir

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "codex"
env = capture_world.env  # the fixture: a vault, a code repo, no real `claude` on PATH
REAL = {  # fixture -> (session id, the person's messages, the file apply_patch wrote)
    "rollout-0.171.0.jsonl": (
        "01a23400-afb7-7380-9b6b-e0b356b7495d",
        [
            "Make the capture queue safe for concurrent drains",
            "PATCH: write the design notes",
            "SHELL: run the tests",
            "Thanks, that is all for today",
        ],
        "/tmp/cxfix/api/notes-2.md",
    ),
    "rollout-0.130.0.jsonl": (
        "01a23400-eeb5-7e62-a302-974479fe7978",
        ["Make the capture queue safe for concurrent drains", "PATCH: write the design notes", "SHELL: run the tests"],
        "/tmp/cxfix130/api/notes-2.md",
    ),
}
USER_CONFIG = """# my Codex settings: every byte of this file must survive
model = "gpt-5.5"   # the one I like
approval_policy = "on-request"

[profiles.fast]
model = "gpt-5.5-mini"

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "notify-send done"   # my own hook
"""
OLD = 20 * 60  # seconds: older than codex.SETTLE_S


# --- config.toml: install, trust, uninstall ----------------------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "codex-home"
    folder.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(folder))
    monkeypatch.setenv("PATH", f"{tmp_path / 'no-bin'}{os.pathsep}/usr/bin{os.pathsep}/bin")  # no codex on PATH here
    return folder


@pytest.mark.parametrize(
    "original",
    [
        None,
        "",
        USER_CONFIG,
        USER_CONFIG.rstrip("\n"),  # no newline at the end
        USER_CONFIG + "\n\n",
        USER_CONFIG.replace("\n", "\r\n"),
        "# only a comment, no newline",
    ],
    ids=["missing", "empty", "comments", "no-final-newline", "trailing-blank-lines", "crlf", "comment-only"],
)
def test_install_then_uninstall_gives_back_the_same_bytes(home: Path, original: str | None):
    path = home / "config.toml"
    if original is not None:
        path.write_bytes(original.encode())
    first = codex.install(vault=home.parent / "vault")
    assert first.changed and first.installed == ["SessionStart", "Stop"]
    text = path.read_text()
    assert path.read_bytes().startswith((original or "").encode())  # appended: nothing before it moves
    if original is not None:
        assert Path(first.backup).read_bytes() == original.encode()
    assert codex.status()["complete"] is True
    again = codex.install(vault=home.parent / "vault")
    assert not again.changed and again.backup is None and path.read_text() == text
    assert len(list(home.glob("config.toml.jacked-backup-*"))) == (1 if original is not None else 0)
    gone = codex.uninstall()
    assert gone.changed and not list(home.glob("config.toml.jacked-backup-*"))
    if original is None:
        assert gone.deleted and not path.exists()  # install created it and it held nothing else (33.10)
    else:
        assert gone.restored and path.read_bytes() == original.encode()
    assert not codex.uninstall().changed


def test_the_block_holds_both_hooks_and_their_trust(home: Path):
    path = home / "config.toml"
    path.write_text(USER_CONFIG)
    codex.install(vault=home.parent / "my vault")
    import tomllib

    doc = tomllib.loads(path.read_text())
    start = doc["hooks"]["SessionStart"][0]["hooks"][0]
    stop = doc["hooks"]["Stop"][1]["hooks"][0]  # after the person's own Stop hook
    assert doc["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"
    assert start["command"].endswith(
        f"_hook session-start --harness codex --vault '{home.parent / 'my vault'}' {codex.MARKER}"
    )
    assert stop["command"].endswith(
        f"_hook session-end --harness codex --vault '{home.parent / 'my vault'}' {codex.MARKER}"
    )
    assert (start["timeout"], stop["timeout"]) == (15, 10)
    state = doc["hooks"]["state"]
    assert state == {
        f"{path}:session_start:0:0": {"trusted_hash": codex.trust_hash("session_start", start["command"], 15)},
        f"{path}:stop:1:0": {"trusted_hash": codex.trust_hash("stop", stop["command"], 10)},
    }
    assert doc["model"] == "gpt-5.5" and doc["profiles"] == {"fast": {"model": "gpt-5.5-mini"}}


def test_trust_hash_is_the_one_codex_computes():
    """Values read from the real codex-cli 0.171.0 (`codex app-server`, `hooks/list` → currentHash)
    for hooks it found in a config.toml; the same config with these hashes under [hooks.state] made
    0.124, 0.128, 0.130, 0.145, 0.160 and 0.171 run the hooks without --dangerously-bypass-hook-trust."""
    assert (
        codex.trust_hash("session_start", "/tmp/cxhook.sh start", 600)
        == "sha256:e7816c9322c7851e7a21068dd4cbe50add5f08f2576186b247d90d475b88b9cf"
    )
    assert (
        codex.trust_hash("stop", "/tmp/cxhook2.sh stop", 600)
        == "sha256:5c02975d2d047d40a38897e8a7f64a8bdb797d79029318aa0e1475159fa587ce"
    )


def test_reinstall_replaces_the_block_in_place_and_keeps_what_follows(home: Path):
    path = home / "config.toml"
    path.write_text(USER_CONFIG)
    codex.install(vault=home.parent / "one")
    with path.open("a") as handle:
        handle.write("\n[tui]\nnotifications = true  # added after install\n")
    change = codex.install(vault=home.parent / "two")
    assert change.changed
    text = path.read_text()
    assert "--vault " + str(home.parent / "two") in text and str(home.parent / "one") not in text
    assert text.endswith("[tui]\nnotifications = true  # added after install\n")
    codex.uninstall()
    assert path.read_text() == USER_CONFIG + "\n[tui]\nnotifications = true  # added after install\n"


def test_a_group_added_before_ours_makes_the_trust_stale_until_reinstalled(home: Path):
    path = home / "config.toml"
    codex.install()
    text = path.read_text()
    path.write_text(
        '[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = "command"\ncommand = "echo mine"\n\n' + text
    )
    status = codex.status()
    assert status["installed"] == ["SessionStart", "Stop"] and status["trusted"] == ["Stop"] and not status["complete"]
    assert codex.install().changed
    assert codex.status()["complete"] is True


@pytest.mark.parametrize(
    "content",
    [
        "model = [unclosed\n",
        "hooks = { Stop = [] }\n",  # an inline table: nothing can be added to it without rewriting it
        '[hooks]\nSessionStart = [{ hooks = [{ type = "command", command = "x" }] }]\n',
        "\xff\xfe".encode("latin-1").decode("latin-1"),
    ],
    ids=["invalid", "inline-table", "inline-array", "not-utf8"],
)
def test_what_cannot_be_edited_exactly_is_refused_untouched(home: Path, content: str):
    path = home / "config.toml"
    path.write_bytes(content.encode("latin-1") if content.startswith("\xff") else content.encode())
    before = path.read_bytes()
    with pytest.raises(VaultError) as err:
        codex.install()
    assert err.value.code == "CONFIG"
    assert path.read_bytes() == before and sorted(p.name for p in home.iterdir()) == ["config.toml"]


def test_marker_lines_edited_by_hand_are_refused(home: Path):
    path = home / "config.toml"
    codex.install()
    path.write_text(path.read_text().replace(codex.END, "# the end"))
    before = path.read_bytes()
    for action in (codex.install, codex.uninstall):
        with pytest.raises(VaultError):
            action()
        assert path.read_bytes() == before


def test_a_trust_record_codex_wrote_outside_the_block_is_left_to_it(home: Path):
    """Codex's own /hooks review writes [hooks.state."…"]; a duplicate table would break the file."""
    path = home / "config.toml"
    key = f"{path}:stop:0:0"
    path.write_text(f'[hooks.state."{key}"]\nenabled = true\n')
    codex.install()
    import tomllib

    doc = tomllib.loads(path.read_text())
    assert doc["hooks"]["state"][key] == {"enabled": True}
    assert f"{path}:session_start:0:0" in doc["hooks"]["state"]
    codex.uninstall()
    assert path.read_text() == f'[hooks.state."{key}"]\nenabled = true\n'


def test_hooks_turned_off_are_reported_not_overridden(home: Path):
    path = home / "config.toml"
    path.write_text("[features]\nhooks = false\n")
    change = codex.install()
    assert any("[features] hooks = false" in w for w in change.warnings)
    assert "[features]\nhooks = false\n" in path.read_text()


def test_codex_home_is_resolved_like_codex_does(tmp_path: Path):
    real = tmp_path / "real-home"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert (
        codex.default_config_path({"CODEX_HOME": str(tmp_path / "link")}) == real / "config.toml"
    )  # Codex canonicalises $CODEX_HOME
    assert codex.default_config_path({"HOME": "/h"}).name == "config.toml"


def test_cli_install_status_uninstall(home: Path, tmp_path: Path):
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    (home / "config.toml").write_text(USER_CONFIG)
    env = {"CODEX_HOME": str(home)}
    out = run_cli("memory", "hooks", "install", "--codex", "--user", "--json", vault=vault, **env)
    assert out.code == 0, out.err
    [item] = out.json["codex"]
    assert item["action"] == "installed" and item["events"] == ["SessionStart", "Stop"] and item["backup"]
    status = run_cli("memory", "hooks", "status", "--codex", "--json", vault=vault, **env).json["codex"][0]
    assert status["complete"] and status["trusted"] == ["SessionStart", "Stop"]
    assert "codex hooks in" in run_cli("memory", "hooks", "status", vault=vault, **env).out
    removed = run_cli("memory", "hooks", "uninstall", "--codex", vault=vault, **env)
    assert removed.code == 0 and "codex hooks restored" in removed.out and "as it was before install" in removed.out
    assert (home / "config.toml").read_text() == USER_CONFIG


def test_the_hooks_and_the_mcp_entry_share_the_file(home: Path, tmp_path: Path):
    """`--mcp codex` and `--codex` both edit config.toml: in either order each removes only its own."""
    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    path = home / "config.toml"
    env = {"CODEX_HOME": str(home)}
    for first, second in ((["--mcp", "codex"], ["--codex"]), (["--codex"], ["--mcp", "codex"])):
        path.write_text(USER_CONFIG)
        for option in (first, second):
            assert run_cli("memory", "hooks", "install", *option, vault=vault, **env).code == 0
        import tomllib

        doc = tomllib.loads(path.read_text())
        assert "jacked-memory" in doc["mcp_servers"] and codex.status()["complete"]
        for option in (first, second):
            assert run_cli("memory", "hooks", "uninstall", *option, vault=vault, **env).code == 0
        assert path.read_text() == USER_CONFIG


# --- the hooks as Codex runs them ----------------------------------------------------------------


def _hook(args: list[str], vault: Path, payload: dict, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", *args, "--harness", "codex", "--vault", str(vault)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=cwd,
        env=cli_env(vault, **env),
        timeout=60,
    )


def test_session_start_answers_with_codex_added_context(env: Env):
    payload = {
        "session_id": "s",
        "transcript_path": None,
        "cwd": str(env.repo),
        "hook_event_name": "SessionStart",
        "model": "gpt-5.5",
        "permission_mode": "default",
        "source": "startup",
    }
    proc = _hook(["session-start"], env.vault, payload, env.repo)
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert list(out) == ["hookSpecificOutput"] and out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert out["hookSpecificOutput"]["additionalContext"].startswith("## jacked-vault memory for github.com/acme/api")


def _wait_for_drains(vault: Path, count: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log = (state_dir(vault) / "log").read_text() if (state_dir(vault) / "log").exists() else ""
        if log.count("hook=drain") >= count:
            return
        time.sleep(0.1)
    raise AssertionError(log)


def test_stop_queues_one_capture_per_session_taken_once_the_session_is_quiet(env: Env, tmp_path: Path):
    """Codex's Stop ends every turn: each queues (one marker per session, its rollout found by
    session id when Codex names none), the drain waits until the rollout is quiet, then one entry."""
    env.distiller(None)
    session, _, _ = REAL["rollout-0.171.0.jsonl"]
    codex_home = tmp_path / "codex-home"
    day = codex_home / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-12-01T23-46-29-{session}.jsonl"
    shutil.copy(FIXTURES / "rollout-0.171.0.jsonl", path)
    payload = {
        "session_id": session,
        "turn_id": "t",
        "transcript_path": None,
        "cwd": str(env.repo),
        "hook_event_name": "Stop",
        "model": "gpt-5.5",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": "Answer 6.",
    }
    for turn in range(2):
        proc = _hook(["session-end"], env.vault, payload, env.repo, CODEX_HOME=str(codex_home))
        assert (proc.returncode, proc.stdout) == (0, b"")  # Stop wants JSON or nothing on stdout
        _wait_for_drains(env.vault, turn + 1)
    (marker,) = env.markers()
    data = json.loads(marker.read_text())
    assert data["key"] == f"codex:Stop:{session}"
    assert data["payload"]["jacked_harness"] == "codex" and data["payload"]["transcript_path"] == str(path)
    assert env.entries() == []  # the session is still going: nothing captured yet
    os.utime(path, (time.time() - OLD, time.time() - OLD))
    proc = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "drain", "--vault", str(env.vault)],
        capture_output=True,
        env=cli_env(env.vault),
        timeout=60,
    )
    assert proc.returncode == 0
    assert [s for _, s in env.entries()] == ["Worked on feature/queue: edited notes-2.md (4 requests)"]
    assert env.markers() == []
    captured = [
        m
        for m in git(env.vault, "log", "-3", "--format=%B%x00").split("\0")
        if "memory(episodic)" in m or "Memory-Origin: session-end" in m
    ]
    assert any("Memory-Harness: codex" in m for m in captured), (
        captured
    )  # the capture's commit (a rollup may follow it)


# --- capture from a rollout ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_rollouts_are_read(name: str):
    session, humans, patched = REAL[name]
    t = rollout.read_rollout(FIXTURES / name)
    assert t.found and t.bad_lines == 0 and not t.tail_only and not t.is_sidechain
    assert t.human == humans and t.human_count == len(humans)  # not the environment, not the brief
    assert t.branch == "feature/queue" and t.cwd == str(Path(patched).parent) and t.last_uuid == session
    assert t.files == [(patched, True)]
    assert [turn.role for turn in t.turns][:4] == ["user", "assistant", "user", "tool"]
    assert t.turns[3].text == f"apply_patch {patched}"
    assert any(turn.text == "exec_command" for turn in t.turns)
    assert not any("jacked-vault memory" in turn.text or "environment_context" in turn.text for turn in t.turns)


class Rollout:
    """Codex 0.171 rollout lines, shaped as the real ones in tests/fixtures/codex/."""

    def __init__(
        self, cwd: Path, session: str = "01a23400-0000-7000-8000-000000000001", source: object = "cli"
    ) -> None:
        meta = {
            "session_id": session,
            "id": session,
            "timestamp": "2026-12-01T10:00:00.000Z",
            "cwd": str(cwd),
            "originator": "codex_cli_rs",
            "cli_version": "0.171.0",
            "source": source,
            "thread_source": "user",
            "model_provider": "openai",
            "base_instructions": {"text": "You are Codex."},
            "git": {"commit_hash": "0" * 40, "branch": "feature/queue"},
        }
        self.cwd = cwd
        self.lines = [{"timestamp": "2026-12-01T10:00:00.000Z", "ordinal": 0, "type": "session_meta", "payload": meta}]
        self.item(
            "message",
            role="user",
            content=[
                {"type": "input_text", "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"}
            ],
            internal_chat_message_metadata_passthrough={"content_item_kinds": ["environments.environment_context"]},
        )

    def item(self, kind: str, **payload) -> Rollout:
        self.lines.append(
            {
                "timestamp": "2026-12-01T10:00:01.000Z",
                "ordinal": len(self.lines),
                "type": "response_item",
                "payload": {"type": kind, **payload},
            }
        )
        return self

    def human(self, text: str) -> Rollout:
        return self.item(
            "message",
            role="user",
            content=[{"type": "input_text", "text": text}],
            internal_chat_message_metadata_passthrough={"content_item_kinds": ["user.text"]},
        )

    def answer(self, text: str) -> Rollout:
        return self.item("message", role="assistant", content=[{"type": "output_text", "text": text}])

    def patch(self, path: str) -> Rollout:
        return self.item(
            "custom_tool_call",
            call_id="c",
            name="apply_patch",
            input=f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n",
        )

    def session(self, humans: list[str]) -> Rollout:
        for i, text in enumerate(humans):
            self.human(text).patch("src/queue.py").answer(f"Step {i} done.")
        return self

    def write(self, path: Path, *, age: float = OLD) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in self.lines))
        os.utime(path, (time.time() - age, time.time() - age))
        return path


PROMPTS = [
    "Make the capture queue safe for concurrent drains",
    "Use flock on the marker itself",
    "Add tests for two drains at once",
    "Run the whole suite",
]


def _ctx(env: Env) -> Context:
    return Context.create(vault=str(env.vault), cwd=env.repo, harness="codex")


def _payload(env: Env, path: Path, session: str = "01a23400-0000-7000-8000-000000000001") -> dict:
    return {
        "session_id": session,
        "transcript_path": str(path),
        "cwd": str(env.repo),
        "hook_event_name": "Stop",
        "jacked_harness": "codex",
    }


def test_a_codex_session_is_distilled_like_claude_s(env: Env):
    env.distiller("note")
    path = Rollout(env.repo).session(PROMPTS).write(env.tmp / "r.jsonl")
    result = capture_session(_ctx(env), _payload(env, path), reader=CODEX)
    assert result.skipped is None and result.fallback is None
    assert [s for _, s in env.entries()] == [SENTENCE]
    (note,) = env.notes()
    assert 'source_harness: "codex"' in note.read_text() and 'status: "candidate"' in note.read_text()
    assert capture_session(_ctx(env), _payload(env, path), reader=CODEX).skipped == "already-captured"
    # The session resumed later (the rollout grew) is a new capture.
    Rollout(env.repo).session([*PROMPTS, "One more thing"]).write(path)
    env.distiller(None)
    again = capture_session(_ctx(env), _payload(env, path), reader=CODEX)
    assert again.skipped is None and len(env.entries()) == 2


def test_entry_time_is_when_the_session_went_quiet(env: Env):
    env.distiller(None)
    path = Rollout(env.repo).session(PROMPTS).write(env.tmp / "r.jsonl")
    quiet = time.time() - 3 * 3600
    os.utime(path, (quiet, quiet))
    capture_session(_ctx(env), _payload(env, path), reader=CODEX)
    from datetime import datetime

    assert env.entries()[0][0] == f"## {datetime.fromtimestamp(quiet).astimezone():%H:%M} | feature/queue"


def test_an_active_session_waits_in_the_queue(env: Env):
    env.distiller(None)
    path = Rollout(env.repo).session(PROMPTS).write(env.tmp / "r.jsonl", age=0)
    payload = _payload(env, path)
    assert capture_session(_ctx(env), payload, reader=CODEX).skipped == "session-active"
    enqueue(env.cache, payload, key=rollout.queue_key(payload))
    handlers = {
        "session": retry(
            lambda p: Context.create(vault=str(env.vault), cwd=p.get("cwd"), harness="codex"), lambda p: CODEX
        )
    }
    report = drain(handlers, env.cache)
    assert (report.busy, report.done, report.pending) == (1, 0, 1)
    (marker,) = env.markers()
    assert json.loads(marker.read_text())["tries"] == 0  # waiting is not a failed try
    os.utime(path, (time.time() - OLD, time.time() - OLD))
    assert drain(handlers, env.cache).done == 1 and len(env.entries()) == 1 and env.markers() == []


def test_injected_instruction_in_a_codex_session_never_becomes_a_note(env: Env):
    path = Rollout(env.repo).session([*PROMPTS[:3], INJECTION]).write(env.tmp / "r.jsonl")
    env.distiller("obey")
    result = capture_session(_ctx(env), _payload(env, path), reader=CODEX)
    assert result.note_refused == "PARROT" and env.notes() == [] and len(env.entries()) == 1


def test_the_fallback_never_copies_a_secret_or_what_was_typed(env: Env):
    env.distiller(None)
    path = Rollout(env.repo).session([*PROMPTS[:3], f"deploy with GITHUB_TOKEN={TOKEN}"]).write(env.tmp / "r.jsonl")
    capture_session(_ctx(env), _payload(env, path), reader=CODEX)
    assert [s for _, s in env.entries()] == ["Worked on feature/queue: edited src/queue.py (4 requests)"]
    assert TOKEN not in "".join(
        p.read_text(errors="replace") for p in env.vault.rglob("*") if p.is_file() and ".git" not in p.parts
    )


@pytest.mark.parametrize(
    "source, humans, skipped",
    [
        ({"subagent": "review"}, PROMPTS, "subagent"),
        ({"subagent": {"thread_spawn": {"parent_thread_id": "p", "depth": 1}}}, PROMPTS, "subagent"),
        ("cli", PROMPTS[:2], "too-short"),
    ],
    ids=["review-subagent", "spawned-subagent", "two-messages"],
)
def test_subagent_and_short_sessions_are_skipped(env: Env, source, humans, skipped):
    env.distiller("note")
    path = Rollout(env.repo, source=source).session(humans).write(env.tmp / "r.jsonl")
    assert capture_session(_ctx(env), _payload(env, path), reader=CODEX).skipped == skipped
    assert env.entries() == [] and env.notes() == []


def test_a_long_rollout_reads_its_tail_and_still_knows_its_first_line(tmp_path: Path):
    built = Rollout(tmp_path, source={"subagent": "review"}).session(PROMPTS * 50)
    path = built.write(tmp_path / "big.jsonl")
    t = rollout.read_rollout(path, max_bytes=4096)
    assert t.tail_only and t.branch == "feature/queue" and t.is_sidechain
    assert 0 < t.human_count < 200


def test_garbage_lines_are_counted_and_skipped(tmp_path: Path):
    path = Rollout(tmp_path).session(PROMPTS).write(tmp_path / "r.jsonl")
    with path.open("ab") as handle:
        handle.write(
            b"{not json\n\xff\xfe\n[1,2]\n"
            + json.dumps(
                {"type": "response_item", "payload": {"type": "message", "role": "user", "content": 7}}
            ).encode()
            + b'\n{"type": "event_msg", "payload"'
        )
    t = rollout.read_rollout(path)
    assert t.human_count == 4 and t.bad_lines == 4


def test_a_rollout_is_found_by_session_id_when_codex_names_none(tmp_path: Path):
    home = tmp_path / "codex-home"
    session = "01a23400-0000-7000-8000-00000000abcd"
    for day in ("2026/11/30", "2026/12/01"):
        (home / "sessions" / day).mkdir(parents=True)
    target = home / "sessions/2026/11/30" / f"rollout-2026-11-30T10-00-00-{session}.jsonl"
    target.write_text("{}\n")
    (home / "sessions/2026/12/01" / "rollout-2026-12-01T10-00-00-other.jsonl").write_text("{}\n")
    environ = {"CODEX_HOME": str(home)}
    assert rollout.find_rollout(session, environ) == str(target)
    payload = {"session_id": session, "transcript_path": None, "hook_event_name": "Stop"}
    assert rollout.prepare(payload, environ)["transcript_path"] == str(target)
    assert rollout.find_rollout("01a23400-0000-7000-8000-00000000ffff", environ) is None
    for bad in ("../../etc/passwd", "", None, "a/b", "x" * 300):
        assert rollout.find_rollout(bad, environ) is None


# --- the real codex ------------------------------------------------------------------------------


def _codex_cli() -> str | None:
    return os.environ.get("JACKED_TEST_CODEX") or shutil.which("codex")


@pytest.mark.skipif(
    _codex_cli() is None,
    reason="OpenAI's `codex` is not installed (npm install -g @openai/codex, or set JACKED_TEST_CODEX)",
)
def test_the_real_codex_runs_the_installed_hooks(tmp_path: Path):
    """`hooks install --codex`, then the real codex (offline: its model is tests/fakes/codex_model.py)
    runs a session of three turns: SessionStart puts the brief into the model's context without any
    trust prompt or bypass flag, each Stop queues the session once, and once the session is quiet
    the drain writes its entry from Codex's own rollout."""
    codex_cli = _codex_cli()
    vault, repo, codex_home = tmp_path / "vault", tmp_path / "api", tmp_path / "codex-home"
    run_cli("memory", "init", "--no-scan", vault=vault)
    repo.mkdir()
    make_repo(repo, "git@github.com:acme/api.git")
    model_log = tmp_path / "model.log"
    with codex_offline(codex_home, model_log):
        env = {"CODEX_HOME": str(codex_home)}
        installed = run_cli("memory", "hooks", "install", "--codex", "--vault", str(vault), vault=vault, **env)
        assert installed.code == 0, installed.err
        base = [codex_cli, "exec", "--dangerously-bypass-approvals-and-sandbox"]
        turns = [
            [*base, "Make the capture queue safe for concurrent drains"],
            [*base, "resume", "--last", "PATCH: write the design notes"],
            [*base, "resume", "--last", "SHELL: run the tests"],
        ]
        for argv in turns:
            proc = subprocess.run(
                argv,
                cwd=repo,
                env=cli_env(vault, **env),
                capture_output=True,
                text=True,
                timeout=120,
                stdin=subprocess.DEVNULL,
            )
            assert proc.returncode == 0, proc.stderr[-2000:]
            assert "hook: SessionStart Completed" in proc.stderr and "hook: Stop Completed" in proc.stderr, proc.stderr[
                -2000:
            ]
    log = (state_dir(vault) / "log").read_text()
    assert log.count("hook=session-start brief") == 3 and log.count("hook=session-end queued") == 3
    requests = model_log.read_text()
    assert "## jacked-vault memory for github.com/acme/api" in requests  # the brief reached the model
    # each `exec resume` keeps the session id and says `resume`: one brief, then what changed (33.6)
    assert log.count(" since=resume ") == 2, log
    last = requests.strip().splitlines()[-1]  # the whole conversation: one brief, two additions (here a new warning)
    assert last.count("## jacked-vault memory for github.com/acme/api (group") == 1
    assert last.count("since this session's brief") == 2
    [path] = (codex_home / "sessions").rglob("rollout-*.jsonl")
    _wait_for_drains(vault, 3)
    [marker] = (state_dir(vault) / "queue").glob("*.json")
    assert json.loads(marker.read_text())["payload"]["transcript_path"] == str(path)
    os.utime(path, (time.time() - OLD, time.time() - OLD))
    subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "drain", "--vault", str(vault)],
        env=cli_env(vault),
        timeout=60,
        check=True,
    )
    days, waited = [], 0.0
    while not days and waited < 30:  # a drain a hook started may hold the queue: ours is then busy, and it writes
        days = list((vault / "groups" / "api" / "episodic" / "github.com__acme__api").glob("today-*.md"))
        time.sleep(0.1 if not days else 0)
        waited += 0.1
    [day] = days
    assert (
        "| main\nWorked on main" in day.read_text() and "(3 requests)" in day.read_text()
    )  # notes-N.md edited where apply_patch is offered
    assert codex.uninstall(codex_home / "config.toml").changed
    assert "jacked" not in (codex_home / "config.toml").read_text()


def test_reinstalling_for_another_vault_leaves_no_backup_behind(home: Path):
    """Issue 35.2: each changing install made a backup, so a second vault's install backed up
    jacked's own block, which uninstall could neither restore nor remove."""
    path = home / "config.toml"
    path.write_text(USER_CONFIG)
    codex.install(vault=home.parent / "a")
    assert codex.install(vault=home.parent / "b").backup is None
    assert codex.uninstall().restored and path.read_text() == USER_CONFIG
    assert not list(home.glob("config.toml.jacked-backup-*"))
