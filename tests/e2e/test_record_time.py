"""Issue 17.15: `--known-at T` is what the vault knew at T, read from git history.

A note changed after T is shown as the version the last commit at or before T held (its status
and validity then); a note the vault did not hold at T is not found. The real CLI and the real
MCP server are asked, against a real vault whose history is made by the real write path.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import run_cli
from helpers.mcp_server import call, inproc, ok, run
from mcp import Client

from jacked_vault.context import Context
from jacked_vault.document.timestamps import utc_now
from jacked_vault.notes import AddRequest, add
from jacked_vault.write.transitions import transition


@dataclass
class History:
    vault: Path
    work: Path
    moment: str  # T
    ids: dict[str, str]  # role -> note id


def _history(vault_path: Path, tmp_path: Path, gap: float) -> History:
    """Three notes known at T, each changed after it (rejected, superseded, expired), and one
    created after T. `gap` separates T from the commits on either side (1 s+: other seconds)."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    ctx = Context.create(vault=str(vault_path), cwd=work, harness="tester")
    ids = {
        role: add(ctx, AddRequest(title=f"Ocelot {role} fact", body=f"The {role} one.", group="g")).note.id
        for role in ("rejected", "superseded", "expired")
    }
    time.sleep(gap)
    moment = utc_now()
    time.sleep(gap)
    ids["created"] = add(ctx, AddRequest(title="Ocelot created fact", body="Came later.", group="g")).note.id
    transition(ctx, ids["rejected"], "reject", reason="wrong after all")
    transition(ctx, ids["superseded"], "supersede", by=ids["created"])
    transition(ctx, ids["expired"], "expire")
    return History(vault_path, work, moment, ids)


@pytest.fixture(params=[0.01, 1.1], ids=["same-second", "other-second"])
def history(request, vault_path: Path, tmp_path: Path) -> History:
    return _history(vault_path, tmp_path, request.param)


def _statuses(results: list[dict], h: History) -> dict[str, str]:
    roles = {note_id: role for role, note_id in h.ids.items()}
    return {roles[r["id"]]: r["status"] for r in results}


EXPECTED_AT_T = {"rejected": "active", "superseded": "active", "expired": "active"}


def test_cli_known_at_shows_each_note_as_it_stood(history: History):
    def search(*extra: str) -> dict[str, str]:
        result = run_cli("memory", "search", "ocelot", "--all", "--json", *extra, vault=history.vault, cwd=history.work)
        assert result.code == 0, result.err
        return _statuses(result.json["results"], history)

    assert search() == {"created": "active"}
    assert search("--known-at", history.moment) == EXPECTED_AT_T
    # Asking for other statuses at T: none of them was rejected or superseded yet.
    assert search("--known-at", history.moment, "--status", "rejected", "--status", "superseded") == {}
    text = run_cli(
        "memory", "search", "ocelot", "--all", "--known-at", history.moment, vault=history.vault, cwd=history.work
    ).out
    assert (
        text.count("Ocelot") == 3 and " · rejected" not in text and " · superseded" not in text
    )  # people see the status then too


def test_mcp_known_at_shows_each_note_as_it_stood(history: History):
    async def go():
        async with Client(inproc(history.vault, history.work, harness="alpha")) as client:
            now = ok(await call(client, "memory_search", {"query": "ocelot"}))
            then = ok(await call(client, "memory_search", {"query": "ocelot", "known_at": history.moment}))
            return now["results"], then["results"]

    now, then = run(go)
    assert _statuses(now, history) == {"created": "active"}
    assert _statuses(then, history) == EXPECTED_AT_T


def test_a_note_committed_after_t_was_not_known(vault_path: Path, tmp_path: Path):
    """Its created_at is before T, but no commit at or before T held it: unknown at T (before
    issue 17.15 a note rejected since was inferred to have been a candidate then)."""
    ctx = Context.create(vault=str(vault_path), cwd=tmp_path, harness="tester")
    note = add(ctx, AddRequest(title="Ocelot late fact", body="Committed later.", group="g")).note.id
    env = {**os.environ, "GIT_COMMITTER_DATE": "2030-01-01T00:00:00Z"}  # the commit that recorded it: later than T
    subprocess.run(
        ["git", "-C", str(vault_path), "commit", "--amend", "--no-edit", "--no-verify"],
        env=env,
        check=True,
        capture_output=True,
    )
    time.sleep(0.01)
    moment = utc_now()
    time.sleep(0.01)
    transition(ctx, note, "reject", reason="wrong")
    every = ("--status", "active", "--status", "candidate", "--status", "rejected", "--status", "superseded")
    result = run_cli("memory", "search", "ocelot", "--all", "--json", "--known-at", moment, *every, vault=vault_path)
    assert result.code == 0 and result.json["results"] == []
    result = run_cli("memory", "search", "ocelot", "--all", "--json", *every, vault=vault_path)
    assert [(r["id"], r["status"]) for r in result.json["results"]] == [(note, "rejected")]
