"""Migration from the remember plugin's `.remember/` folders: read-only, counted, idempotent, one commit."""

from __future__ import annotations

import os
import random
import shutil
import string
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from conftest import CliResult, cli_env, git, snapshot

from jacked_vault.context import Context
from jacked_vault.document import parse_note
from jacked_vault.episodic import migrate as migrate_mod
from jacked_vault.episodic.headers import count_entries
from jacked_vault.episodic.migrate import core_sections, count_core, migrate
from jacked_vault.episodic.rollup import rollup
from jacked_vault.errors import VaultError
from jacked_vault.store.machine_state import machine_id
from jacked_vault.store.tombstones import tombstone_hash, tombstone_path
from jacked_vault.store.vault import open_vault
from tests.helpers.state import state_dir

FIXTURES = Path(__file__).parents[1] / "fixtures" / "remember"
IDENTITY = "github.com/acme/api"
FOLDER = "groups/api/episodic/github.com__acme__api"
CORE_TITLES = [
    "Tests run against real git repos — 2026-10-02",
    "Never rewrite a day file in place",
    "The staging database resets every Sunday at 02:00 UTC",
]
IDENTITY_TITLE = "Agent identity (from the remember plugin)"


def jacked(*args: str, vault: Path, cwd: Path) -> CliResult:
    """The real `jacked` entry point in a subprocess, with the episodic commands imported
    (main.py registers them once `jacked_vault.cli.episodic` is in its import line)."""
    code = "import sys, jacked_vault.cli.episodic; from jacked_vault.cli.main import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=cli_env(vault), timeout=120
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def fake_token() -> str:
    """A GitHub token the secret scanner flags, built at run time (no secret in the repo)."""
    return "gh" + "p_" + "".join(random.choices(string.ascii_letters + string.digits, k=36))


def source_copy(tmp_path: Path, fixture: str = "project", name: str = "src") -> Path:
    """A copy of a fixture `.remember/` folder (sources are never the committed fixtures)."""
    src = tmp_path / name
    shutil.copytree(FIXTURES / fixture, src, symlinks=True)
    return src


def add_hazards(src: Path, tmp_path: Path) -> None:
    """What the fixtures in git do not hold: a symlink, a secret, a hidden file, a terminal escape."""
    outside = tmp_path / "outside-today.md"
    outside.write_text("## 09:00 | main\nsomething outside the source folder\n")
    (src / "today-2026-11-19.md").symlink_to(outside)
    (src / "today-2026-11-18.md").write_text(f"## 10:00 | main\nexported GITHUB_TOKEN={fake_token()} for the deploy\n")
    (src / ".DS_Store").write_bytes(b"\x00\x01binary")
    (src / "today-2026-11-17.md").write_text("## 11:00 | main\ncolours \x1b[31mred\x1b[0m in the log\n")


def tree_bytes(path: Path) -> dict:
    out = {}
    for p in sorted(path.rglob("*")):
        out[str(p.relative_to(path))] = (
            ("link", os.readlink(p)) if p.is_symlink() else p.read_bytes() if p.is_file() else "dir"
        )
    return out


def by_name(payload: dict) -> dict:
    return {Path(f["source"]).name: f for f in payload["files"]}


