"""A forget holds on every machine (issue 31.5): a forgotten value never comes back through any door.

The laptop forgets a note it had pushed (text that should never have been saved). Then:

- anyone with push access copies the forgotten file back from history, with a `create` audit line
  of their own (as `active`, or as `rejected`): every machine that syncs, pulls at session start,
  merges or clones (`init --from`) keeps it out, quarantined as FORGOTTEN and said, and HEAD never
  holds the text again (the pusher's audit line never lifts a tombstone);
- an honest machine that saved the same text before it synced removes its own twin in the
  integration commit, with a `forget` audit line, so every machine ends with the text gone;
- no local door saves it again: not capture, MCP, migrate or repair, and not a person's
  `add --allow-rejected` (a forget is the person's word that the text must be gone everywhere:
  a value re-added by one machine would be removed again by every other one).

A value that was only rejected still arrives as today (taken, and rejected here).

Real machines (one HOME each), a real bare remote, plain `git` for the pusher, the real CLI.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import git, run_cli
from helpers.state import state_dir
from helpers.sync_world import bare_remote, push_from, vault_in

TITLE = "Staging login"
BODY = "The staging admin logs in with Tr0ub4dor-horse-staple-91 every morning."


def _add(vault: Path, title: str = TITLE, body: str = BODY, *extra: str, group: str = "ops") -> dict:
    added = run_cli("memory", "add", "--group", group, "--title", title, "--body", body, *extra, "--json", vault=vault)
    assert added.code == 0, added.out + added.err
    return added.json


def _texts_in_head(vault: Path) -> str:
    """Every note file HEAD holds, as one text."""
    return git(vault, "grep", "-h", "-I", "-e", "", "HEAD", "--", "groups") if git(vault, "ls-files", "groups") else ""


def _quarantined(vault: Path) -> list[tuple[str, str]]:
    path = state_dir(vault) / "quarantine" / "records.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [(r["path"], r["reason"].split(":", 1)[0]) for r in map(json.loads, lines) if r["source"] == "sync"]


class Team:
    """The laptop (which forgets), the desktop (a second machine, synced), a pusher's plain clone."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.url = bare_remote(tmp / "shared.git")
        self.laptop, self.desktop = vault_in(tmp / "laptop"), vault_in(tmp / "desktop")
        assert run_cli("memory", "init", "--no-scan", vault=self.laptop).code == 0
        self.kept = _add(self.laptop, "Deploy window", "Deploys happen on Tuesdays.")
        self.secret = _add(self.laptop)
        self.rel = self.secret["path"].split(":", 1)[1]
        self.id = self.secret["memory"]["id"]
        assert run_cli("memory", "remote", "set", self.url, vault=self.laptop).code == 0
        assert run_cli("memory", "push", vault=self.laptop).code == 0
        assert run_cli("memory", "init", "--from", self.url, vault=self.desktop).code == 0
        self.forgotten_bytes = (self.laptop / self.rel).read_bytes()

    def forget(self) -> None:
        done = run_cli("memory", "forget", self.id, "--json", vault=self.laptop)
        assert done.code == 0, done.out + done.err
        assert run_cli("memory", "sync", vault=self.laptop).code == 0

    def pusher(self) -> Path:
        clone = self.tmp / "pusher"
        if not clone.exists():
            subprocess.run(["git", "clone", "-q", self.url, str(clone)], check=True, capture_output=True)
        git(clone, "pull", "-q", "--no-rebase", "origin", "main")
        return clone

    def copy_back(self, data: bytes | None = None, rel: str | None = None) -> str:
        """The forgotten file, copied back from history (or `data`), with a `create` line of the pusher's."""
        rel = rel or self.rel
        return push_from(self.pusher(), {rel: data or self.forgotten_bytes}, "bring it back", audit={rel: self.id})


def _assert_gone(vault: Path) -> None:
    assert "Tr0ub4dor" not in _texts_in_head(vault), "HEAD holds the forgotten text"
    assert "Tr0ub4dor" not in "".join(p.read_text() for p in (vault / "groups").rglob("*.md"))
    found = run_cli("memory", "search", "staging admin", "--all", "--include-candidates", "--json", vault=vault)
    assert found.json["results"] == [], found.out
    for group in ("ops", "dev"):
        assert "Tr0ub4dor" not in run_cli("memory", "brief", "--group", group, vault=vault).out


@pytest.fixture
def team(tmp_path: Path) -> Team:
    return Team(tmp_path)


