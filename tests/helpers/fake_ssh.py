"""A stand-in for `ssh` that records how git called it, then serves the git command itself.

git runs its ssh command as `<command> [options] HOST "git-upload-pack '/path'"`. The fake
appends one JSON line per run to its log (the arguments, and the environment variables that
decide whether ssh may prompt), then runs that last argument with `sh` on this machine: a
working ssh transport to a bare repository on disk, with no server, so a test sees exactly which
command and options git was given. It answers git's `-G` probe as OpenSSH does. `hang` names the
git commands it answers only after `delay_s` (the pid of each such run goes to the log): a remote
that stops, or crawls, mid-fetch or mid-push.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SEEN_ENV = ("SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "DISPLAY", "GIT_ASKPASS", "GIT_TERMINAL_PROMPT")

_SCRIPT = """#!{python}
import json, os, sys, time
record = {{"argv": sys.argv[1:], "env": {{k: os.environ.get(k) for k in {seen!r}}}, "pid": os.getpid()}}
command = sys.argv[-1] if len(sys.argv) > 1 else ""
record["hung"] = any(name in command for name in {hang!r})
with open({log!r}, "a") as log:
    log.write(json.dumps(record) + "\\n")
if "-G" in sys.argv[1:-1]:
    sys.exit(0)  # git asking whether this is OpenSSH (`ssh -G` prints its config): it is
if record["hung"]:
    time.sleep({delay_s!r})  # a server that answers late, or never
os.execvp("sh", ["sh", "-c", command])
"""


def write_fake_ssh(
    folder: Path, name: str = "fake-ssh", hang: tuple[str, ...] = (), delay_s: float = 120.0
) -> tuple[Path, Path]:
    """(the program, its log) in `folder`; `hang`: the git commands it answers only after `delay_s`
    ("git-upload-pack" stalls a fetch, "git-receive-pack" a push)."""
    folder.mkdir(parents=True, exist_ok=True)
    program, log = folder / name, folder / f"{name}.log"
    program.write_text(_SCRIPT.format(python=sys.executable, seen=SEEN_ENV, hang=hang, delay_s=delay_s, log=str(log)))
    program.chmod(0o755)
    return program, log


def calls(log: Path) -> list[dict]:
    """Every run of the fake, in order: {"argv", "env", "pid", "hung"}."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line]
