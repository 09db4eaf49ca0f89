"""Plain doctor verifies the audit chain incrementally (issue 34.4): each part's verdict is kept
in the machine-local index by the part's git blob id (and the chain hash it starts from), so a
second run hashes only the lines of parts whose content changed, and a part rewritten after a
clean run, or a cache row that no longer fits, is verified again and its damage reported as
before. Work is counted (`AuditReport.lines_verified`), never timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git

from jacked_vault.context import Context
from jacked_vault.doctor import doctor
from jacked_vault.notes import AddRequest, add
from jacked_vault.search.index import SearchIndex
from jacked_vault.store import audit
from jacked_vault.store.audit_cache import AuditParts
from jacked_vault.store.layout import audit_part


def _verify(ctx: Context) -> audit.AuditReport:
    """The chain verified as plain doctor does it: with the parts' verdicts of this machine's index."""
    index = SearchIndex(ctx.vault)
    try:
        return audit.verify(ctx.vault.root, AuditParts(index.db))
    finally:
        index.close()


def _parts(ctx: Context) -> list[Path]:
    return sorted((ctx.vault.root / "audit").rglob("*.jsonl"), key=lambda p: audit_part(p.name))


@pytest.fixture
def rolled(ctx: Context, monkeypatch) -> Context:
    """A vault whose chain runs through several small parts (~3 lines each)."""
    monkeypatch.setattr(audit, "ROLL_BYTES", 1200)
    for n in range(10):
        add(ctx, AddRequest(title=f"Note {n}", body="b", group="g"))
    assert len(_parts(ctx)) >= 3
    return ctx


def test_a_second_run_verifies_only_the_lines_of_the_part_that_changed(rolled: Context):
    total = sum(len(p.read_bytes().splitlines()) for p in _parts(rolled))
    first = _verify(rolled)
    assert first.problems == [] and first.lines_verified == total
    again = _verify(rolled)
    assert again.lines_verified == 0
    assert again.problems == [] and again.last == first.last
    assert {m: len(h) for m, h in again.hashes.items()} == {m: len(h) for m, h in first.hashes.items()}

    add(rolled, AddRequest(title="One more", body="b", group="g"))
    newest = _parts(rolled)[-1]
    after = _verify(rolled)
    assert after.problems == []
    assert after.lines_verified == len(newest.read_bytes().splitlines())  # that part only, never the history
    note = add(rolled, AddRequest(title="And another", body="b", group="g")).note
    assert doctor(rolled).ok
    assert _verify(rolled).last_by_id.matches(note.id, "0" * 64) is False  # what the cached parts record is kept


def test_a_part_rewritten_in_the_middle_after_a_clean_run_is_reported(rolled: Context):
    assert doctor(rolled).ok  # the parts' verdicts are kept
    middle = _parts(rolled)[1]
    data = middle.read_bytes()
    first_line = data.split(b"\n", 1)[0]
    entry = json.loads(first_line)
    entry["harness"] = "x" * len(entry["harness"])  # same length, one field changed
    forged = json.dumps(entry, separators=(",", ":")).encode()
    changed = data.replace(first_line, forged, 1)
    assert len(changed) == len(data) and changed != data
    middle.write_bytes(changed)
    git(rolled.vault.root, "commit", "-qam", "rewrite one line of an old part")
    codes = {p["code"] for p in doctor(rolled).audit_problems}
    assert "CHAIN_BROKEN" in codes


def test_a_damaged_or_stale_cache_row_cannot_hide_damage(rolled: Context):
    assert doctor(rolled).ok
    index = SearchIndex(rolled.vault)
    try:
        index.db.execute("UPDATE audit_parts SET verdict = x'00ff'")  # rows that cannot be read
    finally:
        index.close()
    assert _verify(rolled).problems == []  # read again from the parts themselves

    oldest = _parts(rolled)[0]
    lines = oldest.read_text().splitlines()
    oldest.write_text("\n".join(lines[1:]) + "\n")  # the first line cut: the next one's prev is wrong
    git(rolled.vault.root, "commit", "-qam", "cut a line")
    found = _verify(rolled)
    assert any(p["code"] == "CHAIN_BROKEN" and p["path"].endswith(oldest.name) for p in found.problems)
    assert {p["code"] for p in doctor(rolled).audit_problems} >= {"CHAIN_BROKEN"}
