"""Rollup: past day files -> recent.md -> archive.md, deterministic, idempotent, one commit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pygit2
import pytest
from conftest import CliResult, cli_env, git, run_cli, snapshot
from helpers.episodic import count_session_entries

from jacked_vault.episodic.rollup import monday, roll_folder, rollup
from jacked_vault.errors import VaultError
from jacked_vault.store import git as store_git
from jacked_vault.store.vault import open_vault
from jacked_vault.write.init import init_vault
from tests.helpers.state import state_dir

IDENTITY = "github.com/acme/api"
FOLDER = "groups/api/episodic/github.com__acme__api"


def jacked(*args: str, vault: Path) -> CliResult:
    """The real `jacked` entry point in a subprocess, with the episodic commands imported
    (main.py registers them once `jacked_vault.cli.episodic` is in its import line)."""
    code = "import sys, jacked_vault.cli.episodic; from jacked_vault.cli.main import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=vault.parent,
        env=cli_env(vault),
        timeout=120,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def day_text(day: str, entries: list[tuple[str, str, str]], identity: str = IDENTITY) -> str:
    """A day file as `append_entry` writes it."""
    parts = [f"# {identity} — {day}\n"]
    for hhmm, branch, sentence in entries:
        parts.append(f"\n## {hhmm} | {branch}\n{sentence}\n")
    return "".join(parts)


def write_days(vault: Path, days: dict[str, str], folder: str = FOLDER) -> None:
    base = vault / folder
    base.mkdir(parents=True, exist_ok=True)
    for day, text in days.items():
        (base / f"today-{day}.md").write_text(text, encoding="utf-8")


def commit_all(vault: Path, message: str = "seed") -> None:
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", message)


def commits(vault: Path) -> int:
    return int(git(vault, "rev-list", "--count", "HEAD").strip())


def read(vault: Path, name: str, folder: str = FOLDER) -> str:
    return (vault / folder / name).read_text(encoding="utf-8")


def all_entries(vault: Path, folder: str = FOLDER) -> int:
    """`HH:MM |` entries in live day files + recent.md + archive.md (not the .done.md copies)."""
    base = vault / folder
    total = 0
    for path in base.iterdir():
        if path.name in ("recent.md", "archive.md") or (
            path.name.startswith("today-") and not path.name.endswith(".done.md")
        ):
            total += count_session_entries(path.read_text(encoding="utf-8"))
    return total


def test_rollup_rolls_past_days_into_recent_and_archives_old_ones(vault_path: Path) -> None:
    d20 = day_text("2026-11-20", [("09:00", "main", "Set up the importer."), ("17:30", "feat/x", "Wrote the parser.")])
    d26 = day_text("2026-11-26", [("10:15", "feat/x", "Reviewed the archive layout.")])
    d27 = day_text("2026-11-27", [("08:30", "main", "Rebased."), ("18:45", "feat/x", "Handed over.")])
    d28 = day_text("2026-11-28", [("09:00", "main", "Today: not rolled.")])
    write_days(vault_path, {"2026-11-20": d20, "2026-11-26": d26, "2026-11-27": d27, "2026-11-28": d28})
    commit_all(vault_path)
    before = commits(vault_path)

    result = rollup(open_vault(vault_path), today=date(2026, 11, 28), harness="tester")

    assert result.commit is not None and commits(vault_path) == before + 1
    assert read(vault_path, "recent.md") == (
        "# Recent\n\n"
        "## 2026-11-26\n### 10:15 | feat/x\nReviewed the archive layout.\n\n"
        "## 2026-11-27\n### 08:30 | main\nRebased.\n\n### 18:45 | feat/x\nHanded over.\n"
    )
    # 2026-11-20 is 8 days before the 28th: straight to the archive, in the week of Monday the 16th.
    assert read(vault_path, "archive.md") == (
        "# Archive\n\n## Week of 2026-11-16\n### 2026-11-20\n"
        "#### 09:00 | main\nSet up the importer.\n\n#### 17:30 | feat/x\nWrote the parser.\n"
    )
    base = vault_path / FOLDER
    for day, text in (("2026-11-20", d20), ("2026-11-26", d26), ("2026-11-27", d27)):
        assert not (base / f"today-{day}.md").exists()
        assert (base / f"today-{day}.done.md").read_text(encoding="utf-8") == text  # renamed, byte for byte
    assert read(vault_path, "today-2026-11-28.md") == d28
    # The commit has everything: git status is clean, HEAD's tree has the renames.
    assert git(vault_path, "status", "--porcelain") == ""
    tree = git(vault_path, "ls-tree", "-r", "--name-only", "HEAD", FOLDER).split()
    assert f"{FOLDER}/today-2026-11-20.md" not in tree and f"{FOLDER}/today-2026-11-20.done.md" in tree
    message = git(vault_path, "log", "-1", "--format=%B")
    assert message.startswith("memory(rollup): 3 day(s) rolled, 1 archived in 1 repo(s) as of 2026-11-28")
    # One audit line per changed file: 3 .done.md + 3 removed day files + recent.md + archive.md.
    lines = [json.loads(x) for p in (vault_path / "audit").rglob("*.jsonl") for x in p.read_text().splitlines()]
    rolled = [x for x in lines if x["op"] == "rollup"]
    assert len(rolled) == 8 and {x["id"] for x in rolled} == {f"episodic:{IDENTITY}"}
    assert {x["path"] for x in rolled if x["sha256"] is None} == {
        f"{FOLDER}/today-2026-11-{d}.md" for d in (20, 26, 27)
    }
    assert result.to_json()["repos"][0]["archived"] == ["2026-11-20"]


def test_second_rollup_changes_nothing_and_makes_no_commit(vault_path: Path) -> None:
    write_days(
        vault_path,
        {f"2026-11-{d:02d}": day_text(f"2026-11-{d:02d}", [("09:00", "main", f"Day {d}.")]) for d in range(1, 29)},
    )
    commit_all(vault_path)
    store = open_vault(vault_path)
    first = rollup(store, today=date(2026, 11, 28))
    assert first.commit is not None
    before = snapshot(vault_path)
    second = rollup(store, today=date(2026, 11, 28))
    assert second.commit is None and not second.changed
    assert snapshot(vault_path) == before  # byte-identical files, same HEAD, same git index


def test_out_of_order_days_and_rollups_keep_sections_sorted(vault_path: Path) -> None:
    store = open_vault(vault_path)
    write_days(vault_path, {"2026-11-25": day_text("2026-11-25", [("09:00", "main", "The 25th.")])})
    commit_all(vault_path)
    rollup(store, today=date(2026, 11, 28))
    # Late day files for earlier days, one of them already old enough for the archive.
    write_days(
        vault_path,
        {
            "2026-11-22": day_text("2026-11-22", [("11:00", "main", "The 22nd.")]),
            "2026-11-12": day_text("2026-11-12", [("12:00", "main", "The 12th.")]),
            "2026-11-27": day_text("2026-11-27", [("13:00", "main", "The 27th.")]),
        },
    )
    commit_all(vault_path)
    rollup(store, today=date(2026, 11, 28))
    recent = read(vault_path, "recent.md")
    assert [line for line in recent.splitlines() if line.startswith("## ")] == [
        "## 2026-11-22",
        "## 2026-11-25",
        "## 2026-11-27",
    ]
    # A later rollup date archives in date order even though the days arrived out of order.
    write_days(vault_path, {"2026-11-02": day_text("2026-11-02", [("08:00", "main", "The 2nd.")])})
    commit_all(vault_path)
    rollup(store, today=date(2026, 12, 5))
    # ... and an earlier --today afterwards finds nothing to do.
    assert rollup(store, today=date(2026, 11, 30)).commit is None
    archive = read(vault_path, "archive.md")
    headers = [line for line in archive.splitlines() if line.startswith("#")]
    assert headers == [
        "# Archive",
        "## Week of 2026-11-02",
        "### 2026-11-02",
        "#### 08:00 | main",
        "## Week of 2026-11-09",
        "### 2026-11-12",
        "#### 12:00 | main",
        "## Week of 2026-11-16",
        "### 2026-11-22",
        "#### 11:00 | main",
        "## Week of 2026-11-23",
        "### 2026-11-25",
        "#### 09:00 | main",
        "### 2026-11-27",
        "#### 13:00 | main",
    ]
    assert read(vault_path, "recent.md") == "# Recent\n"
    assert all_entries(vault_path) == 5


def test_late_entries_for_a_rolled_day_are_appended_not_lost(vault_path: Path) -> None:
    store = open_vault(vault_path)
    first = day_text("2026-11-26", [("09:00", "main", "Morning.")])
    write_days(vault_path, {"2026-11-26": first})
    commit_all(vault_path)
    rollup(store, today=date(2026, 11, 27))
    late = day_text("2026-11-26", [("23:50", "main", "A late capture for the 26th.")])
    write_days(vault_path, {"2026-11-26": late})
    commit_all(vault_path)
    rollup(store, today=date(2026, 11, 27))
    assert read(vault_path, "recent.md") == (
        "# Recent\n\n## 2026-11-26\n### 09:00 | main\nMorning.\n\n### 23:50 | main\nA late capture for the 26th.\n"
    )
    done = read(vault_path, "today-2026-11-26.done.md")
    assert done.startswith(first.rstrip("\n")) and done.endswith("## 23:50 | main\nA late capture for the 26th.\n")
    assert count_session_entries(done) == 2


def test_a_day_file_left_beside_its_done_copy_is_resumed_never_repeated(vault_path: Path) -> None:
    """Issue 33.16: an interrupted earlier run left the day file, its `.done.md` copy and recent.md
    already holding that day's entries; the next rollup (the real CLI) adds each entry once, takes
    a late entry the leftover also holds, and removes the leftover."""
    first = day_text("2026-11-26", [("09:00", "main", "Morning."), ("12:00", "feat/x", "Noon.")])
    write_days(vault_path, {"2026-11-26": first})
    commit_all(vault_path)
    assert jacked("memory", "rollup", "--today", "2026-11-27", "--json", vault=vault_path).json["changed"] is True
    recent = read(vault_path, "recent.md")
    assert recent.count("Morning.") == 1 and read(vault_path, "today-2026-11-26.done.md") == first
    write_days(vault_path, {"2026-11-26": first + "\n## 23:50 | main\nLate.\n"})  # the leftover, and one late entry
    commit_all(vault_path, "the interrupted run's leftover")

    done = jacked("memory", "rollup", "--today", "2026-11-27", "--json", vault=vault_path)

    assert done.code == 0, done.out + done.err
    recent, copy = read(vault_path, "recent.md"), read(vault_path, "today-2026-11-26.done.md")
    for sentence in ("Morning.", "Noon.", "Late."):
        assert recent.count(sentence) == 1 and copy.count(sentence) == 1, (sentence, recent, copy)
    assert recent.count("## 2026-11-26") == 1
    assert not (vault_path / FOLDER / "today-2026-11-26.md").exists()
    assert git(vault_path, "status", "--porcelain") == ""
    assert jacked("memory", "rollup", "--today", "2026-11-27", "--json", vault=vault_path).json["changed"] is False


def test_day_file_with_no_entries_is_renamed_without_a_section(vault_path: Path) -> None:
    write_days(
        vault_path,
        {
            "2026-11-25": f"# {IDENTITY} — 2026-11-25\n",
            "2026-11-26": "",
            "2026-11-27": day_text("2026-11-27", [("09:00", "main", "Something.")]),
        },
    )
    commit_all(vault_path)
    result = rollup(open_vault(vault_path), today=date(2026, 11, 28))
    repo = result.to_json()["repos"][0]
    assert repo["rolled"] == ["2026-11-25", "2026-11-26", "2026-11-27"] and repo["empty"] == [
        "2026-11-25",
        "2026-11-26",
    ]
    assert read(vault_path, "recent.md") == "# Recent\n\n## 2026-11-27\n### 09:00 | main\nSomething.\n"
    assert read(vault_path, "today-2026-11-26.done.md") == ""
    assert git(vault_path, "status", "--porcelain") == ""


def test_a_year_of_day_files_conserves_every_entry(vault_path: Path) -> None:
    start = date(2025, 11, 28)
    days = {}
    for i in range(365):
        day = (start + timedelta(days=i)).isoformat()
        days[day] = day_text(
            day, [(f"{8 + j:02d}:{(i + j) % 60:02d}", "main", f"Entry {j} of {day}.") for j in range(5)]
        )
    write_days(vault_path, days)
    commit_all(vault_path)
    before = commits(vault_path)
    total = all_entries(vault_path)
    assert total == 365 * 5
    today = start + timedelta(days=365)

    result = rollup(open_vault(vault_path), today=today)

    assert commits(vault_path) == before + 1 and git(vault_path, "status", "--porcelain") == ""
    assert all_entries(vault_path) == total
    assert len(result.repos[0].rolled) == 365
    base = vault_path / FOLDER
    assert sorted(p.name for p in base.glob("today-*.md") if not p.name.endswith(".done.md")) == []
    assert all((base / f"today-{d}.done.md").read_text(encoding="utf-8") == t for d, t in days.items())
    recent_days = [line[3:] for line in read(vault_path, "recent.md").splitlines() if line.startswith("## ")]
    assert recent_days == [(today - timedelta(days=n)).isoformat() for n in range(7, 0, -1)]
    archive = read(vault_path, "archive.md").splitlines()
    weeks = [date.fromisoformat(line[len("## Week of ") :]) for line in archive if line.startswith("## Week of ")]
    assert weeks == sorted(weeks) and all(w.weekday() == 0 for w in weeks)
    archived_days = [date.fromisoformat(line[4:]) for line in archive if line.startswith("### ")]
    assert archived_days == sorted(archived_days) and len(archived_days) == 358
    assert all(monday(d) in weeks for d in archived_days)
    # Second run: nothing to do.
    assert rollup(open_vault(vault_path), today=today).commit is None


def test_scope_all_groups_by_default_or_narrowed_by_group_and_repo(vault_path: Path) -> None:
    other = "groups/web/episodic/github.com__acme__web"
    third = "groups/api/episodic/github.com__acme__worker"
    for folder in (FOLDER, other, third):
        write_days(vault_path, {"2026-11-27": day_text("2026-11-27", [("09:00", "main", "x")])}, folder)
    commit_all(vault_path)
    store = open_vault(vault_path)
    only_web = rollup(store, today=date(2026, 11, 28), group="web")
    assert [r.folder for r in only_web.repos] == [other]
    only_worker = rollup(store, today=date(2026, 11, 28), repo="github.com/acme/worker")
    assert [r.folder for r in only_worker.repos] == [third]
    rest = rollup(store, today=date(2026, 11, 28))
    assert [r.folder for r in rest.repos] == [FOLDER]
    with pytest.raises(VaultError) as err:
        rollup(store, repo="../etc")
    assert err.value.code == "USAGE"


def test_symlinked_day_file_is_skipped_and_never_followed(vault_path: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("## 09:00 | main\nnot vault content\n")
    write_days(vault_path, {"2026-11-26": day_text("2026-11-26", [("09:00", "main", "Real.")])})
    (vault_path / FOLDER / "today-2026-11-25.md").symlink_to(outside)
    result = rollup(open_vault(vault_path), today=date(2026, 11, 28))
    repo = result.to_json()["repos"][0]
    assert repo["rolled"] == ["2026-11-26"]
    assert repo["skipped"] == [
        {"file": f"vault:{FOLDER}/today-2026-11-25.md", "reason": "symlink, never followed; day left in place"}
    ]
    assert (vault_path / FOLDER / "today-2026-11-25.md").is_symlink()
    assert "not vault content" not in read(vault_path, "recent.md")


def test_a_failed_commit_puts_every_file_back(vault_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_days(
        vault_path,
        {
            "2026-11-10": day_text("2026-11-10", [("09:00", "main", "Old.")]),
            "2026-11-26": day_text("2026-11-26", [("09:00", "main", "New.")]),
        },
    )
    commit_all(vault_path)
    before = snapshot(vault_path)

    def refuse(*args, **kwargs):
        raise VaultError("LOCKED", "git refused the commit (test)")

    monkeypatch.setattr(store_git, "commit_files", refuse)
    with pytest.raises(VaultError):
        rollup(open_vault(vault_path), today=date(2026, 11, 28))
    assert snapshot(vault_path) == before  # removed day files restored, new files gone


def test_commit_files_removes_a_path_and_drops_empty_folders(vault_path: Path) -> None:
    repo = pygit2.Repository(str(vault_path))
    (vault_path / "a" / "b").mkdir(parents=True)
    (vault_path / "a" / "b" / "only.md").write_text("x\n")
    (vault_path / "a" / "keep.md").write_text("y\n")
    store_git.commit_files(repo, {"a/b/only.md": b"x\n", "a/keep.md": b"y\n"}, "add")
    os.unlink(vault_path / "a" / "b" / "only.md")
    store_git.commit_files(repo, {"a/b/only.md": None, "a/missing/none.md": None}, "remove")
    tree = repo.head.peel().tree
    assert "b" not in repo[tree["a"].id] and "missing" not in repo[tree["a"].id]
    assert [e.name for e in repo[tree["a"].id]] == ["keep.md"]
    assert git(vault_path, "status", "--porcelain", "--untracked-files=no") == ""


def test_cli_rollup_json_human_and_usage_errors(vault_path: Path) -> None:
    write_days(vault_path, {"2026-11-27": day_text("2026-11-27", [("09:00", "main", "Via the CLI.")])})
    commit_all(vault_path)
    out = jacked("memory", "rollup", "--today", "2026-11-28", "--json", vault=vault_path)
    assert out.code == 0, out.err
    payload = out.json
    assert payload["schema"] == "jacked.rollup.v1" and payload["ok"] is True and payload["changed"] is True
    assert payload["rolled"] == 1 and payload["repos"][0]["repo"] == IDENTITY
    again = jacked("memory", "rollup", "--today", "2026-11-28", vault=vault_path)
    assert again.code == 0 and "Nothing to roll up as of 2026-11-28" in again.out
    bad = jacked("memory", "rollup", "--today", "28/11/2026", "--json", vault=vault_path)
    assert bad.code == 2 and bad.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    doctor = jacked("memory", "doctor", "--json", vault=vault_path)
    assert doctor.code == 0 and doctor.json["ok"] is True, doctor.out


def test_roll_folder_is_pure_and_deterministic() -> None:
    files = {
        "today-2026-11-27.md": day_text("2026-11-27", [("09:00", "main", "x")]).encode(),
        "recent.md": b"# Recent\n\n## 2026-11-01\n### 09:00 | main\nold\n",
    }
    a = roll_folder(date(2026, 11, 28), dict(files))
    b = roll_folder(date(2026, 11, 28), dict(files))
    assert a.writes == b.writes and set(a.writes) == {
        "today-2026-11-27.md",
        "today-2026-11-27.done.md",
        "recent.md",
        "archive.md",
    }
    # Foreign text in recent.md (a preamble, an undated section, a code fence with a `## ` line) is kept.
    foreign = b"# Recent\nkept preamble\n\n## Notes\nkept\n\n## 2026-11-01\n```\n## 09:00 | not a header\n```\n"
    c = roll_folder(date(2026, 11, 28), {"recent.md": foreign})
    assert c.writes["recent.md"] == b"# Recent\nkept preamble\n\n## Notes\nkept\n"
    assert b"## 09:00 | not a header" in c.writes["archive.md"]


# A rollup killed with SIGKILL (no undo, no finally) at a real point of its write sequence.
KILLED_ROLLUP = """
import os, signal, sys
from pathlib import Path
from datetime import date
from jacked_vault.safety import fsio
from jacked_vault.store import git
from jacked_vault.episodic.rollup import rollup
from jacked_vault.store.vault import open_vault

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