def test_cli_migrate_imports_counts_and_leaves_the_source_untouched(
    vault_path: Path, code_repo: Path, tmp_path: Path
) -> None:
    src = source_copy(tmp_path)
    add_hazards(src, tmp_path)
    source_before = tree_bytes(src)
    head_before = git(vault_path, "rev-parse", "HEAD").strip()

    out = jacked("memory", "migrate", "--from", str(src), "--json", vault=vault_path, cwd=code_repo)

    assert out.code == 0, out.out + out.err
    payload = out.json
    assert payload["schema"] == "jacked.migrate.v1" and payload["ok"] is True and payload["dry_run"] is False
    assert payload["repo"] == IDENTITY and payload["group"] == "api" and payload["folder"] == f"vault:{FOLDER}"
    files = by_name(payload)
    expected_counts = {
        "archive-2026-09.md": 3,
        "archive-2026-10.md": 2,
        "archive.md": 3,
        "recent.md": 3,
        "today-2026-11-20.done.md": 3,
        "today-2026-11-21.done.md": 1,
        "today-2026-11-27.md": 3,
        "today-2026-11-28.md": 2,
        "core-memories.md": 1,
        "identity.md": 1,
    }
    for name, count in expected_counts.items():
        f = files[name]
        assert (f["action"], f["entries"], f["written"]) == ("import", count, count), f
        assert f["target"] == f"vault:{FOLDER}/{name}"
        # byte for byte
        assert (vault_path / FOLDER / name).read_bytes() == (src / name).read_bytes()
    assert files["core-memories.md"]["sections"] == 3
    assert (files["now.md"]["action"], files["now.md"]["entries"]) == ("empty", 0)
    assert files["notes.txt"]["reason"] == "not a remember file"
    assert files[".DS_Store"]["reason"] == "hidden"
    assert files["today-2026-11-19.md"]["reason"] == "symlink, never followed"
    secret = files["today-2026-11-18.md"]
    assert secret["action"] == "skipped" and "GitHub" in secret["reason"] and "ghp_" not in out.out
    assert files["today-2026-11-17.md"]["action"] == "skipped" and "U+001B" in files["today-2026-11-17.md"]["reason"]
    for name in ("today-2026-11-17.md", "today-2026-11-18.md", "today-2026-11-19.md", "now.md"):
        assert not (vault_path / FOLDER / name).exists()
    totals = payload["totals"]
    assert totals["files_imported"] == 10 and totals["entries_source"] == totals["entries_written"] == 22
    assert totals["files_skipped"] == 5 and totals["files_empty"] == 1 and totals["candidates_created"] == 4

    # Candidate notes: one per `##` section of core-memories.md (kind context), one for identity.md
    # (kind preference); origin migration, status candidate.
    created = payload["candidates"]
    assert [c["title"] for c in created] == [*CORE_TITLES, IDENTITY_TITLE] and all(
        c["action"] == "create" for c in created
    )
    assert [c["kind"] for c in created] == ["context"] * 3 + ["preference"]
    for c in created:
        note = parse_note((vault_path / c["path"].removeprefix("vault:")).read_bytes())
        assert (note.kind, note.origin, note.status, note.group, note.repos) == (
            c["kind"],
            "migration",
            "candidate",
            "api",
            [IDENTITY],
        )
        assert note.id == c["id"] and "migrated" in note.tags
    first = parse_note((vault_path / created[0]["path"].removeprefix("vault:")).read_bytes())
    assert first.body.startswith("**Decision**: integration tests create real repositories")

    # One commit, a clean tree, the source byte-identical (the symlink still a symlink).
    assert git(vault_path, "rev-list", "--count", f"{head_before}..HEAD").strip() == "1"
    assert (
        git(vault_path, "log", "-1", "--format=%s") == f"memory(migrate): {IDENTITY}: 10 file(s), 4 candidate note(s)\n"
    )
    assert git(vault_path, "status", "--porcelain") == ""
    assert tree_bytes(src) == source_before
    doctor = jacked("memory", "doctor", "--json", vault=vault_path, cwd=code_repo)
    assert doctor.json["ok"] is True, doctor.out


def test_second_migrate_imports_nothing_new(vault_path: Path, code_repo: Path, tmp_path: Path) -> None:
    src = source_copy(tmp_path)
    first = jacked("memory", "migrate", "--from", str(src), "--json", vault=vault_path, cwd=code_repo)
    assert first.code == 0, first.out
    before = snapshot(vault_path)

    second = jacked("memory", "migrate", "--from", str(src), vault=vault_path, cwd=code_repo)

    assert second.code == 0, second.err
    assert "Nothing new to import; nothing was written." in second.out
    assert snapshot(vault_path) == before
    again = jacked("memory", "migrate", "--from", str(src), "--json", vault=vault_path, cwd=code_repo).json
    assert again["commit"] is None
    assert again["totals"]["files_imported"] == 0 and again["totals"]["files_already_migrated"] == 10
    assert again["totals"]["candidates_created"] == 0 and again["totals"]["candidates_already_migrated"] == 4
    # Still nothing new after a rollup renamed the migrated day files (markers live in the audit log).
    rollup(open_vault(vault_path), today=date(2026, 12, 1))
    third = jacked("memory", "migrate", "--from", str(src), "--json", vault=vault_path, cwd=code_repo).json
    assert third["commit"] is None and third["totals"]["files_imported"] == 0


