"""The real CLI on a pseudo-terminal (`drive`), and a real program for $EDITOR (`EDITOR_SCRIPT`)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

# A program for $EDITOR: it appends what it was given to <script>.seen and rewrites a body that
# says "Always rebase"; anything else is left as it is.
EDITOR_SCRIPT = """
import sys
from pathlib import Path

path = Path(sys.argv[1])
seen = path.read_text(encoding="utf-8")
Path(sys.argv[0]).with_suffix(".seen").open("a", encoding="utf-8").write(seen + "\\n--\\n")
if "Always rebase" in seen:  # a real rewrite of the file it was given; anything else is left as it is
    rewrite = "Rebase feature branches on main before merging.\\nNever squash release branches.\\n"
    path.write_text(rewrite, encoding="utf-8")
"""


def drive(argv: list[str], answers: list[bytes], *, env: dict[str, str], cwd: Path) -> tuple[int, str, bytes]:
    """Run the real CLI with stdin and stderr on a pty; answer each prompt (a line ending in `:`)
    with the next of `answers`. Returns (exit code, stdout, what the terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", *argv],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
        cwd=cwd,
    )
    os.close(slave)
    transcript = b""
    answers = list(answers)
    deadline = time.monotonic() + 60
    try:
        while answers and time.monotonic() < deadline:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break  # the child closed the terminal
            transcript += chunk
            if transcript.rstrip().endswith(b":"):
                os.write(master, answers.pop(0))
                transcript += b"|"
        out, _ = proc.communicate(timeout=60)
        while True:  # what the terminal still holds
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            transcript += chunk
    finally:
        os.close(master)
    return proc.returncode, out.decode(), transcript
