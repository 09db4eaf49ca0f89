"""Peer parity (issue 13): what the ECC vault's and claude-jacked's own suites check.

Items 1, 5, 7, 8, 9 live beside the code they concern (test_cli, test_groups_scan,
test_hooks_e2e, test_rollup, test_migrate); item 3 in test_mcp_protocol; item 6 in
test_robustness. These are items 2, 4 and 10.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, run_cli, snapshot

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add

# -- item 2: a refused project-scope add leaves the code repo exactly as it was --------------------


@pytest.mark.parametrize(
    "body", ["   \n\t ", "token " + "gh" + "p_" + "Zq7Lm2Nx9Vb4Kc8Wd1Rt6Yh3Ju5Ep0Sa7Fg2"], ids=["blank", "secret"]
)
def test_a_refused_project_add_creates_nothing_in_the_code_repo(vault_path: Path, code_repo: Path, body: str):
    before = snapshot(code_repo)
    result = run_cli(
        "memory",
        "add",
        "--scope",
        "project",
        "--title",
        "Project note",
        "--body",
        body,
        "--json",
        vault=vault_path,
        cwd=code_repo,
    )
    assert result.code == 1
    assert not (code_repo / ".jacked").exists()
    assert snapshot(code_repo) == before


# -- item 4: the same bounds on every path: the same vault gives the same answer -------------------


def _state(ctx: Context) -> tuple:
    from jacked_vault.search.index import SearchIndex

    index = SearchIndex(ctx.vault)
    try:
        index.refresh()
        docs = sorted(index.read.indexed_files(("note",)))
        return docs, index.read.diagnostics().truncated
    finally:
        index.close()


def _rebuilt(ctx: Context) -> tuple:
    from jacked_vault.search.index import SearchIndex

    index = SearchIndex(ctx.vault)
    try:
        index.rebuild()
    finally:
        index.close()
    return _state(ctx)


def _read_code(ctx: Context, note_id: str) -> str:
    from jacked_vault.notes import read
    from jacked_vault.search.policy import Viewer

    try:
        read(ctx, note_id, Viewer())
    except VaultError as exc:
        return exc.code
    return "OK"


def test_incremental_refresh_and_rebuild_apply_the_same_bounds(ctx: Context, monkeypatch):
    from jacked_vault.search import index as index_module

    monkeypatch.setattr(index_module, "MAX_ROOT_FILES", 5)
    notes = [add(ctx, AddRequest(title=f"Bounded {n}", body="b", group="g")).note for n in range(4)]
    assert _state(ctx)[1] is False and _read_code(ctx, notes[0].id) == "OK"
    notes += [add(ctx, AddRequest(title=f"Bounded {n}", body="b", group="g")).note for n in range(4, 7)]
    incremental = _state(ctx)
    answers = [_read_code(ctx, n.id) for n in notes]
    assert incremental[1] is True and len(incremental[0]) == 5  # index.md counts as a file of the root
    assert _rebuilt(ctx) == incremental
    # complete or fail about absence (issue 18.8): an indexed note answers, one the cut scan left out is INCOMPLETE
    indexed = {n for n in range(7) if f"groups/g/note/bounded-{n}.md" in incremental[0]}
    assert len(indexed) == 5  # the scan's bound (MAX_ROOT_FILES, 5 above): 2 of the 7 notes left out
    expected = ["OK" if n in indexed else "INCOMPLETE" for n in range(7)]
    assert [_read_code(ctx, n.id) for n in notes] == answers == expected
    git(ctx.vault.root, "rm", "-q", *[f"groups/g/note/bounded-{n}.md" for n in range(3)])
    git(ctx.vault.root, "commit", "-qm", "fewer notes")
    shrunk = _state(ctx)
    assert shrunk == _rebuilt(ctx) and shrunk[1] is False
    assert _read_code(ctx, notes[6].id) == "OK"


def test_the_bound_leaves_room_for_a_big_teams_group():
    """bench_cli's 50,000 notes in one kind folder of one group (issue 12) once sat exactly on the
    bound: every read failed as INCOMPLETE and every add re-indexed the whole group (75 s)."""
    from jacked_vault.search import index as index_module

    assert index_module.MAX_ROOT_FILES >= 4 * 50_000
    assert index_module.MAX_ROOT_BYTES >= 50_000 * 4096  # 4 KiB a note, far above a typical one


# -- item 10: the brief's last session falls back to recent.md after a rollup -----------------------


def test_the_brief_shows_the_last_session_from_recent_md(vault_path: Path, code_repo: Path):
    from datetime import date, datetime

    from jacked_vault.episodic.entries import Entry, append_entry
    from jacked_vault.episodic.rollup import rollup

    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    when = datetime(2026, 11, 20, 16, 45).astimezone()
    append_entry(
        ctx.vault, Entry("api", "github.com/acme/api", when, "feat/x", "Wired the parser."), harness="t", origin="cli"
    )
    rollup(ctx.vault, today=date(2026, 11, 22))
    folder = vault_path / "groups" / "api" / "episodic" / "github.com__acme__api"
    git(vault_path, "rm", "-q", str(next(folder.glob("today-*.done.md")).relative_to(vault_path)))
    git(vault_path, "commit", "-qm", "keep only recent.md, as a migrated folder has")
    assert [p.name for p in folder.iterdir()] == ["recent.md"]
    brief = run_cli("memory", "brief", "--json", vault=vault_path, cwd=code_repo).json["text"]
    assert (
        "### Last session in this repo" in brief and "> ### 16:45 | feat/x" in brief and "> Wired the parser." in brief
    )


# -- issue 11 item 4: the brief uses the ranker for the branch's topic, and says nothing otherwise --


@pytest.mark.parametrize(
    "branch, expected",
    [("feat/search-ranking", "Ranking with BM25F"), ("main", None), ("feat/zzzqux-nothing", None)],
)
def test_the_brief_shows_notes_on_the_branch_topic_or_nothing(
    vault_path: Path, code_repo: Path, branch: str, expected: str | None
):
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    add(ctx, AddRequest(title="Ranking with BM25F", body="Search ranking re-scores FTS5 candidates."))
    add(ctx, AddRequest(title="Deploy on Fridays", body="Never deploy on a Friday afternoon."))
    if branch != "main":
        git(code_repo, "checkout", "-q", "-b", branch)
    brief = run_cli("memory", "brief", "--json", vault=vault_path, cwd=code_repo).json["text"]
    if expected is None:
        assert "this branch's topic" not in brief
    else:
        section = brief.split(f"### Notes on this branch's topic ({branch})", 1)[1].split("###", 1)[0]
        assert f'"{expected}"' in section and "Deploy on Fridays" not in section