def test_dry_run_prints_the_plan_and_writes_nothing(vault_path: Path, code_repo: Path, tmp_path: Path) -> None:
    src = source_copy(tmp_path)
    before = snapshot(vault_path)
    human = jacked("memory", "migrate", "--from", str(src), "--dry-run", vault=vault_path, cwd=code_repo)
    assert human.code == 0, human.err
    assert human.out.startswith(f"Plan: {IDENTITY} -> vault:{FOLDER}")
    assert f"today-2026-11-20.done.md -> vault:{FOLDER}/today-2026-11-20.done.md  [3 entries -> 3]" in human.out
    assert "candidate: Never rewrite a day file in place" in human.out
    assert f"candidate: {IDENTITY_TITLE}" in human.out
    assert "Would import 10 file(s), 22 of 22 entries, 4 candidate note(s)" in human.out
    plan = jacked("memory", "migrate", "--from", str(src), "--dry-run", "--json", vault=vault_path, cwd=code_repo).json
    assert snapshot(vault_path) == before
    assert plan["dry_run"] is True and plan["commit"] is None
    real = jacked("memory", "migrate", "--from", str(src), "--json", vault=vault_path, cwd=code_repo).json
    assert [(f["source"], f["action"], f["target"], f["entries"]) for f in plan["files"]] == [
        (f["source"], f["action"], f["target"], f["entries"]) for f in real["files"]
    ]


def test_headerless_files_count_as_one_entry_and_now_md_lands_beside(
    vault_path: Path, code_repo: Path, tmp_path: Path
) -> None:
    src = source_copy(tmp_path, "headerless")
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="tester")
    result = migrate(ctx, [str(src)])
    files = by_name(result.to_json())
    assert files["now.md"]["target"] == f"vault:{FOLDER}/now.migrated.md" and files["now.md"]["entries"] == 1
    assert files["today-2026-10-05.md"]["entries"] == 1
    assert files["today-2026-11-26.md"]["entries"] == 0  # a title line only: imported, no entries
    # A headerless recent.md is not the shape rollup maintains: it lands beside, never as recent.md.
    assert files["recent.md"]["target"] == f"vault:{FOLDER}/recent.migrated-1.md" and files["recent.md"]["entries"] == 1
    assert not (vault_path / FOLDER / "recent.md").exists()
    cands = result.to_json()["candidates"]
    assert len(cands) == 1 and cands[0]["title"].startswith("The payments service must never retry a charge")
    note = parse_note((vault_path / cands[0]["path"].removeprefix("vault:")).read_bytes())
    assert note.body == (src / "core-memories.md").read_text().strip()
    for name in ("now.md", "core-memories.md", "recent.md", "today-2026-10-05.md"):
        target = vault_path / files[name]["target"].removeprefix("vault:")
        assert target.read_bytes() == (src / name).read_bytes()


def test_never_overwrites_existing_vault_files(vault_path: Path, code_repo: Path, tmp_path: Path) -> None:
    base = vault_path / FOLDER
    base.mkdir(parents=True)
    mine = {
        "recent.md": b"# Recent\n\n## 2026-11-25\n### 09:00 | main\nmine\n",
        "today-2026-11-28.md": b"# x\n\n## 08:00 | main\nmine\n",
        "today-2026-11-20.done.md": b"# x\n\n## 08:00 | main\nmine\n",
        "now.migrated.md": b"an earlier import\n",
    }
    for name, data in mine.items():
        (base / name).write_bytes(data)
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "mine")
    src = source_copy(tmp_path)
    (src / "now.md").write_text("## 9:40 PM | main\nStill in the middle of the importer.\n")
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="tester")
    files = by_name(migrate(ctx, [str(src)]).to_json())
    assert files["recent.md"]["target"] == f"vault:{FOLDER}/recent.migrated-1.md"
    assert files["today-2026-11-28.md"]["target"] == f"vault:{FOLDER}/today-2026-11-28.migrated-1.md"
    assert files["today-2026-11-20.done.md"]["target"] == f"vault:{FOLDER}/today-2026-11-20.done.migrated-1.md"
    assert files["now.md"]["target"] == f"vault:{FOLDER}/now.migrated-1.md"
    assert files["archive.md"]["target"] == f"vault:{FOLDER}/archive.md"
    for name, data in mine.items():
        assert (base / name).read_bytes() == data


