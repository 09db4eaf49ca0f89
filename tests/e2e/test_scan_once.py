"""Issue 22.1: one `add` scans each field once. The gate's verdict on a new note is a value
(`store.gate.Checked`: the bytes and their verdict key) that the write transaction and the search
index take instead of judging the same bytes again; bytes whose key was not checked are judged.

The real CLI in a subprocess (tests/helpers/count_scans.py records every field scan), real vaults,
real git; no mocks."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import cli_env, git, run_cli, snapshot

from jacked_vault.document import render_note
from jacked_vault.errors import VaultError
from jacked_vault.store.gate import Checked, check_note, verdict_key
from jacked_vault.write.create import build_note
from jacked_vault.write.transaction import write_transaction

HELPER = Path(__file__).parents[1] / "helpers" / "count_scans.py"
TITLE = "Retry uploads after a gateway timeout"
BODY = "The upload proxy drops slow uploads; retry twice with backoff."
TOKEN = "ghp_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"


def _add_counted(vault: Path, record: Path, *args: str) -> dict:
    proc = subprocess.run(
        [sys.executable, str(HELPER), str(record), "memory", "add", "--group", "tools", "--kind", "fact", "--json",
         *args],
        capture_output=True, text=True, cwd=vault.parent, env=cli_env(vault), timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _scanned(record: Path) -> Counter:
    """(note id, field, value) -> how many scans saw it, over every scan the process ran (the
    id is None for a file that is not a note: index.md, an audit line)."""
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    return Counter((call.get("id"), name, json.dumps(value, sort_keys=True))
                   for call in calls for name, value in call.items())  # fmt: skip


def _twice(scanned: Counter) -> list:
    return [field for field, n in scanned.items() if n > 1]


def test_one_add_scans_each_field_once(vault_path: Path, tmp_path: Path):
    record = tmp_path / "scans.jsonl"
    out = _add_counted(vault_path, record, "--title", TITLE, "--body", BODY, "--tag", "uploads")
    scanned = _scanned(record)
    new = out["memory"]["id"]
    assert scanned[(new, "title", json.dumps(TITLE))] == 1
    assert scanned[(new, "body", json.dumps(BODY))] == 1
    assert scanned[(new, "tags", json.dumps(["uploads"]))] == 1
    assert scanned[(new, "id", json.dumps(new))] == 1
    assert _twice(scanned) == []
    assert (vault_path / "groups/tools/fact/retry-uploads-after-a-gateway-timeout.md").is_file()
    assert git(vault_path, "log", "-1", "--format=%s").strip() == f"memory(fact): {TITLE}"


def test_an_add_that_supersedes_and_links_scans_each_field_once(vault_path: Path, tmp_path: Path):
    old = run_cli("memory", "add", "--group", "tools", "--kind", "fact", "--title", "Uploads time out",
                  "--body", "Slow.", "--json", vault=vault_path)  # fmt: skip
    assert old.code == 0, old.err
    old_id = old.json["memory"]["id"]
    record = tmp_path / "scans.jsonl"
    out = _add_counted(vault_path, record, "--title", TITLE, "--body", BODY, "--supersedes", old_id, "--link", old_id)
    scanned = _scanned(record)
    new = out["memory"]["id"]
    assert scanned[(new, "title", json.dumps(TITLE))] == 1
    assert scanned[(new, "links", json.dumps([old_id]))] == 1
    assert scanned[(old_id, "title", json.dumps("Uploads time out"))] == 1  # the superseded note's new bytes: once
    assert scanned[(old_id, "status_reason", json.dumps(f"superseded by {new}"))] == 1
    assert _twice(scanned) == []
    assert out["memory"]["supersedes"] == [old_id]


def test_bytes_whose_key_was_not_checked_are_judged_at_commit(ctx, vault_path: Path):
    """A verdict stands only for the bytes it was reached on: handed bytes that differ from the
    ones its key names, the commit scans them, refuses, and leaves nothing behind."""
    note = build_note(title="Clean", body="Nothing to see.", kind="note", scope="group", group="tools", repos=[],
                      source_harness="t", origin="cli")  # fmt: skip
    checked = check_note(note, tombstoned=None)
    assert checked.data == render_note(note) and checked.key == verdict_key("note", checked.data)
    dirty = checked.data.replace(b"Nothing to see.", TOKEN.encode())
    forged = Checked("note", note=note, data=dirty, key=checked.key)
    before = snapshot(vault_path)
    with pytest.raises(VaultError) as refused, write_transaction(ctx.vault, harness="t", origin="cli") as tx:
        rel = tx.create("groups/tools/note", "clean", forged)
        tx.event("create", note.id, rel, dirty)
        tx.commit("memory(note): Clean")
    assert refused.value.code == "SECRET"
    assert TOKEN not in str(refused.value)
    assert snapshot(vault_path) == before
