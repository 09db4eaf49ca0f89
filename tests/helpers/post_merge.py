"""A vault and a code repo for post-merge capture tests (`world`, `World`), with `gh` and `claude`
kept off PATH; the detached capture is waited for on its log line (bounded poll)."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import cli_env, make_repo

from jacked_vault.context import Context
from jacked_vault.document import parse_note
from tests.helpers.state import state_dir

WAIT_S = 20.0


def clean_path(tmp: Path) -> str:
    """PATH without `gh` and `claude` (a shim folder of symlinks stands in for a folder holding them)."""
    parts = []
    for i, folder in enumerate(os.environ.get("PATH", os.defpath).split(os.pathsep)):
        if not folder:
            continue
        if any(os.path.exists(os.path.join(folder, name)) for name in ("gh", "claude")):
            shim = tmp / f"pathshim{i}"
            shim.mkdir(exist_ok=True)
            for name in os.listdir(folder):
                if name not in ("gh", "claude") and not (shim / name).exists():
                    os.symlink(os.path.join(folder, name), shim / name)
            parts.append(str(shim))
        else:
            parts.append(folder)
    return os.pathsep.join(parts)


@dataclass
class World:
    tmp: Path
    vault: Path
    repo: Path
    path: str  # PATH without gh/claude
    env: dict

    def git(
        self, *args: str, repo: Path | None = None, check: bool = True, **extra: str
    ) -> subprocess.CompletedProcess:
        env = dict(self.env, **extra)
        return subprocess.run(
            ["git", "-C", str(repo or self.repo), *args], env=env, capture_output=True, text=True, check=check
        )

    def commit(self, name: str, text: str = "x\n", message: str | None = None, repo: Path | None = None) -> str:
        root = repo or self.repo
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        self.git("add", name, repo=root)
        self.git("commit", "-q", "-m", message or f"add {name}", repo=root)
        return self.head(root)

    def head(self, repo: Path | None = None) -> str:
        return self.git("rev-parse", "HEAD", repo=repo).stdout.strip()

    def ctx(self, repo: Path | None = None) -> Context:
        return Context.create(vault=str(self.vault), cwd=repo or self.repo, harness="git")

    def notes(self) -> list:
        out = []
        for path in sorted((self.vault / "groups").glob("*/decision/*.md")):
            out.append(parse_note(path.read_bytes(), source=str(path)))
        return out

    def log_lines(self) -> list[str]:
        try:
            return [line for line in (state_dir(self.vault) / "log").read_text().splitlines() if " post-merge " in line]
        except FileNotFoundError:
            return []

    def wait_captures(self, count: int) -> list[str]:
        """Wait (bounded) until the detached captures have logged `count` post-merge lines."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            lines = self.log_lines()
            if len(lines) >= count:
                return lines
            time.sleep(0.05)
        raise AssertionError(f"no capture logged after {WAIT_S}s: {self.log_lines()}")

    def vault_head(self) -> str:
        return self.git("rev-parse", "HEAD", repo=self.vault).stdout.strip()


@pytest.fixture
def world(tmp_path: Path, vault_path: Path, monkeypatch) -> World:
    clean = clean_path(tmp_path)
    monkeypatch.setenv("PATH", clean)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("JACKED_VAULT_DIR", raising=False)
    repo = tmp_path / "code" / "api"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:Acme/API.git")
    env = cli_env(vault_path, PATH=clean)
    return World(tmp_path, vault_path, repo, clean, env)


def feature(world: World, branch: str, files: dict[str, str], *, base: str = "main") -> None:
    world.git("checkout", "-q", "-b", branch, base)
    for name, text in files.items():
        world.commit(name, text, message=f"{branch}: {name}")
    world.git("checkout", "-q", base)
