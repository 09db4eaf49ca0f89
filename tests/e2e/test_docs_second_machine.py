"""docs/second-machine.md stays true: its shell blocks, run as written (the placeholder URL
pointed at a real bare remote), on two machines with a HOME each and default vault paths."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import git

from tests.helpers.state import state_dir

PAGE = Path(__file__).resolve().parents[2] / "docs" / "second-machine.md"
PLACEHOLDER = "git@github.com:you/jacked-vault.git"
BLOCK = re.compile(r"<!-- run: (?P<machine>\w+) -->\n```sh\n(?P<body>.*?)```", re.S)


def blocks(machine: str) -> list[str]:
    return [m["body"] for m in BLOCK.finditer(PAGE.read_text(encoding="utf-8")) if m["machine"] == machine]


def shell(home: Path, script: str) -> subprocess.CompletedProcess:
    """`script` in bash -e as a person on the machine whose HOME is `home` would run it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JACKED_", "XDG_"))}
    env.update(HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=home, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"{script}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_the_page_runs_as_written_on_two_machines(tmp_path: Path):
    assert (Path(sys.executable).parent / "jacked").is_file()
    first, second = blocks("first"), blocks("second")
    assert first and len(second) >= 2 and all(PLACEHOLDER in b for b in first[:1] + second[:1])
    remote = tmp_path / "jacked-vault.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    url = f"file://{remote}"
    laptop, desktop = tmp_path / "laptop", tmp_path / "desktop"
    laptop.mkdir()
    (desktop / ".claude").mkdir(parents=True)  # a person who uses Claude Code on the desktop
    shell(
        laptop,
        "jacked memory init --no-scan\n"
        "jacked memory add --group tools --title 'Laptop fact' --body 'From the laptop.'\n",
    )
    for block in first:
        shell(laptop, block.replace(PLACEHOLDER, url))
    out = [shell(desktop, block.replace(PLACEHOLDER, url)).stdout for block in second]
    said = {line.split()[0]: line for line in out[0].splitlines() if line and not line.startswith(" ")}
    assert said["vault"].split()[1] == "done" and said["claude"].split()[1] == "done", out[0]  # `enable --from`
    assert said["groups"].split()[1] == "skipped", out[0]  # a joined vault keeps the groups it was shared with
    vault = desktop / "jacked-vault"
    assert git(vault, "rev-parse", "HEAD") == git(laptop / "jacked-vault", "rev-parse", "HEAD")
    assert git(vault, "status", "--porcelain") == ""
    assert "notes: 1" in out[0] and "ahead 0, behind 0" in out[0]
    settings = json.loads((desktop / ".claude" / "settings.json").read_text())
    assert {"SessionStart", "SessionEnd", "PreCompact"} <= set(settings["hooks"])
    server = json.loads((desktop / ".claude.json").read_text())["mcpServers"]["jacked-memory"]
    assert server["env"]["JACKED_VAULT_DIR"] == str(vault)
    machine = (state_dir(vault) / "machine-id").read_text()
    assert machine != (state_dir(laptop / "jacked-vault") / "machine-id").read_text()
    assert not (state_dir(vault) / "config.json").exists()
    assert not (desktop / ".config" / "jacked" / "config.json").exists()  # no machine config written