def test_default_sources_repo_dot_remember_and_home_slug(vault_path: Path, code_repo: Path, tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "project", code_repo / ".remember")
    home = vault_path.parent  # run_cli's HOME
    shutil.copytree(FIXTURES / "headerless", home / ".remember" / "api")
    out = jacked("memory", "migrate", "--dry-run", "--json", vault=vault_path, cwd=code_repo)
    assert out.code == 0, out.out
    assert [s["path"] for s in out.json["sources"]] == [str(code_repo / ".remember"), str(home / ".remember" / "api")]
    # The same name from the second source never replaces the first one's.
    recents = [f["target"] for f in out.json["files"] if f["source"].endswith("/recent.md")]
    assert recents == [f"vault:{FOLDER}/recent.md", f"vault:{FOLDER}/recent.migrated-1.md"]


def test_symlinked_default_source_is_skipped_and_no_source_is_an_error(
    vault_path: Path, code_repo: Path, tmp_path: Path
) -> None:
    elsewhere = source_copy(tmp_path)
    (code_repo / ".remember").symlink_to(elsewhere)
    out = jacked("memory", "migrate", "--dry-run", "--json", vault=vault_path, cwd=code_repo)
    assert out.code == 0, out.out
    assert out.json["sources"][0]["status"] == "skipped" and "symlink" in out.json["sources"][0]["reason"]
    assert out.json["files"] == []
    os.unlink(code_repo / ".remember")
    none = jacked("memory", "migrate", "--json", vault=vault_path, cwd=code_repo)
    assert none.code == 1 and none.json["error"]["code"] == "JACKED_MEMORY_NOT_FOUND"


def test_refused_migrate_leaves_the_vault_exactly_as_before(
    vault_path: Path, code_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = source_copy(tmp_path)
    before = snapshot(vault_path)
    # Usage errors from the real CLI: a missing --from, and no repo at the cwd.
    missing = jacked("memory", "migrate", "--from", str(tmp_path / "nope"), "--json", vault=vault_path, cwd=code_repo)
    assert missing.code == 2 and missing.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    no_repo = jacked("memory", "migrate", "--from", str(src), "--json", vault=vault_path, cwd=outside)
    assert no_repo.code == 2 and no_repo.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    # A count that does not match after writing (simulated): everything written is undone.
    monkeypatch.setattr(migrate_mod, "_written_count", lambda data: count_entries(data.decode()) - 1)
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="tester")
    with pytest.raises(VaultError) as err:
        migrate(ctx, [str(src)])
    assert err.value.code == "INCOMPLETE" and "entries in the source but" in err.value.message
    assert snapshot(vault_path) == before  # every file, HEAD and the git index
    assert not [p for p in (vault_path / "groups").rglob("*") if p.is_file()]  # (undo may leave empty folders)


def test_tombstoned_sections_are_skipped_and_counted(vault_path: Path, code_repo: Path, tmp_path: Path) -> None:
    src = source_copy(tmp_path)
    title, body = core_sections((src / "core-memories.md").read_text())[1]
    machine = machine_id(state_dir(vault_path))
    path = vault_path / tombstone_path(machine)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tombstone_hash(title, body) + "\n")
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "a rejection")
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="tester")
    payload = migrate(ctx, [str(src)]).to_json()
    assert [c["action"] for c in payload["candidates"]] == ["create", "tombstoned", "create", "create"]
    assert payload["totals"]["candidates_tombstoned"] == 1 and payload["totals"]["candidates_created"] == 3


def test_migrated_folder_rolls_up_with_counts_conserved(vault_path: Path, code_repo: Path, tmp_path: Path) -> None:
    src = source_copy(tmp_path)
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="tester")
    migrate(ctx, [str(src)])
    result = rollup(open_vault(vault_path), today=date(2026, 11, 29))
    assert result.repos[0].rolled == ["2026-11-27", "2026-11-28"]
    recent = (vault_path / FOLDER / "recent.md").read_text()
    assert [line for line in recent.splitlines() if line.startswith("## ")] == [
        "## 2026-11-24",
        "## 2026-11-27",
        "## 2026-11-28",
    ]
    assert "### 9:05 AM" not in recent and "### 8:30 AM | main" in recent
    archive = (vault_path / FOLDER / "archive.md").read_text()
    # The imported archive keeps its weeks; the 20th and 21st join the week of the 16th in date order.
    assert archive.index("## Week of 2026-11-16") < archive.index("### 2026-11-20") < archive.index("### 2026-11-21")
    assert archive.index("- First end-to-end import on a real folder.") < archive.index("### 2026-11-20")


