"""One rejection holds in every store this machine reads (issue 17 finding 4, SPEC 5.3): a value
rejected in the vault is not re-created in a repo's project store, nor the other way round, and
a note that holds it in the other store leaves recall."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

from jacked_vault.context import Context
from jacked_vault.errors import VaultError
from jacked_vault.notes import AddRequest, add
from jacked_vault.write.transitions import transition

TITLE, BODY = "Use tabs for indentation", "Always indent with tabs."


@pytest.fixture
def ctx(vault_path: Path, code_repo: Path) -> Context:
    return Context.create(vault=str(vault_path), cwd=code_repo, harness="tester")


def _refused(ctx: Context, scope: str) -> None:
    with pytest.raises(VaultError) as err:
        add(ctx, AddRequest(title=TITLE + ".", body=BODY, scope=scope, origin="mcp"))
    assert err.value.code == "TOMBSTONED"


def _found(vault: Path, repo: Path) -> list[str]:
    return [
        r["scope"]
        for r in run_cli("memory", "search", "tabs", "--all", "--json", vault=vault, cwd=repo).json["results"]
    ]


def test_a_value_rejected_in_the_vault_holds_in_the_project_store(ctx: Context, vault_path: Path, code_repo: Path):
    twin = add(ctx, AddRequest(title=TITLE, body=BODY, scope="project", origin="mcp"))
    note = add(ctx, AddRequest(title=TITLE, body=BODY, origin="mcp"))
    assert sorted(_found(vault_path, code_repo)) == ["group", "project"]
    transition(ctx, note.note.id, "reject", reason="we use spaces")
    _refused(ctx, "project")
    assert _found(vault_path, code_repo) == [], "the project store's twin leaves recall too"
    assert run_cli("memory", "read", twin.note.id, "--json", vault=vault_path, cwd=code_repo).code == 1


def test_a_value_rejected_in_the_project_store_holds_in_the_vault(ctx: Context, vault_path: Path, code_repo: Path):
    twin = add(ctx, AddRequest(title=TITLE, body=BODY, origin="mcp"))
    note = add(ctx, AddRequest(title=TITLE, body=BODY, scope="project", origin="mcp"))
    transition(ctx, note.note.id, "reject", reason="we use spaces")
    _refused(ctx, "group")
    assert _found(vault_path, code_repo) == []
    brief = run_cli("memory", "brief", "--json", vault=vault_path, cwd=code_repo).json["text"]
    assert TITLE not in brief
    assert run_cli("memory", "read", twin.note.id, "--json", vault=vault_path, cwd=code_repo).code == 1


def test_the_sql_form_of_the_tombstone_rule_is_the_rule():
    """`blocks_sql` (read policy) says what `blocks(…, person_override=True)` says, for every state and
    for a value rejected or forgotten."""
    import sqlite3

    from jacked_vault.document.model import ORIGINS, STATUSES
    from jacked_vault.store.tombstones import FORGOTTEN, REJECTED, blocks, blocks_sql

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE d(status TEXT, origin TEXT, forgotten INTEGER)")
    db.executemany("INSERT INTO d VALUES(?, ?, ?)", [(s, o, f) for s in STATUSES for o in ORIGINS for f in (0, 1)])
    rows = db.execute(f"SELECT status, origin, forgotten, {blocks_sql('d', 'd.forgotten = 1')} FROM d")
    got = {(s, o, f): bool(b) for s, o, f, b in rows}
    assert got == {
        (s, o, f): blocks(s, o, person_override=True, verdict=FORGOTTEN if f else REJECTED)
        for s in STATUSES
        for o in ORIGINS
        for f in (0, 1)
    }


def test_rejecting_a_value_rejects_every_live_note_that_holds_it_in_one_commit(
    ctx: Context, vault_path: Path, code_repo: Path
):
    """SPEC 5.3: the twins are rejected in the same commit (not left live as refused files, which
    would make every read incomplete)."""
    from conftest import git

    first = add(ctx, AddRequest(title=TITLE, body=BODY, origin="mcp", status="candidate"))
    # for another harness: in the same place and for the same readers it would be a duplicate of the first (SPEC 5.6)
    twin = add(
        ctx,
        AddRequest(title=TITLE + "!", body=BODY.upper(), origin="session-end", status="candidate", targets=("codex",)),
    )
    assert twin.duplicate_of is None
    other = add(ctx, AddRequest(title="Something else", body="Unrelated."))
    before = git(vault_path, "rev-list", "--count", "HEAD")
    done = run_cli(
        "memory", "reject", first.note.id, "--reason", "we use spaces", "--json", vault=vault_path, cwd=code_repo
    )
    assert done.code == 0, done.out
    assert int(git(vault_path, "rev-list", "--count", "HEAD")) == int(before) + 1
    assert done.json["also_rejected"] == [twin.note.id]
    read = run_cli("memory", "read", twin.note.id, "--all", "--json", vault=vault_path, cwd=code_repo)
    assert read.code == 0 and read.json["memory"]["status"] == "rejected", read.out
    assert run_cli("memory", "read", other.note.id, "--json", vault=vault_path, cwd=code_repo).code == 0
    assert run_cli("memory", "doctor", "--json", vault=vault_path, cwd=code_repo).json["ok"]
