"""What a person sees and gets back from the CLI: refusals with the right exit code, doctor
naming every problem with its fix, and the details of read, review, search and the brief."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import git, make_repo, run_cli, snapshot

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add


def _add_cli(vault: Path, *extra: str, title: str = "Use Postgres", body: str = "We use it. Really.") -> dict:
    result = run_cli("memory", "add", "--group", "g1", "--title", title, "--body", body, "--json", *extra, vault=vault)
    assert result.code == 0, result.err
    return result.json["memory"]


# -- 3. filters and refusals -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "listed"),
    [
        (("--scope", "bogus"), "group, project, user"),
        (("--kind", "foo"), "decision"),
        (("--status", "open"), "candidate, active, rejected, superseded"),
        (("--tag", "Not A Slug"), "a-z"),
        (("--target", "Claude Code"), "a-z"),
        (("--group", "../up"), "a-z"),
        (("--repo", "not a repo!"), "github.com/owner/repo"),
        (("--limit", "0"), "1"),
        (("--limit", "201"), "200"),
    ],
    ids=lambda v: "-".join(v) if isinstance(v, tuple) else None,
)
def test_search_refuses_unknown_filter_values_as_usage_errors(vault_path: Path, args, listed: str):
    as_json = run_cli("memory", "search", "x", *args, "--json", vault=vault_path)
    assert as_json.code == 2, as_json.out + as_json.err
    data = as_json.json
    assert data["schema"] == "jacked.search.v1" and data["ok"] is False
    assert data["error"]["code"] == "JACKED_MEMORY_USAGE" and listed in data["error"]["message"]
    human = run_cli("memory", "search", "x", *args, vault=vault_path)
    assert human.code == 2 and human.out == "" and listed in human.err
    assert "no matches" not in human.out + human.err


@pytest.mark.parametrize(
    "args",
    [
        ("read", "mem_20260101_absent", "--target", "Claude Code"),
        ("brief", "--harness", "Claude Code"),
        ("hot", "show", "--group", "Bad Group"),
        ("log", "--limit", "0"),
    ],
    ids=lambda v: " ".join(v[:2]),
)
def test_other_commands_refuse_bad_names_as_usage_errors(vault_path: Path, code_repo: Path, args):
    result = run_cli("memory", *args, "--json", vault=vault_path, cwd=code_repo)
    assert result.code == 2 and result.json["error"]["code"] == "JACKED_MEMORY_USAGE", result.out


def test_search_accepts_every_valid_filter_value(vault_path: Path):
    _add_cli(vault_path, "--tag", "database", "--repo", "github.com/acme/api")
    args = [
        "--scope",
        "group",
        "--kind",
        "note",
        "--status",
        "active",
        "--tag",
        "database",
        "--target",
        "claude",
        "--group",
        "g1",
        "--repo",
        "github.com/acme/api",
        "--limit",
        "200",
    ]
    found = run_cli("memory", "search", "postgres", *args, "--json", vault=vault_path)
    assert found.code == 0 and [r["title"] for r in found.json["results"]] == ["Use Postgres"]


def test_errors_in_json_carry_the_schema_of_their_command(vault_path: Path):
    missing = run_cli("memory", "read", "mem_20260101_absent", "--json", vault=vault_path)
    assert (missing.code, missing.json["schema"], missing.json["ok"]) == (1, "jacked.read.v1", False)
    parse = run_cli("memory", "log", "--limit", "x", "--json", vault=vault_path)
    assert (
        parse.code == 2
        and parse.json["schema"] == "jacked.log.v1"
        and parse.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    )
    unknown = run_cli("memory", "frobnicate", "--json", vault=vault_path)
    assert unknown.code == 2 and unknown.json["schema"] == "jacked.error.v1"


@pytest.mark.parametrize("op", ["accept", "reject", "expire", "supersede"])
def test_every_transition_answers_under_its_own_schema(vault_path: Path, op: str):
    """Issue 33.21: `jacked.<command>.v1` as the README and SPEC 6 say (they answered jacked.review.v1)."""
    note = _add_cli(vault_path)["id"]
    extra = {"reject": ["--reason", "wrong"], "supersede": ["--by", _add_cli(vault_path, title="New")["id"]]}
    done = run_cli("memory", op, note, *extra.get(op, []), "--json", vault=vault_path)
    assert done.code == 0 and done.json["schema"] == f"jacked.{op}.v1", done.out


def test_reject_without_a_reason_says_so_in_words(vault_path: Path):
    """Issue 33.21: typer's raw `Missing option '--reason'` box is replaced by the command's own
    usage error, in text and in JSON, and nothing is written."""
    note = _add_cli(vault_path)["id"]
    before = snapshot(vault_path)
    text = run_cli("memory", "reject", note, vault=vault_path)
    assert text.code == 2 and "reject needs --reason" in text.err and "╭" not in text.err, text.err
    as_json = run_cli("memory", "reject", note, "--json", vault=vault_path)
    assert as_json.code == 2 and as_json.json["error"]["code"] == "JACKED_MEMORY_USAGE", as_json.out
    assert snapshot(vault_path) == before


@pytest.fixture
def hooks_path_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "code" / "svc"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/svc.git")
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    git(repo, "config", "core.hooksPath", str(shared))
    return repo


@pytest.mark.parametrize("op", ["install", "uninstall", "status"])
def test_hooks_refusal_exits_1_in_every_family(vault_path: Path, hooks_path_repo: Path, tmp_path: Path, op: str):
    """A refused or failed repo is a failure of the command (exit 1, ok false), not a line among successes."""
    if op == "uninstall":  # our hook inside the shared core.hooksPath folder: uninstall refuses to touch it
        assert (
            run_cli(
                "memory", "hooks", "install", "--git", str(hooks_path_repo), "--follow-hooks-path", vault=vault_path
            ).code
            == 0
        )
    target = str(hooks_path_repo) if op != "status" else str(tmp_path / "not-a-repo")
    human = run_cli("memory", "hooks", op, "--git", target, vault=vault_path)
    assert human.code == 1, human.out + human.err
    assert "core.hooksPath" in human.out + human.err or "no such directory" in human.out + human.err
    as_json = run_cli("memory", "hooks", op, "--git", target, "--json", vault=vault_path)
    assert as_json.code == 1 and as_json.json["ok"] is False and as_json.json["schema"] == "jacked.hooks.v1"
    assert as_json.json["git"][0]["error"]["code"] in ("JACKED_MEMORY_CONFIG", "JACKED_MEMORY_NOT_FOUND")


def test_hooks_claude_refusal_exits_1(vault_path: Path, tmp_path: Path):
    settings = tmp_path / "settings.json"
    settings.write_text("{not json")
    for op in ("install", "uninstall", "status"):
        result = run_cli("memory", "hooks", op, "--claude", "--settings", str(settings), "--json", vault=vault_path)
        assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_CONFIG", (op, result.out)
    assert settings.read_text() == "{not json"


@pytest.mark.parametrize(
    "repo", ["nonexistent/path", "./missing", "../missing/repo", "~/missing-repo", "/no/such/folder"]
)
def test_group_map_refuses_a_path_that_does_not_exist(vault_path: Path, repo: str):
    before = snapshot(vault_path)
    result = run_cli("memory", "group", "map", repo, "acme", "--json", vault=vault_path)
    assert result.code == 2 and result.json["error"]["code"] == "JACKED_MEMORY_USAGE", result.out
    assert "no such folder" in result.json["error"]["message"]
    assert snapshot(vault_path) == before


@pytest.mark.parametrize("identity", ["github.com/o/r", "gitlab.com/group/sub/repo", "local/r", "my-repo"])
def test_group_map_still_accepts_identities(vault_path: Path, identity: str):
    result = run_cli("memory", "group", "map", identity, "acme", "--json", vault=vault_path)
    assert result.code == 0 and result.json["repo"] == identity


def test_group_unmap_is_a_commit_through_the_config_path(vault_path: Path):
    run_cli("memory", "group", "map", "github.com/o/r", "acme", vault=vault_path)
    commits = git(vault_path, "rev-list", "--count", "HEAD").strip()
    result = run_cli("memory", "group", "unmap", "github.com/o/r", "--json", vault=vault_path)
    assert result.code == 0, result.out + result.err
    assert (result.json["schema"], result.json["repo"], result.json["previous"]) == (
        "jacked.group.v1",
        "github.com/o/r",
        "acme",
    )
    assert json.loads((vault_path / "vault.json").read_text())["groups"]["acme"]["repos"] == []
    assert int(git(vault_path, "rev-list", "--count", "HEAD")) == int(commits) + 1
    assert git(vault_path, "log", "-1", "--format=%s").strip() == "memory(config): unmap github.com/o/r from acme"
    assert run_cli("memory", "doctor", "--json", vault=vault_path).json["audit_problems"] == []
    again = run_cli("memory", "group", "unmap", "github.com/o/r", vault=vault_path)
    assert again.code == 1 and "not mapped" in again.err


# -- 5. doctor names every problem and its fix -------------------------------------------------


def _doctor_vault(ctx: Context) -> Path:
    """A vault with one problem of each kind a person can plant by hand."""
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    root = ctx.vault.root
    a = add(ctx, AddRequest(title="Alpha", body="alpha body", group="tools"))
    add(
        ctx,
        AddRequest(
            title="Beta", body="links away", group="tools", links=("mem_20260101_missing",), allow_dangling_links=True
        ),
    )
    orphan = build_note(
        title="Orphan", body="b", kind="note", scope="group", group="tools", repos=[], source_harness="t", origin="cli"
    )
    (root / "groups/tools/note/orphan.md").write_bytes(render_note(orphan))
    (root / "groups/tools/note/junk.md").write_text("title: hunter2-the-value\n")
    (root / "groups/tools/index.md").write_text("# hand edited\n")
    config = json.loads((root / "vault.json").read_text())
    config["groups"] = {"x": {"repos": ["github.com/o/r"]}, "y": {"repos": ["github.com/o/r"]}}
    config["settings"] = {"distill": {"command": ["evil"]}}
    (root / "vault.json").write_text(json.dumps(config))
    git(root, "commit", "-qam", "by hand")
    (root / ".git" / "index.lock").write_text("")
    import os

    os.utime(root / ".git" / "index.lock", (1, 1))
    return root / a.rel


def test_doctor_prints_every_problem_with_the_command_that_fixes_it(ctx: Context):
    _doctor_vault(ctx)
    vault = ctx.vault.root
    report = run_cli("memory", "doctor", "--json", vault=vault)
    data = report.json
    assert report.code == 1 and data["ok"] is False
    human = run_cli("memory", "doctor", vault=vault)
    out = human.out
    assert human.code == 1
    assert (
        "  - group:groups/tools/note/orphan.md: valid note, new and not committed yet\n"
        "    fix: `jacked memory doctor --repair` will commit it" in out
    )
    assert re.search(
        r"  - group:groups/tools/note/junk\.md: invalid \(.+\)\n"
        r"    fix: .*--repair` moves it to \.git/jacked/quarantine/",
        out,
    ), out
    assert "hunter2" not in out
    assert "vault:groups/tools/index.md" in out and "derived" in out
    assert "github.com/o/r" in out and "x, y" in out and "jacked memory group map" in out
    assert "settings.distill.command" in out or "distill.command" in out
    assert ".git/index.lock" in out
    assert "EDITED_OUTSIDE_TOOL" in out or "edited outside" in out
    # every problem line is followed by one line saying how to fix it
    lines = out.splitlines()
    problems = [i for i, line in enumerate(lines) if line.startswith("  - ")]
    assert problems and all(lines[i + 1].startswith("    fix: ") for i in problems), out
    for key in ("derived_stale", "config_problems", "stale_git_locks", "config_warnings", "uncommitted"):
        assert data[key], key


def test_broken_links_alone_are_a_warning_not_a_failure(ctx: Context):
    add(
        ctx,
        AddRequest(
            title="Beta", body="links away", group="tools", links=("mem_20260101_missing",), allow_dangling_links=True
        ),
    )
    vault = ctx.vault.root
    as_json = run_cli("memory", "doctor", "--json", vault=vault)
    assert as_json.code == 0 and as_json.json["ok"] is True
    assert [b["missing"] for b in as_json.json["broken_links"]] == ["mem_20260101_missing"]
    human = run_cli("memory", "doctor", vault=vault)
    assert human.code == 0 and "warning" in human.out and "mem_20260101_missing" in human.out
    assert "problems found" not in human.out


def test_mcp_doctor_treats_broken_links_as_a_warning_too(ctx: Context):
    from jacked_vault.mcp.settings import Settings
    from jacked_vault.mcp.tools import doctor
    from jacked_vault.mcp.tools.common import Session

    add(
        ctx,
        AddRequest(
            title="Beta", body="links away", group="tools", links=("mem_20260101_missing",), allow_dangling_links=True
        ),
    )
    session = Session(Settings(harness="claude", vault_path=ctx.vault.root, cwd=ctx.cwd, allow_user_scope=False))
    report = doctor.call(session, doctor.Arguments())
    assert report["broken_link_count"] == 1 and report["ok"] is True


# -- 9. output details -------------------------------------------------------------------------


MERGE_BODY = (
    "Merge-Commit: d228635f78a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5\nRepo: github.com/acme/api\nBranch: main\nKind: merge\n"
    "Pull-Request: #13 (from the merge message)\n\n"
    "Merged into `main` of github.com/acme/api by a merge commit. More here.\n"
)


def test_first_sentence_skips_a_leading_header_block():
    from jacked_vault.search.entries import first_sentence

    assert first_sentence(MERGE_BODY) == "Merged into `main` of github.com/acme/api by a merge commit."
    assert first_sentence("Note: we pin the version. Because.") == "Note: we pin the version."
    assert first_sentence("Owner: ops\nReviewer: dev\n") == "Owner: ops"  # nothing after the block: keep it


def test_index_md_and_brief_show_a_merge_note_by_its_sentence(vault_path: Path, code_repo: Path):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    add(inside, AddRequest(title="Add the b file (#13)", body=MERGE_BODY, kind="decision"))
    index_md = (vault_path / "groups/api/index.md").read_text()
    assert "— Merged into `main`" in index_md and "Merge-Commit" not in index_md
    brief = run_cli("memory", "brief", vault=vault_path, cwd=code_repo)
    assert "Merged into `main`" in brief.out and "Merge-Commit" not in brief.out


def _episodic(vault: Path, day: str, text: str) -> Path:
    folder = vault / "groups/api/episodic/github.com__acme__api"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"today-{day}.md"
    path.write_text(text)
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "episodic")
    return path


def test_brief_never_shows_an_entry_header_without_its_text(vault_path: Path, code_repo: Path):
    long = "A long sentence about what happened in the session that does not fit a small budget. " * 4
    _episodic(vault_path, "2026-11-28", f"# github.com/acme/api — 2026-11-28\n\n## 03:48 | main\n{long}\n")
    for budget in (200, 230, 260, 300):
        text = run_cli("memory", "brief", "--budget", str(budget), vault=vault_path, cwd=code_repo).out
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if re.match(r"^> #+ ", line):
                assert i + 1 < len(lines) and lines[i + 1].startswith("> ") and not re.match(r"^> #+ ", lines[i + 1]), (
                    text
                )
            if line.startswith("### "):
                assert i + 1 < len(lines) and lines[i + 1].strip(), text


def test_brief_names_index_md_only_when_it_exists(vault_path: Path, code_repo: Path):
    inside = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    first = add(inside, AddRequest(title="Use FTS5", body="For search.", kind="decision"))
    add(inside, AddRequest(title="Pin the version", body="Always.", links=(first.note.id,)))
    add(inside, AddRequest(title="Keep it small", body="Yes."))
    assert "index.md" in run_cli("memory", "brief", vault=vault_path, cwd=code_repo).out
    git(vault_path, "rm", "-q", "groups/api/index.md")
    git(vault_path, "commit", "-qm", "gone")
    out = run_cli("memory", "brief", vault=vault_path, cwd=code_repo).out
    assert "index.md" not in out and "Keep it small" in out


def test_read_shows_validity_reason_trust_and_origin(vault_path: Path):
    note = _add_cli(vault_path)
    assert run_cli("memory", "expire", note["id"], "--at", "2030-01-02", vault=vault_path).code == 0
    shown = run_cli("memory", "read", note["id"], vault=vault_path).out
    assert "2030-01-02T00:00:00.000Z" in shown and "trust" in shown and "unreviewed" in shown and "origin" in shown
    other = _add_cli(vault_path, title="Use MySQL")
    assert run_cli("memory", "reject", other["id"], "--reason", "we chose Postgres", vault=vault_path).code == 0
    rejected = run_cli("memory", "read", other["id"], "--all", vault=vault_path).out
    assert "rejected" in rejected and "we chose Postgres" in rejected


def test_review_json_carries_origin(ctx: Context):
    add(ctx, AddRequest(title="Captured", body="b", group="tools", origin="session-end", status="candidate"))
    result = run_cli("memory", "review", "--json", vault=ctx.vault.root)
    (candidate,) = result.json["candidates"]
    assert candidate["origin"] == "session-end"
    assert "session-end" in run_cli("memory", "review", vault=ctx.vault.root).out


def test_an_episodic_hit_can_be_read_by_its_id(vault_path: Path):
    _episodic(
        vault_path, "2026-11-28", "# github.com/acme/api — 2026-11-28\n\n## 09:00 | main\nTuned the zeppelin cache.\n"
    )
    hits = run_cli("memory", "search", "zeppelin", "--json", vault=vault_path).json["results"]
    (hit,) = hits
    assert hit["tier"] == "episodic"
    read = run_cli("memory", "read", hit["id"], "--json", vault=vault_path)
    assert read.code == 0, read.out
    assert "Tuned the zeppelin cache." in read.json["memory"]["body"] and read.json["path"] == hit["path"]
    human = run_cli("memory", "read", hit["id"], vault=vault_path)
    assert human.code == 0 and "Tuned the zeppelin cache." in human.out


def test_after_rollup_each_entry_is_found_once(vault_path: Path):
    _episodic(
        vault_path, "2026-11-20", "# github.com/acme/api — 2026-11-20\n\n## 09:00 | main\nTuned the zeppelin cache.\n"
    )
    assert run_cli("memory", "rollup", "--today", "2026-11-22", vault=vault_path).code == 0
    hits = run_cli("memory", "search", "zeppelin", "--json", vault=vault_path).json["results"]
    assert [h["path"].rsplit("/", 1)[-1] for h in hits] == ["recent.md"]


def test_brief_after_rollup_still_shows_the_last_session(vault_path: Path, code_repo: Path):
    _episodic(
        vault_path, "2026-10-01", "# github.com/acme/api — 2026-10-01\n\n## 09:00 | main\nTuned the zeppelin cache.\n"
    )
    assert run_cli("memory", "rollup", "--today", "2026-11-22", vault=vault_path).code == 0  # straight to archive.md
    brief = run_cli("memory", "brief", vault=vault_path, cwd=code_repo).out
    assert "Tuned the zeppelin cache." in brief


def test_search_hits_show_no_markers_and_no_repeated_title(vault_path: Path):
    _add_cli(vault_path, title="Zeppelin cache", body="The zeppelin cache keeps ten entries.")
    _add_cli(vault_path, title="Other", body="Nothing about airships here.")
    out = run_cli("memory", "search", "zeppelin", vault=vault_path).out
    assert "**" not in out
    assert out.count("Zeppelin cache") == 1, out
    assert "The zeppelin cache keeps ten entries." in out
