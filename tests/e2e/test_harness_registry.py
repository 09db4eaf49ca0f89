"""Issue 35.2: a fifth harness is one adapter and one registry line.

`Tinker` below is a whole harness: a per-person folder, an MCP file in its own shape, a session
hook file, a brief of its own and a transcript format of its own whose end of a turn ends the
session. Registered (the one line: `REGISTRY[name] = adapter`), it is found by `enable`, installed
and removed by `hooks install|uninstall` and `disable`'s steps, probed by `status`, its payloads
and briefs go through `_hook`, and its sessions are queued, read by its reader and captured, with
no other change.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import capture as capture_world

from jacked_vault import harnesses
from jacked_vault.capture.transcript import Transcript
from jacked_vault.errors import VaultError
from jacked_vault.harnesses.base import Env, Harness, environ_of, home_of, project_root
from jacked_vault.harnesses.launch import Launch
from jacked_vault.harnesses.probe import Part, Probe

MARKER = "jacked-vault"
env = capture_world.env  # the fixture: a vault, a code repo, no real `claude` on PATH


class Tinker(Harness):
    """A made-up harness: ~/.tinker, its MCP servers under `servers` in mcp.json, one hook file."""

    name = "tinker"
    binaries = ("tinker",)
    mcp_container = "servers"
    turn_end = "idle"  # it has no session end: a session is captured once it has gone quiet

    def config_home(self, environ: Env | None = None) -> Path:
        return home_of(environ_of(environ)) / ".tinker"

    def hook_files(self) -> list[Path]:
        return [self.config_home() / "hooks.json"]

    def mcp_path(self, cwd: Path | None, environ: Env | None, *, user: bool) -> Path:
        return (self.config_home(environ) if user else project_root(cwd) / ".tinker") / "mcp.json"

    def mcp_entry(self, launch: Launch) -> dict[str, Any]:
        return {"run": [launch.command, *launch.args], "env": dict(launch.env)}

    def session_hooks(self, op: str, *, user: bool, settings: str | None, vault: Path) -> list[dict[str, Any]]:
        path = self.hook_files()[0]
        if op == "install":
            path.write_text(json.dumps({"start": MARKER, "vault": str(vault)}))
            return [{"harness": self.name, "path": str(path), "action": "installed"}]
        if op == "uninstall":
            gone = path.exists()
            path.unlink(missing_ok=True)
            return [{"harness": self.name, "path": str(path), "action": "removed" if gone else "absent"}]
        return [{"harness": self.name, "path": str(path), "state": "installed" if path.exists() else "absent"}]

    def probe(self, part: str, probe: Probe) -> Part | None:
        if part != "brief":
            return None
        path = self.hook_files()[0]
        return Part("installed", [str(path)], "hook") if path.exists() else Part("absent")

    def adapt(self, payload: dict) -> dict:
        return {**payload, "cwd": payload.get("folder", payload.get("cwd"))}

    def brief_output(self, text: str) -> str:
        return json.dumps({"tinker_context": text}) + "\n"

    def read_transcript(self, payload: dict[str, Any]) -> Transcript:
        """Its sessions are plain text: `me: …` lines are the person's, `bot: …` the agent's."""
        path = payload["transcript_path"]
        lines = Path(path).read_text().splitlines()
        human = [line.removeprefix("me: ") for line in lines if line.startswith("me: ")]
        return Transcript(path=path, found=True, human=human, human_count=len(human), branch="tinkering")


@pytest.fixture
def tinker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME holding only Tinker's folder, and Tinker registered; returns the vault's path."""
    home = tmp_path / "home"
    (home / ".tinker").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(harnesses.REGISTRY, "tinker", Tinker())  # the one registry line
    return tmp_path / "vault"


