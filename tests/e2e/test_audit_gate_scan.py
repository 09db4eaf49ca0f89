"""The gate's secret scan of an audit file (issue 21: an arriving month of 10k lines is judged in
one process before its notes): the lines' values are scanned together, a thousand lines at a
time, and a canonical `ts` (digits in a closed format, like a note's timestamps) is not scanned.
A secret in any value of any line is still refused, named by its line, wherever it sits; a `ts`
that is not canonical is scanned like any other value; such a line arriving by sync stops the
sync with nothing written. Real gate, real vault, a real bare remote; no mocks."""

from __future__ import annotations

import json
import random
import string
import subprocess

import pytest
from conftest import git
from helpers import sync_world
from helpers.sync_world import push_from

from jacked_vault.errors import VaultError
from jacked_vault.store.gate import inspect
from jacked_vault.sync import sync

shared = sync_world.shared  # (laptop, desktop, hostile clone, remote)

TOKEN = "ghp_" + "".join(random.Random(11).choices(string.ascii_letters + string.digits, k=36))
REL = "audit/m-0123456789ab/2026-12.jsonl"


def _line(n: int, **changes: str) -> dict:
    line = {
        "ts": f"2026-12-01T00:{n // 60000 % 60:02d}:{n // 1000 % 60:02d}.{n % 1000:03d}Z",
        "op": "create",
        "id": f"mem_20261201_{n:026d}",
        "path": f"groups/g{n % 50}/note/note-{n}.md",
        "sha256": f"{n:064x}",
        "prev": f"{n + 1:064x}",
        "harness": "claude",
        "origin": "cli",
    }
    line.update(changes)
    return line


def _file(lines: list[dict]) -> bytes:
    return b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in lines)


def _refusal(ctx, data: bytes) -> VaultError:
    with pytest.raises(VaultError) as caught:
        inspect(ctx.vault, REL, data, arrival=True)
    return caught.value


def test_a_month_of_clean_lines_passes(ctx):
    assert inspect(ctx.vault, REL, _file([_line(n) for n in range(2500)]), arrival=True).kind == "audit"


@pytest.mark.parametrize("field", ["path", "harness", "id", "remote"])
@pytest.mark.parametrize("number", [1, 999, 1000, 1001, 2500])
def test_a_secret_in_any_line_is_refused_and_named_by_its_line(ctx, field: str, number: int):
    lines = [_line(n) for n in range(1, 2501)]
    lines[number - 1][field] = f"groups/{TOKEN}" if field == "path" else TOKEN
    error = _refusal(ctx, _file(lines))
    assert error.details["gate"] == "SECRET"
    assert f"line {number}.{field} contains" in error.message and "GitHub token" in error.message
    assert TOKEN not in error.message


@pytest.mark.parametrize(
    "ts",
    [
        TOKEN,  # not a timestamp at all
        f"2026-12-01T00:00:00.000Z {TOKEN}",  # a canonical time with more after it
        f"2026-12-01T00:00:00.000Z\n{TOKEN}",
    ],
)
def test_a_ts_that_is_not_canonical_is_scanned(ctx, ts: str):
    lines = [_line(n) for n in range(1, 1500)]
    lines[1200]["ts"] = ts
    error = _refusal(ctx, _file(lines))
    assert error.details["gate"] == "SECRET" and "line 1201.ts contains" in error.message


def test_what_is_not_an_audit_record_is_refused_before_any_scan(ctx):
    lines = [_line(n) for n in range(1, 1200)]
    lines[5]["harness"] = TOKEN
    bad = _file(lines).replace(b'"op":"create"', b'"op":7', 1)
    error = _refusal(ctx, bad)
    assert error.details["gate"] == "INVALID" and "line 1 holds a non-string value" in error.message


def _files(root) -> list:
    """Every path in the working tree outside .git and .jacked (machine-local state)."""
    return sorted(p.relative_to(root) for p in root.rglob("*") if not {".git", ".jacked"} & set(p.parts))


def test_an_arriving_audit_line_holding_a_token_stops_sync_and_nothing_is_written(shared):
    _, desktop, hostile, _ = shared
    root = desktop.vault.root
    subprocess.run(["git", "-C", str(hostile), "pull", "-q", "--no-rebase", "origin", "main"], check=True)
    rel = next(p for p in git(hostile, "ls-files", "audit").split() if p.endswith(".jsonl"))
    lines = (hostile / rel).read_text().splitlines()
    forged = json.loads(lines[-1]) | {"harness": TOKEN}
    push_from(hostile, {rel: "\n".join([*lines, json.dumps(forged, separators=(",", ":"))]) + "\n"})
    head, before = git(root, "rev-parse", "HEAD"), _files(root)
    with pytest.raises(VaultError) as caught:
        sync(desktop)
    error = caught.value
    assert error.code == "SYNC" and rel in error.message and "SECRET" in error.message
    assert f"line {len(lines) + 1}.harness contains" in error.message  # its number in the whole file
    assert TOKEN not in error.message
    assert git(root, "rev-parse", "HEAD") == head  # no commit
    assert git(root, "status", "--porcelain") == ""
    assert _files(root) == before  # no file appeared


def test_a_bad_line_appended_to_a_tombstone_file_is_named_by_its_number_in_the_file(ctx):
    rel = "tombstones/m-0123456789ab.txt"
    base = b"".join(f"{n:064x}\n".encode() for n in range(3))
    with pytest.raises(VaultError) as caught:
        inspect(ctx.vault, rel, base + b"not a hash\n", base=base, arrival=True)
    assert "line 4 is not a sha256 hex digest" in caught.value.message
