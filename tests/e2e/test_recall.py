"""Recall: index.md (derived, capped, ordered), hot.md (overwritten, history kept), the brief."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from conftest import git, run_cli, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.recall.brief import build_brief, tokens
from jacked_vault.recall.hot import show_hot
from jacked_vault.recall.index_md import MAX_LINES
from jacked_vault.write.hot import set_hot


def _add(ctx: Context, title: str, **kw):
    return add(
        ctx,
        AddRequest(
            title=title, body=kw.pop("body", f"{title} explained. More detail."), group=kw.pop("group", "tools"), **kw
        ),
    )


def _index_lines(ctx: Context, group: str = "tools") -> list[str]:
    return (ctx.vault.root / "groups" / group / "index.md").read_text().splitlines()


# -- index.md ----------------------------------------------------------------------------------


def test_index_md_line_format_and_candidates_excluded(ctx: Context):
    added = _add(ctx, "Use FTS5", kind="decision", body="FTS5 ships with Python. It ranks with BM25.")
    _add(ctx, "Maybe later", status="candidate")
    lines = _index_lines(ctx)
    day = added.note.updated_at[:10]  # the note's own date, not one read back from the line
    assert lines[0].startswith("# tools: index of active notes")
    assert lines[1:] == [f"- [Use FTS5](decision/use-fts5.md) — FTS5 ships with Python. (updated {day})"]
    assert git(ctx.vault.root, "status", "--porcelain") == ""


def test_index_md_most_linked_first_within_a_day(ctx: Context):
    hub = _add(ctx, "Hub note")
    _add(ctx, "Plain note")
    _add(ctx, "Linker one", links=(hub.note.id,))
    _add(ctx, "Linker two", links=(hub.note.id,))
    titles = [line.split("](")[0][3:] for line in _index_lines(ctx)[1:]]
    assert titles[0] == "Hub note"
    assert sorted(titles[1:]) == ["Linker one", "Linker two", "Plain note"]


def test_index_md_superseded_note_leaves_it(ctx: Context):
    old = _add(ctx, "Old way")
    _add(ctx, "New way", supersedes=(old.note.id,))
    assert [line.split("](")[0][3:] for line in _index_lines(ctx)[1:]] == ["New way"]


def test_index_md_is_capped_at_150_lines_with_a_more_line(ctx: Context):
    from jacked_vault.recall.index_md import render_index
    from jacked_vault.search.entries import Entry
    from jacked_vault.search.index import SearchIndex

    _add(ctx, "Seed")
    index = SearchIndex(ctx.vault)
    index.refresh()
    base = json.loads(json.dumps(Entry.from_note(_add(ctx, "Template").note).__dict__))
    changes = {
        f"groups/tools/note/n{n}.md": Entry(**{**base, "id": f"mem_20260101_n{n:04d}", "title": f"Note {n}"})
        for n in range(200)
    }
    with index.preview(changes) as future:
        text = render_index(future, ctx.vault, "tools").decode()
    index.close()
    lines = text.splitlines()
    assert len(lines) == MAX_LINES
    assert lines[-1].startswith("- … and 54 more active notes: `jacked memory search --group tools")


def test_index_md_per_group_and_project(vault_path: Path, code_repo: Path):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    add(inside, AddRequest(title="Project note", body="p", scope="project"))
    add(inside, AddRequest(title="Other group note", body="o", group="other"))
    assert "Project note" in (code_repo / ".jacked" / "memory" / "index.md").read_text()
    assert "Other group note" in (vault_path / "groups" / "other" / "index.md").read_text()
    assert not (vault_path / "groups" / "api").exists()


# -- hot.md ------------------------------------------------------------------------------------


def test_hot_set_overwrites_and_history_keeps_every_version(ctx: Context):
    first = set_hot(ctx, "Step one in progress.", group="tools")
    second = set_hot(ctx, "Step two in progress.", group="tools")
    hot, path = show_hot(ctx, group="tools")
    assert hot.body == "Step two in progress." and hot.harness == "tester" and path == "group:groups/tools/hot.md"
    root = ctx.vault.root
    assert git(root, "show", f"{first.commit}:groups/tools/hot.md").endswith("Step one in progress.\n")
    log = git(root, "log", "--format=%s", "--", "groups/tools/hot.md").splitlines()
    assert log == ["memory(hot): tools", "memory(hot): tools"] and second.commit != first.commit
    audit_lines = [json.loads(line) for p in (root / "audit").rglob("*.jsonl") for line in p.read_text().splitlines()]
    assert [a["op"] for a in audit_lines if a["op"] != "init"] == ["hot", "hot"]


def test_hot_is_searchable_as_tier_hot(ctx: Context):
    from jacked_vault.search.query import Filters
    from jacked_vault.search.service import search

    set_hot(ctx, "Migrating the zebrafish pipeline.", group="tools")
    (hit,) = search(ctx, "zebrafish", Filters()).results
    assert (hit.tier, hit.group, hit.to_json()["path"]) == ("hot", "tools", "group:groups/tools/hot.md")
    assert ctx.vault.root.joinpath("groups/tools/index.md").exists() is False  # hot.md is not a note


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("x" * 4097, "VALIDATION"),
        ("   \n ", "VALIDATION"),
        ("colour \x1b[31m", "VALIDATION"),
        ("token " + "ghp_" + "Zq7Lm2Nx9Vb4Kc8Wd1Rt6Yh3Ju5Ep0Sa7Fg2", "SECRET"),
    ],
    ids=["over-cap", "empty", "escape", "secret"],
)
def test_hot_refusals_change_nothing(ctx: Context, body: str, code: str):
    set_hot(ctx, "Existing slice.", group="tools")
    before = snapshot(ctx.vault.root)
    with pytest.raises(VaultError) as err:
        set_hot(ctx, body, group="tools")
    assert err.value.code == code
    assert snapshot(ctx.vault.root) == before


def test_hot_cli_show_and_set(vault_path: Path, code_repo: Path):
    assert run_cli("memory", "hot", "show", "--json", vault=vault_path, cwd=code_repo).json["body"] is None
    result = run_cli(
        "memory", "hot", "set", "--stdin", "--json", vault=vault_path, cwd=code_repo, stdin="Now: wiring the CLI.\n"
    )
    assert result.code == 0, result.err
    assert result.json["path"] == "group:groups/api/hot.md"
    shown = run_cli("memory", "hot", "show", vault=vault_path, cwd=code_repo)
    assert shown.out.strip() == "Now: wiring the CLI."


# -- brief -------------------------------------------------------------------------------------


def _brief(vault: Path, cwd: Path, budget: int = 1500):
    return build_brief(Context.create(vault=str(vault), cwd=cwd, harness="t"), budget=budget)


def test_brief_full_situation(vault_path: Path, code_repo: Path):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    decision = add(
        inside, AddRequest(title="Use FTS5", kind="decision", body="FTS5 ships with Python.", tags=("search",))
    )
    add(inside, AddRequest(title="Index refresh", body="Diff based.", links=(decision.note.id,)))
    set_hot(inside, "Finishing the brief.")
    episodic = vault_path / "groups" / "api" / "episodic" / "github.com__acme__api"
    episodic.mkdir(parents=True)
    (episodic / "today-2026-11-28.md").write_text(
        "## 09:00 | main\nStarted.\n\n## 17:30 | feat/brief\nWired the brief budget.\n"
    )
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "a day file")
    brief = _brief(vault_path, code_repo)
    text = brief.text
    root = vault_path.resolve()
    assert text.startswith(f"## jacked-vault memory for github.com/acme/api (group api; vault {root})")
    assert "not instructions" in text.splitlines()[1]
    assert "> Finishing the brief." in text
    assert "> ## 17:30 | feat/brief" in text and "> Wired the brief budget." in text and "09:00" not in text
    assert f'- "Use FTS5": {root}/groups/api/decision/use-fts5.md\n  > FTS5 ships with Python.' in text
    assert "- [Index refresh](note/index-refresh.md)" in text
    assert "Before working on github.com/acme/api, read the notes listed above" in text
    assert brief.tokens <= 1500 and brief.trimmed == [] and brief.warnings == []


def test_brief_trims_and_names_what_it_trimmed(vault_path: Path, code_repo: Path):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    set_hot(inside, "\n".join(f"Hot line {n} with some words to take room." for n in range(60)))
    for n in range(30):
        add(
            inside,
            AddRequest(
                title=f"Decision number {n} about the storage layer", kind="decision", body="Because reasons. " * 5
            ),
        )
    brief = _brief(vault_path, code_repo, budget=400)
    assert brief.tokens <= 400
    trimmed_line = [line for line in brief.text.splitlines() if line.startswith("[trimmed: ")]
    assert trimmed_line and "hot.md" in trimmed_line[0]
    assert brief.trimmed and "Before working on" in brief.text


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    budget=st.integers(min_value=200, max_value=3000),
    hot=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=2000),
)
def test_brief_never_exceeds_its_budget(vault_path: Path, code_repo: Path, budget: int, hot: str):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    with contextlib.suppress(VaultError):  # refused text (bidi, blank, over cap): the previous hot.md stays
        set_hot(inside, hot)
    brief = _brief(vault_path, code_repo, budget=budget)
    assert tokens(brief.text) <= budget


def test_brief_repo_with_no_group_mapping_uses_solo_group(vault_path: Path, tmp_path: Path):
    from conftest import make_repo

    repo = tmp_path / "My_Tool"
    repo.mkdir()
    make_repo(repo)
    brief = _brief(vault_path, repo)
    assert brief.group == "my_tool" and brief.identity == "my_tool"
    assert "No notes for group my_tool yet" in brief.text


def test_brief_missing_vault_is_one_line(tmp_path: Path, code_repo: Path):
    brief = _brief(tmp_path / "nowhere", code_repo)
    assert brief.text.count("\n") == 0 and "jacked memory init" in brief.text


def test_brief_outside_a_repo(vault_path: Path, tmp_path: Path):
    brief = _brief(vault_path, tmp_path)
    assert "Not inside a git repo" in brief.text


def test_brief_with_broken_files_skips_them_and_says_so(vault_path: Path, code_repo: Path):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    add(inside, AddRequest(title="Good note", body="fine"))
    bad = vault_path / "groups" / "api" / "note" / "bad.md"
    bad.write_text("---\nbroken: [\n---\n\nx\n")
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "broken by hand")
    brief = _brief(vault_path, code_repo)
    assert "Good note" in brief.text
    assert brief.warnings == ["1 invalid or quarantined file(s) skipped (run `jacked memory doctor`)"]
    assert brief.text.splitlines()[-1].startswith("[warnings: 1 invalid or quarantined file(s)")


def test_brief_hostile_remote_still_answers(vault_path: Path, tmp_path: Path):
    from conftest import make_repo

    repo = tmp_path / "evil"
    repo.mkdir()
    make_repo(repo)
    config = repo / ".git" / "config"
    config.write_text(
        config.read_text() + '[remote "origin"]\n\turl = https://host/o/..%2F..%2Fetc/' + "a" * 2100 + "\n"
    )
    brief = _brief(vault_path, repo)
    assert "origin URL is unusable" in brief.text and "\x1b" not in brief.text


def test_brief_cli_json_and_budget_option(vault_path: Path, code_repo: Path):
    result = run_cli("memory", "brief", "--cwd", str(code_repo), "--budget", "300", "--json", vault=vault_path)
    assert result.code == 0, result.err
    data = result.json
    assert data["schema"] == "jacked.brief.v1" and data["tokens"] <= 300 and data["repo"] == "github.com/acme/api"
    assert (
        run_cli("memory", "brief", "--budget", "10", "--json", vault=vault_path, cwd=code_repo).json["error"]["code"]
        == "JACKED_MEMORY_USAGE"
    )
