"""Claude Code settings.json: install/uninstall/status, atomic with a backup, foreign hooks untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jacked_vault.errors import VaultError
from jacked_vault.harnesses.installers import claude
from tests.helpers.state import state_dir

FOREIGN = {
    "model": "opus",
    "hooks": {
        "SessionStart": [{"hooks": [{"type": "command", "command": "other-tool start"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    },
}


def test_install_into_missing_file_creates_all_three_events(tmp_path: Path):
    path = tmp_path / ".claude" / "settings.json"
    change = claude.install(path, vault=tmp_path / "vault")
    assert change.changed and change.backup is None
    data = json.loads(path.read_text())
    assert sorted(data["hooks"]) == ["PreCompact", "SessionEnd", "SessionStart"]
    assert data["hooks"]["PreCompact"][0]["matcher"] == "auto"
    command = data["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    assert " _hook session-end --vault " in command and command.endswith(claude.MARKER)
    assert claude.status(path)["complete"] is True


def test_install_keeps_foreign_hooks_backs_up_and_is_idempotent(tmp_path: Path):
    path = tmp_path / "settings.json"
    original = json.dumps(FOREIGN, indent=4).encode()
    path.write_bytes(original)
    first = claude.install(path)
    assert first.changed and Path(first.backup).read_bytes() == original
    data = json.loads(path.read_text())
    assert data["model"] == "opus"
    assert data["hooks"]["PreToolUse"] == FOREIGN["hooks"]["PreToolUse"]
    assert data["hooks"]["SessionStart"][0] == FOREIGN["hooks"]["SessionStart"][0]
    assert len(data["hooks"]["SessionStart"]) == 2
    second = claude.install(path)
    assert not second.changed and second.backup is None
    assert len(list(tmp_path.glob("settings.json.jacked-backup-*"))) == 1


def test_uninstall_removes_only_ours(tmp_path: Path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(FOREIGN))
    claude.install(path)
    change = claude.uninstall(path)
    assert change.changed and change.installed == []
    assert json.loads(path.read_text()) == FOREIGN
    assert not claude.uninstall(path).changed


def test_uninstall_of_a_fresh_install_leaves_no_hooks_key(tmp_path: Path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"model": "opus"}))
    claude.install(path)
    claude.uninstall(path)
    assert json.loads(path.read_text()) == {"model": "opus"}


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"hooks": []}', b"\xff\xfe"])
def test_invalid_settings_refused_and_untouched(tmp_path: Path, content: bytes):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    with pytest.raises(VaultError) as err:
        claude.install(path)
    assert err.value.code == "CONFIG"
    assert path.read_bytes() == content
    assert list(tmp_path.iterdir()) == [path]


def test_reinstall_replaces_our_entry_when_the_vault_changes(tmp_path: Path):
    path = tmp_path / "settings.json"
    claude.install(path, vault=tmp_path / "a")
    claude.install(path, vault=tmp_path / "b")
    data = json.loads(path.read_text())
    commands = [h["command"] for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    assert len(commands) == 1 and str(tmp_path / "b") in commands[0]


def test_cli_hooks_claude_and_git(tmp_path: Path):
    from conftest import make_repo, run_cli

    vault = tmp_path / "vault"
    run_cli("memory", "init", "--no-scan", vault=vault)
    settings = tmp_path / "settings.json"
    installed = run_cli("memory", "hooks", "install", "--claude", "--settings", str(settings), "--json", vault=vault)
    assert installed.code == 0 and installed.json["claude"][0]["events"] == ["PreCompact", "SessionEnd", "SessionStart"]
    status = run_cli("memory", "hooks", "status", "--claude", "--settings", str(settings), "--json", vault=vault)
    assert status.json["claude"][0]["complete"] is True
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo, "git@github.com:o/code.git")
    git_install = run_cli("memory", "hooks", "install", "--git", str(repo), "--json", vault=vault)
    assert git_install.json["git"][0]["state"] == "installed"
    assert "jacked-vault post-merge hook" in (repo / ".git" / "hooks" / "post-merge").read_text()
    not_a_repo = run_cli("memory", "hooks", "install", "--git", str(tmp_path), "--json", vault=vault)
    assert not_a_repo.json["git"][0]["error"]["code"] == "JACKED_MEMORY_NOT_FOUND"
    removed = run_cli(
        "memory",
        "hooks",
        "uninstall",
        "--claude",
        "--settings",
        str(settings),
        "--git",
        str(repo),
        "--json",
        vault=vault,
    )
    assert removed.json["claude"][0]["action"] == "deleted" and not (repo / ".git" / "hooks" / "post-merge").exists()
    assert not settings.exists()  # install created it and it held nothing else (33.10)
    assert run_cli("memory", "hooks", "install", "--json", vault=vault).code == 2


def test_a_vault_set_only_by_the_environment_is_named_by_every_registration(tmp_path: Path):
    """Issue 19.10: with the vault given only by $JACKED_VAULT_DIR, the Claude hooks, the MCP entry
    and the post-merge hook all name it, so a Claude Code started without that variable still
    sends its hooks to the vault its MCP server uses (not to ~/jacked-vault)."""
    import subprocess

    from conftest import cli_env, make_repo, run_cli

    vault = tmp_path / "vault"  # HOME is tmp_path: the default would be tmp_path/jacked-vault
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo, "git@github.com:o/code.git")
    done = run_cli(
        "memory", "hooks", "install", "--claude", "--mcp", "claude", "--user", "--git", str(repo), vault=vault, cwd=repo
    )
    assert done.code == 0, done.out + done.err

    settings = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    commands = {event: groups[0]["hooks"][0]["command"] for event, groups in settings["hooks"].items()}
    assert all(f" --vault {vault} " in command for command in commands.values()), commands
    entry = json.loads((tmp_path / ".claude.json").read_text())["mcpServers"]["jacked-memory"]
    assert entry["env"]["JACKED_VAULT_DIR"] == str(vault)
    assert f"JACKED_VAULT={vault}\n" in (repo / ".git" / "hooks" / "post-merge").read_text()

    env = {k: v for k, v in cli_env().items() if not k.startswith("JACKED_")}
    env["HOME"] = str(tmp_path)  # Claude Code started without $JACKED_VAULT_DIR
    payload = json.dumps({"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"})
    started = subprocess.run(
        commands["SessionStart"],
        shell=True,
        input=payload,
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        timeout=120,
    )
    assert started.returncode == 0 and "jacked-vault memory for github.com/o/code" in started.stdout, (
        started.stdout + started.stderr
    )
    assert "hook=session-start" in (state_dir(vault) / "log").read_text()
    assert not (tmp_path / "jacked-vault").exists()


def test_a_vault_path_with_a_space_stays_one_word_in_the_hook_commands(tmp_path: Path):
    """Since every hook command names its vault (issue 19.10), a vault whose path holds a space
    must reach `_hook` as one argument."""
    import subprocess

    from conftest import cli_env, make_repo, run_cli

    vault = tmp_path / "my vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    settings = tmp_path / "settings.json"
    assert run_cli("memory", "hooks", "install", "--claude", "--settings", str(settings), vault=vault).code == 0
    command = json.loads(settings.read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert claude.status(settings)["vaults"] == [str(vault)]
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo, "git@github.com:o/code.git")
    env = {k: v for k, v in cli_env().items() if not k.startswith("JACKED_")}
    started = subprocess.run(
        command,
        shell=True,
        input=json.dumps({"cwd": str(repo)}),
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        timeout=120,
    )
    assert started.returncode == 0 and "jacked-vault memory for github.com/o/code" in started.stdout, (
        started.stdout + started.stderr
    )
    assert "hook=session-start" in (state_dir(vault) / "log").read_text()


def test_install_edits_in_place_keeping_the_persons_other_bytes(tmp_path: Path):
    """Issue 35.2: install rewrote the whole file (2-space JSON of its own), so a person's 4-space
    settings.json came back reformatted; now only the members it changes are written."""
    path = tmp_path / "settings.json"
    head = '{\n    "model": "opus",\n    "permissions": {"allow": ["Bash(ls)", "Read"]},\n'
    original = head + '    "hooks": {}\n}\n'
    path.write_text(original)
    claude.install(path)
    assert path.read_text().startswith(head)
    assert claude.uninstall(path).restored and path.read_text() == original


def test_reinstalling_for_another_vault_leaves_no_backup_behind(tmp_path: Path):
    """Issue 35.2: every install that changed the file made a backup, so installing for a second
    vault backed up jacked's own first install, a backup uninstall could neither restore nor
    remove; one backup now, of the bytes before jacked's first change."""
    path = tmp_path / "settings.json"
    original = json.dumps(FOREIGN, indent=4)
    path.write_text(original)
    claude.install(path, vault=tmp_path / "a")
    assert claude.install(path, vault=tmp_path / "b").backup is None
    assert len(list(tmp_path.glob("settings.json.jacked-backup-*"))) == 1
    assert claude.uninstall(path).restored and path.read_text() == original
    assert not list(tmp_path.glob("settings.json.jacked-backup-*"))