def test_enable_finds_it_and_hooks_install_writes_its_files_then_uninstall_removes_them(tinker: Path):
    from jacked_vault.hooks import enable
    from jacked_vault.hooks.integrations import manage

    home = Path.home()
    assert enable.harnesses_found() == ["tinker"]
    assert enable._files("tinker") == [home / ".tinker" / "hooks.json", home / ".tinker" / "mcp.json"]
    selection = enable._selection("tinker")

    report = manage("install", selection, str(tinker))
    assert report.ok and set(report.families) == {"tinker", "mcp"}
    entry = json.loads((home / ".tinker" / "mcp.json").read_text())["servers"]["jacked-memory"]
    assert entry["env"]["JACKED_MEMORY_HARNESS"] == "tinker" and entry["run"]
    assert (home / ".tinker" / "hooks.json").exists()
    assert "tinker hooks installed" in report.to_text()

    status = manage("status", selection, str(tinker))
    assert status.families["mcp"][0]["state"] == "installed"
    assert status.families["tinker"][0]["state"] == "installed"

    manage("uninstall", selection, str(tinker))
    assert not (home / ".tinker" / "hooks.json").exists()
    assert not (home / ".tinker" / "mcp.json").exists()  # install created it: uninstall removes it


def test_the_mcp_registration_and_the_options_know_it(tinker: Path):
    from jacked_vault.hooks import mcp as reg
    from jacked_vault.hooks.integrations import Selection, manage

    launch = reg.launch_for("tinker", tinker)
    assert json.loads(reg.render("tinker", launch)) == {"servers": {"jacked-memory": reg.entry("tinker", launch)}}
    printed = manage("install", Selection(mcp=("tinker",), print_only=True), str(tinker))
    assert printed.families["mcp"][0]["action"] == "printed"
    with pytest.raises(VaultError, match="claude, codex, cursor, opencode, tinker"):
        reg.launch_for("pi", tinker)


def test_status_probes_it(tinker: Path):
    from jacked_vault.hooks import mcp as reg
    from jacked_vault.hooks.health import harness_table

    table = harness_table(tinker, Path.cwd(), None)
    assert table["tinker"]["brief"].state == "absent" and table["tinker"]["mcp"].state == "absent"
    reg.install("tinker", reg.default_config_path("tinker", user=True), reg.launch_for("tinker", tinker))
    Tinker().session_hooks("install", user=True, settings=None, vault=tinker)
    table = harness_table(tinker, Path.cwd(), None)
    assert table["tinker"]["mcp"].state == "installed"
    assert table["tinker"]["brief"].state == "installed"
    assert table["tinker"]["capture"].state == "absent"  # it has no capture hook


def test_the_hook_dispatcher_adapts_its_payload_and_brief(tinker: Path):
    from jacked_vault.hooks.dispatch import _adapter

    adapter = _adapter("tinker")
    assert adapter.adapt({"folder": "/w"})["cwd"] == "/w"
    assert json.loads(adapter.brief_output("remember this")) == {"tinker_context": "remember this"}
    assert _adapter("someone-else") is harnesses.get("claude")  # unknown: Claude's, the reference


def test_its_sessions_are_captured_through_its_own_reader(
    tinker: Path, env: capture_world.Env, monkeypatch: pytest.MonkeyPatch
):
    from jacked_vault.hooks import dispatch

    monkeypatch.setattr(dispatch, "spawn_hook", lambda vault, hook: None)  # the test runs the drain itself
    session = env.tmp / "tinker.txt"
    session.write_text("me: Make the queue safe\nbot: done\nme: Add tests\nbot: done\nme: Run them\n")
    quiet = time.time() - 3 * 3600
    os.utime(session, (quiet, quiet))
    payload = Tinker().adapt({"folder": str(env.repo), "transcript_path": str(session), "hook_event_name": "idle"})
    assert dispatch.session_capture(env.vault, payload, "tinker").startswith("queued ")

    dispatch.drain(env.vault, {}, "claude")
    assert [sentence for _, sentence in env.entries()] == ["Worked on tinkering (3 requests)"]
