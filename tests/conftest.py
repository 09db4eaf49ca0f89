"""Shared fixtures: real vaults, real git repos (pygit2), the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pygit2
import pytest

from jacked_vault.context import Context
from jacked_vault.write.init import init_vault
from tests.helpers import cli_fork


@pytest.fixture(autouse=True, scope="session")
def _git_identity():
    """Tests commit with the real git CLI too; give it an identity on machines without one."""
    defaults = {
        "GIT_AUTHOR_NAME": "jacked tests",
        "GIT_AUTHOR_EMAIL": "tests@example.com",
        "GIT_COMMITTER_NAME": "jacked tests",
        "GIT_COMMITTER_EMAIL": "tests@example.com",
    }
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
    yield


@pytest.fixture(autouse=True)
def _machine_config(tmp_path: Path, monkeypatch) -> Path:
    """Each test gets its own, empty machine configuration (`$XDG_CONFIG_HOME/jacked/config.json`):
    a person's real settings never leak in, and a test that needs a distiller writes one here."""
    folder = tmp_path / "xdg-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    return folder


def write_machine_config(settings: dict) -> Path:
    """Write the machine configuration of the current test (the only home of a distiller command)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "jacked" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "settings": settings}))
    return path


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    @property
    def json(self) -> dict:
        return json.loads(self.out)


@pytest.fixture
def vault_path(tmp_path: Path) -> Path:
    path = tmp_path / "vault"
    init_vault(path)
    return path


@pytest.fixture
def ctx(vault_path: Path, tmp_path: Path) -> Context:
    """A context outside any repo (group scope needs an explicit group)."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return Context.create(vault=str(vault_path), cwd=work, harness="tester")


def make_repo(path: Path, origin: str | None = None) -> pygit2.Repository:
    """A real git repo with one commit, and an origin remote when given."""
    repo = pygit2.init_repository(str(path), initial_head="main")
    (path / "README.md").write_text("code\n")
    repo.index.add("README.md")
    repo.index.write()
    sig = pygit2.Signature("t", "t@example.com")
    repo.create_commit("HEAD", sig, sig, "init", repo.index.write_tree(), [])
    if origin:
        repo.remotes.create("origin", origin)
    return repo


@pytest.fixture
def code_repo(tmp_path: Path) -> Path:
    path = tmp_path / "code" / "api"
    path.mkdir(parents=True)
    make_repo(path, "git@github.com:Acme/API.git")
    return path


def cli_env(vault: Path | None = None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JACKED_")}
    if vault is not None:
        env["JACKED_VAULT_DIR"] = str(vault)
        env["HOME"] = str(vault.parent)  # isolation: ~/Github, ~/.gitconfig are the test's own
    env.update(extra)
    return env


def run_cli(
    *args: str, vault: Path | None = None, cwd: Path | None = None, stdin: str | None = None, **env: str
) -> CliResult:
    """Run the real `jacked` console entry point in a process of its own (default cwd: beside the
    vault): forked from a warm one (helpers/cli_fork.py) unless the call needs a fresh interpreter."""
    if cwd is None and vault is not None:
        cwd = vault.parent
    proc = cli_fork.jacked(list(args), env=cli_env(vault, **env), cwd=cwd, stdin=stdin, timeout=120)
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def git(path: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, check=True).stdout


def snapshot(path: Path) -> dict:
    """Everything a refused write must leave unchanged: HEAD, the git index, every file."""
    files = {}
    for root, dirs, names in os.walk(path):
        dirs[:] = [d for d in dirs if d not in (".git", ".jacked")]
        for name in names:
            full = Path(root) / name
            files[str(full.relative_to(path))] = (
                full.read_bytes() if not full.is_symlink() else b"->" + os.readlink(full).encode()
            )
    index = (path / ".git" / "index").read_bytes() if (path / ".git" / "index").exists() else b""
    return {"head": git(path, "rev-parse", "HEAD").strip(), "index": index, "files": files}


def trace_index_statements(monkeypatch) -> list[str]:
    """Every SQL statement the search index runs from now on in this test, in order."""
    from jacked_vault.search.readmodel import ReadModel

    statements: list[str] = []
    real = ReadModel._connect

    def traced(self):
        db = real(self)
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(ReadModel, "_connect", traced)
    return statements


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the CPUs (issue 35.6). Much of the suite waits (on a git
    server, a child process, a link held slow, a bound running out): with one worker per CPU,
    vmstat saw the CPUs 15-20 % idle through the run, with one more 2 %. On this 2-core machine,
    the same clone of the same code: 11:14 with 2 workers, 9:20 with 3."""
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow first (issue 35.6): the longest work starts at once, and no worker
    is left alone at the end with a soak while the others have finished."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
