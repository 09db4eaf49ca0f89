"""`jacked memory forget ID` (issue 18.12, SPEC 5.2): a person takes back a note that should never
have been saved (a password the scanner did not know). One commit removes the file, tombstones
its value and writes the `forget` audit line, with a `Memory-Forget` trailer; index.md no longer
lists it; nothing brings the value back; the answer says how to purge the text from git history
(never done by jacked) and what that costs once the vault was pushed. The real CLI, real git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import git, run_cli
from helpers.state import state_dir

from jacked_vault.store.audit import verify
from jacked_vault.store.tombstones import tombstone_hash

TITLE = "Staging login"
BODY = "The staging admin logs in as admin with Tr0ub4dor-horse-staple-91 every morning."


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
    return vault


def _add(vault: Path, title: str = TITLE, body: str = BODY) -> dict:
    added = run_cli("memory", "add", "--group", "ops", "--title", title, "--body", body, "--json", vault=vault)
    assert added.code == 0, added.out + added.err
    return added.json


def _audit_added(vault: Path, rev: str = "HEAD") -> list[dict]:
    """The audit lines commit `rev` added."""
    diff = git(vault, "show", "--format=", rev, "--", "audit")
    return [json.loads(line[1:]) for line in diff.splitlines() if line.startswith("+{")]


def test_forget_removes_the_note_tombstones_its_value_and_audits_it_in_one_commit(tmp_path: Path):
    vault = _vault(tmp_path)
    kept = _add(vault, "Deploy window", "Deploys happen on Tuesdays.")
    added = _add(vault)
    note_id, rel = added["memory"]["id"], added["path"].split(":", 1)[1]
    head = git(vault, "rev-parse", "HEAD").strip()
    assert TITLE in (vault / "groups/ops/index.md").read_text()

    done = run_cli("memory", "forget", note_id, "--json", vault=vault)

    assert done.code == 0, done.out + done.err
    out = done.json
    assert (out["schema"], out["ok"], out["id"], out["path"]) == ("jacked.forget.v1", True, note_id, f"group:{rel}")
    assert (
        out["commit"] == git(vault, "rev-parse", "HEAD").strip() and git(vault, "rev-parse", "HEAD~1").strip() == head
    )
    assert not (vault / rel).exists() and git(vault, "status", "--porcelain") == ""
    assert set(git(vault, "show", "--name-status", "--format=", "HEAD").split()) >= {"D", rel, "groups/ops/index.md"}
    message = git(vault, "log", "-1", "--format=%B")
    assert message.startswith(f"memory(forget): {note_id}\n") and f"Memory-Forget: {note_id}" in message
    assert f"Memory-Id: {note_id}" in message and "Memory-Origin: cli" in message
    assert TITLE not in message and "Tr0ub4dor" not in message  # the subject never carries the text back
    machine = (state_dir(vault) / "machine-id").read_text().strip()
    lines = _audit_added(vault)
    assert [(line["op"], line["id"], line["path"]) for line in lines] == [
        ("tombstone", note_id, f"tombstones/{machine}.forgotten.txt"),
        ("forget", note_id, rel),
    ]
    forget = lines[-1]
    assert set(forget) == {"ts", "op", "id", "path", "sha256", "prev", "harness", "origin"}
    assert (forget["sha256"], forget["origin"]) == ("", "cli")
    assert tombstone_hash(TITLE, BODY) in (vault / f"tombstones/{machine}.forgotten.txt").read_text().split()
    assert not (vault / f"tombstones/{machine}.txt").exists(), "a forgotten value is recorded as forgotten only"
    assert (
        TITLE not in (vault / "groups/ops/index.md").read_text()
        and "Deploy window" in (vault / "groups/ops/index.md").read_text()
    )
    assert verify(vault).problems == []
    doctor = run_cli("memory", "doctor", "--json", vault=vault)
    assert doctor.json["ok"] is True, doctor.out
    assert run_cli("memory", "search", "staging admin", "--json", vault=vault).json["results"] == []
    assert run_cli("memory", "read", note_id, "--json", vault=vault).json["error"]["code"] == "JACKED_MEMORY_NOT_FOUND"
    again = run_cli("memory", "add", "--group", "ops", "--title", TITLE + ".", "--body", BODY, "--json", vault=vault)
    assert again.json["error"]["code"] == "JACKED_MEMORY_TOMBSTONED"
    assert run_cli("memory", "read", kept["memory"]["id"], "--json", vault=vault).code == 0
    log = run_cli("memory", "log", "--json", vault=vault)
    assert log.code == 0 and "Traceback" not in log.err


def test_forget_says_how_to_purge_history_never_doing_it(tmp_path: Path):
    """No remote: the text is in this vault's history only; the hint names git's own tool and the
    path, and jacked leaves history as it is (the blob is still reachable from HEAD~1)."""
    vault = _vault(tmp_path)
    added = _add(vault)
    note_id, rel = added["memory"]["id"], added["path"].split(":", 1)[1]

    done = run_cli("memory", "forget", note_id, vault=vault)

    assert done.code == 0, done.err
    text = done.out
    assert f"forgot {note_id}" in text and "Tr0ub4dor" not in text and TITLE not in text
    assert f"--invert-paths --path {rel}" in text or f"--ignore-unmatch {rel}" in text
    assert "no remote" in text and "push --force" not in text and "re-clone" not in text
    assert BODY in git(vault, "show", f"HEAD~1:{rel}")  # history untouched: purging is the person's call
    as_json = run_cli("memory", "forget", note_id, "--json", vault=vault)
    assert as_json.json["error"]["code"] == "JACKED_MEMORY_NOT_FOUND"


def _bare(path: Path) -> str:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return f"file://{path}"


@pytest.mark.parametrize("pushed", [True, False], ids=["pushed", "not-pushed"])
def test_forget_after_a_push_says_force_push_and_every_clone_re_clones(tmp_path: Path, pushed: bool):
    vault = _vault(tmp_path)
    url = _bare(tmp_path / "shared.git")
    assert run_cli("memory", "remote", "set", url, vault=vault).code == 0
    added = _add(vault)
    if pushed:
        assert run_cli("memory", "push", vault=vault).code == 0
    note_id, rel = added["memory"]["id"], added["path"].split(":", 1)[1]

    done = run_cli("memory", "forget", note_id, "--json", vault=vault)

    assert done.code == 0, done.out + done.err
    purge = done.json["purge"]
    assert (done.json["remote"], done.json["pushed"], purge["force_push"], purge["reclone"]) == (
        True,
        pushed,
        pushed,
        pushed,
    )
    assert purge["tool"] in ("git filter-repo", "git filter-branch")
    commands = "\n".join(purge["commands"])
    assert f"--path {rel}" in commands or f"--ignore-unmatch {rel}" in commands
    assert ("push --force" in commands) == pushed
    text = run_cli("memory", "log", "--json", vault=vault)  # the vault still works after a forget
    assert text.code == 0
    status = run_cli("memory", "status", "--json", vault=vault).json["vault"]
    assert status["notes"] == 0


def test_forget_is_for_a_person_only(tmp_path: Path):
    """A person forgets, at the CLI or on the review page (issue 33.20); no MCP tool or hook does;
    an unknown id is NOT_FOUND and writes nothing."""
    from jacked_vault.registry import DOORS

    [door] = [d for d in DOORS if d.name == "forget"]
    assert door.via == ("memory forget", "ui:POST /note/{id}/forget")
    assert door.functions == ("jacked_vault.write.forget:forget",)
    vault = _vault(tmp_path)
    head = git(vault, "rev-parse", "HEAD")
    missing = run_cli("memory", "forget", "mem_20260101_nothere", "--json", vault=vault)
    assert missing.code == 1 and missing.json["error"]["code"] == "JACKED_MEMORY_NOT_FOUND"
    assert git(vault, "rev-parse", "HEAD") == head


def test_forget_takes_the_same_text_back_from_every_live_note_of_the_store(tmp_path: Path):
    """A twin (the same value in another group) would hold the text and be refused by the new
    tombstone: it is forgotten in the same commit, named in the answer and the trailer."""
    vault = _vault(tmp_path)
    ops = _add(vault)
    dev = run_cli("memory", "add", "--group", "dev", "--title", TITLE, "--body", BODY, "--json", vault=vault).json
    ids = [ops["memory"]["id"], dev["memory"]["id"]]
    rels = [x["path"].split(":", 1)[1] for x in (ops, dev)]

    done = run_cli("memory", "forget", ids[0], "--json", vault=vault)

    assert done.code == 0, done.out + done.err
    assert done.json["also_forgotten"] == [{"id": ids[1], "path": dev["path"]}]
    assert not any((vault / rel).exists() for rel in rels)
    assert f"Memory-Forget: {ids[0]} {ids[1]}" in git(vault, "log", "-1", "--format=%B")
    assert [(line["op"], line["id"]) for line in _audit_added(vault) if line["op"] == "forget"] == [
        ("forget", ids[0]),
        ("forget", ids[1]),
    ]
    assert run_cli("memory", "doctor", "--json", vault=vault).json["ok"] is True


def test_forget_removes_a_hand_edited_working_copy_and_says_so(tmp_path: Path):
    vault = _vault(tmp_path)
    added = _add(vault)
    rel = added["path"].split(":", 1)[1]
    (vault / rel).write_text((vault / rel).read_text() + "\nmore of the secret\n")

    done = run_cli("memory", "forget", added["memory"]["id"], "--json", vault=vault)

    assert done.code == 0 and done.json["dropped_working_changes"] is True, done.out + done.err
    assert not (vault / rel).exists() and not (state_dir(vault) / "quarantine").exists()
    assert git(vault, "status", "--porcelain") == ""


@pytest.mark.slow
def test_a_forget_killed_at_any_step_is_rolled_back_or_done_never_half(tmp_path: Path):
    """kill -9 the forget after each of its working-tree writes (tombstone, note removed, index.md,
    audit) and right after its commit: the next write (another add) rolls it back or finds it
    done; doctor --repair then leaves a clean vault; the note is either there, committed, or gone
    with its tombstone and forget line, never a file missing without its commit."""
    import signal
    import sys

    from conftest import cli_env
    from helpers.faults import KILL_AT_WRITE

    script = tmp_path / "kill_at_write.py"
    script.write_text(KILL_AT_WRITE)
    killed = 0
    for point in [*range(1, 8), "commit"]:
        vault = tmp_path / f"vault-{point}"
        assert run_cli("memory", "init", "--no-scan", vault=vault).code == 0
        added = _add(vault)
        note_id, rel = added["memory"]["id"], added["path"].split(":", 1)[1]
        head = git(vault, "rev-parse", "HEAD").strip()
        proc = subprocess.run(
            [sys.executable, str(script), str(vault), str(point), "memory", "forget", note_id],
            env=cli_env(vault),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode == 0 and point != "commit":
            continue
        assert proc.returncode == -signal.SIGKILL, f"killed at {point}: rc={proc.returncode} {proc.stderr[-2000:]}"
        killed += 1
        landed = git(vault, "rev-parse", "HEAD").strip() != head
        assert landed == (point == "commit")
        assert run_cli("memory", "add", "--group", "ops", "--title", "Unrelated", "--body", "b", vault=vault).code == 0
        repaired = run_cli("memory", "doctor", "--repair", "--json", vault=vault)
        assert repaired.code == 0 and repaired.json["ok"] is True, repaired.out
        assert git(vault, "status", "--porcelain") == ""
        assert (vault / rel).exists() != landed, f"killed at {point}"
        ops = [
            json.loads(line)["op"] for p in (vault / "audit").rglob("*.jsonl") for line in p.read_text().splitlines()
        ]
        assert ("forget" in ops) == landed
        assert not (state_dir(vault) / "quarantine").exists()
    assert killed >= 4
