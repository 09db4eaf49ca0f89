"""A non-editable install must carry schemas/, templates/ and git_hooks/ inside the package."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_wheel_ships_data_folders_and_finds_them(tmp_path: Path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("jacked_vault-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "jacked_vault/_data/schemas/note.schema.json",
        "jacked_vault/_data/schemas/vault.schema.json",
        "jacked_vault/_data/templates/gitignore",
        "jacked_vault/_data/templates/vault-README.md",
        "jacked_vault/_data/templates/commands/remember.md",  # /remember and /learn (hooks/commands.py)
        "jacked_vault/_data/templates/commands/learn.md",
        "jacked_vault/_data/git_hooks/README.md",
        "jacked_vault/ui/templates/base.html",  # the review page's templates and static files ship in the package
        "jacked_vault/ui/static/ui.js",
        "jacked_vault/ui/static/ui.css",
    ):
        assert required in names
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    probe = "from jacked_vault.resources import data_dir; print(data_dir('schemas')); print(data_dir('templates'))"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={"PYTHONPATH": str(unpacked)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [
        str(unpacked / "jacked_vault" / "_data" / "schemas"),
        str(unpacked / "jacked_vault" / "_data" / "templates"),
    ]