@pytest.mark.parametrize("status", ["active", "rejected"])
def test_a_forgotten_file_pushed_back_is_quarantined_and_said_by_sync(team: Team, status: str):
    team.forget()
    assert run_cli("memory", "sync", vault=team.desktop).code == 0
    data = team.forgotten_bytes.replace(b'status: "active"', f'status: "{status}"'.encode())
    team.copy_back(data)

    synced = run_cli("memory", "sync", "--json", vault=team.desktop)

    assert synced.code == 0, synced.out + synced.err
    assert synced.json["quarantined"] == [{"path": team.rel, "code": "FORGOTTEN"}], synced.out
    assert not (team.desktop / team.rel).exists()
    _assert_gone(team.desktop)
    assert (team.rel, "FORGOTTEN") in _quarantined(team.desktop)
    status_out = run_cli("memory", "status", "--json", vault=team.desktop).json
    assert status_out["vault"]["quarantined"] >= 1, status_out
    doctor = run_cli("memory", "doctor", "--json", vault=team.desktop).json
    assert doctor["ok"], doctor
    assert any(q["path"] == team.rel and q["reason"].startswith("FORGOTTEN") for q in doctor["quarantine"]), doctor
    # the desktop pushed its keeping-out: the laptop (the pusher's next victim) holds it out too
    assert run_cli("memory", "sync", vault=team.laptop).code == 0
    _assert_gone(team.laptop)
    assert git(team.tmp / "shared.git", "rev-parse", "main") == git(team.laptop, "rev-parse", "HEAD")
    shown = subprocess.run(["git", "-C", str(team.tmp / "shared.git"), "cat-file", "-e", f"main:{team.rel}"],
                           capture_output=True, check=False)  # fmt: skip
    assert shown.returncode != 0, "the remote's head holds the forgotten file again"


def test_the_text_answer_of_sync_says_what_was_kept_out_and_why(team: Team):
    team.forget()
    assert run_cli("memory", "sync", vault=team.desktop).code == 0
    team.copy_back()
    synced = run_cli("memory", "sync", vault=team.desktop)
    assert synced.code == 0, synced.err
    assert f"{team.rel} (FORGOTTEN)" in synced.out and "forgot" in synced.out, synced.out
    assert "Tr0ub4dor" not in synced.out + synced.err


def test_the_session_start_pull_keeps_a_forgotten_file_out(team: Team):
    team.forget()
    assert run_cli("memory", "sync", vault=team.desktop).code == 0
    team.copy_back()
    payload = {"session_id": "s1", "cwd": str(team.tmp), "hook_event_name": "SessionStart", "source": "startup"}
    hook = run_cli("_hook", "session-start", vault=team.desktop, stdin=json.dumps(payload))
    assert hook.code == 0 and "Tr0ub4dor" not in hook.out
    assert (team.rel, "FORGOTTEN") in _quarantined(team.desktop)
    _assert_gone(team.desktop)


def test_a_merge_keeps_a_forgotten_file_out(team: Team):
    team.forget()
    assert run_cli("memory", "sync", vault=team.desktop).code == 0
    team.copy_back()
    _add(team.desktop, "Desktop only", "Not pushed yet.")  # diverged: the sync merges
    synced = run_cli("memory", "sync", "--json", vault=team.desktop)
    assert synced.code == 0 and synced.json["action"] == "merged", synced.out + synced.err
    assert {"path": team.rel, "code": "FORGOTTEN"} in synced.json["quarantined"], synced.out
    _assert_gone(team.desktop)


def test_init_from_keeps_a_forgotten_file_out(team: Team):
    team.forget()
    team.copy_back()
    third = vault_in(team.tmp / "third")
    cloned = run_cli("memory", "init", "--from", team.url, "--json", vault=third)
    assert cloned.code == 0, cloned.out + cloned.err
    assert {"path": team.rel, "code": "FORGOTTEN"} in cloned.json["quarantined"], cloned.out
    _assert_gone(third)
    assert run_cli("memory", "doctor", "--json", vault=third).json["ok"]


def test_a_twin_saved_before_the_sync_is_forgotten_in_the_integration_commit(team: Team):
    """The desktop saved the same text (a note of its own) before it heard of the forget:
    its sync removes it, with a `forget` audit line, and pushes; both machines end without it."""
    twin = _add(team.desktop, TITLE + ".", BODY.upper(), group="dev")  # another group: not a duplicate
    twin_rel = twin["path"].split(":", 1)[1]
    team.forget()

    synced = run_cli("memory", "sync", "--json", vault=team.desktop)

    assert synced.code == 0, synced.out + synced.err
    assert not (team.desktop / twin_rel).exists() and not (team.desktop / team.rel).exists()
    assert twin_rel in synced.json["forgotten"], synced.out
    machine = (state_dir(team.desktop) / "machine-id").read_text().strip()
    lines = [
        json.loads(line)
        for p in (team.desktop / "audit" / machine).glob("*.jsonl")
        for line in p.read_text().splitlines()
    ]
    assert [(x["op"], x["id"], x["path"], x["sha256"], x["origin"]) for x in lines if x["op"] == "forget"] == [
        ("forget", twin["memory"]["id"], twin_rel, "", "sync")
    ], lines
    _assert_gone(team.desktop)
    assert run_cli("memory", "sync", vault=team.laptop).code == 0
    _assert_gone(team.laptop)
    for vault in (team.laptop, team.desktop):
        doctor = run_cli("memory", "doctor", "--json", vault=vault).json
        assert doctor["ok"], doctor
        assert git(vault, "status", "--porcelain") == ""
    assert git(team.laptop, "rev-parse", "HEAD") == git(team.desktop, "rev-parse", "HEAD")


