"""bench/_vaultgen.py builds vaults a person could have: `jacked memory doctor` accepts them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import git, run_cli

from tests.helpers.state import state_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._vaultgen import MACHINES, generate_vault


def test_generated_vault_passes_doctor(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    stats = generate_vault(vault, 120, groups=5)
    assert stats.audit_lines == 120
    assert git(vault, "status", "--porcelain") == ""
    months = {p.name for m in MACHINES for p in (vault / "audit" / m).glob("*.jsonl")}
    assert len(months) > 1, months  # lines spread over the months the notes were created in
    assert all((vault / "groups" / f"g{i}" / "index.md").is_file() for i in range(5))
    assert not (state_dir(vault) / "index.sqlite").exists()  # a caller's first search builds it

    done = run_cli("memory", "doctor", "--json", vault=vault)
    report = json.loads(done.out)
    assert done.code == 0, done.out + done.err
    assert report["ok"] is True
    assert report["memory_count"] == 120
    assert report["audit_problems"] == [] and report["derived_stale"] == []


def test_hand_added_note_is_still_caught(tmp_path: Path) -> None:
    """The check above can fail: a note edited by hand, unlike its audit line, is reported."""
    vault = tmp_path / "vault"
    generate_vault(vault, 20, groups=2)
    note = next(p for p in (vault / "groups" / "g0").rglob("*.md") if p.name != "index.md")
    note.write_bytes(note.read_bytes() + b"\nEdited by hand.\n")
    git(vault, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "by hand")
    done = run_cli("memory", "doctor", "--json", vault=vault)
    assert done.code != 0
    codes = {p["code"] for p in json.loads(done.out)["audit_problems"]}
    assert codes == {"EDITED_OUTSIDE_TOOL"}, codes
