"""The audit trail at any size (issue 21 item 1): a write costs what it adds, no history stops
writes or doctor, and the chain stays verifiable when a month rolls into numbered parts
(`<YYYY-MM>.jsonl`, `<YYYY-MM>-2.jsonl`, …, each closed at `audit.ROLL_BYTES`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import git, run_cli

from jacked_vault.context import Context
from jacked_vault.doctor import doctor
from jacked_vault.notes import AddRequest, add
from jacked_vault.store import audit
from jacked_vault.store.layout import AUDIT_DIR, audit_part
from jacked_vault.store.machine_state import machine_id

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._audit_bench import LINE_BYTES, write_chained_lines


def _commit_by_hand(root: Path, message: str) -> None:
    git(root, "add", AUDIT_DIR)
    git(root, "commit", "-qm", message)


def _month() -> str:
    from jacked_vault.document.timestamps import utc_now

    return utc_now()[:7]


@pytest.mark.slow
def test_a_month_past_the_cap_stops_neither_add_nor_doctor(ctx: Context):
    """The issue's case: a month file over 64 MiB (~300k lines: one bulk import, a busy CI
    machine). Writes roll into the month's next part; doctor streams the big file."""
    root = ctx.vault.root
    machine = machine_id(ctx.vault.state)
    big = f"{_month()}.jsonl"
    write_chained_lines(root, machine, big, 300_000)
    assert (root / AUDIT_DIR / machine / big).stat().st_size > audit.MAX_AUDIT_FILE
    _commit_by_hand(root, "a huge month, written by hand")
    before = (root / AUDIT_DIR / machine / big).read_bytes()

    added = run_cli(
        "memory", "add", "--title", "After the flood", "--body", "still writing", "--group", "g", vault=root
    )
    assert added.code == 0, added.err
    assert (root / AUDIT_DIR / machine / big).read_bytes() == before  # never rewritten
    second = root / AUDIT_DIR / machine / f"{_month()}-2.jsonl"
    lines = second.read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["op"] == "create"
    assert json.loads(lines[0])["prev"] == audit.line_hash(before.rstrip(b"\n").rsplit(b"\n", 1)[-1].decode())

    checked = run_cli("memory", "doctor", "--json", vault=root)
    assert checked.code == 0, checked.out + checked.err
    assert checked.json["audit_problems"] == []
    assert git(root, "status", "--porcelain") == ""


@pytest.mark.slow
def test_300k_lines_in_rolled_parts_then_add_and_doctor_work(ctx: Context):
    """300k lines of this month already rolled into parts the size the tool closes them at."""
    root = ctx.vault.root
    machine = machine_id(ctx.vault.state)
    month = _month()
    per_part = audit.ROLL_BYTES // LINE_BYTES - 1
    written, part = 0, 1
    while written < 300_000:
        take = min(per_part, 300_000 - written)
        write_chained_lines(root, machine, audit.part_name(month, part), take)
        written += take
        part += 1
    _commit_by_hand(root, "300k lines in parts")
    sizes = {p.name: p.stat().st_size for p in (root / AUDIT_DIR / machine).iterdir()}
    assert max(sizes.values()) <= audit.ROLL_BYTES

    added = run_cli(
        "memory", "add", "--title", "Busy month", "--body", "a write costs what it adds", "--group", "g", vault=root
    )
    assert added.code == 0, added.err
    changed = git(root, "show", "--name-only", "--format=", "HEAD").split()
    audit_changed = [p for p in changed if p.startswith(AUDIT_DIR + "/")]
    assert len(audit_changed) == 1  # only the part the line went into
    assert (root / audit_changed[0]).stat().st_size <= audit.ROLL_BYTES

    checked = run_cli("memory", "doctor", "--json", vault=root)
    assert checked.code == 0, checked.out + checked.err
    assert checked.json["audit_problems"] == []


def test_writes_roll_into_numbered_parts_and_the_chain_holds(ctx: Context, monkeypatch):
    monkeypatch.setattr(audit, "ROLL_BYTES", 1200)  # ~3 lines a part
    for n in range(12):
        add(ctx, AddRequest(title=f"Note {n}", body="b", group="g"))
    machine = machine_id(ctx.vault.state)
    folder = ctx.vault.root / AUDIT_DIR / machine
    names = sorted((p.name for p in folder.iterdir()), key=audit_part)
    assert len(names) >= 4 and names[0] == f"{_month()}.jsonl" and names[1] == f"{_month()}-2.jsonl"
    for name in names[:-1]:
        size = (folder / name).stat().st_size
        assert size <= 1200 or len((folder / name).read_bytes().splitlines()) == 1
    report = audit.verify(ctx.vault.root)
    assert report.problems == []
    trailers = [
        line.split(" ")[-1]
        for line in git(ctx.vault.root, "log", "--format=%B").splitlines()
        if line.startswith("Memory-Audit: ")
    ]
    assert trailers and all(t in report.hashes[machine] for t in trailers)
    assert doctor(ctx).ok


def test_a_bulk_stage_splits_across_parts_in_one_commit(ctx: Context, monkeypatch):
    monkeypatch.setattr(audit, "ROLL_BYTES", 4096)
    machine = machine_id(ctx.vault.state)
    events = [
        audit.AuditEvent("2026-12-01T00:00:00.000Z", "import", f"episodic:x{n}", f"p{n}", "", "t", "migrate")
        for n in range(100)
    ]
    pending = audit.stage(ctx.vault.root, machine, events)
    assert len(pending.files) > 3
    assert all(len(data) <= 4096 for data in pending.files.values())
    lines = [line for data in pending.files.values() for line in data.decode().splitlines()]
    assert sum(1 for line in lines if json.loads(line)["op"] == "import") == 100
    assert audit.line_hash(lines[-1]) == pending.last_hash


def test_a_line_cut_from_an_earlier_part_breaks_the_chain(ctx: Context, monkeypatch):
    monkeypatch.setattr(audit, "ROLL_BYTES", 1200)
    for n in range(8):
        add(ctx, AddRequest(title=f"Note {n}", body="b", group="g"))
    folder = ctx.vault.root / AUDIT_DIR / machine_id(ctx.vault.state)
    first = folder / f"{_month()}.jsonl"
    lines = first.read_bytes().splitlines(keepends=True)
    first.write_bytes(b"".join(lines[:-1]))
    codes = [(p["path"].rsplit("/", 1)[-1], p["code"]) for p in audit.verify(ctx.vault.root).problems]
    assert (f"{_month()}-2.jsonl", "CHAIN_BROKEN") in codes


@pytest.mark.parametrize(
    "name", ["2026-12-1.jsonl", "2026-12-01.jsonl", "2026-12-x.jsonl", "2026-12--2.jsonl", "2026-12-2.json"]
)
def test_only_the_part_names_the_tool_writes_are_audit_files(ctx: Context, name: str):
    from jacked_vault.store.layout import classify_path

    assert audit_part(name) is None
    assert classify_path(ctx.vault, f"{AUDIT_DIR}/m-1/{name}") is None
    assert classify_path(ctx.vault, f"{AUDIT_DIR}/m-1/2026-12-2.jsonl") == "audit"
    assert classify_path(ctx.vault, f"{AUDIT_DIR}/m-1/2026-12-13.jsonl") == "audit"
