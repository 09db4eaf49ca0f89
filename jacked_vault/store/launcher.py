"""How anything jacked installs (a harness hook, a plugin, a command file, a skill, a git hook)
starts `jacked`: the script of this install, else one on PATH, else this Python with `-m`, so a
harness's own PATH never decides which jacked runs."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

MODULE = "jacked_vault.cli.main"


def jacked_script() -> str | None:
    """The `jacked` script beside this Python (absolute), else the one on PATH, else None."""
    script = Path(sys.executable).with_name("jacked")
    if script.is_file() and os.access(script, os.X_OK):
        return str(script)
    found = shutil.which("jacked")
    return str(Path(found).absolute()) if found else None


def jacked_argv() -> list[str]:
    """The words that start `jacked`: its script, else `python -m jacked_vault.cli.main`."""
    script = jacked_script()
    return [script] if script else [sys.executable, "-m", MODULE]