def test_core_memories_counting_and_sections() -> None:
    text = (FIXTURES / "project" / "core-memories.md").read_text()
    assert count_core(text) == 3 and [t for t, _ in core_sections(text)] == CORE_TITLES
    with_preamble = "# Core\nintro line\n\n## A\nbody a\n\n## B\n"
    assert count_core(with_preamble) == 3
    assert core_sections(with_preamble) == [("Core", "intro line"), ("A", "body a"), ("B", "B")]
    fenced = "## Real\n```\n## not a section\n```\n"
    assert count_core(fenced) == 1 and len(core_sections(fenced)) == 1
    assert count_entries("## 9:05 AM | main\nx\n## 12:40 pm | b\ny\n## Week of 2026-11-02\n## 2026-11-03\n") == 4
    assert count_entries("just text\n") == 1 and count_entries("# title only\n\n") == 0 and count_entries("") == 0
    assert count_entries("```\n## 09:00 | fenced\n```\n") == 1  # a fenced header is text: one headerless entry


def test_identity_md_becomes_one_preference_candidate_through_the_gate(
    vault_path: Path, code_repo: Path, tmp_path: Path
) -> None:
    src = source_copy(tmp_path)
    text = (src / "identity.md").read_text()
    body = text.split("\n", 1)[1].strip()  # the file without its `# Identity` title line
    machine = machine_id(state_dir(vault_path))

    # Tombstoned (rejected before): skipped, and nothing else changes.
    path = vault_path / tombstone_path(machine)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tombstone_hash(IDENTITY_TITLE, body) + "\n")
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "a rejection")
    only = tmp_path / "only-identity"
    only.mkdir()
    shutil.copy(src / "identity.md", only / "identity.md")
    tombstoned = jacked("memory", "migrate", "--from", str(only), "--json", vault=vault_path, cwd=code_repo).json
    assert [(c["title"], c["action"]) for c in tombstoned["candidates"]] == [(IDENTITY_TITLE, "tombstoned")]
    assert by_name(tombstoned)["identity.md"]["target"] == f"vault:{FOLDER}/identity.md"  # the file itself is copied
    git(vault_path, "rm", "-q", str(path.relative_to(vault_path)))
    git(vault_path, "commit", "-qm", "forget the rejection")

    # A secret in it: the file is refused and no candidate is made.
    leaky = tmp_path / "leaky"
    leaky.mkdir()
    (leaky / "identity.md").write_text(text + f"\nDeploy token: {fake_token()}\n")
    refused = jacked("memory", "migrate", "--from", str(leaky), "--json", vault=vault_path, cwd=code_repo).json
    assert (
        by_name(refused)["identity.md"]["action"] == "skipped"
        and refused["candidates"] == []
        and refused["commit"] is None
    )

    # The dry run names it and writes nothing; the real run makes one candidate note in the same commit.
    before = snapshot(vault_path)
    plan = jacked("memory", "migrate", "--from", str(only), "--dry-run", "--json", vault=vault_path, cwd=code_repo).json
    assert snapshot(vault_path) == before
    assert by_name(plan)["identity.md"]["sections"] == 1 and [c["title"] for c in plan["candidates"]] == [
        IDENTITY_TITLE
    ]
    result = jacked("memory", "migrate", "--from", str(only), "--json", vault=vault_path, cwd=code_repo).json
    [candidate] = result["candidates"]
    assert (candidate["action"], candidate["kind"]) == ("create", "preference")
    note = parse_note((vault_path / candidate["path"].removeprefix("vault:")).read_bytes())
    assert (note.kind, note.status, note.origin, note.trust) == ("preference", "candidate", "migration", "unreviewed")
    assert note.title == IDENTITY_TITLE and note.body == body and note.tags == ["migrated", "identity"]
    assert by_name(result)["identity.md"]["action"] == "already-migrated"
    assert git(vault_path, "rev-list", "--count", f"{before['head']}..HEAD").strip() == "1"
    assert git(vault_path, "status", "--porcelain") == ""
    assert jacked("memory", "doctor", "--json", vault=vault_path, cwd=code_repo).json["ok"] is True
