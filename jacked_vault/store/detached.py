"""Starting `jacked _hook <name>` fully detached (own session, no inherited pipes): the capture
drain a harness hook starts, and the push a write starts under `settings.sync.push = after-write`.
The one owner of that spawn, so no caller waits for the network or a model."""

from __future__ import annotations

import sys
from pathlib import Path


def spawn_hook(vault: Path, hook: str) -> None:
    """Start `jacked _hook <hook> --vault <vault>` in the background and return at once."""
    import subprocess

    subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", "_hook", hook, "--vault", str(vault)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        cwd=str(vault),
    )
