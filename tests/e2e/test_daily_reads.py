"""Issue 18 ("Two machines and a week of real use"), items 6, 8, 9, 10 and 16: what a week of daily
adds and reads found. Real parts only: the CLI in a subprocess, the MCP server through its client,
real git repos.

- 6: a create whose normalised title and body equal a live note in the same place answers that
  note (`duplicate_of`), commits nothing; same title, other body: saved, with a notice.
- 8: one refused committed file never makes a read of a good note fail; fences with trailing
  spaces are fences.
- 9: read by id is explicit: any status or validity, marked; a harness gets NOT_VISIBLE for a
  note addressed elsewhere (MCP: the same error as a missing one).
- 10: asking for a status looks at notes of that status whatever their validity.
- 16: the brief, `read episodic_…`, `group list`, and hints that offer only what works.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import git, make_repo, run_cli, snapshot
from helpers.mcp_server import call, inproc, run
from mcp import Client

GOOD_ID = "mem_20260101_01jdz5k6x9f3q8w2v7n4m1c0ab"
ABSENT_ID = "mem_20260102_01jdz5k6x9f3q8w2v7n4m1c0zz"


def cli(vault: Path, *args: str, cwd: Path | None = None, harness: str | None = None, stdin: str | None = None):
    env = {"JACKED_MEMORY_HARNESS": harness} if harness else {}
    return run_cli("memory", *args, vault=vault, cwd=cwd, stdin=stdin, **env)


def added(vault: Path, *args: str, **kw) -> dict:
    result = cli(vault, "add", *args, "--json", **kw)
    assert result.code == 0, result.out + result.err
    return result.json


def head(vault: Path) -> str:
    return git(vault, "rev-parse", "HEAD").strip()


def note_files(vault: Path) -> list[str]:
    return sorted(
        str(p.relative_to(vault))
        for p in vault.glob("groups/*/*/*.md")
        if p.name != "index.md" and "episodic" not in p.parts
    )


def commit_file(vault: Path, rel: str, data: bytes, message: str = "planted by hand") -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_bytes(data)
    git(vault, "add", "--", rel)
    git(vault, "commit", "-qm", message)


# -- 6: duplicates ----------------------------------------------------------------------------------


def test_the_same_add_twice_answers_the_first_note_and_commits_nothing(vault_path: Path):
    first = added(
        vault_path, "--group", "tools", "--kind", "decision", "--title", "Use FTS5", "--body", "It ships with Python."
    )
    before = snapshot(vault_path)
    # the tombstone normalisation: case, a trailing period and runs of spaces make no new value
    again = cli(
        vault_path,
        "add",
        "--group",
        "tools",
        "--kind",
        "decision",
        "--title",
        "use fts5.",
        "--body",
        "It  ships with python",
        "--json",
    )
    assert again.code == 0, again.err
    assert again.json["duplicate_of"] == first["memory"]["id"]
    assert again.json["memory"]["id"] == first["memory"]["id"] and again.json["path"] == first["path"]
    assert again.json["commit"] is None
    assert snapshot(vault_path) == before, "a duplicate commits nothing and writes nothing"
    text = cli(
        vault_path,
        "add",
        "--group",
        "tools",
        "--kind",
        "decision",
        "--title",
        "Use FTS5",
        "--body",
        "It ships with Python.",
    )
    assert text.code == 0 and first["memory"]["id"] in text.out and "nothing was written" in text.out
    assert note_files(vault_path) == ["groups/tools/decision/use-fts5.md"]
    index_md = (vault_path / "groups/tools/index.md").read_text()
    assert index_md.count("Use FTS5") == 1


def test_a_retried_handoff_is_one_note(vault_path: Path):
    args = (
        "handoff",
        "--from",
        "claude",
        "--target",
        "codex",
        "--group",
        "tools",
        "--title",
        "Finish the parser",
        "--body",
        "CRLF fails.",
        "--json",
    )
    first = cli(vault_path, *args)
    second = cli(vault_path, *args)
    assert first.code == 0 and second.code == 0, second.err
    assert second.json["duplicate_of"] == first.json["memory"]["id"] and second.json["commit"] is None
    assert "duplicate_of" not in first.json
    assert note_files(vault_path) == ["groups/tools/handoff/finish-the-parser.md"]


def test_an_mcp_save_retried_by_its_client_is_one_note(vault_path: Path, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    arguments = {"title": "Cache the index", "body": "SQLite next to the vault.", "kind": "decision", "group": "tools"}

    async def go():
        async with Client(inproc(vault_path, work, harness="claude")) as client:
            first = await call(client, "memory_save", arguments)
            between = head(vault_path)
            second = await call(client, "memory_save", arguments)
            return first, between, second

    (err1, first), between, (err2, second) = run(go)
    assert not err1 and not err2, second
    assert second["duplicate_of"] == first["memory"]["id"] == second["memory"]["id"]
    assert second["commit"] is None and head(vault_path) == between
    assert "duplicate_of" not in first
    assert note_files(vault_path) == ["groups/tools/decision/cache-the-index.md"]


def test_same_title_other_body_is_saved_with_a_notice_naming_the_first(vault_path: Path):
    first = added(vault_path, "--group", "tools", "--title", "Deploy steps", "--body", "Run make deploy.")
    second = added(
        vault_path, "--group", "tools", "--title", "Deploy steps", "--body", "Run make release, then deploy."
    )
    assert "duplicate_of" not in second and second["commit"]
    assert second["memory"]["id"] != first["memory"]["id"]
    assert second["same_title"] == [first["memory"]["id"]]
    text = cli(vault_path, "add", "--group", "tools", "--title", "Deploy steps", "--body", "A third way.")
    assert text.code == 0 and "Added" in text.out
    assert first["memory"]["id"] in text.out and second["memory"]["id"] in text.out and "same title" in text.out


def test_the_same_words_elsewhere_are_another_note(vault_path: Path):
    """Same scope and group (and the same readers) make a duplicate; another group, another target
    or a note that no longer holds (superseded) do not."""
    first = added(vault_path, "--group", "tools", "--title", "Pin typer", "--body", "Typer 0.12 breaks us.")
    elsewhere = added(vault_path, "--group", "web", "--title", "Pin typer", "--body", "Typer 0.12 breaks us.")
    for_codex = added(
        vault_path, "--group", "tools", "--target", "codex", "--title", "Pin typer", "--body", "Typer 0.12 breaks us."
    )
    assert "duplicate_of" not in elsewhere and "duplicate_of" not in for_codex
    newer = added(vault_path, "--group", "tools", "--title", "Pin typer below 0.12", "--body", "Typer 0.12 breaks us.",
                  "--supersedes", first["memory"]["id"])  # fmt: skip
    back = added(vault_path, "--group", "tools", "--title", "Pin typer", "--body", "Typer 0.12 breaks us.")
    assert "duplicate_of" not in back and back["memory"]["id"] not in (first["memory"]["id"], newer["memory"]["id"])


def test_a_duplicate_that_asks_for_a_supersede_is_refused_not_half_done(vault_path: Path):
    old = added(vault_path, "--group", "tools", "--title", "Old way", "--body", "Do it the old way.")
    twin = added(vault_path, "--group", "tools", "--title", "New way", "--body", "Do it the new way.")
    before = snapshot(vault_path)
    result = cli(vault_path, "add", "--group", "tools", "--title", "New way", "--body", "Do it the new way.",
                 "--supersedes", old["memory"]["id"], "--json")  # fmt: skip
    assert result.code == 1 and result.json["error"]["code"] == "JACKED_MEMORY_EXISTS"
    assert twin["memory"]["id"] in result.json["error"]["message"] and "supersede" in result.json["error"]["message"]
    assert snapshot(vault_path) == before


def test_automatic_capture_answers_the_live_note_too(tmp_path: Path, monkeypatch):
    """Two sessions that distil the same note: one candidate, the second capture names it."""
    from helpers.capture import CLAUDE, Env, transcript

    from jacked_vault.capture.session import capture_session
    from jacked_vault.write.init import init_vault

    vault = tmp_path / "vault"
    init_vault(vault)
    repo = tmp_path / "code" / "api"
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:Acme/API.git")
    env = Env(tmp_path, vault, repo)
    env.distiller("note")
    first = capture_session(env.ctx(), env.payload(transcript(env, "one.jsonl"), session="s-1"), reader=CLAUDE)
    second = capture_session(env.ctx(), env.payload(transcript(env, "two.jsonl"), session="s-2"), reader=CLAUDE)
    assert first.note_id and not first.note_duplicate
    assert second.note_id == first.note_id and second.note_duplicate
    assert len(env.notes()) == 1
    assert "already saved" in second.summary()


def test_migrate_skips_a_section_that_is_already_a_live_note(vault_path: Path, code_repo: Path):
    remember = code_repo / ".remember"
    remember.mkdir()
    (remember / "core-memories.md").write_text(
        "# Core\n\n## Tabs, never spaces\nWe indent with tabs.\n\n## Keep PRs small\nUnder 300 lines.\n"
    )
    live = added(vault_path, "--title", "Tabs, never spaces", "--body", "We indent with tabs.", cwd=code_repo)
    result = cli(vault_path, "migrate", "--json", cwd=code_repo)
    assert result.code == 0, result.err
    by_title = {c["title"]: c for c in result.json["candidates"]}
    assert by_title["Tabs, never spaces"]["action"] == "duplicate"
    assert live["memory"]["id"] in by_title["Tabs, never spaces"]["reason"]
    assert by_title["Keep PRs small"]["action"] == "create"
    assert result.json["totals"]["candidates_duplicate"] == 1


# -- 8: one refused file never blocks the good ones -------------------------------------------------


def _good_and_broken(vault: Path) -> str:
    good = added(vault, "--group", "tools", "--title", "Good note", "--body", "Readable tokgood.")["memory"]["id"]
    commit_file(vault, "groups/tools/note/broken.md", b"---\nschema: nope\n---\nbody\n")
    return good


def test_one_refused_file_does_not_block_reading_good_notes(vault_path: Path, tmp_path: Path):
    good = _good_and_broken(vault_path)
    read = cli(vault_path, "read", good, "--json")
    assert read.code == 0, read.out + read.err
    assert read.json["memory"]["id"] == good
    assert cli(vault_path, "read", good).code == 0
    assert cli(vault_path, "log", good).code == 0
    missing = cli(vault_path, "read", ABSENT_ID, "--json")
    assert missing.code == 1 and missing.json["error"]["code"] == "JACKED_MEMORY_INCOMPLETE"
    message = missing.json["error"]["message"]
    assert "1 committed file" in message and "jacked memory doctor" in message and "broken.md" not in message
    search = cli(vault_path, "search", "tokgood")
    assert search.code == 0 and "Good note" in search.out and "1 invalid file" in search.out
    work = tmp_path / "work"
    work.mkdir()

    async def go():
        async with Client(inproc(vault_path, work, harness="claude")) as client:
            return await call(client, "memory_read", {"id": good}), await call(client, "memory_read", {"id": ABSENT_ID})

    (is_error, found), (absent_error, absent) = run(go)
    assert not is_error and found["memory"]["id"] == good
    assert absent_error and absent["error"]["code"] == "MEMORY_READ_INCOMPLETE"


def test_transitions_answer_for_a_good_note_and_refuse_to_claim_absence(vault_path: Path):
    good = _good_and_broken(vault_path)
    assert cli(vault_path, "expire", good).code == 0
    absent = cli(vault_path, "accept", ABSENT_ID, "--json")
    assert absent.code == 1 and absent.json["error"]["code"] == "JACKED_MEMORY_INCOMPLETE"
    assert "1 committed file" in absent.json["error"]["message"]


def test_fences_with_trailing_spaces_are_fences(vault_path: Path):
    from jacked_vault.document import render_note
    from jacked_vault.write.create import build_note

    note = build_note(title="Spaced fence", body="Written by an editor that keeps spaces.", kind="note", scope="group",
                      group="tools", repos=[], source_harness="vim", origin="cli")  # fmt: skip
    text = render_note(note).decode("utf-8")
    lines = text.split("\n")
    closing = lines.index("---", 1)
    lines[0], lines[closing] = "---  ", "---\t "
    commit_file(vault_path, "groups/tools/note/spaced-fence.md", "\n".join(lines).encode("utf-8"))
    read = cli(vault_path, "read", note.id, "--json")
    assert read.code == 0, read.out + read.err
    assert read.json["memory"]["body"] == "Written by an editor that keeps spaces."
    doctor = cli(vault_path, "doctor", "--json")
    assert doctor.json["invalid_files"] == []


# -- 9: read by id is explicit ----------------------------------------------------------------------


@pytest.fixture
def statuses(vault_path: Path) -> dict[str, str]:
    """One note of each status or validity the default window hides, plus one for codex only."""
    ids = {}
    ids["candidate"] = added(
        vault_path, "--group", "tools", "--title", "Maybe cache", "--body", "A candidate.", harness="claude"
    )["memory"]["id"]
    assert cli(vault_path, "reject", ids["candidate"], "--reason", "no").code == 0  # rejected: another note
    ids["rejected"] = ids.pop("candidate")
    ids["expired"] = added(vault_path, "--group", "tools", "--title", "Old rule", "--body", "Expired.")["memory"]["id"]
    assert cli(vault_path, "expire", ids["expired"]).code == 0
    ids["superseded"] = added(vault_path, "--group", "tools", "--title", "First take", "--body", "Superseded.")[
        "memory"
    ]["id"]
    added(
        vault_path, "--group", "tools", "--title", "Second take", "--body", "Newer.", "--supersedes", ids["superseded"]
    )
    ids["future"] = added(
        vault_path, "--group", "tools", "--title", "Next year", "--body", "Not yet.", "--valid-from", "2099-01-01"
    )["memory"]["id"]
    ids["codex"] = added(
        vault_path, "--group", "tools", "--title", "Codex only", "--body", "For codex.", "--target", "codex"
    )["memory"]["id"]
    return ids


def _candidate(vault: Path, harness: str | None = None) -> str:
    from jacked_vault.context import Context
    from jacked_vault.notes import AddRequest, add

    ctx = Context.create(vault=str(vault), cwd=vault.parent, harness=harness or "session-end")
    return add(
        ctx,
        AddRequest(
            title="Pending idea", body="Waits for review.", group="tools", status="candidate", origin="session-end"
        ),
    ).note.id


def test_a_person_reads_any_note_by_id_marked(vault_path: Path, statuses: dict[str, str]):
    statuses["candidate"] = _candidate(vault_path)
    for what, note_id in statuses.items():
        result = cli(vault_path, "read", note_id, "--json")
        assert result.code == 0, (what, result.out + result.err)
        memory = result.json["memory"]
        assert memory["id"] == note_id
        text = cli(vault_path, "read", note_id).out
        if what in ("candidate", "rejected", "superseded"):
            assert memory["status"] == what and f"status:  {what}" in text
        if what == "expired":
            assert memory["valid_until"] and "(expired)" in text
        if what == "future":
            assert "(not valid yet)" in text
        if what == "codex":
            assert memory["target_harnesses"] == ["codex"] and "for codex" in text


def test_a_harness_reads_its_notes_in_any_status_and_hears_not_visible_for_others(
    vault_path: Path, statuses: dict[str, str]
):
    statuses["candidate"] = _candidate(vault_path)
    codex = statuses.pop("codex")
    for what, note_id in statuses.items():
        result = cli(vault_path, "read", note_id, "--json", harness="claude")
        assert result.code == 0 and result.json["memory"]["id"] == note_id, (what, result.out + result.err)
    hidden = cli(vault_path, "read", codex, "--json", harness="claude")
    assert hidden.code == 1 and hidden.json["error"]["code"] == "JACKED_MEMORY_NOT_VISIBLE"
    assert "another harness" in hidden.json["error"]["message"] and "Codex only" not in hidden.out
    text = cli(vault_path, "read", codex, harness="claude")
    assert "[JACKED_MEMORY_NOT_VISIBLE]" in text.err and "no note" not in text.err
    assert cli(vault_path, "read", codex, harness="codex").code == 0
    assert (
        cli(vault_path, "read", ABSENT_ID, "--json", harness="claude").json["error"]["code"]
        == "JACKED_MEMORY_NOT_FOUND"
    )


def test_mcp_read_shows_its_notes_by_id_and_answers_other_harnesses_notes_like_missing_ones(
    vault_path: Path, statuses: dict[str, str], tmp_path: Path
):
    work = tmp_path / "work"
    work.mkdir()
    codex = statuses.pop("codex")

    async def go():
        async with Client(inproc(vault_path, work, harness="claude")) as client:
            shown = [await call(client, "memory_read", {"id": note_id}) for note_id in statuses.values()]
            return (
                shown,
                await call(client, "memory_read", {"id": codex}),
                await call(client, "memory_read", {"id": ABSENT_ID}),
            )

    shown, (hidden_error, hidden), (absent_error, absent) = run(go)
    for (is_error, payload), (what, note_id) in zip(shown, statuses.items(), strict=False):
        assert not is_error and payload["memory"]["id"] == note_id, (what, payload)
    assert shown[0][1]["memory"]["status"] == "rejected"
    assert hidden_error and absent_error
    assert json.loads(json.dumps(hidden).replace(codex, "<ID>")) == json.loads(
        json.dumps(absent).replace(ABSENT_ID, "<ID>")
    )


# -- 10: asking for a status ------------------------------------------------------------------------


def test_search_status_superseded_finds_notes_right_after_their_supersede(vault_path: Path):
    a = added(vault_path, "--group", "tools", "--title", "Plan alpha", "--body", "zorblat one")["memory"]["id"]
    b = added(vault_path, "--group", "tools", "--title", "Plan beta", "--body", "zorblat two")["memory"]["id"]
    added(vault_path, "--group", "tools", "--title", "Plan gamma", "--body", "replaces alpha", "--supersedes", a)
    added(vault_path, "--group", "tools", "--title", "Plan delta", "--body", "replaces beta", "--supersedes", b)
    found = cli(vault_path, "search", "zorblat", "--status", "superseded", "--json")
    assert found.code == 0 and sorted(r["id"] for r in found.json["results"]) == sorted([a, b])
    assert all(r["status"] == "superseded" for r in found.json["results"])
    assert cli(vault_path, "search", "zorblat", "--json").json["results"] == []  # the default window still drops them
    # --as-of keeps meaning valid time: long after the supersedes, they no longer held
    later = cli(vault_path, "search", "zorblat", "--status", "superseded", "--as-of", "2098-01-01", "--json")
    assert later.json["results"] == []


def test_search_status_rejected_finds_an_expired_rejected_note(vault_path: Path):
    note = added(vault_path, "--group", "tools", "--title", "Short lived", "--body", "quuxword")["memory"]["id"]
    assert cli(vault_path, "expire", note).code == 0
    assert cli(vault_path, "reject", note, "--reason", "wrong").code == 0
    found = cli(vault_path, "search", "quuxword", "--status", "rejected", "--json").json["results"]
    assert [r["id"] for r in found] == [note]


# -- 16: what a person reads every day --------------------------------------------------------------


def test_the_brief_names_no_links_that_are_not_there_and_lists_before_it_says_read(vault_path: Path, code_repo: Path):
    empty = cli(vault_path, "brief", cwd=code_repo)
    assert empty.code == 0
    assert "read the notes listed above" not in empty.out
    assert "jacked memory search --group api" in empty.out
    added(vault_path, "--kind", "decision", "--title", "Use FTS5", "--body", "Ships with Python.", cwd=code_repo)
    unlinked = cli(vault_path, "brief", cwd=code_repo).out
    assert "most linked" not in unlinked and "### Decisions" in unlinked
    assert "read the notes listed above" in unlinked
    first = cli(vault_path, "search", "fts5", "--json").json["results"][0]["id"]
    added(vault_path, "--title", "Index refresh", "--body", "Diffs trees.", "--link", first, cwd=code_repo)
    assert "### Decisions most linked to" in cli(vault_path, "brief", cwd=code_repo).out


def test_reading_a_rolled_up_episodic_file_shows_its_newest_day(vault_path: Path):
    folder = vault_path / "groups/api/episodic/github.com__acme__api"
    folder.mkdir(parents=True)
    (folder / "recent.md").write_text(
        "# Recent\n\n## 2026-11-19\n### 09:00 | main\nOne.\n\n## 2026-11-20\n### 17:30 | feat/x\nTwo.\n"
    )
    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "episodic")
    hits = cli(vault_path, "search", "--all", "--limit", "50", "--json").json["results"]
    (episodic,) = [h for h in hits if h["tier"] == "episodic"]
    read = cli(vault_path, "read", episodic["id"], "--json")
    assert read.code == 0, read.err
    assert read.json["memory"]["updated_at"].startswith("2026-11-20")
    assert "1970" not in cli(vault_path, "read", episodic["id"]).out


def test_group_list_forgets_a_group_once_it_is_unmapped_and_empty(vault_path: Path, code_repo: Path):
    assert cli(vault_path, "group", "map", str(code_repo), "platform").code == 0
    assert "platform" in [g["name"] for g in cli(vault_path, "group", "list", "--json").json["groups"]]
    assert cli(vault_path, "group", "unmap", "github.com/acme/api").code == 0
    groups = cli(vault_path, "group", "list", "--json").json["groups"]
    assert "platform" not in [g["name"] for g in groups]
    assert "platform" not in cli(vault_path, "group", "list").out


def _offered(message: str) -> list[list[str]]:
    """The options a refusal offers as alternatives (`--group G`, `--scope user`, …)."""
    return [m.split() for m in re.findall(r"--scope [a-z]+", message)]


@pytest.mark.parametrize(
    "argv", [["add", "--title", "Outside", "--body", "No repo here."], ["hot", "show"]], ids=["add", "hot show"]
)
def test_a_hint_offers_only_what_then_works(vault_path: Path, tmp_path: Path, argv: list[str]):
    outside = tmp_path / "outside"
    outside.mkdir()
    refused = cli(vault_path, *argv, cwd=outside)
    assert refused.code != 0 and "--group" in refused.err
    for option in _offered(refused.err):
        taken = cli(vault_path, *argv, *option, cwd=outside)
        assert taken.code == 0, (option, taken.err)
