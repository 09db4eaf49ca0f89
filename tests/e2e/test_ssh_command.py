"""The person's ssh command is kept, with only the no-prompt options added (issue 32.2; SPEC 10,
"A team's server").

jacked set `GIT_SSH_COMMAND="ssh -o BatchMode=yes"` whenever none was set, which overrode the
person's `core.sshCommand` (a key chosen there): plain `git fetch` worked, `jacked memory sync`
failed with "Host key verification failed". Now the network git gets the ssh command git itself
would choose (`GIT_SSH_COMMAND`, else `core.sshCommand` from the vault's or the global git
config, else `GIT_SSH`, else `ssh`) with `-o BatchMode=yes` added (`-batch` for PuTTY's plink,
nothing for a command git calls as `simple`), and ssh is told never to run an askpass program.

Most tests use a fake `ssh` (`helpers/fake_ssh.py`) that records its arguments and environment
and serves the git command itself: it shows exactly what git was given, on any machine. One test
runs the issue's own case against a real sshd on loopback (skipped where OpenSSH is missing).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import git, run_cli
from helpers.fake_ssh import calls, write_fake_ssh
from helpers.git_server import TeamServer, team_server  # noqa: F401 (the fixture)
from helpers.sync_world import bare_remote, remote_head

from jacked_vault.sync import remote

SSH_VARIABLES = ("GIT_SSH_COMMAND", "GIT_SSH", "GIT_SSH_VARIANT", "SSH_ASKPASS", "GIT_ASKPASS")


@pytest.fixture(autouse=True)
def _no_ssh_variables(monkeypatch):
    """The test's person sets none of git's ssh variables unless the test says so."""
    for name in SSH_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _vault_on(tmp_path: Path, url: str, ssh_config: str | None = None) -> Path:
    """A vault with one note whose origin is `url`; `ssh_config`: its core.sshCommand, set first."""
    tmp_path.mkdir(exist_ok=True)
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    if ssh_config is not None:
        git(vault, "config", "core.sshCommand", ssh_config)
    run_cli("memory", "remote", "set", url, vault=vault)
    assert run_cli("memory", "add", "--group", "g", "--title", "T", "--body", "b", vault=vault).code == 0
    return vault


def _assert_no_prompt_options(log: Path, *kept: str) -> None:
    """Every ssh run had the person's own arguments `kept`, BatchMode on, and askpass off."""
    runs = calls(log)
    assert runs, "git never ran the person's ssh command"
    for run in runs:
        argv = run["argv"]
        assert all(arg in argv for arg in kept), argv
        assert "BatchMode=yes" in argv and argv[argv.index("BatchMode=yes") - 1] == "-o", argv
        assert run["env"]["SSH_ASKPASS_REQUIRE"] == "never", run["env"]


def test_the_vaults_core_ssh_command_is_used_for_sync(tmp_path: Path):
    fake, log = write_fake_ssh(tmp_path / "bin")
    remote_path = tmp_path / "remote.git"
    bare_remote(remote_path)
    vault = _vault_on(tmp_path, f"ssh://git.example.invalid{remote_path}", f"{fake} -i /keys/team_key")
    done = run_cli("memory", "sync", vault=vault)
    assert done.code == 0, done.err
    assert remote_head(remote_path) == git(vault, "rev-parse", "HEAD").strip()
    _assert_no_prompt_options(log, "-i", "/keys/team_key", "git.example.invalid")


def test_the_global_core_ssh_command_is_used_by_init_from_and_sync(tmp_path: Path):
    """No vault yet for `init --from`: the person's global git config names the ssh command."""
    fake, log = write_fake_ssh(tmp_path / "bin")
    remote_path = tmp_path / "remote.git"
    bare_remote(remote_path)
    url = f"ssh://git.example.invalid{remote_path}"
    first = _vault_on(tmp_path / "one", url, str(fake))
    assert run_cli("memory", "push", vault=first).code == 0
    home = tmp_path / "two"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[core]\n\tsshCommand = {fake} -i /keys/global_key\n")
    second = home / "vault"  # run_cli's HOME is the vault's parent: this .gitconfig is the global one
    cloned = run_cli("memory", "init", "--from", url, vault=second)
    assert cloned.code == 0, cloned.err
    assert run_cli("memory", "add", "--group", "g", "--title", "Two", "--body", "b", vault=second).code == 0
    assert run_cli("memory", "sync", vault=second).code == 0
    assert remote_head(remote_path) == git(second, "rev-parse", "HEAD").strip()
    runs = [run for run in calls(log) if "/keys/global_key" in run["argv"]]
    assert len(runs) >= 2, "init --from and sync both went through the global core.sshCommand"
    _assert_no_prompt_options(log)


