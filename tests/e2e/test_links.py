"""Links name notes that exist: `add`/`handoff` and MCP `memory_save` refuse a link to nothing
(a person may keep one with `--allow-dangling-link`); doctor warns about broken links, with
the fix, and never fails on them alone."""

from __future__ import annotations

from pathlib import Path

from conftest import git, run_cli, snapshot
from helpers.mcp_server import call, err, inproc, lib_add, ok, run
from mcp import Client

MISSING = "mem_20260101_doesnotexist"


def _add(vault: Path, title: str, *extra: str):
    return run_cli("memory", "add", "--group", "tools", "--title", title, "--body", "b", "--json", *extra, vault=vault)


def test_add_and_handoff_refuse_a_link_to_a_note_that_does_not_exist(vault_path: Path):
    before = snapshot(vault_path)
    for args in (
        ("memory", "add", "--group", "tools", "--title", "T", "--body", "b", "--link", MISSING, "--json"),
        (
            "memory",
            "handoff",
            "--from",
            "claude",
            "--target",
            "codex",
            "--group",
            "tools",
            "--title",
            "T",
            "--body",
            "b",
            "--link",
            MISSING,
            "--json",
        ),
    ):
        refused = run_cli(*args, vault=vault_path)
        assert refused.code == 1 and refused.json["error"]["code"] == "JACKED_MEMORY_VALIDATION"
        message = refused.json["error"]["message"]
        assert "links[0]" in message and "--allow-dangling-link" in message and MISSING not in refused.out + refused.err
    assert snapshot(vault_path) == before  # no file, no commit
    target = _add(vault_path, "Target").json["memory"]["id"]
    assert _add(vault_path, "Linker", "--link", target).code == 0
    second = _add(vault_path, "Second linker", "--link", target, "--link", MISSING)
    assert second.code == 1 and "links[1]" in second.json["error"]["message"]


def test_a_kept_dangling_link_is_a_doctor_warning_with_its_fix_never_a_failure(vault_path: Path):
    kept = _add(vault_path, "Dangling", "--link", MISSING, "--allow-dangling-link")
    assert kept.code == 0 and kept.json["memory"]["links"] == [MISSING]
    note = kept.json["memory"]["id"]
    for args in ((), ("--repair",)):
        report = run_cli("memory", "doctor", *args, "--json", vault=vault_path)
        assert report.code == 0 and report.json["ok"] is True, report.out
        assert report.json["broken_links"] == [{"id": note, "missing": MISSING}]
        (warning,) = report.json["warnings"]
        assert warning["code"] == "BROKEN_LINK" and f"--supersedes {note}" in warning["fix"]
    assert run_cli("memory", "reject", note, "--reason", "wrong", "--json", vault=vault_path).code == 0
    assert run_cli("memory", "doctor", "--json", vault=vault_path).code == 0
    assert git(vault_path, "status", "--porcelain") == ""


def test_memory_save_refuses_a_link_to_a_missing_or_hidden_note(vault_path: Path, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    hidden = lib_add(vault_path, work, "beta", "Beta only", "b", targets=("beta",))
    shared = lib_add(vault_path, work, "beta", "For everyone", "b")
    head = git(vault_path, "rev-parse", "HEAD").strip()

    async def go():
        async with Client(inproc(vault_path, work, harness="alpha")) as client:
            save = {"title": "Alpha note", "body": "b", "group": "g"}
            return [await call(client, "memory_save", {**save, "links": [link]}) for link in (MISSING, hidden, shared)]

    missing, secret, fine = run(go)
    errors = [err(pair, "MEMORY_WRITE_REJECTED") for pair in (missing, secret)]
    assert errors[0] == errors[1] and errors[0]["reason"] == "JACKED_MEMORY_VALIDATION"  # hidden reads as missing
    assert "allow-dangling-link" not in errors[0]["message"] and hidden not in str(errors[1])
    assert ok(fine)["memory"]["id"]
    assert git(vault_path, "rev-list", "--count", f"{head}..HEAD").strip() == "1"


def test_mcp_doctor_is_ok_with_a_broken_link(vault_path: Path, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    lib_add(vault_path, work, "alpha", "Dangling", "b", links=(MISSING,), allow_dangling_links=True)

    async def go():
        async with Client(inproc(vault_path, work, harness="alpha")) as client:
            return await call(client, "memory_doctor", {})

    report = ok(run(go))
    assert report["ok"] is True and report["broken_link_count"] == 1


def test_a_link_from_another_group_keeps_the_linked_groups_index_md_current(vault_path: Path):
    """index.md orders a day's notes by the links they get (SPEC: newest day, then most linked),
    so a write that adds or ends a link into another group regenerates that group's index.md
    too: doctor finds nothing stale after it (it did: only the writing note's group was)."""

    def add(group: str, title: str, *extra: str) -> str:
        done = run_cli(
            "memory", "add", "--group", group, "--title", title, "--body", "b", "--json", *extra, vault=vault_path
        )
        assert done.code == 0, done.err
        return done.json["memory"]["id"]

    add("tools", "A first by title")
    linked = add("tools", "B linked from elsewhere")
    index_md = vault_path / "groups" / "tools" / "index.md"
    assert index_md.read_text().index("A first by title") < index_md.read_text().index("B linked from elsewhere")
    linker = add("other", "Points at B", "--link", linked)
    assert index_md.read_text().index("B linked from elsewhere") < index_md.read_text().index("A first by title")
    report = run_cli("memory", "doctor", "--json", vault=vault_path)
    assert report.json["derived_stale"] == [] and report.json["ok"] is True, report.json["derived_stale"]
    assert git(vault_path, "status", "--porcelain") == ""  # committed with the note
    rejected = run_cli("memory", "reject", linker, "--reason", "not needed", "--json", vault=vault_path)
    assert rejected.code == 0, rejected.err  # a rejected note's links count no more
    assert index_md.read_text().index("A first by title") < index_md.read_text().index("B linked from elsewhere")
    report = run_cli("memory", "doctor", "--json", vault=vault_path)
    assert report.json["derived_stale"] == [] and report.json["ok"] is True, report.json["derived_stale"]
