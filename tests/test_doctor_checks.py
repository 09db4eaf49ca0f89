"""doctor sees what the index never reads (issue 18.15): committed files outside the vault layout
(reported, bounded and counted, never ok), and the git objects of the current tree checked like
`git fsck` does for loose objects (inflated and hashed here), so a truncated or otherwise damaged
object is reported with its fix instead of hanging doctor or failing it with "run doctor".
Real vaults, real git, the real CLI in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers.state import state_dir

from conftest import cli_env, git, run_cli

STRAYS = 5001


def _vault_with_a_note(tmp_path: Path) -> tuple[Path, str]:
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    added = run_cli(
        "memory",
        "add",
        "--group",
        "g",
        "--title",
        "Alpha note",
        "--body",
        "alpha body, long enough to be a blob of its own",
        "--json",
        vault=vault,
    )
    assert added.code == 0, added.out + added.err
    return vault, added.json["path"].split(":", 1)[1]


def _doctor(vault: Path, *args: str, timeout: float = 60) -> tuple[int, dict, str]:
    """doctor --json in a subprocess that must answer within `timeout` seconds."""
    proc = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "doctor", *args, "--json"],
        capture_output=True,
        text=True,
        env=cli_env(vault),
        cwd=vault.parent,
        timeout=timeout,
    )
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def test_committed_files_outside_the_layout_are_reported_bounded_and_counted(tmp_path: Path):
    vault, _ = _vault_with_a_note(tmp_path)
    folder = vault / "groups" / "g" / "decision"
    folder.mkdir(parents=True)
    for n in range(STRAYS):
        (folder / f"stray-{n:05d}.txt").write_text(f"not a note {n}\n")
    (vault / "scripts").mkdir()
    (vault / "scripts" / "run.sh").write_text("#!/bin/sh\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "strays, by hand")

    code, report, err = _doctor(vault)

    assert code == 1 and report["ok"] is False, err
    assert report["outside_layout_count"] == STRAYS + 1
    shown = report["outside_layout"]
    assert (
        0 < len(shown) <= 100 and "vault:scripts/run.sh" in shown and "vault:groups/g/decision/stray-00000.txt" in shown
    )
    assert report["memory_count"] == 1 and report["git_problems"] == []
    text = run_cli("memory", "doctor", vault=vault)
    assert text.code == 1
    assert f"{STRAYS + 1:,} committed files are outside the vault layout" in text.out, text.out
    assert "git rm" in text.out and len(text.out.splitlines()) < 40  # bounded: the count, a few paths, the fix


def _loose(vault: Path, sha: str) -> Path:
    path = vault / ".git" / "objects" / sha[:2] / sha[2:]
    assert path.is_file(), "the object is loose"
    path.chmod(0o644)
    return path


@pytest.mark.parametrize(
    "damage",
    ["truncated", "flipped-byte", "other-content", "trailing-garbage"],
)
def test_a_damaged_loose_blob_of_the_current_tree_is_reported_promptly(tmp_path: Path, damage: str):
    import zlib

    vault, rel = _vault_with_a_note(tmp_path)
    sha = git(vault, "rev-parse", f"HEAD:{rel}").strip()
    path = _loose(vault, sha)
    data = path.read_bytes()
    if damage == "truncated":  # libgit2 1.9 never returns from reading some of these
        path.write_bytes(data[:-20])
    elif damage == "flipped-byte":
        path.write_bytes(data[: len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF]) + data[len(data) // 2 + 1 :])
    elif damage == "other-content":  # valid zlib, a valid blob, but not the one its name says
        raw = zlib.decompress(data).replace(b"alpha", b"omega")
        path.write_bytes(zlib.compress(raw))
    else:
        path.write_bytes(data + b"garbage")
    assert subprocess.run(["git", "-C", str(vault), "fsck"], capture_output=True).returncode != 0

    code, report, err = _doctor(vault)

    assert code == 1 and report["ok"] is False, err
    [problem] = report["git_problems"]
    assert (
        problem["code"] == "OBJECTS_MISSING_OR_CORRUPT" and sha[:12] in problem["problem"] and "fetch" in problem["fix"]
    )
    assert "Traceback" not in err


def test_a_damaged_tree_object_is_reported_not_a_failure_that_points_to_doctor(tmp_path: Path):
    vault, rel = _vault_with_a_note(tmp_path)
    folder = rel.rsplit("/", 1)[0]
    sha = git(vault, "rev-parse", f"HEAD:{folder}").strip()
    path = _loose(vault, sha)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF]) + data[len(data) // 2 + 1 :])
    (state_dir(vault) / "index.sqlite").unlink()  # the next reader indexes the tree from scratch

    for args in ((), ("--reindex",)):
        code, report, err = _doctor(vault, *args)
        assert code == 1 and report.get("schema") == "jacked.doctor.v1" and "error" not in report, report
        [problem] = report["git_problems"]
        assert problem["code"] == "OBJECTS_MISSING_OR_CORRUPT" and sha[:12] in problem["problem"]
        assert "Traceback" not in err


def test_a_healthy_vault_with_packed_and_loose_objects_is_ok(tmp_path: Path):
    vault, _ = _vault_with_a_note(tmp_path)
    git(vault, "gc", "-q")
    assert run_cli("memory", "add", "--group", "g", "--title", "Beta", "--body", "b", vault=vault).code == 0
    code, report, _err = _doctor(vault)
    assert code == 0 and report["ok"] is True and report["outside_layout_count"] == 0, report
