"""What the operator fixes when a harness launches the MCP server: the harness, the vault, the repo,
user scope or not. Read from the environment before the SDK is imported, so a bad launch fails fast."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from jacked_vault import environment
from jacked_vault.document.model import SLUG_RE
from jacked_vault.environment import HARNESS_ENV, VAULT_ENV
from jacked_vault.store.layout import state_dir
from jacked_vault.store.log import log_line

REPO_ENV = "JACKED_MEMORY_REPO"
ALLOW_USER_ENV = "JACKED_MEMORY_ALLOW_USER_SCOPE"
DEBUG_ENV = "JACKED_MEMORY_DEBUG"


class StartupError(Exception):
    """A launch setting is missing or wrong: the server does not start."""


@dataclass(frozen=True)
class Settings:
    """Who we are, which vault, which repo, user scope or not."""

    harness: str
    vault_path: Path
    cwd: Path
    allow_user_scope: bool

    @classmethod
    def from_env(
        cls, vault: str | None = None, environ: dict[str, str] | None = None, cwd: str | Path | None = None
    ) -> Settings:
        env = os.environ if environ is None else environ
        harness = env.get(HARNESS_ENV, "")
        if not harness:
            raise StartupError(
                f"{HARNESS_ENV} is not set; set it to this harness's name (claude, codex, cursor, opencode, …)"
            )
        if not SLUG_RE.fullmatch(harness) or harness == "all":
            shown = harness if len(harness) <= 40 else harness[:40] + "…"
            raise StartupError(
                f"{HARNESS_ENV}={shown!r} is not a harness slug ([a-z0-9][a-z0-9._-]{{0,63}}, not 'all')"
            )
        repo = env.get(REPO_ENV) or (str(cwd) if cwd is not None else os.getcwd())
        repo_path = Path(os.path.expanduser(repo)).absolute()
        if not repo_path.is_dir():
            raise StartupError(f"{REPO_ENV} is not a directory")
        vault_path = environment.vault_path(vault or env.get(VAULT_ENV) or None)
        return cls(
            harness=harness, vault_path=vault_path, cwd=repo_path, allow_user_scope=env.get(ALLOW_USER_ENV) == "1"
        )

    def log(self, what: str) -> None:
        """One `mcp <harness> <what>` line in the vault's log, when there is a vault (never raises)."""

        if (self.vault_path / ".git").exists():
            log_line(state_dir(self.vault_path), f"mcp {self.harness} {what}")
