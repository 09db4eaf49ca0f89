"""A server's own refusal is said as the server's, never as a race (issue 32.5).

A bare repository on disk with a `pre-receive` hook stands for a server with a rule (a protected
branch, a size limit, a policy): it prints its reason (`remote: ...`) and declines. `push`, `sync`,
the SessionEnd push's log line and `status` say the server refused it and quote what it said as
data (terminal controls stripped, bounded), never "the remote has commits this vault does not".
A push that loses a race and a link that fails are each told as what they are. The real CLI, real
git, real bare remotes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, git, run_cli
from helpers.state import state_dir
from helpers.sync_world import bare_remote

REASON = "main is protected: changes go through a merge request"
HOSTILE = "\x1b]0;owned\x07\x1b[31mred\x1b[0m \x1b[2J" + "x" * 5000  # escapes, then a flood


def _decline_every_push(remote: Path) -> None:
    """Give the bare `remote` a pre-receive hook that prints REASON and a hostile line, then declines."""
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\necho '{REASON}' >&2\nprintf '%s\\n' '{HOSTILE}' >&2\nexit 1\n")
    hook.chmod(0o755)


@pytest.fixture
def refused(tmp_path: Path) -> tuple[Path, Path]:
    """(vault, remote): the vault pushed its init before the server's rule was put in, then wrote a
    note the server will refuse."""
    remote = tmp_path / "server.git"
    url = bare_remote(remote)
    vault = tmp_path / "laptop" / "vault"
    vault.parent.mkdir()
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    assert run_cli("memory", "remote", "set", url, vault=vault).code == 0
    assert run_cli("memory", "push", vault=vault).code == 0
    _decline_every_push(remote)
    assert run_cli("memory", "add", "--group", "ops", "--title", "Refused", "--body", "b", vault=vault).code == 0
    return vault, remote


def _said_safely(text: str) -> None:
    """The server's reason is there, quoted; none of its escapes and not its whole flood."""
    assert REASON in text, text
    assert "\x1b" not in text and "\x07" not in text
    assert "x" * 1000 not in text
    assert "has commits this vault does not" not in text, "a server's rule is not a race"


def test_push_says_what_the_server_said(refused):
    vault, remote = refused
    before = git(remote, "rev-parse", "main")
    head = git(vault, "rev-parse", "HEAD")

    pushed = run_cli("memory", "push", "--json", vault=vault)

    assert pushed.code == 1
    error = pushed.json["error"]
    assert error["code"] == "JACKED_MEMORY_SYNC" and error["details"]["push"] == "refused"
    assert error["message"].startswith("the remote refused the push")
    assert '(reason: "pre-receive hook declined")' in error["message"]
    assert f'the server said: "{REASON} / red' in error["message"], "the server's words, quoted as data"
    _said_safely(error["message"])
    assert git(remote, "rev-parse", "main") == before and git(vault, "rev-parse", "HEAD") == head
    human = run_cli("memory", "push", vault=vault)
    assert human.code == 1
    _said_safely(human.err)


def test_sync_and_status_say_what_the_server_said(refused):
    vault, remote = refused
    before = git(remote, "rev-parse", "main")

    synced = run_cli("memory", "sync", vault=vault)

    assert synced.code == 1
    _said_safely(synced.err)
    assert "run `jacked memory sync`" not in synced.err
    assert git(remote, "rev-parse", "main") == before
    status = run_cli("memory", "status", "--json", vault=vault).json["vault"]
    assert status["last_push"]["result"] == "refused"
    _said_safely(status["last_push"]["message"])
    shown = run_cli("memory", "status", vault=vault).out
    assert "last push refused" in shown
    _said_safely(shown)


def test_the_session_end_push_logs_what_the_server_said(refused):
    vault, remote = refused
    before = git(remote, "rev-parse", "main")
    subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "drain"],
        input="{}", capture_output=True, text=True, env=cli_env(vault), cwd=vault.parent, timeout=120,
    )  # fmt: skip
    assert git(remote, "rev-parse", "main") == before
    line = (state_dir(vault) / "log").read_text().splitlines()[-1]
    assert "hook=drain" in line and "refused" in line and line.endswith(" ms)"), line
    _said_safely(line)
    assert run_cli("memory", "status", "--json", vault=vault).json["vault"]["last_push"]["result"] == "refused"


def test_a_race_and_a_broken_link_are_each_told_as_what_they_are(tmp_path: Path):
    """Someone pushed first: the push says so and `sync` settles it; the remote gone: the push
    says git's own reason. Neither is called a refusal."""
    url = bare_remote(tmp_path / "shared.git")
    laptop, desktop = tmp_path / "laptop" / "vault", tmp_path / "desktop" / "vault"
    for home in (laptop, desktop):
        home.parent.mkdir()
    assert run_cli("memory", "init", "--no-scan", vault=laptop).code == 0
    assert run_cli("memory", "remote", "set", url, vault=laptop).code == 0
    assert run_cli("memory", "push", vault=laptop).code == 0
    assert run_cli("memory", "init", "--from", url, vault=desktop).code == 0
    for vault, title in ((laptop, "From the laptop"), (desktop, "From the desktop")):
        assert run_cli("memory", "add", "--group", "ops", "--title", title, "--body", "b", vault=vault).code == 0
    assert run_cli("memory", "push", vault=laptop).code == 0

    raced = run_cli("memory", "push", "--json", vault=desktop).json["error"]

    assert raced["details"]["push"] == "race" and "run `jacked memory sync`" in raced["message"]
    assert "refused" not in raced["message"]
    assert run_cli("memory", "sync", vault=desktop).code == 0
    (tmp_path / "shared.git").rename(tmp_path / "moved.git")
    assert run_cli("memory", "add", "--group", "ops", "--title", "Later", "--body", "b", vault=desktop).code == 0

    broken = run_cli("memory", "push", "--json", vault=desktop).json["error"]

    assert broken["details"]["push"] == "failed" and broken["message"].startswith("push failed: ")
    assert "refused" not in broken["message"] and "run `jacked memory sync`" not in broken["message"]
