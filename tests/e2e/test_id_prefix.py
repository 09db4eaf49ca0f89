"""Short ids (issue 33.2): every door that takes a note id takes a unique prefix of its random
part (the ULID after `mem_<date>_`), like git's short hashes: the CLI commands, the review page and
MCP `memory_read`. A prefix several notes share is refused with the candidates listed; one shorter
than 4 characters of the random part is refused; neither changes anything. The real CLI in a
subprocess, the page over HTTP, the MCP server over stdio; the notes carry fixed ids so their
prefixes are known."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import git, make_repo, run_cli, snapshot
from helpers.mcp_server import call, run, stdio
from helpers.ui_world import page_client

import jacked_vault.document as document
from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from jacked_vault.write.init import init_vault

# two notes made the same minute share the first 9 characters of their random part; a third differs early
TWIN_A = "mem_20261201_01jq7k2m9x4b8c6d2e0f1g3h5j7k"
TWIN_B = "mem_20261201_01jq7k2m9y5c9d7e3f1g2h4j6k8m"
OTHER = "mem_20261202_01jr5t3w8z6d1e9f4g2h7j3k5m0n"
SHARED = "01jq7k2m9"  # both twins
MIN_CHARS = 4


def _short(note_id: str, chars: int = 10) -> str:
    return note_id.split("_", 2)[2][:chars]


def _add_with_id(ctx: Context, note_id: str, **kw) -> None:
    """A real `add`, its generated id fixed to `note_id` (so the test knows which prefixes collide)."""
    kw.setdefault("body", f"The body of {kw['title']}.")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(document, "new_note_id", lambda now=None: note_id, raising=False)
        assert add(ctx, AddRequest(group="tools", **kw)).note.id == note_id


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    path = tmp_path / "vault"
    init_vault(path)
    work = tmp_path / "work"
    work.mkdir()
    ctx = Context.create(vault=str(path), cwd=work, harness="tester")
    _add_with_id(ctx, TWIN_A, title="Twin alpha decision", status="candidate")
    _add_with_id(ctx, TWIN_B, title="Twin beta decision")
    _add_with_id(ctx, OTHER, title="Other gamma fact", kind="fact")
    return path


def _commit_names(vault: Path, note_id: str) -> bool:
    return f"Memory-Id: {note_id}" in git(vault, "log", "-1", "--format=%B")


# command -> (its arguments with {a} (a twin, a candidate), {b} (the other twin), {o} (the third note)), what it changes
COMMANDS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "read": (("read", "{a}"), None),
    "log": (("log", "{a}"), None),
    "accept": (("accept", "{a}"), TWIN_A),
    "reject": (("reject", "{a}", "--reason", "not what we decided"), TWIN_A),
    "expire": (("expire", "{o}"), OTHER),
    "supersede": (("supersede", "{b}", "--by", "{o}"), TWIN_B),
    "forget": (("forget", "{a}"), TWIN_A),
}


def _args(template: tuple[str, ...], **ids: str) -> list[str]:
    return [part.format(**ids) for part in template]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_unique_prefix_of_the_random_part_names_the_note(vault: Path, command: str):
    template, changed = COMMANDS[command]
    ids = {"a": _short(TWIN_A), "b": _short(TWIN_B), "o": _short(OTHER, MIN_CHARS)}
    head = git(vault, "rev-parse", "HEAD")
    done = run_cli("memory", *_args(template, **ids), "--json", vault=vault)
    assert done.code == 0, done.out + done.err
    assert (TWIN_B if command == "supersede" else OTHER if command == "expire" else TWIN_A) in done.out
    if changed is None:
        assert git(vault, "rev-parse", "HEAD") == head
    else:
        assert git(vault, "rev-parse", "HEAD") != head and _commit_names(vault, changed)


@pytest.mark.parametrize("form", ["bare", "full"])
def test_the_whole_id_and_the_id_with_a_cut_random_part_both_work(vault: Path, form: str):
    typed = _short(OTHER, 6) if form == "bare" else OTHER[: len("mem_20261202_") + 6]
    done = run_cli("memory", "read", typed.upper() if form == "bare" else typed, "--json", vault=vault)
    assert done.code == 0, done.err
    assert done.json["memory"]["id"] == OTHER


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_ambiguous_prefix_is_refused_listing_the_candidates_and_changes_nothing(vault: Path, command: str):
    template, _ = COMMANDS[command]
    before = snapshot(vault)
    for as_json in (False, True):
        args = _args(template, a=SHARED, b=SHARED, o=SHARED)
        refused = run_cli("memory", *args, *(["--json"] * as_json), vault=vault)
        assert refused.code == 2, refused.out + refused.err
        said = refused.json["error"]["message"] if as_json else refused.err
        assert f"{SHARED} is ambiguous" in said
        assert TWIN_A in said and TWIN_B in said and OTHER not in said
        assert "Twin alpha decision" in said and "Traceback" not in refused.err
    assert snapshot(vault) == before


@pytest.mark.parametrize("typed", ["01j", "mem_20261201_01j", "mem_2026", "mem_"])
@pytest.mark.parametrize("command", ["read", "accept", "supersede"])
def test_a_prefix_shorter_than_four_characters_of_the_random_part_is_refused(vault: Path, command: str, typed: str):
    template, _ = COMMANDS[command]
    before = snapshot(vault)
    refused = run_cli("memory", *_args(template, a=typed, b=typed, o=_short(OTHER)), "--json", vault=vault)
    assert refused.code == 2, refused.out + refused.err
    assert refused.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    assert f"at least {MIN_CHARS} characters" in refused.json["error"]["message"]
    assert snapshot(vault) == before


def test_a_prefix_no_note_has_is_not_found(vault: Path):
    missing = run_cli("memory", "read", "zzzzzz", "--json", vault=vault)
    assert missing.code == 1 and missing.json["error"]["code"] == "JACKED_MEMORY_NOT_FOUND"
    assert "zzzzzz" in missing.json["error"]["message"]


def test_the_review_page_takes_a_prefix_and_refuses_an_ambiguous_one(vault: Path, tmp_path: Path):
    repo = tmp_path / "code"
    repo.mkdir()
    make_repo(repo)
    client = page_client(vault, repo)
    shown = client.get(f"/note/{_short(OTHER)}")
    assert shown.status_code == 200 and "Other gamma fact" in shown.text and OTHER in shown.text
    token = client.get("/review").text.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    before = snapshot(vault)
    refused = client.post(f"/note/{SHARED}/accept", data={"csrf": token}, headers={"accept": "application/json"})
    assert refused.status_code in (400, 404) and TWIN_A in refused.text and TWIN_B in refused.text
    assert snapshot(vault) == before
    done = client.post(f"/note/{_short(TWIN_A)}/accept", data={"csrf": token}, headers={"accept": "application/json"})
    assert done.status_code == 200, done.text
    assert done.json()["id"] == TWIN_A and _commit_names(vault, TWIN_A)


def test_mcp_read_takes_a_prefix_among_the_notes_its_harness_may_read(vault: Path, tmp_path: Path):
    work = tmp_path / "work"
    ctx = Context.create(vault=str(vault), cwd=work, harness="tester")
    hidden = "mem_20261202_01jr5t3w8zz000000000000000"
    _add_with_id(ctx, hidden, title="For codex only", targets=("codex",))

    async def go() -> Iterator:
        async with stdio(vault, work, harness="alpha") as client:
            return [
                await call(client, "memory_read", {"id": typed})
                for typed in (_short(TWIN_B), SHARED, _short(OTHER, 9), "01j")
            ]

    by_prefix, ambiguous, beside_hidden, short = run(go)
    assert not by_prefix[0] and by_prefix[1]["memory"]["id"] == TWIN_B
    assert ambiguous[0] and ambiguous[1]["error"]["reason"] == "JACKED_MEMORY_USAGE"
    assert TWIN_A in ambiguous[1]["error"]["message"] and TWIN_B in ambiguous[1]["error"]["message"]
    # the codex note shares this prefix: alpha may not learn it exists, so the prefix names OTHER alone
    assert not beside_hidden[0] and beside_hidden[1]["memory"]["id"] == OTHER
    assert hidden not in json.dumps(beside_hidden[1])
    assert short[0] and short[1]["error"]["reason"] == "JACKED_MEMORY_USAGE"
