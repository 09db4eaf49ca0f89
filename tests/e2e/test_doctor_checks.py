"""doctor sees what the index never reads (issue 18.15): committed files outside the vault layout
(reported, bounded and counted, never ok), and the git objects of the current tree: plain doctor
finds each one there and reads the trees and the blobs it needs itself, `--full` reads every one
(issue 34.4), checked like `git fsck` does for loose objects (inflated and hashed here), so a
truncated or otherwise damaged object is reported with its fix instead of hanging doctor or
failing it with "run doctor". Real vaults, real git, the real CLI in a subprocess."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import cli_env, git, run_cli
from helpers.damage import flip

from tests.helpers import cli_fork
from tests.helpers.state import state_dir

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
    """doctor --json in a process of its own that must answer within `timeout` seconds."""
    proc = cli_fork.jacked(
        ["memory", "doctor", *args, "--json"], env=cli_env(vault), cwd=vault.parent, stdin=None, timeout=timeout
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
def test_a_damaged_loose_note_blob_is_found_by_full_and_plain_doctor_says_how(tmp_path: Path, damage: str):
    """Issue 34.4: plain doctor reads no note's object (the index already judged each one); it
    checks every object of the current tree is there, and says `--full` reads and checks each
    (promptly: libgit2 1.9 never returns from reading some truncated ones)."""
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
    assert code == 0 and report["ok"] and report["git_problems"] == [] and report["full"] is False, report
    text = run_cli("memory", "doctor", vault=vault)
    assert text.code == 0 and "`jacked memory doctor --full`" in text.out, text.out  # how to run the object check
    (state_dir(vault) / "index.sqlite").unlink()  # the index reads every object again, and cannot read this one
    code, report, err = _doctor(vault)  # its verdict (UNREADABLE) has plain doctor check that object in full
    assert code == 1 and [p["object"] for p in report["git_problems"]] == [sha], report
    assert report["invalid_files"] == [] and "Traceback" not in err, report  # said once, with its fix

    code, report, err = _doctor(vault, "--full")

    assert code == 1 and report["ok"] is False and report["full"] is True, err
    [problem] = [p for p in report["git_problems"] if p.get("object") == sha]
    assert problem["code"] == "OBJECTS_MISSING_OR_CORRUPT" and sha[:12] in problem["problem"], problem
    assert problem["path"] == f"group:{rel}" and "Traceback" not in err, problem
    assert "in history" not in problem["problem"], problem  # of the current tree, said once
    # `git fetch` never sends an object the vault already claims: the fix writes it again from the working file
    assert f"hash-object -w -- {rel}" in problem["fix"], problem
    _fixed_by(problem["fix"])
    code, report, err = _doctor(vault, "--full")
    assert code == 0 and report["ok"], report


def test_a_missing_note_blob_of_the_current_tree_is_found_by_plain_doctor(tmp_path: Path):
    """Plain doctor reads no note's object, but every one of the current tree must be there
    (as `git fsck --connectivity-only` checks)."""
    vault, rel = _vault_with_a_note(tmp_path)
    sha = git(vault, "rev-parse", f"HEAD:{rel}").strip()
    _loose(vault, sha).unlink()

    code, report, err = _doctor(vault)

    assert code == 1 and "Traceback" not in err, report
    [problem] = report["git_problems"]
    assert problem["code"] == "OBJECTS_MISSING_OR_CORRUPT" and problem["path"] == f"group:{rel}", problem
    assert sha[:12] in problem["problem"] and "missing" in problem["problem"], problem


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


# -- a damaged object by name and path; the other checks still run; `doctor --full` (issue 31.10) --


def _damage(vault: Path, sha: str, how: str) -> None:
    """`loose`: a byte of its loose object file; `packed`: a byte of its data in the pack `git gc`
    made (the last byte of its zlib stream: its checksum); `missing`: its loose file removed."""
    if how == "loose":
        flip(_loose(vault, sha))
    elif how == "missing":
        _loose(vault, sha).unlink()
    else:
        git(vault, "gc", "-q")
        assert not (vault / ".git" / "objects" / sha[:2] / sha[2:]).exists(), "the object is packed"
        [idx] = (vault / ".git" / "objects" / "pack").glob("*.idx")
        [line] = [line for line in git(vault, "verify-pack", "-v", str(idx)).splitlines() if line.startswith(sha)]
        size_in_pack, offset = (int(field) for field in line.split()[3:5])
        flip(idx.with_suffix(".pack"), offset + size_in_pack - 1)
    assert subprocess.run(["git", "-C", str(vault), "fsck", "--full"], capture_output=True).returncode != 0


def _fixed_by(fix: str, **names: str) -> None:
    """Run the first command the fix names (between backticks), its placeholders filled in."""
    command = fix.split("`")[1]
    for name, value in names.items():
        command = command.replace(name, value)
    subprocess.run(["sh", "-c", command], check=True, capture_output=True)


@pytest.mark.parametrize("storage", ["loose", "packed"])
@pytest.mark.parametrize("rel", ["vault.json", "groups/g/index.md"])
def test_a_damaged_blob_of_vault_json_or_index_md_is_named_and_every_other_check_runs(
    tmp_path: Path, rel: str, storage: str
):
    import os
    import time

    vault, _ = _vault_with_a_note(tmp_path)
    sha = git(vault, "rev-parse", f"HEAD:{rel}").strip()
    _damage(vault, sha, storage)
    (vault / "groups" / "g" / "note" / ".jacked-tmp-left").write_text("a crash's leftover")  # checked later
    lock = vault / ".git" / "HEAD.lock"  # and a git lock a killed git left, checked last
    lock.write_text("")
    os.utime(lock, (time.time() - 3600, time.time() - 3600))

    code, report, err = _doctor(vault)

    assert code == 1 and "error" not in report and "Traceback" not in err, report
    [damaged] = [p for p in report["git_problems"] if p.get("object") == sha]
    assert damaged["code"] == "OBJECTS_MISSING_OR_CORRUPT" and damaged["path"] == f"vault:{rel}", damaged
    assert sha[:12] in damaged["problem"] and "corrupt" in damaged["problem"], damaged
    assert report["memory_count"] == 1  # the index was read
    assert report["stale_temp_files"] == 1 and report["stale_git_locks"] == ["vault:.git/HEAD.lock"], report
    text = run_cli("memory", "doctor", vault=vault).out
    assert f"vault:{rel}" in text and sha[:12] in text and "HEAD.lock" in text, text
    head = git(vault, "rev-parse", "HEAD")
    code, repaired, _ = _doctor(vault, "--repair")  # repair compares files with HEAD's: it waits
    assert code == 1 and any(p["code"] == "REPAIR_HELD" for p in repaired["git_problems"]), repaired
    assert git(vault, "rev-parse", "HEAD") == head and repaired["stale_temp_files"] == 1, repaired
    if storage == "packed":
        assert "another clone" in damaged["fix"], damaged  # a damaged pack is not mended in place
        return
    assert f"hash-object -w -- {rel}" in damaged["fix"], damaged  # the working file is that version
    _fixed_by(damaged["fix"])
    lock.unlink()
    (vault / "groups" / "g" / "note" / ".jacked-tmp-left").unlink()
    code, report, _ = _doctor(vault)
    assert code == 0 and report["ok"], report
    assert subprocess.run(["git", "-C", str(vault), "fsck", "--full"], capture_output=True).returncode == 0


@pytest.mark.parametrize("damage", ["loose", "missing", "packed"])
def test_doctor_full_runs_git_fsck_and_names_what_is_damaged_in_history(tmp_path: Path, damage: str):
    vault, _ = _vault_with_a_note(tmp_path)
    old = git(vault, "rev-parse", "HEAD:groups/g/index.md").strip()
    assert run_cli("memory", "add", "--group", "g", "--title", "Beta", "--body", "beta", vault=vault).code == 0
    assert git(vault, "rev-parse", "HEAD:groups/g/index.md").strip() != old  # the old one is history only
    other = tmp_path / "other-clone"
    git(tmp_path, "clone", "-q", "--no-local", str(vault), str(other))  # a clone that has every object
    _damage(vault, old, damage)

    code, report, _ = _doctor(vault)
    assert code == 0 and report["ok"], report  # the current tree is sound: plain doctor reads no history

    code, report, err = _doctor(vault, "--full")

    assert code == 1 and "Traceback" not in err, report
    [problem] = [p for p in report["git_problems"] if p.get("object") == old]
    assert problem["code"] == "OBJECTS_MISSING_OR_CORRUPT" and problem["path"] == "vault:groups/g/index.md", problem
    assert "history" in problem["problem"] and old[:12] in problem["problem"], problem
    assert ("missing" if damage == "missing" else "corrupt") in problem["problem"], problem
    text = run_cli("memory", "doctor", "--full", vault=vault).out
    assert old[:12] in text and "groups/g/index.md" in text, text
    if damage == "packed":
        assert "another clone" in problem["fix"], problem
        return
    assert "OTHER_CLONE" in problem["fix"], problem
    _fixed_by(problem["fix"], OTHER_CLONE=str(other))
    code, report, _ = _doctor(vault, "--full")
    assert code == 0 and report["ok"], report


def test_doctor_full_on_a_sound_vault_is_ok(tmp_path: Path):
    vault, _ = _vault_with_a_note(tmp_path)
    git(vault, "gc", "-q")
    code, report, _ = _doctor(vault, "--full")
    assert code == 0 and report["ok"] and report["git_problems"] == [], report


def test_other_commands_name_a_damaged_blob_they_need_and_change_nothing(tmp_path: Path):
    from conftest import snapshot

    vault, rel = _vault_with_a_note(tmp_path)
    note_id = run_cli("memory", "search", "alpha", "--json", vault=vault).json["results"][0]["id"]
    index_md = git(vault, "rev-parse", "HEAD:groups/g/index.md").strip()
    _damage(vault, index_md, "loose")
    before = snapshot(vault)
    added = run_cli("memory", "add", "--group", "g", "--title", "Beta", "--body", "b", "--json", vault=vault)
    assert added.code == 1 and "Traceback" not in added.err, added
    error = added.json["error"]
    assert error["code"] == "JACKED_MEMORY_GIT", error
    assert "groups/g/index.md" in error["message"] and index_md[:12] in error["message"], error
    assert "jacked memory doctor" in error["message"], error
    assert snapshot(vault) == before  # nothing written
    for args in (("read", note_id), ("search", "alpha"), ("brief",), ("status",)):
        done = run_cli("memory", *args, vault=vault)
        assert done.code == 0 and "Traceback" not in done.err, (args, done)

    note = git(vault, "rev-parse", f"HEAD:{rel}").strip()
    _damage(vault, note, "loose")
    (state_dir(vault) / "index.sqlite").unlink()  # read from git again
    for args in (("search", "alpha"), ("brief",), ("status",)):
        done = run_cli("memory", *args, vault=vault)
        assert done.code == 0 and "Traceback" not in done.err, (args, done)
    read = run_cli("memory", "read", note_id, "--json", vault=vault)
    assert read.code == 1 and read.json["error"]["code"] == "JACKED_MEMORY_INCOMPLETE", read.out
    assert "damaged" in read.json["error"]["message"] and "doctor" in read.json["error"]["message"], read.out


def test_a_truncated_note_object_never_hangs_search_status_or_brief(tmp_path: Path):
    """libgit2 never returns from reading some truncated loose objects: every reader of a blob
    goes through `store.git.read_blob`, which inflates a loose one itself and says it is damaged."""
    vault, rel = _vault_with_a_note(tmp_path)
    sha = git(vault, "rev-parse", f"HEAD:{rel}").strip()
    path = _loose(vault, sha)
    path.write_bytes(path.read_bytes()[:-10])
    (state_dir(vault) / "index.sqlite").unlink()  # the next reader reads every blob from git
    for args in (("search", "alpha"), ("status",), ("brief",), ("doctor",)):
        done = run_cli("memory", *args, vault=vault)
        assert "Traceback" not in done.err, (args, done.err)
        assert done.code == (1 if args == ("doctor",) else 0), (args, done.out, done.err)
    found = run_cli("memory", "search", "alpha", "--json", vault=vault).json["diagnostics"]["invalid_files"]
    assert found == [{"path": f"group:{rel}", "code": "UNREADABLE"}], found


def test_a_damaged_commit_in_history_stops_one_check_only_and_full_names_it(tmp_path: Path):
    vault, _ = _vault_with_a_note(tmp_path)
    assert run_cli("memory", "add", "--group", "g", "--title", "Beta", "--body", "beta", vault=vault).code == 0
    other = tmp_path / "other-clone"
    git(tmp_path, "clone", "-q", "--no-local", str(vault), str(other))
    commit = git(vault, "rev-parse", "HEAD~1").strip()
    _damage(vault, commit, "loose")
    (vault / "groups" / "g" / "note" / ".jacked-tmp-left").write_text("a crash's leftover")

    code, report, err = _doctor(vault)

    assert code == 1 and "error" not in report and "Traceback" not in err, report
    [unfinished] = [p for p in report["git_problems"] if p["code"] == "CHECK_UNFINISHED"]
    assert "audit trailers" in unfinished["problem"] and "--full" in unfinished["fix"], unfinished
    assert report["memory_count"] == 2 and report["stale_temp_files"] == 1, report  # the rest ran

    code, report, err = _doctor(vault, "--full")
    [damaged] = [p for p in report["git_problems"] if p.get("object") == commit]
    assert "commit" in damaged["problem"] and "corrupt" in damaged["problem"], damaged
    assert "nothing needs it" not in damaged["fix"] and "cat-file commit" in damaged["fix"], damaged
    _fixed_by(damaged["fix"], OTHER_CLONE=str(other))
    (vault / "groups" / "g" / "note" / ".jacked-tmp-left").unlink()
    code, report, _ = _doctor(vault, "--full")
    assert code == 0 and report["ok"], report
