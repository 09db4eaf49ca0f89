"""Issue 34.6: long work shows its progress. On a terminal, `init --from` (and `enable --from`,
which joins the same way), `doctor` and `doctor --reindex` keep one line on stderr saying what they do,
how far along (done/total), how fast and how long is left; nothing of it with `--json` or
without a terminal. Driven on a real pty against a real bare remote."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, git

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._vaultgen import generate_vault

NOTES = 400


@pytest.fixture(scope="module")
def remote(tmp_path_factory) -> Path:
    """A bare remote holding a generated vault of NOTES notes."""
    root = tmp_path_factory.mktemp("progress")
    generate_vault(root / "source", NOTES, groups=4)
    bare = root / "vault.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(root / "source"), str(bare)], check=True)
    return bare


def _on_a_tty(argv: list[str], vault: Path, cwd: Path) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pty: (exit code, stdout, what the terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", *argv],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=cli_env(vault), cwd=cwd,
    )  # fmt: skip
    os.close(slave)
    shown = _drain(master)
    out, _ = proc.communicate(timeout=60)
    return proc.returncode, out.decode(), shown


def _drain(master: int) -> str:
    """What the terminal showed until the process closed it; closes it."""
    shown = b""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the pty closed: the process ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return shown.decode(errors="replace")


def test_init_from_shows_each_stage_on_a_terminal(remote: Path, tmp_path: Path):
    vault = tmp_path / "joined"
    argv = ["memory", "init", "--from", f"file://{remote}", "--vault", str(vault)]
    code, out, shown = _on_a_tty(argv, vault, tmp_path)
    assert code == 0, shown + out
    assert "\rjudging files: " in shown and "\rindexing files: " in shown, shown
    assert re.search(r"indexing files: (\d+)/\1\b", shown) and re.search(r"judging files: (\d+)/\1\b", shown), shown
    assert shown.endswith("\n") or shown.endswith("\r\n"), repr(shown[-80:])  # the line is ended
    assert "judging" not in out and "indexing" not in out  # stderr only
    assert git(vault, "status", "--porcelain") == ""


def test_enable_from_shows_the_joining_on_a_terminal(remote: Path, tmp_path: Path):
    """`enable --from` joins as `init --from` does, so it shows the same stages, then its steps."""
    from tests.helpers.homes import home_env

    home = tmp_path / "home"
    home.mkdir()
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "enable", "--from", f"file://{remote}"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=home_env(home), cwd=home,
    )  # fmt: skip
    os.close(slave)
    out, _ = proc.communicate(timeout=240)
    shown = _drain(master)
    assert proc.returncode == 0, shown + out.decode()
    assert re.search(r"judging files: (\d+)/\1\b", shown) and re.search(r"indexing files: (\d+)/\1\b", shown), shown
    assert out.decode().startswith("vault      done      joined"), out.decode()


def test_init_from_with_json_or_without_a_terminal_shows_no_progress(remote: Path, tmp_path: Path):
    vault = tmp_path / "quiet"
    code, out, shown = _on_a_tty(
        ["memory", "init", "--from", f"file://{remote}", "--vault", str(vault), "--json"], vault, tmp_path
    )
    assert code == 0 and '"schema": "jacked.init.v1"' in out, shown + out
    assert "judging" not in shown and "indexing" not in shown, shown
    plain = subprocess.run(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "init", "--from", f"file://{remote}",
         "--vault", str(tmp_path / "piped")],
        capture_output=True, text=True, env=cli_env(tmp_path / "piped"), cwd=tmp_path, timeout=240,
    )  # fmt: skip
    assert plain.returncode == 0 and "judging" not in plain.stderr and "indexing" not in plain.stderr, plain.stderr


def test_doctor_reindex_says_how_many_of_how_many(remote: Path, tmp_path: Path):
    vault = tmp_path / "doctored"
    subprocess.run(["git", "clone", "-q", str(remote), str(vault)], check=True)
    code, _out, shown = _on_a_tty(["memory", "doctor", "--reindex", "--vault", str(vault)], vault, tmp_path)
    assert code in (0, 1), shown
    done = re.search(r"indexing files: (\d+)/\1\b", shown)  # how far, of how many: all of them at the end
    assert done and int(done[1]) == NOTES, shown  # the files the index reads: here, the notes


def test_the_progress_line_says_rate_and_time_left():
    from jacked_vault.frontend.output import progress_text

    assert progress_text("indexing notes", 250, 1000, 2.0) == "indexing notes: 250/1000 (125/s, ~6s left)"
    assert progress_text("files read", 40, None, 2.0) == "files read: 40 (20/s)"
    assert progress_text("judging files", 3, 10, 0.1) == "judging files: 3/10"  # too early for a rate


def test_a_big_sync_shows_its_judging_on_a_terminal(remote: Path, tmp_path: Path):
    """`sync` bringing many notes (a machine that joined while the vault was new) says how far
    judging them is; with `--json`, nothing."""
    from conftest import run_cli

    first = git(remote, "rev-list", "--max-parents=0", "HEAD").split()[0]  # the vault's first commit
    early = tmp_path / "early.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(early)], check=True)
    shown_for = {}
    for mode in ("text", "json"):
        vault = tmp_path / mode
        push = ["git", "-C", str(remote), "push", "-q", "-f", str(early)]
        subprocess.run([*push, f"{first}:refs/heads/main"], check=True)  # the vault when this machine joined
        assert run_cli("memory", "init", "--from", f"file://{early}", vault=vault).code == 0
        subprocess.run([*push, "main:main"], check=True)  # then the team's notes
        argv = ["memory", "sync", "--vault", str(vault)] + (["--json"] if mode == "json" else [])
        code, out, shown_for[mode] = _on_a_tty(argv, vault, tmp_path)
        assert code == 0 and ("fast-forward" in out), shown_for[mode] + out
    assert re.search(r"judging files: (\d+)/\1\b", shown_for["text"]), shown_for["text"]
    assert "judging" not in shown_for["json"], shown_for["json"]


def test_plain_doctor_shows_its_checks_on_a_terminal_and_nothing_with_json(remote: Path, tmp_path: Path):
    """Issue 34.4/34.6: plain doctor (the index current) says how far its object check and its
    audit check are; with --json, nothing; once their verdicts are kept (nothing changed), neither
    runs, so neither is shown."""
    vault = tmp_path / "checked"
    subprocess.run(["git", "clone", "-q", str(remote), str(vault)], check=True)
    code, _out, _shown = _on_a_tty(["memory", "search", "note", "--vault", str(vault)], vault, tmp_path)  # the index
    code, out, shown = _on_a_tty(["memory", "doctor", "--vault", str(vault)], vault, tmp_path)
    assert code == 0, shown + out
    objects = re.search(r"checking objects: (\d+)/\1\b", shown)
    assert objects and int(objects[1]) > NOTES, shown  # every file of the tree: the notes, index.md, the audit log
    assert re.search(rf"checking notes against the audit log: {NOTES}/{NOTES}\b", shown), shown
    assert "indexing files" not in shown, shown  # the index was current
    assert "checking" not in out and (shown.endswith("\n") or shown.endswith("\r\n")), repr(shown[-80:])
    code, out, shown = _on_a_tty(["memory", "doctor", "--json", "--vault", str(vault)], vault, tmp_path)
    assert code == 0 and '"schema": "jacked.doctor.v1"' in out and "checking" not in shown, shown
    code, out, shown = _on_a_tty(["memory", "doctor", "--vault", str(vault)], vault, tmp_path)
    assert code == 0 and "checking" not in shown, shown  # the walk and the notes' verdicts kept