if sys.argv[3] == "before-remove":  # recent.md, archive.md and the .done.md files written
    fsio.remove_file = die
else:  # every file written and the day files removed: only the commit is missing
    git.commit_files = die
rollup(open_vault(Path(sys.argv[1])), today=date.fromisoformat(sys.argv[2]))
"""


@pytest.mark.parametrize("point", ["before-remove", "before-commit"])
def test_rollup_killed_before_its_commit_is_completed_once_by_the_next_rollup(vault_path: Path, point: str) -> None:
    days = {
        "2026-11-20": day_text(
            "2026-11-20", [("09:00", "main", "Old enough to archive."), ("17:30", "feat/x", "Wrote the parser.")]
        ),
        "2026-11-27": day_text("2026-11-27", [("08:30", "main", "Rebased."), ("18:45", "feat/x", "Handed over.")]),
        "2026-11-30": day_text("2026-11-30", [("09:00", "main", "Today: not rolled.")]),
    }
    write_days(vault_path, days)
    commit_all(vault_path)
    head = git(vault_path, "rev-parse", "HEAD")
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_ROLLUP, str(vault_path), "2026-11-30", point],
        env=cli_env(vault_path),
        timeout=120,
    )
    assert killed.returncode == -9 and git(vault_path, "rev-parse", "HEAD") == head
    assert "recent.md" in git(vault_path, "status", "--porcelain")  # the crash left its partial work behind

    again = jacked("memory", "rollup", "--today", "2026-11-30", "--json", vault=vault_path)

    assert again.code == 0, again.out + again.err
    assert (
        again.json["changed"] is True
        and commits(vault_path) == int(git(vault_path, "rev-list", "--count", head.strip())) + 1
    )
    assert f"vault:{FOLDER}/recent.md" in again.json["recovered"]
    assert not (state_dir(vault_path) / "rollup-pending.json").exists()
    recent, archive = read(vault_path, "recent.md"), read(vault_path, "archive.md")
    for sentence in ("Rebased.", "Handed over."):
        assert recent.count(sentence) == 1 and sentence not in archive
    for sentence in ("Old enough to archive.", "Wrote the parser."):
        assert archive.count(sentence) == 1 and sentence not in recent
    assert recent.count("## 2026-11-27") == 1 and archive.count("### 2026-11-20") == 1
    base = vault_path / FOLDER
    for day in ("2026-11-20", "2026-11-27"):
        assert not (base / f"today-{day}.md").exists()
        assert (base / f"today-{day}.done.md").read_text(encoding="utf-8") == days[day]
    assert read(vault_path, "today-2026-11-30.md") == days["2026-11-30"]
    assert git(vault_path, "status", "--porcelain") == ""
    doctor = jacked("memory", "doctor", "--json", vault=vault_path)
    assert doctor.code == 0 and doctor.json["ok"] is True, doctor.out
    assert jacked("memory", "rollup", "--today", "2026-11-30", "--json", vault=vault_path).json["changed"] is False


def _seed_rolled_vault(vault: Path) -> dict[str, int]:
    """A vault a rollup already went through (recent.md with two days, their .done.md copies),
    then late entries for one of those days (in a leftover day file that holds a rolled entry too),
    a leftover copy of the other, a new past day and today's file: what the next
    rollup has to append to a .done.md, fold into recent.md and move on to archive.md.
    Returns every sentence -> how many times the vault must hold it once rolled up."""
    write_days(
        vault,
        {
            "2026-11-20": day_text(
                "2026-11-20", [("09:00", "main", "Sentence one."), ("17:30", "feat/x", "Sentence two.")]
            ),
            "2026-11-27": day_text("2026-11-27", [("08:30", "main", "Sentence three.")]),
        },
    )
    commit_all(vault)
    assert rollup(open_vault(vault), today=date(2026, 11, 28)).changed
    # Late entries for the 27th in a day file an interrupted earlier rollup left beside its .done.md
    # copy (issue 33.16: the 27th's rolled entry again), and the 20th's leftover, byte for byte.
    write_days(vault, {
        "2026-11-20": read(vault, "today-2026-11-20.done.md"),
        "2026-11-27": day_text(
            "2026-11-27", [("08:30", "main", "Sentence three."), ("23:50", "main", "Sentence four, late.")]
        ),
        "2026-12-02": day_text("2026-12-02", [("10:00", "main", "Sentence five.")]),
        "2026-12-05": day_text("2026-12-05", [("09:00", "main", "Sentence six, today.")]),
    })  # fmt: skip
    commit_all(vault, "late entries and new days")
    return {f"Sentence {n}": 1 for n in ("one.", "two.", "three.", "four, late.", "five.", "six, today.")}


def _held(vault: Path) -> dict[str, int]:
    """How often each `Sentence …` is held by recent.md, archive.md and the live day files."""
    base, found = vault / FOLDER, {}
    for path in base.iterdir():
        if path.name in ("recent.md", "archive.md") or (
            path.name.startswith("today-") and not path.name.endswith(".done.md")
        ):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.startswith("Sentence "):
                    found[line] = found.get(line, 0) + 1
    return found


@pytest.mark.slow
@pytest.mark.parametrize("then", ["rollup", "add", "killed-again"])
def test_a_rollup_killed_at_any_step_is_resumed_never_repeated(vault_path: Path, tmp_path: Path, then: str) -> None:
    """Issue 18.14: kill -9 a rollup after each of its working-tree writes (recent.md, archive.md,
    a .done.md written or appended, a day file removed, the audit file) and right after its
    commit; whatever the next write is (another rollup; an unrelated `add`, then the rollup; a
    rollup killed too, at its first write, then one more), every entry is held exactly once,
    each .done.md holds its day once, the tree equals HEAD and doctor is clean."""
    from helpers.faults import KILL_AT_WRITE

    script = tmp_path / "kill_at_write.py"
    script.write_text(KILL_AT_WRITE)
    rollup_args = ["memory", "rollup", "--today", "2026-12-05", "--json"]
    killed = 0
    for point in [*range(1, 16), "commit"]:
        vault = tmp_path / f"vault-{point}"  # a fresh vault per point
        init_vault(vault)
        expected = _seed_rolled_vault(vault)
        head = git(vault, "rev-parse", "HEAD")
        proc = subprocess.run(
            [sys.executable, str(script), str(vault), str(point), *rollup_args],
            env=cli_env(vault),
            cwd=vault.parent,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode == 0 and point != "commit":
            continue  # fewer writes than `point`
        assert proc.returncode == -9, f"killed at {point}: rc={proc.returncode} {proc.stderr[-2000:]}"
        killed += 1
        if then == "add":
            added = run_cli(
                "memory", "add", "--group", "api", "--title", f"Unrelated {point}", "--body", "b", "--json", vault=vault
            )
            assert added.code == 0, added.out + added.err
        if then == "killed-again":
            again = subprocess.run(
                [sys.executable, str(script), str(vault), "1", *rollup_args],
                env=cli_env(vault),
                cwd=vault.parent,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert again.returncode in (0, -9), again.stderr[-2000:]
        done = run_cli(*rollup_args, vault=vault)
        assert done.code == 0, done.out + done.err
        if point == "commit":  # the git index a kill right after the commit left behind: repair re-stages it
            assert run_cli("memory", "doctor", "--repair", "--json", vault=vault).code == 0
        assert _held(vault) == expected, f"killed at {point}, then {then}: {_held(vault)}"
        base = vault / FOLDER
        assert (base / "today-2026-11-27.done.md").read_text(encoding="utf-8").count("Sentence four, late.") == 1
        assert (base / "today-2026-11-27.done.md").read_text(encoding="utf-8").count("Sentence three.") == 1
        assert (base / "today-2026-12-02.done.md").read_text(encoding="utf-8").count("Sentence five.") == 1
        assert not (base / "today-2026-11-27.md").exists() and not (base / "today-2026-12-02.md").exists()
        assert not (base / "today-2026-11-20.md").exists()
        assert (base / "today-2026-11-20.done.md").read_text(encoding="utf-8").count("Sentence one.") == 1
        assert git(vault, "status", "--porcelain") == "", f"killed at {point}, then {then}"
        assert git(vault, "rev-list", "--count", f"{head.strip()}..HEAD").strip() == ("2" if then == "add" else "1")
        doctor = run_cli("memory", "doctor", "--json", vault=vault)
        assert doctor.json["ok"] is True, f"killed at {point}, then {then}: {doctor.out}"
        assert run_cli(*rollup_args, vault=vault).json["changed"] is False
    assert killed >= 7, "a kill after each write of the rollup and after its commit"