def test_a_rejected_twin_holds_the_text_too_and_is_forgotten(team: Team):
    """The desktop rejected its own copy of the text (a rejected note keeps its text): a forget
    arriving takes that text back too."""
    twin = _add(team.desktop, TITLE, BODY, group="dev")
    twin_rel = twin["path"].split(":", 1)[1]
    assert run_cli("memory", "reject", twin["memory"]["id"], "--reason", "no", vault=team.desktop).code == 0
    team.forget()
    synced = run_cli("memory", "sync", "--json", vault=team.desktop)
    assert synced.code == 0, synced.out + synced.err
    assert not (team.desktop / twin_rel).exists()
    _assert_gone(team.desktop)
    assert run_cli("memory", "doctor", "--json", vault=team.desktop).json["ok"]


def test_a_person_cannot_add_a_forgotten_value_back_even_with_allow_rejected(team: Team):
    team.forget()
    head = git(team.laptop, "rev-parse", "HEAD")
    again = run_cli("memory", "add", "--group", "ops", "--title", TITLE + "!", "--body", BODY, "--allow-rejected",
                    "--json", vault=team.laptop)  # fmt: skip
    assert again.code == 1 and again.json["error"]["code"] == "JACKED_MEMORY_TOMBSTONED", again.out
    assert "forgotten" in again.json["error"]["message"] and "Tr0ub4dor" not in again.out
    assert git(team.laptop, "rev-parse", "HEAD") == head and git(team.laptop, "status", "--porcelain") == ""
    # a rejected (not forgotten) value is a person's to re-add, as before
    other = _add(team.laptop, "Use tabs", "Indent with tabs.")
    assert run_cli("memory", "reject", other["memory"]["id"], "--reason", "no", vault=team.laptop).code == 0
    _add(team.laptop, "Use tabs", "Indent with tabs.", "--allow-rejected")


def test_repair_never_commits_a_forgotten_value_whatever_its_status(team: Team):
    team.forget()
    for status in ("active", "rejected"):
        path = team.laptop / team.rel
        path.write_bytes(team.forgotten_bytes.replace(b'status: "active"', f'status: "{status}"'.encode()))
        judged = run_cli("memory", "doctor", "--json", vault=team.laptop).json["uncommitted"]
        assert [(j["repair"], "forgot" in j.get("problem", "")) for j in judged] == [("quarantine", True)], judged
        assert run_cli("memory", "doctor", "--repair", vault=team.laptop).code == 0
        assert not path.exists() and team.rel not in git(team.laptop, "ls-files")


def test_a_value_only_rejected_still_arrives_taken_and_rejected(team: Team):
    """Not forgotten: a note holding a value rejected elsewhere, made before its machine knew and
    arriving with its audit line, is taken and rejected here (its text legitimately stays)."""
    note = _add(team.laptop, "Prefer tabs", "Tabs everywhere.")
    assert run_cli("memory", "reject", note["memory"]["id"], "--reason", "no", vault=team.laptop).code == 0
    assert run_cli("memory", "sync", vault=team.laptop).code == 0
    clone = team.pusher()
    rel = "groups/ops/note/prefer-tabs-again.md"
    again = (team.laptop / note["path"].split(":", 1)[1]).read_bytes()
    again = again.replace(note["memory"]["id"].encode(), b"mem_20260101_01aaaaaaaaaaaaaaaaaaaaaaaaaa")
    again = again.replace(b'status: "rejected"', b'status: "active"')
    push_from(clone, {rel: again}, "a twin made before", audit={rel: "mem_20260101_01aaaaaaaaaaaaaaaaaaaaaaaaaa"})
    synced = run_cli("memory", "sync", "--json", vault=team.desktop)
    assert synced.code == 0 and synced.json["quarantined"] == [], synced.out
    assert 'status: "rejected"' in git(team.desktop, "show", f"HEAD:{rel}")
