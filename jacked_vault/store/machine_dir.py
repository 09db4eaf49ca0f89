"""This machine's own jacked folder, outside every vault: `$XDG_CONFIG_HOME/jacked/` (default
`~/.config/jacked/`), holding the machine config and the record of the harness files jacked created."""

from __future__ import annotations

import os
from pathlib import Path


def machine_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "jacked"
