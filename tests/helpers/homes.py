"""A person's machine for tests: a temp HOME (its own XDG config), the real CLI run in it, and its
files as a comparable tree ("left as it was" means byte for byte, file for file, folder for folder)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.helpers import cli_fork


def home_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JACKED_", "CODEX_"))}
    # no harness binary on PATH: the harness folders alone say which are here
    env.update(
        HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PATH=os.pathsep.join(("/usr/bin", "/bin")), **extra
    )
    return env


def jacked(home: Path, *args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return cli_fork.jacked(list(args), env=home_env(home), cwd=cwd or home, stdin=stdin, timeout=300)


def tree(root: Path, skip: tuple[str, ...] = ("jacked-vault",)) -> dict[str, object]:
    """Every folder and file under root (bytes, mode and symlink target), but `skip`."""
    out: dict[str, object] = {}
    for folder, dirs, files in os.walk(root):
        rel = Path(folder).relative_to(root)
        dirs[:] = sorted(d for d in dirs if str(rel / d) not in skip)
        for name in dirs:
            out[str(rel / name) + "/"] = "dir"
        for name in files:
            path = Path(folder) / name
            out[str(rel / name)] = (
                ("link", os.readlink(path)) if path.is_symlink() else (path.read_bytes(), path.stat().st_mode)
            )
    return out
