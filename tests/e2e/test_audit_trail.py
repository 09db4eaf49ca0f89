"""The audit log is complete and its tampering is caught (issue 9 finding 15, SPEC 5.4).

Every commit the tool makes carries `Memory-Audit: <machine> <hash of the chain's last line>`,
so a cut or consistently rewritten chain no longer matches history; hand edits of hot.md and
vault.json are caught like hand edits of notes; sync merges are logged with the remote commit.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import git, run_cli

from jacked_vault.context import Context
from jacked_vault.doctor import doctor
from jacked_vault.notes import AddRequest, add
from jacked_vault.store import audit
from jacked_vault.sync import push, set_remote, sync
from jacked_vault.write.hot import set_hot
from jacked_vault.write.init import init_vault
from jacked_vault.write.transitions import transition


def _codes(ctx: Context) -> set[str]:
    return {p["code"] for p in doctor(ctx).audit_problems}


def _chain_file(ctx: Context) -> Path:
    return next((ctx.vault.root / "audit").rglob("*.jsonl"))


def test_every_commit_the_tool_makes_carries_the_audit_trailer(ctx: Context, tmp_path: Path):
    from jacked_vault.episodic.entries import Entry, append_entry
    from jacked_vault.groups.mapping import map_repo

    note = add(ctx, AddRequest(title="One", body="b", group="g"))
    transition(ctx, note.note.id, "expire")
    set_hot(ctx, "Working.", group="g")
    map_repo(ctx, "github.com/acme/api", "g")
    from datetime import datetime

    append_entry(
        ctx.vault,
        Entry("g", "github.com/acme/api", datetime(2026, 11, 28, 9, 0).astimezone(), "main", "Did things."),
        harness="t",
        origin="cli",
    )
    messages = git(ctx.vault.root, "log", "--format=%H%x00%B%x01").split("\x01")
    messages = [m.strip() for m in messages if m.strip()]
    assert len(messages) == 6
    report = audit.verify(ctx.vault.root)
    for entry in messages:
        trailer = [line for line in entry.split("\n") if line.startswith("Memory-Audit: ")]
        assert trailer, entry
        machine, value = trailer[0].removeprefix("Memory-Audit: ").split(" ")
        assert value in report.hashes[machine]
    assert doctor(ctx).ok


def test_a_deleted_last_audit_line_is_caught(ctx: Context):
    add(ctx, AddRequest(title="One", body="b", group="g"))
    path = _chain_file(ctx)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n")
    assert "CHAIN_TRUNCATED_OR_REWRITTEN" in _codes(ctx)
    git(ctx.vault.root, "commit", "-qam", "hide the last line")
    assert "CHAIN_TRUNCATED_OR_REWRITTEN" in _codes(ctx)


def test_a_consistently_rewritten_chain_is_caught(ctx: Context):
    add(ctx, AddRequest(title="One", body="b", group="g"))
    add(ctx, AddRequest(title="Two", body="b", group="g"))
    path = _chain_file(ctx)
    rewritten, prev = [], None
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        entry["harness"] = "forged"
        entry["prev"] = prev
        text = json.dumps(entry, separators=(",", ":"))
        rewritten.append(text)
        prev = audit.line_hash(text)
    path.write_text("\n".join(rewritten) + "\n")
    git(ctx.vault.root, "commit", "-qam", "rewrite the chain")
    assert audit.verify(ctx.vault.root).problems == []  # the chain alone looks fine
    assert "CHAIN_TRUNCATED_OR_REWRITTEN" in _codes(ctx)


def test_hand_edits_of_hot_md_and_vault_json_are_caught(ctx: Context):
    set_hot(ctx, "The real slice.", group="g")
    root = ctx.vault.root
    (root / "groups" / "g" / "hot.md").write_text(
        (root / "groups" / "g" / "hot.md").read_text().replace("real", "forged")
    )
    config = json.loads((root / "vault.json").read_text())
    config["roots"] = ["~/elsewhere"]
    (root / "vault.json").write_text(json.dumps(config, indent=2) + "\n")
    git(root, "commit", "-qam", "edited by hand")
    problems = {(p["path"], p["code"]) for p in doctor(ctx).audit_problems}
    assert ("vault:groups/g/hot.md", "EDITED_OUTSIDE_TOOL") in problems or (
        "group:groups/g/hot.md",
        "EDITED_OUTSIDE_TOOL",
    ) in problems
    assert ("vault:vault.json", "EDITED_OUTSIDE_TOOL") in problems


def test_a_sync_merge_is_logged_with_the_remote_commit(tmp_path: Path):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    machines = []
    for name in ("laptop", "desktop"):
        init_vault(tmp_path / name)
        machines.append(Context.create(vault=str(tmp_path / name), cwd=tmp_path, harness=name))
    laptop, desktop = machines
    set_remote(laptop, f"file://{remote}")
    push(laptop)
    set_remote(desktop, f"file://{remote}")
    add(laptop, AddRequest(title="From the laptop", body="b", group="g"))
    add(desktop, AddRequest(title="From the desktop", body="b", group="g"))
    sync(laptop)
    result = sync(desktop)
    assert result.action == "merged"
    merges = git(desktop.vault.root, "log", "--merges", "--format=%B")
    assert "Memory-Audit: " in merges and "Memory-Remote: " in merges
    lines = [
        json.loads(line) for p in (desktop.vault.root / "audit").rglob("*.jsonl") for line in p.read_text().splitlines()
    ]
    (logged,) = [line for line in lines if line["op"] == "sync"]
    assert logged["remote"] == git(desktop.vault.root, "log", "--merges", "-1", "--format=%P").split()[1]
    for ctx in (laptop, desktop):
        sync(ctx)
        assert doctor(ctx).ok, doctor(ctx).to_json()


def test_doctor_says_what_a_cut_chain_is(tmp_path: Path, vault_path: Path):
    ctx = Context.create(vault=str(vault_path), cwd=tmp_path, harness="t")
    add(ctx, AddRequest(title="One", body="b", group="g"))
    path = _chain_file(ctx)
    path.write_text("\n".join(path.read_text().splitlines()[:-1]) + "\n")
    result = run_cli("memory", "doctor", "--json", vault=vault_path)
    assert result.code == 1 and any(p["code"] == "CHAIN_TRUNCATED_OR_REWRITTEN" for p in result.json["audit_problems"])
