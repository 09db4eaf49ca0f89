"""Trust (SPEC 5.5): every write is unreviewed, only a person's accept makes a note reviewed,
recall marks which is which, and `settings.writes.agents` decides what an agent may write:
`active` (default), `candidate` (agent writes wait for review) or `off` (read-only memory)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli, write_machine_config

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from tests.helpers.state import state_dir


def _mcp_save(vault: Path, work: Path, title: str):
    from helpers.mcp_server import call, inproc, run
    from mcp import Client

    async def go():
        async with Client(inproc(vault, work)) as client:
            return await call(client, "memory_save", {"title": title, "body": "Saved by an agent.", "group": "g"})

    return run(go)


def test_every_write_is_unreviewed_and_accept_is_what_reviews(vault_path: Path, code_repo: Path):
    is_error, saved = _mcp_save(vault_path, code_repo, "Agent fact")
    assert not is_error and saved["memory"]["trust"] == "unreviewed" and saved["memory"]["status"] == "active"
    note_id = saved["memory"]["id"]
    found = run_cli("memory", "search", "agent", "--all", "--json", vault=vault_path).json["results"]
    assert [(r["id"], r["trust"]) for r in found] == [(note_id, "unreviewed")]
    assert "unreviewed" in run_cli("memory", "search", "agent", "--all", vault=vault_path).out
    assert run_cli("memory", "accept", note_id, vault=vault_path).code == 0
    read = run_cli("memory", "read", note_id, "--all", "--json", vault=vault_path).json["memory"]
    assert read["trust"] == "reviewed"
    assert "trust:   reviewed (accepted here by " in run_cli("memory", "read", note_id, "--all", vault=vault_path).out


def test_the_brief_marks_what_a_person_reviewed(vault_path: Path, code_repo: Path):
    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    checked = add(ctx, AddRequest(title="Checked decision", kind="decision", body="Verified."))
    add(ctx, AddRequest(title="Unchecked decision", kind="decision", body="Not verified."))
    assert run_cli("memory", "accept", checked.note.id, vault=vault_path).code == 0
    brief = run_cli("memory", "brief", "--json", vault=vault_path, cwd=code_repo).json["text"]
    assert '"Checked decision" [reviewed]' in brief and '"Unchecked decision":' in brief


def test_agent_writes_can_wait_for_review(vault_path: Path, code_repo: Path):
    write_machine_config({"writes": {"agents": "candidate"}})
    is_error, saved = _mcp_save(vault_path, code_repo, "Waits for a person")
    assert not is_error and saved["memory"]["status"] == "candidate"
    person = run_cli(
        "memory", "add", "--group", "g", "--title", "A person's note", "--body", "b", "--json", vault=vault_path
    )
    assert person.json["memory"]["status"] == "active"  # a person is never limited by it


def test_read_only_memory_refuses_agent_writes_and_keeps_recall(vault_path: Path, code_repo: Path, tmp_path: Path):
    from helpers.capture import CLAUDE, Builder

    from jacked_vault.capture.session import capture_session

    ctx = Context.create(vault=str(vault_path), cwd=code_repo, harness="t")
    add(ctx, AddRequest(title="Kept knowledge", body="Still searchable."))
    (state_dir(vault_path) / "vault.local.json").write_text(json.dumps({"settings": {"writes": {"agents": "off"}}}))
    before = run_cli("memory", "log", "--json", vault=vault_path).json["entries"]
    is_error, refused = _mcp_save(vault_path, code_repo, "Not allowed")
    assert is_error and refused["error"]["reason"] == "JACKED_MEMORY_READ_ONLY"
    transcript = Builder(code_repo).realistic().write(tmp_path / "t.jsonl")
    payload = {
        "session_id": "s",
        "transcript_path": str(transcript),
        "cwd": str(code_repo),
        "hook_event_name": "SessionEnd",
    }
    assert (
        capture_session(
            Context.create(vault=str(vault_path), cwd=code_repo, harness="claude"), payload, reader=CLAUDE
        ).skipped
        == "read-only"
    )
    assert run_cli("memory", "log", "--json", vault=vault_path).json["entries"] == before
    assert run_cli("memory", "search", "kept", "--all", "--json", vault=vault_path).json["results"]