@pytest.mark.parametrize("variable", ["GIT_SSH_COMMAND", "GIT_SSH"])
def test_the_persons_ssh_variable_is_kept_with_batch_mode_added(tmp_path: Path, variable: str):
    fake, log = write_fake_ssh(tmp_path / "bin")
    remote_path = tmp_path / "remote.git"
    bare_remote(remote_path)
    vault = _vault_on(tmp_path, f"ssh://git.example.invalid{remote_path}")
    done = run_cli("memory", "sync", vault=vault, **{variable: str(fake)})
    assert done.code == 0, done.err
    assert remote_head(remote_path) == git(vault, "rev-parse", "HEAD").strip()
    _assert_no_prompt_options(log)


def _ssh_command(root: Path | None, monkeypatch, **env: str) -> str:
    for name in SSH_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return remote.git_env(root)["GIT_SSH_COMMAND"]


def test_git_s_own_order_chooses_the_ssh_command(tmp_path: Path, monkeypatch):
    """GIT_SSH_COMMAND, then core.sshCommand, then GIT_SSH, then `ssh` (git's order, connect.c)."""
    monkeypatch.setenv("HOME", str(tmp_path))  # no global git config of the machine's
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert _ssh_command(repo, monkeypatch) == "ssh -o BatchMode=yes"
    assert _ssh_command(repo, monkeypatch, GIT_SSH="/opt/my ssh") == "'/opt/my ssh' -o BatchMode=yes"
    git(repo, "config", "core.sshCommand", "ssh -i ~/.ssh/work")
    assert _ssh_command(repo, monkeypatch, GIT_SSH="/opt/ssh") == "ssh -i ~/.ssh/work -o BatchMode=yes"
    no_vault = _ssh_command(None, monkeypatch)  # a clone: no repository's config is read
    assert no_vault == "ssh -o BatchMode=yes"
    assert _ssh_command(repo, monkeypatch, GIT_SSH_COMMAND="ssh -F cfg") == "ssh -F cfg -o BatchMode=yes"


def test_plink_gets_batch_and_a_simple_command_gets_no_options(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert _ssh_command(repo, monkeypatch, GIT_SSH="/usr/bin/plink") == "/usr/bin/plink -batch"
    assert _ssh_command(repo, monkeypatch, GIT_SSH_COMMAND="tortoiseplink.exe -P 22") == "tortoiseplink.exe -P 22"
    git(repo, "config", "ssh.variant", "simple")
    assert _ssh_command(repo, monkeypatch, GIT_SSH_COMMAND="my-wrapper") == "my-wrapper"
    assert _ssh_command(repo, monkeypatch, GIT_SSH_COMMAND="my-wrapper", GIT_SSH_VARIANT="ssh") == (
        "my-wrapper -o BatchMode=yes"
    )


def test_a_key_and_known_hosts_chosen_in_core_ssh_command_reach_a_real_sshd(
    tmp_path: Path,
    team_server: TeamServer,  # noqa: F811
):
    """The issue's case: the server's host key is known only to the file core.sshCommand names."""
    url, command = team_server.direct_ssh(tmp_path / "known_hosts")
    vault = _vault_on(tmp_path, url, command)
    done = run_cli("memory", "sync", vault=vault)
    assert done.code == 0, done.err
    assert team_server.head() == git(vault, "rev-parse", "HEAD").strip()
    git(vault, "config", "--unset", "core.sshCommand")  # what jacked used to do: plain ssh, no key, no known host
    run_cli("memory", "add", "--group", "g", "--title", "Later", "--body", "b", vault=vault)
    refused = run_cli("memory", "sync", vault=vault)
    assert refused.code == 1 and "Host key verification failed" in refused.err
